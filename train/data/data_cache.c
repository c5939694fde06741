/* Token cache writing and memory-mapped reading (format in data_cache.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "data_cache.h"
#include "strmap.h"
#include "trainer_api.h"

struct el__cache_writer {
  el__atomic out; /* the cache file, replaced atomically by finish */
  char itmp[4200];  /* the index, collected beside it, appended at the end */
  FILE *fi;
  el__cache_header h;
  uint64_t hash_tok, hash_idx;
  void *buf;
  size_t buf_cap;
};

static int io_fail(el_error *err, const char *what, const char *path) {
  int e = errno;
  if (e == ENOSPC || e == EDQUOT)
    return el_error_set(err, EL_ENOSPC, "%s %s: no space left on device", what, path);
  return el_error_set(err, EL_EIO, "%s %s: %s", what, path, strerror(e ? e : EIO));
}

int el__cache_writer_open(el__cache_writer **out, const char *path, const el__cache_key *key,
                          el_error *err) {
  el__cache_writer *w = calloc(1, sizeof *w);
  if (!w) return el_error_set(err, EL_ENOMEM, "out of memory");
  snprintf(w->itmp, sizeof w->itmp, "%s.idx-%d", path, (int)getpid());
  memcpy(w->h.magic, EL_CACHE_MAGIC, 8);
  w->h.version = EL_CACHE_VERSION;
  w->h.id_bytes = key->vocab_size <= 65535 ? 2 : 4;
  w->h.seq_len = key->seq_len;
  w->h.lower_case = key->lower_case;
  w->h.vocab_size = key->vocab_size;
  w->h.vocab_hash = key->vocab_hash;
  w->h.inputs_fp = key->inputs_fp;
  w->h.build_seed = key->build_seed;
  w->h.tokens_offset = sizeof(el__cache_header);
  w->hash_tok = w->hash_idx = EL_FNV_OFFSET;
  int rc = el__atomic_begin(&w->out, path, err);
  if (rc) {
    free(w);
    return rc;
  }
  w->fi = fopen(w->itmp, "w+b");
  if (!w->fi) {
    rc = io_fail(err, "cannot create token cache index", w->itmp);
    el__atomic_abort(&w->out);
    free(w);
    return rc;
  }
  if (fwrite(&w->h, sizeof w->h, 1, w->out.f) != 1) {
    rc = io_fail(err, "cannot write token cache", w->out.tmp);
    el__cache_writer_abort(&w);
    return rc;
  }
  *out = w;
  return EL_OK;
}

int el__cache_writer_add(el__cache_writer *w, const int *ids, int n, int b_start, el_error *err) {
  size_t need = (size_t)n * w->h.id_bytes;
  if (need > w->buf_cap) {
    void *b = realloc(w->buf, need);
    if (!b) return el_error_set(err, EL_ENOMEM, "out of memory");
    w->buf = b;
    w->buf_cap = need;
  }
  if (w->h.id_bytes == 2)
    for (int i = 0; i < n; i++) ((uint16_t *)w->buf)[i] = (uint16_t)ids[i];
  else
    for (int i = 0; i < n; i++) ((uint32_t *)w->buf)[i] = (uint32_t)ids[i];
  el__cache_entry e = {w->h.n_tokens, (uint32_t)n, (uint32_t)b_start};
  if (fwrite(w->buf, 1, need, w->out.f) != need)
    return io_fail(err, "cannot write token cache", w->out.tmp);
  if (fwrite(&e, sizeof e, 1, w->fi) != 1)
    return io_fail(err, "cannot write token cache index", w->itmp);
  w->hash_tok = el__fnv1a(w->buf, need, w->hash_tok);
  w->hash_idx = el__fnv1a(&e, sizeof e, w->hash_idx);
  w->h.n_tokens += (uint64_t)n;
  w->h.n_examples++;
  return EL_OK;
}

uint64_t el__cache_writer_count(const el__cache_writer *w, uint64_t *tokens) {
  if (tokens) *tokens = w->h.n_tokens;
  return w->h.n_examples;
}

void el__cache_writer_abort(el__cache_writer **pw) {
  el__cache_writer *w = *pw;
  if (!w) return;
  el__atomic_abort(&w->out);
  if (w->fi) fclose(w->fi);
  unlink(w->itmp);
  free(w->buf);
  free(w);
  *pw = NULL;
}

int el__cache_writer_finish(el__cache_writer **pw, uint64_t n_input_files, el_error *err) {
  el__cache_writer *w = *pw;
  int rc = EL_OK;
  uint64_t pos = w->h.tokens_offset + w->h.n_tokens * w->h.id_bytes;
  static const char zeros[8] = {0};
  size_t pad = (size_t)((8 - pos % 8) % 8);
  if (pad && fwrite(zeros, 1, pad, w->out.f) != pad) {
    rc = io_fail(err, "cannot write token cache", w->out.tmp);
    goto fail;
  }
  w->h.index_offset = pos + pad;
  if (fflush(w->fi) || fseek(w->fi, 0, SEEK_SET)) {
    rc = io_fail(err, "cannot read back token cache index", w->itmp);
    goto fail;
  }
  char buf[1 << 16];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, w->fi)) > 0)
    if (fwrite(buf, 1, n, w->out.f) != n) {
      rc = io_fail(err, "cannot write token cache", w->out.tmp);
      goto fail;
    }
  w->h.content_hash = w->hash_tok ^ (w->hash_idx * 0x9E3779B97F4A7C15ULL);
  w->h.n_input_files = n_input_files;
  if (fseek(w->out.f, 0, SEEK_SET) || fwrite(&w->h, sizeof w->h, 1, w->out.f) != 1) {
    rc = io_fail(err, "cannot write token cache", w->out.tmp);
    goto fail;
  }
  rc = el__atomic_commit(&w->out, err); /* fsync, rename over the path, fsync the directory */
fail:
  el__cache_writer_abort(pw);
  return rc;
}

/* ---- reading ---- */

int el__cache_open(el__cache *c, const char *path, const el__cache_key *key, el_error *err) {
  memset(c, 0, sizeof *c);
  int fd = open(path, O_RDONLY);
  if (fd < 0) return el_error_set(err, EL_EIO, "token cache %s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st)) {
    close(fd);
    return el_error_set(err, EL_EIO, "token cache %s: %s", path, strerror(errno));
  }
  size_t len = (size_t)st.st_size;
  if (len < sizeof(el__cache_header)) {
    close(fd);
    return el_error_set(err, EL_EFORMAT, "token cache %s: truncated (%zu bytes)", path, len);
  }
  void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (m == MAP_FAILED) return el_error_set(err, EL_EIO, "token cache %s: mmap: %s", path, strerror(errno));
  c->map = m;
  c->map_len = len;
  memcpy(&c->h, m, sizeof c->h);
  const el__cache_header *h = &c->h;
  int rc = EL_OK;
  if (memcmp(h->magic, EL_CACHE_MAGIC, 8))
    rc = el_error_set(err, EL_EFORMAT, "token cache %s: not a token cache (bad magic)", path);
  else if (h->version != EL_CACHE_VERSION)
    rc = el_error_set(err, EL_EFORMAT, "token cache %s: version %u, expected %u", path,
                      h->version, EL_CACHE_VERSION);
  else if ((h->id_bytes != 2 && h->id_bytes != 4) || h->tokens_offset != sizeof *h ||
           h->n_tokens > (len / h->id_bytes) ||
           h->index_offset < h->tokens_offset + h->n_tokens * h->id_bytes ||
           h->index_offset % 8 || h->index_offset > len ||
           h->n_examples > (len - h->index_offset) / sizeof(el__cache_entry) ||
           h->index_offset + h->n_examples * sizeof(el__cache_entry) != len)
    rc = el_error_set(err, EL_EFORMAT, "token cache %s: sizes in the header do not match the file (%zu bytes)",
                      path, len);
  if (!rc) {
    c->tokens = c->map + h->tokens_offset;
    c->index = (const el__cache_entry *)(c->map + h->index_offset);
    for (uint64_t i = 0; i < h->n_examples && !rc; i++) {
      const el__cache_entry *e = &c->index[i];
      if (e->len < 2 || e->len > h->seq_len || e->b_start > e->len ||
          e->start + e->len > h->n_tokens)
        rc = el_error_set(err, EL_EFORMAT, "token cache %s: example %llu is out of bounds", path,
                          (unsigned long long)i);
    }
  }
  if (!rc && key) {
    const char *f = NULL;
    if (h->vocab_hash != key->vocab_hash || h->vocab_size != key->vocab_size) f = "vocabulary";
    else if (h->seq_len != key->seq_len) f = "sequence length";
    else if (h->lower_case != key->lower_case) f = "lower-casing";
    else if (h->build_seed != key->build_seed) f = "builder seed";
    else if (h->inputs_fp != key->inputs_fp) f = "input files (names, sizes or times)";
    if (f) rc = el_error_set(err, EL_ESHAPE, "token cache %s was built for another %s", path, f);
  }
  if (rc) el__cache_close(c);
  return rc;
}

void el__cache_close(el__cache *c) {
  if (c->map) munmap((void *)c->map, c->map_len);
  memset(c, 0, sizeof *c);
}

int el__cache_example(const el__cache *c, uint64_t i, int *out, int *b_start) {
  const el__cache_entry *e = &c->index[i];
  if (c->h.id_bytes == 2) {
    const uint16_t *t = (const uint16_t *)c->tokens + e->start;
    for (uint32_t k = 0; k < e->len; k++) out[k] = t[k];
  } else {
    const uint32_t *t = (const uint32_t *)c->tokens + e->start;
    for (uint32_t k = 0; k < e->len; k++) out[k] = (int)t[k];
  }
  if (b_start) *b_start = (int)e->b_start;
  return (int)e->len;
}
