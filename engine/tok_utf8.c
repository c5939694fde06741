/* Strict UTF-8 for the tokenizer: the server hands us request bytes, so every
 * malformed form is refused with its byte offset rather than repaired. */
#include "tok_utf8.h"
#include "electra/tokenizer.h"

ptrdiff_t el__utf8_decode(const char *s, size_t len, int32_t *out, size_t *bad_at,
                          const char **why) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0;
  ptrdiff_t n = 0;
  while (i < len) {
    unsigned c = p[i];
    if (c < 0x80) {
      out[n++] = (int32_t)c;
      i++;
      continue;
    }
    int need;
    unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    int32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      need = 1, cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      need = 2, cp = c & 0x0F;
      if (c == 0xE0) lo = 0xA0;      /* below: overlong */
      else if (c == 0xED) hi = 0x9F; /* above: UTF-16 surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
      need = 3, cp = c & 0x07;
      if (c == 0xF0) lo = 0x90;      /* below: overlong */
      else if (c == 0xF4) hi = 0x8F; /* above: beyond U+10FFFF */
    } else {
      *bad_at = i;
      if (c >= 0x80 && c <= 0xBF) *why = "stray continuation byte";
      else if (c == 0xC0 || c == 0xC1) *why = "overlong encoding";
      else if (c >= 0xF5 && c <= 0xF7) *why = "code point above U+10FFFF";
      else *why = "byte that never occurs in UTF-8";
      return -1;
    }
    if (len - i <= (size_t)need) {
      /* Not enough bytes left: report truncation unless what is there is
       * already wrong. */
      for (size_t k = 1; i + k < len; k++) {
        unsigned b = p[i + k];
        if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) goto bad_cont;
      }
      *bad_at = i;
      *why = "truncated sequence at end of text";
      return -1;
    }
    for (int k = 1; k <= need; k++) {
      unsigned b = p[i + k];
      if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) goto bad_cont;
      cp = (cp << 6) | (int32_t)(b & 0x3F);
    }
    out[n++] = cp;
    i += (size_t)need + 1;
    continue;
  bad_cont:
    *bad_at = i;
    if (c == 0xE0 && p[i + 1] >= 0x80 && p[i + 1] < 0xA0) *why = "overlong encoding";
    else if (c == 0xF0 && p[i + 1] >= 0x80 && p[i + 1] < 0x90) *why = "overlong encoding";
    else if (c == 0xED && p[i + 1] >= 0xA0 && p[i + 1] <= 0xBF) *why = "UTF-16 surrogate";
    else if (c == 0xF4 && p[i + 1] >= 0x90 && p[i + 1] <= 0xBF) *why = "code point above U+10FFFF";
    else *why = "truncated sequence (missing continuation byte)";
    return -1;
  }
  return n;
}

int el__utf8_put(int32_t cp, char *dst) {
  unsigned char *d = (unsigned char *)dst;
  if (cp < 0x80) {
    d[0] = (unsigned char)cp;
    return 1;
  }
  if (cp < 0x800) {
    d[0] = (unsigned char)(0xC0 | (cp >> 6));
    d[1] = (unsigned char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    d[0] = (unsigned char)(0xE0 | (cp >> 12));
    d[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    d[2] = (unsigned char)(0x80 | (cp & 0x3F));
    return 3;
  }
  d[0] = (unsigned char)(0xF0 | (cp >> 18));
  d[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
  d[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
  d[3] = (unsigned char)(0x80 | (cp & 0x3F));
  return 4;
}

/* ---- code-point <-> byte offsets (electra/tokenizer.h) ------------------ */

static int starts_cp(char c) { return ((unsigned char)c & 0xC0) != 0x80; }

size_t el_utf8_offsets(const char *text, size_t len, size_t *starts) {
  size_t n = 0;
  for (size_t i = 0; i < len; i++)
    if (starts_cp(text[i]) || i == 0) {
      if (starts) starts[n] = i;
      n++;
    }
  if (starts) starts[n] = len;
  return n;
}

size_t el_utf8_byte_offset(const char *text, size_t len, size_t cp) {
  size_t n = 0;
  for (size_t i = 0; i < len; i++)
    if ((starts_cp(text[i]) || i == 0) && n++ == cp) return i;
  return len;
}
