/* The LanguageTool answer (lt_format.h). */
#include "lt_format.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "electra/electra.h"
#include "lt_rules.h"

/* Code points of context LanguageTool's servers show on each side. */
#define CONTEXT_CP 40

/* The UTF-16 offset of doc byte `at`, counting on from the last call's
 * position: matches come in text order, so a document is walked once. */
typedef struct u16_cursor {
  size_t byte, units;
} u16_cursor;

static size_t u16_at(u16_cursor *c, const char *doc, size_t at) {
  if (at < c->byte) c->byte = c->units = 0;
  c->units += el__utf16_len(doc + c->byte, at - c->byte);
  c->byte = at;
  return c->units;
}

/* Adds s[0..n) as a string member. */
static void add_substr(cJSON *o, const char *name, const char *s, size_t n) {
  char *t = malloc(n + 1);
  if (!t) return;
  memcpy(t, s, n);
  t[n] = 0;
  cJSON_AddStringToObject(o, name, t);
  free(t);
}

static int is_cont(char c) { return ((unsigned char)c & 0xc0) == 0x80; }

/* context{text, offset, length}: up to CONTEXT_CP code points each side,
 * "..." where cut, line breaks as spaces (it is shown on one line). */
static cJSON *context(const char *s, size_t n, size_t at, size_t end) {
  size_t a = at, b = end;
  for (int k = 0; k < CONTEXT_CP && a > 0; k++)
    while (a > 0 && is_cont(s[--a])) {}
  for (int k = 0; k < CONTEXT_CP && b < n; k++)
    while (++b < n && is_cont(s[b])) {}
  const char *pre = a > 0 ? "..." : "", *post = b < n ? "..." : "";
  size_t len = strlen(pre) + (b - a) + strlen(post);
  char *t = malloc(len + 1);
  cJSON *o = cJSON_CreateObject();
  if (t && o) {
    strcpy(t, pre);
    memcpy(t + strlen(pre), s + a, b - a);
    strcpy(t + strlen(pre) + (b - a), post);
    for (size_t i = 0; i < len; i++)
      if (t[i] == '\n' || t[i] == '\r' || t[i] == '\t') t[i] = ' ';
    cJSON_AddStringToObject(o, "text", t);
    cJSON_AddNumberToObject(o, "offset", (double)(strlen(pre) + el__utf16_len(s + a, at - a)));
    cJSON_AddNumberToObject(o, "length", (double)el__utf16_len(s + at, end - at));
  }
  free(t);
  return o;
}

static int ends_sentence(const char *s, size_t n, size_t i) {
  return (s[i] == '.' || s[i] == '!' || s[i] == '?') &&
         (i + 1 == n || s[i + 1] == ' ' || s[i + 1] == '\n' || s[i + 1] == '\t' ||
          s[i + 1] == '\r');
}

/* The sentence around [at, end): from after the previous sentence end or
 * line break to the next one (its full stop included). */
static void sentence(cJSON *o, const char *s, size_t n, size_t at, size_t end) {
  size_t a = at, b = end;
  while (a > 0 && s[a - 1] != '\n' && !ends_sentence(s, n, a - 1)) a--;
  while (a < at && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r')) a++;
  while (b < n && s[b] != '\n' && s[b] != '\r') {
    if (ends_sentence(s, n, b++)) break;
  }
  add_substr(o, "sentence", s + a, b - a);
}

static void add_rule(cJSON *o, const el__lt_rule *rule) {
  cJSON *type = cJSON_AddObjectToObject(o, "type");
  cJSON_AddStringToObject(type, "typeName", rule->type_name);
  cJSON *r = cJSON_AddObjectToObject(o, "rule");
  cJSON_AddStringToObject(r, "id", rule->id);
  cJSON_AddStringToObject(r, "description", rule->description);
  cJSON_AddStringToObject(r, "issueType", rule->issue_type);
  cJSON *cat = cJSON_AddObjectToObject(r, "category");
  cJSON_AddStringToObject(cat, "id", rule->category_id);
  cJSON_AddStringToObject(cat, "name", rule->category);
}

/* One match; doc offsets through c (matches in text order). */
static cJSON *match_json(const el__lt_doc *d, const el__match *m, u16_cursor *c) {
  const el__lt_rule *rule = el__lt_rule_of(m->type);
  size_t ds = el__lt_doc_map(d, m->offset, 0);
  size_t de = m->length ? el__lt_doc_map(d, m->offset + m->length, 1) : ds;
  if (de < ds) de = ds;
  size_t off = u16_at(c, d->doc, ds);
  size_t len = el__utf16_len(d->doc + ds, de - ds);
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  cJSON_AddStringToObject(o, "message", m->message[0] ? m->message : rule->description);
  cJSON_AddStringToObject(o, "shortMessage", m->short_message);
  cJSON_AddNumberToObject(o, "offset", (double)off);
  cJSON_AddNumberToObject(o, "length", (double)len);
  cJSON *repl = cJSON_AddArrayToObject(o, "replacements");
  for (int r = 0; repl && r < m->n_repl && r < EL__MATCH_MAX_REPL; r++) {
    cJSON *v = cJSON_CreateObject();
    if (!v || !cJSON_AddItemToArray(repl, v)) {
      cJSON_Delete(v);
      break;
    }
    cJSON_AddStringToObject(v, "value", m->repl[r] ? m->repl[r] : "");
  }
  cJSON_AddItemToObject(o, "context",
                        context(d->plain, d->plain_len, m->offset, m->offset + m->length));
  sentence(o, d->plain, d->plain_len, m->offset, m->offset + m->length);
  add_rule(o, rule);
  return o;
}

/* __DATE__ ("Jan  2 2025") as LanguageTool's buildDate ("2025-01-02"). */
static void build_date(char out[11]) {
  static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
  const char *d = __DATE__;
  const char *m = strstr(months, (char[4]){d[0], d[1], d[2], 0});
  int mon = m ? (int)(m - months) / 3 + 1 : 1;
  out[0] = d[7], out[1] = d[8], out[2] = d[9], out[3] = d[10], out[4] = '-';
  out[5] = (char)('0' + mon / 10), out[6] = (char)('0' + mon % 10), out[7] = '-';
  out[8] = d[4] == ' ' ? '0' : d[4], out[9] = d[5], out[10] = 0;
}

static void add_head(cJSON *root, const el__lt_lang *lang) {
  char date[11];
  build_date(date);
  cJSON *sw = cJSON_AddObjectToObject(root, "software");
  cJSON_AddStringToObject(sw, "name", "electra.c");
  cJSON_AddStringToObject(sw, "version", EL_VERSION);
  cJSON_AddStringToObject(sw, "buildDate", date);
  cJSON_AddNumberToObject(sw, "apiVersion", 1);
  cJSON_AddBoolToObject(sw, "premium", 0);
  cJSON_AddStringToObject(sw, "status", "");
  cJSON *w = cJSON_AddObjectToObject(root, "warnings");
  cJSON_AddBoolToObject(w, "incompleteResults", 0);
  cJSON *l = cJSON_AddObjectToObject(root, "language");
  cJSON_AddStringToObject(l, "name", lang->name);
  cJSON_AddStringToObject(l, "code", lang->long_code);
  /* no detection: English is the only language checked, so it is "detected"
   * with certainty */
  cJSON *det = cJSON_AddObjectToObject(l, "detectedLanguage");
  cJSON_AddStringToObject(det, "name", lang->name);
  cJSON_AddStringToObject(det, "code", lang->long_code);
  cJSON_AddNumberToObject(det, "confidence", 1.0);
}

char *el__lt_response(const el__lt_doc *d, const el__lt_lang *lang, unsigned types,
                      const el__matches *ms) {
  if (!lang) lang = el__lt_lang_find("en-US");
  cJSON *root = cJSON_CreateObject();
  if (!root) return NULL;
  add_head(root, lang);
  cJSON *arr = cJSON_AddArrayToObject(root, "matches");
  u16_cursor c = {0, 0};
  for (int i = 0; arr && ms && i < ms->n; i++) {
    const el__match *m = &ms->m[i];
    int t = m->type >= 0 && m->type < EL__ET_COUNT ? m->type : EL__ET_OTHER;
    if (!(types & (1u << t)) || m->offset > d->plain_len || m->length > d->plain_len - m->offset)
      continue;
    cJSON *o = match_json(d, m, &c);
    if (!o || !cJSON_AddItemToArray(arr, o)) cJSON_Delete(o);
  }
  char *s = cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  return s;
}
