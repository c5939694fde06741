/* Train/validation split, shuffled epochs and packed batches (data_loader.h). */
#include <stdlib.h>
#include <string.h>
#include "data_loader.h"
#include "rng.h"

#define VAL_SALT 0x5EED0F0E1EC7A7ULL

void el__packed_free(el__packed *p) {
  free(p->seq_len);
  free(p->ids);
  free(p->type_ids);
  memset(p, 0, sizeof *p);
}

el_batch el__packed_batch(const el__packed *p) {
  el_batch b = {p->n_seqs, p->seq_len, p->ids, p->type_ids};
  return b;
}

int el__packed_append(el__packed *out, const el__cache *c, uint64_t i, el_error *err) {
  int len = (int)c->index[i].len;
  if (out->n_seqs + 1 > out->cap_seqs) {
    int cap = out->cap_seqs ? out->cap_seqs * 2 : 64;
    int *s = realloc(out->seq_len, (size_t)cap * sizeof *s);
    if (!s) return el_error_set(err, EL_ENOMEM, "out of memory packing a batch");
    out->seq_len = s;
    out->cap_seqs = cap;
  }
  if (out->n_tokens + len > out->cap_tokens) {
    int cap = out->cap_tokens ? out->cap_tokens : 4096;
    while (cap < out->n_tokens + len) cap *= 2;
    int *a = realloc(out->ids, (size_t)cap * sizeof *a);
    if (!a) return el_error_set(err, EL_ENOMEM, "out of memory packing a batch");
    out->ids = a;
    int *t = realloc(out->type_ids, (size_t)cap * sizeof *t);
    if (!t) return el_error_set(err, EL_ENOMEM, "out of memory packing a batch");
    out->type_ids = t;
    out->cap_tokens = cap;
  }
  int b_start;
  int *ids = out->ids + out->n_tokens;
  el__cache_example(c, i, ids, &b_start);
  int *tt = out->type_ids + out->n_tokens;
  for (int k = 0; k < len; k++) tt[k] = k >= b_start;
  out->seq_len[out->n_seqs++] = len;
  out->n_tokens += len;
  return EL_OK;
}

static uint64_t mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void el__epoch_perm(uint32_t *out, const uint32_t *items, uint64_t n, uint64_t seed,
                    uint64_t epoch) {
  memcpy(out, items, n * sizeof *out);
  el__rng r;
  el__rng_seed(&r, mix64(seed ^ mix64(epoch + 0xE90C4ULL)));
  for (uint64_t i = n; i > 1; i--) {
    uint64_t j = n > 0xFFFFFFFFULL ? el__rng_u64(&r) % i : el__rng_below(&r, (uint32_t)i);
    uint32_t t = out[i - 1];
    out[i - 1] = out[j];
    out[j] = t;
  }
}

int el__dataset_open(el__dataset *d, const char *cache_path, const el__cache_key *key,
                     double val_fraction, uint64_t val_max, uint64_t seed, el_error *err) {
  memset(d, 0, sizeof *d);
  int rc = el__cache_open(&d->cache, cache_path, key, err);
  if (rc) return rc;
  uint64_t n = d->cache.h.n_examples;
  if (n > 0xFFFFFFFFULL) {
    el__cache_close(&d->cache);
    return el_error_set(err, EL_EUNSUPPORTED, "token cache %s: more than 2^32 examples", cache_path);
  }
  d->train = malloc((n ? n : 1) * sizeof *d->train);
  d->val = malloc((n ? n : 1) * sizeof *d->val);
  d->perm = malloc((n ? n : 1) * sizeof *d->perm);
  if (!d->train || !d->val || !d->perm) {
    el__dataset_close(d);
    return el_error_set(err, EL_ENOMEM, "out of memory splitting the data");
  }
  uint64_t threshold = val_fraction >= 1.0 ? UINT64_MAX : (uint64_t)(val_fraction * 18446744073709551616.0);
  uint64_t best = UINT64_MAX, best_i = 0;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t h = mix64(i ^ VAL_SALT);
    if (h < best) best = h, best_i = i;
    if (val_fraction > 0 && h < threshold && d->n_val < val_max) d->val[d->n_val++] = (uint32_t)i;
    else d->train[d->n_train++] = (uint32_t)i;
  }
  if (val_fraction > 0 && val_max > 0 && d->n_val == 0 && n >= 2) {
    /* hold out the example with the smallest hash */
    uint64_t k = 0;
    for (uint64_t i = 0; i < d->n_train; i++)
      if (d->train[i] != best_i) d->train[k++] = d->train[i];
    d->n_train = k;
    d->val[d->n_val++] = (uint32_t)best_i;
  }
  if (d->n_train == 0) {
    el__dataset_close(d);
    return el_error_set(err, EL_EINVAL, "token cache %s: no training example (%llu in total)",
                        cache_path, (unsigned long long)n);
  }
  d->seed = seed;
  d->perm_epoch = UINT64_MAX;
  return EL_OK;
}

void el__dataset_close(el__dataset *d) {
  el__cache_close(&d->cache);
  free(d->train);
  free(d->val);
  free(d->perm);
  memset(d, 0, sizeof *d);
}

void el__dataset_seek(el__dataset *d, el__data_pos pos) {
  d->pos = pos;
  if (d->pos.offset >= d->n_train) {
    d->pos.epoch += d->pos.offset / d->n_train;
    d->pos.offset %= d->n_train;
  }
}

int el__dataset_next(el__dataset *d, int batch_size, el__packed *out, el_error *err) {
  return el__dataset_next_slice(d, batch_size, 0, batch_size, out, err);
}

int el__dataset_next_slice(el__dataset *d, int batch_size, int first, int n, el__packed *out,
                           el_error *err) {
  out->n_seqs = out->n_tokens = 0;
  for (int k = 0; k < batch_size; k++) {
    if (d->pos.offset >= d->n_train) {
      d->pos.epoch++;
      d->pos.offset = 0;
    }
    if (d->perm_epoch != d->pos.epoch) {
      el__epoch_perm(d->perm, d->train, d->n_train, d->seed, d->pos.epoch);
      d->perm_epoch = d->pos.epoch;
    }
    uint32_t ex = d->perm[d->pos.offset++];
    if (k < first || k >= first + n) continue; /* another rank's share */
    int rc = el__packed_append(out, &d->cache, ex, err);
    if (rc) return rc;
  }
  return EL_OK;
}

int el__dataset_val(el__dataset *d, uint64_t first, int n, el__packed *out, el_error *err) {
  out->n_seqs = out->n_tokens = 0;
  for (uint64_t i = first; i < d->n_val && i < first + (uint64_t)n; i++) {
    int rc = el__packed_append(out, &d->cache, d->val[i], err);
    if (rc) return rc;
  }
  return EL_OK;
}
