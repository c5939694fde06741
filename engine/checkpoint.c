/* Saving an HF checkpoint directory atomically (docs/MODEL.md §10): all files go
 * into "<dir>.tmp-<pid>", each is fsync'd, the directory is fsync'd, then it
 * replaces dir by one rename (RENAME_EXCHANGE when dir exists, so dir never
 * disappears; the two-rename fallback leaves at most a moment without it).
 * On failure the temporary directory is removed and dir is untouched. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "checkpoint.h"
#include "fileio.h"

/* ---- model.safetensors ------------------------------------------------ */

typedef struct strbuf {
  char *p;
  size_t n, cap;
} strbuf;

static int sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sb_printf(strbuf *b, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
    va_end(ap);
    if (k < 0) return -1;
    if (b->p && b->n + (size_t)k < b->cap) {
      b->n += (size_t)k;
      return 0;
    }
    size_t cap = b->cap ? b->cap * 2 : 4096;
    while (cap < b->n + (size_t)k + 1) cap *= 2;
    char *q = realloc(b->p, cap);
    if (!q) return -1;
    b->p = q;
    b->cap = cap;
  }
}

static size_t numel(const el__tensor_spec *s) {
  return (size_t)s->shape[0] * (size_t)(s->ndim == 2 ? s->shape[1] : 1);
}

/* Header JSON padded with spaces so the data section starts 8-aligned. */
static int build_header(const el__tensor_spec *specs, int n, strbuf *h) {
  uint64_t off = 0;
  if (sb_printf(h, "{\"__metadata__\":{\"format\":\"pt\"}")) return -1;
  for (int j = 0; j < n; j++) {
    const el__tensor_spec *s = &specs[j];
    if (s->optional) continue; /* tied to the word embeddings: HF omits it too */
    uint64_t bytes = (uint64_t)numel(s) * sizeof(float);
    int k = s->ndim == 2
                ? sb_printf(h, ",\"%s\":{\"dtype\":\"F32\",\"shape\":[%d,%d],", s->name,
                            s->shape[0], s->shape[1])
                : sb_printf(h, ",\"%s\":{\"dtype\":\"F32\",\"shape\":[%d],", s->name,
                            s->shape[0]);
    if (k || sb_printf(h, "\"data_offsets\":[%llu,%llu]}", (unsigned long long)off,
                       (unsigned long long)(off + bytes)))
      return -1;
    off += bytes;
  }
  if (sb_printf(h, "}")) return -1;
  while (h->n % 8)
    if (sb_printf(h, " ")) return -1;
  return 0;
}

static int check_tensors(const char *path, const el__tensor_spec *specs, int n, el_error *err) {
  for (int j = 0; j < n; j++) {
    const el__tensor_spec *s = &specs[j];
    if (s->optional) continue;
    const float *x = *s->slot;
    if (!x)
      return el_error_set(err, EL_EINVAL, "%s: tensor \"%s\" is not set in the weights", path,
                          s->name);
    size_t k = numel(s);
    for (size_t i = 0; i < k; i++) {
      uint32_t b;
      memcpy(&b, &x[i], sizeof b);
      if ((b & 0x7f800000u) == 0x7f800000u)
        return el_error_set(err, EL_EVALUE, "%s: tensor \"%s\" holds %s at flat index %zu; "
                            "refusing to save", path, s->name, x[i] != x[i] ? "NaN" : "Inf", i);
    }
  }
  return EL_OK;
}

int el__safetensors_save(const char *path, const el_config *cfg, const el__weights *w,
                        el_error *err) {
  if (!path || !cfg || !w)
    return el_error_set(err, EL_EINVAL, "el__safetensors_save: NULL argument");
  el__tensor_spec *specs = malloc(EL_MAX_TENSORS * sizeof *specs);
  strbuf h = {0};
  int n = 0, rc, fd = -1;
  if (!specs) return el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
  /* The specs only take addresses of w's fields; nothing is written through them. */
  if ((rc = el__tensor_specs(cfg, (el__weights *)(uintptr_t)w, specs, &n, err)) ||
      (rc = check_tensors(path, specs, n, err)))
    goto done;
  if (build_header(specs, n, &h)) {
    rc = el_error_set(err, EL_ENOMEM, "%s: out of memory for the header", path);
    goto done;
  }
  unsigned char len8[8];
  for (int i = 0; i < 8; i++) len8[i] = (unsigned char)((uint64_t)h.n >> (8 * i));
  fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    rc = el__io_error(err, errno, path, "open");
    goto done;
  }
  if ((rc = el__write_all(fd, len8, 8, path, err)) || (rc = el__write_all(fd, h.p, h.n, path, err)))
    goto fail;
  for (int j = 0; j < n; j++)
    if (!specs[j].optional &&
        (rc = el__write_all(fd, *specs[j].slot, numel(&specs[j]) * sizeof(float), path, err)))
      goto fail;
  rc = el__fsync_close(fd, path, err);
  fd = -1;
  if (rc) goto fail;
  goto done;
fail: {
  /* Remove what was written, but never a device or anything not a plain file. */
  struct stat st;
  int regular = (fd >= 0) ? (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
                          : (lstat(path, &st) == 0 && S_ISREG(st.st_mode));
  if (fd >= 0) close(fd);
  if (regular) unlink(path);
}
done:
  free(h.p);
  free(specs);
  return rc;
}

/* ---- the directory ---------------------------------------------------- */

static char *fmt_path(const char *a, const char *b, long pid) {
  size_t n = strlen(a) + strlen(b) + 32;
  char *p = malloc(n);
  if (p) {
    if (pid >= 0) snprintf(p, n, "%s%s%ld", a, b, pid);
    else snprintf(p, n, "%s/%s", a, b);
  }
  return p;
}

/* dirname of path into a new string ("." when there is none). */
static char *parent_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return strdup(".");
  if (slash == path) return strdup("/");
  return strndup(path, (size_t)(slash - path));
}

static int write_all_files(const char *tmp, const el_config *cfg, const el__weights *w,
                           const char *vocab_path, el_error *err) {
  char *st = fmt_path(tmp, "model.safetensors", -1), *vocab = fmt_path(tmp, "vocab.txt", -1);
  int rc;
  if (!st || !vocab) rc = el_error_set(err, EL_ENOMEM, "%s: out of memory", tmp);
  else if (!(rc = el__config_write(tmp, cfg, err)) && !(rc = el__safetensors_save(st, cfg, w, err)))
    rc = el__copy_file(vocab_path, vocab, (size_t)1 << 30, err);
  free(st);
  free(vocab);
  return rc;
}

/* Puts tmp in place of dir. */
static int swap_in(const char *tmp, const char *dir, el_error *err) {
  struct stat st;
  if (lstat(dir, &st) != 0) {
    if (errno != ENOENT) return el__io_error(err, errno, dir, "stat");
    if (rename(tmp, dir) != 0) return el__io_error(err, errno, dir, "rename");
    return EL_OK;
  }
  if (!S_ISDIR(st.st_mode))
    return el_error_set(err, EL_EIO, "%s: exists and is not a directory; not replacing it", dir);
  if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) == 0) {
    el__remove_tree(tmp); /* now holds the old checkpoint */
    return EL_OK;
  }
  if (errno != EINVAL && errno != ENOSYS)
    return el__io_error(err, errno, dir, "rename (exchange)");
  char *old = fmt_path(dir, ".old-", (long)getpid());
  if (!old) return el_error_set(err, EL_ENOMEM, "%s: out of memory", dir);
  int rc = EL_OK;
  el__remove_tree(old);
  if (rename(dir, old) != 0) {
    rc = el__io_error(err, errno, dir, "rename aside");
  } else if (rename(tmp, dir) != 0) {
    rc = el__io_error(err, errno, dir, "rename");
    rename(old, dir); /* put the old one back */
  } else {
    el__remove_tree(old);
  }
  free(old);
  return rc;
}

int el__checkpoint_save(const char *dir, const el_config *cfg, const el__weights *w,
                       const char *vocab_path, el_error *err) {
  if (!dir || !cfg || !w || !vocab_path)
    return el_error_set(err, EL_EINVAL, "el__checkpoint_save: NULL argument");
  size_t len = strlen(dir);
  while (len > 1 && dir[len - 1] == '/') len--; /* "out/" names the same directory as "out" */
  char *d = strndup(dir, len), *tmp = d ? fmt_path(d, ".tmp-", (long)getpid()) : NULL;
  char *parent = d ? parent_of(d) : NULL;
  int rc = EL_OK, made = 0;
  if (!d || !tmp || !parent) {
    rc = el_error_set(err, EL_ENOMEM, "%s: out of memory", dir);
    goto done;
  }
  if (len == 0 || strcmp(d, "/") == 0 || strcmp(d, ".") == 0 || strcmp(d, "..") == 0) {
    rc = el_error_set(err, EL_EINVAL, "\"%s\": not a usable checkpoint directory name", dir);
    goto done;
  }
  if ((rc = el__config_check(cfg, "config", err))) goto done;
  if (!el__weights_hf_layout(cfg, w)) {
    rc = el_error_set(err, EL_EINVAL, "%s: the weights are laid out for inference (a model "
                      "loaded by el_model_load: transposed, or int8 without its fp32 dense "
                      "weights); save one loaded by el__model_load_hf", dir);
    goto done;
  }
  el__remove_tree(tmp); /* left over by a crashed process that had our pid */
  if (mkdir(tmp, 0755) != 0) {
    rc = el__io_error(err, errno, tmp, "mkdir");
    goto done;
  }
  made = 1;
  if ((rc = write_all_files(tmp, cfg, w, vocab_path, err)) || (rc = el__fsync_dir(tmp, err)) ||
      (rc = swap_in(tmp, d, err)))
    goto done;
  made = 0;
  rc = el__fsync_dir(parent, err);
done:
  if (made) el__remove_tree(tmp);
  free(d);
  free(tmp);
  free(parent);
  return rc;
}
