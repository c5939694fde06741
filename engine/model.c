/* el_model_load: config.json -> tensor table -> model.safetensors' header ->
 * every expected tensor matched by name, dtype and shape -> every tensor read
 * (F32) or converted (F16/BF16) straight into one owned parameter block ->
 * the file unchanged while it was read -> NaN/Inf scan -> vocab.txt, whose
 * size must equal the config's and the embedding rows. Any defect is refused
 * with the file, tensor, expected and found in the message. Nothing of the
 * file stays mapped or open: a loaded model never changes with its file. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "config.h"
#include "fileio.h"
#include "model_internal.h"
#include "quant.h"
#include "safetensors.h"

/* Non-persistent HF buffers that older checkpoints still carry. */
static int is_ignored_buffer(const el_st_tensor *t) {
  return t->dtype == EL_ST_I64 && (strcmp(t->name, "electra.embeddings.position_ids") == 0 ||
                                   strcmp(t->name, "electra.embeddings.token_type_ids") == 0);
}

static void spec_shape(const el__tensor_spec *s, int64_t *shape) {
  shape[0] = s->shape[0];
  shape[1] = s->shape[1];
}

static size_t spec_numel(const el__tensor_spec *s) {
  return (size_t)s->shape[0] * (size_t)(s->ndim == 2 ? s->shape[1] : 1);
}

static int shape_matches(const el__tensor_spec *s, const el_st_tensor *t) {
  if (t->ndim != s->ndim) return 0;
  for (int i = 0; i < s->ndim; i++)
    if (t->shape[i] != s->shape[i]) return 0;
  return 1;
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

/* The parameter block: anonymous pages of its own, so freeing a model (the
 * old one after a server reload) returns them to the system at once. */
static float *alloc_block(size_t floats, size_t *bytes) {
  if (floats > SIZE_MAX / sizeof(float)) return NULL;
  size_t n = floats * sizeof(float);
  void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  *bytes = n ? n : 1;
  return p;
}

/* Matches file tensors to specs: match[j] = index into f->t or -1. */
static int match_tensors(const char *path, const el_config *cfg, const el_st_file *f,
                         const el__tensor_spec *specs, int n, int *match, el_error *err) {
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
  el__tensor_spec *specs = malloc(EL_MAX_TENSORS * sizeof *specs);
  int *match = malloc(EL_MAX_TENSORS * sizeof *match);
  el_st_file f = {0};
  el_st_reader rd = {.fd = -1};
  int n = 0, rc;
  if (!specs || !match) {
    rc = el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
    goto done;
  }
  if ((rc = el__tensor_specs(&m->cfg, &m->w, specs, &n, err)) ||
      (rc = el__st_open(path, &rd, &f, err)) ||
      (rc = match_tensors(path, &m->cfg, &f, specs, n, match, err)))
    goto done;

  size_t total = el__weights_numel(&m->cfg);
  if (!(m->owned = alloc_block(total, &m->owned_map_len))) {
    rc = el_error_set(err, EL_ENOMEM, "%s: cannot allocate %zu floats for the weights", path,
                      total);
    goto done;
  }
  m->owned_floats = total;
  if ((rc = el__weights_point(&m->cfg, &m->w, m->owned, err))) goto done;
  /* in file order, so the reads are sequential */
  for (int i = 0; i < f.n; i++)
    for (int j = 0; j < n; j++)
      if (match[j] == i && !specs[j].optional &&
          (rc = el__st_read_f32(&rd, &f.t[i], *specs[j].slot, err)))
        goto done;
  if ((rc = el__st_check_unchanged(&rd, err))) goto done;
  for (int j = 0; j < n; j++) {
    if (specs[j].optional) continue; /* tied: the word embeddings are used */
    long long bad = first_nonfinite(*specs[j].slot, spec_numel(&specs[j]));
    if (bad >= 0) {
      float v = (*specs[j].slot)[bad];
      rc = el_error_set(err, EL_EVALUE, "%s: tensor \"%s\": %s at flat index %lld (expected "
                        "finite values)", path, specs[j].name, v != v ? "NaN" : "Inf", bad);
      goto done;
    }
  }
  if (m->cfg.arch == EL_ARCH_MASKED_LM) m->w.lm_w = m->w.word;
  m->n_params = total;
done:
  el__st_close(&rd);
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

int el_model_load(const char *dir, el_model **out, el_error *err) {
  return el_model_load_opts(dir, NULL, out, err);
}

/* Loads dir as dtype; hf_layout keeps every weight as the file has it
 * (el__model_load_hf), otherwise an fp32 model gets the inference layout. */
static int load_model(const char *dir, el_dtype dtype, int hf_layout, el_model **out,
                      el_error *err) {
  if (!dir || !out) return el_error_set(err, EL_EINVAL, "el_model_load: NULL argument");
  *out = NULL;
  if (!el_dtype_name(dtype))
    return el_error_set(err, EL_EINVAL, "el_model_load: dtype %d is not one of fp32, int8",
                        (int)dtype);
  if (!el_dtype_available(dtype))
    return el_error_set(err, EL_EUNSUPPORTED,
                        "%s: dtype %s needs oneDNN, and this build has none (install "
                        "libdnnl-dev and rebuild, or load as fp32)", dir, el_dtype_name(dtype));
  el_model *m = calloc(1, sizeof *m);
  char *st = el__path_join(dir, "model.safetensors"), *vocab = el__path_join(dir, "vocab.txt");
  int rc;
  if (!m || !st || !vocab || !(m->dir = strdup(dir))) {
    rc = el_error_set(err, EL_ENOMEM, "%s: out of memory", dir);
    goto done;
  }
  if ((rc = el__config_load(dir, &m->cfg, err)) || (rc = load_weights(m, st, err)) ||
      (rc = load_vocab(m, vocab, err)) ||
      (dtype == EL_DTYPE_INT8 && (rc = el__quant_build(m, err))) ||
      (!hf_layout && (rc = el__infer_layout(m, dtype == EL_DTYPE_FP32, err))))
    goto done;
  *out = m;
  m = NULL;
done:
  el_model_free(m);
  free(st);
  free(vocab);
  return rc;
}

int el_model_load_opts(const char *dir, const el_load_options *opts, el_model **out,
                       el_error *err) {
  return load_model(dir, opts ? opts->dtype : EL_DTYPE_FP32, 0, out, err);
}

int el__model_load_hf(const char *dir, el_model **out, el_error *err) {
  return load_model(dir, EL_DTYPE_FP32, 1, out, err);
}

void el_model_free(el_model *m) {
  if (!m) return;
  if (m->tok) el_tokenizer_free(m->tok);
  el__quant_free(m->q);
  free(m->lm_packed);
  if (m->owned_map_len)
    munmap(m->owned, m->owned_map_len);
  else
    free(m->owned);
  el__config_free(&m->cfg);
  free(m->dir);
  free(m);
}

const el_config *el_model_config(const el_model *m) { return &m->cfg; }
const el_tokenizer *el_model_tokenizer(const el_model *m) { return m->tok; }
size_t el_model_num_parameters(const el_model *m) { return m->n_params; }
el_dtype el_model_dtype(const el_model *m) { return m->dtype; }
/* Every parameter float lives in the owned block, less the pages an int8
 * model released, plus its quantized copy. */
size_t el_model_weight_bytes(const el_model *m) {
  return (m->n_params - m->released_floats) * sizeof(float) + (m->q ? m->q->bytes : 0);
}
