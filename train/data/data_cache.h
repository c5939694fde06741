/* The binary token cache: pretraining examples (data_builder.h) tokenized
 * once, then memory-mapped by every run and resume that uses them, so a
 * corpus larger than memory streams from the page cache.
 *
 * File layout (little-endian, as written by this machine):
 *   header      128 bytes (el__cache_header)
 *   tokens      n_tokens ids, uint16 when vocab_size <= 65535 else uint32,
 *               the examples end to end, each [CLS] A [SEP] (B [SEP])
 *   (pad to 8 bytes)
 *   index       n_examples x el__cache_entry
 * The header names what the cache was built from (vocabulary hash and size,
 * lower-casing, sequence length, builder seed, input fingerprint); a reader
 * compares those with what it needs and rebuilds on any difference.
 * content_hash (FNV-1a over the token and index bytes) identifies the data
 * itself: a resume checks it so that a data position means the same thing. */
#ifndef EL_TRAIN_DATA_CACHE_H
#define EL_TRAIN_DATA_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include "electra/error.h"

#define EL_CACHE_MAGIC "ELTOKC01"
#define EL_CACHE_VERSION 1

typedef struct el__cache_header {
  char magic[8];
  uint32_t version;
  uint32_t id_bytes;      /* 2 or 4 */
  uint32_t seq_len;
  uint32_t lower_case;
  uint32_t vocab_size;
  uint32_t reserved0;
  uint64_t vocab_hash;    /* el__vb_check hash of vocab.txt */
  uint64_t inputs_fp;     /* el__inputs_fingerprint of the inputs */
  uint64_t build_seed;
  uint64_t n_examples;
  uint64_t n_tokens;
  uint64_t tokens_offset; /* bytes from the file start */
  uint64_t index_offset;
  uint64_t content_hash;
  uint64_t n_input_files;
  uint8_t reserved[128 - 104];
} el__cache_header;
_Static_assert(sizeof(el__cache_header) == 128, "cache header is 128 bytes");

typedef struct el__cache_entry {
  uint64_t start;   /* first token (index into the token array) */
  uint32_t len;     /* tokens including [CLS]/[SEP] */
  uint32_t b_start; /* first type-1 token (== len when there is no segment B) */
} el__cache_entry;

/* What a run needs from a cache (compared with its header). */
typedef struct el__cache_key {
  uint64_t vocab_hash, inputs_fp, build_seed;
  uint32_t vocab_size, seq_len, lower_case;
} el__cache_key;

/* ---- writing ---- */
typedef struct el__cache_writer el__cache_writer;
/* Starts "<path>.tmp-PID" (and its index side file). */
int el__cache_writer_open(el__cache_writer **w, const char *path, const el__cache_key *key,
                          el_error *err);
int el__cache_writer_add(el__cache_writer *w, const int *ids, int n, int b_start, el_error *err);
/* Examples written so far; *tokens (may be NULL) gets the token count. */
uint64_t el__cache_writer_count(const el__cache_writer *w, uint64_t *tokens);
/* Completes the header, fsyncs and renames the file into place. *w is freed
 * in every case. A full disk is EL_ENOSPC naming the path. */
int el__cache_writer_finish(el__cache_writer **w, uint64_t n_input_files, el_error *err);
/* Removes the temporary files and frees *w. */
void el__cache_writer_abort(el__cache_writer **w);

/* ---- reading ---- */
typedef struct el__cache {
  el__cache_header h;
  const uint8_t *map;
  size_t map_len;
  const void *tokens;
  const el__cache_entry *index;
} el__cache;

/* Maps path and validates it (magic, version, sizes against the file size,
 * every index entry in bounds). With key != NULL a header that does not match
 * key returns EL_ESHAPE naming the first differing field (the caller then
 * rebuilds). A missing file is EL_EIO; a damaged one EL_EFORMAT. */
int el__cache_open(el__cache *c, const char *path, const el__cache_key *key, el_error *err);
void el__cache_close(el__cache *c);
/* Copies example i's ids into out (>= its len ints) and returns the len;
 * *b_start receives the first type-1 index. */
int el__cache_example(const el__cache *c, uint64_t i, int *out, int *b_start);

#endif
