/* The languages table (lt_lang.h). */
#include "lt_lang.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <string.h>

static const el__lt_lang LANGS[] = {
    {"English", "en", "en", EL__DICT_EN},
    {"English (US)", "en", "en-US", EL__DICT_US},
    {"English (GB)", "en", "en-GB", EL__DICT_GB},
};
/* "auto": no variant to detect in a text that may use either */
static const el__lt_lang AUTO = {"English (US)", "en", "en-US", EL__DICT_EN};
#define N_LANGS (sizeof LANGS / sizeof *LANGS)

/* LanguageTool matches codes without regard to case or '-' versus '_'. */
static int same_code(const char *a, const char *b) {
  for (; *a && *b; a++, b++) {
    char x = (char)tolower((unsigned char)*a), y = (char)tolower((unsigned char)*b);
    if (x == '_') x = '-';
    if (x != y) return 0;
  }
  return !*a && !*b;
}

const el__lt_lang *el__lt_lang_find(const char *code) {
  if (!code) return NULL;
  if (same_code(code, "auto")) return &AUTO;
  for (size_t i = 0; i < N_LANGS; i++)
    if (same_code(code, LANGS[i].long_code)) return &LANGS[i];
  return NULL;
}

char *el__lt_languages_json(void) {
  cJSON *arr = cJSON_CreateArray();
  for (size_t i = 0; arr && i < N_LANGS; i++) {
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToArray(arr, o)) {
      cJSON_Delete(o);
      break;
    }
    cJSON_AddStringToObject(o, "name", LANGS[i].name);
    cJSON_AddStringToObject(o, "code", LANGS[i].code);
    cJSON_AddStringToObject(o, "longCode", LANGS[i].long_code);
  }
  char *s = arr ? cJSON_PrintUnformatted(arr) : NULL;
  cJSON_Delete(arr);
  return s;
}
