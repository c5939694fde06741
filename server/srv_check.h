/* POST /v2/check and GET /v2/languages: LanguageTool's API (docs/CHECKER.md)
 * over the grammar checker. The form body becomes an el__lt_request
 * (check/lt_request.h) on a prepare thread; the check runs as one job on
 * the inference thread (el__seq.work: the checker makes its own batched
 * passes, and that thread owns every BLAS call); the matches become
 * LanguageTool's answer (check/lt_format.h). */
#ifndef EL_SERVER_CHECK_H
#define EL_SERVER_CHECK_H

#include <stddef.h>

#include "srv_batcher.h"
#include "srv_errors.h"
#include "srv_models.h"

typedef struct el__check_req el__check_req;

/* Parses the form body and picks the default /score model of set
 * (borrowed until el__check_free). 400 for a bad request, 503 when no model
 * has a checker. */
el__http_err el__check_prepare(const char *body, size_t len, el__model_set *set,
                               el__check_req **out, el__fail *f);

/* The job's one sequence (its work runs the check), its queue key (apart
 * from the model's /score sequences) and its cost in tokens. */
el__seq *el__check_seq(el__check_req *r);
void *el__check_queue(const el__check_req *r);
const char *el__check_model_name(const el__check_req *r);

/* LanguageTool's answer once the job is done (malloc'd in *body). */
el__http_err el__check_render(el__check_req *r, char **body, size_t *len, el__fail *f);

void el__check_free(el__check_req *r);

#endif
