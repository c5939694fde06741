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
  const unsigned char *data; /* borrowed: start of the data section in the caller's buffer;
                                NULL after el__st_open (read tensors with el__st_read_f32) */
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

/* Reading a file into memory the caller owns, tensor by tensor (no mapping:
 * what was read stays as it was whatever later happens to the file, and a
 * file that shrinks is a read error, not a SIGBUS). */
typedef struct el_st_reader {
  int fd;
  const char *path;    /* borrowed, for messages */
  uint64_t file_len;   /* at open */
  uint64_t data_start; /* 8 + header length: file offset of the data section */
  long long mtime_s, mtime_ns; /* at open (el__st_check_unchanged) */
} el_st_reader;

/* Opens path (a regular file), reads its length prefix and header and
 * validates them exactly as el__st_parse does, against the file's size;
 * out->data is NULL. On success the caller owns *r (el__st_close) and *out
 * (el__st_free); on failure both hold nothing. */
int el__st_open(const char *path, el_st_reader *r, el_st_file *out, el_error *err);
/* Reads tensor t (F32, F16 or BF16) as F32 into dst[t->numel]: F32 straight
 * into dst, F16/BF16 through a small bounded buffer. A file that ends early
 * (truncated since el__st_open) is EL_EIO naming the tensor. */
int el__st_read_f32(el_st_reader *r, const el_st_tensor *t, float *dst, el_error *err);
/* EL_EIO when the open file was modified since el__st_open (its size or
 * mtime differ): what was read may mix two versions of it. A file replaced
 * by rename is not "modified": the open descriptor still reads the old one.
 * (Two writes within one tick of the file system's clock can look like one:
 * a writer that finishes before the read starts is always seen.) */
int el__st_check_unchanged(const el_st_reader *r, el_error *err);
void el__st_close(el_st_reader *r);

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
