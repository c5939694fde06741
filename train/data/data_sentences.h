/* Clean sentences for synthetic grammatical-error data.
 *
 * Input: plain-text files; a paragraph is a run of non-blank lines (joined,
 * so hard-wrapped books read whole), split into sentences after . ! ?
 * followed by a capital, digit or quote; a "sentence" of more than 60 words
 * across several lines is taken line by line instead (files with one
 * unpunctuated unit per line, such as glossaries). Sentences of 3 to 60 words are
 * kept, split into words as the engine's BasicTokenizer splits text (without
 * lower-casing: punctuation is its own word, like the FCE token files).
 * Sentences that are not valid UTF-8 are skipped.
 *
 * With probability join_share a sentence is also kept joined to the sentence
 * before it in the same file, as one unit of two (at most 45 words). shared
 * (NULL, or set to a malloc'd [out->n] the caller frees): 1 for a unit that
 * has a sentence another unit of the sample also has, which must not be
 * held out from training while the other is trained on.
 *
 * At most max_sentences are kept: a uniform sample of the whole input
 * (reservoir sampling keyed by seed), so a large corpus is read in one pass
 * without holding it. The result is GED data with every label 0 ("correct"):
 * out->s[i].line is the sentence's rank in the sample (1-based). */
#ifndef EL_TRAIN_DATA_SENTENCES_H
#define EL_TRAIN_DATA_SENTENCES_H

#include <stdint.h>

#include "task_data.h"

int el__sentences_read(const char *const *paths, int n_paths, long max_sentences, uint64_t seed,
                       double join_share, el__ged_data *out, unsigned char **shared,
                       el_error *err);

#endif
