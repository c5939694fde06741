/* The spelling dictionary beside a GED model (score.h el_word_prob_dict,
 * lang/dict.h): its verdicts on GED data, its weight calibrated there, and
 * the scores of the dictionary alone and of the combination. Used by dev
 * evaluation during fine-tuning (which writes the weight and threshold into
 * config.json) and by `electra-train eval --task ged`. */
#ifndef EL_TRAIN_GED_DICT_H
#define EL_TRAIN_GED_DICT_H

#include "dict.h"
#include "ngram.h"
#include "metrics.h"
#include "task_data.h"

/* What the dictionary gives on one data set. */
typedef struct el__ged_dict_result {
  double weight;          /* q used: the given one, or the dictionary's precision here */
  double name_weight;     /* e used: the given one, or the share of errors among names here
                             (1 when there are none: no evidence) */
  double threshold;       /* applied to the combination (given, or chosen here) */
  int ngram;              /* the n-gram model's verdicts joined hunspell's (rd->lm) */
  el__ged_scores alone;   /* flagging exactly the words the dictionary rejects (with ngram: or
                             the n-gram model flags) */
  el__ged_scores spell;   /* flagging the words hunspell rejects, the n-gram model's aside: the
                             free spellchecker a model is measured against (= alone without ngram) */
  el__ged_scores with;    /* the combination at threshold: what /score flags */
} el__ged_dict_result;

/* Combines the n word probabilities prob (laid out as first[] says, gold
 * labels gold) with rd's verdicts on g's words (el_word_prob_dict). weight < 0:
 * calibrate q and e on g (the dictionary's precision, the share of errors
 * among names), else use weight and name_weight; pick: choose the threshold
 * as the model's own is chosen (el__ged_best_threshold with g's
 * unseen_errors and near_best; just under q when g is generated or the
 * combination does not beat the dictionary alone there), else use
 * threshold. comb (NULL or [n]) receives the combined probabilities. */
/* The verdicts read beside a model: hunspell's, and where lm is non-NULL the
 * n-gram model's (a word with a far likelier alternative reads as a
 * rejected one; lang/ngram.h) with learner's alternatives. */
typedef struct el__ged_readers {
  el__dict *dict;
  el__ngram *lm;
  el__learner *learner;
} el__ged_readers;

/* Loads the n-gram model (Debian's pocketsphinx-en-us) and the learner-error
 * library (WordNet) into rd->lm and rd->learner; el__ged_readers_close frees
 * them (not rd->dict). */
int el__ged_readers_open_ngram(el__ged_readers *rd, el_error *err);
void el__ged_readers_close_ngram(el__ged_readers *rd);

int el__ged_dict_score(const el__ged_readers *rd, const el__ged_data *g, const long *first, const float *prob,
                       const int *gold, double weight, double name_weight, int pick,
                       double threshold, float *comb, el__ged_dict_result *out, el_error *err);

#endif
