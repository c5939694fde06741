/* The server's head table (srv_heads.h): each head's runner and /info fields,
 * then the table that names them. */
#include "srv_heads.h"

#include <stdlib.h>
#include <string.h>

#include "srv_models.h"

static const char *const TASK_NAMES[EL_TASK_COUNT] = {"score", "classify", "qa"};
static const char *const TASK_ROUTES[EL_TASK_COUNT] = {"/score", "/classify", "/qa"};

const char *el__task_name(int task) {
  return task >= 0 && task < EL_TASK_COUNT ? TASK_NAMES[task] : "tokenize";
}

const char *el__task_route(int task) {
  return task >= 0 && task < EL_TASK_COUNT ? TASK_ROUTES[task] : "/tokenize";
}

/* ---- runners: the batch's tokens are T = sum of seq_len ---- */

static size_t tokens(const el_batch *b) {
  size_t T = 0;
  for (int i = 0; i < b->n_seqs; i++) T += (size_t)b->seq_len[i];
  return T;
}

static int oom(const el_batch *b, el_error *er) {
  return el_error_set(er, EL_ENOMEM, "out of memory for %zu tokens", tokens(b));
}

/* per-token floats of the packed batch, split back into the sequences */
static void scatter_tokens(const float *x, el__seq *const *seqs, int n) {
  size_t off = 0;
  for (int i = 0; i < n; i++) {
    memcpy(seqs[i]->out, x + off, (size_t)seqs[i]->len * sizeof(float));
    off += (size_t)seqs[i]->len;
  }
}

static int run_replaced(el__head_scratch *s, const el__model_entry *e, const el_batch *b,
                        el__seq *const *seqs, int n, el_error *er) {
  if (el__grow((void **)&s->a, &s->cap_a, tokens(b), sizeof(float))) return oom(b, er);
  int rc = el_run_replaced(e->model, e->ws, b, s->a, er);
  if (!rc) scatter_tokens(s->a, seqs, n);
  return rc;
}

/* /score: P(error) per token, as a discriminator gives */
static int run_token_classify(el__head_scratch *s, const el__model_entry *e, const el_batch *b,
                              el__seq *const *seqs, int n, el_error *er) {
  const int L = e->cfg->num_labels;
  if (el__grow((void **)&s->a, &s->cap_a, tokens(b) * (size_t)L, sizeof(float)))
    return oom(b, er);
  int rc = el_run_token_classify(e->model, e->ws, b, s->a, er);
  if (rc) return rc;
  size_t off = 0;
  for (int i = 0; i < n; i++) {
    el_error_probs(s->a + off * (size_t)L, seqs[i]->len, L, e->correct_label, seqs[i]->out);
    off += (size_t)seqs[i]->len;
  }
  return EL_OK;
}

static int run_classify(el__head_scratch *s, const el__model_entry *e, const el_batch *b,
                        el__seq *const *seqs, int n, el_error *er) {
  size_t L = (size_t)e->cfg->num_labels;
  if (el__grow((void **)&s->a, &s->cap_a, (size_t)n * L, sizeof(float))) return oom(b, er);
  int rc = el_run_classify(e->model, e->ws, b, s->a, er);
  if (rc) return rc;
  for (int i = 0; i < n; i++) memcpy(seqs[i]->out, s->a + (size_t)i * L, L * sizeof(float));
  return EL_OK;
}

static int run_qa(el__head_scratch *s, const el__model_entry *e, const el_batch *b,
                  el__seq *const *seqs, int n, el_error *er) {
  const size_t T = tokens(b);
  if (el__grow((void **)&s->a, &s->cap_a, T, sizeof(float)) ||
      el__grow((void **)&s->b, &s->cap_b, T, sizeof(float)))
    return oom(b, er);
  int rc = el_run_qa(e->model, e->ws, b, s->a, s->b, er);
  if (rc) return rc;
  size_t off = 0;
  for (int i = 0; i < n; i++) {
    size_t len = (size_t)seqs[i]->len;
    memcpy(seqs[i]->out, s->a + off, len * sizeof(float));
    memcpy(seqs[i]->out + len, s->b + off, len * sizeof(float));
    off += len;
  }
  return EL_OK;
}

/* the masked LM serves no task: warm-up runs its encoder, nothing is kept */
static int run_hidden(el__head_scratch *s, const el__model_entry *e, const el_batch *b,
                      el__seq *const *seqs, int n, el_error *er) {
  (void)seqs;
  (void)n;
  if (el__grow((void **)&s->a, &s->cap_a, tokens(b) * (size_t)e->cfg->hidden_size,
               sizeof(float)))
    return oom(b, er);
  return el_run_hidden(e->model, e->ws, b, s->a, er);
}

/* ---- /info fields ---- */

static void info_labels(el__sb *b, const el__model_entry *e) {
  const el_config *c = e->cfg;
  el__sb_puts(b, ",\"labels\":[");
  for (int k = 0; k < c->num_labels; k++) {
    const char *l = c->id2label && c->id2label[k] ? c->id2label[k] : "";
    if (k) el__sb_puts(b, ",");
    el__sb_json_str(b, l, strlen(l));
  }
  el__sb_puts(b, "]");
}

/* How /score reads a per-token model: its default threshold and where it
 * came from, the word rule, and for a token classifier its "no error" label. */
static void info_score_settings(el__sb *b, const el__model_entry *e) {
  const el_config *c = e->cfg;
  el__sb_puts(b, ",\"score_threshold\":");
  el__sb_json_float(b, (float)e->threshold);
  el__sb_printf(b, ",\"score_threshold_source\":\"%s\",\"score_aggregation\":\"%s\"",
                e->dict                  ? "model_with_dictionary"
                : c->has_score_threshold ? "model"
                                         : "default",
                el_score_rule_name(c->score_rule));
  /* hunspell beside the model: its weight, or null when the model is alone */
  el__sb_puts(b, ",\"score_dictionary_weight\":");
  if (e->dict)
    el__sb_json_float(b, c->score_dictionary_weight);
  else
    el__sb_puts(b, "null");
  el__sb_puts(b, ",\"score_dictionary_name_weight\":");
  if (e->dict)
    el__sb_json_float(b, c->score_dictionary_name_weight);
  else
    el__sb_puts(b, "null");
  el__sb_printf(b, ",\"score_dictionary_ngram\":%s", !e->dict ? "null" : e->ngram ? "true" : "false");
  /* /v2/check's checker: whether it has a generator, the verification
   * pass's dtype and the memory of its copy of the detector; null without one */
  if (e->checker) {
    const el_model *v = e->verifier ? e->verifier : e->model;
    el__sb_printf(b, ",\"checker\":{\"generator\":%s,\"verify_dtype\":\"%s\",\"verifier_weight_bytes\":%zu}",
                  e->generator ? "true" : "false", el_dtype_name(el_model_dtype(v)),
                  e->verifier ? el_model_weight_bytes(e->verifier) : (size_t)0);
  } else {
    el__sb_puts(b, ",\"checker\":null");
  }
  el__sb_puts(b, ",\"quality\":");
  if (e->quality[0])
    el__sb_json_str(b, e->quality, strlen(e->quality));
  else
    el__sb_puts(b, "null");
  if (e->correct_label >= 0 && c->id2label) {
    const char *l = c->id2label[e->correct_label];
    el__sb_puts(b, ",\"correct_label\":");
    el__sb_json_str(b, l, strlen(l));
    el__sb_printf(b, ",\"correct_label_source\":\"%s\"",
                  e->correct_from_option ? "option" : "label_name");
  }
}

static void info_replaced(el__sb *b, const el__model_entry *e) {
  el__sb_puts(b, ",\"labels\":null");
  info_score_settings(b, e);
}

static void info_token_classify(el__sb *b, const el__model_entry *e) {
  info_labels(b, e);
  info_score_settings(b, e);
}

static void info_classify(el__sb *b, const el__model_entry *e) {
  el__sb_printf(b, ",\"regression\":%s", e->cfg->regression ? "true" : "false");
  info_labels(b, e);
}

static void info_qa(el__sb *b, const el__model_entry *e) {
  el__sb_puts(b, ",\"labels\":null,\"null_threshold\":");
  if (e->cfg->has_null_threshold)
    el__sb_json_num(b, e->cfg->null_threshold);
  else
    el__sb_puts(b, "null");
}

static void info_none(el__sb *b, const el__model_entry *e) {
  (void)e;
  el__sb_puts(b, ",\"labels\":null");
}

/* ---- the table ---- */

static const el__srv_head HEADS[EL_ARCH_COUNT] = {
    /* arch                   task              correct_label  run  info */
    [EL_ARCH_PRETRAINING] = {EL_TASK_SCORE, 0, run_replaced, info_replaced},
    [EL_ARCH_MASKED_LM] = {-1, 0, run_hidden, info_none},
    [EL_ARCH_SEQ_CLS] = {EL_TASK_CLASSIFY, 0, run_classify, info_classify},
    [EL_ARCH_QA] = {EL_TASK_QA, 0, run_qa, info_qa},
    [EL_ARCH_TOKEN_CLS] = {EL_TASK_SCORE, 1, run_token_classify, info_token_classify},
};

const el__srv_head *el__srv_head_of(el_arch a) {
  return (int)a >= 0 && a < EL_ARCH_COUNT ? &HEADS[a] : &HEADS[EL_ARCH_MASKED_LM];
}
