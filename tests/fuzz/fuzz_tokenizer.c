/* libFuzzer: bytes -> WordPiece tokens and offsets. The first byte picks the
 * tokenizer (cased or lower-casing) and whether typed special tokens are
 * text; the rest is the text. Invalid UTF-8 must be refused, never read past;
 * on accepted text every token's and word's code-point offsets lie inside
 * the text, in order, and match el_utf8_offsets' count. */
#include <stdint.h>
#include <stdlib.h>

#include "electra/tokenizer.h"
#include "fuzz_util.h"

static el_tokenizer *tok[2];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!tok[0]) {
    el_error err = {0};
    if (el_tokenizer_load(fuzz_fixture("vocab.txt"), 0, &tok[0], &err) ||
        el_tokenizer_load(fuzz_fixture("vocab.txt"), 1, &tok[1], &err))
      abort();
  }
  if (size == 0) return 0;
  int mode = data[0];
  const char *text = (const char *)data + 1;
  size_t len = size - 1;
  el_tokens t = {0};
  el_error err = {0};
  int flags = mode & 2 ? EL_TOKENIZE_SPECIALS_AS_TEXT : 0;
  int rc = el_tokenize_opts(tok[mode & 1], text, len, flags, &t, &err);
  if (rc == 0) {
    size_t ncp = el_utf8_offsets(text, len, NULL);
    if ((size_t)t.n_codepoints != ncp) abort();
    int prev = 0;
    for (int i = 0; i < t.n; i++) {
      const el_token *k = &t.tok[i];
      if (k->start < 0 || k->end < k->start || k->end > t.n_codepoints) abort();
      if (k->start < prev) abort(); /* in text order */
      prev = k->start;
      if (k->id < 0 || k->id >= el_tokenizer_vocab_size(tok[mode & 1])) abort();
      if (k->word < 0 || k->word >= t.n_words) abort();
    }
    for (int w = 0; w < t.n_words; w++)
      if (t.word_start[w] < 0 || t.word_end[w] < t.word_start[w] ||
          t.word_end[w] > t.n_codepoints)
        abort();
  }
  el_tokens_free(&t);
  return 0;
}
