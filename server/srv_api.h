/* The JSON side of the POST routes: a body becomes a plain request (texts
 * tokenized and encoded into sequences for the batcher), and results become
 * the response body (docs/API.md). The cJSON tree lives here and in
 * srv_request.c (the body's parse and field rules) only; the engine sees
 * token ids. Runs on HTTP threads; one el__api_req per request. */
#ifndef EL_SERVER_API_H
#define EL_SERVER_API_H

#include <stddef.h>

#include "srv_batcher.h"
#include "srv_errors.h"
#include "srv_models.h"
#include "srv_sbuf.h"

typedef struct el__api_limits {
  int max_inputs;
  int max_qa_windows; /* /qa: windows over all of a request's contexts */
  int max_depth;      /* JSON nesting */
  int specials_as_text; /* --special-tokens-in-text text: the default of special_tokens_in_text is false */
} el__api_limits;

typedef struct el__api_req el__api_req;

/* Parses and validates body for route (EL_ROUTE_TOKENIZE / _SCORE /
 * _CLASSIFY / _QA), picks the model from set (borrowed: the caller keeps a
 * reference on set until el__api_free), tokenizes and encodes. On error
 * returns its kind with a message in f and *out = NULL. */
el__http_err el__api_prepare(int route, const char *body, size_t len, el__model_set *set,
                             const el__api_limits *lim, el__api_req **out, el__fail *f);

/* The sequences to run (owned by r; *n may be 0: answer without inference)
 * and the model they run on. */
el__seq *el__api_seqs(el__api_req *r, int *n);
el__model_entry *el__api_entry(const el__api_req *r);

/* Renders the 200 body once the sequences' outputs are filled. */
el__http_err el__api_render(el__api_req *r, el__sb *out, el__fail *f);

void el__api_free(el__api_req *r);

#endif
