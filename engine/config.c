/* config.json + tokenizer_config.json <-> el_config (docs/MODEL.md §10).
 * Absent fields take HF ElectraConfig defaults; present fields must have the
 * right JSON type. Only what the engine can run is accepted: erf GELU,
 * absolute or relative_key positions, an encoder (not a decoder), a tied generator head. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "config.h"
#include "fileio.h"
#include "jsonfile.h"
#include "weights.h"

#define MAX_JSON_BYTES (64u << 20) /* a config with 65536 labels is ~2 MB */

/* ---- reading ---------------------------------------------------------- */

typedef struct reader {
  const cJSON *root;
  const char *path;
  el_error *err;
} reader;

static const cJSON *field(const reader *r, const char *name) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->root, name);
  return (v && !cJSON_IsNull(v)) ? v : NULL;
}

static int get_int(const reader *r, const char *name, int def, int *out) {
  const cJSON *v = field(r, name);
  if (!v) {
    *out = def;
    return EL_OK;
  }
  double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
  if (!cJSON_IsNumber(v) || d != floor(d) || d < INT_MIN || d > INT_MAX)
    return el_error_set(r->err, EL_EFORMAT, "%s: field \"%s\" must be an integer", r->path,
                        name);
  *out = (int)d;
  return EL_OK;
}

static int get_float(const reader *r, const char *name, float def, float *out) {
  const cJSON *v = field(r, name);
  if (!v) {
    *out = def;
    return EL_OK;
  }
  if (!cJSON_IsNumber(v))
    return el_error_set(r->err, EL_EFORMAT, "%s: field \"%s\" must be a number", r->path, name);
  /* converting a double beyond float's range is undefined behaviour in C */
  if (!(fabs(v->valuedouble) <= FLT_MAX))
    return el_error_set(r->err, EL_EFORMAT, "%s: field \"%s\" is out of range for a float (%g)",
                        r->path, name, v->valuedouble);
  *out = (float)v->valuedouble;
  return EL_OK;
}

/* *out is borrowed from the JSON tree (def when absent). */
static int get_string(const reader *r, const char *name, const char *def, const char **out) {
  const cJSON *v = field(r, name);
  if (!v) {
    *out = def;
    return EL_OK;
  }
  if (!cJSON_IsString(v) || !v->valuestring)
    return el_error_set(r->err, EL_EFORMAT, "%s: field \"%s\" must be a string", r->path, name);
  *out = v->valuestring;
  return EL_OK;
}

static int get_bool(const reader *r, const char *name, int def, int *out) {
  const cJSON *v = field(r, name);
  if (!v) {
    *out = def;
    return EL_OK;
  }
  if (!cJSON_IsBool(v))
    return el_error_set(r->err, EL_EFORMAT, "%s: field \"%s\" must be true or false", r->path,
                        name);
  *out = cJSON_IsTrue(v) ? 1 : 0;
  return EL_OK;
}

static int read_arch(const reader *r, el_config *c) {
  const cJSON *a = field(r, "architectures");
  if (!a)
    return el_error_set(r->err, EL_EFORMAT, "%s: no \"architectures\" field (expected e.g. "
                        "[\"ElectraForPreTraining\"])", r->path);
  const cJSON *first = cJSON_IsArray(a) ? cJSON_GetArrayItem(a, 0) : NULL;
  if (!first || !cJSON_IsString(first) || !first->valuestring)
    return el_error_set(r->err, EL_EFORMAT,
                        "%s: field \"architectures\" must be a non-empty array of strings",
                        r->path);
  int arch = el_arch_from_name(first->valuestring);
  if (arch < 0)
    return el_error_set(r->err, EL_EUNSUPPORTED,
                        "%s: architecture \"%.100s\" is not supported (expected "
                        "ElectraForPreTraining, ElectraForMaskedLM, "
                        "ElectraForSequenceClassification, ElectraForQuestionAnswering or "
                        "ElectraForTokenClassification)",
                        r->path, first->valuestring);
  c->arch = (el_arch)arch;
  return EL_OK;
}

static int parse_label_key(const char *s, int n) {
  if (!s || !*s || strlen(s) > 9) return -1;
  for (const char *p = s; *p; p++)
    if (*p < '0' || *p > '9') return -1;
  if (s[0] == '0' && s[1]) return -1; /* "01" is not a key HF writes */
  int v = atoi(s);
  return v < n ? v : -1;
}

/* id2label / num_labels for a classifier; "LABEL_i" fills absent names. */
static int read_labels(const reader *r, el_config *c) {
  int rc, n_field;
  const cJSON *map = field(r, "id2label");
  if ((rc = get_int(r, "num_labels", -1, &n_field))) return rc;
  int has_n = field(r, "num_labels") != NULL;
  int n = has_n ? n_field : 2; /* HF PretrainedConfig default */
  if (map) {
    if (!cJSON_IsObject(map))
      return el_error_set(r->err, EL_EFORMAT, "%s: field \"id2label\" must be an object",
                          r->path);
    n = cJSON_GetArraySize(map);
    if (has_n && n_field != n)
      return el_error_set(r->err, EL_ESHAPE,
                          "%s: num_labels is %d but id2label has %d entries", r->path, n_field,
                          n);
  }
  if (c->arch == EL_ARCH_QA) {
    if ((map || has_n) && n != 2)
      return el_error_set(r->err, EL_EUNSUPPORTED,
                          "%s: ElectraForQuestionAnswering needs 2 labels (start, end), found %d",
                          r->path, n);
    return EL_OK;
  }
  if (!el__head_of(c->arch)->labelled) return EL_OK;
  if (n < 1 || n > (1 << 16))
    return el_error_set(r->err, EL_ESHAPE, "%s: num_labels must be in [1, 65536], found %d",
                        r->path, n);
  c->num_labels = n;
  c->id2label = calloc((size_t)n, sizeof *c->id2label);
  if (!c->id2label) return el_error_set(r->err, EL_ENOMEM, "%s: out of memory", r->path);
  if (map) {
    const cJSON *e;
    cJSON_ArrayForEach(e, map) {
      int i = parse_label_key(e->string, n);
      if (i < 0)
        return el_error_set(r->err, EL_EFORMAT,
                            "%s: id2label key \"%.40s\" is not an integer in [0, %d)", r->path,
                            e->string ? e->string : "", n);
      if (c->id2label[i])
        return el_error_set(r->err, EL_EFORMAT, "%s: id2label key \"%d\" appears twice",
                            r->path, i);
      if (!cJSON_IsString(e) || !e->valuestring)
        return el_error_set(r->err, EL_EFORMAT, "%s: id2label \"%d\" must be a string",
                            r->path, i);
      if (!(c->id2label[i] = strdup(e->valuestring)))
        return el_error_set(r->err, EL_ENOMEM, "%s: out of memory", r->path);
    }
  }
  for (int i = 0; i < n; i++) {
    if (c->id2label[i]) continue;
    char buf[32];
    snprintf(buf, sizeof buf, "LABEL_%d", i);
    if (!(c->id2label[i] = strdup(buf)))
      return el_error_set(r->err, EL_ENOMEM, "%s: out of memory", r->path);
  }
  /* HF's token classifier always uses cross-entropy over the labels: problem_type
   * does not change what its logits mean. */
  if (c->arch == EL_ARCH_TOKEN_CLS) return EL_OK;
  const char *pt = NULL;
  if ((rc = get_string(r, "problem_type", NULL, &pt))) return rc;
  if (pt && strcmp(pt, "regression") != 0 && strcmp(pt, "single_label_classification") != 0) {
    if (strcmp(pt, "multi_label_classification") == 0)
      return el_error_set(r->err, EL_EUNSUPPORTED,
                          "%s: problem_type \"multi_label_classification\" is not supported",
                          r->path);
    return el_error_set(r->err, EL_EFORMAT, "%s: unknown problem_type \"%.60s\"", r->path, pt);
  }
  /* HF treats one output as regression even without problem_type. */
  c->regression = (pt && strcmp(pt, "regression") == 0) || n == 1;
  if (c->regression && n != 1)
    return el_error_set(r->err, EL_EUNSUPPORTED,
                        "%s: regression with %d outputs is not supported (expected 1)", r->path,
                        n);
  return EL_OK;
}

/* "score_threshold" and "score_aggregation": how /score reads a per-token model. */
static int read_score_settings(const reader *r, el_config *c) {
  const cJSON *th = field(r, "score_threshold");
  if (th) {
    double v = cJSON_IsNumber(th) ? th->valuedouble : NAN;
    if (!(v >= 0.0 && v <= 1.0))
      return el_error_set(r->err, EL_EFORMAT,
                          "%s: field \"score_threshold\" must be a number in [0, 1]", r->path);
    c->score_threshold = (float)v;
    c->has_score_threshold = 1;
  }
  const char *agg = NULL;
  int rc = get_string(r, "score_aggregation", "max", &agg);
  if (rc) return rc;
  int rule = el_score_rule_from_name(agg);
  if (rule < 0)
    return el_error_set(r->err, EL_EFORMAT,
                        "%s: field \"score_aggregation\" is \"%.40s\" (expected \"max\", "
                        "\"first\" or \"mean\")", r->path, agg);
  c->score_rule = (el_score_rule)rule;
  return EL_OK;
}

/* "score_dictionary_weight" and "score_dictionary_threshold" (model.h): both
 * numbers in [0, 1], or neither; "score_dictionary_name_weight" in [0, 1], 1
 * when absent (names read as the model reads them). */
static int read_dictionary_settings(const reader *r, el_config *c) {
  static const char *const names[2] = {"score_dictionary_weight", "score_dictionary_threshold"};
  float *to[2] = {&c->score_dictionary_weight, &c->score_dictionary_threshold};
  int present = 0;
  for (int i = 0; i < 2; i++) {
    const cJSON *f = field(r, names[i]);
    if (!f) continue;
    double v = cJSON_IsNumber(f) ? f->valuedouble : NAN;
    if (!(v >= 0.0 && v <= 1.0))
      return el_error_set(r->err, EL_EFORMAT, "%s: field \"%s\" must be a number in [0, 1]",
                          r->path, names[i]);
    *to[i] = (float)v;
    present++;
  }
  if (present == 1)
    return el_error_set(r->err, EL_EFORMAT, "%s: \"%s\" and \"%s\" go together (the "
                        "dictionary's weight and the threshold chosen with it)", r->path,
                        names[0], names[1]);
  c->has_score_dictionary = present == 2;
  const cJSON *e = field(r, "score_dictionary_name_weight");
  double v = e ? (cJSON_IsNumber(e) ? e->valuedouble : NAN) : 1.0;
  if (!(v >= 0.0 && v <= 1.0))
    return el_error_set(r->err, EL_EFORMAT, "%s: field \"score_dictionary_name_weight\" must be "
                        "a number in [0, 1]", r->path);
  c->score_dictionary_name_weight = (float)v;
  const cJSON *g = field(r, "score_dictionary_ngram");
  if (g && !cJSON_IsBool(g))
    return el_error_set(r->err, EL_EFORMAT, "%s: field \"score_dictionary_ngram\" must be true or "
                        "false", r->path);
  c->score_dictionary_ngram = g && cJSON_IsTrue(g);
  if (c->score_dictionary_ngram && !c->has_score_dictionary)
    return el_error_set(r->err, EL_EFORMAT, "%s: \"score_dictionary_ngram\" needs "
                        "\"score_dictionary_weight\" (the n-gram model is read with the dictionary)",
                        r->path);
  return EL_OK;
}

static int require_value(const reader *r, const char *name, const char *def, const char *want) {
  const char *s = NULL;
  int rc = get_string(r, name, def, &s);
  if (rc) return rc;
  if (strcmp(s, want) != 0)
    return el_error_set(r->err, EL_EUNSUPPORTED, "%s: %s \"%.60s\" is not supported (expected "
                        "\"%s\")", r->path, name, s, want);
  return EL_OK;
}

/* "absolute" (HF's default) or "relative_key"; HF's "relative_key_query" also
 * adds a key-side term this engine does not compute, so it is refused. */
static int read_position_type(const reader *r, el_config *c) {
  const char *s = NULL;
  int rc = get_string(r, "position_embedding_type", "absolute", &s);
  if (rc) return rc;
  c->relative_positions = strcmp(s, "relative_key") == 0;
  if (!c->relative_positions && strcmp(s, "absolute") != 0)
    return el_error_set(r->err, EL_EUNSUPPORTED, "%s: position_embedding_type \"%.60s\" is not "
                        "supported (expected \"absolute\" or \"relative_key\")", r->path, s);
  return EL_OK;
}

static int read_config(const reader *r, el_config *c) {
  int rc, flag;
  if (!cJSON_IsObject(r->root))
    return el_error_set(r->err, EL_EFORMAT, "%s: not a JSON object", r->path);
  if ((rc = require_value(r, "model_type", "electra", "electra")) || (rc = read_arch(r, c)) ||
      (rc = get_int(r, "vocab_size", 30522, &c->vocab_size)) ||
      (rc = get_int(r, "embedding_size", 128, &c->embedding_size)) ||
      (rc = get_int(r, "hidden_size", 256, &c->hidden_size)) ||
      (rc = get_int(r, "num_hidden_layers", 12, &c->num_layers)) ||
      (rc = get_int(r, "num_attention_heads", 4, &c->num_heads)) ||
      (rc = get_int(r, "intermediate_size", 1024, &c->intermediate_size)) ||
      (rc = get_int(r, "max_position_embeddings", 512, &c->max_position_embeddings)) ||
      (rc = get_int(r, "type_vocab_size", 2, &c->type_vocab_size)) ||
      (rc = get_int(r, "pad_token_id", 0, &c->pad_token_id)) ||
      (rc = get_float(r, "layer_norm_eps", 1e-12f, &c->layer_norm_eps)) ||
      (rc = get_float(r, "initializer_range", 0.02f, &c->initializer_range)) ||
      (rc = get_float(r, "hidden_dropout_prob", 0.1f, &c->hidden_dropout_prob)) ||
      (rc = get_float(r, "attention_probs_dropout_prob", 0.1f,
                      &c->attention_probs_dropout_prob)) ||
      (rc = require_value(r, "hidden_act", "gelu", "gelu")) ||
      (rc = read_position_type(r, c)))
    return rc;
  if ((rc = get_bool(r, "is_decoder", 0, &flag))) return rc;
  if (flag)
    return el_error_set(r->err, EL_EUNSUPPORTED, "%s: is_decoder true is not supported",
                        r->path);
  if ((rc = get_bool(r, "tie_word_embeddings", 1, &flag))) return rc;
  if (!flag && c->arch == EL_ARCH_MASKED_LM)
    return el_error_set(r->err, EL_EUNSUPPORTED,
                        "%s: tie_word_embeddings false (an untied generator_lm_head) is not "
                        "supported", r->path);
  if ((rc = read_labels(r, c)) || (rc = read_score_settings(r, c)) ||
      (rc = read_dictionary_settings(r, c)))
    return rc;
  if (c->arch == EL_ARCH_QA && field(r, "electra_null_threshold")) {
    if ((rc = get_float(r, "electra_null_threshold", 0.0f, &c->null_threshold))) return rc;
    c->has_null_threshold = 1;
  }
  return EL_OK;
}

int el__config_load(const char *dir, el_config *cfg, el_error *err) {
  memset(cfg, 0, sizeof *cfg);
  char *path = el__path_join(dir, "config.json"), *tpath = el__path_join(dir, "tokenizer_config.json");
  cJSON *root = NULL;
  int rc = EL_OK;
  if (!path || !tpath) {
    rc = el_error_set(err, EL_ENOMEM, "%s: out of memory", dir);
    goto done;
  }
  if ((rc = el__json_parse_file(path, MAX_JSON_BYTES, &root, err))) goto done;
  reader r = {root, path, err};
  if ((rc = read_config(&r, cfg)) || (rc = el__config_check(cfg, path, err))) goto done;
  cJSON_Delete(root);
  root = NULL;

  cfg->do_lower_case = 1;
  if (access(tpath, F_OK) == 0) {
    if ((rc = el__json_parse_file(tpath, MAX_JSON_BYTES, &root, err))) goto done;
    reader t = {root, tpath, err};
    if (!cJSON_IsObject(root)) {
      rc = el_error_set(err, EL_EFORMAT, "%s: not a JSON object", tpath);
      goto done;
    }
    if ((rc = get_bool(&t, "do_lower_case", 1, &cfg->do_lower_case))) goto done;
  }
done:
  cJSON_Delete(root);
  free(path);
  free(tpath);
  if (rc) el__config_free(cfg);
  return rc;
}

void el__config_free(el_config *cfg) {
  if (!cfg) return;
  if (cfg->id2label) {
    for (int i = 0; i < cfg->num_labels; i++) free(cfg->id2label[i]);
    free(cfg->id2label);
  }
  cfg->id2label = NULL;
}

int el__config_copy(el_config *dst, const el_config *src, el_error *err) {
  *dst = *src;
  dst->id2label = NULL;
  if (!src->id2label || src->num_labels <= 0) return EL_OK;
  dst->id2label = calloc((size_t)src->num_labels, sizeof *dst->id2label);
  if (!dst->id2label) goto oom;
  for (int i = 0; i < src->num_labels; i++)
    if (src->id2label[i] && !(dst->id2label[i] = strdup(src->id2label[i]))) goto oom;
  return EL_OK;
oom:
  el__config_free(dst);
  return el_error_set(err, EL_ENOMEM, "config copy: out of memory");
}

/* ---- writing ---------------------------------------------------------- */

/* The shortest decimal that reads back as the same float, so 0.1f is
 * written "0.1" rather than 0.10000000149011612. */
static double short_float(float f) {
  char buf[32];
  for (int prec = 6; prec <= 9; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, (double)f);
    if (strtof(buf, NULL) == f) break;
  }
  return strtod(buf, NULL);
}

static cJSON *config_json(const el_config *c) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  int ok = 1;
#define NUM(k, v) ok &= cJSON_AddNumberToObject(o, k, (v)) != NULL
#define STR(k, v) ok &= cJSON_AddStringToObject(o, k, (v)) != NULL
  cJSON *arch = cJSON_AddArrayToObject(o, "architectures");
  cJSON *name = cJSON_CreateString(el_arch_name(c->arch));
  ok &= arch && name;
  if (arch && name) cJSON_AddItemToArray(arch, name);
  else cJSON_Delete(name);
  NUM("attention_probs_dropout_prob", short_float(c->attention_probs_dropout_prob));
  ok &= cJSON_AddNullToObject(o, "classifier_dropout") != NULL;
  if (c->arch == EL_ARCH_QA && c->has_null_threshold)
    NUM("electra_null_threshold", short_float(c->null_threshold));
  NUM("embedding_size", c->embedding_size);
  STR("hidden_act", "gelu");
  NUM("hidden_dropout_prob", short_float(c->hidden_dropout_prob));
  NUM("hidden_size", c->hidden_size);
  const el__head *head = el__head_of(c->arch);
  const int labelled = head && head->labelled;
  if (labelled) {
    cJSON *id2 = cJSON_AddObjectToObject(o, "id2label");
    ok &= id2 != NULL;
    for (int i = 0; id2 && i < c->num_labels; i++) {
      char key[16], def[32];
      snprintf(key, sizeof key, "%d", i);
      snprintf(def, sizeof def, "LABEL_%d", i);
      ok &= cJSON_AddStringToObject(id2, key, c->id2label ? c->id2label[i] : def) != NULL;
    }
  }
  NUM("initializer_range", short_float(c->initializer_range));
  NUM("intermediate_size", c->intermediate_size);
  if (labelled) {
    cJSON *l2 = cJSON_AddObjectToObject(o, "label2id");
    ok &= l2 != NULL;
    for (int i = 0; l2 && i < c->num_labels; i++) {
      char def[32];
      snprintf(def, sizeof def, "LABEL_%d", i);
      const char *k = c->id2label ? c->id2label[i] : def;
      /* Duplicate label names cannot be keys twice; HF keeps the last too. */
      cJSON_DeleteItemFromObjectCaseSensitive(l2, k);
      ok &= cJSON_AddNumberToObject(l2, k, i) != NULL;
    }
  }
  NUM("layer_norm_eps", short_float(c->layer_norm_eps));
  NUM("max_position_embeddings", c->max_position_embeddings);
  STR("model_type", "electra");
  NUM("num_attention_heads", c->num_heads);
  NUM("num_hidden_layers", c->num_layers);
  NUM("pad_token_id", c->pad_token_id);
  STR("position_embedding_type", c->relative_positions ? "relative_key" : "absolute");
  if (c->arch == EL_ARCH_SEQ_CLS && c->regression) STR("problem_type", "regression");
  /* the default rule is left implicit, so files of models that never chose one stay
   * as HF writes them; a reader takes absent as "max" */
  if (c->score_rule != EL_SCORE_MAX) STR("score_aggregation", el_score_rule_name(c->score_rule));
  if (c->has_score_dictionary) {
    NUM("score_dictionary_name_weight", short_float(c->score_dictionary_name_weight));
    if (c->score_dictionary_ngram) ok &= cJSON_AddTrueToObject(o, "score_dictionary_ngram") != NULL;
    NUM("score_dictionary_threshold", short_float(c->score_dictionary_threshold));
    NUM("score_dictionary_weight", short_float(c->score_dictionary_weight));
  }
  if (c->has_score_threshold) NUM("score_threshold", short_float(c->score_threshold));
  STR("summary_activation", "gelu");
  NUM("summary_last_dropout", 0.1);
  STR("summary_type", "first");
  ok &= cJSON_AddTrueToObject(o, "summary_use_proj") != NULL;
  STR("torch_dtype", "float32");
  NUM("type_vocab_size", c->type_vocab_size);
  NUM("vocab_size", c->vocab_size);
#undef NUM
#undef STR
  if (!ok) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

static cJSON *tokenizer_json(const el_config *c) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  int ok = cJSON_AddBoolToObject(o, "do_lower_case", c->do_lower_case != 0) != NULL;
  ok &= cJSON_AddStringToObject(o, "tokenizer_class", "ElectraTokenizer") != NULL;
  ok &= cJSON_AddNumberToObject(o, "model_max_length", c->max_position_embeddings) != NULL;
  ok &= cJSON_AddStringToObject(o, "unk_token", "[UNK]") != NULL;
  ok &= cJSON_AddStringToObject(o, "sep_token", "[SEP]") != NULL;
  ok &= cJSON_AddStringToObject(o, "pad_token", "[PAD]") != NULL;
  ok &= cJSON_AddStringToObject(o, "cls_token", "[CLS]") != NULL;
  ok &= cJSON_AddStringToObject(o, "mask_token", "[MASK]") != NULL;
  ok &= cJSON_AddTrueToObject(o, "tokenize_chinese_chars") != NULL;
  ok &= cJSON_AddNullToObject(o, "strip_accents") != NULL;
  if (!ok) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

static int write_json(const char *dir, const char *name, cJSON *o, el_error *err) {
  char *path = el__path_join(dir, name);
  char *text = o ? cJSON_Print(o) : NULL;
  int rc;
  if (!path || !text) {
    rc = el_error_set(err, EL_ENOMEM, "%s/%s: out of memory", dir, name);
  } else {
    size_t n = strlen(text);
    text[n] = '\n'; /* replace the terminator: files end with a newline */
    rc = el__write_file(path, text, n + 1, err);
  }
  free(text);
  free(path);
  cJSON_Delete(o);
  return rc;
}

int el__config_write(const char *dir, const el_config *cfg, el_error *err) {
  int rc = el__config_check(cfg, "config", err);
  if (rc) return rc;
  if ((rc = write_json(dir, "config.json", config_json(cfg), err))) return rc;
  return write_json(dir, "tokenizer_config.json", tokenizer_json(cfg), err);
}
