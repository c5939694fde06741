/* What ngram.c and ngram_read.c share: the model's word ids and the log
 * probability of a stretch of a sentence. */
#ifndef EL_LANG_NGRAM_INTERNAL_H
#define EL_LANG_NGRAM_INTERNAL_H

#include <stdint.h>
#include "ngram.h"

#define EL__NGRAM_NONE INT32_MIN /* a word the model does not have */

/* The model's id of word (any case), EL__NGRAM_NONE when unknown. */
int32_t el__ngram_id(el__ngram *m, const char *word);
/* The id of the sentence's start (<s>, end 0) or end (</s>, end 1). */
int32_t el__ngram_boundary(const el__ngram *m, int end);
/* Sum of ln P(ids[p] | the two ids before it) over p in [from, to) of a
 * sentence ids[0..len) that starts with <s> and ends with </s>. */
double el__ngram_span_logp(el__ngram *m, const int32_t *ids, int len, int from, int to);
/* 1 when w has a letter or a digit: a word the model reads (punctuation is not). */
int el__ngram_has_text(const char *w);

#endif
