/* Checkpoint IO: tensor table, config.json parsing/writing, safetensors
 * validation on hand-crafted buffers, F16/BF16 conversion, atomic save and a
 * save -> load round trip of every architecture. (Loading PyTorch-written and
 * corrupted checkpoints: tests/reference/test_checkpoint_corrupt.sh.) */
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint.h"
#include "electra/electra.h"
#include "fileio.h"
#include "model_internal.h"
#include "safetensors.h"
#include "../test.h"
#include "checkpoint_util.h"

static char g_tmp[256];

/* ---- small helpers ---------------------------------------------------- */

static int write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t n = strlen(text);
  int ok = fwrite(text, 1, n, f) == n;
  return (fclose(f) == 0 && ok) ? 0 : -1;
}

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)ftw;
  return flag == FTW_DP ? rmdir(p) : unlink(p);
}
static void rm_rf(const char *p) { nftw(p, rm_cb, 16, FTW_DEPTH | FTW_PHYS); }

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static float frand(void) { /* xorshift64*, uniform in [-0.5, 0.5) */
  g_rng ^= g_rng >> 12;
  g_rng ^= g_rng << 25;
  g_rng ^= g_rng >> 27;
  return (float)((g_rng * 0x2545f4914f6cdd1dull) >> 40) / 16777216.0f - 0.5f;
}

static el_config small_config(el_arch arch, int E) {
  el_config c;
  memset(&c, 0, sizeof c);
  c.arch = arch;
  c.vocab_size = 40;
  c.embedding_size = E;
  c.hidden_size = 16;
  c.num_layers = 2;
  c.num_heads = 2;
  c.intermediate_size = 24;
  c.max_position_embeddings = 20;
  c.type_vocab_size = 2;
  c.layer_norm_eps = 1e-12f;
  c.initializer_range = 0.02f;
  c.hidden_dropout_prob = 0.1f;
  c.attention_probs_dropout_prob = 0.1f;
  c.do_lower_case = 1;
  if (arch == EL_ARCH_SEQ_CLS || arch == EL_ARCH_TOKEN_CLS) c.num_labels = 3;
  return c;
}

static int write_vocab(const char *path, int V) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n", f);
  for (int i = 5; i < V; i++) fprintf(f, "tok%d\n", i);
  return fclose(f);
}

/* ---- the tensor table ------------------------------------------------- */

static const el__tensor_spec *find_spec(const el__tensor_spec *s, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(s[i].name, name) == 0) return &s[i];
  return NULL;
}

static void test_specs(void) {
  static el__tensor_spec specs[EL_MAX_TENSORS];
  el__weights w;
  el_error err = {0};
  int n = 0;
  /* Expected counts: 5 embedding tensors (+2 projection) + 16 per layer + head. */
  const int head[EL_ARCH_COUNT] = {4, 6, 4, 2, 2};
  for (int a = 0; a < EL_ARCH_COUNT; a++)
    for (int E = 8; E <= 16; E += 8) {
      el_config c = small_config((el_arch)a, E);
      int rc = el__tensor_specs(&c, &w, specs, &n, &err);
      int want = 5 + (E != 16 ? 2 : 0) + 16 * c.num_layers + head[a];
      CHECK(rc == 0 && n == want, "specs %s E=%d: %d tensors (expected %d)", el_arch_name(c.arch),
            E, n, want);
      size_t sum = 0;
      int names_ok = 1, depth_ok = 1, decay_ok = 1;
      for (int i = 0; i < n; i++) {
        const el__tensor_spec *s = &specs[i];
        if (!s->optional) sum += (size_t)s->shape[0] * (size_t)(s->ndim == 2 ? s->shape[1] : 1);
        int is_head = strncmp(s->name, "electra.", 8) != 0;
        if (!is_head && strncmp(s->name, "electra.", 8) != 0) names_ok = 0;
        int layer = -1;
        if (sscanf(s->name, "electra.encoder.layer.%d.", &layer) == 1) {
          if (s->depth != layer + 1) depth_ok = 0;
        } else if (is_head ? s->depth != c.num_layers + 1 : s->depth != 0) {
          depth_ok = 0;
        }
        int want_nd = strstr(s->name, "LayerNorm") || strstr(s->name, ".bias");
        if (s->no_decay != want_nd) decay_ok = 0;
      }
      CHECK(names_ok && depth_ok && decay_ok, "specs %s E=%d: depth and no_decay flags",
            el_arch_name(c.arch), E);
      CHECK(sum == el__weights_numel(&c), "specs %s E=%d: numel %zu == el__weights_numel %zu",
            el_arch_name(c.arch), E, sum, el__weights_numel(&c));
      CHECK((find_spec(specs, n, "electra.embeddings_project.weight") != NULL) == (E != 16),
            "specs %s E=%d: embeddings_project only when E != H", el_arch_name(c.arch), E);
    }
  el_config c = small_config(EL_ARCH_MASKED_LM, 8);
  el__tensor_specs(&c, &w, specs, &n, &err);
  const el__tensor_spec *lm = find_spec(specs, n, "generator_lm_head.weight");
  const el__tensor_spec *gd = find_spec(specs, n, "generator_predictions.dense.weight");
  CHECK(lm && lm->optional && lm->shape[0] == 40 && lm->shape[1] == 8 && lm->slot == &w.lm_w,
        "mlm: generator_lm_head.weight optional [V, E] slot lm_w");
  CHECK(gd && gd->shape[0] == 8 && gd->shape[1] == 16, "mlm: generator_predictions.dense [E, H]");
  c = small_config(EL_ARCH_SEQ_CLS, 16);
  el__tensor_specs(&c, &w, specs, &n, &err);
  const el__tensor_spec *op = find_spec(specs, n, "classifier.out_proj.weight");
  CHECK(op && op->shape[0] == 3 && op->shape[1] == 16 && op->slot == &w.cls_out.w,
        "cls: classifier.out_proj.weight [num_labels, H]");
  c = small_config(EL_ARCH_TOKEN_CLS, 16);
  el__tensor_specs(&c, &w, specs, &n, &err);
  const el__tensor_spec *tw = find_spec(specs, n, "classifier.weight");
  const el__tensor_spec *tb = find_spec(specs, n, "classifier.bias");
  CHECK(tw && tw->shape[0] == 3 && tw->shape[1] == 16 && tw->slot == &w.tok_cls.w && tb &&
            tb->ndim == 1 && tb->shape[0] == 3 && tb->slot == &w.tok_cls.b &&
            !find_spec(specs, n, "classifier.dense.weight"),
        "token cls: classifier.weight [num_labels, H] and classifier.bias, no dense layer");
  c = small_config(EL_ARCH_SEQ_CLS, 16);
  el__tensor_specs(&c, &w, specs, &n, &err);
  const el__tensor_spec *q = find_spec(specs, n, "electra.encoder.layer.1.attention.self.key.bias");
  CHECK(q && q->ndim == 1 && q->shape[0] == 16 && q->slot == &w.layer[1].k.b && q->depth == 2 &&
            q->no_decay,
        "layer 1 key bias: [H], slot, depth 2, no decay");

  /* el__weights_point: contiguous, in spec order, tied lm -> word. */
  c = small_config(EL_ARCH_MASKED_LM, 8);
  size_t total = el__weights_numel(&c);
  float *block = calloc(total, sizeof(float));
  int rc = el__weights_point(&c, &w, block, &err);
  el__tensor_specs(&c, &w, specs, &n, &err);
  size_t at = 0;
  int contiguous = 1;
  for (int i = 0; i < n; i++) {
    if (specs[i].optional) continue;
    if (*specs[i].slot != block + at) contiguous = 0;
    at += (size_t)specs[i].shape[0] * (size_t)(specs[i].ndim == 2 ? specs[i].shape[1] : 1);
  }
  CHECK(rc == 0 && contiguous && at == total, "el__weights_point: spec order, contiguous");
  CHECK(w.lm_w == w.word && w.project.w != NULL && w.qa.w == NULL,
        "el__weights_point: tied lm_w == word; other heads NULL");
  free(block);
}

/* ---- config checks ---------------------------------------------------- */

static void expect_check(el_config c, int code, const char *field, const char *what) {
  el_error err = {0};
  int rc = el__config_check(&c, "cfg.json", &err);
  CHECK(rc == code && has(err.msg, field) && has(err.msg, "cfg.json"),
        "config_check %s -> %s naming %s", what, el_status_name(code), field);
  if (rc != code || !has(err.msg, field)) printf("#   got %s: %s\n", el_status_name(rc), err.msg);
}

static void test_config_check(void) {
  el_config ok = small_config(EL_ARCH_SEQ_CLS, 8), c;
  el_error err = {0};
  CHECK(el__config_check(&ok, "cfg.json", &err) == 0, "config_check accepts a valid config");
#define BAD(field, member, value, code)     \
  c = ok;                                   \
  c.member = value;                         \
  expect_check(c, code, field, field " = " #value)
  BAD("vocab_size", vocab_size, 0, EL_ESHAPE);
  BAD("vocab_size", vocab_size, -5, EL_ESHAPE);
  BAD("embedding_size", embedding_size, 0, EL_ESHAPE);
  BAD("hidden_size", hidden_size, -16, EL_ESHAPE);
  BAD("num_hidden_layers", num_layers, 0, EL_ESHAPE);
  BAD("num_hidden_layers", num_layers, EL_MAX_LAYERS + 1, EL_ESHAPE);
  BAD("num_attention_heads", num_heads, 0, EL_ESHAPE);
  BAD("num_attention_heads", num_heads, 3, EL_ESHAPE); /* 16 % 3 != 0 */
  BAD("intermediate_size", intermediate_size, -1, EL_ESHAPE);
  BAD("max_position_embeddings", max_position_embeddings, 0, EL_ESHAPE);
  BAD("type_vocab_size", type_vocab_size, 0, EL_ESHAPE);
  BAD("pad_token_id", pad_token_id, 40, EL_ESHAPE);
  BAD("layer_norm_eps", layer_norm_eps, 0.0f, EL_ESHAPE);
  BAD("hidden_dropout_prob", hidden_dropout_prob, 1.5f, EL_ESHAPE);
  BAD("num_labels", num_labels, 0, EL_ESHAPE);
  BAD("regression", regression, 1, EL_ESHAPE); /* with 3 labels */
  BAD("architecture", arch, (el_arch)9, EL_EUNSUPPORTED);
  BAD("score_aggregation", score_rule, (el_score_rule)3, EL_EVALUE);
  c = ok;
  c.has_score_threshold = 1;
  c.score_threshold = 1.5f;
  expect_check(c, EL_EVALUE, "score_threshold", "score_threshold 1.5");
  c.score_threshold = NAN;
  expect_check(c, EL_EVALUE, "score_threshold", "score_threshold NaN");
  c.has_score_threshold = 0; /* an unset threshold is never looked at */
  CHECK(el__config_check(&c, "cfg.json", &err) == 0,
        "config_check ignores an unset score_threshold");
  c = small_config(EL_ARCH_TOKEN_CLS, 8);
  c.num_labels = 0;
  expect_check(c, EL_ESHAPE, "num_labels", "token cls num_labels 0");
#undef BAD
  c = ok;
  c.hidden_size = 15;
  c.num_heads = 2;
  expect_check(c, EL_ESHAPE, "hidden_size 15 is not divisible by num_attention_heads 2",
               "hidden 15 heads 2");
  c = small_config(EL_ARCH_QA, 16);
  CHECK(el__config_check(&c, "x", &err) == 0, "config_check: QA needs no num_labels");
}

/* ---- config.json ------------------------------------------------------ */

static int load_cfg_text(const char *json, const char *tok_json, el_config *c, el_error *err) {
  char dir[300], p[400];
  snprintf(dir, sizeof dir, "%s/cfg", g_tmp);
  rm_rf(dir);
  mkdir(dir, 0755);
  snprintf(p, sizeof p, "%s/config.json", dir);
  if (json) write_text(p, json);
  snprintf(p, sizeof p, "%s/tokenizer_config.json", dir);
  if (tok_json) write_text(p, tok_json);
  return el__config_load(dir, c, err);
}

static void expect_cfg(const char *json, int code, const char *s1, const char *s2,
                       const char *what) {
  el_config c;
  el_error err = {0};
  int rc = load_cfg_text(json, NULL, &c, &err);
  int ok = rc == code && has(err.msg, s1) && (!s2 || has(err.msg, s2)) &&
           has(err.msg, "config.json");
  CHECK(ok, "config.json %s -> %s", what, el_status_name(code));
  if (!ok) printf("#   got %s: %s\n", el_status_name(rc), err.msg);
  if (rc == 0) el__config_free(&c);
}

#define ARCH_PT "\"architectures\": [\"ElectraForPreTraining\"]"

/* Both score settings survive write -> load exactly, and the defaults stay
 * out of the file (a discriminator's config.json reads as HF writes it). */
static void test_score_settings_round_trip(const char *dir) {
  el_config c;
  el_error err = {0};
  char path[400], *text = NULL;
  size_t len = 0;
  snprintf(path, sizeof path, "%s/config.json", dir);
  const float ths[] = {0.0f, 0.37f, 0.1f + 0.2f, 1.0f};
  for (int r = 0; r < 3; r++)
    for (int k = 0; k < 4; k++) {
      el_config w = small_config(r == 1 ? EL_ARCH_TOKEN_CLS : EL_ARCH_PRETRAINING, 8);
      char *names[3] = {"C", "I", "X"};
      if (w.arch == EL_ARCH_TOKEN_CLS) w.id2label = names;
      w.score_rule = (el_score_rule)r;
      w.has_score_threshold = 1;
      w.score_threshold = ths[k];
      int rc = el__config_write(dir, &w, &err);
      memset(&c, 0, sizeof c);
      int rc2 = rc ? rc : el__config_load(dir, &c, &err);
      CHECK(rc2 == 0 && c.has_score_threshold && c.score_threshold == ths[k] &&
                c.score_rule == w.score_rule && c.arch == w.arch &&
                (w.arch != EL_ARCH_TOKEN_CLS || (c.num_labels == 3 && !strcmp(c.id2label[1], "I"))),
            "round trip %s, rule %s, score_threshold %.9g: bit-exact", el_arch_name(w.arch),
            el_score_rule_name(w.score_rule), (double)ths[k]);
      if (rc2) printf("#   %s\n", err.msg);
      if (!rc2) el__config_free(&c);
    }
  el_config w = small_config(EL_ARCH_PRETRAINING, 8);
  int rc = el__config_write(dir, &w, &err);
  rc = rc ? rc : el__read_file(path, 1 << 20, &text, &len, &err);
  CHECK(rc == 0 && !has(text, "score_threshold") && !has(text, "score_aggregation"),
        "defaults (no threshold, rule max) are not written");
  free(text);
  memset(&c, 0, sizeof c);
  rc = el__config_load(dir, &c, &err);
  CHECK(rc == 0 && !c.has_score_threshold && c.score_rule == EL_SCORE_MAX,
        "defaults round trip as defaults");
  if (!rc) el__config_free(&c);
  w.has_score_threshold = 1;
  w.score_threshold = 2.0f;
  rc = el__config_write(dir, &w, &err);
  CHECK(rc == EL_EVALUE && has(err.msg, "score_threshold"), "writing score_threshold 2 refused");
  w.has_score_threshold = 0;
  w.score_rule = (el_score_rule)7;
  rc = el__config_write(dir, &w, &err);
  CHECK(rc == EL_EVALUE && has(err.msg, "score_aggregation"), "writing an unknown rule refused");
}

static void test_config_json(void) {
  el_config c;
  el_error err = {0};
  int rc = load_cfg_text("{" ARCH_PT "}", NULL, &c, &err);
  CHECK(rc == 0 && c.arch == EL_ARCH_PRETRAINING && c.vocab_size == 30522 &&
            c.embedding_size == 128 && c.hidden_size == 256 && c.num_layers == 12 &&
            c.num_heads == 4 && c.intermediate_size == 1024 && c.max_position_embeddings == 512 &&
            c.type_vocab_size == 2 && c.layer_norm_eps == 1e-12f &&
            c.initializer_range == 0.02f && c.hidden_dropout_prob == 0.1f &&
            c.attention_probs_dropout_prob == 0.1f && c.pad_token_id == 0 &&
            c.do_lower_case == 1 && c.num_labels == 0 && c.id2label == NULL,
        "config.json with only architectures: HF ElectraConfig defaults, do_lower_case 1");
  if (rc) printf("#   %s\n", err.msg);
  if (!rc) el__config_free(&c);

  rc = load_cfg_text("{\"architectures\":[\"ElectraForSequenceClassification\"],"
                     "\"id2label\":{\"2\":\"neutral\",\"0\":\"neg\",\"1\":\"pos\"}}",
                     "{\"do_lower_case\": false}", &c, &err);
  CHECK(rc == 0 && c.arch == EL_ARCH_SEQ_CLS && c.num_labels == 3 && !c.regression &&
            strcmp(c.id2label[0], "neg") == 0 && strcmp(c.id2label[2], "neutral") == 0 &&
            c.do_lower_case == 0,
        "cls: id2label order from keys, num_labels 3, do_lower_case false");
  if (!rc) {
    el_config d;
    CHECK(el__config_copy(&d, &c, &err) == 0 && d.id2label != c.id2label &&
              strcmp(d.id2label[1], "pos") == 0,
          "el__config_copy duplicates id2label");
    el__config_free(&d);
    el__config_free(&c);
  }
  rc = load_cfg_text("{\"architectures\":[\"ElectraForSequenceClassification\"],"
                     "\"num_labels\":4}", NULL, &c, &err);
  CHECK(rc == 0 && c.num_labels == 4 && strcmp(c.id2label[3], "LABEL_3") == 0,
        "cls: num_labels without id2label fills LABEL_i");
  if (!rc) el__config_free(&c);
  rc = load_cfg_text("{\"architectures\":[\"ElectraForSequenceClassification\"],"
                     "\"id2label\":{\"0\":\"score\"},\"problem_type\":\"regression\"}",
                     NULL, &c, &err);
  CHECK(rc == 0 && c.num_labels == 1 && c.regression, "cls: problem_type regression");
  if (!rc) el__config_free(&c);
  rc = load_cfg_text("{\"architectures\":[\"ElectraForSequenceClassification\"],"
                     "\"num_labels\":1}", NULL, &c, &err);
  CHECK(rc == 0 && c.regression, "cls: one label is regression (HF rule)");
  if (!rc) el__config_free(&c);
  rc = load_cfg_text("{\"architectures\":[\"ElectraForTokenClassification\"],"
                     "\"id2label\":{\"1\":\"INCORRECT\",\"0\":\"CORRECT\"},"
                     "\"problem_type\":\"regression\"}", NULL, &c, &err);
  CHECK(rc == 0 && c.arch == EL_ARCH_TOKEN_CLS && c.num_labels == 2 && !c.regression &&
            strcmp(c.id2label[0], "CORRECT") == 0 && strcmp(c.id2label[1], "INCORRECT") == 0,
        "token cls: id2label by key, problem_type ignored (HF token heads use cross-entropy)");
  if (!rc) el__config_free(&c);
  rc = load_cfg_text("{\"architectures\":[\"ElectraForTokenClassification\"]}", NULL, &c, &err);
  CHECK(rc == 0 && c.num_labels == 2 && strcmp(c.id2label[1], "LABEL_1") == 0,
        "token cls: no labels given -> HF's 2, LABEL_i");
  if (!rc) el__config_free(&c);
  rc = load_cfg_text("{" ARCH_PT "}", NULL, &c, &err);
  CHECK(rc == 0 && !c.has_score_threshold && c.score_rule == EL_SCORE_MAX,
        "score settings absent: no threshold, rule max");
  if (!rc) el__config_free(&c);
  rc = load_cfg_text("{" ARCH_PT ",\"score_threshold\":0.37,\"score_aggregation\":\"first\"}",
                     NULL, &c, &err);
  CHECK(rc == 0 && c.has_score_threshold && c.score_threshold == 0.37f &&
            c.score_rule == EL_SCORE_FIRST,
        "score_threshold 0.37 and score_aggregation first read");
  if (!rc) el__config_free(&c);
  rc = load_cfg_text("{" ARCH_PT ",\"score_threshold\":null,\"score_aggregation\":\"mean\"}",
                     NULL, &c, &err);
  CHECK(rc == 0 && !c.has_score_threshold && c.score_rule == EL_SCORE_MEAN,
        "score_threshold null is absent (HF writes None as null); mean read");
  if (!rc) el__config_free(&c);
  rc = load_cfg_text("{" ARCH_PT ",\"score_threshold\":0,\"score_aggregation\":\"max\"}", NULL,
                     &c, &err);
  CHECK(rc == 0 && c.has_score_threshold && c.score_threshold == 0.0f &&
            c.score_rule == EL_SCORE_MAX,
        "score_threshold 0 (an end of the range) accepted");
  if (!rc) el__config_free(&c);
  rc = load_cfg_text("{\"architectures\":[\"ElectraForQuestionAnswering\"],"
                     "\"electra_null_threshold\": -1.5}", NULL, &c, &err);
  CHECK(rc == 0 && c.arch == EL_ARCH_QA && c.has_null_threshold && c.null_threshold == -1.5f,
        "qa: electra_null_threshold");
  if (!rc) el__config_free(&c);

  expect_cfg(NULL, EL_EIO, "No such file", NULL, "missing");
  expect_cfg("{" ARCH_PT ", \"hidden_size\": }", EL_EFORMAT, "invalid JSON", NULL, "bad JSON");
  expect_cfg("{" ARCH_PT "} x", EL_EFORMAT, "unexpected data", NULL, "trailing garbage");
  expect_cfg("[1]", EL_EFORMAT, "not a JSON object", NULL, "array");
  expect_cfg("{\"hidden_size\": 8}", EL_EFORMAT, "architectures", NULL, "no architectures");
  expect_cfg("{\"architectures\":[\"ElectraForMultipleChoice\"]}", EL_EUNSUPPORTED,
             "ElectraForMultipleChoice", "ElectraForTokenClassification", "unknown architecture");
  expect_cfg("{\"architectures\":[\"ElectraForPreTraining\"],\"model_type\":\"bert\"}",
             EL_EUNSUPPORTED, "model_type", "bert", "model_type bert");
  expect_cfg("{" ARCH_PT ",\"hidden_size\":\"256\"}", EL_EFORMAT, "hidden_size", NULL,
             "string hidden_size");
  expect_cfg("{" ARCH_PT ",\"hidden_size\":25.5}", EL_EFORMAT, "hidden_size", NULL,
             "fractional hidden_size");
  expect_cfg("{" ARCH_PT ",\"hidden_size\":0}", EL_ESHAPE, "hidden_size", "found 0",
             "hidden_size 0");
  expect_cfg("{" ARCH_PT ",\"num_hidden_layers\":-2}", EL_ESHAPE, "num_hidden_layers",
             "found -2", "negative layers");
  expect_cfg("{" ARCH_PT ",\"vocab_size\":-1}", EL_ESHAPE, "vocab_size", "found -1",
             "negative vocab");
  expect_cfg("{" ARCH_PT ",\"hidden_size\":250}", EL_ESHAPE, "not divisible",
             "num_attention_heads 4", "hidden 250 heads 4");
  expect_cfg("{" ARCH_PT ",\"hidden_act\":\"gelu_new\"}", EL_EUNSUPPORTED, "hidden_act",
             "gelu_new", "hidden_act gelu_new");
  expect_cfg("{" ARCH_PT ",\"position_embedding_type\":\"relative_key\"}", EL_EUNSUPPORTED,
             "position_embedding_type", NULL, "relative positions");
  expect_cfg("{\"architectures\":[\"ElectraForMaskedLM\"],\"tie_word_embeddings\":false}",
             EL_EUNSUPPORTED, "tie_word_embeddings", NULL, "untied generator");
  expect_cfg("{\"architectures\":[\"ElectraForSequenceClassification\"],\"num_labels\":3,"
             "\"id2label\":{\"0\":\"a\",\"1\":\"b\"}}",
             EL_ESHAPE, "num_labels is 3", "2 entries", "num_labels vs id2label");
  expect_cfg("{\"architectures\":[\"ElectraForSequenceClassification\"],"
             "\"id2label\":{\"0\":\"a\",\"x\":\"b\"}}",
             EL_EFORMAT, "id2label key \"x\"", NULL, "bad id2label key");
  expect_cfg("{\"architectures\":[\"ElectraForSequenceClassification\"],"
             "\"id2label\":{\"0\":\"a\",\"5\":\"b\"}}",
             EL_EFORMAT, "id2label key \"5\"", NULL, "id2label key out of range");
  expect_cfg("{\"architectures\":[\"ElectraForSequenceClassification\"],\"num_labels\":0}",
             EL_ESHAPE, "num_labels", NULL, "zero labels");
  expect_cfg("{\"architectures\":[\"ElectraForSequenceClassification\"],\"num_labels\":-1}",
             EL_ESHAPE, "num_labels", "found -1", "negative labels");
  expect_cfg("{\"architectures\":[\"ElectraForSequenceClassification\"],"
             "\"problem_type\":\"multi_label_classification\"}",
             EL_EUNSUPPORTED, "multi_label_classification", NULL, "multi-label");
  expect_cfg("{\"architectures\":[\"ElectraForQuestionAnswering\"],\"num_labels\":3}",
             EL_EUNSUPPORTED, "2 labels", NULL, "qa with 3 labels");
  expect_cfg("{\"architectures\":[\"ElectraForTokenClassification\"],\"num_labels\":0}",
             EL_ESHAPE, "num_labels", NULL, "token cls with zero labels");
  expect_cfg("{\"architectures\":[\"ElectraForTokenClassification\"],\"num_labels\":3,"
             "\"id2label\":{\"0\":\"C\",\"1\":\"I\"}}",
             EL_ESHAPE, "num_labels is 3", "2 entries", "token cls num_labels vs id2label");
  expect_cfg("{\"architectures\":[\"ElectraForTokenClassification\"],"
             "\"id2label\":{\"0\":\"C\",\"1\":7}}",
             EL_EFORMAT, "id2label \"1\" must be a string", NULL, "token cls label not a string");
  expect_cfg("{" ARCH_PT ",\"score_threshold\":1.5}", EL_EFORMAT, "\"score_threshold\"",
             "[0, 1]", "score_threshold 1.5");
  expect_cfg("{" ARCH_PT ",\"score_threshold\":-0.01}", EL_EFORMAT, "\"score_threshold\"",
             "[0, 1]", "score_threshold -0.01");
  expect_cfg("{" ARCH_PT ",\"score_threshold\":\"0.5\"}", EL_EFORMAT, "\"score_threshold\"",
             NULL, "score_threshold as a string");
  expect_cfg("{" ARCH_PT ",\"score_threshold\":true}", EL_EFORMAT, "\"score_threshold\"", NULL,
             "score_threshold true");
  expect_cfg("{" ARCH_PT ",\"score_aggregation\":\"average\"}", EL_EFORMAT,
             "\"score_aggregation\"", "average", "score_aggregation average");
  expect_cfg("{" ARCH_PT ",\"score_aggregation\":\"MAX\"}", EL_EFORMAT, "\"score_aggregation\"",
             "\"max\"", "score_aggregation MAX (names are lower case)");
  expect_cfg("{" ARCH_PT ",\"score_aggregation\":1}", EL_EFORMAT, "\"score_aggregation\"",
             "string", "score_aggregation as a number");

  rc = load_cfg_text("{" ARCH_PT "}", "{\"do_lower_case\": 1}", &c, &err);
  CHECK(rc == EL_EFORMAT && has(err.msg, "tokenizer_config.json") &&
            has(err.msg, "do_lower_case"),
        "tokenizer_config.json: do_lower_case must be a boolean");
  rc = load_cfg_text("{" ARCH_PT "}", "{\"do_lower_case\": tru", &c, &err);
  CHECK(rc == EL_EFORMAT && has(err.msg, "tokenizer_config.json"),
        "tokenizer_config.json: bad JSON refused");
  rc = load_cfg_text("{" ARCH_PT "}", "{\"model_max_length\": 512}", &c, &err);
  CHECK(rc == 0 && c.do_lower_case == 1, "tokenizer_config.json without do_lower_case: 1");
  if (!rc) el__config_free(&c);

  /* el__config_write -> el__config_load keeps every field. */
  char dir[300];
  snprintf(dir, sizeof dir, "%s/cfgw", g_tmp);
  mkdir(dir, 0755);
  el_config w = small_config(EL_ARCH_SEQ_CLS, 8);
  char *names[3] = {"neg", "pos", "n\"e\\ut"};
  w.id2label = names;
  w.do_lower_case = 0;
  w.hidden_dropout_prob = 0.3f;
  rc = el__config_write(dir, &w, &err);
  memset(&c, 0, sizeof c);
  int rc2 = rc ? rc : el__config_load(dir, &c, &err);
  CHECK(rc == 0 && rc2 == 0 && c.arch == w.arch && c.vocab_size == 40 &&
            c.embedding_size == 8 && c.hidden_size == 16 && c.num_layers == 2 &&
            c.intermediate_size == 24 && c.max_position_embeddings == 20 &&
            c.hidden_dropout_prob == 0.3f && c.layer_norm_eps == 1e-12f && c.num_labels == 3 &&
            strcmp(c.id2label[2], "n\"e\\ut") == 0 && c.do_lower_case == 0,
        "el__config_write -> el__config_load round trip (cls, escaped label, cased)");
  if (rc2) printf("#   %s\n", err.msg);
  if (!rc2) el__config_free(&c);
  el_config q = small_config(EL_ARCH_QA, 16);
  q.has_null_threshold = 1;
  q.null_threshold = 0.25f;
  rc = el__config_write(dir, &q, &err);
  rc2 = rc ? rc : el__config_load(dir, &c, &err);
  CHECK(rc2 == 0 && c.arch == EL_ARCH_QA && c.has_null_threshold && c.null_threshold == 0.25f,
        "el__config_write -> load: QA null threshold");
  if (!rc2) el__config_free(&c);
  test_score_settings_round_trip(dir);
}

/* ---- safetensors ------------------------------------------------------ */

/* 8-byte length + header + data_len bytes (zeros); len_override >= 0
 * replaces the length prefix. Caller frees. */
static unsigned char *mk_st(const char *header, size_t data_len, long long len_override,
                            size_t *out_len) {
  size_t h = strlen(header), n = 8 + h + data_len;
  unsigned char *b = calloc(1, n);
  uint64_t L = len_override >= 0 ? (uint64_t)len_override : h;
  for (int i = 0; i < 8; i++) b[i] = (unsigned char)(L >> (8 * i));
  memcpy(b + 8, header, h);
  *out_len = n;
  return b;
}

static void expect_st(const char *header, size_t data_len, long long len_override, int code,
                      const char *s1, const char *s2, const char *what) {
  size_t n;
  unsigned char *b = mk_st(header, data_len, len_override, &n);
  el_st_file f;
  el_error err = {0};
  int rc = el__st_parse("m.safetensors", b, n, &f, &err);
  int ok = rc == code && (!s1 || has(err.msg, s1)) && (!s2 || has(err.msg, s2)) &&
           (code == 0 || has(err.msg, "m.safetensors"));
  CHECK(ok, "safetensors %s -> %s", what, el_status_name(code));
  if (!ok) printf("#   got %s: %s\n", el_status_name(rc), err.msg);
  if (rc == 0) el__st_free(&f);
  free(b);
}

#define T_A "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}"

static void test_safetensors(void) {
  size_t n;
  unsigned char *b = mk_st("{\"__metadata__\":{\"format\":\"pt\"},"
                           "\"w\":{\"dtype\":\"BF16\",\"shape\":[2,3],\"data_offsets\":[8,20]},"
                           T_A "}   ", 20, -1, &n);
  el_st_file f;
  el_error err = {0};
  int rc = el__st_parse("m.safetensors", b, n, &f, &err);
  CHECK(rc == 0 && f.n == 2 && strcmp(f.t[0].name, "a") == 0 && f.t[1].dtype == EL_ST_BF16 &&
            f.t[1].ndim == 2 && f.t[1].shape[1] == 3 && f.t[1].numel == 6 && f.data_len == 20 &&
            el__st_find(&f, "w") == &f.t[1] && el__st_find(&f, "x") == NULL,
        "safetensors: valid file parsed, sorted by offset, padding spaces accepted");
  if (rc) printf("#   %s\n", err.msg);
  if (!rc) el__st_free(&f);
  free(b);
  expect_st("{}", 0, -1, 0, NULL, NULL, "empty header");
  expect_st("{\"s\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]}}", 4, -1, 0, NULL,
            NULL, "scalar tensor");

  /* truncated / length prefix */
  b = mk_st("{}", 0, -1, &n);
  rc = el__st_parse("m.safetensors", b, 5, &f, &err);
  CHECK(rc == EL_EFORMAT && has(err.msg, "shorter than the 8-byte"), "safetensors: 5-byte file");
  free(b);
  expect_st("{" T_A "}", 8, 4000, EL_EFORMAT, "header length 4000", "past the end",
            "header length past the end");
  expect_st("{" T_A "}", 8, (long long)1 << 62, EL_EFORMAT, "past the end", NULL,
            "header length 2^62");
  expect_st("{" T_A "}", 4, -1, EL_EFORMAT, "\"a\"", "outside the data section",
            "truncated data");
  expect_st("{}", 0, 0, EL_EFORMAT, "not a JSON object", NULL, "header length 0");
  /* header JSON */
  expect_st("{\"a\":{\"dtype\":\"F32\",", 0, -1, EL_EFORMAT, "invalid JSON", NULL,
            "cut JSON header");
  expect_st("[1,2]", 0, -1, EL_EFORMAT, "not a JSON object", NULL, "array header");
  expect_st("{" T_A "}xyz", 8, -1, EL_EFORMAT, "unexpected bytes", NULL, "junk after header");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}\0}", 8, -1,
            EL_EFORMAT, NULL, NULL, "NUL inside header");
  expect_st("{\"a\":5}", 0, -1, EL_EFORMAT, "\"a\"", "not an object", "entry not an object");
  expect_st("{\"__metadata__\":3}", 0, -1, EL_EFORMAT, "__metadata__", NULL, "metadata number");
  /* dtypes */
  expect_st("{\"a\":{\"dtype\":\"F99\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, -1,
            EL_EFORMAT, "\"a\"", "F99", "unknown dtype F99");
  expect_st("{\"a\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]}}", 8, -1,
            EL_EUNSUPPORTED, "\"a\"", "F64", "dtype F64");
  expect_st("{\"a\":{\"dtype\":7,\"shape\":[1],\"data_offsets\":[0,4]}}", 4, -1, EL_EFORMAT,
            "dtype", NULL, "numeric dtype");
  /* shapes and offsets */
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8, -1,
            EL_EFORMAT, "\"a\"", "needs 12 bytes", "shape vs byte count");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}", 8, -1,
            EL_EFORMAT, "shape[0]", NULL, "negative dimension");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,8]}}", 8, -1,
            EL_EFORMAT, "shape[0]", NULL, "fractional dimension");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,4294967296],"
            "\"data_offsets\":[0,0]}}", 0, -1, EL_EFORMAT, "overflows", NULL,
            "shape product overflow");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}",
            4, -1, EL_EFORMAT, "dimensions", NULL, "9 dimensions");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0]}}", 8, -1,
            EL_EFORMAT, "data_offsets", NULL, "one offset");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,0]}}", 8, -1,
            EL_EFORMAT, "end before", NULL, "offsets reversed");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,1e300]}}", 8, -1,
            EL_EFORMAT, "data_offsets", NULL, "offset 1e300");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[18446744073709551608,"
            "18446744073709551616]}}", 8, -1, EL_EFORMAT, "data_offsets", NULL,
            "offsets near 2^64");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4096,4104]}}", 8, -1,
            EL_EFORMAT, "outside", "4096", "offsets outside the data");
  expect_st("{" T_A ",\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12, -1,
            EL_EFORMAT, "overlap", "\"b\"", "overlapping tensors");
  expect_st("{" T_A ",\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, -1,
            EL_EFORMAT, "overlap", NULL, "two tensors on the same bytes");
  expect_st("{" T_A "," T_A "}", 8, -1, EL_EFORMAT, "\"a\" appears twice", NULL,
            "duplicate name");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
            "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}", 12, -1,
            EL_EFORMAT, "belong to no tensor", "\"b\"", "hole between tensors");
  expect_st("{" T_A "}", 12, -1, EL_EFORMAT, "4 bytes after the last tensor", NULL,
            "trailing bytes");
}

static void test_half(void) {
  CHECK(el__f16_to_f32(0x3c00) == 1.0f && el__f16_to_f32(0xc000) == -2.0f &&
            el__f16_to_f32(0x7bff) == 65504.0f && el__f16_to_f32(0x3555) == 0x1.554p-2f &&
            el__f16_to_f32(0x0001) == 0x1p-24f && el__f16_to_f32(0x03ff) == 0x1.ff8p-15f &&
            el__f16_to_f32(0x0400) == 0x1p-14f,
        "f16 -> f32: normal, max, subnormal values exact");
  float inf = el__f16_to_f32(0x7c00), nan = el__f16_to_f32(0x7e00), nz = el__f16_to_f32(0x8000);
  CHECK(isinf(inf) && inf > 0 && isnan(nan) && nz == 0.0f && signbit(nz),
        "f16 -> f32: inf, nan, -0");
  CHECK(el__bf16_to_f32(0x3f80) == 1.0f && el__bf16_to_f32(0xc0a0) == -5.0f &&
            el__bf16_to_f32(0x0001) == 0x1p-133f && isnan(el__bf16_to_f32(0x7fc0)),
        "bf16 -> f32 exact");
}

/* ---- save / load round trip (C-made weights) -------------------------- */

static void test_roundtrip_c(void) {
  char vocab[300], dir[300];
  snprintf(vocab, sizeof vocab, "%s/vocab40.txt", g_tmp);
  write_vocab(vocab, 40);
  for (int a = 0; a < EL_ARCH_COUNT; a++)
    for (int E = 8; E <= 16; E += 8) {
      el_config c = small_config((el_arch)a, E);
      char *names[3] = {"x", "y", "z"};
      if (a == EL_ARCH_SEQ_CLS || a == EL_ARCH_TOKEN_CLS) c.id2label = names;
      size_t total = el__weights_numel(&c);
      float *block = malloc(total * sizeof(float));
      for (size_t i = 0; i < total; i++) block[i] = frand();
      el__weights w;
      el_error err = {0};
      el__weights_point(&c, &w, block, &err);
      snprintf(dir, sizeof dir, "%s/rt-%d-%d", g_tmp, a, E);
      int rc = el__checkpoint_save(dir, &c, &w, vocab, &err);
      el_model *m = NULL;
      int rc2 = rc ? rc : el_model_load(dir, &m, &err);
      int same = 0;
      if (!rc2) {
        el_model ref = {0};
        ref.cfg = c;
        ref.w = w;
        same = compare_models(&ref, m) == 0;
      }
      CHECK(rc == 0 && rc2 == 0 && same, "C round trip %s E=%d: save, load, every tensor equal",
            el_arch_name(c.arch), E);
      if (rc || rc2) printf("#   %s\n", err.msg);
      if (m) {
        const el_config *mc = el_model_config(m);
        CHECK(mc->arch == c.arch && mc->num_labels == c.num_labels &&
                  el_model_num_parameters(m) == total &&
                  el_model_weight_bytes(m) == total * sizeof(float) &&
                  (a != EL_ARCH_MASKED_LM || m->w.lm_w == m->w.word) &&
                  ((a != EL_ARCH_SEQ_CLS && a != EL_ARCH_TOKEN_CLS) ||
                   strcmp(mc->id2label[2], "z") == 0) &&
                  el_tokenizer_vocab_size(el_model_tokenizer(m)) == 40,
              "C round trip %s E=%d: config, parameter count, tied head, vocab",
              el_arch_name(c.arch), E);
      }
      el_model_free(m);
      free(block);
    }
}

static void test_save_errors(void) {
  char vocab[300], dir[300], p[400];
  el_error err = {0};
  snprintf(vocab, sizeof vocab, "%s/vocab40.txt", g_tmp);
  el_config c = small_config(EL_ARCH_PRETRAINING, 8);
  size_t total = el__weights_numel(&c);
  float *block = malloc(total * sizeof(float));
  for (size_t i = 0; i < total; i++) block[i] = frand();
  el__weights w;
  el__weights_point(&c, &w, block, &err);

  /* Replacing an existing checkpoint: new content, stray files gone, no temporaries. */
  snprintf(dir, sizeof dir, "%s/replace", g_tmp);
  int rc = el__checkpoint_save(dir, &c, &w, vocab, &err);
  snprintf(p, sizeof p, "%s/stray.txt", dir);
  write_text(p, "old");
  block[0] = 123.0f;
  char slash[320];
  snprintf(slash, sizeof slash, "%s/", dir);
  int rc2 = el__checkpoint_save(slash, &c, &w, vocab, &err);
  el_model *m = NULL;
  int rc3 = el_model_load(dir, &m, &err);
  CHECK(rc == 0 && rc2 == 0 && rc3 == 0 && m && m->w.word[0] == 123.0f && !path_exists(p) &&
            count_prefix(g_tmp, "replace.") == 0,
        "el__checkpoint_save replaces an existing directory (trailing slash), no temporaries");
  if (rc || rc2 || rc3) printf("#   %s\n", err.msg);
  el_model_free(m);

  /* Saving a loaded model over the directory it was read from, as a trainer
   * keeping its best checkpoint does. */
  m = NULL;
  el_model *m2 = NULL;
  char own_vocab[400];
  snprintf(own_vocab, sizeof own_vocab, "%s/vocab.txt", dir);
  rc = el_model_load(dir, &m, &err);
  rc2 = rc ? rc : el__checkpoint_save(dir, &m->cfg, &m->w, own_vocab, &err);
  rc3 = rc2 ? rc2 : el_model_load(dir, &m2, &err);
  CHECK(rc3 == 0 && compare_models(m, m2) == 0,
        "save a loaded model over its own directory, reload: identical");
  if (rc3) printf("#   %s\n", err.msg);
  el_model_free(m);
  el_model_free(m2);

  /* Failures leave nothing behind and the old checkpoint intact. */
  snprintf(p, sizeof p, "%s/no-such-vocab.txt", g_tmp);
  rc = el__checkpoint_save(dir, &c, &w, p, &err);
  m = NULL;
  rc2 = el_model_load(dir, &m, &err);
  CHECK(rc == EL_EIO && has(err.msg, "no-such-vocab.txt") && rc2 == 0 && count_prefix(g_tmp, "replace.") == 0,
        "save with a missing vocab: EL_EIO, old checkpoint intact, temporary removed");
  el_model_free(m);
  snprintf(p, sizeof p, "%s/no/such/parent/ckpt", g_tmp);
  rc = el__checkpoint_save(p, &c, &w, vocab, &err);
  CHECK(rc == EL_EIO && has(err.msg, "no/such/parent/ckpt.tmp-"),
        "save under a missing parent: EL_EIO naming the path");
  float keep = block[5];
  block[5] = NAN;
  snprintf(p, sizeof p, "%s/nan", g_tmp);
  rc = el__checkpoint_save(p, &c, &w, vocab, &err);
  CHECK(rc == EL_EVALUE && has(err.msg, "electra.embeddings.word_embeddings.weight") &&
            has(err.msg, "index 5") && !path_exists(p) && count_prefix(g_tmp, "nan.") == 0,
        "save refuses NaN weights naming tensor and index; nothing left behind");
  block[5] = keep;
  el__weights w2 = w;
  w2.layer[1].v.b = NULL;
  rc = el__checkpoint_save(p, &c, &w2, vocab, &err);
  CHECK(rc == EL_EINVAL && has(err.msg, "electra.encoder.layer.1.attention.self.value.bias"),
        "save refuses weights with an unset tensor, naming it");
  snprintf(p, sizeof p, "%s/afile", g_tmp);
  write_text(p, "x");
  rc = el__checkpoint_save(p, &c, &w, vocab, &err);
  CHECK(rc == EL_EIO && has(err.msg, "not a directory"),
        "save over a regular file is refused");

  /* A full disk is EL_ENOSPC naming the file (/dev/full fails every write). */
  if (access("/dev/full", W_OK) == 0) {
    rc = el__write_file("/dev/full", "abc", 3, &err);
    CHECK(rc == EL_ENOSPC && has(err.msg, "/dev/full"), "write to a full device -> EL_ENOSPC");
    rc = el__safetensors_save("/dev/full", &c, &w, &err);
    CHECK(rc == EL_ENOSPC && has(err.msg, "/dev/full") && path_exists("/dev/full"),
          "safetensors save to a full device -> EL_ENOSPC, device not removed");
  } else {
    SKIP("/dev/full not writable");
  }
  free(block);
}

/* ---- model-level defects on a C-written checkpoint -------------------- */

static void test_load_errors(void) {
  char vocab[300], dir[300], p[400];
  el_error err = {0};
  el_model *m = NULL;
  snprintf(vocab, sizeof vocab, "%s/vocab40.txt", g_tmp);
  el_config c = small_config(EL_ARCH_QA, 16);
  size_t total = el__weights_numel(&c);
  float *block = malloc(total * sizeof(float));
  for (size_t i = 0; i < total; i++) block[i] = frand();
  el__weights w;
  el__weights_point(&c, &w, block, &err);
  snprintf(dir, sizeof dir, "%s/qa", g_tmp);
  el__checkpoint_save(dir, &c, &w, vocab, &err);

  snprintf(p, sizeof p, "%s/vocab.txt", dir);
  write_vocab(p, 39);
  int rc = el_model_load(dir, &m, &err);
  CHECK(rc == EL_ESHAPE && has(err.msg, "vocab.txt") && has(err.msg, "39") &&
            has(err.msg, "40") && m == NULL,
        "vocab.txt with 39 tokens for vocab_size 40 -> EL_ESHAPE naming both");
  if (rc != EL_ESHAPE) printf("#   %s\n", err.msg);
  unlink(p);
  rc = el_model_load(dir, &m, &err);
  CHECK(rc == EL_EIO && has(err.msg, "vocab.txt"), "missing vocab.txt -> EL_EIO naming it");
  write_vocab(p, 40);
  snprintf(p, sizeof p, "%s/model.safetensors", dir);
  unlink(p);
  rc = el_model_load(dir, &m, &err);
  CHECK(rc == EL_EIO && has(err.msg, "model.safetensors"),
        "missing model.safetensors -> EL_EIO naming it");
  snprintf(p, sizeof p, "%s/config.json", dir);
  unlink(p);
  rc = el_model_load(dir, &m, &err);
  CHECK(rc == EL_EIO && has(err.msg, "config.json"), "missing config.json -> EL_EIO naming it");
  rc = el_model_load("/nonexistent/dir", &m, &err);
  CHECK(rc == EL_EIO && has(err.msg, "/nonexistent/dir/config.json"),
        "missing directory -> EL_EIO");
  free(block);
}

int main(void) {
  snprintf(g_tmp, sizeof g_tmp, "/tmp/el-test-ckpt-XXXXXX");
  if (!mkdtemp(g_tmp)) {
    perror("mkdtemp");
    return 1;
  }
  test_specs();
  test_config_check();
  test_config_json();
  test_safetensors();
  test_half();
  test_roundtrip_c();
  test_save_errors();
  test_load_errors();
  rm_rf(g_tmp);
  return el_test_done();
}
