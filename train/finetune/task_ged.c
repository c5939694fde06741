/* Token-per-line GED reader: "token<TAB or SPACE>label" with label c or i
 * (both FCE layouts: Rei & Yannakoudakis 2016 TSV and the BEA-2019-derived
 * space-separated CRLF files), a blank line between sentences. The label is
 * the last whitespace-separated field, so a token never contains the
 * separator. A line without a label or with another label is an error naming
 * file and line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "task_data.h"
#include "trainer_api.h"

static void sentence_free(el__ged_sentence *s) {
  for (int j = 0; s->words && j < s->n; j++) free(s->words[j]);
  free(s->words);
  free(s->err);
}

void el__ged_free(el__ged_data *d) {
  if (!d) return;
  for (int i = 0; i < d->n; i++) sentence_free(&d->s[i]);
  free(d->s);
  memset(d, 0, sizeof *d);
}

typedef struct cur_t {
  char **w;
  unsigned char *e;
  int n, cap, line;
} cur_t;

static int flush(el__ged_data *d, cur_t *c) {
  if (c->n == 0) return 0;
  if (el__grow((void **)&d->s, &d->cap, (size_t)d->n + 1, sizeof *d->s)) return -1;
  d->s[d->n++] = (el__ged_sentence){c->n, c->w, c->e, c->line};
  *c = (cur_t){0};
  return 0;
}

static int is_ws(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'; }

int el__ged_read(const char *path, el__ged_data *out, el_error *err) {
  memset(out, 0, sizeof *out);
  FILE *fp = fopen(path, "rb");
  if (!fp) return el_error_set(err, EL_EIO, "%s: %s", path, strerror(errno));
  char *line = NULL;
  size_t cap = 0;
  long lineno = 0;
  int rc = EL_OK;
  cur_t c = {0};
  while (getline(&line, &cap, fp) >= 0) {
    lineno++;
    size_t n = strlen(line);
    while (n && is_ws(line[n - 1])) line[--n] = 0;
    char *s = line;
    if (lineno == 1 && (unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB &&
        (unsigned char)s[2] == 0xBF)
      s += 3;
    while (*s && is_ws(*s)) s++;
    if (!*s) {
      if (flush(out, &c)) goto oom;
      continue;
    }
    char *sep = s + strlen(s);
    while (sep > s && !is_ws(sep[-1])) sep--;
    if (sep == s) {
      rc = el_error_set(err, EL_EFORMAT,
                        "%s:%ld: expected 'token<TAB or SPACE>label' with label c or i, got '%.40s'",
                        path, lineno, s);
      goto done;
    }
    const char *lab = sep;
    int e;
    if (!strcmp(lab, "c") || !strcmp(lab, "C"))
      e = 0;
    else if (!strcmp(lab, "i") || !strcmp(lab, "I"))
      e = 1;
    else {
      rc = el_error_set(err, EL_EFORMAT, "%s:%ld: unknown label '%.40s' (expected c or i)", path,
                        lineno, lab);
      goto done;
    }
    char *tend = sep;
    while (tend > s && is_ws(tend[-1])) tend--;
    *tend = 0;
    if (c.n == c.cap) {
      int nc = c.cap ? c.cap * 2 : 32;
      char **nw = realloc(c.w, (size_t)nc * sizeof *nw);
      if (!nw) goto oom;
      c.w = nw;
      unsigned char *ne = realloc(c.e, (size_t)nc);
      if (!ne) goto oom;
      c.e = ne;
      c.cap = nc;
    }
    if (c.n == 0) c.line = (int)lineno;
    if (!(c.w[c.n] = strdup(s))) goto oom;
    c.e[c.n++] = (unsigned char)e;
    out->n_words++;
    out->n_errors += e;
  }
  if (ferror(fp)) {
    rc = el_error_set(err, EL_EIO, "%s: read error: %s", path, strerror(errno));
    goto done;
  }
  if (flush(out, &c)) goto oom;
  if (out->n == 0) rc = el_error_set(err, EL_EFORMAT, "%s: no sentences", path);
  goto done;
oom:
  rc = el_error_set(err, EL_ENOMEM, "%s:%ld: out of memory", path, lineno);
done:
  for (int j = 0; j < c.n; j++) free(c.w[j]);
  free(c.w);
  free(c.e);
  free(line);
  fclose(fp);
  if (rc) el__ged_free(out);
  return rc;
}

/* Sentence a followed by sentence b, as one unit of their own copies. */
static int joined_unit(const el__ged_sentence *a, const el__ged_sentence *b, el__ged_sentence *out) {
  int n = a->n + b->n;
  *out = (el__ged_sentence){n, calloc((size_t)n, sizeof(char *)), malloc((size_t)n), a->line};
  if (!out->words || !out->err) return -1;
  for (int j = 0; j < n; j++) {
    const el__ged_sentence *from = j < a->n ? a : b;
    int k = j < a->n ? j : j - a->n;
    if (!(out->words[j] = strdup(from->words[k]))) return -1;
    out->err[j] = from->err[k];
  }
  return 0;
}

int el__ged_join_neighbours(el__ged_data *g, double share, uint64_t seed, int max_words,
                            el_error *err) {
  el__rng rng;
  el__rng_seed(&rng, seed ^ 0x10C0FFEEull);
  const int n = g->n; /* the units join the file's sentences, not each other */
  for (int i = 1; i < n; i++) {
    if (el__rng_uniform(&rng) >= share || g->s[i - 1].n + g->s[i].n > max_words) continue;
    if (el__grow((void **)&g->s, &g->cap, (size_t)g->n + 1, sizeof *g->s))
      return el_error_set(err, EL_ENOMEM, "joining sentences: out of memory");
    el__ged_sentence u;
    if (joined_unit(&g->s[i - 1], &g->s[i], &u)) {
      sentence_free(&u);
      return el_error_set(err, EL_ENOMEM, "joining sentences: out of memory");
    }
    g->s[g->n++] = u;
    g->n_words += u.n;
    for (int j = 0; j < u.n; j++) g->n_errors += u.err[j];
  }
  return EL_OK;
}
