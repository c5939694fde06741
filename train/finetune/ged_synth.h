/* Synthetic grammatical-error-detection data: clean sentences from text
 * corpora (data_sentences.h) with learner errors added (learner.h), labelled
 * in the FCE token convention. Used by `finetune --task ged --synthetic-from`
 * as a training stage before (or instead of) real GED data. */
#ifndef EL_TRAIN_GED_SYNTH_H
#define EL_TRAIN_GED_SYNTH_H

#include <stdint.h>

#include "task_data.h"

typedef struct el__synth_opts {
  char *const *paths;  /* plain-text corpora */
  int n_paths;
  long sentences;      /* training sentences to generate */
  long dev_sentences;  /* held-out sentences (0: none) */
  double rate;         /* expected learner errors per word */
  uint64_t seed;       /* sample, split and errors are a function of it */
  const char *wordnet_dir; /* NULL: the Debian location */
  int lower_case;      /* the model lower-cases: no case errors (it cannot see them) */
  const char *mix;     /* NULL or "R:SPELL=0.5,...": el__learner_apply_mix */
  double coverage;     /* share of real learner errors the generated types stand
                        * for, in (0, 1]; 0: el__learner_coverage of the mix */
  const char *dict_dir; /* word lists for British spellings (text_variants.h); NULL: Debian's */
  double max_word_share; /* of a word's occurrences that may be errors; 0: the default below */
  double third_person;   /* share of copies rewritten to he/she/it (el__learner_third_person) */
  double agreement_pairs; /* share of copies given as an agreement pair (below) */
  double joined;          /* share of sentences also kept joined to the one before
                           * (el__sentences_read's join_share) */
} el__synth_opts;

/* At most this share of a word's occurrences in generated data are errors
 * (FCE: 9.8 % of all tokens; 6 % of "was", 9 % of "the", 10 % of commas).
 * 0.15 let "was", "a", "for" become suspect by themselves: make run's model
 * flagged 406 of FCE dev's "was" at its best threshold. */
#define EL__SYNTH_MAX_WORD_SHARE 0.08

/* Default share of copies made third person (el__synth_opts.third_person;
 * measured in docs/RESULTS.md §1b). */
#define EL__SYNTH_THIRD_PERSON 0.5

/* Default share of copies given as agreement pairs (el__synth_opts.agreement_pairs;
 * measured in docs/RESULTS.md §1b). */
#define EL__SYNTH_AGREEMENT_PAIRS 0.4

/* Default share of sentences also kept as a unit with the sentence before
 * them (el__synth_opts.joined): FCE's lines hold two sentences now and then,
 * and text sent to /score often does. */
#define EL__SYNTH_JOINED 0.15

/* The threshold calibrated on generated dev is the lowest whose F0.5 is
 * within 2 % of the best there (el__ged_best_threshold's near_best). The
 * argmax itself landed 0.03-0.14 above FCE dev's best threshold for six
 * models of make run's recipe (0.18-0.29 against 0.14-0.17); the lowest
 * within 2 % of the best, on 4,900 generated sentences, landed within 0.02
 * of it and lost at most 0.5 F0.5 points to it (docs/RESULTS.md §1b). */
#define EL__SYNTH_NEAR_BEST 0.02

/* Fills train (and dev when o->dev_sentences > 0) with corrupted sentences.
 * The dev sentences are drawn from the same sample (every k-th sentence), so
 * they are never trained on; a sentence the sample holds twice, or that is
 * also part of a joined unit (el__synth_opts.joined), is not held out (dev
 * is every k-th of the others). When the files hold fewer sentences than asked
 * for, each clean sentence is used several times, every copy with errors of
 * its own (a small corpus still fills a long stage with fresh errors).
 *
 * No word may become a cue by itself: in text where commas or "have" are
 * rare, inserting them makes most of their occurrences errors, and a model
 * learns "comma = error" (measured: 67 % of commas and 54 % of "have" were
 * errors in synthetic data from WordNet glosses, against 10 % and 12 % in
 * FCE, and the model flagged FCE's commas). So an error that would make
 * more than max_word_share of a word's occurrences (lower-cased; words the
 * sample never has are exempt: misspellings) errors is redrawn, a few times,
 * else the sentence stays clean.
 *
 * Each copy of a clean sentence is first written another way with
 * probability 1/2 each (text_variants.h): British spellings, FCE's split
 * negative contractions ("do n't"), other names, so none reads as an error.
 *
 * With probability third_person a copy that has a plain subject and present
 * verb ("I like", "you have") is then made third person ("she likes", "he
 * has"): text written to a reader seldom has "she goes", so its agreement
 * errors were nearly all "I likes"/"they eats", and a model learnt that an
 * -s form is suspect wherever it stands ("eats" 0.52 after "He", 0.51 after
 * "They" for make run's model, docs/RESULTS.md §1b).
 *
 * With probability agreement_pairs a training copy with a verb right after
 * he/she/it becomes a pair instead: the copy with one agreement error
 * there ("she go", "he have"; el__learner_subject_agreement) and,
 * next, the same copy correct. Learner errors at the ordinary rate give a
 * few thousand agreement errors a stage, and dense ones without their
 * correct twins teach the *place* (every verb after "she" suspect, "goes"
 * as much as "go"); in a pair the place is the same in both sentences, so
 * only the form can tell them apart. Neither sentence counts towards the
 * word cap below (each error word stands beside its correct form), and dev
 * gets no pairs (its share of errors stays what calibration expects).
 *
 * Calibration: the generator makes ~60 % of learners' error types (not
 * lexical choice, R:MORPH, ...), so recall on generated dev overstates recall
 * on real text, and the F0.5-best threshold on it sits too high (measured on
 * make run's model: 0.31 on generated dev against 0.20 on FCE dev). dev's
 * unseen_errors carries the errors of the other types real text would have:
 * n_errors * (1 / coverage - 1). */
int el__ged_synthesize(const el__synth_opts *o, el__ged_data *train, el__ged_data *dev,
                       el_error *err);

#endif
