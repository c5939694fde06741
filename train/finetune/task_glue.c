/* GLUE-style TSV reader for classification and regression tasks; see
 * task_data.h for the column and bad-input rules. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "task_data.h"
#include "trainer_api.h"

#define MAX_FIELDS 64

/* Splits line at tabs in place; returns the number of fields. */
static int split_tabs(char *line, char **f) {
  int n = 0;
  f[n++] = line;
  for (char *p = line; *p; p++)
    if (*p == '\t') {
      *p = 0;
      if (n == MAX_FIELDS) return n;
      f[n++] = p + 1;
    }
  return n;
}

static void chomp(char *s) {
  size_t n = strlen(s);
  while (n && (s[n - 1] == '\n' || s[n - 1] == '\r')) s[--n] = 0;
}

static int is_blank(const char *s) {
  for (; *s; s++)
    if (*s != ' ' && *s != '\t') return 0;
  return 1;
}

/* A column spec: all digits -> position, else a header name. */
static int spec_pos(const char *spec) {
  if (!spec || !*spec) return -1;
  for (const char *p = spec; *p; p++)
    if (*p < '0' || *p > '9') return -1;
  return atoi(spec);
}

static int find_field(char **f, int nf, const char *name) {
  for (int i = 0; i < nf; i++)
    if (!strcmp(f[i], name)) return i;
  return -1;
}

static char *trim_dup(const char *s) {
  while (*s == ' ') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
  char *r = malloc(n + 1);
  if (r) {
    memcpy(r, s, n);
    r[n] = 0;
  }
  return r;
}

static void note_skip(el__cls_data *d, const char *path, long line, const char *why) {
  if (d->n_skipped++ == 0)
    snprintf(d->first_skip, sizeof d->first_skip, "%s:%ld: %s", path, line, why);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

void el__cls_free(el__cls_data *d) {
  if (!d) return;
  for (int i = 0; i < d->n; i++) {
    free(d->ex[i].a);
    free(d->ex[i].b);
  }
  free(d->ex);
  for (int i = 0; i < d->n_labels; i++) free(d->labels[i]);
  free(d->labels);
  memset(d, 0, sizeof *d);
}

/* Column layout resolved for one file. */
typedef struct cols_t {
  int header;            /* first line is a header */
  int text, pair, label; /* positions (pair -1: none) */
  int need;              /* fields a row must have */
  int width;             /* fields of the first line: a row with more is ambiguous */
} cols_t;

static int resolve_columns(const el__task *t, const el__tsv_columns *ov, char **f, int nf,
                           const char *path, cols_t *c, el_error *err) {
  const char *ts = ov && ov->text ? ov->text : t->text_name;
  const char *ps = ov && ov->pair ? ov->pair : t->pair_name;
  const char *ls = ov && ov->label ? ov->label : t->label_name;
  int explicit = ov && (ov->text || ov->pair || ov->label);
  int tp = spec_pos(ts), pp = spec_pos(ps), lp = spec_pos(ls);
  int all_pos = tp >= 0 && (!ps || pp >= 0) && lp >= 0;
  if (explicit && all_pos) {
    *c = (cols_t){0, tp, ps ? pp : -1, lp, 0, 0};
  } else {
    int ht = ts ? (tp >= 0 ? tp : find_field(f, nf, ts)) : -1;
    int hp = ps ? (pp >= 0 ? pp : find_field(f, nf, ps)) : -1;
    int hl = ls ? (lp >= 0 ? lp : find_field(f, nf, ls)) : -1;
    if (ht >= 0 && hl >= 0 && (!ps || hp >= 0)) {
      *c = (cols_t){1, ht, ps ? hp : -1, hl, 0, 0};
    } else if (!explicit && t->text_pos >= 0 && nf >= t->min_cols) {
      *c = (cols_t){0, t->text_pos, t->pair_pos, t->label_pos, 0, 0};
    } else {
      const char *miss = ht < 0 ? ts : hl < 0 ? ls : ps;
      return el_error_set(err, EL_EFORMAT,
                          "%s:1: no column '%s' in the header (task %s expects columns '%s'%s%s%s "
                          "and '%s'; use --text-column/--pair-column/--label-column)",
                          path, miss ? miss : "?", t->name, ts ? ts : "?", ps ? ", '" : "",
                          ps ? ps : "", ps ? "'" : "", ls ? ls : "?");
    }
  }
  int m = c->text > c->label ? c->text : c->label;
  if (c->pair > m) m = c->pair;
  c->need = m + 1;
  return EL_OK;
}

/* The raw label string of each classification example, until the label
 * set is known. */
typedef struct raw_labels {
  char **s;
  size_t cap;
} raw_labels;

/* Appends the example of one row's fields (file line lineno) to out: its
 * text, pair and label -- a number for regression, else the raw string,
 * kept in raw until the label set is known. */
static int add_example(el__cls_data *out, raw_labels *raw, char **f, const cols_t *c,
                       long lineno, const char *path, el_error *err) {
  if (el__grow((void **)&out->ex, &out->cap, (size_t)out->n + 1, sizeof *out->ex))
    return el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
  el__cls_example *e = &out->ex[out->n];
  memset(e, 0, sizeof *e);
  e->line = (int)lineno;
  e->a = strdup(f[c->text]);
  e->b = c->pair >= 0 ? strdup(f[c->pair]) : NULL;
  char *lab = trim_dup(f[c->label]);
  int rc = EL_OK;
  if (!e->a || (c->pair >= 0 && !e->b) || !lab) {
    rc = el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
  } else if (out->regression) {
    char *end;
    errno = 0;
    double v = strtod(lab, &end);
    if (!*lab || *end || errno || !isfinite(v))
      rc = el_error_set(err, EL_EFORMAT, "%s:%ld: score '%s' is not a number", path, lineno,
                        lab);
    else
      e->value = (float)v;
  } else if (el__grow((void **)&raw->s, &raw->cap, (size_t)out->n + 1, sizeof *raw->s)) {
    rc = el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
  }
  if (!rc && !out->regression) {
    raw->s[out->n] = lab;
    lab = NULL;
  }
  free(lab);
  if (rc) {
    free(e->a);
    free(e->b);
    return rc;
  }
  out->n++;
  return EL_OK;
}

/* Reads every row of fp into out (a BOM, blank lines, short or long rows, empty
 * texts are skipped and noted; the first row may be the header that names
 * the columns). */
static int read_rows(const el__task *t, const el__tsv_columns *cols, FILE *fp, const char *path,
                     el__cls_data *out, raw_labels *raw, el_error *err) {
  char *line = NULL, *f[MAX_FIELDS];
  size_t cap = 0;
  long lineno = 0;
  int rc = EL_OK, have_cols = 0;
  cols_t c = {0};
  while (!rc && getline(&line, &cap, fp) >= 0) {
    lineno++;
    chomp(line);
    char *s = line;
    if (lineno == 1 && (unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB &&
        (unsigned char)s[2] == 0xBF)
      s += 3;
    if (is_blank(s)) {
      note_skip(out, path, lineno, "empty line");
      continue;
    }
    int nf = split_tabs(s, f);
    if (!have_cols) {
      if ((rc = resolve_columns(t, cols, f, nf, path, &c, err))) break;
      have_cols = 1;
      c.width = nf;
      if (c.header) continue;
    }
    /* an extra column (a tab inside a text) shifts the fields after it: the
     * row is as unreadable as a short one, and reported the same way */
    if (nf < c.need || nf > c.width) {
      char why[96];
      snprintf(why, sizeof why, nf < c.need ? "%d columns, expected at least %d" : "%d columns, "
               "more than the %d of line 1", nf, nf < c.need ? c.need : c.width);
      note_skip(out, path, lineno, why);
      continue;
    }
    if (is_blank(f[c.text]) || (c.pair >= 0 && is_blank(f[c.pair]))) {
      note_skip(out, path, lineno, "empty text");
      continue;
    }
    rc = add_example(out, raw, f, &c, lineno, path, err);
  }
  free(line);
  return rc;
}

/* The label set: the given names, the task's fixed list, or the distinct
 * raw labels of the file, sorted (at least two). */
static int label_set(const el__task *t, char *const *labels, int n_labels, char **raw,
                     el__cls_data *out, const char *path, el_error *err) {
  if (labels || t->labels) {
    int nl = labels ? n_labels : t->n_labels;
    out->labels = calloc((size_t)nl, sizeof *out->labels);
    if (!out->labels) return el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
    for (int i = 0; i < nl; i++) {
      out->labels[i] = strdup(labels ? labels[i] : t->labels[i]);
      if (!out->labels[i]) return el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
      out->n_labels++;
    }
    return EL_OK;
  }
  char **tmp = malloc((size_t)out->n * sizeof *tmp);
  if (!tmp) return el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
  memcpy(tmp, raw, (size_t)out->n * sizeof *tmp);
  qsort(tmp, (size_t)out->n, sizeof *tmp, cmp_str);
  out->labels = calloc((size_t)out->n, sizeof *out->labels);
  for (int i = 0; out->labels && i < out->n; i++)
    if (i == 0 || strcmp(tmp[i], tmp[i - 1])) {
      if (!(out->labels[out->n_labels] = strdup(tmp[i]))) break;
      out->n_labels++;
    }
  free(tmp);
  if (!out->labels) return el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
  if (out->n_labels < 2)
    return el_error_set(err, EL_EFORMAT,
                        "%s: only one label ('%s') in the label column: nothing to classify", path,
                        out->labels[0]);
  return EL_OK;
}

/* Each example's label id: its raw label's place in the label set (or, for
 * a model saved without label names, HF's "LABEL_<i>"). */
static int label_ids(const el__task *t, char **raw, el__cls_data *out, const char *path,
                     el_error *err) {
  for (int i = 0; i < out->n; i++) {
    int k = -1;
    for (int j = 0; j < out->n_labels && k < 0; j++)
      if (!strcmp(raw[i], out->labels[j])) k = j;
    for (int j = 0; j < out->n_labels && k < 0; j++)
      if (!strncmp(out->labels[j], "LABEL_", 6) && !strcmp(out->labels[j] + 6, raw[i])) k = j;
    if (k < 0) {
      char known[200] = "";
      for (int j = 0; j < out->n_labels && strlen(known) < 150; j++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s'%s'", j ? ", " : "",
                 out->labels[j]);
      return el_error_set(err, EL_EFORMAT, "%s:%d: unknown label '%s' (task %s labels: %s)", path,
                          out->ex[i].line, raw[i], t->name, known);
    }
    out->ex[i].label = k;
  }
  return EL_OK;
}

int el__cls_read(const el__task *t, const char *path, const el__tsv_columns *cols,
                 char *const *labels, int n_labels, el__cls_data *out, el_error *err) {
  memset(out, 0, sizeof *out);
  out->regression = t->kind == EL__TASK_REG;
  FILE *fp = fopen(path, "rb");
  if (!fp) return el_error_set(err, EL_EIO, "%s: %s", path, strerror(errno));
  raw_labels raw = {0};
  int rc = read_rows(t, cols, fp, path, out, &raw, err);
  if (!rc && ferror(fp))
    rc = el_error_set(err, EL_EIO, "%s: read error: %s", path, strerror(errno));
  if (!rc && out->n == 0)
    rc = el_error_set(err, EL_EFORMAT, "%s: no usable rows (%d skipped%s%s)", path, out->n_skipped,
                      out->n_skipped ? "; first: " : "", out->first_skip);
  if (!rc && !out->regression) rc = label_set(t, labels, n_labels, raw.s, out, path, err);
  if (!rc && !out->regression) rc = label_ids(t, raw.s, out, path, err);
  for (int i = 0; raw.s && i < out->n; i++) free(raw.s[i]);
  free(raw.s);
  fclose(fp);
  if (rc) el__cls_free(out);
  return rc;
}
