/* Engine runner (srv_runner.h). Scratch buffers grow to the largest batch seen
 * and belong to the inference thread. */
#include "srv_runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_models.h"

struct el__runner_ctx {
  int threads;
  int *ids, *types, *lens;
  float *a, *b;
  size_t cap_tok, cap_types, cap_seq, cap_a, cap_b;
};

el__runner_ctx *el__runner_new(int threads) {
  el__runner_ctx *r = calloc(1, sizeof *r);
  if (r) r->threads = threads;
  return r;
}

void el__runner_free(el__runner_ctx *r) {
  if (!r) return;
  free(r->ids);
  free(r->types);
  free(r->lens);
  free(r->a);
  free(r->b);
  free(r);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t c = *cap ? *cap : 256;
  while (c < need) c *= 2;
  void *q = realloc(*p, c * elem);
  if (!q) return -1;
  *p = q;
  *cap = c;
  return 0;
}

/* 1 - softmax(logits)[correct], summed over the other labels so a piece the
 * model is sure about keeps its small error probability (1 - 0.9999...
 * would round it away). */
static void thread_init(void *ctx) {
  el__runner_ctx *r = ctx;
  el_set_threads(r->threads);
}

static int run(void *ctx, void *model, el__seq *const *seqs, int n, int n_tokens, char *err,
               size_t errcap) {
  el__runner_ctx *r = ctx;
  el__model_entry *e = model;
  size_t T = (size_t)n_tokens;
  if (grow((void **)&r->ids, &r->cap_tok, T, sizeof(int)) ||
      grow((void **)&r->types, &r->cap_types, T, sizeof(int)) ||
      grow((void **)&r->lens, &r->cap_seq, (size_t)n, sizeof(int))) {
    snprintf(err, errcap, "out of memory for %d tokens", n_tokens);
    return -1;
  }
  size_t off = 0;
  for (int i = 0; i < n; i++) {
    memcpy(r->ids + off, seqs[i]->ids, (size_t)seqs[i]->len * sizeof(int));
    if (seqs[i]->type_ids)
      memcpy(r->types + off, seqs[i]->type_ids, (size_t)seqs[i]->len * sizeof(int));
    else
      memset(r->types + off, 0, (size_t)seqs[i]->len * sizeof(int));
    r->lens[i] = seqs[i]->len;
    off += (size_t)seqs[i]->len;
  }
  el_batch b = {n, r->lens, r->ids, r->types};
  el_error er = {0};
  int rc;
  const el_config *c = e->cfg;
  switch (c->arch) {
    case EL_ARCH_PRETRAINING:
      if (grow((void **)&r->a, &r->cap_a, T, sizeof(float))) goto oom;
      rc = el_run_replaced(e->model, e->ws, &b, r->a, &er);
      if (rc) break;
      off = 0;
      for (int i = 0; i < n; i++) {
        memcpy(seqs[i]->out, r->a + off, (size_t)seqs[i]->len * sizeof(float));
        off += (size_t)seqs[i]->len;
      }
      break;
    case EL_ARCH_TOKEN_CLS: { /* /score: P(error) per token, as a discriminator gives */
      const int L = c->num_labels;
      if (grow((void **)&r->a, &r->cap_a, T * (size_t)L, sizeof(float))) goto oom;
      rc = el_run_token_classify(e->model, e->ws, &b, r->a, &er);
      if (rc) break;
      off = 0;
      for (int i = 0; i < n; i++) {
        el_error_probs(r->a + off * (size_t)L, seqs[i]->len, L, e->correct_label, seqs[i]->out);
        off += (size_t)seqs[i]->len;
      }
      break;
    }
    case EL_ARCH_SEQ_CLS: {
      size_t L = (size_t)c->num_labels;
      if (grow((void **)&r->a, &r->cap_a, (size_t)n * L, sizeof(float))) goto oom;
      rc = el_run_classify(e->model, e->ws, &b, r->a, &er);
      if (rc) break;
      for (int i = 0; i < n; i++) memcpy(seqs[i]->out, r->a + (size_t)i * L, L * sizeof(float));
      break;
    }
    case EL_ARCH_QA:
      if (grow((void **)&r->a, &r->cap_a, T, sizeof(float)) ||
          grow((void **)&r->b, &r->cap_b, T, sizeof(float)))
        goto oom;
      rc = el_run_qa(e->model, e->ws, &b, r->a, r->b, &er);
      if (rc) break;
      off = 0;
      for (int i = 0; i < n; i++) {
        size_t len = (size_t)seqs[i]->len;
        memcpy(seqs[i]->out, r->a + off, len * sizeof(float));
        memcpy(seqs[i]->out + len, r->b + off, len * sizeof(float));
        off += len;
      }
      break;
    default:
      if (grow((void **)&r->a, &r->cap_a, T * (size_t)c->hidden_size, sizeof(float))) goto oom;
      rc = el_run_hidden(e->model, e->ws, &b, r->a, &er);
      break;
  }
  if (rc) {
    snprintf(err, errcap, "%s", er.msg);
    return -1;
  }
  return 0;
oom:
  snprintf(err, errcap, "out of memory for %d tokens", n_tokens);
  return -1;
}

el__runner el__runner_engine(el__runner_ctx *r) {
  el__runner x = {run, thread_init, r};
  return x;
}
