/* Pre-scan of JSON bodies (srv_jsonscan.h). */
#include "srv_jsonscan.h"

#include <ctype.h>

int el__utf8_seq_len(const unsigned char *s, size_t avail) {
  if (avail == 0) return 0;
  unsigned c = s[0];
  if (c < 0x80) return 1;
  int n;
  unsigned cp, min;
  if ((c & 0xe0) == 0xc0) {
    n = 2, cp = c & 0x1f, min = 0x80;
  } else if ((c & 0xf0) == 0xe0) {
    n = 3, cp = c & 0x0f, min = 0x800;
  } else if ((c & 0xf8) == 0xf0) {
    n = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if ((size_t)n > avail) return 0;
  for (int i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

el__scan_result el__json_prescan(const char *s, size_t len, int max_depth, size_t *where) {
  const unsigned char *u = (const unsigned char *)s;
  int depth = 0, in_str = 0;
  size_t i = 0;
  while (i < len) {
    unsigned c = u[i];
    if (c >= 0x80) {
      int n = el__utf8_seq_len(u + i, len - i);
      if (!n) {
        if (where) *where = i;
        return EL_SCAN_BAD_UTF8;
      }
      i += (size_t)n;
      continue;
    }
    if (c == 0 || (!in_str && c < 0x20 && c != '\t' && c != '\n' && c != '\r')) {
      if (where) *where = i;
      return EL_SCAN_CONTROL;
    }
    if (in_str) {
      if (c == '\\') {
        if (i + 1 < len && u[i + 1] == 'u') {
          int hex = i + 5 < len;
          for (int k = 2; hex && k < 6; k++) hex = isxdigit(u[i + (size_t)k]) != 0;
          if (!hex) {
            if (where) *where = i;
            return EL_SCAN_BAD_ESCAPE;
          }
          if (u[i + 2] == '0' && u[i + 3] == '0' && u[i + 4] == '0' && u[i + 5] == '0') {
            if (where) *where = i;
            return EL_SCAN_NUL_ESCAPE;
          }
        }
        i += 2; /* the escaped character is ASCII in valid JSON; else cJSON refuses */
        continue;
      }
      if (c == '"') in_str = 0;
    } else if (c == '"') {
      in_str = 1;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        if (where) *where = i;
        return EL_SCAN_TOO_DEEP;
      }
    } else if (c == ']' || c == '}') {
      depth--;
    }
    i++;
  }
  return EL_SCAN_OK;
}
