/* Internal to the Markdown reader (md_doc.h): md_doc.c reads the blocks
 * line by line, md_inline.c the inline markup of a line; both append to
 * the document through text() and markup(). */
#ifndef EL_CHECK_MD_INTERNAL_H
#define EL_CHECK_MD_INTERNAL_H

#include <string.h>

#include "md_doc.h"

#define AS_NOTHING ""
#define AS_BREAK "\n\n" /* a blank line: the checker ends its sentence there */
#define SPAN_MAX 2048    /* bytes a code span or a link may reach across lines */

typedef struct el__md_reader {
  const char *md;
  size_t len;
  el__lt_doc *d;
  int oom;
} el__md_reader;

static inline void text(el__md_reader *r, size_t a, size_t b) {
  if (b > a && el__lt_doc_add(r->d, r->md + a, b - a, NULL, 0, 0) < 0) r->oom = 1;
}
static inline void markup(el__md_reader *r, size_t a, size_t b, const char *as) {
  if (b > a && el__lt_doc_add(r->d, r->md + a, b - a, as, strlen(as), 1) < 0) r->oom = 1;
}

static inline int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
static inline int is_alnum(char c) {
  return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (unsigned char)c >= 0x80;
}
static inline int is_punct(char c) { return c > ' ' && c < 0x7f && !is_alnum(c); }
/* c is one of set's characters (never NUL, which the text may hold). */
static inline int one_of(char c, const char *set) { return c && strchr(set, c); }

/* A run of c at s[a..e) from a: its length. */
static inline size_t run(const el__md_reader *r, size_t a, size_t e, char c) {
  size_t i = a;
  while (i < e && r->md[i] == c) i++;
  return i - a;
}

/* md[a..b) as prose with its inline markup into the document; a code span
 * or a link may reach to lim (the paragraph's end). cells: a '|' ends a
 * table cell. (md_inline.c) */
void el__md_inline(el__md_reader *r, size_t a, size_t b, size_t lim, int cells);

#endif
