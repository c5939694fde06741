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
} el__basic;

/* Runs the stages on n code points. Result: words w[0..nw) over chars c.
 * Returns 0, or -1 when memory ran out. */
int el__basic_run(el__basic *bt, const int32_t *cps, size_t n, int lower);
void el__basic_free(el__basic *bt);

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
