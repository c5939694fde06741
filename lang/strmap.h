/* Internal: an insert-only hash map from byte
 * strings to a 64-bit value and a dense index (0, 1, 2, ... in insertion
 * order). Keys are copied into one growing arena owned by the map. */
#ifndef EL_TRAIN_DATA_STRMAP_H
#define EL_TRAIN_DATA_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct el__strmap {
  char *arena;
  size_t arena_used, arena_cap;
  size_t *key_off;  /* [n] offset of key i (NUL-terminated) in arena */
  int *key_len;     /* [n] */
  int64_t *value;   /* [n] */
  uint64_t *key_hash;
  int n, cap;       /* entries, capacity of the per-entry arrays */
  int *slots;       /* open addressing: -1 empty, else entry index */
  size_t n_slots;   /* power of two */
} el__strmap;

/* Index of key, inserting it with value 0 when absent (*inserted = 1).
 * Returns -1 when out of memory. Pointers from el__strmap_key stay valid only
 * until the next insertion (the arena may move). */
int el__strmap_get(el__strmap *m, const char *key, int len, int *inserted);
/* Index of key or -1, without inserting. */
int el__strmap_find(const el__strmap *m, const char *key, int len);
static inline const char *el__strmap_key(const el__strmap *m, int i) {
  return m->arena + m->key_off[i];
}
void el__strmap_free(el__strmap *m);
uint64_t el__fnv1a(const void *data, size_t len, uint64_t h);
#define EL_FNV_OFFSET 0xcbf29ce484222325ULL

#endif
