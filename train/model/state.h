/* RUN/state/: everything an exact resume needs, in one file written
 * atomically (RUN/state/state.bin.tmp-PID, fsync, rename, fsync of the
 * directory), plus RUN/state/settings.json for people (same settings, not
 * read back).
 *
 * state.bin layout:
 *   "ELSTATE1", u32 version, u32 header bytes, the el__state header fields,
 *   u32 length + the settings JSON (el__pt_opts_to_json),
 *   the parameter set (el__params_write: params, Adam m and v),
 *   u64 FNV-1a checksum of every byte before it.
 * Loading verifies the checksum, so a damaged or truncated file is refused
 * rather than resumed from. */
#ifndef EL_TRAIN_STATE_H
#define EL_TRAIN_STATE_H

#include <stdint.h>
#include "electra/error.h"
#include "params.h"
#include "rng.h"

typedef struct el__state {
  int64_t step;            /* optimizer updates applied */
  uint64_t data_epoch, data_offset;
  el__rng rng;              /* the run's base RNG (per-step streams derive from it) */
  uint64_t vocab_hash;     /* el__vb_check hash of the vocabulary */
  uint32_t vocab_size;
  uint64_t data_hash;      /* token cache content_hash */
  uint64_t tokens_seen;
  double train_seconds;    /* wall time spent in training steps, all sessions */
  int32_t threads;         /* thread count of the session that saved */
  char *settings_json;     /* owned (malloc'd) */
} el__state;

/* Writes dir/state.bin (creating dir) and dir/settings.json. A full disk is
 * EL_ENOSPC naming the file; nothing half-written replaces a good state. */
int el__state_save(const char *dir, const el__state *s, const el__params *p, el_error *err);

/* Reads the header and settings only (to rebuild the configs first).
 * s->settings_json is malloc'd: free it. */
int el__state_peek(const char *dir, el__state *s, el_error *err);

/* Reads everything into s and p (created with the same configs) and checks
 * the checksum. EL_EFORMAT for a damaged file, EL_ESHAPE for a layout that
 * does not match p (see el__params_read). */
int el__state_load(const char *dir, el__state *s, el__params *p, el_error *err);

#endif
