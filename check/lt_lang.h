/* The languages the checker speaks, as LanguageTool names them: the
 * `language` field of /v2/check and the list of GET /v2/languages. */
#ifndef EL_CHECK_LT_LANG_H
#define EL_CHECK_LT_LANG_H

typedef struct el__lt_lang {
  const char *name;      /* "English (US)" */
  const char *code;      /* "en" */
  const char *long_code; /* "en-US": what a check's answer calls `language.code` */
} el__lt_lang;

/* The language a request's `language` names: "en", "en-US", "en-GB" (any
 * case, '_' for '-'), or "auto" (English (US): the checker knows no other
 * language, so there is nothing to detect). NULL for any other. */
const el__lt_lang *el__lt_lang_find(const char *code);

/* "[{"name":..,"code":..,"longCode":..},..]" (malloc'd; NULL when out of
 * memory): GET /v2/languages. */
char *el__lt_languages_json(void);

#endif
