/* A POST body as JSON: parse, known fields, typed access, model choice, the
 * item list (srv_request.h). */
#include "srv_request.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "el_cli.h"
#include "electra/model.h"
#include "srv_heads.h"
#include "srv_jsonscan.h"
#include "srv_metrics.h"

/* ---- the body ---- */

/* The byte-level checks before any parsing: UTF-8, nesting depth, escapes,
 * control bytes (el__json_prescan). */
static el__http_err prescan_body(const char *body, size_t len, int max_depth, el__fail *f) {
  if (len == 0) return el__failf(f, EL_HERR_INVALID_REQUEST, "the request has no body");
  size_t at = 0;
  switch (el__json_prescan(body, len, max_depth, &at)) {
    case EL_SCAN_BAD_UTF8:
      return el__failf(f, EL_HERR_INVALID_REQUEST, "body is not valid UTF-8 at byte %zu", at);
    case EL_SCAN_TOO_DEEP:
      return el__failf(f, EL_HERR_INVALID_JSON, "JSON nested deeper than %d levels at byte %zu",
                       max_depth, at);
    case EL_SCAN_NUL_ESCAPE:
      return el__failf(f, EL_HERR_INVALID_REQUEST, "\\u0000 in a string at byte %zu", at);
    case EL_SCAN_BAD_ESCAPE:
      return el__failf(f, EL_HERR_INVALID_JSON, "bad \\u escape (not 4 hex digits) at byte %zu",
                       at);
    case EL_SCAN_CONTROL:
      return el__failf(f, EL_HERR_INVALID_JSON, "control byte 0x%02x at byte %zu",
                       (unsigned char)body[at], at);
    case EL_SCAN_OK: break;
  }
  return EL_HERR_NONE;
}

/* *root: the body's one JSON object, with only whitespace after it. */
static el__http_err parse_object(const char *body, size_t len, cJSON **root, el__fail *f) {
  const char *end = NULL;
  *root = cJSON_ParseWithLengthOpts(body, len, &end, 0);
  if (*root && end) { /* only whitespace may follow the value */
    while (end < body + len && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
      end++;
    if (end != body + len) {
      cJSON_Delete(*root);
      *root = NULL;
    }
  }
  if (!*root) {
    size_t pos = end && end >= body && end <= body + len ? (size_t)(end - body) : 0;
    return el__failf(f, EL_HERR_INVALID_JSON, "malformed JSON at byte %zu", pos);
  }
  if (!cJSON_IsObject(*root))
    return el__failf(f, EL_HERR_INVALID_REQUEST, "the body must be a JSON object");
  return EL_HERR_NONE;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A key repeated in one object of v, at any depth: 1 and *key, else 0; -1
 * when out of memory. Sorting the keys keeps a hostile object of 100 000
 * members at n log n. Depth is bounded by the prescan. */
static int repeated_key(const cJSON *v, const char **key) {
  int n = 0;
  for (const cJSON *m = v->child; m; m = m->next, n++) {
    int rc = cJSON_IsObject(m) || cJSON_IsArray(m) ? repeated_key(m, key) : 0;
    if (rc) return rc;
  }
  if (!cJSON_IsObject(v) || n < 2) return 0;
  const char **names = malloc((size_t)n * sizeof *names);
  if (!names) return -1;
  int i = 0, found = 0;
  for (const cJSON *m = v->child; m; m = m->next) names[i++] = m->string;
  qsort(names, (size_t)n, sizeof *names, by_name);
  for (i = 1; i < n && !found; i++)
    if (!strcmp(names[i - 1], names[i])) found = 1, *key = names[i];
  free(names);
  return found;
}

el__http_err el__req_parse(const char *body, size_t len, int max_depth, cJSON **root,
                           el__fail *f) {
  *root = NULL;
  el__http_err e = prescan_body(body, len, max_depth, f);
  if (!e) e = parse_object(body, len, root, f);
  if (e) return e;
  /* JSON parsers disagree on a repeated key (cJSON reads the first, Python
   * and most others the last): refused, so no reader of the same body can
   * see another request than this server */
  const char *key = NULL;
  int rc = repeated_key(*root, &key);
  if (rc < 0) return el__failf(f, EL_HERR_INTERNAL, "out of memory");
  if (rc) return el__failf(f, EL_HERR_INVALID_REQUEST, "duplicate key \"%.60s\" in an object "
                           "(each key may appear once)", key);
  return EL_HERR_NONE;
}

/* ---- known fields ---- */

/* The fields of each POST route's body and of its "inputs" items. */
static const char *const TOKENIZE_FIELDS[] = {"text", "model", "add_special_tokens",
                                              "special_tokens_in_text"};
static const char *const SCORE_FIELDS[] = {"text", "texts", "model", "threshold", "truncate",
                                           "suggestions", "special_tokens_in_text"};
static const char *const CLASSIFY_FIELDS[] = {"text", "text_pair", "inputs", "model", "truncate",
                                              "special_tokens_in_text"};
static const char *const CLASSIFY_ITEM_FIELDS[] = {"text", "text_pair"};
static const char *const QA_FIELDS[] = {"question", "context", "inputs", "model", "top_k",
                                        "max_answer_len", "doc_stride", "max_seq_len",
                                        "max_question_len", "handle_impossible_answer",
                                        "special_tokens_in_text"};
static const char *const QA_ITEM_FIELDS[] = {"question", "context"};
#define N_OF(a) ((int)(sizeof a / sizeof a[0]))

/* Every member of obj must be one of fields: an unknown one is 400 naming
 * it, with the field it is a likely typo of. where prefixes the name
 * ("\"inputs\"[2]."); route names the route in the list of fields. */
static el__http_err check_fields(const cJSON *obj, const char *const *fields, int n,
                                 const char *where, const char *route, el__fail *f) {
  for (const cJSON *m = obj->child; m; m = m->next) {
    int known = 0;
    for (int i = 0; i < n && !known; i++) known = !strcmp(m->string, fields[i]);
    if (known) continue;
    const char *near = el__near_miss(m->string, fields, n);
    if (near)
      return el__failf(f, EL_HERR_INVALID_REQUEST, "unknown field %s\"%.60s\" (did you mean "
                       "\"%s\"?)", where, m->string, near);
    char list[200] = "";
    size_t k = 0;
    for (int i = 0; i < n && k < sizeof list; i++)
      k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", i ? ", " : "", fields[i]);
    return el__failf(f, EL_HERR_INVALID_REQUEST, "unknown field %s\"%.60s\"; %s takes %s",
                     where, m->string, route, list);
  }
  return EL_HERR_NONE;
}

el__http_err el__req_check_body(const cJSON *root, int route, el__fail *f) {
  switch (route) {
    case EL_ROUTE_SCORE:
      return check_fields(root, SCORE_FIELDS, N_OF(SCORE_FIELDS), "", "/score", f);
    case EL_ROUTE_CLASSIFY:
      return check_fields(root, CLASSIFY_FIELDS, N_OF(CLASSIFY_FIELDS), "", "/classify", f);
    case EL_ROUTE_QA: return check_fields(root, QA_FIELDS, N_OF(QA_FIELDS), "", "/qa", f);
    default:
      return check_fields(root, TOKENIZE_FIELDS, N_OF(TOKENIZE_FIELDS), "", "/tokenize", f);
  }
}

el__http_err el__req_check_input(const cJSON *item, int route, const char *where,
                                 el__fail *f) {
  if (route == EL_ROUTE_QA)
    return check_fields(item, QA_ITEM_FIELDS, N_OF(QA_ITEM_FIELDS), where, "an input", f);
  return check_fields(item, CLASSIFY_ITEM_FIELDS, N_OF(CLASSIFY_ITEM_FIELDS), where,
                      "an input", f);
}

/* ---- field access with exact error kinds ---- */

const cJSON *el__req_given(const cJSON *obj, const char *name) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
  return v && !cJSON_IsNull(v) ? v : NULL;
}

el__http_err el__req_string(const cJSON *obj, const char *name, const char *where,
                            const cJSON **out, el__fail *f) {
  const cJSON *v = el__req_given(obj, name);
  *out = NULL;
  if (!v) return EL_HERR_NONE;
  if (!cJSON_IsString(v) || !v->valuestring)
    return el__failf(f, EL_HERR_INVALID_REQUEST, "%s\"%s\" must be a string", where, name);
  *out = v;
  return EL_HERR_NONE;
}

el__http_err el__req_bool(const cJSON *obj, const char *name, int *out, el__fail *f) {
  const cJSON *v = el__req_given(obj, name);
  if (!v) return EL_HERR_NONE;
  if (!cJSON_IsBool(v))
    return el__failf(f, EL_HERR_INVALID_REQUEST, "\"%s\" must be true or false", name);
  *out = cJSON_IsTrue(v);
  return EL_HERR_NONE;
}

el__http_err el__req_int(const cJSON *obj, const char *name, int lo, int hi, int *out,
                         el__fail *f) {
  const cJSON *v = el__req_given(obj, name);
  if (!v) return EL_HERR_NONE;
  if (cJSON_IsNumber(v) && !isfinite(v->valuedouble)) /* past a double's range (1e400) */
    return el__failf(f, EL_HERR_VALIDATION, "\"%s\" must be between %d and %d, got a number "
                     "beyond a double's range", name, lo, hi);
  if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble))
    return el__failf(f, EL_HERR_INVALID_REQUEST, "\"%s\" must be an integer", name);
  if (v->valuedouble < lo || v->valuedouble > hi)
    return el__failf(f, EL_HERR_VALIDATION, "\"%s\" must be between %d and %d, got %.0f", name,
                     lo, hi, v->valuedouble);
  *out = (int)v->valuedouble;
  return EL_HERR_NONE;
}

el__http_err el__req_fraction(const cJSON *obj, const char *name, double *out, el__fail *f) {
  const cJSON *v = el__req_given(obj, name);
  if (!v) return EL_HERR_NONE;
  if (!cJSON_IsNumber(v))
    return el__failf(f, EL_HERR_INVALID_REQUEST, "\"%s\" must be a number", name);
  if (!isfinite(v->valuedouble)) /* past a double's range (1e400): infinity */
    return el__failf(f, EL_HERR_VALIDATION, "\"%s\" must be between 0 and 1, got a number "
                     "beyond a double's range", name);
  if (v->valuedouble < 0 || v->valuedouble > 1)
    return el__failf(f, EL_HERR_VALIDATION, "\"%s\" must be between 0 and 1, got %g", name,
                     v->valuedouble);
  *out = v->valuedouble;
  return EL_HERR_NONE;
}

/* ---- model choice ---- */

static int task_of_route(int route) {
  return route == EL_ROUTE_SCORE      ? EL_TASK_SCORE
         : route == EL_ROUTE_CLASSIFY ? EL_TASK_CLASSIFY
         : route == EL_ROUTE_QA       ? EL_TASK_QA
                                      : -1;
}

el__http_err el__req_model(const cJSON *root, el__model_set *set, int route,
                           el__model_entry **out, el__fail *f) {
  const int task = task_of_route(route);
  const cJSON *m;
  el__http_err e = el__req_string(root, "model", "", &m, f);
  if (e) return e;
  if (m) {
    el__model_entry *en = el__model_set_find(set, m->valuestring);
    if (!en) {
      char names[512] = "";
      size_t k = 0;
      for (int i = 0; i < set->n && k < sizeof names - 70; i++)
        k += (size_t)snprintf(names + k, sizeof names - k, "%s%.64s", i ? ", " : "",
                              set->e[i].name);
      return el__failf(f, EL_HERR_NOT_FOUND, "unknown model \"%.64s\"; loaded: %s",
                       m->valuestring, names);
    }
    if (task >= 0 && en->task != task)
      return el__failf(f, EL_HERR_VALIDATION,
                       "model \"%s\" is %s, which serves %s, not %s", en->name,
                       el_arch_name(en->cfg->arch), el__task_route(en->task),
                       el__task_route(task));
    *out = en;
    return EL_HERR_NONE;
  }
  if (task < 0) {
    *out = &set->e[0];
    return EL_HERR_NONE;
  }
  int d = set->task_default[task];
  if (d < 0)
    return el__failf(f, EL_HERR_NOT_FOUND, "no model loaded serves %s", el__task_route(task));
  *out = &set->e[d];
  return EL_HERR_NONE;
}

el__http_err el__req_specials(const cJSON *root, int specials_as_text, int *tok_flags,
                              el__fail *f) {
  int specials = !specials_as_text;
  el__http_err e = el__req_bool(root, "special_tokens_in_text", &specials, f);
  *tok_flags = specials ? 0 : EL_TOKENIZE_SPECIALS_AS_TEXT;
  return e;
}

/* ---- inputs: single object fields or a batch array ---- */

el__http_err el__req_items(const cJSON *root, const char *single, const char *list,
                           int strings_ok, int max, const cJSON ***nodes, int *n, int *batch,
                           el__fail *f) {
  const cJSON *one = el__req_given(root, single), *many = el__req_given(root, list);
  if (one && many)
    return el__failf(f, EL_HERR_INVALID_REQUEST, "give either \"%s\" or \"%s\", not both",
                     single, list);
  if (!one && !many)
    return el__failf(f, EL_HERR_INVALID_REQUEST, "missing \"%s\" (or \"%s\")", single, list);
  if (one) {
    *nodes = malloc(sizeof **nodes);
    if (!*nodes) return el__failf(f, EL_HERR_INTERNAL, "out of memory");
    (*nodes)[0] = root;
    *n = 1;
    *batch = 0;
    return EL_HERR_NONE;
  }
  if (!cJSON_IsArray(many))
    return el__failf(f, EL_HERR_INVALID_REQUEST, "\"%s\" must be an array", list);
  int cnt = cJSON_GetArraySize(many);
  if (cnt == 0) return el__failf(f, EL_HERR_INVALID_REQUEST, "\"%s\" is empty", list);
  if (cnt > max)
    return el__failf(f, EL_HERR_VALIDATION, "\"%s\" has %d items; at most %d are allowed",
                     list, cnt, max);
  *nodes = malloc((size_t)cnt * sizeof **nodes);
  if (!*nodes) return el__failf(f, EL_HERR_INTERNAL, "out of memory");
  int i = 0;
  for (const cJSON *x = many->child; x; x = x->next, i++) {
    if (strings_ok ? !cJSON_IsString(x) : !cJSON_IsObject(x)) {
      free(*nodes);
      *nodes = NULL;
      return el__failf(f, EL_HERR_INVALID_REQUEST, "\"%s\"[%d] must be %s", list, i,
                       strings_ok ? "a string" : "an object");
    }
    (*nodes)[i] = x;
  }
  *n = cnt;
  *batch = 1;
  return EL_HERR_NONE;
}
