/* Correct text written another way: the spellings and token conventions
 * learners' text uses and the training text may lack (issue 14). Training on
 * both forms keeps a detector from reading a convention as an error.
 *
 *   - British spelling: "colour", "theatre", "realise", "travelling". Learner
 *     corpora such as FCE (Cambridge exams) are British; Debian's English text
 *     is mostly American, and a model trained on it alone flagged "theatre"
 *     and "favourite" as misspellings (measured on make run's model: 41 of
 *     735 false alarms on FCE dev were "theatre"). The pairs are derived, not
 *     listed: an American-only word of Debian's word lists (wamerican:
 *     /usr/share/dict/american-english) whose British form by one spelling
 *     rule (or->our, er->re, iz->is, yz->ys, l->ll, og->ogue, ense->ence,
 *     ay->ey, e->ae/oe, am->amme) is in the British list (wbritish) and the
 *     American form is not.
 *   - Other names: a name in the text ("Robert", "Haley" after the first
 *     word of a sentence) becomes another of the word lists' names (a
 *     capitalised entry whose lower-case form is no word: "Ryan", "Agatha").
 *     Learners write to and about people whose names the training text
 *     rarely has; make run's model flagged "Ryan", "Pat", "Kim", "Helen"
 *     (~120 of 984 false alarms on FCE dev at its threshold).
 *   - Split negative contractions, as the Penn Treebank and the FCE token
 *     files write them: "do n't", "ca n't", "wo n't". The engine's tokenizer
 *     splits "don't" into don ' t but FCE's "do n't" into do n ' t; a model
 *     that saw only the first flagged every "n't" of FCE.
 *
 * Internal API (el__ prefix) of the trainer: the synthetic GED stage applies
 * it to each copy of a clean sentence, the vocabulary builder counts both
 * forms of a word. */
#ifndef EL_TRAIN_TEXT_VARIANTS_H
#define EL_TRAIN_TEXT_VARIANTS_H

#include <stdint.h>
#include "electra/error.h"

#define EL__VARIANT_WORD_MAX 64 /* longest word with a British form, bytes + NUL */

typedef struct el__variants el__variants; /* read-only after load; shareable */

/* Derives the spelling pairs from the word lists in dict_dir (NULL:
 * /usr/share/dict). A missing list fails with EL_EIO naming it and its Debian
 * package (wamerican, wbritish). *out owned by the caller: el__variants_free. */
int el__variants_load(const char *dict_dir, el__variants **out, el_error *err);
void el__variants_free(el__variants *v);

/* Number of American -> British pairs. */
int el__variants_count(const el__variants *v);

/* The British form of word w ("color" -> "colour", "Color" -> "Colour",
 * "COLOR" -> "COLOUR": the case pattern kept) into out; 0 when w has none. */
int el__variants_british(const el__variants *v, const char *w, char out[EL__VARIANT_WORD_MAX]);

/* A sentence's words written another way: words[0..n) in, the new words out
 * (pointers to the inputs or into out_buf; out holds at most n words,
 * out_buf n * EL__VARIANT_WORD_MAX bytes). flags: EL__VAR_BRITISH
 * spells every word with a British form that way; EL__VAR_SPLIT_NT turns the
 * engine's split of a negative contraction (don ' t) into FCE's (do n't);
 * EL__VAR_NAMES replaces every name after the first word by a name drawn
 * from *rng (advanced; only then used). Returns the number of words out. */
enum { EL__VAR_BRITISH = 1, EL__VAR_SPLIT_NT = 2, EL__VAR_NAMES = 4 };
int el__variants_apply(const el__variants *v, const char *const *words, int n, int flags,
                       uint64_t *rng, const char **out, char *out_buf);

/* Number of names the lists give. */
int el__variants_names(const el__variants *v);

/* flags for one copy of a sentence: each variant on with probability 1/2,
 * drawn from *rng (advanced). */
int el__variants_draw(uint64_t *rng);

#endif
