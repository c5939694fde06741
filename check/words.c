/* A writer's words from the tokenizer's pieces (words.h). */
#include "words.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "support_api.h"

enum { K_WORD, K_APOS, K_HYPHEN, K_DIGITSEP, K_PUNCT };

/* The code point starting at s (UTF-8 already validated by el_tokenize). */
static uint32_t decode(const unsigned char *s, size_t n) {
  if (n == 0) return 0;
  if (s[0] < 0x80 || n < 2) return s[0];
  if (s[0] < 0xE0) return (uint32_t)(s[0] & 0x1F) << 6 | (s[1] & 0x3F);
  if (s[0] < 0xF0 || n < 4)
    return n < 3 ? 0xFFFD : (uint32_t)(s[0] & 0x0F) << 12 | (uint32_t)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
  return (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3F) << 12 |
         (uint32_t)(s[2] & 0x3F) << 6 | (s[3] & 0x3F);
}

/* Non-ASCII punctuation a writer types: Latin-1 signs, General Punctuation
 * (dashes, curly quotes, ellipsis), CJK and full-width punctuation. Letters
 * of any script, digits, symbols and emoji count as word characters, as the
 * BasicTokenizer keeps them in words too. */
static int unicode_punct(uint32_t c) {
  return (c >= 0xA1 && c <= 0xBF && c != 0xAA && c != 0xB2 && c != 0xB3 && c != 0xB5 &&
          c != 0xB9 && c != 0xBA) ||
         c == 0xD7 || c == 0xF7 || (c >= 0x2010 && c <= 0x205E) ||
         (c >= 0x3000 && c <= 0x303F) || (c >= 0xFF01 && c <= 0xFF0F) ||
         (c >= 0xFF1A && c <= 0xFF20);
}

static int kind_of(uint32_t c) {
  if (c == '\'' || c == 0x2019) return K_APOS;
  if (c == '-' || c == 0x2010 || c == 0x2011) return K_HYPHEN;
  if (c == '.' || c == ',') return K_DIGITSEP;
  if (c < 0x80) {
    int alnum = (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
    return alnum ? K_WORD : K_PUNCT;
  }
  return unicode_punct(c) ? K_PUNCT : K_WORD;
}

typedef struct {
  const char *text;
  size_t len;
  const el_tokens *t;
  const size_t *cpb; /* code point -> byte */
} ctx;

static uint32_t first_cp(const ctx *x, int p) {
  size_t b = x->cpb[x->t->tok[p].start];
  return decode((const unsigned char *)x->text + b, x->len - b);
}
static uint32_t last_cp(const ctx *x, int p) {
  size_t b = x->cpb[x->t->tok[p].end - 1];
  return decode((const unsigned char *)x->text + b, x->len - b);
}
static int kind(const ctx *x, int p) { return kind_of(first_cp(x, p)); }
/* No whitespace between pieces p and p + 1. */
static int touching(const ctx *x, int p) {
  return p + 1 < x->t->n && x->t->tok[p + 1].start == x->t->tok[p].end;
}
static int is_digit(uint32_t c) { return c >= '0' && c <= '9'; }

/* How many pieces after p (a word piece) the separator at p + 1 brings into
 * p's word: 2 for an inner apostrophe/hyphen/digit separator and the word
 * piece after it, 1 for a possessive apostrophe after a final s, else 0. */
static int joined_after(const ctx *x, int p) {
  if (!touching(x, p)) return 0;
  int k = kind(x, p + 1);
  if (k == K_WORD) return 1;
  int next_word = touching(x, p + 1) && kind(x, p + 2) == K_WORD;
  if (k == K_APOS || k == K_HYPHEN) {
    if (next_word) return 2;
    uint32_t s = last_cp(x, p);
    return k == K_APOS && (s == 's' || s == 'S') ? 1 : 0;
  }
  if (k == K_DIGITSEP && next_word && is_digit(last_cp(x, p)) && is_digit(first_cp(x, p + 2)))
    return 2;
  return 0;
}

/* An English clitic written apart, as FCE's tokens are ("I 've", "John 's"):
 * an apostrophe at a word's start touching s, m, re, ve, ll, d or t ("n't"
 * is a word piece already) and nothing after. It is one word, as "n't" is:
 * split into "'" and "ve" the dictionary would call "ve" a misspelling. */
static int split_clitic(const ctx *x, int p) {
  static const char *const CLITICS[] = {"s", "m", "re", "ve", "ll", "d", "t"};
  if (kind(x, p) != K_APOS || !touching(x, p) || kind(x, p + 1) != K_WORD) return 0;
  if (touching(x, p + 1) && kind(x, p + 2) == K_WORD) return 0;
  size_t b0 = x->cpb[x->t->tok[p + 1].start], b1 = x->cpb[x->t->tok[p + 1].end];
  for (size_t i = 0; i < sizeof CLITICS / sizeof *CLITICS; i++)
    if (strlen(CLITICS[i]) == b1 - b0 && !strncasecmp(CLITICS[i], x->text + b0, b1 - b0)) return 1;
  return 0;
}

static int push(el__text_words *out, const ctx *x, int p0, int p1, el_error *err) {
  size_t cap = (size_t)out->cap;
  if (el__grow((void **)&out->w, &cap, (size_t)out->n + 1, sizeof *out->w))
    return el_error_set(err, EL_ENOMEM, "words: out of memory");
  out->cap = (int)cap;
  el__word *w = &out->w[out->n++];
  w->cp_start = x->t->tok[p0].start;
  w->cp_end = x->t->tok[p1 - 1].end;
  w->start = x->cpb[w->cp_start];
  w->end = x->cpb[w->cp_end];
  w->piece = p0;
  w->n_pieces = p1 - p0;
  return 0;
}

int el__text_words_group(const char *text, size_t len, const el_tokens *t, el__text_words *out,
                    el_error *err) {
  out->n = 0;
  size_t ncp = el_utf8_offsets(text, len, NULL);
  if (el__grow((void **)&out->cp_bytes, &out->cp_cap, ncp + 1, sizeof(size_t)))
    return el_error_set(err, EL_ENOMEM, "words: out of memory");
  el_utf8_offsets(text, len, out->cp_bytes);
  ctx x = {text, len, t, out->cp_bytes};
  for (int p = 0; p < t->n;) {
    int clitic = split_clitic(&x, p), end = p + 1 + clitic;
    if (clitic || kind(&x, p) != K_WORD) { /* a clitic written apart is a word; punctuation stands alone */
      int rc = push(out, &x, p, end, err);
      if (rc) return rc;
      p = end;
      continue;
    }
    for (int j; (j = joined_after(&x, end - 1)) > 0;) {
      end += j;
      if (j == 1 && kind(&x, end - 1) != K_WORD) break; /* "students'" ends the word */
    }
    int rc = push(out, &x, p, end, err);
    if (rc) return rc;
    p = end;
  }
  return 0;
}

void el__text_words_free(el__text_words *w) {
  if (!w) return;
  free(w->w);
  free(w->cp_bytes);
  memset(w, 0, sizeof *w);
}
