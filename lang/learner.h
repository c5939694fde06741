/* Synthetic learner (ESL) errors on clean, already tokenized sentences
 * (issue 14): the error families of docs/MODEL.md §11, drawn deterministically from
 * a seed, labelled in the FCE token convention (docs/MODEL.md §11):
 *   - a replaced word and an unnecessary (extra) word: that word is 1;
 *   - a missing word: the FOLLOWING token is 1 (the word after the gap);
 *     when the gap is at the end of the sentence there is no following
 *     token, and nothing is marked (FCE's files mark none there);
 *   - a multi-token edit (word-order swap): every token it spans is 1.
 * Tokens are words as the FCE files have them (punctuation separate).
 * Replacements keep the capitalisation pattern of the word they replace
 * ("The" -> "A", "HAS" -> "HAVE"); a deletion at the start of a sentence
 * capitalises the new first word (it is marked anyway).
 *
 * Resources: WordNet's exception lists and lemma indexes from Debian's
 * wordnet-base (/usr/share/wordnet: verb.exc, noun.exc, index.verb,
 * index.noun) for verb forms and noun number; closed-class words
 * (determiners, prepositions, pronouns, auxiliaries) are tables in the code.
 *
 * Edits never overlap: a token changed, inserted or marked by one edit is
 * not touched by another, so the number of edits is the number of errors.
 *
 * Internal API (el__ prefix): the trainer's `corrupt` command, the
 * pretraining corruption (learner_ids.h) and the unit tests use it. */
#ifndef EL_TRAIN_LEARNER_H
#define EL_TRAIN_LEARNER_H

#include <stddef.h>
#include <stdint.h>
#include "electra/error.h"

/* Error families, named after the ERRANT types they imitate. */
typedef enum el__lfam {
  EL__LF_DET_MISSING,   /* M:DET    "take the exam" -> "take exam" */
  EL__LF_DET_WRONG,     /* R:DET    a <-> an <-> the, this <-> these ... */
  EL__LF_DET_EXTRA,     /* U:DET    "like music" -> "like the music" */
  EL__LF_PREP_WRONG,    /* R:PREP   "interested in" -> "interested on" */
  EL__LF_PREP_MISSING,  /* M:PREP   "listen to music" -> "listen music" */
  EL__LF_PREP_EXTRA,    /* U:PREP   "discuss the plan" -> "discuss about the plan" */
  EL__LF_PUNCT_MISSING, /* M:PUNCT  a comma, full stop ... dropped */
  EL__LF_PUNCT_WRONG,   /* R:PUNCT  "," <-> "." ... */
  EL__LF_PUNCT_EXTRA,   /* U:PUNCT  a comma inserted between two words */
  EL__LF_VERB_TENSE,    /* R:VERB:TENSE  "went" -> "go", "is" -> "was" */
  EL__LF_VERB_FORM,     /* R:VERB:FORM   "to go" -> "to going", "have gone" -> "have go" */
  EL__LF_VERB_SVA,      /* R:VERB:SVA    "she goes" -> "she go", "they are" -> "they is" */
  EL__LF_AUX_MISSING,   /* M:VERB:TENSE  "I am going" -> "I going" */
  EL__LF_NOUN_NUM,      /* R:NOUN:NUM    "children" -> "child", "cats" -> "cat" */
  EL__LF_SPELL,         /* R:SPELL  character edits on words of 3+ letters */
  EL__LF_ORTH,          /* R:ORTH   case: "London" -> "london", "i" */
  EL__LF_WORD_ORDER,    /* R:WO     two adjacent words swapped (both marked) */
  EL__LF_PRON_MISSING,  /* M:PRON   "I like it" -> "I like" */
  EL__LF_WORD_EXTRA,    /* U:PRON, U:VERB ... "it", "is", "to" inserted */
  EL__LF_COUNT
} el__lfam;

/* "M:DET", "R:SPELL", ...; NULL outside [0, EL__LF_COUNT). */
const char *el__lfam_name(int family);
/* The default share of a family among generated errors (sums to 1 over the
 * families; from docs/MODEL.md §11, see learner_corrupt.c). */
double el__lfam_weight(int family);

typedef struct el__learner el__learner; /* read-only after load; shareable between threads */

/* Loads the WordNet files from wordnet_dir (NULL: /usr/share/wordnet). A
 * missing file fails with EL_EIO naming it and the Debian package
 * (wordnet-base). *out owned by the caller: el__learner_free. */
int el__learner_load(const char *wordnet_dir, el__learner **out, el_error *err);
void el__learner_free(el__learner *l);

/* Changes one family's share of the mix (the others keep theirs; shares are
 * relative, any scale); 0 turns the family off, e.g. R:ORTH for a model that
 * lower-cases its input and so cannot see case errors. Call before sharing l
 * between threads. */
void el__learner_set_share(el__learner *l, int family, double share);

/* The share of real learner errors (FCE's edits, docs/MODEL.md §11) whose
 * types the families in use imitate: 0.63 with every family, 0.60 without
 * R:ORTH. The rest (lexical choice, R:MORPH, rarer types) never appears in
 * generated data, which calibration takes into account (ged_synth.h). */
double el__learner_coverage(const el__learner *l);

/* The family named "M:DET", "R:SPELL", ...; -1 for an unknown name. */
int el__lfam_by_name(const char *name);

/* Applies a mix such as "R:SPELL=0.5,M:DET=2": each named family's share is
 * multiplied by its factor (0 turns it off), the others keep theirs. An
 * unknown family, a malformed or negative factor, or a mix that turns every
 * family off fails with EL_EINVAL naming the defect; l is then unchanged. */
int el__learner_apply_mix(el__learner *l, const char *mix, el_error *err);

typedef struct el__lw el__lw; /* a word being edited (learner_internal.h) */

/* One corrupted sentence. Caller-owned: zero-initialise, reuse across calls
 * (storage grows), release with el__learner_sentence_free. words[i] points
 * into the struct's storage and stays valid until the next call with the
 * same out, or its release. */
typedef struct el__learner_out {
  int n;             /* words in the corrupted sentence */
  char **words;      /* [n] NUL-terminated UTF-8 */
  uint8_t *labels;   /* [n] 1 = error token (FCE convention), 0 = correct */
  int n_edits;       /* errors made */
  int family_edits[EL__LF_COUNT]; /* of them, per family */
  /* storage (private) */
  el__lw *work;
  int *sites;
  int cap_work, cap_words;
  char *text;
  size_t cap_text;
} el__learner_out;
void el__learner_sentence_free(el__learner_out *out);

/* Corrupts words[0..n) (n >= 0; words from the input are copied, never
 * modified). The number of errors is Binomial(n, rate): rate is the expected
 * number of errors per input token, in [0, 1] (FCE: ~0.10). Each error's
 * family is drawn by the default weights; a family that finds no place in the
 * sentence (no determiner to drop ...) is replaced by another draw, so the
 * realised rate stays close to rate except in very short sentences.
 * rng: a 64-bit state, advanced; the same state and input give the same
 * output. Errors: EL_EINVAL (bad argument), EL_ENOMEM. */
int el__learner_corrupt(const el__learner *l, const char *const *words, int n, double rate,
                        uint64_t *rng, el__learner_out *out, el_error *err);

/* Exactly one error of the given family where the sentence allows one
 * (out->n_edits = 1), else the sentence unchanged (n_edits = 0). For tests
 * and for inspecting one family. */
int el__learner_corrupt_family(const el__learner *l, const char *const *words, int n,
                               int family, uint64_t *rng, el__learner_out *out, el_error *err);

/* The sentence with one plain subject and present verb (drawn) made third
 * person singular, correct English and no error ("I like it." -> "She likes
 * it.", "If you have time" -> "if he has time", a reflexive after them
 * following: "we hurt ourselves" -> "he hurts himself"); *changed = 0 and
 * the sentence as it was when it has none (questions such as "do you like"
 * are left alone). The synthetic GED stage adds such copies because text
 * written to a reader ("I", "you") seldom has "she goes", the form whose
 * agreement error ("she go") learners make most (ged_synth.h). Output as
 * el__learner_corrupt's, every label 0. */
int el__learner_third_person(const el__learner *l, const char *const *words, int n,
                             uint64_t *rng, el__learner_out *out, int *changed, el_error *err);

/* One subject-verb agreement error on the verb right after he/she/it, be
 * excepted, where the form alone decides ("she goes" -> "she go", "he has"
 * -> "he have"; out->n_edits = 1), else the sentence unchanged (n_edits =
 * 0). The synthetic GED stage shows each such sentence next to its correct
 * form (ged_synth.h). */
int el__learner_subject_agreement(const el__learner *l, const char *const *words, int n,
                                  uint64_t *rng, el__learner_out *out, el_error *err);

/* --- word-level helpers, shared with the id-level corruption --- */

#define EL__LWORD_MAX 48 /* longest word (bytes + NUL) the families rewrite */

/* Other forms of the lower-case ASCII word w that an error of `family`
 * could replace it by (VERB_TENSE, VERB_FORM, VERB_SVA, NOUN_NUM, DET_WRONG,
 * PREP_WRONG, PUNCT_WRONG), lower-case, written to out[0..max); returns how
 * many (0 when w has none). Context-free: the sentence-level families also
 * look at the neighbouring words. */
int el__learner_variants(const el__learner *l, const char *w, int family,
                         char out[][EL__LWORD_MAX], int max);

/* The irregular forms a regular ending on an irregular word stands for, the
 * overregularisation learners make: "buyed" -> "bought", "goed" -> "went"
 * "gone", "childs" -> "children", "stoped" -> "stopped" (WordNet's exception
 * lists), lower-case, into out[0..max); 0 when w is a word WordNet knows or
 * no such form. */
int el__learner_irregular(const el__learner *l, const char *w, char out[][EL__LWORD_MAX], int max);

/* A verb form the words before it decide: the base form after a modal or a
 * form of "do", a subject pronoun between them or not ("can goes", "didn't
 * went", "did he went" -> "go"; "can", "will", "may", "must" and "might",
 * which are nouns too, only after a subject pronoun), and the -ing form after
 * "look forward to" ("hear" -> "hearing"); not a regular past after a
 * modal, often an adjective that wants "be" ("would interested"). low as
 * el__learner_agreement's; returns 1 and the form into fix[EL__LWORD_MAX],
 * else 0. */
int el__learner_verb_form_fix(const el__learner *l, const char *const *low, int n, int i,
                              char *fix);

/* The tense the sentence's lower-case words[0..n) are written in, leaving
 * out words[skip]: the sign of what its finite verbs (a past form after
 * be/have is a participle, not counted) and time words ("every", "usually";
 * "yesterday", "ago", "last week") say; 0 when they say nothing or
 * disagree evenly. words[i] may be NULL (not a word). */
int el__learner_sentence_tense(const el__learner *l, const char *const *words, int n, int skip);

/* A verb right after a subject pronoun (one adverb between at most) whose
 * form does not agree with it, the commonest errors a learner makes and a
 * pattern that decides alone: "she go" -> "goes" ("went" when the sentence
 * is in the past), "he have" -> "has", "he don't" -> "doesn't", "I is" ->
 * "am", "they goes" -> "go", "we was" -> "were", "there is many" -> "are"
 * (a number or a quantifier of many after the verb). low[0..n) are a text's
 * lower-case words (NULL for none); a pronoun after a word that makes it an
 * object or inverts a question ("let it go", "does she go") is no subject,
 * and a verb whose base form is also its past ("she put") is left alone.
 * Returns 1 and the form into fix[EL__LWORD_MAX], else 0. */
int el__learner_agreement(const el__learner *l, const char *const *low, int n, int i, char *fix);

/* The same after a possessive and a noun for a person or pet at the start
 * of a clause, singular or plural ("my sister go" -> "goes", "my parents
 * is" -> "are", "my friend have" -> "has"): the pattern proposes, the
 * n-gram model's reading keeps only what it finds likelier (a noun before a
 * noun, "my mother tongue", is not a verb). Returns 1 and the form into
 * fix[EL__LWORD_MAX], else 0. */
int el__learner_noun_agreement(const el__learner *l, const char *const *low, int n, int i,
                               char *fix);

/* The past forms for a present verb right after a subject pronoun, the
 * sentence's first verb, where a time word puts the sentence in the past and
 * nothing in it tells the present: a time phrase opening the sentence
 * ("Yesterday I go to the cinema" -> "went" "gone", "Two years ago I am" ->
 * "was") or ending the verb's one clause ("I go to the cinema yesterday",
 * "we visit London last year"; *phrase_last = 1 then, else 0; NULL allowed).
 * Into out[0..max), lower-case; which one fits the n-gram model's reading
 * chooses. 0 when none. */
int el__learner_past_fixes(const el__learner *l, const char *const *low, int n, int i,
                           char out[][EL__LWORD_MAX], int max, int *phrase_last);

/* Whether low[i] is the "have"/"has" of a present perfect that a past time
 * phrase rules out, in a clause that a subject pronoun opens ("I have
 * visited London last year", "Last week we have bought a car"), the
 * participle being the simple past too (its deletion the correction: "I
 * visited"; not "have seen", which wants "saw"). 1 or 0. */
int el__learner_perfect_in_past(const el__learner *l, const char *const *low, int n, int i);

/* Whether low[i] is a word a learner added that the pattern alone shows is
 * unnecessary (its deletion the correction): "am"/"are" between I/we/they/
 * you and a verb of thinking or wanting ("I am agree"), a preposition after
 * a verb that takes its object directly ("we discussed about the plan",
 * "mention about", "emphasise on"), "more" before an "-er" comparative and
 * "than" or before "better"/"worse" ("more taller than"), "of" after
 * "despite", "to" after "told" before whom ("told to her"), the comma after
 * "because" before its subject ("because, I"), "to" after a pronoun and
 * "must"/"should" ("you must to go"),
 * the comma after a sentence's opening "I think" before its clause ("I
 * think, it is"). low as el__learner_agreement's. 1 or 0. */
int el__learner_extra_word(const el__learner *l, const char *const *low, int n, int i);

/* A word a fixed phrase wants before low[i] that the writer left out: "it"
 * after a conjunction before "is"/"was" ("because is cheap"; because, if,
 * although, though), between "I/we think" and "is" ("I think is a good
 * idea"; not "what I think is") and between "appreciate" and "if", "to" between "look
 * forward" and an -ing form ("forward hearing from you"), "you" after
 * "thank" before "for", "to" between "explain" and an object pronoun,
 * "from" in "forward to hearing you", "to" in "I am writing you" (not "write
 * me a letter") and "reply your letter". 1 and the word
 * into word[EL__LWORD_MAX], else 0. low as el__learner_agreement's. */
int el__learner_missing_word(const el__learner *l, const char *const *low, int n, int i, char *word);

/* The number a fixed phrase wants for low[i]: "all kind of" -> "kinds"
 * ("sort", "type" too), "on holidays" -> "holiday". 1 and the form into fix,
 * else 0. */
int el__learner_phrase_noun(const char *const *low, int n, int i, char *fix);

/* The preposition a fixed phrase wants where low[i] is another: "look
 * forward for/of/about ..." -> "to", "the reason of" -> "for" (not "by reason
 * of"), "on July" -> "in" (not "on July 4th"), "the advertisement of" ->
 * "for", "I am good in tennis" -> "at" (not "good in his role"), "reply
 * for your letter" -> "to". 1 and the preposition into fix[EL__LWORD_MAX], else 0. */
int el__learner_phrase_prep(const char *const *low, int n, int i, char *fix);

/* "to" and a base verb after a verb that takes an -ing object ("I suggest
 * to go", "enjoy to swim"; suggest, enjoy, avoid, mind, finish, consider,
 * imagine, miss, recommend, ...; not after a form of "be": "it was suggested
 * to them"), low[i] being that "to": 1 and the -ing form into
 * fix[EL__LWORD_MAX] ("going"), which replaces low[i] and low[i + 1]; else 0. */
int el__learner_gerund_object(const el__learner *l, const char *const *low, int n, int i, char *fix);

/* "you" where "your" belongs: between a preposition and a noun that is no
 * verb ("thank you for you letter", "about you advertisement"); not before
 * "guys", "today" and the like. 1 or 0; which of the two the place wants the
 * n-gram model's reading confirms (ngram.h). */
int el__learner_you_your(const el__learner *l, const char *const *low, int n, int i);

/* A comma missing after a sentence's opening "However", "First of all",
 * "For example" or "For instance", before a subject or a clause ("However I
 * think"): 1 where low[i] is the word after the gap, else 0. */
int el__learner_opening_comma(const el__learner *l, const char *const *low, int n, int i);

/* Two words that are one ("May be I will come" -> "Maybe", "forty five" ->
 * "forty-five", "costumes, make up and" -> "make-up"), low[i] the first:
 * 1 and the word into fix[EL__LWORD_MAX], which replaces low[i] and
 * low[i + 1]; else 0. */
int el__learner_joined_words(const char *const *low, int n, int i, char *fix);

/* "Your sincerely" -> "Yours" (faithfully, truly) closing a letter (first
 * in its sentence, before the end, a comma or a name): 1 and the word into fix. */
int el__learner_letter_close(const el__learner *l, const char *const *low, int n, int i, char *fix);

/* The words the lower-case word w is often confused with, real words all
 * ("then" -> "than", "hole" -> "whole", "though" -> "thought" "through"),
 * into out[0..max), lower-case; returns how many (0: none). Which one a
 * place wants the n-gram model's reading decides (ngram.h). */
int el__learner_confusables(const char *w, char out[][EL__LWORD_MAX], int max);

/* low (a lower-case word) in the capitalisation pattern of pattern: all
 * upper when pattern has 2+ letters all upper, first upper when pattern's
 * first is, else as is; into out[EL__LWORD_MAX] (truncated). The checker
 * restores a writer's case on the lower-case forms above. */
void el__learner_recase(const char *pattern, const char *low, char *out);

/* Closed classes of a lower-case word (EL__LC_* bits), 0 for open-class or
 * unknown words. */
enum {
  EL__LC_ARTICLE = 1 << 0,  /* a an the */
  EL__LC_DET = 1 << 1,      /* articles, demonstratives, possessives, quantifiers */
  EL__LC_PREP = 1 << 2,     /* the preposition confusion set */
  EL__LC_PRON_SUBJ = 1 << 3, /* i you he she it we they */
  EL__LC_PRON = 1 << 4,     /* personal pronouns, subject or object */
  EL__LC_AUX = 1 << 5,      /* forms of be, have, do */
  EL__LC_MODAL = 1 << 6,    /* can could will would shall should may might must */
  EL__LC_CLOSED = 1 << 7    /* any function word (conjunctions, adverbs like "not" ...) */
};
uint32_t el__learner_word_class(const el__learner *l, const char *w);

/* Kind of a token: 1 a word (ASCII letters, with hyphens or apostrophes:
 * "n't", "well-known"), 2 punctuation (ASCII only), 0 anything else (digits,
 * accented words), which the families leave alone. */
enum { EL__LK_OTHER = 0, EL__LK_WORD = 1, EL__LK_PUNCT = 2 };
int el__learner_token_kind(const char *s);
/* 1 when w (non-NULL) is a mark that ends a sentence: ". ! ?". */
int el__learner_ends_sentence(const char *w);

/* One spelling error of the lower-case word w (3+ letters, letters only):
 * a character deleted, inserted (a keyboard neighbour), transposed,
 * substituted (a keyboard neighbour), doubled or undoubled, never the first
 * letter. Writes out[EL__LWORD_MAX]; returns 0 when w does not qualify. */
int el__learner_misspell(const char *w, uint64_t *rng, char *out);

/* The words an insertion family (DET_EXTRA, PREP_EXTRA, PUNCT_EXTRA,
 * WORD_EXTRA) inserts, *n of them (static; NULL and 0 for other families). */
const char *const *el__learner_insertions(int family, int *n);

#endif
