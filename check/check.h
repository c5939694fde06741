/* The grammar checker: detection by the discriminator, corrections
 * ELECTRA's way (candidates from the generator and from the inverse of the
 * learner-error families of lang/, kept only when the discriminator accepts
 * the corrected sentence), an ERRANT type and a message per match
 * (check/match.h). One implementation behind `electra-train check`, the
 * server's /v2/check (LanguageTool's API) and /score's suggestions, and the
 * M2 scorer of `electra-train eval --m2`. */
#ifndef EL_CHECK_CHECK_H
#define EL_CHECK_CHECK_H

#include "electra/electra.h"
#include "dict.h"
#include "learner.h"
#include "ngram.h"
#include "match.h"

typedef struct el__checker el__checker;

typedef struct el__checker_opts {
  const el_model *detector;   /* ElectraForPreTraining or ElectraForTokenClassification; borrowed */
  const el_model *verifier;   /* the detector's verdict on candidate sentences, or NULL: the
                                 detector. The same checkpoint loaded in int8
                                 (check_verifier.c says why); borrowed */
  const el_model *generator;  /* ElectraForMaskedLM with the detector's vocabulary, or NULL:
                                 the other candidate sources still apply; borrowed */
  float threshold;            /* a word whose P(error) >= threshold is flagged */
  float suggest_threshold;    /* a flagged word gets replacements only when its P(error) >=
                                 this (a misspelling always does); 0: 0.9, or the threshold
                                 when that is higher (check.c says why). Higher trades
                                 suggestions for precision: the detector is surer of the words
                                 it scores higher, and a doubtful word's best verified edit is
                                 seldom the writer's */
  el_score_rule rule;         /* word P(error) from its pieces (score.h) */
  int correct_label;          /* token classifier: the label meaning "correct"; else -1 */
  const char *wordnet_dir;    /* NULL: /usr/share/wordnet */
  const char *dict_dir;       /* hunspell dictionaries; NULL: /usr/share/hunspell */
  /* The English of lang/ (~5 MB resident) and the dictionaries (~19 MB): borrowed when
   * given (a server shares one of each between its models and reloads), else loaded from
   * the two folders above and owned by the checker. */
  el__learner *learner;
  el__dict *dict;
  /* The English n-gram model (lang/ngram.h), borrowed, or NULL: a word for which it finds
   * another preposition, form or an added article far likelier is flagged with that
   * correction, which it has verified (a model built with --ngram: config.json's
   * score_dictionary_ngram) */
  el__ngram *ngram;
  int max_suggestions;        /* per match, 1..EL__MATCH_MAX_REPL (0: EL__MATCH_MAX_REPL) */
  int max_tokens;             /* the longest batch it runs (0: 4096) */
  const char *word_counts;    /* word frequencies (lang/word_freq.h) ranking a misspelling's
                                 corrections, or NULL: hunspell's order and the models alone
                                 (el__checker_word_counts finds a model's) */
  int verify_all;             /* verify every candidate within the cap, not best first until
                                 the best is known (check_verify.c): the reference the tests
                                 hold the best-first search to */
} el__checker_opts;

/* What the checker has run through its models since it was made: the
 * measure of a check's cost beside /score's one detection pass (eval --m2
 * prints it). */
typedef struct el__check_cost {
  long detect_ids;                  /* detection: the text's sentences */
  long gen_seqs, gen_ids;           /* the generator's masked sentences */
  long verify_rounds, verify_seqs, verify_ids; /* verification's batched passes */
} el__check_cost;

/* The verifier (el__checker_opts.verifier) of the detector loaded from dir:
 * its verification pass runs in the requested el_dtype (>= 0), else in
 * int8 where the engine's own int8 kernels run (el_dtype_native), else in
 * the detector's. *out: a second copy of the checkpoint in that dtype,
 * owned by the caller (el_model_free), or NULL when it is the detector's
 * own (the detector verifies). */
int el__check_verifier_load(const char *dir, const el_model *detector, int requested,
                            el_model **out, el_error *err);
/* The verifier's dtype as the server and the CLIs take it (--verify-dtype,
 * named src in messages): "auto" or NULL (-1: el__check_verifier_load's
 * default), "fp32", "int8" (refused when this build cannot load int8). */
int el__check_verify_dtype_parse(const char *v, const char *src, int *out, el_error *err);

/* Loads what the candidate sources need (WordNet, dictionaries) and makes
 * the workspaces. *out owned by the caller: el__checker_free. */
int el__checker_new(const el__checker_opts *o, el__checker **out, el_error *err);
void el__checker_free(el__checker *c);
const el__check_cost *el__checker_cost(const el__checker *c);

/* A model directory's generator: DIR/generator/ when it holds a config.json
 * (`recipe ged`, `make run` and `finetune --init RUN` keep it there). Writes
 * it to buf and returns buf, else NULL. */
const char *el__checker_generator_dir(const char *model_dir, char *buf, size_t cap);

/* A model's word frequencies: word_counts.txt in the generator's directory
 * (NULL: none), else in the model directory. Writes the path to buf and
 * returns buf, else NULL. */
const char *el__checker_word_counts(const char *model_dir, const char *generator_dir, char *buf,
                                    size_t cap);

/* Checks text (UTF-8, len bytes) as written in variant v of English and
 * appends its matches to out, in text order. Under EL__DICT_GB a word en_GB
 * rejects is misspelt though en_US knows it ("favorite"), and its
 * suggestions are en_GB's; EL__DICT_US the mirror; EL__DICT_EN either
 * dictionary's word is correct. The variant is per call: one checker serves
 * requests in any of them. Costs a few batched forward passes whatever the number of flagged
 * words: the detector over the text's sentences, the generator over the
 * flagged words that get replacements masked, the detector over their best
 * candidates' sentences. Not thread-safe (one checker per thread). */
int el__check_text(el__checker *c, const char *text, size_t len, el__dict_variant v,
                   el__matches *out, el_error *err);

/* LanguageTool's level=picky for the next el__check_text only (it resets
 * the setting, so a checker shared between requests carries nothing over):
 * replacements for every flagged word whatever its P(error) (the
 * suggestion threshold lowered to the flag threshold): more suggestions,
 * less precise ones, a slower check. 0: the checker's suggest_threshold. */
void el__checker_set_picky(el__checker *c, int picky);

/* Adds a writer's own words, one a line (blank lines and '#' comments
 * skipped), to the words the checker never flags: a project's names and
 * terms. A word in small letters is accepted in any case ("hunspell" also
 * accepts "Hunspell"), one with capitals only as written ("GitHub"). The list
 * is copied; calls add to it. EL_EINVAL naming a line that is not one
 * word. */
int el__checker_accept_words(el__checker *c, const char *list, size_t len, el_error *err);

#endif
