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

/* One piece that is a single punctuation character c (the BasicTokenizer
 * gives each its own piece). */
static int lone_punct(const ctx *x, int p, uint32_t *c) {
  *c = first_cp(x, p);
  return x->t->tok[p].end - x->t->tok[p].start == 1 && kind_of(*c) != K_WORD;
}
/* Brackets and quotes around a token, and the sentence punctuation after it. */
static int wraps_before(uint32_t c) {
  return (c && c < 0x80 && strchr("([{<\"'`", (int)c)) || c == 0x2018 || c == 0x201C;
}
static int wraps_after(uint32_t c) {
  return (c && c < 0x80 && strchr(")]}>\"'`.,;:!?", (int)c)) || c == 0x2019 || c == 0x201D || c == 0x2026;
}
static int is_lower(char c) { return c >= 'a' && c <= 'z'; }
static int is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static int is_alnum(char c) { return is_lower(c) || is_upper(c) || (c >= '0' && c <= '9'); }

/* Letters and digits in one run of them ("BF16", "x86", "v2"), but for a
 * number with a short suffix ("2nd", "5pm", "1990s", "4GB"), which a writer
 * types as a word and may get wrong ("2th"). */
static int mixed_alnum(const char *s, size_t n) {
  for (size_t i = 0; i < n;) {
    size_t j = i, digits = 0, letters = 0, lead = 0;
    while (j < n && is_alnum(s[j])) {
      int d = s[j] >= '0' && s[j] <= '9';
      digits += d, letters += !d;
      if (d && !letters) lead++;
      j++;
    }
    int number_suffix = lead == digits && letters <= 2;
    if (digits && letters && !number_suffix) return 1;
    i = j + (j == i);
  }
  return 0;
}

/* A token of code or the web rather than prose (words.h): s[0..n) with no
 * space inside. */
static int technical_text(const char *s, size_t n) {
  if (n < 2) return 0;
  int alnum = 0;
  for (size_t i = 0; i < n; i++) alnum |= is_alnum(s[i]);
  if (!alnum) return 0;
  if ((n > 4 && !strncasecmp(s, "www.", 4)) || (s[0] == '-' && (s[1] == '-' || is_lower(s[1]))))
    return 1;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c && strchr("/\\_@#=+|~$^&*<>{}[]%", c)) return 1;
    /* a file name or host ("config.json", "example.org"), not "3.5" or "U.S" */
    if (c == '.' && i && i + 1 < n && is_alnum(s[i - 1]) && !is_upper(s[i + 1]) &&
        is_alnum(s[i + 1]) && !(is_digit((uint8_t)s[i - 1]) && is_digit((uint8_t)s[i + 1])))
      return 1;
    if (i && is_lower(s[i - 1]) && is_upper(c)) return 1; /* camelCase */
  }
  return mixed_alnum(s, n);
}

/* The run of touching pieces starting at p (after whitespace): its core,
 * less the brackets, quotes and punctuation around it, into [*c0, *c1)
 * when it is a technical token; else *c0 = -1. */
static void technical_core(const ctx *x, int p, int *c0, int *c1) {
  int q = p + 1;
  while (touching(x, q - 1)) q++;
  uint32_t c;
  int a = p, b = q;
  while (a < b && lone_punct(x, a, &c) && wraps_before(c)) a++;
  while (b > a && lone_punct(x, b - 1, &c) && wraps_after(c)) b--;
  *c0 = -1;
  if (b <= a) return;
  size_t s = x->cpb[x->t->tok[a].start], e = x->cpb[x->t->tok[b - 1].end];
  if (technical_text(x->text + s, e - s)) *c0 = a, *c1 = b;
}

static int push(el__text_words *out, const ctx *x, int p0, int p1, int technical, el_error *err) {
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
  w->technical = technical;
  w->acronym = 0; /* the checker marks them per sentence */
  return 0;
}

/* A word in capitals: 2 for two or more capitals, then nothing or a
 * plural's or possessive's "s", "'s" ("GPUs", "BBC's"); 1 for "I" and other
 * single capitals; 0 for a word of letters with a small letter elsewhere;
 * -1 for the rest (no letters to judge). */
static int capitals(const char *s, size_t n) {
  size_t caps = 0, i = 0;
  while (i < n && is_upper(s[i])) caps++, i++;
  if (caps >= 1 && (i == n || (caps >= 2 && ((i + 1 == n && s[i] == 's') ||
                                            (i + 2 == n && s[i] == '\'' && s[i + 1] == 's')))))
    return caps >= 2 ? 2 : 1;
  for (i = 0; i < n; i++)
    if (is_lower(s[i])) return 0;
  return -1;
}

void el__text_words_mark_acronyms(const char *text, el__text_words *ws, int w0, int w1) {
  int caps = 0, lettered = 0;
  for (int i = w0; i < w1; i++) {
    int k = capitals(text + ws->w[i].start, ws->w[i].end - ws->w[i].start);
    caps += k >= 1, lettered += k >= 0;
  }
  int shouted = caps >= 3 && 2 * caps >= lettered;
  for (int i = w0; i < w1; i++)
    ws->w[i].acronym = !shouted && capitals(text + ws->w[i].start, ws->w[i].end - ws->w[i].start) == 2;
}

int el__text_words_group(const char *text, size_t len, const el_tokens *t, el__text_words *out,
                    el_error *err) {
  out->n = 0;
  size_t ncp = el_utf8_offsets(text, len, NULL);
  if (el__grow((void **)&out->cp_bytes, &out->cp_cap, ncp + 1, sizeof(size_t)))
    return el_error_set(err, EL_ENOMEM, "words: out of memory");
  el_utf8_offsets(text, len, out->cp_bytes);
  ctx x = {text, len, t, out->cp_bytes};
  int tech0 = -1, tech1 = -1;
  for (int p = 0; p < t->n;) {
    if (p == 0 || !touching(&x, p - 1)) technical_core(&x, p, &tech0, &tech1);
    if (p <= tech0) { /* the token, or a bracket or quote before it */
      int end = p == tech0 ? tech1 : p + 1, rc = push(out, &x, p, end, p == tech0, err);
      if (rc) return rc;
      p = end;
      continue;
    }
    int clitic = split_clitic(&x, p), end = p + 1 + clitic;
    if (clitic || kind(&x, p) != K_WORD) { /* a clitic written apart is a word; punctuation stands alone */
      int rc = push(out, &x, p, end, 0, err);
      if (rc) return rc;
      p = end;
      continue;
    }
    for (int j; (j = joined_after(&x, end - 1)) > 0;) {
      end += j;
      if (j == 1 && kind(&x, end - 1) != K_WORD) break; /* "students'" ends the word */
    }
    int rc = push(out, &x, p, end, 0, err);
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
