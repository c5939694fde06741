/* LanguageTool's /v2/check answer from the checker's matches: what the
 * server's /v2/check and `electra-train check --format json` print. */
#ifndef EL_CHECK_LT_FORMAT_H
#define EL_CHECK_LT_FORMAT_H

#include <stddef.h>

#include "lt_doc.h"
#include "lt_lang.h"
#include "match.h"

/* The answer for matches ms found in d's checked text (byte offsets of
 * d->plain, in text order), keeping the types whose bit is set in types
 * (EL__LT_ALL_TYPES for all): software, warnings, language (lang; NULL is
 * en-US) and matches, their offsets and lengths in UTF-16 code units of the
 * whole document. A match outside the text is left out. malloc'd JSON; NULL
 * when out of memory. */
char *el__lt_response(const el__lt_doc *d, const el__lt_lang *lang, unsigned types,
                      const el__matches *ms);

#endif
