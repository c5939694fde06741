/* A growable byte buffer for building response bodies and log lines.
 * Zero-initialise; the buffer owns data (malloc) until el__sb_take or
 * el__sb_free. On allocation failure it sets oom and drops further appends,
 * so callers check once at the end. */
#ifndef EL_SERVER_SBUF_H
#define EL_SERVER_SBUF_H

#include <stddef.h>

typedef struct el__sb {
  char *data;
  size_t len, cap;
  int oom;
} el__sb;

void el__sb_put(el__sb *b, const char *s, size_t n);
void el__sb_puts(el__sb *b, const char *s);
void el__sb_printf(el__sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s[0..n) as a JSON string literal (quotes included); s must be valid UTF-8. */
void el__sb_json_str(el__sb *b, const char *s, size_t n);
/* A finite float as a JSON number (shortest %.9g form); non-finite -> null. */
void el__sb_json_num(el__sb *b, double v);
/* A config value stored as float, in the fewest digits that read back as the
 * same float (0.37f -> 0.37, as config.json wrote it); non-finite -> null. */
void el__sb_json_float(el__sb *b, float v);
/* Returns the NUL-terminated data (caller frees) or NULL after oom. */
char *el__sb_take(el__sb *b, size_t *len);
void el__sb_free(el__sb *b);

#endif
