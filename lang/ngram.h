/* An English word n-gram language model already on a writer's machine:
 * CMU Sphinx's US English trigram model (Debian pocketsphinx-en-us,
 * en-us.lm.bin: 72,547 words, 2.05 M bigrams, 1.67 M trigrams), read through
 * libsphinxbase. A tiny detector trained for minutes on generated errors
 * sees a learner's "interested on" or "I have went" only weakly; the model of
 * millions of words of English sees that one word of a small set of
 * alternatives is far likelier there. The alternatives are the learner-error
 * library's (learner.h: other prepositions, the other forms of a verb or
 * noun, an article added before a word), so what the checker proposes and
 * what this reads come from one list.
 *
 * Thread-safe: libsphinxbase's trie keeps a history cache in the model, so
 * calls are serialised on a lock. */
#ifndef EL_LANG_NGRAM_H
#define EL_LANG_NGRAM_H

#include "electra/error.h"
#include "learner.h"

typedef struct el__ngram el__ngram;

/* Where Debian's pocketsphinx-en-us puts the model. */
#define EL__NGRAM_DEFAULT_PATH "/usr/share/pocketsphinx/model/en-us/en-us.lm.bin"

/* Loads the model at path (NULL: EL__NGRAM_DEFAULT_PATH; ARPA text or
 * Sphinx's binary formats). A missing or unreadable file fails with EL_EIO
 * naming it and the Debian package. *out owned by the caller: el__ngram_free. */
int el__ngram_load(const char *path, el__ngram **out, el_error *err);
void el__ngram_free(el__ngram *m);

/* 1 when the model has the word (any case; ASCII folded), else 0. */
int el__ngram_known(el__ngram *m, const char *word);

/* ln P(words) under the model, sentence start and end included; words
 * without a letter or digit (punctuation) are left out, as the model has
 * none; an unknown word is the model's <UNK>. */
double el__ngram_logp(el__ngram *m, const char *const *words, int n);

/* How an alternative changes a word of a sentence. */
typedef enum el__ngram_edit {
  EL__NGRAM_PREP = 0, /* another preposition in its place ("interested on" -> "in") */
  EL__NGRAM_VERB,     /* another form of the verb ("he go" -> "goes", "have went" -> "gone") */
  EL__NGRAM_NOUN,     /* the noun's other number ("many informations" -> "information") */
  EL__NGRAM_AN,       /* "a" for "an" and back ("a apple" -> "an") */
  EL__NGRAM_ADD,      /* an article before it ("take exam": the word after the gap) */
  EL__NGRAM_DEL,      /* the word deleted ("I am agree", "discussed about it"): by rule only */
  EL__NGRAM_CONF,     /* a word it is often confused with ("the hole day" -> "whole") */
  EL__NGRAM_JOIN,     /* it and the next word as one word ("suggest to go" -> "going"): by rule */
  EL__NGRAM_EDITS
} el__ngram_edit;

/* How much likelier (ln of the ratio) an alternative must make the sentence
 * before a word is read as wrong, per kind of edit: the levels at which 1 %
 * of the places of that kind in correct English text (make run's Debian
 * sentences) would be flagged, so each kind keeps the same false-alarm rate
 * there whatever its gains look like; docs/GED.md has the measurement. */
extern const double EL__NGRAM_GAIN[EL__NGRAM_EDITS];

/* For each of the n words (a tokenized sentence, FCE's "do n't" split or a
 * writer's words), the largest ln P(sentence with an alternative at word i)
 * - ln P(sentence), for each kind of edit (gain[EL__NGRAM_EDITS i + kind]; -1e30
 * where no alternative of that kind applies; words unknown to the model and
 * names are left alone: a spellchecker's business). Returns EL_OK, or
 * EL_ENOMEM with a message. */
int el__ngram_gains(el__ngram *m, const el__learner *l, const char *const *words, int n,
                    double *gain, el_error *err);

/* Per word, the edit the model finds far likelier: kind[i] (el__ngram_edit,
 * the one whose gain passes its level by most; -1 none) and best[i] (the word
 * written instead, or the article added before it; lower case; "" for
 * none). The grammar checker's correction of such a word. Returns EL_OK, or
 * EL_ENOMEM with a message. */
int el__ngram_best(el__ngram *m, const el__learner *l, const char *const *words, int n, int *kind,
                   char (*best)[EL__LWORD_MAX], el_error *err);

/* 1 where a word's gain of some kind reaches EL__NGRAM_GAIN: an alternative
 * is far likelier there (out[i]; else 0). Of two words a hyphen joins
 * ("forty five" -> "forty-five") the second is marked, the one that changes. */
int el__ngram_read_words(el__ngram *m, const el__learner *l, const char *const *words, int n,
                         unsigned char *out, el_error *err);

#endif
