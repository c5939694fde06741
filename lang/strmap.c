/* String -> index hash map for the vocabulary learner (data_strmap.h). */
#include <stdlib.h>
#include <string.h>
#include "strmap.h"

uint64_t el__fnv1a(const void *data, size_t len, uint64_t h) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

static int grow_slots(el__strmap *m) {
  size_t ns = m->n_slots ? m->n_slots * 2 : 1024;
  int *s = malloc(ns * sizeof *s);
  if (!s) return -1;
  memset(s, 0xff, ns * sizeof *s);
  for (int i = 0; i < m->n; i++) {
    size_t j = m->key_hash[i] & (ns - 1);
    while (s[j] >= 0) j = (j + 1) & (ns - 1);
    s[j] = i;
  }
  free(m->slots);
  m->slots = s;
  m->n_slots = ns;
  return 0;
}

static int grow_entries(el__strmap *m) {
  int cap = m->cap ? m->cap * 2 : 1024;
  size_t *o = realloc(m->key_off, cap * sizeof *o);
  if (!o) return -1;
  m->key_off = o;
  int *l = realloc(m->key_len, cap * sizeof *l);
  if (!l) return -1;
  m->key_len = l;
  int64_t *v = realloc(m->value, cap * sizeof *v);
  if (!v) return -1;
  m->value = v;
  uint64_t *h = realloc(m->key_hash, cap * sizeof *h);
  if (!h) return -1;
  m->key_hash = h;
  m->cap = cap;
  return 0;
}

int el__strmap_find(const el__strmap *m, const char *key, int len) {
  if (!m->n_slots) return -1;
  uint64_t h = el__fnv1a(key, (size_t)len, EL_FNV_OFFSET);
  size_t j = h & (m->n_slots - 1);
  for (;;) {
    int e = m->slots[j];
    if (e < 0) return -1;
    if (m->key_hash[e] == h && m->key_len[e] == len &&
        !memcmp(m->arena + m->key_off[e], key, (size_t)len))
      return e;
    j = (j + 1) & (m->n_slots - 1);
  }
}

int el__strmap_get(el__strmap *m, const char *key, int len, int *inserted) {
  if (inserted) *inserted = 0;
  if ((size_t)(m->n + 1) * 2 > m->n_slots && grow_slots(m)) return -1;
  uint64_t h = el__fnv1a(key, (size_t)len, EL_FNV_OFFSET);
  size_t j = h & (m->n_slots - 1);
  for (;;) {
    int e = m->slots[j];
    if (e < 0) break;
    if (m->key_hash[e] == h && m->key_len[e] == len &&
        !memcmp(m->arena + m->key_off[e], key, (size_t)len))
      return e;
    j = (j + 1) & (m->n_slots - 1);
  }
  if (m->n == m->cap && grow_entries(m)) return -1;
  if (m->arena_used + (size_t)len + 1 > m->arena_cap) {
    size_t cap = m->arena_cap ? m->arena_cap : 1 << 16;
    while (cap < m->arena_used + (size_t)len + 1) cap *= 2;
    char *a = realloc(m->arena, cap);
    if (!a) return -1;
    m->arena = a;
    m->arena_cap = cap;
  }
  int e = m->n++;
  m->key_off[e] = m->arena_used;
  memcpy(m->arena + m->arena_used, key, (size_t)len);
  m->arena[m->arena_used + (size_t)len] = 0;
  m->arena_used += (size_t)len + 1;
  m->key_len[e] = len;
  m->key_hash[e] = h;
  m->value[e] = 0;
  m->slots[j] = e;
  if (inserted) *inserted = 1;
  return e;
}

void el__strmap_free(el__strmap *m) {
  free(m->arena);
  free(m->key_off);
  free(m->key_len);
  free(m->value);
  free(m->key_hash);
  free(m->slots);
  memset(m, 0, sizeof *m);
}
