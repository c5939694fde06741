/* Metrics of the fine-tuning tasks on hand-computed cases; every expected
 * value is worked out by hand in the comment next to it. Tolerance 1e-6. */
#include <string.h>

#include "../test.h"
#include "metrics.h"

static void check_norm(const char *in, const char *want) {
  char *got = el__squad_normalize(in);
  CHECK(got && !strcmp(got, want), "normalize '%s' -> '%s' (got '%s')", in, want, got ? got : "NULL");
  free(got);
}

int main(void) {
  /* accuracy: 2 of 4 agree */
  int p1[] = {1, 0, 1, 1}, g1[] = {1, 1, 1, 0};
  CHECK_NEAR(el__metric_accuracy(p1, g1, 4), 0.5, 1e-9, 0, "accuracy 2/4");
  CHECK_NEAR(el__metric_accuracy(p1, g1, 0), 0.0, 0, 0, "accuracy of nothing is 0");

  /* MCC: TP 2, FN 1, TN 2, FP 1 -> (2*2 - 1*1) / sqrt(3*3*3*3) = 3/9 */
  int g2[] = {1, 1, 1, 0, 0, 0}, p2[] = {1, 1, 0, 0, 0, 1};
  CHECK_NEAR(el__metric_mcc(p2, g2, 6, 2), 1.0 / 3.0, 1e-6, 0, "mcc binary");
  CHECK_NEAR(el__metric_mcc(g2, g2, 6, 2), 1.0, 1e-6, 0, "mcc perfect");
  int inv[] = {0, 0, 0, 1, 1, 1};
  CHECK_NEAR(el__metric_mcc(inv, g2, 6, 2), -1.0, 1e-6, 0, "mcc inverted");
  int ones[] = {1, 1, 1, 1, 1, 1};
  CHECK_NEAR(el__metric_mcc(ones, g2, 6, 2), 0.0, 0, 0, "mcc constant prediction is 0");
  /* 3 classes, gold {0,1,2,0,1,2}, pred {0,1,1,0,2,2}: s=6, c=4, t=(2,2,2),
   * p=(2,2,2): (4*6 - 12) / sqrt((36-12)(36-12)) = 12/24 */
  int g3[] = {0, 1, 2, 0, 1, 2}, p3[] = {0, 1, 1, 0, 2, 2};
  CHECK_NEAR(el__metric_mcc(p3, g3, 6, 3), 0.5, 1e-6, 0, "mcc 3 classes (Gorodkin)");

  /* F1 of class 1 on the MCC case: 2*2 / (2*2 + 1 + 1) = 2/3 */
  CHECK_NEAR(el__metric_f1(p2, g2, 6, 1), 2.0 / 3.0, 1e-6, 0, "f1 positive class");
  int zeros[] = {0, 0, 0, 0, 0, 0};
  CHECK_NEAR(el__metric_f1(zeros, g2, 6, 1), 0.0, 0, 0, "f1 without predicted positives is 0");

  /* Pearson: x (1,2,3,4), y (1,3,2,4): deviations (-1.5,-.5,.5,1.5) and
   * (-1.5,.5,-.5,1.5): sxy = 4, sxx = syy = 5 -> 0.8 */
  double x[] = {1, 2, 3, 4}, y[] = {1, 3, 2, 4}, y2[] = {2, 4, 6, 8};
  CHECK_NEAR(el__metric_pearson(x, y, 4), 0.8, 1e-9, 0, "pearson 0.8");
  CHECK_NEAR(el__metric_pearson(x, y2, 4), 1.0, 1e-9, 0, "pearson linear = 1");
  double c4[] = {3, 3, 3, 3};
  CHECK_NEAR(el__metric_pearson(x, c4, 4), 0.0, 0, 0, "pearson constant series is 0");
  /* Spearman with a tie: ranks x (1,2,2,3) -> (1,2.5,2.5,4), y (1,2,3,4):
   * sxy = 2.25 + 0 + 0 + 2.25 = 4.5, sxx = 4.5, syy = 5 -> 4.5/sqrt(22.5) */
  double xt[] = {1, 2, 2, 3};
  CHECK_NEAR(el__metric_spearman(xt, x, 4), 4.5 / sqrt(22.5), 1e-9, 0, "spearman average ranks");
  double mono[] = {1, 10, 100, 1000};
  CHECK_NEAR(el__metric_spearman(x, mono, 4), 1.0, 1e-9, 0, "spearman of a monotone map = 1");
  double rev[] = {9, 5, 2, -7};
  CHECK_NEAR(el__metric_spearman(x, rev, 4), -1.0, 1e-9, 0, "spearman reversed = -1");

  /* GED: gold (1,0,1,1,0), pred (1,1,0,1,0): tp 2, fp 1, fn 1, tn 1;
   * P = R = 2/3, F0.5 = 1.25 P R / (0.25 P + R) = 2/3 */
  el__ged_scores s;
  int gg[] = {1, 0, 1, 1, 0}, pg[] = {1, 1, 0, 1, 0};
  el__metric_ged(pg, gg, 5, &s);
  CHECK(s.tp == 2 && s.fp == 1 && s.fn == 1 && s.tn == 1, "ged counts");
  CHECK_NEAR(s.precision, 2.0 / 3.0, 1e-9, 0, "ged precision");
  CHECK_NEAR(s.f05, 2.0 / 3.0, 1e-9, 0, "ged f0.5 with P = R");
  /* gold (1,1,1,1,0), pred (1,0,0,0,0): P 1, R 0.25 ->
   * 1.25*0.25 / (0.25 + 0.25) = 0.625 (F0.5 weighs precision) */
  int gg2[] = {1, 1, 1, 1, 0}, pg2[] = {1, 0, 0, 0, 0};
  el__metric_ged(pg2, gg2, 5, &s);
  CHECK_NEAR(s.recall, 0.25, 1e-9, 0, "ged recall");
  CHECK_NEAR(s.f05, 0.625, 1e-9, 0, "ged f0.5 favours precision");
  el__metric_ged(zeros, gg2, 5, &s);
  CHECK(s.precision == 0 && s.f05 == 0, "ged: no predicted errors -> P = F0.5 = 0");

  /* threshold sweep: probs of 6 words, gold 1 for the two highest and one low
   * one. Flagging the top 2 (threshold between 0.7 and 0.4) gives P 1,
   * R 2/3, F0.5 0.909; the top 5 (P 0.6, R 1) gives 0.652. */
  float pr[] = {0.9f, 0.7f, 0.4f, 0.3f, 0.2f, 0.1f};
  int gr[] = {1, 1, 0, 0, 1, 0};
  double th = el__ged_best_threshold(pr, gr, 6, 0, 0);
  CHECK_NEAR(th, 0.55, 1e-6, 0, "ged best threshold: midpoint between the last flagged and the next");
  el__metric_ged_at(pr, gr, 6, th, &s);
  CHECK(s.tp == 2 && s.fp == 0 && s.fn == 1, "ged at threshold: flags prob >= threshold");
  el__metric_ged_at(pr, gr, 6, 0.4, &s);
  CHECK(s.tp == 2 && s.fp == 1, "ged at threshold: a prob equal to the threshold is flagged (as /score)");
  int none[] = {0, 0, 0, 0, 0, 0};
  CHECK(el__ged_best_threshold(pr, none, 6, 0, 0) == 1.0, "ged best threshold with no error: flag nothing (1.0)");
  float tie[] = {0.5f, 0.5f, 0.5f, 0.1f};
  int gt[] = {1, 0, 1, 0};
  CHECK_NEAR(el__ged_best_threshold(tie, gt, 4, 0, 0), 0.3, 1e-6, 0,
             "ged best threshold never splits equal probabilities");
  /* unseen errors (generated dev lacks some error types) count as missed:
   * gold 1,1,0,0,1,1,0. Without them the top 2 win (F0.5 2.5/3 = 0.833
   * against 5/7 = 0.714 for the top 6); with 8 unseen errors the top 6 win
   * (5/9 = 0.556 against 2.5/5 = 0.5), so the threshold moves down. */
  float pu[] = {0.9f, 0.8f, 0.7f, 0.65f, 0.6f, 0.5f, 0.1f};
  int gu[] = {1, 1, 0, 0, 1, 1, 0};
  CHECK_NEAR(el__ged_best_threshold(pu, gu, 7, 0, 0), 0.75, 1e-6, 0, "ged best threshold, no unseen errors");
  CHECK_NEAR(el__ged_best_threshold(pu, gu, 7, 8, 0), 0.3, 1e-6, 0,
             "ged best threshold with unseen errors: lower, for the recall they cost");
  /* near_best: F0.5 by k is 0.625 0.833 0.625 0.5 0.625 0.714 0.625; within
   * 20 % of the best (>= 0.667) the lowest threshold is k = 6's */
  CHECK_NEAR(el__ged_best_threshold(pu, gu, 7, 0, 0.2), 0.3, 1e-6, 0,
             "ged threshold near the best: the lowest within the fraction");
  CHECK_NEAR(el__ged_best_threshold(pu, gu, 7, 0, 0.1), 0.75, 1e-6, 0,
             "ged threshold near the best: none lower within a tenth, the best itself");

  /* SQuAD normalization: lower, ASCII punctuation out, a/an/the out, spaces */
  check_norm("The  Quick, brown fox!", "quick brown fox");
  check_norm("An apple a day", "apple day");
  check_norm("theatre and another", "theatre and another");
  check_norm("\xc3\x89" "clair (the \"best\")", "\xc3\xa9" "clair best");
  check_norm("  a  ", "");
  check_norm("the-end", "theend"); /* punctuation goes first: "theend" is no article */
  check_norm("U.S.A.", "usa");

  /* F1: "cat sat on mat" vs "cat on mat": 3 common, P 3/4, R 1 -> 6/7 */
  CHECK_NEAR(el__squad_f1("the cat sat on the mat", "a cat on a mat"), 6.0 / 7.0, 1e-9, 0,
             "squad f1 6/7");
  /* repeated tokens count once per gold occurrence: P 1/3, R 1/2 -> 0.4 */
  CHECK_NEAR(el__squad_f1("cat cat cat", "cat dog"), 0.4, 1e-9, 0, "squad f1 Counter overlap");
  CHECK(el__squad_em("The Broncos.", "broncos") == 1.0, "squad em after normalization");
  CHECK(el__squad_em("Denver Broncos", "broncos") == 0.0, "squad em is exact");
  const char *golds[] = {"Broncos", "Denver Broncos", "the Denver Broncos!"};
  CHECK(el__squad_max_em("Denver Broncos", golds, 3) == 1.0, "max em over golds");
  /* best gold for "Denver" is "Denver Broncos": P 1, R 1/2 -> 2/3 */
  CHECK_NEAR(el__squad_max_f1("Denver", golds, 3), 2.0 / 3.0, 1e-9, 0, "max f1 over golds");
  /* SQuAD 2.0: unanswerable gold = "" */
  CHECK(el__squad_max_em("", NULL, 0) == 1.0 && el__squad_max_f1("", NULL, 0) == 1.0,
        "no answer predicted for an unanswerable question");
  CHECK(el__squad_max_em("foo", NULL, 0) == 0.0 && el__squad_max_f1("foo", NULL, 0) == 0.0,
        "an answer for an unanswerable question scores 0");
  const char *empty_gold[] = {"the"};
  CHECK(el__squad_max_em("", empty_gold, 1) == 1.0,
        "a gold answer that normalizes to empty counts as unanswerable");
  return el_test_done();
}
