/* The languages the checker speaks, as LanguageTool names them: the
 * `language` field of /v2/check and the list of GET /v2/languages. */
#ifndef EL_CHECK_LT_LANG_H
#define EL_CHECK_LT_LANG_H

#include "dict.h"

typedef struct el__lt_lang {
  const char *name;         /* "English (US)" */
  const char *code;         /* "en" */
  const char *long_code;    /* "en-US": what a check's answer calls `language.code` */
  el__dict_variant variant; /* the spelling checked: en-GB British, en-US American, en both */
} el__lt_lang;

/* The language a request's `language` names: "en", "en-US", "en-GB" (any
 * case, '_' for '-'), or "auto" (answered as English (US): the checker
 * knows no other language, so there is nothing to detect; spelt as "en" is,
 * British or American). NULL for any other. Also the commands'
 * --language. */
const el__lt_lang *el__lt_lang_find(const char *code);

/* "[{"name":..,"code":..,"longCode":..},..]" (malloc'd; NULL when out of
 * memory): GET /v2/languages. */
char *el__lt_languages_json(void);

#endif
