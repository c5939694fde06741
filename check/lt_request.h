/* A /v2/check request as LanguageTool defines it, from its form-encoded
 * body: the document (`text` or `data`), the language, the rule and
 * category filters, the level. */
#ifndef EL_CHECK_LT_REQUEST_H
#define EL_CHECK_LT_REQUEST_H

#include <stddef.h>

#include "lt_doc.h"
#include "lt_lang.h"

typedef struct el__lt_request {
  el__lt_doc doc;
  const el__lt_lang *lang; /* never NULL after a parse */
  unsigned types;          /* bit per el__etype reported (lt_rules.h's filters) */
  int picky;               /* level=picky */
} el__lt_request;

/* Parses len bytes of an application/x-www-form-urlencoded body. -1 with a
 * message for the client (a 400) in msg: no `text` nor `data`, both, a
 * field given twice, an unknown language or level, bad encoding. Fields
 * LanguageTool takes that do not change this checker's answer (motherTongue,
 * preferredVariants, username, apiKey, ...) are accepted and ignored, as are
 * unknown ones: clients send extras. */
int el__lt_request_parse(const char *body, size_t len, el__lt_request *r, char *msg, size_t cap);

void el__lt_request_free(el__lt_request *r);

#endif
