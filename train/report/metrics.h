/* Evaluation metrics of the fine-tuning tasks (docs/MODEL.md §8):
 * MCC (CoLA), accuracy, F1 of the positive class (MRPC, QQP), Pearson and
 * Spearman (STS-B), token precision/recall/F0.5 of the error class (GED, as in
 * the FCE literature) and SQuAD EM/F1 with the official answer normalization.
 * Degenerate inputs (no examples, a constant series, no predicted positives)
 * give 0 rather than NaN, as scikit-learn and scipy-style reports do. */
#ifndef EL_TRAIN_METRICS_H
#define EL_TRAIN_METRICS_H

#include <stddef.h>

/* Fraction of i with pred[i] == gold[i]; 0 when n == 0. */
double el__metric_accuracy(const int *pred, const int *gold, int n);

/* Matthews correlation for n_classes >= 2 (Gorodkin's multi-class form, which
 * is the usual binary formula for 2 classes); labels outside [0, n_classes)
 * are ignored. 0 when the denominator is 0. */
double el__metric_mcc(const int *pred, const int *gold, int n, int n_classes);

/* F1 of class `positive`: 2PR/(P+R); 0 when there is no true positive. */
double el__metric_f1(const int *pred, const int *gold, int n, int positive);

/* Pearson correlation; 0 when either series is constant or n < 2. */
double el__metric_pearson(const double *x, const double *y, int n);

/* Spearman correlation: Pearson of the ranks, ties get their average rank.
 * Returns -1.0 - 1 (i.e. -2) only on allocation failure. */
double el__metric_spearman(const double *x, const double *y, int n);

/* Token-level error detection, error class = 1 (label "i"). */
typedef struct el__ged_scores {
  long tp, fp, fn, tn;
  double precision, recall, f05; /* 0 when the denominator is 0 */
} el__ged_scores;
void el__metric_ged(const int *pred, const int *gold, int n, el__ged_scores *out);
/* The scores of flagging every word whose prob >= threshold (as /score does). */
void el__metric_ged_at(const float *prob, const int *gold, int n, double threshold,
                       el__ged_scores *out);
/* The threshold with the highest F0.5 when words with prob >= it are flagged:
 * the midpoint between the lowest flagged and the highest unflagged
 * probability (so float noise between training and serving cannot move a
 * word across it); 1.0 when flagging nothing is best. Ties keep the higher
 * threshold. unseen_errors (>= 0) are errors that exist but are not among
 * the n words (generated dev data lacks the error types its generator does
 * not make): they count as missed in every recall, which moves the best
 * threshold down as real text with those errors would. near_best (0 for real
 * dev data) picks the lowest threshold whose F0.5 is within that fraction of
 * the best instead: on generated data the F0.5 curve is flat near its top, so
 * its argmax wanders with the sample, and real learners' errors score lower
 * than generated ones, so among near-equal thresholds the lowest is the one
 * that transfers (measured below EL__SYNTH_NEAR_BEST in ged_synth.h). Returns
 * -1 when out of memory. */
double el__ged_best_threshold(const float *prob, const int *gold, int n, double unseen_errors,
                              double near_best);

/* Official SQuAD (v1.1/v2.0 evaluate script) normalization of UTF-8 text:
 * lower-case, drop ASCII punctuation, replace the words a/an/the by a space,
 * collapse whitespace. Returns a malloc'd string (caller frees) or NULL when
 * out of memory. Lower-casing is utf8proc's simple per-code-point mapping
 * (Python's str.lower() differs only for a handful of special cases). */
char *el__squad_normalize(const char *text);

/* Exact match and token F1 of one prediction against one gold answer, both
 * after normalization. Negative on allocation failure. */
double el__squad_em(const char *pred, const char *gold);
double el__squad_f1(const char *pred, const char *gold);

/* Max over the gold answers; n_gold == 0 means an unanswerable question whose
 * gold answer is the empty string (SQuAD 2.0). */
double el__squad_max_em(const char *pred, const char *const *golds, int n_gold);
double el__squad_max_f1(const char *pred, const char *const *golds, int n_gold);

#endif
