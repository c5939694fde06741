/* The word rule (include/electra/score.h): values worked out by hand. */
#include <stddef.h>

#include "../test.h"
#include "electra/electra.h"

static void test_rules(void) {
  const float p[] = {0.2f, 0.9f, 0.4f};
  CHECK_NEAR(el_word_prob(EL_SCORE_MAX, p, 3), 0.9, 1e-7, 0, "max of 0.2 0.9 0.4 is 0.9");
  CHECK_NEAR(el_word_prob(EL_SCORE_FIRST, p, 3), 0.2, 1e-7, 0, "first of 0.2 0.9 0.4 is 0.2");
  CHECK_NEAR(el_word_prob(EL_SCORE_MEAN, p, 3), 0.5, 1e-7, 0, "mean of 0.2 0.9 0.4 is 0.5");
  const float one[] = {0.7f};
  int same = 1;
  for (int r = 0; r < 3; r++) same &= el_word_prob((el_score_rule)r, one, 1) == 0.7f;
  CHECK(same, "a one-piece word is its piece under every rule");
  CHECK(el_word_prob(EL_SCORE_MAX, p, 0) == 0.0f && el_word_prob(EL_SCORE_MEAN, NULL, 3) == 0.0f,
        "no pieces gives 0");
  const float first_low[] = {0.1f, 0.05f};
  CHECK_NEAR(el_word_prob(EL_SCORE_MAX, first_low, 2), 0.1, 1e-7, 0,
             "max picks the first piece when it is the largest");
}

static void test_names(void) {
  CHECK(el_score_rule_from_name("max") == EL_SCORE_MAX &&
            el_score_rule_from_name("first") == EL_SCORE_FIRST &&
            el_score_rule_from_name("mean") == EL_SCORE_MEAN,
        "names parse");
  int round = 1;
  for (int r = 0; r < 3; r++)
    round &= el_score_rule_from_name(el_score_rule_name((el_score_rule)r)) == r;
  CHECK(round, "name round trip for every rule");
  CHECK(el_score_rule_from_name("MAX") == -1 && el_score_rule_from_name("avg") == -1 &&
            el_score_rule_from_name("") == -1 && el_score_rule_from_name(NULL) == -1,
        "unknown names give -1");
  CHECK(el_score_rule_name((el_score_rule)3) == NULL &&
            el_score_rule_name((el_score_rule)-1) == NULL,
        "invalid rules have no name");
}

/* The dictionary's verdicts beside the model (el_word_prob_dict) and how they
 * meet a threshold. */
static float pd(float p, el_dict_verdict v, float q) { return el_word_prob_dict(p, v, q, 0.1f); }

static void test_dictionary(void) {
  CHECK_NEAR(pd(0.3f, EL_DICT_NONE, 0.8f), 0.3, 1e-7, 0, "a known word keeps the model's 0.3");
  CHECK_NEAR(pd(0.3f, EL_DICT_REJECTS, 0.8f), 0.86, 1e-6, 0, "rejected: 1 - 0.7 * 0.2 = 0.86");
  CHECK_NEAR(pd(0.0f, EL_DICT_REJECTS, 0.8f), 0.8, 1e-6, 0, "rejected, model sure it is fine: q");
  CHECK_NEAR(pd(0.9f, EL_DICT_REJECTS, 0.0f), 0.9, 1e-7, 0, "weight 0: the model alone");
  CHECK_NEAR(pd(0.5f, EL_DICT_REJECTS, 1.5f), 1.0, 1e-7, 0, "a weight above 1 acts as 1");
  CHECK_NEAR(pd(0.5f, EL_DICT_REJECTS, -1.0f), 0.5, 1e-7, 0, "a negative weight acts as 0");
  CHECK_NEAR(pd(0.7f, EL_DICT_NAME, 0.8f), 0.07, 1e-6, 0, "a name: the model's rarity times e 0.1");
  CHECK_NEAR(el_word_prob_dict(0.7f, EL_DICT_NAME, 0.8f, 1.0f), 0.7, 1e-7, 0,
             "name weight 1 (absent from config.json): the model's own");
  CHECK_NEAR(el_word_prob_dict(0.7f, EL_DICT_NAME, 0.8f, 2.0f), 0.7, 1e-7, 0,
             "a name weight above 1 acts as 1: never raised");
  CHECK_NEAR(el_word_prob_dict(0.7f, (el_dict_verdict)7, 0.8f, 0.1f), 0.7, 1e-7, 0,
             "an unknown verdict: the model's own");
  /* threshold behaviour: above q a rejected word still needs some model evidence */
  float t = 0.9f, q = 0.8f;
  CHECK(pd(0.4f, EL_DICT_REJECTS, q) < t && pd(0.6f, EL_DICT_REJECTS, q) >= t,
        "threshold 0.9 over q 0.8: flagged from p 0.5 on (0.4 -> %.3f, 0.6 -> %.3f)",
        (double)pd(0.4f, EL_DICT_REJECTS, q), (double)pd(0.6f, EL_DICT_REJECTS, q));
  CHECK(pd(0.0f, EL_DICT_REJECTS, q) >= 0.5f, "threshold 0.5 under q: every rejected word flagged");
  CHECK(pd(0.99f, EL_DICT_NAME, q) < 0.5f, "threshold 0.5: no name flagged for its rarity");
  for (float p = 0; p <= 1.0f; p += 0.125f)
    CHECK(pd(p, EL_DICT_REJECTS, q) >= p && pd(p, EL_DICT_NAME, q) <= p,
          "rejection never lowers, a name never raises the model's %.3f", (double)p);
}

int main(void) {
  test_rules();
  test_dictionary();
  test_names();
  return el_test_done();
}
