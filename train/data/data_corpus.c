/* Corpus tokenization into the token cache (data_corpus.h). */
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <utf8proc.h>
#include "data_builder.h"
#include "data_corpus.h"
#include "progress.h"

#define CHUNK_LINES 16384
#define CHUNK_BYTES (8u << 20)

/* Per-thread output: ids of the lines this thread tokenized, end to end. */
typedef struct tout {
  el_tokens toks;
  int *ids;
  size_t n, cap;
  char *clean; /* invalid-UTF-8 fallback copy */
  size_t clean_cap;
} tout;

typedef struct chunk {
  char *text;          /* lines end to end (with their newlines) */
  size_t used, cap;
  size_t *start;       /* [n] byte offset of line i */
  size_t *len;         /* [n] bytes of line i */
  int *thread;         /* [n] thread that tokenized line i */
  size_t *id_off;      /* [n] offset of line i's ids in that thread's tout */
  int *n_ids;          /* [n] ids of line i; -1 on error */
  uint8_t *blank, *bad;
  int n, line_cap;
} chunk;

static int chunk_reserve_lines(chunk *c) {
  if (c->n < c->line_cap) return 0;
  int cap = c->line_cap ? c->line_cap * 2 : 1024;
#define GROW(p)                                               \
  do {                                                        \
    void *q = realloc(c->p, (size_t)cap * sizeof *c->p);      \
    if (!q) return -1;                                        \
    c->p = q;                                                 \
  } while (0)
  GROW(start);
  GROW(len);
  GROW(thread);
  GROW(id_off);
  GROW(n_ids);
  GROW(blank);
  GROW(bad);
#undef GROW
  c->line_cap = cap;
  return 0;
}

static void chunk_free(chunk *c) {
  free(c->text);
  free(c->start);
  free(c->len);
  free(c->thread);
  free(c->id_off);
  free(c->n_ids);
  free(c->blank);
  free(c->bad);
}

static int is_blank(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' && s[i] != '\v' &&
        s[i] != '\f')
      return 0;
  return 1;
}

/* Drops invalid UTF-8 bytes of s into t->clean; returns the new length. */
static size_t drop_invalid(tout *t, const char *s, size_t n) {
  if (t->clean_cap < n + 1) {
    char *p = realloc(t->clean, n + 1);
    if (!p) return (size_t)-1;
    t->clean = p;
    t->clean_cap = n + 1;
  }
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    int32_t cp;
    utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
                                          (utf8proc_ssize_t)(n - i), &cp);
    if (k < 1) {
      i++;
      continue;
    }
    memcpy(t->clean + o, s + i, (size_t)k);
    o += (size_t)k;
    i += (size_t)k;
  }
  return o;
}

/* Tokenizes line i of c into t. */
static void tokenize_line(const el_tokenizer *tok, chunk *c, int i, tout *t, int tid) {
  const char *s = c->text + c->start[i];
  size_t n = c->len[i];
  c->thread[i] = tid;
  c->bad[i] = 0;
  c->blank[i] = (uint8_t)is_blank(s, n);
  c->n_ids[i] = 0;
  c->id_off[i] = t->n;
  if (c->blank[i]) return;
  el_error e = {0};
  int rc = el_tokenize(tok, s, n, &t->toks, &e);
  if (rc == EL_EINVAL) {
    c->bad[i] = 1;
    size_t m = drop_invalid(t, s, n);
    rc = m == (size_t)-1 ? EL_ENOMEM : el_tokenize(tok, t->clean, m, &t->toks, &e);
  }
  if (rc) {
    c->n_ids[i] = -1;
    return;
  }
  if (t->n + (size_t)t->toks.n > t->cap) {
    size_t cap = t->cap ? t->cap : 1 << 16;
    while (cap < t->n + (size_t)t->toks.n) cap *= 2;
    int *p = realloc(t->ids, cap * sizeof *p);
    if (!p) {
      c->n_ids[i] = -1;
      return;
    }
    t->ids = p;
    t->cap = cap;
  }
  for (int k = 0; k < t->toks.n; k++) t->ids[t->n + (size_t)k] = t->toks.tok[k].id;
  t->n += (size_t)t->toks.n;
  c->n_ids[i] = t->toks.n;
}

/* Reads up to a chunk of lines from f. Returns lines read (0 at EOF), -1 on error. */
static int read_chunk(FILE *f, chunk *c, char **line, size_t *line_cap) {
  c->n = 0;
  c->used = 0;
  ssize_t len;
  while (c->n < CHUNK_LINES && c->used < CHUNK_BYTES && (len = getline(line, line_cap, f)) > 0) {
    if (chunk_reserve_lines(c)) return -1;
    if (c->used + (size_t)len > c->cap) {
      size_t cap = c->cap ? c->cap : 1 << 20;
      while (cap < c->used + (size_t)len) cap *= 2;
      char *p = realloc(c->text, cap);
      if (!p) return -1;
      c->text = p;
      c->cap = cap;
    }
    memcpy(c->text + c->used, *line, (size_t)len);
    c->start[c->n] = c->used;
    c->len[c->n] = (size_t)len;
    c->used += (size_t)len;
    c->n++;
  }
  if (ferror(f)) return -1;
  return c->n;
}

/* What el__corpus_build carries across files and chunks. */
typedef struct corpus_ctx {
  const el_tokenizer *tok;
  int nthreads;
  tout *touts; /* per thread: the ids of its lines */
  chunk c;     /* the lines read, with where each one's ids are */
  char *line;
  size_t line_cap;
  el__exbuilder b;
  el__cache_writer *w;
  el__corpus_stats st;
} corpus_ctx;

/* Writes the example the builder completed (made > 0) to the cache. */
static int add_made(corpus_ctx *x, int made, el_error *err) {
  if (made < 0) return el_error_set(err, EL_ENOMEM, "out of memory building examples");
  return made ? el__cache_writer_add(x->w, x->b.ids, x->b.n, x->b.b_start, err) : EL_OK;
}

/* The chunk's tokenized lines, in file order, into examples; a blank line
 * ends a document. */
static int add_chunk_lines(corpus_ctx *x, const char *input, int *in_doc, el_error *err) {
  const chunk *c = &x->c;
  int rc = EL_OK;
  for (int i = 0; i < c->n && !rc; i++) {
    if (c->n_ids[i] < 0)
      return el_error_set(err, EL_ENOMEM, "input %s: could not tokenize a line (out of memory)",
                          input);
    x->st.bad_utf8_lines += c->bad[i];
    if (c->blank[i]) {
      if (*in_doc) x->st.documents++;
      *in_doc = 0;
    } else {
      *in_doc = 1;
    }
    const int *ids = x->touts[c->thread[i]].ids + c->id_off[i];
    rc = add_made(x, el__exb_add_line(&x->b, ids, c->n_ids[i], c->blank[i]), err);
  }
  return rc;
}

/* One input file: chunks of lines, each tokenized in parallel and added in
 * order; the file's end ends its last document and example. */
static int build_file(corpus_ctx *x, const char *input, el_error *err) {
  FILE *f = fopen(input, "rb");
  if (!f) return el_error_set(err, EL_EIO, "input %s: %s", input, strerror(errno));
  int got = 0, in_doc = 0, rc = EL_OK;
  while (!rc && (got = read_chunk(f, &x->c, &x->line, &x->line_cap)) > 0) {
    for (int t = 0; t < x->nthreads; t++) x->touts[t].n = 0;
    x->st.bytes += x->c.used;
    x->st.lines += (uint64_t)x->c.n;
#pragma omp parallel num_threads(x->nthreads)
    {
      int tid = omp_get_thread_num();
#pragma omp for schedule(dynamic, 256)
      for (int i = 0; i < x->c.n; i++) tokenize_line(x->tok, &x->c, i, &x->touts[tid], tid);
    }
    rc = add_chunk_lines(x, input, &in_doc, err);
  }
  if (!rc && got < 0) rc = el_error_set(err, EL_EIO, "input %s: read error", input);
  fclose(f);
  if (in_doc) x->st.documents++;
  if (!rc) rc = add_made(x, el__exb_flush(&x->b), err);
  return rc;
}

int el__corpus_build(const char *path, char *const *inputs, int n_inputs,
                     const el_tokenizer *tok, const el__cache_key *key, el__corpus_stats *stats,
                     el_error *err) {
  double t0 = el__mono_s();
  corpus_ctx x;
  memset(&x, 0, sizeof x);
  x.tok = tok;
  x.nthreads = omp_get_max_threads();
  if (x.nthreads < 1) x.nthreads = 1;
  x.touts = calloc((size_t)x.nthreads, sizeof *x.touts);
  if (!x.touts) return el_error_set(err, EL_ENOMEM, "out of memory");
  int rc;
  if ((rc = el__exb_init(&x.b, (int)key->seq_len, el_tokenizer_special_id(tok, EL_TOK_CLS),
                         el_tokenizer_special_id(tok, EL_TOK_SEP), key->build_seed, err))) {
    free(x.touts);
    return rc;
  }
  if ((rc = el__cache_writer_open(&x.w, path, key, err))) goto done;
  for (int fi = 0; fi < n_inputs && !rc; fi++) rc = build_file(&x, inputs[fi], err);
  if (!rc) {
    x.st.examples = el__cache_writer_count(x.w, &x.st.tokens);
    if (x.st.examples == 0)
      rc = el_error_set(err, EL_EINVAL,
                        "the input holds no text the vocabulary can tokenize (%llu lines read)",
                        (unsigned long long)x.st.lines);
  }
  if (rc) el__cache_writer_abort(&x.w);
  else rc = el__cache_writer_finish(&x.w, (uint64_t)n_inputs, err);
done:
  x.st.seconds = el__mono_s() - t0;
  if (stats) *stats = x.st;
  for (int t = 0; t < x.nthreads; t++) {
    el_tokens_free(&x.touts[t].toks);
    free(x.touts[t].ids);
    free(x.touts[t].clean);
  }
  free(x.touts);
  chunk_free(&x.c);
  free(x.line);
  el__exb_free(&x.b);
  return rc;
}
