/* el_model_load: config.json -> tensor table -> mmap'd model.safetensors ->
 * every expected tensor matched by name, dtype and shape -> F32 used in
 * place, F16/BF16 (and misaligned F32) converted into one owned block ->
 * NaN/Inf scan -> vocab.txt, whose size must equal the config's and the
 * embedding rows. Any defect is refused with the file, tensor, expected and
 * found in the message. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config.h"
#include "model_internal.h"
#include "safetensors.h"

/* Non-persistent HF buffers that older checkpoints still carry. */
static int is_ignored_buffer(const el_st_tensor *t) {
  return t->dtype == EL_ST_I64 && (strcmp(t->name, "electra.embeddings.position_ids") == 0 ||
                                   strcmp(t->name, "electra.embeddings.token_type_ids") == 0);
}

static void spec_shape(const el_tensor_spec *s, int64_t *shape) {
  shape[0] = s->shape[0];
  shape[1] = s->shape[1];
}

static size_t spec_numel(const el_tensor_spec *s) {
  return (size_t)s->shape[0] * (size_t)(s->ndim == 2 ? s->shape[1] : 1);
}

static int shape_matches(const el_tensor_spec *s, const el_st_tensor *t) {
  if (t->ndim != s->ndim) return 0;
  for (int i = 0; i < s->ndim; i++)
    if (t->shape[i] != s->shape[i]) return 0;
  return 1;
}

static int needs_copy(const el_st_tensor *t, const unsigned char *p) {
  return t->dtype != EL_ST_F32 || ((uintptr_t)p % sizeof(float)) != 0;
}

static void convert(const el_st_tensor *t, const unsigned char *p, float *dst) {
  size_t n = (size_t)t->numel;
  if (t->dtype == EL_ST_F32) {
    memcpy(dst, p, n * sizeof(float));
  } else {
    int bf = t->dtype == EL_ST_BF16;
    for (size_t i = 0; i < n; i++) {
      uint16_t h = (uint16_t)(p[2 * i] | (p[2 * i + 1] << 8));
      dst[i] = bf ? el__bf16_to_f32(h) : el__f16_to_f32(h);
    }
  }
}

/* First non-finite value, by bit pattern (exponent all ones); -1 if none. */
static long long first_nonfinite(const float *x, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint32_t b;
    memcpy(&b, &x[i], sizeof b);
    if ((b & 0x7f800000u) == 0x7f800000u) return (long long)i;
  }
  return -1;
}

static int map_file(const char *path, void **map, size_t *len, el_error *err) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return el_error_set(err, EL_EIO, "%s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return el_error_set(err, EL_EIO, "%s: not a regular file", path);
  }
  if (st.st_size < 8) {
    close(fd);
    return el_error_set(err, EL_EFORMAT, "%s: file is %lld bytes, shorter than the 8-byte "
                        "header length (truncated?)", path, (long long)st.st_size);
  }
  void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  int e = errno;
  close(fd);
  if (p == MAP_FAILED) return el_error_set(err, EL_EIO, "%s: mmap failed: %s", path, strerror(e));
  *map = p;
  *len = (size_t)st.st_size;
  return EL_OK;
}

/* Matches file tensors to specs: match[j] = index into f->t or -1. */
static int match_tensors(const char *path, const el_config *cfg, const el_st_file *f,
                         const el_tensor_spec *specs, int n, int *match, el_error *err) {
  char want[64], got[128];
  for (int j = 0; j < n; j++) match[j] = -1;
  for (int i = 0; i < f->n; i++) {
    const el_st_tensor *t = &f->t[i];
    int j = 0;
    while (j < n && strcmp(specs[j].name, t->name) != 0) j++;
    if (j == n) {
      if (is_ignored_buffer(t)) continue;
      return el_error_set(err, EL_EFORMAT, "%s: unexpected tensor \"%.100s\" (not part of %s "
                          "with this config.json)", path, t->name, el_arch_name(cfg->arch));
    }
    if (t->dtype == EL_ST_I64)
      return el_error_set(err, EL_EUNSUPPORTED, "%s: tensor \"%s\": dtype I64, expected F32, F16 "
                          "or BF16", path, t->name);
    if (!shape_matches(&specs[j], t)) {
      int64_t s[2];
      spec_shape(&specs[j], s);
      el__st_shape_str(s, specs[j].ndim, want, sizeof want);
      el__st_shape_str(t->shape, t->ndim, got, sizeof got);
      return el_error_set(err, EL_ESHAPE, "%s: tensor \"%s\": expected shape %s, found %s", path,
                          t->name, want, got);
    }
    match[j] = i;
  }
  for (int j = 0; j < n; j++) {
    if (match[j] >= 0 || specs[j].optional) continue;
    int64_t s[2];
    spec_shape(&specs[j], s);
    el__st_shape_str(s, specs[j].ndim, want, sizeof want);
    return el_error_set(err, EL_EFORMAT, "%s: missing tensor \"%s\" (expected shape %s, %s)", path,
                        specs[j].name, want, el_arch_name(cfg->arch));
  }
  return EL_OK;
}

static int load_weights(el_model *m, const char *path, el_error *err) {
  el_tensor_spec *specs = malloc(EL_MAX_TENSORS * sizeof *specs);
  int *match = malloc(EL_MAX_TENSORS * sizeof *match);
  el_st_file f = {0};
  int n = 0, rc;
  if (!specs || !match) {
    rc = el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
    goto done;
  }
  if ((rc = el_tensor_specs(&m->cfg, &m->w, specs, &n, err)) ||
      (rc = map_file(path, &m->map, &m->map_len, err)) ||
      (rc = el__st_parse(path, m->map, m->map_len, &f, err)) ||
      (rc = match_tensors(path, &m->cfg, &f, specs, n, match, err)))
    goto done;

  size_t owned = 0, in_place = 0;
  for (int j = 0; j < n; j++) {
    if (specs[j].optional) continue; /* tied: the word embeddings are used */
    const el_st_tensor *t = &f.t[match[j]];
    if (needs_copy(t, f.data + t->begin)) owned += spec_numel(&specs[j]);
    else in_place++;
  }
  if (owned) {
    void *p = NULL;
    if (owned > SIZE_MAX / sizeof(float) || posix_memalign(&p, 64, owned * sizeof(float))) {
      rc = el_error_set(err, EL_ENOMEM, "%s: cannot allocate %zu floats for converted tensors",
                        path, owned);
      goto done;
    }
    m->owned = p;
    m->owned_floats = owned;
  }
  size_t at = 0;
  for (int j = 0; j < n; j++) {
    if (specs[j].optional) continue;
    const el_st_tensor *t = &f.t[match[j]];
    const unsigned char *p = f.data + t->begin;
    if (needs_copy(t, p)) {
      convert(t, p, m->owned + at);
      *specs[j].slot = m->owned + at;
      at += spec_numel(&specs[j]);
    } else {
      *specs[j].slot = (float *)(uintptr_t)p; /* read-only mapping: never written */
    }
    long long bad = first_nonfinite(*specs[j].slot, spec_numel(&specs[j]));
    if (bad >= 0) {
      float v = (*specs[j].slot)[bad];
      rc = el_error_set(err, EL_EVALUE, "%s: tensor \"%s\": %s at flat index %lld (expected "
                        "finite values)", path, specs[j].name, v != v ? "NaN" : "Inf", bad);
      goto done;
    }
  }
  if (m->cfg.arch == EL_ARCH_MASKED_LM) m->w.lm_w = m->w.word;
  m->n_params = el_weights_numel(&m->cfg);
  if (!in_place) { /* everything was converted: the file is no longer needed */
    munmap(m->map, m->map_len);
    m->map = NULL;
    m->map_len = 0;
  }
done:
  el__st_free(&f);
  free(specs);
  free(match);
  return rc;
}

static int load_vocab(el_model *m, const char *path, el_error *err) {
  if (access(path, R_OK) != 0)
    return el_error_set(err, EL_EIO, "%s: %s (the vocabulary is required)", path,
                        strerror(errno));
  int rc = el_tokenizer_load(path, m->cfg.do_lower_case, &m->tok, err);
  if (rc) return rc;
  int v = el_tokenizer_vocab_size(m->tok);
  if (v != m->cfg.vocab_size)
    return el_error_set(err, EL_ESHAPE, "%s: %d tokens, but config.json vocab_size and the word "
                        "embeddings have %d", path, v, m->cfg.vocab_size);
  return EL_OK;
}

static char *join(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/%s", dir, name);
  return p;
}

int el_model_load(const char *dir, el_model **out, el_error *err) {
  if (!dir || !out) return el_error_set(err, EL_EINVAL, "el_model_load: NULL argument");
  *out = NULL;
  el_model *m = calloc(1, sizeof *m);
  char *st = join(dir, "model.safetensors"), *vocab = join(dir, "vocab.txt");
  int rc;
  if (!m || !st || !vocab || !(m->dir = strdup(dir))) {
    rc = el_error_set(err, EL_ENOMEM, "%s: out of memory", dir);
    goto done;
  }
  if ((rc = el_config_load(dir, &m->cfg, err)) || (rc = load_weights(m, st, err)) ||
      (rc = load_vocab(m, vocab, err)))
    goto done;
  *out = m;
  m = NULL;
done:
  el_model_free(m);
  free(st);
  free(vocab);
  return rc;
}

void el_model_free(el_model *m) {
  if (!m) return;
  if (m->tok) el_tokenizer_free(m->tok);
  if (m->map) munmap(m->map, m->map_len);
  free(m->owned);
  el_config_free(&m->cfg);
  free(m->dir);
  free(m);
}

const el_config *el_model_config(const el_model *m) { return &m->cfg; }
const el_tokenizer *el_model_tokenizer(const el_model *m) { return m->tok; }
size_t el_model_num_parameters(const el_model *m) { return m->n_params; }
/* Every parameter float lives either in the mapping or in the owned block. */
size_t el_model_weight_bytes(const el_model *m) { return m->n_params * sizeof(float); }
