/* Reading a POST body as JSON, before any text is tokenized: the byte-level
 * prescan and cJSON parse, the routes' known fields, typed field access with
 * the exact error kinds of docs/API.md, the model choice and the item list.
 * srv_api.c calls these steps in order and, per route, reads its fields with
 * them; it keeps the tokenizing, encoding and rendering. Kept apart so the
 * rules of what a body may say sit in one file, away from what the server
 * does with it. Every function returns EL_HERR_NONE or the error's kind with
 * its message in f. */
#ifndef EL_SERVER_REQUEST_H
#define EL_SERVER_REQUEST_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "srv_errors.h"
#include "srv_models.h"

/* body -> *root, its one JSON object with only whitespace after it (the
 * caller frees it with cJSON_Delete). The byte-level checks (UTF-8, nesting
 * deeper than max_depth, escapes, control bytes) come first, so cJSON never
 * sees what it would misread. */
el__http_err el__req_parse(const char *body, size_t len, int max_depth, cJSON **root,
                           el__fail *f);

/* Every member of root is one of route's fields (EL_ROUTE_TOKENIZE / _SCORE /
 * _CLASSIFY / _QA); an unknown one is 400 naming it, with the field it is a
 * likely typo of. */
el__http_err el__req_check_body(const cJSON *root, int route, el__fail *f);
/* The same for one item of a batch's "inputs" (/classify, /qa); where
 * prefixes the names in messages ("\"inputs\"[2]."). */
el__http_err el__req_check_input(const cJSON *item, int route, const char *where,
                                 el__fail *f);

/* obj's member name, NULL when absent or null (both mean "not given"). */
const cJSON *el__req_given(const cJSON *obj, const char *name);
/* Optional fields: absent or null leaves *out as it is (the default; for a
 * string, *out = NULL); any other type is 400, an out-of-range value 422.
 * where prefixes the name in a string's message. */
el__http_err el__req_string(const cJSON *obj, const char *name, const char *where,
                            const cJSON **out, el__fail *f);
el__http_err el__req_bool(const cJSON *obj, const char *name, int *out, el__fail *f);
el__http_err el__req_int(const cJSON *obj, const char *name, int lo, int hi, int *out,
                         el__fail *f);
/* A number from 0 to 1 ("threshold"). */
el__http_err el__req_fraction(const cJSON *obj, const char *name, double *out, el__fail *f);

/* The model the request runs on: "model" by name, else the default of the
 * route's task (the first model for /tokenize). A named model that serves
 * another task is 422. *out is borrowed from set. */
el__http_err el__req_model(const cJSON *root, el__model_set *set, int route,
                           el__model_entry **out, el__fail *f);

/* The request's tokenizer flags: literal "[SEP]", "[CLS]"... typed in a text
 * are special tokens (Hugging Face's default) unless "special_tokens_in_text"
 * is false, or absent with specials_as_text set (--special-tokens-in-text
 * text). */
el__http_err el__req_specials(const cJSON *root, int specials_as_text, int *tok_flags,
                              el__fail *f);

/* The request's items: either root holds the single-item field `single`
 * (then *nodes = {root}, *batch = 0), or `list` holds an array of 1..max
 * items, objects or, when strings_ok, strings (*batch = 1). *nodes is
 * malloc'ed (the caller frees it) and points into root. */
el__http_err el__req_items(const cJSON *root, const char *single, const char *list,
                           int strings_ok, int max, const cJSON ***nodes, int *n, int *batch,
                           el__fail *f);

#endif
