/* Safetensors parsing and validation, and reading a file's tensors into
 * memory the caller owns. The bytes are untrusted: every number in the
 * header is range-checked before it is used as a size or an offset. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "fileio.h"
#include "safetensors.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors data is little-endian; this code assumes a little-endian host"
#endif

#define MAX_EXACT 9007199254740992.0 /* 2^53: larger JSON numbers are not exact doubles */

const char *el__st_dtype_name(el_st_dtype d) {
  switch (d) {
    case EL_ST_F32: return "F32";
    case EL_ST_F16: return "F16";
    case EL_ST_BF16: return "BF16";
    case EL_ST_I64: return "I64";
  }
  return "?";
}

size_t el__st_dtype_size(el_st_dtype d) {
  switch (d) {
    case EL_ST_F32: return 4;
    case EL_ST_F16: return 2;
    case EL_ST_BF16: return 2;
    case EL_ST_I64: return 8;
  }
  return 0;
}

void el__st_shape_str(const int64_t *shape, int ndim, char *buf, size_t cap) {
  size_t at = 0;
  if (!cap) return;
  buf[0] = '\0';
  at += (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < ndim && at < cap; i++)
    at += (size_t)snprintf(buf + at, cap - at, "%s%lld", i ? ", " : "", (long long)shape[i]);
  if (at < cap) snprintf(buf + at, cap - at, "]");
}

float el__f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13); /* inf / nan */
  } else if (exp != 0) {
    bits = sign | ((exp + 112u) << 23) | (man << 13);
  } else if (man == 0) {
    bits = sign;
  } else { /* subnormal half: normalise */
    int e = -1;
    do {
      e++;
      man <<= 1;
    } while (!(man & 0x400u));
    bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ffu) << 13);
  }
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

float el__bf16_to_f32(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

void el__st_free(el_st_file *f) {
  if (!f) return;
  for (int i = 0; i < f->n; i++) free(f->t[i].name);
  free(f->t);
  memset(f, 0, sizeof *f);
}

const el_st_tensor *el__st_find(const el_st_file *f, const char *name) {
  for (int i = 0; i < f->n; i++)
    if (strcmp(f->t[i].name, name) == 0) return &f->t[i];
  return NULL;
}

static int dtype_from(const char *s, el_st_dtype *d) {
  static const struct { const char *name; el_st_dtype d; } ok[] = {
      {"F32", EL_ST_F32}, {"F16", EL_ST_F16}, {"BF16", EL_ST_BF16}, {"I64", EL_ST_I64}};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
    if (strcmp(s, ok[i].name) == 0) {
      *d = ok[i].d;
      return 1;
    }
  return 0;
}

/* Valid safetensors dtypes the engine does not read: refused as unsupported
 * (anything else is a malformed header). */
static int known_dtype(const char *s) {
  static const char *names[] = {"BOOL", "U8", "I8", "U16", "I16", "U32", "I32", "U64",
                                "F64", "F8_E4M3", "F8_E5M2", "F8_E8M0", "F4", "F6_E2M3",
                                "F6_E3M2", "C64"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(s, names[i]) == 0) return 1;
  return 0;
}

/* A JSON number that is a non-negative integer exactly representable. */
static int get_u53(const cJSON *v, uint64_t *out) {
  if (!cJSON_IsNumber(v)) return 0;
  double d = v->valuedouble;
  if (!(d >= 0.0) || d > MAX_EXACT || d != floor(d)) return 0;
  *out = (uint64_t)d;
  return 1;
}

static int parse_entry(const char *path, const cJSON *e, el_st_tensor *t, uint64_t data_len,
                       el_error *err) {
  const char *nm = e->string;
  if (!cJSON_IsObject(e))
    return el_error_set(err, EL_EFORMAT, "%s: header entry \"%.100s\" is not an object", path,
                        nm);
  const cJSON *dt = cJSON_GetObjectItemCaseSensitive(e, "dtype");
  const cJSON *sh = cJSON_GetObjectItemCaseSensitive(e, "shape");
  const cJSON *of = cJSON_GetObjectItemCaseSensitive(e, "data_offsets");
  if (!cJSON_IsString(dt) || !dt->valuestring)
    return el_error_set(err, EL_EFORMAT, "%s: tensor \"%.100s\": \"dtype\" missing or not a "
                        "string", path, nm);
  if (!dtype_from(dt->valuestring, &t->dtype))
    return el_error_set(err, known_dtype(dt->valuestring) ? EL_EUNSUPPORTED : EL_EFORMAT,
                        "%s: tensor \"%.100s\": dtype \"%.20s\" is not supported (expected F32, "
                        "F16 or BF16)", path, nm, dt->valuestring);
  if (!cJSON_IsArray(sh))
    return el_error_set(err, EL_EFORMAT, "%s: tensor \"%.100s\": \"shape\" missing or not an "
                        "array", path, nm);
  int nd = cJSON_GetArraySize(sh);
  if (nd > EL_ST_MAX_DIMS)
    return el_error_set(err, EL_EFORMAT, "%s: tensor \"%.100s\": %d dimensions, at most %d "
                        "accepted", path, nm, nd, EL_ST_MAX_DIMS);
  t->ndim = nd;
  uint64_t numel = 1;
  int overflow = 0;
  for (int i = 0; i < nd; i++) {
    uint64_t d;
    if (!get_u53(cJSON_GetArrayItem(sh, i), &d))
      return el_error_set(err, EL_EFORMAT, "%s: tensor \"%.100s\": shape[%d] is not a "
                          "non-negative integer", path, nm, i);
    t->shape[i] = (int64_t)d;
    if (d && numel > UINT64_MAX / d) overflow = 1;
    else numel *= d;
  }
  uint64_t begin, end;
  if (!cJSON_IsArray(of) || cJSON_GetArraySize(of) != 2 ||
      !get_u53(cJSON_GetArrayItem(of, 0), &begin) || !get_u53(cJSON_GetArrayItem(of, 1), &end))
    return el_error_set(err, EL_EFORMAT, "%s: tensor \"%.100s\": \"data_offsets\" must be two "
                        "non-negative integers", path, nm);
  if (begin > end)
    return el_error_set(err, EL_EFORMAT, "%s: tensor \"%.100s\": data_offsets [%llu, %llu] end "
                        "before they begin", path, nm, (unsigned long long)begin,
                        (unsigned long long)end);
  size_t esz = el__st_dtype_size(t->dtype);
  char shp[128];
  el__st_shape_str(t->shape, t->ndim, shp, sizeof shp);
  if (overflow || numel > UINT64_MAX / esz)
    return el_error_set(err, EL_EFORMAT, "%s: tensor \"%.100s\": shape %s overflows 64 bits",
                        path, nm, shp);
  if (numel * esz != end - begin)
    return el_error_set(err, EL_EFORMAT, "%s: tensor \"%.100s\": shape %s of %s needs %llu "
                        "bytes, data_offsets [%llu, %llu] hold %llu", path, nm, shp,
                        el__st_dtype_name(t->dtype), (unsigned long long)(numel * esz),
                        (unsigned long long)begin, (unsigned long long)end,
                        (unsigned long long)(end - begin));
  if (end > data_len)
    return el_error_set(err, EL_EFORMAT, "%s: tensor \"%.100s\": data_offsets [%llu, %llu] lie "
                        "outside the data section of %llu bytes (file truncated?)", path, nm,
                        (unsigned long long)begin, (unsigned long long)end,
                        (unsigned long long)data_len);
  t->numel = numel;
  t->begin = begin;
  t->end = end;
  return EL_OK;
}

static int by_offset(const void *a, const void *b) {
  const el_st_tensor *x = a, *y = b;
  if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
  if (x->end != y->end) return x->end < y->end ? -1 : 1;
  return 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp((*(const el_st_tensor *const *)a)->name, (*(const el_st_tensor *const *)b)->name);
}

/* Names unique; sorted by offset, the tensors tile the data section exactly. */
static int check_layout(const char *path, el_st_file *f, el_error *err) {
  if (f->n > 1) {
    const el_st_tensor **p = malloc((size_t)f->n * sizeof *p);
    if (!p) return el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
    for (int i = 0; i < f->n; i++) p[i] = &f->t[i];
    qsort(p, (size_t)f->n, sizeof *p, by_name);
    for (int i = 1; i < f->n; i++)
      if (strcmp(p[i - 1]->name, p[i]->name) == 0) {
        int rc = el_error_set(err, EL_EFORMAT, "%s: tensor \"%.100s\" appears twice in the "
                              "header", path, p[i]->name);
        free(p);
        return rc;
      }
    free(p);
  }
  qsort(f->t, (size_t)f->n, sizeof *f->t, by_offset);
  uint64_t at = 0;
  const char *prev = NULL;
  for (int i = 0; i < f->n; i++) {
    const el_st_tensor *t = &f->t[i];
    if (t->begin < at)
      return el_error_set(err, EL_EFORMAT, "%s: tensors \"%.100s\" and \"%.100s\" overlap "
                          "(data_offsets %llu < %llu)", path, prev, t->name,
                          (unsigned long long)t->begin, (unsigned long long)at);
    if (t->begin > at)
      return el_error_set(err, EL_EFORMAT, "%s: bytes [%llu, %llu) of the data section before "
                          "tensor \"%.100s\" belong to no tensor", path, (unsigned long long)at,
                          (unsigned long long)t->begin, t->name);
    at = t->end;
    prev = t->name;
  }
  if (at != f->data_len)
    return el_error_set(err, EL_EFORMAT, "%s: %llu bytes after the last tensor belong to no "
                        "tensor (data section %llu bytes)", path,
                        (unsigned long long)(f->data_len - at), (unsigned long long)f->data_len);
  return EL_OK;
}

/* The 8-byte length prefix b8 of a file of len bytes (b8 is read only when
 * len >= 8): *n = the header's length, inside the file and under the limit. */
static int check_prefix(const char *path, const unsigned char *b8, uint64_t len, uint64_t *n,
                        el_error *err) {
  if (len < 8)
    return el_error_set(err, EL_EFORMAT, "%s: file is %llu bytes, shorter than the 8-byte header "
                        "length (truncated?)", path, (unsigned long long)len);
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | b8[i];
  if (v > len - 8)
    return el_error_set(err, EL_EFORMAT, "%s: header length %llu runs past the end of the file "
                        "(%llu bytes)", path, (unsigned long long)v, (unsigned long long)len);
  if (v > EL_ST_MAX_HEADER)
    return el_error_set(err, EL_EFORMAT, "%s: header length %llu is over the %llu-byte limit",
                        path, (unsigned long long)v, EL_ST_MAX_HEADER);
  *n = v;
  return EL_OK;
}

/* Parses and validates the JSON header hdr[0, n) of a file of len bytes
 * (check_prefix passed); out->data is left NULL. */
static int parse_header(const char *path, const char *hdr, uint64_t n, uint64_t len,
                        el_st_file *out, el_error *err) {
  if (n < 2 || hdr[0] != '{')
    return el_error_set(err, EL_EFORMAT, "%s: header is not a JSON object (length %llu)", path,
                        (unsigned long long)n);
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(hdr, (size_t)n, &end, 0);
  if (!root) {
    size_t at = end && end >= hdr ? (size_t)(end - hdr) : 0;
    return el_error_set(err, EL_EFORMAT, "%s: invalid JSON header near byte %zu", path, at + 8);
  }
  /* The header may be padded with spaces (the format's alignment rule). */
  while (end && end < hdr + n && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
    end++;
  int rc = EL_OK;
  if (!end || end != hdr + n) {
    rc = el_error_set(err, EL_EFORMAT, "%s: unexpected bytes after the JSON header at byte %zu",
                      path, (size_t)(end ? end - hdr : 0) + 8);
    goto done;
  }
  if (!cJSON_IsObject(root)) {
    rc = el_error_set(err, EL_EFORMAT, "%s: header is not a JSON object", path);
    goto done;
  }
  out->header_len = n;
  out->data_len = len - 8 - n;
  int cap = cJSON_GetArraySize(root);
  out->t = calloc(cap > 0 ? (size_t)cap : 1, sizeof *out->t);
  if (!out->t) {
    rc = el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
    goto done;
  }
  const cJSON *e;
  cJSON_ArrayForEach(e, root) {
    if (e->string && strcmp(e->string, "__metadata__") == 0) {
      if (!cJSON_IsObject(e)) {
        rc = el_error_set(err, EL_EFORMAT, "%s: \"__metadata__\" is not an object", path);
        goto done;
      }
      continue;
    }
    el_st_tensor *t = &out->t[out->n];
    if (!(t->name = strdup(e->string ? e->string : ""))) {
      rc = el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
      goto done;
    }
    out->n++;
    if ((rc = parse_entry(path, e, t, out->data_len, err))) goto done;
  }
  rc = check_layout(path, out, err);
done:
  cJSON_Delete(root);
  if (rc) el__st_free(out);
  return rc;
}

int el__st_parse(const char *path, const void *buf, size_t len, el_st_file *out, el_error *err) {
  const unsigned char *b = buf;
  uint64_t n = 0;
  memset(out, 0, sizeof *out);
  int rc = check_prefix(path, b, len, &n, err);
  if (!rc) rc = parse_header(path, (const char *)b + 8, n, len, out, err);
  if (!rc) out->data = b + 8 + n;
  return rc;
}

/* ---- reading into owned memory ---- */

/* n bytes at file offset off into dst; `what` names them in messages. */
static int pread_all(el_st_reader *r, void *dst, size_t n, uint64_t off, const char *what,
                     el_error *err) {
  unsigned char *p = dst;
  while (n) {
    size_t chunk = n > ((size_t)1 << 30) ? ((size_t)1 << 30) : n;
    ssize_t got = pread(r->fd, p, chunk, (off_t)off);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      return el_error_set(err, EL_EIO, "%s: reading %s: %s", r->path, what, strerror(errno));
    if (got == 0)
      return el_error_set(err, EL_EIO, "%s: the file ends at byte %llu, inside %s (it had %llu "
                          "bytes when opened: truncated while being read?)", r->path,
                          (unsigned long long)off, what, (unsigned long long)r->file_len);
    p += got;
    n -= (size_t)got;
    off += (uint64_t)got;
  }
  return EL_OK;
}

int el__st_open(const char *path, el_st_reader *r, el_st_file *out, el_error *err) {
  memset(r, 0, sizeof *r);
  memset(out, 0, sizeof *out);
  r->fd = -1;
  r->path = path;
  struct stat st;
  int fd = el__open_regular(path, &st, err);
  if (fd < 0) return EL_EIO;
  r->fd = fd;
  r->file_len = (uint64_t)st.st_size;
  r->mtime_s = (long long)st.st_mtim.tv_sec;
  r->mtime_ns = (long long)st.st_mtim.tv_nsec;
  (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  unsigned char pre[8] = {0};
  uint64_t n = 0;
  char *hdr = NULL;
  int rc = EL_OK;
  if (r->file_len >= 8) rc = pread_all(r, pre, 8, 0, "the header length", err);
  if (!rc) rc = check_prefix(path, pre, r->file_len, &n, err);
  if (!rc && !(hdr = malloc(n ? (size_t)n : 1)))
    rc = el_error_set(err, EL_ENOMEM, "%s: cannot allocate %llu bytes for the header", path,
                      (unsigned long long)n);
  if (!rc) rc = pread_all(r, hdr, (size_t)n, 8, "the header", err);
  if (!rc) rc = parse_header(path, hdr, n, r->file_len, out, err);
  free(hdr);
  if (rc) {
    el__st_close(r);
    return rc;
  }
  r->data_start = 8 + n;
  return EL_OK;
}

int el__st_read_f32(el_st_reader *r, const el_st_tensor *t, float *dst, el_error *err) {
  char what[160];
  snprintf(what, sizeof what, "tensor \"%.100s\"", t->name);
  uint64_t off = r->data_start + t->begin;
  if (t->dtype == EL_ST_F32)
    return pread_all(r, dst, (size_t)t->numel * sizeof(float), off, what, err);
  if (t->dtype != EL_ST_F16 && t->dtype != EL_ST_BF16)
    return el_error_set(err, EL_EUNSUPPORTED, "%s: tensor \"%.100s\": dtype %s cannot be read "
                        "as F32", r->path, t->name, el__st_dtype_name(t->dtype));
  enum { CHUNK = 32768 }; /* halves per read: a 64 KiB buffer, whatever the tensor's size */
  unsigned char *buf = malloc(2 * CHUNK);
  if (!buf) return el_error_set(err, EL_ENOMEM, "%s: out of memory", r->path);
  int bf = t->dtype == EL_ST_BF16, rc = EL_OK;
  for (uint64_t i = 0; i < t->numel && !rc; i += CHUNK) {
    size_t k = t->numel - i < CHUNK ? (size_t)(t->numel - i) : CHUNK;
    if ((rc = pread_all(r, buf, 2 * k, off + 2 * i, what, err))) break;
    for (size_t j = 0; j < k; j++) {
      uint16_t h = (uint16_t)(buf[2 * j] | (buf[2 * j + 1] << 8));
      dst[i + j] = bf ? el__bf16_to_f32(h) : el__f16_to_f32(h);
    }
  }
  free(buf);
  return rc;
}

int el__st_check_unchanged(const el_st_reader *r, el_error *err) {
  struct stat st;
  if (fstat(r->fd, &st) != 0)
    return el_error_set(err, EL_EIO, "%s: fstat: %s", r->path, strerror(errno));
  /* not ctime: unlinking or renaming over the file changes it, not its content */
  if ((uint64_t)st.st_size != r->file_len || (long long)st.st_mtim.tv_sec != r->mtime_s ||
      (long long)st.st_mtim.tv_nsec != r->mtime_ns)
    return el_error_set(err, EL_EIO, "%s: the file was modified while being read (%llu bytes "
                        "when opened, %lld now); not loaded, try again once it is complete",
                        r->path, (unsigned long long)r->file_len, (long long)st.st_size);
  return EL_OK;
}

void el__st_close(el_st_reader *r) {
  if (r->fd >= 0) close(r->fd);
  r->fd = -1;
}
