/* BasicTokenizer word splitting for the vocabulary learner (data_pretok.h).
 * ASCII bytes take a fast path: the corpus is mostly ASCII, and for ASCII
 * NFC, accent stripping and the Unicode tables change nothing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>
#include "data_pretok.h"

int el__is_punct(int cp) {
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) ||
      (cp >= 123 && cp <= 126))
    return 1;
  if (cp < 128) return 0;
  utf8proc_category_t c = utf8proc_category(cp);
  return c >= UTF8PROC_CATEGORY_PC && c <= UTF8PROC_CATEGORY_PO;
}

int el__is_cjk(int cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
         (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B820 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

static int is_space(int cp) {
  if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r') return 1;
  if (cp < 128) return 0;
  return utf8proc_category(cp) == UTF8PROC_CATEGORY_ZS;
}

static int is_control(int cp) {
  if (cp == '\t' || cp == '\n' || cp == '\r') return 0;
  if (cp < 32 || cp == 127) return 1;
  if (cp < 128) return 0;
  utf8proc_category_t c = utf8proc_category(cp);
  return c == UTF8PROC_CATEGORY_CC || c == UTF8PROC_CATEGORY_CF || c == UTF8PROC_CATEGORY_CS ||
         c == UTF8PROC_CATEGORY_CO || c == UTF8PROC_CATEGORY_CN;
}

/* ---- word assembly ---- */

static int reserve_bytes(el__words *w, size_t extra) {
  if (w->used + extra <= w->cap) return 0;
  size_t cap = w->cap ? w->cap : 256;
  while (cap < w->used + extra) cap *= 2;
  char *b = realloc(w->buf, cap);
  if (!b) return -1;
  w->buf = b;
  w->cap = cap;
  return 0;
}

static int reserve_words(el__words *w) {
  if (w->n < w->wcap) return 0;
  int cap = w->wcap ? 2 * w->wcap : 64;
  int *o = realloc(w->off, cap * sizeof *o);
  if (!o) return -1;
  w->off = o;
  int *l = realloc(w->len, cap * sizeof *l);
  if (!l) return -1;
  w->len = l;
  int *c = realloc(w->ncp, cap * sizeof *c);
  if (!c) return -1;
  w->ncp = c;
  w->wcap = cap;
  return 0;
}

/* State of the word being built: open == 1 while bytes are being appended. */
typedef struct builder {
  el__words *w;
  int open;
} builder;

static int word_end(builder *b) {
  if (!b->open) return 0;
  el__words *w = b->w;
  if (reserve_bytes(w, 1)) return -1;
  w->len[w->n] = (int)(w->used - (size_t)w->off[w->n]);
  w->buf[w->used++] = 0;
  w->n++;
  b->open = 0;
  return 0;
}

static int word_put(builder *b, int cp) {
  el__words *w = b->w;
  if (!b->open) {
    if (reserve_words(w)) return -1;
    w->off[w->n] = (int)w->used;
    w->ncp[w->n] = 0;
    b->open = 1;
  }
  if (reserve_bytes(w, 4)) return -1;
  if (cp < 128) w->buf[w->used++] = (char)cp;
  else w->used += (size_t)utf8proc_encode_char(cp, (utf8proc_uint8_t *)w->buf + w->used);
  w->ncp[w->n]++;
  return 0;
}

/* One cleaned, NFC code point: lower/strip, then split on punctuation. */
static int emit(builder *b, int cp, int lower) {
  if (is_space(cp)) return word_end(b);
  if (cp < 128) {
    if (lower && cp >= 'A' && cp <= 'Z') cp += 32;
    if (el__is_punct(cp)) {
      if (word_end(b) || word_put(b, cp)) return -1;
      return word_end(b);
    }
    return word_put(b, cp);
  }
  if (el__is_cjk(cp)) {
    if (word_end(b) || word_put(b, cp)) return -1;
    return word_end(b);
  }
  int32_t parts[8];
  int n = 1;
  parts[0] = cp;
  if (lower) {
    int32_t lc = utf8proc_tolower(cp);
    int last = 0;
    utf8proc_ssize_t k =
        utf8proc_decompose_char(lc, parts, 8, (utf8proc_option_t)UTF8PROC_DECOMPOSE, &last);
    if (k < 1 || k > 8) {
      parts[0] = lc;
      k = 1;
    }
    n = (int)k;
  }
  for (int i = 0; i < n; i++) {
    int c = parts[i];
    if (lower && utf8proc_category(c) == UTF8PROC_CATEGORY_MN) continue;
    if (el__is_punct(c)) {
      if (word_end(b) || word_put(b, c) || word_end(b)) return -1;
    } else if (word_put(b, c)) {
      return -1;
    }
  }
  return 0;
}

/* Copies the valid UTF-8 sequences of text (dropping invalid bytes, NUL,
 * U+FFFD and controls), then NFC-normalizes the result. Returns a malloc'd
 * string (caller frees) and its length, or NULL. */
static char *clean_nfc(const char *text, size_t len, el__words *w, size_t *out_len) {
  if (w->tmp_cap < len + 1) {
    char *t = realloc(w->tmp, len + 1);
    if (!t) return NULL;
    w->tmp = t;
    w->tmp_cap = len + 1;
  }
  size_t o = 0;
  const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)text;
  size_t i = 0;
  while (i < len) {
    int32_t cp;
    utf8proc_ssize_t k = utf8proc_iterate(p + i, (utf8proc_ssize_t)(len - i), &cp);
    if (k < 1) {
      i++;
      continue;
    }
    if (cp != 0 && cp != 0xFFFD && !is_control(cp)) {
      memcpy(w->tmp + o, p + i, (size_t)k);
      o += (size_t)k;
    }
    i += (size_t)k;
  }
  utf8proc_uint8_t *dst = NULL;
  utf8proc_ssize_t n = utf8proc_map((const utf8proc_uint8_t *)w->tmp, (utf8proc_ssize_t)o, &dst,
                                    (utf8proc_option_t)(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  if (n < 0) return NULL;
  *out_len = (size_t)n;
  return (char *)dst;
}

int el__pretokenize(const char *text, size_t len, int lower, el__words *out) {
  out->n = 0;
  out->used = 0;
  builder b = {out, 0};
  int ascii = 1;
  for (size_t i = 0; i < len; i++)
    if ((unsigned char)text[i] >= 128) {
      ascii = 0;
      break;
    }
  if (ascii) {
    for (size_t i = 0; i < len; i++) {
      int c = (unsigned char)text[i];
      if (is_control(c)) continue;
      if (emit(&b, c, lower)) return -1;
    }
    return word_end(&b);
  }
  size_t n;
  char *s = clean_nfc(text, len, out, &n);
  if (!s) return -1;
  const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)s;
  int rc = 0;
  for (size_t i = 0; i < n && !rc;) {
    int32_t cp;
    utf8proc_ssize_t k = utf8proc_iterate(p + i, (utf8proc_ssize_t)(n - i), &cp);
    if (k < 1) {
      i++;
      continue;
    }
    i += (size_t)k;
    rc = emit(&b, cp, lower);
  }
  free(s);
  if (rc) return -1;
  return word_end(&b);
}

void el__words_free(el__words *w) {
  free(w->buf);
  free(w->off);
  free(w->len);
  free(w->ncp);
  free(w->tmp);
  memset(w, 0, sizeof *w);
}
