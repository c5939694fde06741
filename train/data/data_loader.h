/* Batches from a token cache: a held-out validation slice, a deterministic
 * per-epoch shuffle of the rest, and a position (epoch, offset) that a
 * resume restores exactly.
 *
 * Split: example i is held out when a hash of i (fixed salt, independent of
 * the training seed) falls below val_fraction, at most val_max of them (the
 * lowest indices; the others stay in training). With val_fraction > 0 and at
 * least 2 examples, at least one is held out.
 * Order: epoch e visits the training examples in a Fisher-Yates permutation
 * drawn from an RNG seeded by (seed, e). Batches run across epoch ends (no
 * example is dropped), so even a training set smaller than a batch works.
 * Batches are packed (el_batch of the engine): sequences end to end, no
 * padding; type ids 0 up to and including the first [SEP], then 1. */
#ifndef EL_TRAIN_DATA_LOADER_H
#define EL_TRAIN_DATA_LOADER_H

#include <stdint.h>
#include "data_cache.h"
#include "electra/engine.h"
#include "electra/error.h"

typedef struct el__data_pos {
  uint64_t epoch;  /* 0-based */
  uint64_t offset; /* next index into the epoch's permutation */
} el__data_pos;

/* A packed batch with its own storage (grown as needed). */
typedef struct el__packed {
  int n_seqs, n_tokens;
  int *seq_len, *ids, *type_ids;
  int cap_seqs, cap_tokens;
} el__packed;
void el__packed_free(el__packed *p);
/* A view for the engine / trainer (borrows p's arrays). */
el_batch el__packed_batch(const el__packed *p);

typedef struct el__dataset {
  el__cache cache;
  uint32_t *train, *val; /* example indices */
  uint64_t n_train, n_val;
  uint32_t *perm;        /* the current epoch's order (n_train) */
  uint64_t perm_epoch;   /* epoch perm belongs to; UINT64_MAX = none */
  uint64_t seed;
  el__data_pos pos;
} el__dataset;

/* Opens the cache (see el__cache_open; key may be NULL) and splits it.
 * EL_EINVAL if no training example remains. Release with el__dataset_close. */
int el__dataset_open(el__dataset *d, const char *cache_path, const el__cache_key *key,
                     double val_fraction, uint64_t val_max, uint64_t seed, el_error *err);
void el__dataset_close(el__dataset *d);

/* Moves to pos (as saved by a previous run). */
void el__dataset_seek(el__dataset *d, el__data_pos pos);

/* The next batch_size training examples, packed into out; advances pos.
 * Returns EL_OK or EL_ENOMEM. */
int el__dataset_next(el__dataset *d, int batch_size, el__packed *out, el_error *err);

/* The same global batch of batch_size examples (pos advances by all of
 * them), of which only sequences [first, first + n) are packed into out:
 * a data-parallel rank's share. */
int el__dataset_next_slice(el__dataset *d, int batch_size, int first, int n, el__packed *out,
                           el_error *err);

/* Validation examples [first, first + n) of the held-out slice (n clipped
 * to what remains), packed into out. */
int el__dataset_val(el__dataset *d, uint64_t first, int n, el__packed *out, el_error *err);

/* Example i of the cache appended to out (exposed for tests). */
int el__packed_append(el__packed *out, const el__cache *c, uint64_t i, el_error *err);

/* Permutation of [0, n) used for epoch e (exposed for tests): out[n]. */
void el__epoch_perm(uint32_t *out, const uint32_t *items, uint64_t n, uint64_t seed,
                    uint64_t epoch);

#endif
