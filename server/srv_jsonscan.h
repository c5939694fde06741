/* A pass over a request body before cJSON sees it: strict UTF-8 (RFC 3629:
 * no overlong forms, surrogates or values past U+10FFFF), a bound on nesting
 * depth, no "\u0000" escape inside strings (cJSON strings end at NUL, so
 * such text would be cut silently), every \u escape with four hex digits, and
 * no raw NUL or stray control byte. cJSON recurses per nesting level; the
 * depth bound keeps hostile input from using the stack. */
#ifndef EL_SERVER_JSONSCAN_H
#define EL_SERVER_JSONSCAN_H

#include <stddef.h>

typedef enum el__scan_result {
  EL_SCAN_OK = 0,
  EL_SCAN_BAD_UTF8,  /* *where = byte offset of the bad sequence */
  EL_SCAN_TOO_DEEP,  /* *where = byte offset of the bracket past the limit */
  EL_SCAN_NUL_ESCAPE, /* *where = byte offset of the backslash */
  EL_SCAN_BAD_ESCAPE, /* \u not followed by 4 hex digits (cJSON would read a NUL): the backslash */
  EL_SCAN_CONTROL     /* a raw NUL anywhere, or a control byte other than tab, LF, CR outside
                       * strings (cJSON skips every byte <= 0x20 as whitespace): the byte */
} el__scan_result;

el__scan_result el__json_prescan(const char *s, size_t len, int max_depth, size_t *where);

/* Length of the valid UTF-8 sequence starting at s (1..4), or 0 when invalid. */
int el__utf8_seq_len(const unsigned char *s, size_t avail);

#endif
