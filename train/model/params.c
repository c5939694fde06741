/* Parameter sets: layout, views, init, copy from checkpoints, resume I/O
 * (train/model/params.h). */
#include "params.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "trainer_api.h"

#define SHARED_PREFIX "electra.embeddings." /* word/pos/type + embedding LayerNorm */
#define TIED_PREFIX "electra."              /* + embeddings_project and the encoder */

static int is_shared_name(const el__params *p, const char *name) {
  const char *prefix = p->tie_encoder ? TIED_PREFIX : SHARED_PREFIX;
  return strncmp(name, prefix, strlen(prefix)) == 0;
}

static float *alloc_block(size_t n) {
  size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
  float *p = aligned_alloc(64, bytes ? bytes : 64);
  if (p) memset(p, 0, bytes);
  return p;
}

/* Size fields only: the trainer never needs a copy's id2label. */
static void copy_config(el_config *dst, const el_config *src) {
  *dst = *src;
  dst->id2label = NULL;
}

static el__tensor_spec *specs_alloc(void) {
  return malloc(sizeof(el__tensor_spec) * EL_MAX_TENSORS);
}

int el__params_find(const el__params *p, int model, const char *name) {
  for (int i = 0; i < p->n_tensors; i++) {
    const el__param_tensor *t = &p->tensors[i];
    if (!strcmp(t->name, name) && (t->model == model || (model == 1 && t->shared))) return i;
  }
  return -1;
}

/* Appends model's own tensors to the table (shared/tied ones of model 1 are
 * marked on model 0's entries instead). */
static int add_model(el__params *p, int model, el__tensor_spec *specs, el_error *err) {
  int n = 0, rc = el__tensor_specs(&p->cfg[model], NULL, specs, &n, err);
  if (rc) return rc;
  for (int i = 0; i < n; i++) {
    const el__tensor_spec *s = &specs[i];
    if (s->optional) continue; /* tied lm weight: the word table */
    if (model == 1 && is_shared_name(p, s->name)) {
      int j = el__params_find(p, 0, s->name);
      if (j < 0)
        return el_error_set(err, EL_ESHAPE, "params: generator tensor %s has no discriminator twin",
                            s->name);
      el__param_tensor *t = &p->tensors[j];
      if (t->shape[0] != s->shape[0] || t->shape[1] != s->shape[1])
        return el_error_set(err, EL_ESHAPE,
                            "params: shared tensor %s is [%d,%d] in the discriminator but "
                            "[%d,%d] in the generator",
                            s->name, t->shape[0], t->shape[1], s->shape[0], s->shape[1]);
      t->shared = 1;
      continue;
    }
    el__param_tensor *t = &p->tensors[p->n_tensors++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", s->name);
    t->model = model;
    t->ndim = s->ndim;
    t->shape[0] = s->shape[0];
    t->shape[1] = s->shape[1];
    t->count = (size_t)s->shape[0] * (size_t)(s->ndim == 2 ? s->shape[1] : 1);
    t->offset = p->numel;
    t->no_decay = s->no_decay;
    t->depth = s->depth;
    t->max_depth = p->cfg[model].num_layers + 1;
    p->numel += t->count;
  }
  return EL_OK;
}

/* Points every slot of model's view into block using the table. */
static int point_view(el__params *p, int model, el__weights *view, float *block,
                      el__tensor_spec *specs, el_error *err) {
  memset(view, 0, sizeof *view);
  int n = 0, rc = el__tensor_specs(&p->cfg[model], view, specs, &n, err);
  if (rc) return rc;
  for (int i = 0; i < n; i++) {
    if (specs[i].optional) continue;
    int j = el__params_find(p, model, specs[i].name);
    if (j < 0)
      return el_error_set(err, EL_EINVAL, "params: tensor %s missing from the layout",
                          specs[i].name);
    *specs[i].slot = block + p->tensors[j].offset;
  }
  if (p->cfg[model].arch == EL_ARCH_MASKED_LM) view->lm_w = view->word;
  return EL_OK;
}

static int finish(el__params *p, el__tensor_spec *specs, el_error *err) {
  p->params = alloc_block(p->numel);
  p->grads = alloc_block(p->numel);
  p->m = alloc_block(p->numel);
  p->v = alloc_block(p->numel);
  if (!p->params || !p->grads || !p->m || !p->v)
    return el_error_set(err, EL_ENOMEM, "params: cannot allocate 4 x %zu floats", p->numel);
  for (int k = 0; k < p->n_models; k++) {
    int rc = point_view(p, k, &p->w[k], p->params, specs, err);
    if (!rc) rc = point_view(p, k, &p->g[k], p->grads, specs, err);
    if (rc) return rc;
  }
  return EL_OK;
}

static int build(el__params *p, int n_models, const el_config *c0, const el_config *c1,
                 int tie_encoder, el_error *err) {
  memset(p, 0, sizeof *p);
  p->n_models = n_models;
  p->tie_encoder = tie_encoder;
  copy_config(&p->cfg[0], c0);
  if (c1) copy_config(&p->cfg[1], c1);
  int rc = el__config_check(c0, n_models == 2 ? "discriminator config" : "config", err);
  if (!rc && c1) rc = el__config_check(c1, "generator config", err);
  if (rc) return rc;
  el__tensor_spec *specs = specs_alloc();
  p->tensors = calloc((size_t)2 * EL_MAX_TENSORS, sizeof *p->tensors);
  if (!specs || !p->tensors) {
    free(specs);
    el__params_free(p);
    return el_error_set(err, EL_ENOMEM, "params: out of memory for the tensor table");
  }
  for (int k = 0; k < n_models && !rc; k++) rc = add_model(p, k, specs, err);
  if (!rc) rc = finish(p, specs, err);
  free(specs);
  if (rc) el__params_free(p);
  return rc;
}

int el__params_new_single(el__params *p, const el_config *cfg, el_error *err) {
  return build(p, 1, cfg, NULL, 0, err);
}

int el__params_new_pair(el__params *p, const el_config *disc, const el_config *gen,
                       el_error *err) {
  return el__params_new_pair_tied(p, disc, gen, 0, err);
}

int el__params_new_pair_tied(el__params *p, const el_config *disc, const el_config *gen,
                            int tie_encoder, el_error *err) {
  memset(p, 0, sizeof *p);
  if (disc->arch != EL_ARCH_PRETRAINING)
    return el_error_set(err, EL_EINVAL, "params: the discriminator must be %s, found %s",
                        el_arch_name(EL_ARCH_PRETRAINING), el_arch_name(disc->arch));
  if (gen->arch != EL_ARCH_MASKED_LM)
    return el_error_set(err, EL_EINVAL, "params: the generator must be %s, found %s",
                        el_arch_name(EL_ARCH_MASKED_LM), el_arch_name(gen->arch));
#define SAME(f)                                                                                \
  if (disc->f != gen->f)                                                                       \
    return el_error_set(err, EL_ESHAPE,                                                        \
                        "params: generator " #f " %d differs from the discriminator's %d "     \
                        "(the embeddings are shared)",                                         \
                        gen->f, disc->f);
  SAME(vocab_size)
  SAME(embedding_size)
  SAME(max_position_embeddings)
  SAME(type_vocab_size)
  SAME(relative_positions)
  if (tie_encoder) {
    SAME(hidden_size)
    SAME(num_layers)
    SAME(num_heads)
    SAME(intermediate_size)
  }
#undef SAME
  return build(p, 2, disc, gen, tie_encoder, err);
}

int el__params_grad_copy(const el__params *src, el__params *dst, el_error *err) {
  *dst = *src;
  dst->params_borrowed = 1;
  dst->m = dst->v = NULL;
  dst->tensors = malloc((size_t)src->n_tensors * sizeof *dst->tensors);
  dst->grads = alloc_block(src->numel);
  el__tensor_spec *specs = specs_alloc();
  int rc = !dst->tensors || !dst->grads || !specs
               ? el_error_set(err, EL_ENOMEM, "params: cannot allocate a gradient copy of %zu floats",
                              src->numel)
               : EL_OK;
  if (!rc) memcpy(dst->tensors, src->tensors, (size_t)src->n_tensors * sizeof *dst->tensors);
  for (int k = 0; k < src->n_models && !rc; k++)
    rc = point_view(dst, k, &dst->g[k], dst->grads, specs, err);
  free(specs);
  if (rc) el__params_free(dst);
  return rc;
}

void el__params_free(el__params *p) {
  if (!p) return;
  if (!p->params_borrowed) free(p->params);
  free(p->grads);
  free(p->m);
  free(p->v);
  free(p->tensors);
  memset(p, 0, sizeof *p);
}

int el__generator_config(const el_config *disc, float mult, el_config *gen, el_error *err) {
  if (!(mult > 0.0f) || !isfinite(mult))
    return el_error_set(err, EL_EINVAL, "generator size multiplier must be positive, found %g",
                        (double)mult);
  copy_config(gen, disc);
  gen->arch = EL_ARCH_MASKED_LM;
  gen->hidden_size = (int)lround(disc->hidden_size * (double)mult);
  gen->intermediate_size = (int)lround(disc->intermediate_size * (double)mult);
  gen->num_heads = gen->hidden_size / 64 > 1 ? gen->hidden_size / 64 : 1;
  gen->num_labels = 0;
  gen->regression = 0;
  gen->has_null_threshold = 0;
  return el__config_check(gen, "generator config", err);
}

int el__params_init_random(el__params *p, float std, int truncated, el__rng *rng, el_error *err) {
  if (!p->params) return el_error_set(err, EL_EINVAL, "params: init of an empty set");
  if (!(std > 0.0f)) std = p->cfg[0].initializer_range;
  if (!(std >= 0.0f) || !isfinite(std))
    return el_error_set(err, EL_EINVAL, "params: init std must be finite, found %g", (double)std);
  for (int i = 0; i < p->n_tensors; i++) {
    const el__param_tensor *t = &p->tensors[i];
    float *x = p->params + t->offset;
    if (strstr(t->name, "LayerNorm.weight")) {
      for (size_t j = 0; j < t->count; j++) x[j] = 1.0f;
    } else if (t->ndim == 1) {
      memset(x, 0, t->count * sizeof *x); /* biases, LayerNorm beta */
    } else {
      for (size_t j = 0; j < t->count; j++) {
        float z = el__rng_normal(rng);
        while (truncated && fabsf(z) > 2.0f) z = el__rng_normal(rng);
        x[j] = z * std;
      }
      if (!strcmp(t->name, SHARED_PREFIX "word_embeddings.weight")) {
        const el_config *c = &p->cfg[t->model];
        memset(x + (size_t)c->pad_token_id * t->shape[1], 0, sizeof(float) * t->shape[1]);
      }
    }
  }
  memset(p->m, 0, p->numel * sizeof(float));
  memset(p->v, 0, p->numel * sizeof(float));
  return EL_OK;
}

int el__params_copy_from(el__params *p, int model, const el_config *src_cfg,
                        const el__weights *src_w, int what, el_error *err) {
  if (model < 0 || model >= p->n_models)
    return el_error_set(err, EL_EINVAL, "params: no model %d in this set", model);
  if ((what & EL_COPY_HEAD) && src_cfg->arch != p->cfg[model].arch)
    return el_error_set(err, EL_ESHAPE, "params: cannot copy the head of an %s into an %s",
                        el_arch_name(src_cfg->arch), el_arch_name(p->cfg[model].arch));
  el__tensor_spec *src = specs_alloc(), *dst = specs_alloc();
  el__weights *sw = malloc(sizeof *sw);
  int rc = EL_OK, n_src = 0, n_dst = 0;
  if (!src || !dst || !sw) {
    rc = el_error_set(err, EL_ENOMEM, "params: out of memory");
    goto done;
  }
  memcpy(sw, src_w, sizeof *sw);
  if ((rc = el__tensor_specs(src_cfg, sw, src, &n_src, err))) goto done;
  if ((rc = el__tensor_specs(&p->cfg[model], NULL, dst, &n_dst, err))) goto done;
  for (int i = 0; i < n_dst; i++) {
    const el__tensor_spec *d = &dst[i];
    if (d->optional) continue;
    int group = strncmp(d->name, "electra.", 8) == 0 ? EL_COPY_ENCODER : EL_COPY_HEAD;
    if (!(what & group)) continue;
    const el__tensor_spec *s = NULL;
    for (int j = 0; j < n_src && !s; j++)
      if (!strcmp(src[j].name, d->name)) s = &src[j];
    if (!s || !*s->slot) {
      rc = el_error_set(err, EL_ESHAPE, "params: the source checkpoint (%s) has no tensor %s",
                        el_arch_name(src_cfg->arch), d->name);
      goto done;
    }
    if (s->shape[0] != d->shape[0] || s->shape[1] != d->shape[1]) {
      rc = el_error_set(err, EL_ESHAPE, "params: tensor %s: expected shape [%d,%d], source has [%d,%d]",
                        d->name, d->shape[0], d->shape[1], s->shape[0], s->shape[1]);
      goto done;
    }
    int j = el__params_find(p, model, d->name);
    const el__param_tensor *t = &p->tensors[j];
    memcpy(p->params + t->offset, *s->slot, t->count * sizeof(float));
  }
done:
  free(src);
  free(dst);
  free(sw);
  return rc;
}

int el__params_copy_from_model(el__params *p, int model, const el_model *src, int what,
                              el_error *err) {
  if (!el__weights_hf_layout(&src->cfg, &src->w))
    return el_error_set(err, EL_EINVAL, "params: %s was loaded for inference (its dense weights "
                        "transposed or quantized); load it with el__model_load_hf to copy them",
                        src->dir ? src->dir : "the model");
  return el__params_copy_from(p, model, &src->cfg, &src->w, what, err);
}

void el__params_zero_grads(el__params *p) {
  if (p->grads) memset(p->grads, 0, p->numel * sizeof(float));
}

/* ---- resume I/O ---- */

#define MAGIC "ELPARAM1"

typedef struct rec_header {
  char magic[8];
  uint32_t n_models, n_tensors;
  uint64_t numel;
} rec_header;

typedef struct rec_tensor {
  char name[96];
  uint32_t model, pad;
  uint64_t count;
} rec_tensor;

static int write_all(FILE *f, const void *buf, size_t size, size_t n, const char *what,
                     el_error *err) {
  if (n && fwrite(buf, size, n, f) != n) {
    int e = errno;
    return el_error_set(err, e == ENOSPC ? EL_ENOSPC : EL_EIO, "%s: write failed: %s", what,
                        strerror(e));
  }
  return EL_OK;
}

static int read_all(FILE *f, void *buf, size_t size, size_t n, const char *what,
                    el_error *err) {
  if (n && fread(buf, size, n, f) != n)
    return el_error_set(err, ferror(f) ? EL_EIO : EL_EFORMAT, "%s: %s", what,
                        ferror(f) ? strerror(errno) : "file ends early (truncated parameter state)");
  return EL_OK;
}

int el__params_write(const el__params *p, FILE *f, const char *what, el_error *err) {
  rec_header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, MAGIC, 8);
  h.n_models = (uint32_t)p->n_models;
  h.n_tensors = (uint32_t)p->n_tensors;
  h.numel = p->numel;
  int rc = write_all(f, &h, sizeof h, 1, what, err);
  for (int i = 0; i < p->n_tensors && !rc; i++) {
    rec_tensor t;
    memset(&t, 0, sizeof t);
    snprintf(t.name, sizeof t.name, "%s", p->tensors[i].name);
    t.model = (uint32_t)p->tensors[i].model;
    t.count = p->tensors[i].count;
    rc = write_all(f, &t, sizeof t, 1, what, err);
  }
  if (!rc) rc = write_all(f, p->params, sizeof(float), p->numel, what, err);
  if (!rc) rc = write_all(f, p->m, sizeof(float), p->numel, what, err);
  if (!rc) rc = write_all(f, p->v, sizeof(float), p->numel, what, err);
  return rc;
}

int el__params_read(el__params *p, FILE *f, const char *what, el_error *err) {
  rec_header h;
  int rc = read_all(f, &h, sizeof h, 1, what, err);
  if (rc) return rc;
  if (memcmp(h.magic, MAGIC, 8))
    return el_error_set(err, EL_EFORMAT, "%s: not a parameter state (bad magic)", what);
  if (h.n_models != (uint32_t)p->n_models || h.n_tensors != (uint32_t)p->n_tensors ||
      h.numel != p->numel)
    return el_error_set(err, EL_ESHAPE,
                        "%s: state holds %u model(s), %u tensors, %llu floats; this run has "
                        "%d, %d, %zu (different model configuration)",
                        what, h.n_models, h.n_tensors, (unsigned long long)h.numel,
                        p->n_models, p->n_tensors, p->numel);
  for (int i = 0; i < p->n_tensors; i++) {
    rec_tensor t;
    if ((rc = read_all(f, &t, sizeof t, 1, what, err))) return rc;
    t.name[sizeof t.name - 1] = 0;
    const el__param_tensor *q = &p->tensors[i];
    if (strcmp(t.name, q->name) || t.model != (uint32_t)q->model || t.count != q->count)
      return el_error_set(err, EL_ESHAPE,
                          "%s: tensor %d is %s (model %u, %llu floats) in the state but %s "
                          "(model %d, %zu floats) in this run",
                          what, i, t.name, t.model, (unsigned long long)t.count, q->name,
                          q->model, q->count);
  }
  if ((rc = read_all(f, p->params, sizeof(float), p->numel, what, err))) return rc;
  if ((rc = read_all(f, p->m, sizeof(float), p->numel, what, err))) return rc;
  if ((rc = read_all(f, p->v, sizeof(float), p->numel, what, err))) return rc;
  memset(p->grads, 0, p->numel * sizeof(float));
  return EL_OK;
}
