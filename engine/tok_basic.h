/* Internal: the BERT BasicTokenizer (Hugging Face BertTokenizer.tokenize up to
 * WordPiece), keeping for every character the code-point span of the
 * original text it came from.
 *
 * Stages, in Hugging Face's order:
 *   special tokens found in the raw text ([PAD] [UNK] [CLS] [SEP] [MASK],
 *     case-sensitive, never split, never lower-cased);
 *   if lower-casing: per-character Python str.lower() (İ -> i + U+0307);
 *   clean: drop U+0000, U+FFFD and C* except \t\n\r; whitespace/Zs -> space;
 *   spaces around CJK ideographs;
 *   NFC;
 *   split on Python whitespace;
 *   if lower-casing: lower again, NFD, drop Mn;
 *   split off every punctuation character.
 * Composed characters cover the union of their sources' spans; characters
 * from a decomposition all keep the span of the character they came from. */
#ifndef EL_TOK_BASIC_H
#define EL_TOK_BASIC_H
#include <stddef.h>
#include <stdint.h>
#include "electra/error.h"

/* HF WordpieceTokenizer.max_input_chars_per_word: a word of more characters
 * (after the stages) is one [UNK]; the vocabulary builder skips such words. */
#define EL__MAX_WORD_CHARS 100

/* One character on its way through the stages. cp < 0 is a special token
 * found in the text: cp = -(1 + el_special). Separating spaces the stages
 * insert have s = e = -1. */
typedef struct el__tchar {
  int32_t cp;
  int32_t s, e;  /* code-point span in the original text, end exclusive */
  int32_t ccc;   /* canonical combining class while normalising */
} el__tchar;

typedef struct el__tword {
  size_t b, e;  /* characters [b, e) of el__basic.c */
  int special;  /* el_special of a special token, else -1 */
  int32_t start, end; /* code-point span of the word in the original text */
} el__tword;

/* Scratch and result of one run; owned by the caller, zero-initialise, reuse,
 * release with el__basic_free. Not shared between threads. */
typedef struct el__basic {
  el__tchar *a, *b, *c;
  size_t na, nb, nc, capa, capb, capc;
  el__tword *w;
  size_t nw, capw;
  int no_specials; /* set by el__basic_run from EL__BASIC_NO_SPECIALS */
} el__basic;

/* The lower argument of el__basic_run / el__basic_text: non-zero lower-cases;
 * with EL__BASIC_NO_SPECIALS added, "[SEP]" and the other special tokens in
 * the text are plain text ("[", "sep", "]"), as Hugging Face's
 * split_special_tokens=True; without it they are special tokens (its
 * default). */
#define EL__BASIC_NO_SPECIALS 2

/* Runs the stages on n code points. Result: words w[0..nw) over chars c.
 * Returns 0, or -1 when memory ran out. */
int el__basic_run(el__basic *bt, const int32_t *cps, size_t n, int lower);
void el__basic_free(el__basic *bt);

/* Called by el__basic_text for each word: bt->c[w->b .. w->e) are its
 * characters (w->special >= 0: a special token), w->start/w->end its
 * code-point span within the current chunk, base the chunk's first code
 * point in the whole text. Returns 0, or nonzero when memory ran out. */
typedef int (*el__word_fn)(void *ctx, const el__basic *bt, const el__tword *w, int base);

/* The BasicTokenizer on len bytes of UTF-8 text: what el_tokenize runs
 * before WordPiece, and the one way the trainer splits text into words (the
 * vocabulary builder, GED sentences), so both see the same words. Strict
 * decoding (tok_utf8.h), then el__basic_run over chunks that end just after
 * an ASCII whitespace byte once 8 KiB have been read (no stage looks across
 * ASCII whitespace, so chunking changes no word, and scratch memory stays
 * bounded). Calls fn for every word in order; *n_cp (may be NULL) receives
 * the text's length in code points. Returns EL_OK; EL_EINVAL for invalid
 * UTF-8 ("invalid UTF-8 at byte N: why"); EL_ETOOLONG beyond INT_MAX / 4
 * bytes; EL_ENOMEM (also when fn fails). On failure the words of earlier
 * chunks have been reported already: the caller discards what it kept. */
int el__basic_text(const char *text, size_t len, int lower, el__word_fn fn, void *ctx, int *n_cp,
                   el_error *err);

/* NFC of in[0..n) with span tracking into *out (grown as needed, *cap its
 * size); cp < 0 entries pass through and never compose. Returns the output
 * length or -1 when memory ran out. Exposed for tests. */
ptrdiff_t el__nfc(const el__tchar *in, size_t n, el__tchar **out, size_t *cap);

/* Builds the shared read-only Unicode helper tables once (thread-safe; also
 * done lazily by the first run). */
void el__basic_init(void);

/* Special-token spelling for an el_special index (0..4). */
const char *el__special_text(int k);

#endif
