/* Form body -> el__lt_request (lt_request.h). */
#include "lt_request.h"

#include <stdio.h>
#include <string.h>

#include "lt_form.h"
#include "lt_rules.h"

/* Fields whose repeats are joined (lists of ids); any other field may come
 * once, since which copy wins would otherwise be a guess. */
static const char *const LISTS[] = {"enabledRules", "disabledRules", "enabledCategories",
                                    "disabledCategories"};

static int is_list(const char *key) {
  for (size_t i = 0; i < sizeof LISTS / sizeof *LISTS; i++)
    if (!strcmp(key, LISTS[i])) return 1;
  return 0;
}

/* The ids of a list field, repeats joined by ','; "" without one. */
static int joined(const el__form *f, const char *key, char *out, size_t cap) {
  size_t n = 0;
  out[0] = 0;
  for (int i = 0; i < f->n; i++) {
    if (strcmp(f->f[i].key, key)) continue;
    size_t need = f->f[i].value_len + (n ? 1 : 0);
    if (n + need + 1 > cap) return -1;
    if (n) out[n++] = ',';
    memcpy(out + n, f->f[i].value, f->f[i].value_len + 1);
    n += f->f[i].value_len;
  }
  return 0;
}

static int once_only(const el__form *f, char *msg, size_t cap) {
  for (int i = 0; i < f->n; i++) {
    int count = 0;
    el__form_get(f, f->f[i].key, &count);
    if (count > 1 && !is_list(f->f[i].key))
      return snprintf(msg, cap, "parameter '%.64s' given more than once", f->f[i].key), -1;
  }
  return 0;
}

static int parse_filters(const el__form *f, el__lt_request *r, char *msg, size_t cap) {
  char lists[4][2048];
  for (int i = 0; i < 4; i++)
    if (joined(f, LISTS[i], lists[i], sizeof lists[i]) < 0)
      return snprintf(msg, cap, "'%s' is too long", LISTS[i]), -1;
  const el__form_field *only = el__form_get(f, "enabledOnly", NULL);
  int enabled_only = only && !strcmp(only->value, "true");
  if (only && !enabled_only && strcmp(only->value, "false"))
    return snprintf(msg, cap, "enabledOnly must be 'true' or 'false'"), -1;
  if (enabled_only && !lists[0][0] && !lists[2][0])
    return snprintf(msg, cap, "enabledOnly=true needs enabledRules or enabledCategories"), -1;
  r->types = el__lt_filter_types(lists[0], lists[1], lists[2], lists[3], enabled_only);
  return 0;
}

/* text or data -> r->doc */
static int parse_document(const el__form *f, el__lt_request *r, char *msg, size_t cap) {
  const el__form_field *text = el__form_get(f, "text", NULL);
  const el__form_field *data = el__form_get(f, "data", NULL);
  if (!text && !data) return snprintf(msg, cap, "Missing 'text' or 'data' parameter"), -1;
  if (text && data) return snprintf(msg, cap, "give 'text' or 'data', not both"), -1;
  if (text) {
    if (el__lt_doc_from_text(text->value, text->value_len, &r->doc) < 0)
      return snprintf(msg, cap, "out of memory"), -1;
    return 0;
  }
  return el__lt_doc_from_data(data->value, data->value_len, &r->doc, msg, cap);
}

static int parse_language(const el__form *f, el__lt_request *r, char *msg, size_t cap) {
  const el__form_field *lang = el__form_get(f, "language", NULL);
  if (!lang)
    return snprintf(msg, cap, "Missing 'language' parameter, e.g. 'language=en-US' or "
                              "'language=auto'"), -1;
  r->lang = el__lt_lang_find(lang->value);
  if (!r->lang)
    return snprintf(msg, cap, "'%.40s' is not a language code this server knows; it checks "
                              "English: en, en-US, en-GB or auto", lang->value), -1;
  const el__form_field *level = el__form_get(f, "level", NULL);
  r->picky = level && !strcmp(level->value, "picky");
  if (level && !r->picky && strcmp(level->value, "default"))
    return snprintf(msg, cap, "level must be 'default' or 'picky'"), -1;
  return 0;
}

int el__lt_request_parse(const char *body, size_t len, el__lt_request *r, char *msg, size_t cap) {
  memset(r, 0, sizeof *r);
  el__form f;
  if (el__form_parse(body, len, &f, msg, cap) < 0) return -1;
  int rc = once_only(&f, msg, cap);
  if (!rc) rc = parse_language(&f, r, msg, cap);
  if (!rc) rc = parse_filters(&f, r, msg, cap);
  if (!rc) rc = parse_document(&f, r, msg, cap);
  el__form_free(&f);
  if (rc < 0) el__lt_request_free(r);
  return rc;
}

void el__lt_request_free(el__lt_request *r) {
  if (!r) return;
  el__lt_doc_free(&r->doc);
  memset(r, 0, sizeof *r);
}
