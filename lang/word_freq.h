/* Word frequencies of a model's own text: the counts `electra-train vocab
 * --word-counts` writes (one "word<TAB>count" a line; `recipe ged` puts
 * its corpus's beside the generator as generator/word_counts.txt). The
 * checker's prior over a misspelling's corrections: the one of hunspell's
 * suggestions a writer meant is far more often a common word ("which" for
 * "wich", not "winch"), which is what a noisy-channel spelling corrector's
 * P(word) says. Read-only once loaded: safe to share between threads. */
#ifndef EL_LANG_WORD_FREQ_H
#define EL_LANG_WORD_FREQ_H

#include <stddef.h>

#include "electra/error.h"

typedef struct el__word_freq el__word_freq;

/* Reads path. Words are looked up in lower case (a cased file's spellings
 * are summed). A line that is not a word, a tab and a positive count is
 * EL_EFORMAT naming path:line, and so are counts summing past 10^15; an
 * empty file too. *out owned by the
 * caller: el__word_freq_free. */
int el__word_freq_load(const char *path, el__word_freq **out, el_error *err);
/* The same from memory (name in messages). */
int el__word_freq_parse(const char *buf, size_t len, const char *name, el__word_freq **out,
                        el_error *err);
void el__word_freq_free(el__word_freq *f);

/* log P(text) under the unigram distribution, text being one or more words
 * separated by spaces or hyphens ("rest rant" costs both words); a word
 * not in the table counts as half an occurrence. */
float el__word_freq_logp(const el__word_freq *f, const char *text);

#endif
