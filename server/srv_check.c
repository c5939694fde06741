/* The /v2/check route (srv_check.h). */
#include "srv_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lt_format.h"
#include "lt_request.h"

struct el__check_req {
  el__lt_request lt;
  el__model_entry *entry;
  el__seq seq;
  el__matches matches;
  int failed;          /* the check failed on the inference thread */
  char errmsg[600]; /* "check: " and an el_error message */
};

/* On the inference thread (el__seq.work). */
static void run_check(void *arg) {
  el__check_req *r = arg;
  el_error er = {0};
  if (!r->lt.doc.plain_len) return; /* nothing to check */
  el__checker_set_picky(r->entry->checker, r->lt.picky);
  if (el__check_text(r->entry->checker, r->lt.doc.plain, r->lt.doc.plain_len,
                     r->lt.lang->variant, &r->matches, &er)) {
    r->failed = 1;
    snprintf(r->errmsg, sizeof r->errmsg, "check: %s", er.msg);
  }
}

/* The default /score model with a checker (the first, as /score's default). */
static el__model_entry *checker_model(el__model_set *set, el__fail *f) {
  int d = set->task_default[EL_TASK_SCORE];
  if (d < 0) {
    el__failf(f, EL_HERR_UNAVAILABLE, "no grammar model is loaded (serve an "
              "ElectraForPreTraining or ElectraForTokenClassification model with --model)");
    return NULL;
  }
  if (!set->e[d].checker) {
    el__failf(f, EL_HERR_UNAVAILABLE, "%s", set->e[d].check_err[0] ? set->e[d].check_err
                                                                    : "no grammar checker");
    return NULL;
  }
  return &set->e[d];
}

el__http_err el__check_prepare(const char *body, size_t len, el__model_set *set,
                               el__check_req **out, el__fail *f) {
  *out = NULL;
  el__check_req *r = calloc(1, sizeof *r);
  if (!r) return el__failf(f, EL_HERR_INTERNAL, "out of memory");
  char msg[256];
  if (el__lt_request_parse(body, len, &r->lt, msg, sizeof msg) < 0) {
    free(r);
    return el__failf(f, EL_HERR_INVALID_REQUEST, "%s", msg);
  }
  r->entry = checker_model(set, f);
  if (!r->entry) {
    el__check_free(r);
    return f->kind;
  }
  /* its cost in the batch budget: about a piece per 4 bytes, and at least
   * one, so an empty text still takes its turn */
  r->seq.len = (int)(r->lt.doc.plain_len / 4 + 1);
  r->seq.work = run_check;
  r->seq.arg = r;
  *out = r;
  return EL_HERR_NONE;
}

el__seq *el__check_seq(el__check_req *r) { return &r->seq; }

/* Checks queue apart from the model's /score sequences: a batch is all of one kind. */
void *el__check_queue(const el__check_req *r) { return &r->entry->checker; }

const char *el__check_model_name(const el__check_req *r) { return r->entry->name; }

el__http_err el__check_render(el__check_req *r, char **body, size_t *len, el__fail *f) {
  if (r->failed) return el__failf(f, EL_HERR_INTERNAL, "%s", r->errmsg);
  *body = el__lt_response(&r->lt.doc, r->lt.lang, r->lt.types, &r->matches);
  if (!*body) return el__failf(f, EL_HERR_INTERNAL, "out of memory");
  *len = strlen(*body);
  return EL_HERR_NONE;
}

void el__check_free(el__check_req *r) {
  if (!r) return;
  el__matches_free(&r->matches);
  el__lt_request_free(&r->lt);
  free(r);
}
