/* Whole-model gradients of the trainer, cases on small models:
 *   electra  generator + discriminator pair with shared embeddings (the ELECTRA step;
 *            also electra_tied: one encoder for both)
 *   mlm      a single ElectraForMaskedLM (the BERT baseline step)
 *   cls      ElectraForSequenceClassification, mean softmax CE over sequences (E == H)
 *   qa       ElectraForQuestionAnswering, mean over sequences of (CE start + CE end) / 2
 *   ged      ElectraForPreTraining head on per-token labels, sigmoid CE over labelled tokens
 *   reg      ElectraForSequenceClassification with one output, mean squared error
 *   electra_rel, ged_rel   electra and ged with position_embedding_type relative_key
 *            (no absolute positions; each layer's distance embedding in the scores)
 * The heads' losses are the fine-tuning table's own (finetune_heads.c), so the
 * code the trainer runs is the code checked here.
 *
 * Without arguments (make test): for each case, with dropout ON (masks fixed
 * by re-seeding the rng) and OFF, the analytic gradient of ~40 sampled
 * parameters is compared with central finite differences of the float
 * forward (h = 1e-3; tolerance |fd - g| <= 3e-3 + 5e-2 |g|; the float
 * forward's rounding over h dominates). The exact check is the PyTorch one:
 *
 * With --dump DIR (tests/reference/test_train_reference.sh): writes, for each
 * case with dropout off, the configs, tensor table, initial parameters, batch,
 * losses and every gradient, and for electra/cls also a 10-step AdamW run
 * (clip 1.0, weight decay 0.01, warmup 3 + linear decay over 10, samples
 * drawn by the C side and written out), for train_ref.py to replay in float64
 * autograd. Where the CPU has AVX512_BF16, electra_rel and ged_rel are also
 * written as "<case>_bf16" computed with bf16 products (--precision bf16,
 * nn/matmul.h; no AdamW run), which train_ref.py checks against the same
 * float64 math at bf16's tolerance. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "finetune_heads.h"
#include "matmul.h"
#include "objective.h"
#include "ops.h"
#include "optim.h"
#include "params.h"
#include "tmodel.h"
#include "../test.h"
#include "test_config.h"

static const char *dump_dir = NULL;

/* ---------------- batch ---------------- */
enum { NSEQ = 4, T_MAX = 64, MASK_ID = 4, CLS_ID = 2, SEP_ID = 3 };
static const int SEQ_LEN[NSEQ] = {7, 12, 3, 9};
static int T_TOT;
static int IDS[T_MAX], TYPES[T_MAX];

static void make_batch(int V, el__rng *r) {
  int t = 0;
  for (int s = 0; s < NSEQ; s++) {
    const int L = SEQ_LEN[s];
    for (int p = 0; p < L; p++, t++) {
      IDS[t] = p == 0 ? CLS_ID : p == L - 1 ? SEP_ID : 5 + (int)el__rng_below(r, (uint32_t)(V - 5));
      TYPES[t] = p > L / 2;
    }
  }
  IDS[3] = IDS[9] = IDS[10] = 17; /* repeated ids across sequences */
  T_TOT = t;
}

static el_batch batch_of(const int *ids) {
  el_batch b = {NSEQ, SEQ_LEN, ids, TYPES};
  return b;
}

static el_config make_cfg(el_arch arch, int V, int E, int H, int L, int nh, int I) {
  el_config c = el_test_config(arch, V, E, H, L, nh, I);
  c.max_position_embeddings = 16;
  c.num_labels = arch == EL_ARCH_SEQ_CLS ? 3 : 0;
  return c;
}

/* ---------------- dump helpers ---------------- */
static FILE *meta;

static void dump_raw(const char *cs, const char *name, const void *p, size_t bytes) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s.%s", dump_dir, cs, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, bytes, f) != bytes) {
    fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
    exit(1);
  }
  fclose(f);
}
static void dump_f32(const char *cs, const char *name, const float *p, size_t n) {
  dump_raw(cs, name, p, n * sizeof(float));
}
static void dump_i32(const char *cs, const char *name, const int *p, size_t n) {
  dump_raw(cs, name, p, n * sizeof(int));
}

static void meta_cfg(const el_config *c) {
  fprintf(meta,
          "{\"arch\": \"%s\", \"vocab_size\": %d, \"embedding_size\": %d, \"hidden_size\": %d, "
          "\"num_layers\": %d, \"num_heads\": %d, \"intermediate_size\": %d, "
          "\"max_position_embeddings\": %d, \"type_vocab_size\": %d, \"layer_norm_eps\": %.9g, "
          "\"num_labels\": %d, \"relative_positions\": %d}",
          el_arch_name(c->arch), c->vocab_size, c->embedding_size, c->hidden_size, c->num_layers,
          c->num_heads, c->intermediate_size, c->max_position_embeddings, c->type_vocab_size,
          (double)c->layer_norm_eps, c->num_labels, c->relative_positions);
}

static void meta_case_begin(const char *cs, const el__params *p) {
  fprintf(meta, "\"%s\": {\"configs\": [", cs);
  for (int k = 0; k < p->n_models; k++) {
    if (k) fprintf(meta, ", ");
    meta_cfg(&p->cfg[k]);
  }
  fprintf(meta, "], \"numel\": %zu, \"tensors\": [", p->numel);
  for (int i = 0; i < p->n_tensors; i++) {
    const el__param_tensor *t = &p->tensors[i];
    fprintf(meta,
            "%s{\"name\": \"%s\", \"model\": %d, \"shared\": %d, \"offset\": %zu, \"count\": %zu, "
            "\"shape\": [%d%s%.0d], \"no_decay\": %d}",
            i ? ", " : "", t->name, t->model, t->shared, t->offset, t->count, t->shape[0],
            t->ndim == 2 ? ", " : "", t->ndim == 2 ? t->shape[1] : 0, t->no_decay);
  }
  fprintf(meta, "], \"seq_len\": [");
  for (int s = 0; s < NSEQ; s++) fprintf(meta, "%s%d", s ? ", " : "", SEQ_LEN[s]);
  fprintf(meta, "]");
}

/* ---------------- cases ---------------- */
/* A case computes its loss with everything fixed (params from p, masks from a
 * re-seeded rng) and, with grads != 0, accumulates the gradient. */
typedef struct gcase {
  const char *name;
  el__params p;
  el__electra *e;    /* electra */
  el__tmodel *m;     /* single-model cases */
  int train;        /* dropout on */
  uint64_t seed;    /* dropout masks */
  /* electra / mlm */
  int plan_pos[8];
  uint8_t plan_mask[8];
  int n_plan;
  int forced[8];    /* electra samples (FD needs them fixed) */
  int use_forced;
  int mlm_ids[T_MAX], mlm_targets[8];
  /* heads */
  int cls_labels[NSEQ];
  int qa_start[NSEQ], qa_end[NSEQ]; /* packed token indices */
  float ged_labels[T_MAX], ged_w[T_MAX];
  float reg_targets[NSEQ];
  double last_mlm, last_disc;
} gcase;

/* A head case's loss and gradient by the fine-tuning table's entry for its
 * task kind, on the batch as features of one sequence each (GED: the tokens
 * of weight 0 unlabelled). */
static double head_loss(const gcase *c, const float *out, float *dout) {
  const el__task_kind kind = !strcmp(c->name, "cls")   ? EL__TASK_CLS
                             : !strcmp(c->name, "qa")  ? EL__TASK_QA
                             : !strcmp(c->name, "reg") ? EL__TASK_REG
                                                       : EL__TASK_GED;
  el__feat f[NSEQ];
  int idx[NSEQ];
  signed char tlab[T_MAX];
  for (int s = 0, t0 = 0; s < NSEQ; t0 += SEQ_LEN[s], s++) {
    const int qa = kind == EL__TASK_QA;
    f[s] = (el__feat){.off = t0, .len = SEQ_LEN[s], .example = s,
                      .label = qa ? c->qa_start[s] - t0 : c->cls_labels[s],
                      .label2 = qa ? c->qa_end[s] - t0 : 0, .value = c->reg_targets[s]};
    idx[s] = s;
  }
  for (int t = 0; t < T_TOT; t++) tlab[t] = c->ged_w[t] > 0 ? (signed char)c->ged_labels[t] : -1;
  el__ft_data d = {.f = f, .n = NSEQ, .tlab = tlab, .n_tok = T_TOT};
  const el__ft_head *h = el__ft_head_of(kind);
  const int K = h->outputs ? h->outputs : el__tmodel_config(c->m)->num_labels;
  return h->loss(&d, idx, NSEQ, h->norm(&d, idx, NSEQ), out, K, dout);
}

static double run_case(gcase *c, int grads, el_error *err) {
  el__rng r;
  el__rng_seed(&r, c->seed);
  if (!strncmp(c->name, "electra", 7)) {
    el__electra_opts o = el__electra_default_opts(MASK_ID);
    o.train = c->train;
    o.backward = grads;
    o.forced_samples = c->use_forced ? c->forced : NULL;
    if (!strcmp(c->name, "electra_skip")) o.skip_cls_id = CLS_ID, o.skip_sep_id = SEP_ID;
    el__mask_plan plan = {c->n_plan, c->plan_pos, c->plan_mask, NULL};
    el_batch b = batch_of(IDS);
    el__electra_result res;
    el__electra_outputs outs = {NULL, NULL, c->use_forced ? NULL : c->forced, NULL};
    if (el__electra_step(c->e, &b, &plan, &o, &r, &res, &outs, err)) return NAN;
    c->last_mlm = res.mlm_loss;
    c->last_disc = res.disc_loss;
    return res.loss;
  }
  if (!strcmp(c->name, "mlm")) {
    el_batch b = batch_of(c->mlm_ids);
    double loss;
    if (el__mlm_step(c->m, &b, c->plan_pos, c->mlm_targets, c->n_plan, 0, c->train, grads, &r, &loss,
                    NULL, err))
      return NAN;
    return loss;
  }
  el_batch b = batch_of(IDS);
  const float *out;
  if (el__tmodel_forward(c->m, &b, NULL, 0, c->train, &r, &out, err)) return NAN;
  static float dout[T_MAX * 4];
  const double loss = head_loss(c, out, dout);
  if (grads && el__tmodel_backward(c->m, dout, err)) return NAN;
  return loss;
}

/* "<case>_rel": the same case with relative_key positions. */
static int is_rel(const char *name) {
  const size_t n = strlen(name);
  return n > 4 && !strcmp(name + n - 4, "_rel");
}

static void setup(gcase *c, const char *name, el__rng *r) {
  memset(c, 0, sizeof *c);
  c->name = name;
  const int V = 61, rel = is_rel(name);
  make_batch(V, r);
  el_error err = {0};
  el__tmodel_limits lim = {T_MAX, NSEQ, 16, 8};
  int rc = 0;
  if (!strcmp(name, "electra") || !strcmp(name, "electra_skip") || !strcmp(name, "electra_rel")) {
    el_config d = make_cfg(EL_ARCH_PRETRAINING, V, 16, 32, 2, 4, 64), g;
    d.relative_positions = rel; /* the generator copies it */
    rc = el__generator_config(&d, 0.5f, &g, &err);
    g.num_heads = 2; /* exercise multi-head attention in the generator too */
    if (!rc) rc = el__params_new_pair(&c->p, &d, &g, &err);
    /* relative: at 0.02 the distance tables' gradients (<= 3e-6) hide under the 1e-6
     * floor of train_ref.py; at 0.2 float32 rounding of the shared word embeddings'
     * gradients passes 1e-4 relative */
    if (!rc) rc = el__params_init_random(&c->p, rel ? 0.1f : 0.02f, 0, r, &err);
    if (!rc) rc = el__electra_new(&c->p, &lim, &c->e, &err);
  } else if (!strcmp(name, "electra_tied")) { /* --tie-generator: one encoder for both */
    el_config d = make_cfg(EL_ARCH_PRETRAINING, V, 16, 32, 2, 4, 64), g;
    rc = el__generator_config(&d, 1.0f, &g, &err);
    g.num_heads = d.num_heads; /* GR's heads rule would give 1 at hidden 32 */
    if (!rc) rc = el__params_new_pair_tied(&c->p, &d, &g, 1, &err);
    if (!rc) rc = el__params_init_random(&c->p, 0.02f, 0, r, &err);
    if (!rc) rc = el__electra_new(&c->p, &lim, &c->e, &err);
  } else {
    el_arch arch = !strcmp(name, "mlm")                          ? EL_ARCH_MASKED_LM
                   : !strcmp(name, "cls") || !strcmp(name, "reg") ? EL_ARCH_SEQ_CLS
                   : !strcmp(name, "qa")                          ? EL_ARCH_QA
                                                                  : EL_ARCH_PRETRAINING;
    int E = arch == EL_ARCH_SEQ_CLS ? 24 : 16;
    el_config cf = make_cfg(arch, V, E, 24, 2, 2, 48);
    if (!strcmp(name, "reg")) cf.num_labels = 1, cf.regression = 1;
    cf.relative_positions = rel;
    rc = el__params_new_single(&c->p, &cf, &err);
    if (!rc) rc = el__params_init_random(&c->p, 0.3f, 0, r, &err);
    if (!rc) rc = el__tmodel_new(&cf, &c->p.w[0], &c->p.g[0], &lim, &c->m, &err);
  }
  CHECK(rc == 0, "%s: set up (%s)", name, rc ? err.msg : "ok");
  if (rc) exit(1);
  /* LayerNorm gammas/betas and biases away from 1/0 so their gradients matter */
  for (int i = 0; i < c->p.n_tensors; i++) {
    const el__param_tensor *t = &c->p.tensors[i];
    if (t->ndim == 1)
      for (size_t j = 0; j < t->count; j++) c->p.params[t->offset + j] += 0.1f * el__rng_normal(r);
  }
  /* masking plan: 6 distinct non-special positions, the 2nd and 5th kept */
  const int pos[6] = {1, 4, 9, 12, 20, 27};
  c->n_plan = 6;
  for (int i = 0; i < 6; i++) {
    c->plan_pos[i] = pos[i];
    c->plan_mask[i] = !(i == 1 || i == 4);
    c->mlm_targets[i] = IDS[pos[i]];
  }
  memcpy(c->mlm_ids, IDS, sizeof IDS);
  for (int i = 0; i < 6; i++) /* an 80/10/10-style corruption decided "outside" */
    c->mlm_ids[pos[i]] = i < 4 ? MASK_ID : i == 4 ? 7 : IDS[pos[i]];
  for (int s = 0; s < NSEQ; s++) c->cls_labels[s] = s % 3, c->reg_targets[s] = 0.7f * (float)s - 1.0f;
  for (int s = 0, t0 = 0; s < NSEQ; t0 += SEQ_LEN[s], s++) {
    c->qa_start[s] = t0 + (s == 2 ? 0 : 1 + s % (SEQ_LEN[s] - 1));
    c->qa_end[s] = t0 + SEQ_LEN[s] - 1 - (s % 2);
  }
  for (int t = 0; t < T_TOT; t++) {
    c->ged_w[t] = (t % 4) != 3 && IDS[t] != CLS_ID && IDS[t] != SEP_ID; /* "first sub-tokens" */
    c->ged_labels[t] = (float)((t * 7) % 5 == 0);
  }
}

static void teardown(gcase *c) {
  el__electra_free(c->e);
  el__tmodel_free(c->m);
  el__params_free(&c->p);
}

/* Finite differences on sampled elements of selected tensors. */
static void fd_case(gcase *c, el__rng *r) {
  el_error err = {0};
  el__params_zero_grads(&c->p);
  double l0 = run_case(c, 1, &err);
  CHECK(isfinite(l0), "%s (dropout %s): loss %.6g (%s)", c->name, c->train ? "on" : "off", l0,
        isfinite(l0) ? "finite" : err.msg);
  if (!isfinite(l0)) return;
  float *grad = malloc(sizeof(float) * c->p.numel);
  memcpy(grad, c->p.grads, sizeof(float) * c->p.numel);
  /* gradient accumulation: a second backward doubles the gradients */
  run_case(c, 1, &err);
  double wd = 0.0;
  for (size_t i = 0; i < c->p.numel; i++)
    wd = fmax(wd, fabs(c->p.grads[i] - 2.0 * grad[i]) / (1e-7 + 1e-5 * fabs(2.0 * grad[i])));
  CHECK(wd <= 1.0, "%s (dropout %s): a second backward accumulates (doubles) every gradient",
        c->name, c->train ? "on" : "off");
  const float h = 1e-3f;
  double worst = 0.0;
  const char *worst_name = "";
  int checked = 0;
  for (int k = 0; k < 40; k++) {
    const el__param_tensor *t = &c->p.tensors[el__rng_below(r, (uint32_t)c->p.n_tensors)];
    size_t j = t->offset + el__rng_below(r, (uint32_t)t->count);
    if (k < 8) { /* always probe the word embeddings of used ids (shared in a pair) */
      t = &c->p.tensors[0];
      j = t->offset + (size_t)IDS[(k * 5) % T_TOT] * t->shape[1] + (size_t)k % t->shape[1];
    }
    float x0 = c->p.params[j];
    c->p.params[j] = x0 + h;
    double lp = run_case(c, 0, &err);
    c->p.params[j] = x0 - h;
    double lm = run_case(c, 0, &err);
    c->p.params[j] = x0;
    double fd = (lp - lm) / (2.0 * h);
    double e = fabs(fd - grad[j]) / (3e-3 + 5e-2 * fabs((double)grad[j]));
    if (!(e <= worst)) worst = e, worst_name = t->name;
    checked++;
  }
  CHECK(worst <= 1.0,
        "%s (dropout %s): %d gradients vs finite differences (worst ratio %.3g at %s)", c->name,
        c->train ? "on" : "off", checked, worst, worst_name);
  free(grad);
}

/* ---------------- dump for PyTorch ---------------- */
static void dump_case(gcase *c, int bf16) {
  el_error err = {0};
  c->train = 0;
  c->use_forced = 0;
  meta_case_begin(c->name, &c->p);
  dump_f32(c->name, "params0", c->p.params, c->p.numel);
  el__params_zero_grads(&c->p);
  double loss = run_case(c, 1, &err);
  CHECK(isfinite(loss), "%s: dump step (%s)", c->name, isfinite(loss) ? "ok" : err.msg);
  dump_f32(c->name, "grads", c->p.grads, c->p.numel);
  fprintf(meta, ", \"loss\": %.17g, \"mlm_loss\": %.17g, \"disc_loss\": %.17g", loss,
          c->last_mlm, c->last_disc);
  dump_i32(c->name, "ids", IDS, (size_t)T_TOT);
  dump_i32(c->name, "types", TYPES, (size_t)T_TOT);
  dump_i32(c->name, "plan_pos", c->plan_pos, (size_t)c->n_plan);
  int um[8];
  for (int i = 0; i < c->n_plan; i++) um[i] = c->plan_mask[i];
  dump_i32(c->name, "plan_mask", um, (size_t)c->n_plan);
  dump_i32(c->name, "samples", c->forced, (size_t)c->n_plan);
  dump_i32(c->name, "mlm_ids", c->mlm_ids, (size_t)T_TOT);
  dump_i32(c->name, "mlm_targets", c->mlm_targets, (size_t)c->n_plan);
  dump_i32(c->name, "cls_labels", c->cls_labels, NSEQ);
  dump_i32(c->name, "qa_start", c->qa_start, NSEQ);
  dump_i32(c->name, "qa_end", c->qa_end, NSEQ);
  dump_f32(c->name, "ged_labels", c->ged_labels, (size_t)T_TOT);
  dump_f32(c->name, "ged_w", c->ged_w, (size_t)T_TOT);
  dump_f32(c->name, "reg_targets", c->reg_targets, NSEQ);
  fprintf(meta, ", \"mask_id\": %d, \"bf16\": %d", MASK_ID, bf16);

  if (!bf16 && (!strncmp(c->name, "electra", 7) || !strcmp(c->name, "cls"))) {
    /* 10 AdamW steps; the electra samples of each step are written out */
    el__adamw o = el__adamw_defaults();
    const double peak = 2e-3;
    const long total = 10, warm = 3;
    fprintf(meta,
            ", \"adamw\": {\"steps\": %ld, \"peak_lr\": %.17g, \"warmup\": %ld, \"beta1\": %.9g, "
            "\"beta2\": %.9g, \"eps\": %.9g, \"weight_decay\": %.9g, \"clip\": %.9g}",
            total, peak, warm, (double)o.beta1, (double)o.beta2, (double)o.eps,
            (double)o.weight_decay, (double)o.clip_norm);
    double losses[10], norms[10];
    int samples[10 * 8];
    el__rng sr;
    el__rng_seed(&sr, 99);
    for (long s = 0; s < total; s++) {
      el__params_zero_grads(&c->p);
      c->seed = el__rng_u64(&sr);
      losses[s] = run_case(c, 1, &err);
      memcpy(samples + s * c->n_plan, c->forced, sizeof(int) * (size_t)c->n_plan);
      el__adamw_stats st;
      int rc = el__adamw_step(&c->p, &o, el__lr_at(peak, s, total, warm), &st, &err);
      CHECK(rc == 0, "%s: adamw step %ld", c->name, s);
      norms[s] = st.grad_norm;
    }
    fprintf(meta, ", \"step_losses\": [");
    for (int s = 0; s < 10; s++) fprintf(meta, "%s%.17g", s ? ", " : "", losses[s]);
    fprintf(meta, "], \"step_norms\": [");
    for (int s = 0; s < 10; s++) fprintf(meta, "%s%.17g", s ? ", " : "", norms[s]);
    fprintf(meta, "]");
    dump_i32(c->name, "step_samples", samples, (size_t)10 * c->n_plan);
    dump_f32(c->name, "params_final", c->p.params, c->p.numel);
  }
  fprintf(meta, "}");
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--dump")) dump_dir = argv[2];
  enum { N_CASES = 9 };
  const char *cases[N_CASES] = {"electra", "mlm", "cls", "qa", "ged", "electra_tied", "reg",
                                "electra_rel", "ged_rel"};
  /* --disc-special exclude: finite differences, and the loss against one
   * recomputed from the step's own probabilities over the other tokens */
  {
    el__rng r;
    el__rng_seed(&r, 1000);
    gcase c;
    setup(&c, "electra_skip", &r);
    c.seed = 4242;
    el_error err;
    run_case(&c, 0, &err);
    c.use_forced = 1;
    el__electra_opts o = el__electra_default_opts(MASK_ID);
    o.train = 0;
    o.backward = 0;
    o.forced_samples = c.forced;
    o.skip_cls_id = CLS_ID;
    o.skip_sep_id = SEP_ID;
    el__mask_plan plan = {c.n_plan, c.plan_pos, c.plan_mask, NULL};
    el_batch b = batch_of(IDS);
    el__electra_result res;
    float prob[T_MAX];
    uint8_t lab[T_MAX];
    el__electra_outputs outs = {prob, lab, NULL, NULL};
    el__rng rr;
    el__rng_seed(&rr, 1);
    int rc = el__electra_step(c.e, &b, &plan, &o, &rr, &res, &outs, &err);
    double sum = 0;
    int n = 0, specials = 0;
    for (int t = 0; t < T_TOT; t++) {
      if (IDS[t] == CLS_ID || IDS[t] == SEP_ID) {
        specials++;
        continue;
      }
      sum += lab[t] ? -log(prob[t]) : -log1p(-prob[t]);
      n++;
    }
    CHECK(rc == 0 && specials > 0 && res.n_scored == n,
          "electra_skip: %d of %d tokens scored (%d [CLS]/[SEP] left out)", res.n_scored, T_TOT,
          specials);
    CHECK_NEAR(res.disc_loss, sum / n, 1e-6, 1e-5,
               "electra_skip: discriminator loss = mean BCE over the non-special tokens");
    for (int train = 0; train <= 1; train++) {
      c.train = train;
      fd_case(&c, &r);
    }
    teardown(&c);
  }
  if (dump_dir) {
    char path[512];
    mkdir(dump_dir, 0755);
    snprintf(path, sizeof path, "%s/meta.json", dump_dir);
    meta = fopen(path, "w");
    if (!meta) {
      fprintf(stderr, "cannot write %s\n", path);
      return 1;
    }
    fprintf(meta, "{");
    for (int k = 0; k < N_CASES; k++) {
      el__rng r;
      el__rng_seed(&r, 1000 + (uint64_t)k);
      gcase c;
      setup(&c, cases[k], &r);
      if (k) fprintf(meta, ", ");
      dump_case(&c, 0);
      teardown(&c);
    }
    /* the relative-key cases again with bf16 products, under their own names */
    const int bf16_cases[2] = {7, 8};
    const char *bf16_names[2] = {"electra_rel_bf16", "ged_rel_bf16"};
    if (el__matmul_set_bf16(1)) SKIP("bf16 cases: this CPU has no AVX512_BF16");
    for (int i = 0; i < 2 && el__matmul_bf16(); i++) {
      el__rng r;
      el__rng_seed(&r, 1000 + (uint64_t)bf16_cases[i]);
      gcase c;
      setup(&c, cases[bf16_cases[i]], &r);
      c.name = bf16_names[i];
      fprintf(meta, ", ");
      dump_case(&c, 1);
      teardown(&c);
    }
    el__matmul_set_bf16(0);
    fprintf(meta, "}\n");
    fclose(meta);
    return el_test_done();
  }
  for (int k = 0; k < N_CASES; k++) {
    for (int train = 0; train <= 1; train++) {
      el__rng r;
      el__rng_seed(&r, 1000 + (uint64_t)k);
      gcase c;
      setup(&c, cases[k], &r);
      c.train = train;
      c.seed = 4242;
      if (!strncmp(cases[k], "electra", 7)) { /* draw samples once, then keep them fixed */
        el_error err;
        c.use_forced = 0;
        run_case(&c, 0, &err);
        c.use_forced = 1;
      }
      fd_case(&c, &r);
      teardown(&c);
    }
  }
  return el_test_done();
}
