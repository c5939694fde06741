/* The word rule of include/electra/score.h. */
#include <string.h>

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

const char *el_score_rule_name(el_score_rule r) {
  return (int)r >= 0 && (int)r < N_RULES ? RULE_NAMES[r] : NULL;
}

int el_score_rule_from_name(const char *name) {
  if (!name) return -1;
  for (int i = 0; i < N_RULES; i++)
    if (strcmp(name, RULE_NAMES[i]) == 0) return i;
  return -1;
}
