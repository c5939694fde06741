/* Internal: the WordPiece vocabulary, an open-addressing hash table from
 * token bytes to id. Read-only after el__vocab_load, so any number of threads
 * may look up at once. */
#ifndef EL_TOK_VOCAB_H
#define EL_TOK_VOCAB_H
#include <stddef.h>
#include <stdint.h>
#include "electra/error.h"

typedef struct el__vocab {
  char *blob;        /* every token, NUL-terminated, in file order */
  uint32_t *off;     /* [n] start of token id in blob */
  uint32_t *len;     /* [n] byte length of token id */
  int n;
  int max_len;       /* longest token in bytes: longer substrings cannot match */
  uint32_t mask;     /* table size - 1 (power of two, at most half full) */
  struct el__vslot {
    uint32_t h;      /* hash of the token in this slot */
    int32_t id;      /* its id, or -1 for an empty slot */
  } *slot;           /* [mask+1]; hash and id side by side: one cache line per probe */
} el__vocab;

/* Incremental FNV-1a so WordPiece can hash "##" + growing prefixes without
 * rehashing: h = el__vh_init(); h = el__vh_add(h, bytes, n)... */
static inline uint64_t el__vh_init(void) { return 0xcbf29ce484222325ULL; }
static inline uint64_t el__vh_add(uint64_t h, const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}
static inline uint32_t el__vh_final(uint64_t h) { return (uint32_t)(h ^ (h >> 32)); }

/* Parses vocab.txt the way Hugging Face does (Python universal newlines,
 * one token per line, id = line number, "" allowed, a repeated token maps to
 * its LAST line as in load_vocab's dict). Fills v (caller frees it with
 * el__vocab_free, also after a failure). */
int el__vocab_load(el__vocab *v, const char *path, el_error *err);
void el__vocab_free(el__vocab *v);

/* Id of the token whose bytes are pre[0..npre) followed by s[0..n) and whose
 * el__vh_final hash is h, or -1. (pre lets WordPiece ask for "##" + piece
 * without copying the piece.) */
int el__vocab_find(const el__vocab *v, const char *pre, size_t npre, const char *s, size_t n,
                   uint32_t h);

#endif
