/* BERT BasicTokenizer without a vocabulary (ELECTRA.md §10 steps 1-6), used
 * by the vocabulary learner to count words the same way the engine's
 * tokenizer will later split them:
 *   invalid UTF-8 bytes dropped (Python errors="ignore"); U+0000, U+FFFD and
 *   control characters (category C* except \t \n \r) dropped; whitespace
 *   (space, \t \n \r, Zs) separates words; spaces around CJK ideographs; NFC;
 *   lower-casing + accent stripping (NFD, drop Mn) when lower != 0;
 *   punctuation (ASCII 33-47, 58-64, 91-96, 123-126, or category P*) becomes
 *   a word of its own.
 * Lower-casing is utf8proc's per-code-point mapping (Python's str.lower()
 * differs only for a handful of code points such as U+0130). */
#ifndef EL_TRAIN_DATA_PRETOK_H
#define EL_TRAIN_DATA_PRETOK_H

#include <stddef.h>

/* Words of one text. Zero-initialise, reuse across calls (buffers grow),
 * release with el__words_free. Word i is the NUL-terminated UTF-8 string
 * buf + off[i], len[i] bytes, ncp[i] code points. */
typedef struct el__words {
  char *buf;
  size_t used, cap;
  int *off, *len, *ncp;
  int n, wcap;
  /* scratch for the NFC path */
  char *tmp;
  size_t tmp_cap;
} el__words;

/* Splits len bytes of text into words (appending nothing else). Returns 0,
 * or -1 when out of memory. */
int el__pretokenize(const char *text, size_t len, int lower, el__words *out);
void el__words_free(el__words *w);

/* Category tests on one code point, exposed for tests. */
int el__is_punct(int cp);
int el__is_cjk(int cp);

#endif
