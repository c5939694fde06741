/* Internal: strict UTF-8 decoding and encoding for the tokenizer.
 * Strict means the well-formed byte sequences of Unicode Table 3-7 only:
 * no overlong forms, no surrogates, nothing above U+10FFFF, no stray
 * continuation bytes, no truncated sequences. */
#ifndef EL_TOK_UTF8_H
#define EL_TOK_UTF8_H
#include <stddef.h>
#include <stdint.h>

/* Decodes len bytes of s into out (room for len code points is always
 * enough). Returns the number of code points, or -1 on malformed input with
 * *bad_at = byte offset of the offending sequence and *why = a static
 * description. */
ptrdiff_t el__utf8_decode(const char *s, size_t len, int32_t *out, size_t *bad_at,
                          const char **why);

/* Writes the UTF-8 form of a valid code point to dst (4 bytes of room);
 * returns the byte count. */
int el__utf8_put(int32_t cp, char *dst);

#endif
