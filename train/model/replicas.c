/* In-process data parallelism (replicas.h). */
#include "replicas.h"

#include <stdlib.h>
#include <string.h>
#include "op_pool.h"

int el__replicas_count(long seqs) {
  int most = el__pool_width();
  if (most > EL_MAX_REPLICAS) most = EL_MAX_REPLICAS;
  for (int n = most; n > 1; n--)
    if (seqs % n == 0) return n;
  return 1;
}

int el__replicas_new(el__replicas *rs, el__params *p, int n, el_error *err) {
  memset(rs, 0, sizeof *rs);
  rs->n = 1;
  rs->p = p;
  if (n <= 1) return EL_OK;
  if (!(rs->extra = calloc((size_t)n - 1, sizeof *rs->extra)))
    return el_error_set(err, EL_ENOMEM, "out of memory for %d model copies", n);
  for (; rs->n < n; rs->n++) {
    int rc = el__params_grad_copy(p, &rs->extra[rs->n - 1], err);
    if (rc) {
      el__replicas_free(rs);
      return rc;
    }
  }
  return EL_OK;
}

void el__replicas_free(el__replicas *rs) {
  for (int i = 1; i < rs->n; i++) el__params_free(&rs->extra[i - 1]);
  free(rs->extra);
  memset(rs, 0, sizeof *rs);
}

el__params *el__replicas_params(el__replicas *rs, int i) { return i ? &rs->extra[i - 1] : rs->p; }

typedef struct step_job {
  el__replicas *rs;
  el__replica_fn fn;
  void *ctx;
  int *rc;
  el_error *errs;
} step_job;

static void copy_task(void *p, int i, int worker) {
  (void)worker;
  step_job *j = p;
  j->rc[i] = j->fn(j->ctx, i, &j->errs[i]);
}

/* copy 0's gradients += copies 1..n-1's, in copy order for every element */
static void sum_range(void *p, size_t lo, size_t hi) {
  el__replicas *rs = p;
  float *g = rs->p->grads;
  for (int i = 1; i < rs->n; i++) {
    const float *gi = rs->extra[i - 1].grads;
    for (size_t k = lo; k < hi; k++) g[k] += gi[k];
  }
}

int el__replicas_step(el__replicas *rs, el__replica_fn fn, void *ctx, el_error *err) {
  for (int i = 0; i < rs->n; i++) el__params_zero_grads(el__replicas_params(rs, i));
  if (rs->n == 1) return fn(ctx, 0, err);
  int rc[EL_MAX_REPLICAS] = {0};
  el_error errs[EL_MAX_REPLICAS];
  memset(errs, 0, sizeof errs);
  step_job j = {rs, fn, ctx, rc, errs};
  el__pool_run(rs->n, copy_task, &j);
  for (int i = 0; i < rs->n; i++)
    if (rc[i]) {
      *err = errs[i];
      return rc[i];
    }
  el__pool_for(rs->p->numel, 65536, sum_range, rs);
  return EL_OK;
}
