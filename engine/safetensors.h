/* Internal: the safetensors container (https://huggingface.co/docs/safetensors):
 * u64 little-endian header length N, N bytes of JSON header
 * {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {...}},
 * then the data section; offsets are relative to the data section. */
#ifndef EL_SAFETENSORS_H
#define EL_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>
#include "electra/error.h"

typedef enum el_st_dtype { EL_ST_F32 = 0, EL_ST_F16, EL_ST_BF16, EL_ST_I64 } el_st_dtype;

#define EL_ST_MAX_DIMS 8
#define EL_ST_MAX_HEADER 100000000ull /* the reference implementation's limit */

typedef struct el_st_tensor {
  char *name;     /* owned by the el_st_file */
  el_st_dtype dtype;
  int ndim;
  int64_t shape[EL_ST_MAX_DIMS];
  uint64_t numel;
  uint64_t begin, end; /* byte offsets into the data section */
} el_st_tensor;

typedef struct el_st_file {
  el_st_tensor *t; /* [n], sorted by begin offset */
  int n;
  const unsigned char *data; /* borrowed: start of the data section in the caller's buffer */
  uint64_t data_len;
  uint64_t header_len;
} el_st_file;

/* Parses and validates a whole safetensors file held in buf[0..len) (usually
 * an mmap). Checks: length prefix inside the file and <= EL_ST_MAX_HEADER,
 * well-formed JSON object, each entry's dtype (F32/F16/BF16/I64; any other is
 * refused naming it), shape (<= EL_ST_MAX_DIMS non-negative integers) against
 * the byte count of data_offsets, offsets inside the data section, no
 * duplicate names, no overlaps, no holes, no trailing bytes; 64-bit overflow
 * checked everywhere. `path` only names the file in messages. On success the
 * caller owns *out (release with el__st_free; buf must outlive it). */
int el__st_parse(const char *path, const void *buf, size_t len, el_st_file *out, el_error *err);
void el__st_free(el_st_file *f);

/* Lookup by exact name; NULL when absent. */
const el_st_tensor *el__st_find(const el_st_file *f, const char *name);

const char *el__st_dtype_name(el_st_dtype d);
/* Bytes per element. */
size_t el__st_dtype_size(el_st_dtype d);

/* "[a, b]" into buf (always NUL-terminated). */
void el__st_shape_str(const int64_t *shape, int ndim, char *buf, size_t cap);

/* F16 / BF16 -> F32, exact (every half and bfloat16 value is a float). */
float el__f16_to_f32(uint16_t h);
float el__bf16_to_f32(uint16_t h);

#endif
