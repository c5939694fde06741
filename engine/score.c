/* The word rule of include/electra/score.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "electra/model.h"
#include "electra/score.h"

static const char *const RULE_NAMES[] = {"max", "first", "mean"};
enum { N_RULES = (int)(sizeof RULE_NAMES / sizeof RULE_NAMES[0]) };

float el_word_prob(el_score_rule rule, const float *piece_probs, int n) {
  if (!piece_probs || n <= 0) return 0.0f;
  if (rule == EL_SCORE_FIRST) return piece_probs[0];
  if (rule == EL_SCORE_MEAN) {
    /* double sum: words of many pieces should not drift from a Python mean */
    double s = 0.0;
    for (int i = 0; i < n; i++) s += piece_probs[i];
    return (float)(s / n);
  }
  float m = piece_probs[0];
  for (int i = 1; i < n; i++)
    if (piece_probs[i] > m) m = piece_probs[i];
  return m;
}

static float unit(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }

float el_word_prob_dict(float p, el_dict_verdict v, float q, float e) {
  if (v == EL_DICT_REJECTS) return 1.0f - (1.0f - p) * (1.0f - unit(q));
  if (v == EL_DICT_NAME) return p * unit(e);
  return p;
}

float el_score_threshold(const el_config *c, int dictionary) {
  if (dictionary && c->has_score_dictionary) return c->score_dictionary_threshold;
  return c->has_score_threshold ? c->score_threshold : 0.5f;
}

const char *el_score_rule_name(el_score_rule r) {
  return (int)r >= 0 && (int)r < N_RULES ? RULE_NAMES[r] : NULL;
}

int el_score_rule_from_name(const char *name) {
  if (!name) return -1;
  for (int i = 0; i < N_RULES; i++)
    if (strcmp(name, RULE_NAMES[i]) == 0) return i;
  return -1;
}

/* Names that mean "no error" in the GED and tagging conventions we know. */
static const char *const CORRECT_NAMES[] = {"correct", "c", "o", "ok", "keep"};

static int is_correct_name(const char *l) {
  for (size_t i = 0; i < sizeof CORRECT_NAMES / sizeof CORRECT_NAMES[0]; i++)
    if (!strcasecmp(l, CORRECT_NAMES[i])) return 1;
  return 0;
}

/* The labels, quoted and comma-separated, for messages. */
static void label_list(char *const *id2label, int n, char *buf, size_t cap) {
  size_t k = 0;
  buf[0] = 0;
  for (int i = 0; i < n && k + 8 < cap; i++) {
    int w = snprintf(buf + k, cap - k, "%s\"%.40s\"", i ? ", " : "", id2label[i]);
    if (w < 0 || (size_t)w >= cap - k) {
      snprintf(buf + k, cap - k, ", ...");
      return;
    }
    k += (size_t)w;
  }
}

/* The one label named `name` (exact, else the only one equal ignoring case). */
static int label_by_name(char *const *id2label, int n, const char *name, int *count) {
  for (int i = 0; i < n; i++)
    if (!strcmp(id2label[i], name)) return *count = 1, i;
  int found = -1;
  *count = 0;
  for (int i = 0; i < n; i++)
    if (!strcasecmp(id2label[i], name) && !(*count)++) found = i;
  return found;
}

int el_correct_label(char *const *id2label, int num_labels, const char *name, int *label,
                     el_error *err) {
  char labels[512];
  *label = -1;
  if (num_labels < 2 || !id2label)
    return el_error_set(err, EL_EINVAL, "%d label%s: a GED token classifier needs at least 2 "
                        "(a correct one and an error one)", num_labels, num_labels == 1 ? "" : "s");
  label_list(id2label, num_labels, labels, sizeof labels);
  int n = 0, found = -1;
  if (name && name[0]) {
    found = label_by_name(id2label, num_labels, name, &n);
    if (n != 1)
      return el_error_set(err, EL_EINVAL, "correct label \"%s\" %s the labels %s", name,
                          n ? "matches several of" : "is not one of", labels);
  } else {
    for (int i = 0; i < num_labels; i++)
      if (is_correct_name(id2label[i]) && !n++) found = i;
    if (n != 1)
      return el_error_set(err, EL_EINVAL, "cannot tell which of the labels %s means \"no error\" "
                          "(%s named CORRECT, C, O, OK or KEEP)", labels, n ? "several are" : "none is");
  }
  *label = found;
  return EL_OK;
}

void el_error_probs(const float *logits, int n_tokens, int num_labels, int correct_label,
                    float *prob) {
  for (int t = 0; t < n_tokens; t++) {
    const float *z = logits + (size_t)t * (size_t)num_labels;
    float m = z[0];
    for (int j = 1; j < num_labels; j++)
      if (z[j] > m) m = z[j];
    double all = 0, wrong = 0; /* double: P(error) near 0 keeps its digits */
    for (int j = 0; j < num_labels; j++) {
      double e = exp((double)z[j] - m);
      all += e;
      if (j != correct_label) wrong += e;
    }
    prob[t] = (float)(wrong / all);
  }
}
