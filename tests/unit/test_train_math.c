/* The trainer's math apart from gradients (those are in test_train_math_grad.c
 * and the PyTorch check): parameter-set layout and sharing, init, copy from
 * checkpoints, resume I/O, the LR schedule, AdamW (layer-wise decay depths,
 * clipping, weight decay, non-finite refusal), the generator samplers'
 * distribution, ELECTRA-step invariants, determinism across runs and thread
 * counts, and argument errors. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "checkpoint.h"
#include "electra/engine.h"
#include "objective.h"
#include "ops.h"
#include "optim.h"
#include "params.h"
#include "tmodel.h"
#include "../test.h"
#include "test_config.h"

static el_config make_cfg(el_arch arch, int V, int E, int H, int L, int nh, int I) {
  el_config c = el_test_config(arch, V, E, H, L, nh, I);
  c.num_labels = arch == EL_ARCH_SEQ_CLS ? 2 : 0;
  return c;
}

/* ---------------- params ---------------- */
static void test_pair_layout(void) {
  el_error err = {0};
  el_config d = make_cfg(EL_ARCH_PRETRAINING, 100, 8, 32, 2, 2, 64), g;
  CHECK(el__generator_config(&d, 0.5f, &g, &err) == EL_OK && g.hidden_size == 16 &&
            g.intermediate_size == 32 && g.num_heads == 1 && g.num_layers == 2 &&
            g.embedding_size == 8 && g.arch == EL_ARCH_MASKED_LM,
        "generator config: hidden/FFN scaled, heads max(1, H/64), layers kept");
  el_config small = make_cfg(EL_ARCH_PRETRAINING, 30522, 128, 256, 12, 4, 1024), gs;
  small.max_position_embeddings = 512;
  CHECK(el__generator_config(&small, 0.25f, &gs, &err) == EL_OK && gs.hidden_size == 64 &&
            gs.intermediate_size == 256 && gs.num_heads == 1,
        "ELECTRA-Small generator at 1/4: 64 hidden, 256 FFN, 1 head (docs/MODEL.md §3)");
  el__params p;
  int rc = el__params_new_pair(&p, &d, &g, &err);
  CHECK(rc == EL_OK, "pair created (%s)", rc ? err.msg : "ok");
  if (rc) return;
  const size_t shared = (size_t)100 * 8 + 32 * 8 + 2 * 8 + 2 * 8;
  CHECK(p.numel == el__weights_numel(&d) + el__weights_numel(&g) - shared,
        "pair numel = disc + gen - shared embeddings (%zu)", p.numel);
  CHECK(p.w[1].word == p.w[0].word && p.w[1].pos == p.w[0].pos && p.w[1].type == p.w[0].type &&
            p.w[1].emb_ln.g == p.w[0].emb_ln.g && p.w[1].emb_ln.b == p.w[0].emb_ln.b,
        "word/position/type embeddings and embedding LayerNorm are shared");
  CHECK(p.w[1].lm_w == p.w[0].word, "generator_lm_head.weight is tied to the shared word table");
  CHECK(p.w[1].project.w && p.w[1].project.w != p.w[0].project.w &&
            p.w[1].layer[0].q.w != p.w[0].layer[0].q.w,
        "each model has its own embeddings_project and encoder");
  CHECK(p.g[1].word == p.g[0].word && p.g[1].lm_w == p.g[0].word &&
            p.g[0].layer[1].out.b - p.grads == p.w[0].layer[1].out.b - p.params &&
            p.g[1].gen_ln.g - p.grads == p.w[1].gen_ln.g - p.params,
        "gradient views have the parameter layout");
  int i_word = el__params_find(&p, 0, "electra.embeddings.word_embeddings.weight");
  int i_top = el__params_find(&p, 0, "electra.encoder.layer.1.output.dense.weight");
  int i_head = el__params_find(&p, 1, "generator_predictions.LayerNorm.bias");
  CHECK(i_word >= 0 && p.tensors[i_word].shared && el__params_find(&p, 1, p.tensors[i_word].name) == i_word,
        "shared tensors appear once and are found from both models");
  CHECK(i_top >= 0 && p.tensors[i_top].depth == 2 && p.tensors[i_top].max_depth == 3 &&
            !p.tensors[i_top].no_decay,
        "encoder layer 1 of 2: depth 2 of head depth 3, decayed");
  CHECK(i_head >= 0 && p.tensors[i_head].model == 1 && p.tensors[i_head].no_decay,
        "generator LayerNorm bias: model 1, no weight decay");
  size_t sum = 0;
  int contiguous = 1;
  for (int i = 0; i < p.n_tensors; i++) {
    contiguous &= p.tensors[i].offset == sum;
    sum += p.tensors[i].count;
  }
  CHECK(contiguous && sum == p.numel, "the %d tensors tile the block in order", p.n_tensors);
  el__params_free(&p);

  el_config bad = g;
  bad.embedding_size = 4;
  CHECK(el__params_new_pair(&p, &d, &bad, &err) == EL_ESHAPE && strstr(err.msg, "embedding_size"),
        "pair with different embedding sizes refused: %s", err.msg);
  CHECK(el__params_new_pair(&p, &g, &d, &err) == EL_EINVAL, "pair with swapped roles refused: %s",
        err.msg);
}

static void test_init(void) {
  el_error err = {0};
  el_config c = make_cfg(EL_ARCH_MASKED_LM, 2000, 64, 64, 1, 1, 128);
  el__params p;
  el__rng r;
  el__rng_seed(&r, 5);
  CHECK(el__params_new_single(&p, &c, &err) == EL_OK, "single MLM set");
  CHECK(el__params_init_random(&p, 0.0f, 0, &r, &err) == EL_OK, "init normal");
  const float *w = p.w[0].word;
  double s = 0.0, s2 = 0.0;
  size_t n = (size_t)2000 * 64;
  for (size_t i = 64; i < n; i++) s += w[i], s2 += (double)w[i] * w[i];
  double sd = sqrt(s2 / (double)(n - 64) - pow(s / (double)(n - 64), 2));
  CHECK(fabs(sd - 0.02) < 0.0005, "word embeddings ~ N(0, 0.02): sd %.5f", sd);
  int pad0 = 1;
  for (int e = 0; e < 64; e++) pad0 &= w[e] == 0.0f;
  CHECK(pad0, "pad row of the word table is 0 (HF padding_idx)");
  CHECK(p.w[0].emb_ln.g[3] == 1.0f && p.w[0].emb_ln.b[3] == 0.0f && p.w[0].gen_ln.g[0] == 1.0f &&
            p.w[0].layer[0].q.b[5] == 0.0f && p.w[0].lm_b[7] == 0.0f,
        "LayerNorm gamma 1, beta 0, biases 0");
  CHECK(el__params_init_random(&p, 0.0f, 1, &r, &err) == EL_OK, "init truncated");
  float mx = 0.0f;
  for (size_t i = 0; i < n; i++) mx = fmaxf(mx, fabsf(w[i]));
  CHECK(mx <= 0.04f && mx > 0.035f, "truncated normal stays within 2 sd (max %.4f)", mx);
  el__params_free(&p);
}

static void test_copy_and_io(void) {
  el_error err = {0};
  el_config d = make_cfg(EL_ARCH_PRETRAINING, 60, 16, 24, 2, 2, 48), g;
  el__generator_config(&d, 0.5f, &g, &err);
  el__params pair, cls, other;
  el__rng r;
  el__rng_seed(&r, 6);
  el__params_new_pair(&pair, &d, &g, &err);
  el__params_init_random(&pair, 0.0f, 1, &r, &err);
  el_config cc = d;
  cc.arch = EL_ARCH_SEQ_CLS;
  cc.num_labels = 3;
  el__params_new_single(&cls, &cc, &err);
  el__params_init_random(&cls, 0.0f, 0, &r, &err);
  float head0 = cls.w[0].cls_out.w[4];
  int rc = el__params_copy_from(&cls, 0, &pair.cfg[0], &pair.w[0], EL_COPY_ENCODER, &err);
  CHECK(rc == EL_OK, "copy discriminator encoder into a classifier (%s)", rc ? err.msg : "ok");
  CHECK(!memcmp(cls.w[0].word, pair.w[0].word, sizeof(float) * 60 * 16) &&
            !memcmp(cls.w[0].layer[1].out_ln.g, pair.w[0].layer[1].out_ln.g, sizeof(float) * 24) &&
            !memcmp(cls.w[0].project.w, pair.w[0].project.w, sizeof(float) * 24 * 16),
        "embeddings, projection and encoder copied");
  CHECK(cls.w[0].cls_out.w[4] == head0, "classifier head left as initialised");
  CHECK(el__params_copy_from(&cls, 0, &pair.cfg[0], &pair.w[0], EL_COPY_HEAD, &err) == EL_ESHAPE,
        "copying a PreTraining head into a classifier refused: %s", err.msg);
  el_config cv = cc;
  cv.vocab_size = 61;
  el__params_new_single(&other, &cv, &err);
  CHECK(el__params_copy_from(&other, 0, &pair.cfg[0], &pair.w[0], EL_COPY_ENCODER, &err) ==
                EL_ESHAPE &&
            strstr(err.msg, "word_embeddings"),
        "vocabulary mismatch names the tensor: %s", err.msg);
  el__params_free(&other);

  /* save the discriminator as an HF checkpoint, load it with the engine, copy from the model */
  char dir[64], vocab[96];
  snprintf(dir, sizeof dir, "/tmp/el-train-math-%d", (int)getpid());
  mkdir(dir, 0755);
  snprintf(vocab, sizeof vocab, "%s/vocab.txt", dir);
  FILE *vf = fopen(vocab, "w");
  const char *sp[5] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
  for (int i = 0; i < 60; i++) {
    if (i < 5) fprintf(vf, "%s\n", sp[i]);
    else fprintf(vf, "tok%d\n", i);
  }
  fclose(vf);
  char ck[96];
  snprintf(ck, sizeof ck, "%s/disc", dir);
  rc = el__checkpoint_save(ck, &pair.cfg[0], &pair.w[0], vocab, &err);
  el_model *m = NULL;
  if (!rc) rc = el__model_load_hf(ck, &m, &err);
  if (rc) {
    SKIP("checkpoint save/load round trip unavailable here: %s", err.msg);
  } else {
    el__params fresh;
    el__params_new_single(&fresh, &cc, &err);
    rc = el__params_copy_from_model(&fresh, 0, m, EL_COPY_ENCODER, &err);
    CHECK(rc == EL_OK && !memcmp(fresh.w[0].layer[0].q.w, pair.w[0].layer[0].q.w, sizeof(float) * 24 * 24),
          "encoder copied from a saved and reloaded discriminator checkpoint (%s)", rc ? err.msg : "ok");
    el_model *inf = NULL;
    rc = el_model_load(ck, &inf, &err);
    if (!rc) rc = el__params_copy_from_model(&fresh, 0, inf, EL_COPY_ENCODER, &err);
    CHECK(rc == EL_EINVAL && strstr(err.msg, "el__model_load_hf"),
          "copying from a model in the inference layout is refused: %s", err.msg);
    el_model_free(inf);
    el__params_free(&fresh);
    el_model_free(m);
  }

  /* resume I/O */
  char path[128];
  snprintf(path, sizeof path, "%s/state.bin", dir);
  for (size_t i = 0; i < pair.numel; i++) pair.m[i] = (float)i, pair.v[i] = 0.5f * (float)i;
  FILE *f = fopen(path, "wb");
  rc = el__params_write(&pair, f, path, &err);
  fclose(f);
  CHECK(rc == EL_OK, "parameter state written");
  el__params back;
  el__params_new_pair(&back, &d, &g, &err);
  f = fopen(path, "rb");
  rc = el__params_read(&back, f, path, &err);
  fclose(f);
  CHECK(rc == EL_OK && !memcmp(back.params, pair.params, pair.numel * 4) &&
            !memcmp(back.m, pair.m, pair.numel * 4) && !memcmp(back.v, pair.v, pair.numel * 4),
        "parameter state read back bit for bit");
  el__params_free(&back);
  el_config g2 = g;
  g2.intermediate_size = 16;
  el__params_new_pair(&back, &d, &g2, &err);
  f = fopen(path, "rb");
  rc = el__params_read(&back, f, path, &err);
  fclose(f);
  CHECK(rc == EL_ESHAPE, "state of another configuration refused: %s", err.msg);
  el__params_free(&back);
  truncate(path, 1000);
  el__params_new_pair(&back, &d, &g, &err);
  f = fopen(path, "rb");
  rc = el__params_read(&back, f, path, &err);
  fclose(f);
  CHECK(rc == EL_EFORMAT, "truncated state refused: %s", err.msg);
  el__params_free(&back);
  FILE *full = fopen("/dev/full", "wb");
  if (full) {
    setvbuf(full, NULL, _IONBF, 0);
    rc = el__params_write(&pair, full, "/dev/full", &err);
    CHECK(rc == EL_ENOSPC, "full disk is EL_ENOSPC: %s", err.msg);
    fclose(full);
  }
  char cmd[160];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) printf("# could not remove %s\n", dir);
  el__params_free(&pair);
  el__params_free(&cls);
}

/* ---------------- optimizer ---------------- */
static void test_schedule(void) {
  CHECK(el__lr_at(1.0, 0, 10, 3) == 0.0, "lr at the first update of a warmup run is 0 (GR)");
  CHECK_NEAR(el__lr_at(1.0, 1, 10, 3), 0.9 / 3.0, 1e-15, 0, "warmup multiplies the decaying lr");
  CHECK_NEAR(el__lr_at(2.0, 3, 10, 3), 1.4, 1e-15, 0, "after warmup: peak (1 - t/T)");
  CHECK(el__lr_at(1.0, 10, 10, 3) == 0.0 && el__lr_at(1.0, 15, 10, 3) == 0.0, "0 at and after T");
  CHECK(el__lr_at(1.0, 0, 10, 0) == 1.0, "no warmup: the first update has the peak lr");
}

static void test_adamw(void) {
  el_error err = {0};
  el_config c = make_cfg(EL_ARCH_SEQ_CLS, 50, 8, 8, 3, 2, 16);
  el__params p;
  el__params_new_single(&p, &c, &err);
  el__rng r;
  el__rng_seed(&r, 9);
  el__params_init_random(&p, 0.0f, 0, &r, &err);
  for (size_t i = 0; i < p.numel; i++) p.grads[i] = 0.01f + 0.001f * (float)(i % 7);
  float *before = malloc(p.numel * 4);
  memcpy(before, p.params, p.numel * 4);
  el__adamw o = el__adamw_defaults();
  o.weight_decay = 0.0f;
  o.clip_norm = 0.0f;
  o.layer_decay = 0.8f;
  el__adamw_stats st;
  CHECK(el__adamw_step(&p, &o, 1e-3, &st, &err) == EL_OK && st.clip_scale == 1.0,
        "adamw step without clipping");
  /* first step from m = v = 0: update = lr scale (1-b1) g / (sqrt(1-b2) |g| + eps) */
  struct { const char *name; double scale; } want[4] = {
      {"classifier.out_proj.weight", 1.0},
      {"electra.encoder.layer.2.attention.self.query.weight", 0.8},
      {"electra.encoder.layer.0.output.dense.weight", 0.8 * 0.8 * 0.8},
      {"electra.embeddings.word_embeddings.weight", pow(0.8, 4)}};
  for (int k = 0; k < 4; k++) {
    const el__param_tensor *t = &p.tensors[el__params_find(&p, 0, want[k].name)];
    size_t j = t->offset + 3;
    double g = p.grads[j];
    double u = 0.1 * g / (sqrt(0.001) * g + 1e-6);
    double scale = (before[j] - p.params[j]) / (1e-3 * u);
    CHECK_NEAR(scale, want[k].scale, 2e-5, 1e-4, "layer-wise lr factor of %s", want[k].name);
  }
  /* weight decay only where no_decay is 0, and clipping */
  memcpy(p.params, before, p.numel * 4);
  memset(p.m, 0, p.numel * 4);
  memset(p.v, 0, p.numel * 4);
  memset(p.grads, 0, p.numel * 4);
  o.weight_decay = 0.5f;
  o.layer_decay = 1.0f;
  o.clip_norm = 1.0f;
  el__adamw_step(&p, &o, 0.1, &st, &err);
  const el__param_tensor *wq = &p.tensors[el__params_find(&p, 0, "electra.encoder.layer.0.attention.self.query.weight")];
  const el__param_tensor *bq = &p.tensors[el__params_find(&p, 0, "electra.encoder.layer.0.attention.self.query.bias")];
  const el__param_tensor *lg = &p.tensors[el__params_find(&p, 0, "electra.embeddings.LayerNorm.weight")];
  size_t j = wq->offset + 2;
  CHECK_NEAR(p.params[j], before[j] * (1.0 - 0.1 * 0.5), 1e-9, 1e-6,
             "zero gradient: decoupled decay param -= lr wd param");
  CHECK(p.params[lg->offset] == before[lg->offset] && p.params[bq->offset] == before[bq->offset],
        "no weight decay on LayerNorm and biases");
  for (size_t i = 0; i < p.numel; i++) p.grads[i] = 1.0f;
  el__adamw_step(&p, &o, 0.0, &st, &err);
  CHECK_NEAR(st.grad_norm, sqrt((double)p.numel), 1e-6, 1e-9, "gradient norm is the global L2");
  CHECK_NEAR(st.clip_scale, 1.0 / sqrt((double)p.numel), 1e-12, 1e-6,
             "clipped to global norm 1: scale %.6g", st.clip_scale);
  CHECK_NEAR(p.m[5], 0.1 / sqrt((double)p.numel), 1e-9, 1e-5, "moments see the clipped gradient");
  memcpy(before, p.params, p.numel * 4);
  p.grads[11] = NAN;
  CHECK(el__adamw_step(&p, &o, 0.1, &st, &err) == EL_EVALUE &&
            !memcmp(before, p.params, p.numel * 4),
        "a NaN gradient is refused and nothing changes: %s", err.msg);
  p.grads[11] = 1.0f;
  el_set_threads(1);
  double n1 = el__grad_norm(&p);
  el_set_threads(2);
  double n2 = el__grad_norm(&p);
  CHECK(n1 == n2, "gradient norm identical with 1 and 2 threads");
  free(before);
  el__params_free(&p);
}

/* ---------------- sampling ---------------- */
static void test_samplers(void) {
  const float logits[5] = {2.0f, 1.0f, 0.0f, -1.0f, 0.5f};
  double pr[5], z = 0.0;
  for (int j = 0; j < 5; j++) z += exp(logits[j]);
  for (int j = 0; j < 5; j++) pr[j] = exp(logits[j]) / z;
  float probs[5];
  for (int j = 0; j < 5; j++) probs[j] = (float)pr[j];
  for (int kind = 0; kind < 2; kind++) {
    el__rng r;
    el__rng_seed(&r, 77 + (uint64_t)kind);
    const int N = 40000;
    int cnt[5] = {0};
    for (int i = 0; i < N; i++)
      cnt[kind ? el__sample_cdf(probs, 5, &r) : el__sample_gumbel(logits, 5, &r)]++;
    double worst = 0.0;
    for (int j = 0; j < 5; j++) {
      double sd = sqrt(pr[j] * (1 - pr[j]) / N);
      worst = fmax(worst, fabs(cnt[j] / (double)N - pr[j]) / sd);
    }
    CHECK(worst < 5.0, "%s sampler matches softmax(logits) over %d draws (worst %.2f sd)",
          kind ? "inverse-CDF" : "Gumbel-max", N, worst);
  }
}

/* ---------------- ELECTRA step ---------------- */
enum { NS = 3, TT = 30, MASK_ID = 4 };
static const int SL[NS] = {12, 10, 8};

typedef struct pair_env {
  el__params p;
  el__electra *e;
  int ids[TT], types[TT];
  int pos[5];
  uint8_t um[5];
} pair_env;

static void pair_setup(pair_env *v, uint64_t seed) {
  el_error err = {0};
  el_config d = make_cfg(EL_ARCH_PRETRAINING, 80, 16, 32, 2, 2, 64), g;
  el__generator_config(&d, 0.5f, &g, &err);
  el__params_new_pair(&v->p, &d, &g, &err);
  el__rng r;
  el__rng_seed(&r, seed);
  el__params_init_random(&v->p, 0.0f, 1, &r, &err);
  el__tmodel_limits lim = {64, 4, 16, 8};
  int rc = el__electra_new(&v->p, &lim, &v->e, &err);
  if (rc) printf("# %s\n", err.msg);
  for (int t = 0; t < TT; t++) v->ids[t] = 5 + (int)el__rng_below(&r, 75), v->types[t] = t % 2;
  const int pos[5] = {1, 5, 13, 20, 27};
  for (int i = 0; i < 5; i++) v->pos[i] = pos[i], v->um[i] = i != 2;
}

static int pair_step(pair_env *v, el__electra_opts *o, uint64_t seed, el__electra_result *res,
                     el__electra_outputs *outs, el_error *err) {
  el_batch b = {NS, SL, v->ids, v->types};
  el__mask_plan plan = {5, v->pos, v->um, NULL};
  el__rng r;
  el__rng_seed(&r, seed);
  return el__electra_step(v->e, &b, &plan, o, &r, res, outs, err);
}

static void test_electra_step(void) {
  el_error err = {0};
  pair_env v;
  pair_setup(&v, 21);
  el__electra_opts o = el__electra_default_opts(MASK_ID);
  el__electra_result res;
  float prob[TT];
  uint8_t lab[TT];
  int samples[5], corrupted[TT];
  el__electra_outputs outs = {prob, lab, samples, corrupted};
  el__params_zero_grads(&v.p);
  int rc = pair_step(&v, &o, 1, &res, &outs, &err);
  CHECK(rc == EL_OK, "electra step (%s)", rc ? err.msg : "ok");
  int ok = 1, nrep = 0;
  for (int t = 0; t < TT; t++) {
    int sel = -1;
    for (int i = 0; i < 5; i++)
      if (v.pos[i] == t) sel = i;
    ok &= corrupted[t] == (sel >= 0 ? samples[sel] : v.ids[t]);
    ok &= lab[t] == (corrupted[t] != v.ids[t]);
    ok &= prob[t] > 0.0f && prob[t] < 1.0f;
    nrep += lab[t];
  }
  CHECK(ok && nrep == res.n_replaced, "samples fill every selected position; label = sample != original");
  CHECK(res.n_tokens == TT && res.n_selected == 5 &&
            fabs(res.loss - (res.mlm_loss + 50.0 * res.disc_loss)) < 1e-9 * res.loss,
        "total = MLM + 50 disc (%.4f = %.4f + 50 * %.4f)", res.loss, res.mlm_loss, res.disc_loss);
  /* a random-init generator over 80 tokens: the MLM loss is near log(80) */
  CHECK(fabs(res.mlm_loss - log(75.0)) < 0.5, "fresh generator MLM loss %.3f near log V",
        res.mlm_loss);

  /* forced correct samples: nothing replaced */
  int orig[5];
  for (int i = 0; i < 5; i++) orig[i] = v.ids[v.pos[i]];
  o.forced_samples = orig;
  pair_step(&v, &o, 1, &res, &outs, &err);
  CHECK(res.n_replaced == 0, "a sample equal to the original is labelled real");
  o.forced_samples = NULL;

  /* gradients: total = gen part + disc part (shared embeddings get both) */
  size_t n = v.p.numel;
  float *g_all = malloc(n * 4), *g_gen = malloc(n * 4), *g_disc = malloc(n * 4);
  o.train = 1;
  el__params_zero_grads(&v.p);
  pair_step(&v, &o, 3, &res, NULL, &err);
  memcpy(g_all, v.p.grads, n * 4);
  el__electra_opts og = o, od = o;
  og.disc_weight = 0.0f;
  od.gen_weight = 0.0f;
  el__params_zero_grads(&v.p);
  pair_step(&v, &og, 3, &res, NULL, &err);
  memcpy(g_gen, v.p.grads, n * 4);
  el__params_zero_grads(&v.p);
  pair_step(&v, &od, 3, &res, NULL, &err);
  memcpy(g_disc, v.p.grads, n * 4);
  double worst = 0.0;
  for (size_t i = 0; i < n; i++)
    worst = fmax(worst, fabs(g_all[i] - g_gen[i] - g_disc[i]) / (1e-7 + 1e-5 * fabs(g_all[i])));
  CHECK(worst <= 1.0, "gradient of the total = generator part + discriminator part");
  int gen_only_zero = 1, disc_only_zero = 1, shared_both = 0;
  for (int i = 0; i < v.p.n_tensors; i++) {
    const el__param_tensor *t = &v.p.tensors[i];
    double sg = 0, sd = 0;
    for (size_t j = 0; j < t->count; j++)
      sg += fabs(g_gen[t->offset + j]), sd += fabs(g_disc[t->offset + j]);
    if (t->shared) shared_both += sg > 0 && sd > 0;
    else if (t->model == 0) gen_only_zero &= sg == 0.0;
    else disc_only_zero &= sd == 0.0;
  }
  CHECK(gen_only_zero && disc_only_zero,
        "no gradient crosses models except through the shared embeddings (no gradient through the sample)");
  CHECK(shared_both == 5, "all 5 shared tensors receive both models' gradients (%d)", shared_both);

  /* validation mode accumulates nothing */
  el__params_zero_grads(&v.p);
  el__electra_opts ov = o;
  ov.backward = 0;
  ov.train = 0;
  pair_step(&v, &ov, 3, &res, NULL, &err);
  int zero = 1;
  for (size_t i = 0; i < n; i++) zero &= v.p.grads[i] == 0.0f;
  CHECK(zero, "backward = 0 leaves the gradients untouched");

  /* determinism: same seed -> same bits; 1 vs 2 threads -> same bits */
  el_set_threads(2);
  el__params_zero_grads(&v.p);
  pair_step(&v, &o, 11, &res, NULL, &err);
  memcpy(g_all, v.p.grads, n * 4);
  double l2 = res.loss;
  el__params_zero_grads(&v.p);
  pair_step(&v, &o, 11, &res, NULL, &err);
  CHECK(!memcmp(g_all, v.p.grads, n * 4) && l2 == res.loss, "same seed: identical loss and gradients");
  el_set_threads(1);
  el__params_zero_grads(&v.p);
  pair_step(&v, &o, 11, &res, NULL, &err);
  CHECK(!memcmp(g_all, v.p.grads, n * 4) && l2 == res.loss,
        "1 thread vs 2 threads: identical loss and gradients");
  el_set_threads(2);
  el__params_zero_grads(&v.p);
  pair_step(&v, &o, 12, &res, NULL, &err);
  CHECK(memcmp(g_all, v.p.grads, n * 4) != 0, "another seed: other dropout masks and samples");

  /* errors */
  v.pos[3] = v.pos[1];
  CHECK(pair_step(&v, &o, 1, &res, NULL, &err) == EL_EINVAL && strstr(err.msg, "repeated"),
        "repeated mask position refused: %s", err.msg);
  v.pos[3] = 30;
  CHECK(pair_step(&v, &o, 1, &res, NULL, &err) == EL_EINVAL, "mask position past the batch refused: %s",
        err.msg);
  v.pos[3] = 20;
  v.ids[4] = 80;
  CHECK(pair_step(&v, &o, 1, &res, NULL, &err) == EL_EINVAL && strstr(err.msg, "token 4"),
        "out-of-vocabulary id refused: %s", err.msg);
  free(g_all);
  free(g_gen);
  free(g_disc);
  el__electra_free(v.e);
  el__params_free(&v.p);
}

static void test_tmodel_errors(void) {
  el_error err = {0};
  el_config c = make_cfg(EL_ARCH_QA, 40, 8, 8, 1, 2, 16);
  el__params p;
  el__params_new_single(&p, &c, &err);
  el__tmodel *m;
  el__tmodel_limits lim = {16, 2, 8, 0};
  CHECK(el__tmodel_new(&c, &p.w[0], &p.g[0], &lim, &m, &err) == EL_OK, "QA tmodel");
  int ids[20] = {0}, len[2] = {9, 3};
  el_batch b = {2, len, ids, NULL};
  const float *out;
  CHECK(el__tmodel_forward(m, &b, NULL, 0, 0, NULL, &out, &err) == EL_ETOOLONG,
        "sequence longer than max_len refused: %s", err.msg);
  float dz[40] = {0};
  CHECK(el__tmodel_backward(m, dz, &err) == EL_EINVAL, "backward without forward refused");
  len[0] = 8;
  CHECK(el__tmodel_forward(m, &b, NULL, 0, 1, NULL, &out, &err) == EL_EINVAL,
        "training forward without an rng refused: %s", err.msg);
  CHECK(el__tmodel_forward(m, &b, NULL, 0, 0, NULL, &out, &err) == EL_OK && out,
        "eval forward needs no rng");
  el__tmodel_free(m);
  el__params_free(&p);
}

int main(void) {
  el_set_threads(2);
  test_pair_layout();
  test_init();
  test_copy_and_io();
  test_schedule();
  test_adamw();
  test_samplers();
  test_electra_step();
  test_tmodel_errors();
  return el_test_done();
}
