/* The engine-vs-PyTorch fixtures (format: tests/reference/ref_fixtures.py):
 * reading them, running a model's head on a case, and the distance measures,
 * shared by test_engine_forward_ref.c (fp32), test_engine_int8_ref.c and
 * test_engine_forward.c (run_head). */
#ifndef EL_TESTS_REF_FIXTURE_H
#define EL_TESTS_REF_FIXTURE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "electra/engine.h"
#include "electra/model.h"
#include "../test.h"

typedef struct {
  int n_seqs, n_pos, T;
  int *len, *ids, *types, *pos;
  float *hidden;        /* [T*H] */
  char out_name[2][16]; /* head outputs: one, or start + end */
  int out_n[2], n_outs;
  float *out[2];
} fx_case;

typedef struct {
  char arch[64];
  int H, V, labels, n_cases;
  fx_case *cases;
} fixture;

static inline int read_ints(FILE *f, const char *tag, int *dst, int n) {
  char w[32];
  if (fscanf(f, "%31s", w) != 1 || strcmp(w, tag)) return -1;
  for (int i = 0; i < n; i++)
    if (fscanf(f, "%d", &dst[i]) != 1) return -1;
  return 0;
}

static inline float *read_floats(FILE *f, char *name, size_t name_n, int *n) {
  char fmt[16];
  snprintf(fmt, sizeof fmt, "%%%zus", name_n - 1);
  if (fscanf(f, fmt, name) != 1 || fscanf(f, "%d", n) != 1 || *n < 0) return NULL;
  float *v = malloc(sizeof(float) * (size_t)(*n > 0 ? *n : 1));
  for (int i = 0; v && i < *n; i++)
    if (fscanf(f, "%f", &v[i]) != 1) {
      free(v);
      return NULL;
    }
  return v;
}

static inline void fixture_free(fixture *fx) {
  for (int c = 0; c < fx->n_cases; c++) {
    fx_case *k = &fx->cases[c];
    free(k->len), free(k->ids), free(k->types), free(k->pos), free(k->hidden);
    for (int o = 0; o < 2; o++) free(k->out[o]);
  }
  free(fx->cases);
}

static inline int fixture_read(const char *path, fixture *fx) {
  memset(fx, 0, sizeof *fx);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int rc = -1;
  if (fscanf(f, " arch %63s hidden %d vocab %d labels %d cases %d", fx->arch, &fx->H, &fx->V,
             &fx->labels, &fx->n_cases) != 5 ||
      fx->n_cases < 1)
    goto out;
  fx->cases = calloc((size_t)fx->n_cases, sizeof *fx->cases);
  for (int c = 0; c < fx->n_cases; c++) {
    fx_case *k = &fx->cases[c];
    if (fscanf(f, " case %d %d", &k->n_seqs, &k->n_pos) != 2 || k->n_seqs < 1) goto out;
    k->len = calloc((size_t)k->n_seqs, sizeof(int));
    if (read_ints(f, "len", k->len, k->n_seqs)) goto out;
    for (int s = 0; s < k->n_seqs; s++) k->T += k->len[s];
    k->ids = calloc((size_t)k->T, sizeof(int));
    k->types = calloc((size_t)k->T, sizeof(int));
    k->pos = calloc((size_t)k->n_pos + 1, sizeof(int));
    if (read_ints(f, "ids", k->ids, k->T) || read_ints(f, "types", k->types, k->T)) goto out;
    if (k->n_pos && read_ints(f, "pos", k->pos, k->n_pos)) goto out;
    char name[16];
    int n;
    k->hidden = read_floats(f, name, sizeof name, &n);
    if (!k->hidden || strcmp(name, "hidden") || n != k->T * fx->H) goto out;
    k->n_outs = strcmp(fx->arch, "ElectraForQuestionAnswering") ? 1 : 2;
    for (int o = 0; o < k->n_outs; o++) {
      k->out[o] = read_floats(f, k->out_name[o], sizeof k->out_name[o], &k->out_n[o]);
      if (!k->out[o]) goto out;
    }
  }
  rc = 0;
out:
  fclose(f);
  return rc;
}

static inline double max_diff(const float *a, const float *b, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) {
    double d = fabs((double)a[i] - b[i]);
    if (!(d <= m)) m = d; /* NaN propagates as a failure */
  }
  return m;
}

/* max |a - b| / max(1, |b|): absolute below 1, relative above. */
static inline double max_scaled_diff(const float *a, const float *b, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) {
    double d = fabs((double)a[i] - b[i]) / fmax(1.0, fabs((double)b[i]));
    if (!(d <= m)) m = d;
  }
  return m;
}

static inline double spread(const float *a, int n) {
  float lo = a[0], hi = a[0];
  for (int i = 1; i < n; i++) lo = a[i] < lo ? a[i] : lo, hi = a[i] > hi ? a[i] : hi;
  return (double)hi - lo;
}

/* Runs the model's head on batch b; writes outputs (one or two arrays). */
static inline int run_head(const el_model *m, el_workspace *ws, const el_batch *b, const int *pos,
                    int n_pos, float *o0, float *o1, el_error *err) {
  switch (el_model_config(m)->arch) {
    case EL_ARCH_PRETRAINING:
      return el_run_replaced(m, ws, b, o0, err);
    case EL_ARCH_SEQ_CLS:
      return el_run_classify(m, ws, b, o0, err);
    case EL_ARCH_QA:
      return el_run_qa(m, ws, b, o0, o1, err);
    case EL_ARCH_MASKED_LM:
      return el_run_mlm(m, ws, b, pos, n_pos, o0, err);
    case EL_ARCH_TOKEN_CLS:
      return el_run_token_classify(m, ws, b, o0, err);
    default:
      return EL_EUNSUPPORTED;
  }
}

/* The fixture list (argv[1], else $EL_REF_FIXTURES: "MODEL_DIR FIXTURE" per
 * line) through check(dir, fixture) at 2 threads; skips without a list.
 * Returns the number of models checked (the list must name some). */
static inline int for_each_fixture(int argc, char **argv, void (*check)(const char *, const char *)) {
  const char *list = argc > 1 ? argv[1] : getenv("EL_REF_FIXTURES");
  if (!list || !*list) {
    SKIP("no fixtures (run tests/reference/test_engine_reference.sh, or set EL_REF_FIXTURES)");
    return 0;
  }
  FILE *f = fopen(list, "r");
  CHECK(f != NULL, "fixture list %s opens", list);
  if (!f) return 0;
  el_set_threads(2);
  char dir[1024], fix[1024];
  int n = 0;
  while (fscanf(f, "%1023s %1023s", dir, fix) == 2) {
    check(dir, fix);
    n++;
  }
  fclose(f);
  CHECK(n > 0, "fixture list names %d models", n);
  return n;
}

#endif
