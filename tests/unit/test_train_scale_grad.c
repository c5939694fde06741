/* The ELECTRA step at the real `tiny` shape (vocabulary 30522, hidden 128,
 * 4 layers, generator 1/4, 32 packed sequences of 40..128 tokens, ~15 %
 * masked), where test_train_math_grad uses toy sizes: the code paths that
 * only large inputs take (blocked attention over 128 tokens, the op pool
 * splitting rows across threads, the 30522-way softmax) get checked too.
 *
 * Without arguments (make test), with dropout ON: a directional derivative
 * along a random direction over all parameters, by central differences of
 * the float forward (the dropout masks fixed by re-seeding), against the
 * analytic gradient; tolerance 2 % (float rounding over the step).
 *
 * With --dump DIR (tests/reference/test_train_scale_reference.sh): with
 * dropout off, writes the tensor table, parameters, batch, masking plan,
 * the Gumbel samples drawn, both losses and every gradient, after 5 AdamW
 * steps so the weights are no longer at their initial values; scale_ref.py
 * recomputes all of it in float64 PyTorch. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "objective.h"
#include "optim.h"
#include "params.h"
#include "../test.h"

enum { V = 30522, NSEQ = 32, MASK_ID = 103, CLS_ID = 101, SEP_ID = 102, MAX_POS = 20 * NSEQ };

static int seq_len[NSEQ], ids[NSEQ * 128], types[NSEQ * 128], pos[MAX_POS];
static uint8_t use_mask[MAX_POS];
static int T, n_pos;

/* Sequences of 40..128 tokens, Zipf-like ids (frequent ids repeat as in text),
 * a second segment in half of them, ~15 % of the content tokens masked. */
static void make_batch(el__rng *r) {
  T = 0;
  n_pos = 0;
  for (int s = 0; s < NSEQ; s++) {
    const int L = s == 0 ? 128 : 40 + (int)el__rng_below(r, 89);
    const int b = s % 2 ? L / 2 : L;
    seq_len[s] = L;
    for (int p = 0; p < L; p++) {
      int id;
      if (p == 0) id = CLS_ID;
      else if (p == L - 1 || p == b - 1) id = SEP_ID;
      else id = 1000 + (int)(28000.0 * pow(el__rng_uniform(r), 3.0));
      ids[T + p] = id;
      types[T + p] = p >= b;
      if (id != CLS_ID && id != SEP_ID && n_pos < MAX_POS && el__rng_uniform(r) < 0.15f) {
        pos[n_pos] = T + p;
        use_mask[n_pos++] = el__rng_uniform(r) < 0.85f;
      }
    }
    T += L;
  }
}

typedef struct rig {
  el__params p;
  el__electra *e;
  int samples[MAX_POS];
  double mlm, disc;
} rig;

static void rig_new(rig *g, el__rng *r) {
  el_config d;
  memset(&d, 0, sizeof d);
  d.arch = EL_ARCH_PRETRAINING;
  d.vocab_size = V;
  d.embedding_size = 128;
  d.hidden_size = 128;
  d.num_layers = 4;
  d.num_heads = 2;
  d.intermediate_size = 512;
  d.max_position_embeddings = 512;
  d.type_vocab_size = 2;
  d.layer_norm_eps = 1e-12f;
  d.initializer_range = 0.02f;
  d.hidden_dropout_prob = 0.1f;
  d.attention_probs_dropout_prob = 0.1f;
  d.do_lower_case = 1;
  el_config gc;
  el_error err = {0};
  el__tmodel_limits lim = {NSEQ * 128, NSEQ, 128, MAX_POS};
  int rc = el__generator_config(&d, 0.25f, &gc, &err);
  if (!rc) rc = el__params_new_pair(&g->p, &d, &gc, &err);
  if (!rc) rc = el__params_init_random(&g->p, 0.02f, 0, r, &err);
  if (!rc) rc = el__electra_new(&g->p, &lim, &g->e, &err);
  CHECK(rc == 0, "tiny ELECTRA pair set up (%s)", rc ? err.msg : "ok");
  if (rc) exit(1);
}

/* One step; dropout masks and samples from a generator seeded with seed. */
static double step(rig *g, int train, int backward, const int *forced, uint64_t seed) {
  el__rng r;
  el__rng_seed(&r, seed);
  el__electra_opts o = el__electra_default_opts(MASK_ID);
  o.train = train;
  o.backward = backward;
  o.forced_samples = forced;
  el__mask_plan plan = {n_pos, pos, use_mask, NULL};
  el_batch b = {NSEQ, seq_len, ids, types};
  el__electra_result res;
  el__electra_outputs outs = {NULL, NULL, forced ? NULL : g->samples, NULL};
  el_error err = {0};
  if (el__electra_step(g->e, &b, &plan, &o, &r, &res, &outs, &err)) {
    CHECK(0, "electra step: %s", err.msg);
    return NAN;
  }
  g->mlm = res.mlm_loss;
  g->disc = res.disc_loss;
  return res.loss;
}

static void directional_fd(rig *g, el__rng *r) {
  step(g, 1, 0, NULL, 77); /* draw the samples once; FD needs them fixed */
  int fixed[MAX_POS];
  memcpy(fixed, g->samples, sizeof fixed);
  el__params_zero_grads(&g->p);
  double l0 = step(g, 1, 1, fixed, 77);
  float *dir = malloc(sizeof(float) * g->p.numel);
  double gd = 0.0, dn = 0.0;
  for (size_t i = 0; i < g->p.numel; i++) {
    dir[i] = el__rng_normal(r);
    gd += (double)dir[i] * g->p.grads[i];
    dn += (double)dir[i] * dir[i];
  }
  const double h = 3e-2 / sqrt(dn); /* a parameter step of norm 0.03 */
  double lp, lm;
  for (size_t i = 0; i < g->p.numel; i++) g->p.params[i] += (float)(h * dir[i]);
  lp = step(g, 1, 0, fixed, 77);
  for (size_t i = 0; i < g->p.numel; i++) g->p.params[i] -= (float)(2 * h * dir[i]);
  lm = step(g, 1, 0, fixed, 77);
  for (size_t i = 0; i < g->p.numel; i++) g->p.params[i] += (float)(h * dir[i]);
  const double fd = (lp - lm) / (2 * h);
  CHECK(isfinite(l0) && fabs(fd - gd) <= 0.02 * fabs(gd),
        "tiny shape, %d tokens, %d masked, dropout on: directional derivative %.6g vs analytic %.6g",
        T, n_pos, fd, gd);
  free(dir);
}

static const char *dump_dir;
static void dump(const char *name, const void *p, size_t bytes) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dump_dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, bytes, f) != bytes) {
    fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
    exit(1);
  }
  fclose(f);
}

static void dump_all(rig *g) {
  el_error err = {0};
  el__adamw o = el__adamw_defaults();
  for (int s = 0; s < 5; s++) { /* move the weights off their initial values */
    el__params_zero_grads(&g->p);
    step(g, 1, 1, NULL, 1000 + (uint64_t)s);
    el__adamw_stats st;
    CHECK(el__adamw_step(&g->p, &o, 1e-3, &st, &err) == 0, "adamw step %d", s);
  }
  el__params_zero_grads(&g->p);
  double loss = step(g, 0, 1, NULL, 4242);
  mkdir(dump_dir, 0755);
  dump("params.bin", g->p.params, sizeof(float) * g->p.numel);
  dump("grads.bin", g->p.grads, sizeof(float) * g->p.numel);
  dump("ids.bin", ids, sizeof(int) * (size_t)T);
  dump("types.bin", types, sizeof(int) * (size_t)T);
  dump("seq_len.bin", seq_len, sizeof seq_len);
  dump("pos.bin", pos, sizeof(int) * (size_t)n_pos);
  int um[MAX_POS];
  for (int i = 0; i < n_pos; i++) um[i] = use_mask[i];
  dump("use_mask.bin", um, sizeof(int) * (size_t)n_pos);
  dump("samples.bin", g->samples, sizeof(int) * (size_t)n_pos);
  char path[512];
  snprintf(path, sizeof path, "%s/meta.txt", dump_dir);
  FILE *f = fopen(path, "w");
  if (!f) exit(1);
  fprintf(f, "loss %.17g\nmlm %.17g\ndisc %.17g\nmask_id %d\n", loss, g->mlm, g->disc, MASK_ID);
  for (int i = 0; i < g->p.n_tensors; i++) {
    const el__param_tensor *t = &g->p.tensors[i];
    fprintf(f, "tensor %s %d %zu %zu %d %d\n", t->name, t->model, t->offset, t->count, t->shape[0],
            t->ndim == 2 ? t->shape[1] : 0);
  }
  fclose(f);
}

int main(int argc, char **argv) {
  el__rng r;
  el__rng_seed(&r, 2026);
  make_batch(&r);
  rig g;
  rig_new(&g, &r);
  if (argc == 3 && !strcmp(argv[1], "--dump")) {
    dump_dir = argv[2];
    dump_all(&g);
  } else {
    directional_fd(&g, &r);
  }
  el__electra_free(g.e);
  el__params_free(&g.p);
  return el_test_done();
}
