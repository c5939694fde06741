/* A few pretraining steps end to end through the library (vocab learner ->
 * token cache -> ELECTRA steps -> checkpoints): the HF checkpoints the
 * trainer writes load in the engine and hold exactly the parameters of the
 * resume state, and the engine's discriminator output matches the trainable
 * model's eval-mode forward on the same batch. Also the refusals of
 * cmd_pretrain: no --resume without a state, no overwrite of a run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../test.h"
#include "checkpoint.h"
#include "commands.h"
#include "electra/electra.h"
#include "model_internal.h"
#include "pretrain_run.h"
#include "vocab_builder.h"
#include "weights.h"

static char g_dir[] = "/tmp/el_test_ckpt_XXXXXX";

static const char *TEXT[] = {
    "the quick brown fox jumps over the lazy dog .",
    "a stitch in time saves nine , they say in the old country .",
    "all that glitters is not gold , and not all who wander are lost .",
    "the early bird catches the worm but the second mouse gets the cheese .",
};

static void make_inputs(const char *text, const char *vocab) {
  FILE *f = fopen(text, "wb");
  for (int d = 0; d < 60; d++) {
    for (int s = 0; s < 4; s++) fprintf(f, "%s\n", TEXT[(d + s) % 4]);
    fputc('\n', f);
  }
  fclose(f);
  el__word_counts *wc;
  el_error err = {0};
  el__wc_new(&wc, &err);
  for (int i = 0; i < 4; i++) el__wc_add_text(wc, TEXT[i], strlen(TEXT[i]), 1, &err);
  el__vb_opts o = {120, 1, EL_VOCAB_SCORE_FREQ};
  el__vb_vocab v;
  el__vb_learn(wc, &o, &v, &err);
  el__vb_write(&v, vocab, &err);
  el__vb_free(&v);
  el__wc_free(wc);
}

/* Every tensor of the loaded model equals the state's parameter of the same
 * name, bit for bit. */
static int same_as_params(const el_model *m, const el__params *p, int model, char *why, size_t n) {
  el__tensor_spec specs[EL_MAX_TENSORS];
  int ns = 0;
  el__weights w = m->w;
  el_error err = {0};
  if (el__tensor_specs(&m->cfg, &w, specs, &ns, &err)) {
    snprintf(why, n, "%.500s", err.msg);
    return 0;
  }
  for (int i = 0; i < ns; i++) {
    const el__tensor_spec *s = &specs[i];
    if (s->optional) { /* the tied lm weight: must be the word table itself */
      if (*s->slot != m->w.word) {
        snprintf(why, n, "%.96s is not tied to the word embeddings", s->name);
        return 0;
      }
      continue;
    }
    int j = el__params_find(p, model, s->name);
    if (j < 0) {
      snprintf(why, n, "%.96s not in the state", s->name);
      return 0;
    }
    size_t cnt = (size_t)s->shape[0] * (s->ndim == 2 ? (size_t)s->shape[1] : 1);
    if (cnt != p->tensors[j].count ||
        memcmp(*s->slot, p->params + p->tensors[j].offset, cnt * sizeof(float))) {
      snprintf(why, n, "%.96s differs", s->name);
      return 0;
    }
  }
  return 1;
}

int main(void) {
  if (!mkdtemp(g_dir)) {
    CHECK(0, "mkdtemp");
    return el_test_done();
  }
  char text[256], vocab[256], run[256], disc[300], gen[300];
  snprintf(text, sizeof text, "%s/text.txt", g_dir);
  snprintf(vocab, sizeof vocab, "%s/vocab.txt", g_dir);
  snprintf(run, sizeof run, "%s/run", g_dir);
  snprintf(disc, sizeof disc, "%s/discriminator", run);
  snprintf(gen, sizeof gen, "%s/generator", run);
  make_inputs(text, vocab);

  char *resume_argv[] = {"pretrain", "--out", run, "--resume"};
  CHECK(el__cmd_pretrain(4, resume_argv) == 1, "--resume without a saved run fails");

  char *argv[] = {"pretrain", "--input", text, "--vocab", vocab, "--out", run,
                  "--max-steps", "6", "--batch-size", "4", "--seq-len", "32",
                  "--save-every", "3", "--val-every", "3", "--log-every", "2",
                  "--threads", "1", "--seed", "7"};
  int argc = (int)(sizeof argv / sizeof argv[0]);
  CHECK(el__cmd_pretrain(argc, argv) == 0, "6 pretraining steps run");
  CHECK(el__cmd_pretrain(argc, argv) == 1, "a second run into the same --out is refused");

  el_model *md = NULL, *mg = NULL;
  el_error err = {0};
  CHECK(el__model_load_hf(disc, &md, &err) == EL_OK, "the engine loads RUN/discriminator: %s", err.msg);
  CHECK(el__model_load_hf(gen, &mg, &err) == EL_OK, "the engine loads RUN/generator: %s", err.msg);
  if (!md || !mg) return el_test_done();
  const el_config *dc = el_model_config(md), *gc = el_model_config(mg);
  CHECK(dc->arch == EL_ARCH_PRETRAINING && gc->arch == EL_ARCH_MASKED_LM,
        "architectures ElectraForPreTraining / ElectraForMaskedLM");
  CHECK(dc->hidden_size == 128 && dc->num_layers == 4 && dc->num_heads == 2 &&
            dc->intermediate_size == 512 && dc->embedding_size == 128,
        "tiny discriminator sizes");
  CHECK(gc->hidden_size == 32 && gc->num_heads == 1 && gc->intermediate_size == 128 &&
            gc->num_layers == 4 && gc->embedding_size == 128,
        "generator: hidden 32, 1 head, FFN 128, 4 layers (0.25 x tiny)");
  CHECK(dc->do_lower_case == 1, "tokenizer_config says lower-case");

  /* the state holds the same parameters as the checkpoints */
  el__pt_opts o;
  el__state st;
  char sdir[300];
  snprintf(sdir, sizeof sdir, "%s/state", run);
  el__params p;
  memset(&p, 0, sizeof p);
  int ok = el__state_peek(sdir, &st, &err) == EL_OK &&
           el__pt_opts_from_json(st.settings_json, &o, sdir, &err) == EL_OK;
  free(st.settings_json);
  el_config d0, g0;
  ok = ok && el__pt_model_config(&o, dc->vocab_size, 0, 1, &d0, &err) == EL_OK &&
       el__generator_config(&d0, (float)o.gen_size, &g0, &err) == EL_OK &&
       el__params_new_pair(&p, &d0, &g0, &err) == EL_OK &&
       el__state_load(sdir, &st, &p, &err) == EL_OK;
  CHECK(ok && st.step == 6, "state loads at step 6: %s", err.msg);
  if (ok) {
    free(st.settings_json);
    char why[700] = "";
    CHECK(same_as_params(md, &p, 0, why, sizeof why), "discriminator checkpoint = state (%s)", why);
    CHECK(same_as_params(mg, &p, 1, why, sizeof why), "generator checkpoint = state, shared embeddings (%s)",
          why);
    /* engine forward vs the trainable model in eval mode */
    int ids[12] = {2, 10, 11, 12, 13, 3, 2, 14, 15, 3, 16, 3};
    int types[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1};
    int lens[2] = {6, 6};
    el_batch b = {2, lens, ids, types};
    el_workspace *ws = NULL;
    float prob[12];
    el__tmodel *tm = NULL;
    el__tmodel_limits lim = {12, 2, 32, 0};
    const float *logits = NULL;
    ok = el_workspace_new(md, 12, 2, &ws, &err) == EL_OK &&
         el_run_replaced(md, ws, &b, prob, &err) == EL_OK &&
         el__tmodel_new(&p.cfg[0], &p.w[0], NULL, &lim, &tm, &err) == EL_OK &&
         el__tmodel_forward(tm, &b, NULL, 0, 0, NULL, &logits, &err) == EL_OK;
    CHECK(ok, "both forwards run: %s", err.msg);
    double worst = 0;
    for (int t = 0; ok && t < 12; t++) {
      double q = 1 / (1 + exp(-(double)logits[t]));
      if (fabs(q - prob[t]) > worst) worst = fabs(q - prob[t]);
    }
    CHECK(ok && worst < 1e-5, "engine P(replaced) = trainable model's (max diff %.2g, tol 1e-5)",
          worst);
    el__tmodel_free(tm);
    el_workspace_free(ws);
  }
  el__params_free(&p);
  el__pt_opts_free(&o);
  el__config_free(&g0);
  el_model_free(md);
  el_model_free(mg);

  /* resume to step 8: allowed with a larger --max-steps, refused when done */
  char *again[] = {"pretrain", "--out", run, "--resume"};
  CHECK(el__cmd_pretrain(4, again) == 1, "--resume of a finished run (step 6 of 6) is refused");
  char *more[] = {"pretrain", "--out", run, "--resume", "--max-steps", "8", "--lr", "0.5"};
  CHECK(el__cmd_pretrain(8, more) == 1, "--resume with a different --lr is refused");
  char *ok8[] = {"pretrain", "--out", run, "--resume", "--max-steps", "8"};
  CHECK(el__cmd_pretrain(6, ok8) == 0, "--resume --max-steps 8 continues");
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
  if (system(cmd)) printf("# could not remove %s\n", g_dir);
  return el_test_done();
}
