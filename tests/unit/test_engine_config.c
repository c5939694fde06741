/* config.json: el__config_check on every field's bounds, el__config_load of
 * hand-written files (defaults, HF keys, refusals naming file and key), and
 * el__config_write -> load round trips, including score_threshold and
 * score_aggregation. */
#include <errno.h>
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
#include "../test.h"
#include "checkpoint_util.h"

static char g_tmp[256];

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
            c.relative_positions == 0 &&
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
  /* a double beyond float's range: refused by name, never converted (UB in C) */
  expect_cfg("{" ARCH_PT ",\"layer_norm_eps\":1e300}", EL_EFORMAT, "layer_norm_eps",
             "range", "layer_norm_eps beyond float");
  expect_cfg("{" ARCH_PT ",\"hidden_dropout_prob\":-1e39}", EL_EFORMAT, "hidden_dropout_prob",
             "range", "dropout beyond float");
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
  expect_cfg("{" ARCH_PT ",\"position_embedding_type\":\"relative_key_query\"}", EL_EUNSUPPORTED,
             "position_embedding_type", "relative_key_query", "relative_key_query positions");
  expect_cfg("{" ARCH_PT ",\"position_embedding_type\":\"rotary\"}", EL_EUNSUPPORTED,
             "position_embedding_type", "\"absolute\" or \"relative_key\"", "unknown positions");
  expect_cfg("{" ARCH_PT ",\"position_embedding_type\":2}", EL_EFORMAT,
             "position_embedding_type", NULL, "positions not a string");
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
  w.relative_positions = 1;
  rc = el__config_write(dir, &w, &err);
  memset(&c, 0, sizeof c);
  int rc2 = rc ? rc : el__config_load(dir, &c, &err);
  CHECK(rc == 0 && rc2 == 0 && c.arch == w.arch && c.vocab_size == 40 &&
            c.embedding_size == 8 && c.hidden_size == 16 && c.num_layers == 2 &&
            c.intermediate_size == 24 && c.max_position_embeddings == 20 &&
            c.hidden_dropout_prob == 0.3f && c.layer_norm_eps == 1e-12f && c.num_labels == 3 &&
            strcmp(c.id2label[2], "n\"e\\ut") == 0 && c.do_lower_case == 0 &&
            c.relative_positions == 1,
        "el__config_write -> el__config_load round trip (cls, escaped label, cased, "
        "relative_key)");
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

int main(void) {
  snprintf(g_tmp, sizeof g_tmp, "/tmp/el-test-config-XXXXXX");
  if (!mkdtemp(g_tmp)) {
    perror("mkdtemp");
    return 1;
  }
  test_config_check();
  test_config_json();
  rm_rf(g_tmp);
  return el_test_done();
}
