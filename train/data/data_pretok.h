/* Words of a text as the engine's tokenizer splits them before WordPiece:
 * the one BasicTokenizer (engine/tok_basic.h, el__basic_text), so the
 * vocabulary builder counts, and the GED tools label, exactly the words
 * el_tokenize will later see. Invalid UTF-8 is refused, as el_tokenize
 * refuses it; special tokens written in the text ([MASK], ...) are words
 * marked special, never split or lower-cased. */
#ifndef EL_TRAIN_DATA_PRETOK_H
#define EL_TRAIN_DATA_PRETOK_H

#include <stddef.h>
#include "electra/error.h"

/* Words of one text. Zero-initialise, reuse across calls (buffers grow),
 * release with el__words_free. Word i is the NUL-terminated UTF-8 string
 * buf + off[i], len[i] bytes, ncp[i] characters (code points after
 * normalisation: what WordPiece's 100-character limit counts); special[i]
 * is its el_special (the string is then its spelling, "[MASK]") or -1. */
typedef struct el__words {
  char *buf;
  size_t used, cap;
  int *off, *len, *ncp, *special;
  int n, wcap;
} el__words;

/* Splits len bytes of UTF-8 text into words (lower != 0: lower-casing and
 * accent stripping, the uncased tokenizer). Returns EL_OK; EL_EINVAL when
 * the text is not valid UTF-8, err naming the byte; EL_ENOMEM. On failure
 * out holds no words. */
int el__pretokenize(const char *text, size_t len, int lower, el__words *out, el_error *err);
void el__words_free(el__words *w);

#endif
