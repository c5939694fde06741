/* metrics.jsonl writing/reloading and loss.svg (metrics_log.h). */
#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "json_num.h"
#include "metrics_log.h"
#include "trainer_api.h"
#include "svg.h"

static const char *const NAMES[EL_MF_COUNT] = {
    "time_s",    "tokens",      "lr",          "loss",          "gen_loss",
    "gen_acc",   "disc_loss",   "disc_acc",    "disc_auc",      "unigram_acc",
    "replaced_frac", "tokens_per_s", "grad_norm", "disc_base_loss", "planned_steps",
    "epoch",     "examples_per_s", "dev_score"};

static int push_row(el__mlog *m, const el__mrow *r) {
  if (el__grow((void **)&m->rows, &m->cap, (size_t)m->n + 1, sizeof *m->rows)) return -1;
  m->rows[m->n++] = *r;
  return 0;
}

static void write_row(FILE *f, const el__mrow *r) {
  fprintf(f, "{\"kind\":\"%s\",\"step\":%lld", r->val ? "val" : "train", (long long)r->step);
  for (int i = 0; i < EL_MF_COUNT; i++) {
    if (!(r->has & (1u << i))) continue;
    double x = r->v[i];
    if (!isfinite(x)) fprintf(f, ",\"%s\":null", NAMES[i]);
    else if (i == EL_MF_TOKENS || i == EL_MF_PLANNED_STEPS || i == EL_MF_EPOCH)
      fprintf(f, ",\"%s\":%.0f", NAMES[i], x);
    else fprintf(f, ",\"%s\":%.6g", NAMES[i], x);
  }
  fputs("}\n", f);
}

/* The fields that count (tokens, the planned steps, the epoch): whole,
 * non-negative numbers. */
static int count_field(int i) {
  return i == EL_MF_TOKENS || i == EL_MF_PLANNED_STEPS || i == EL_MF_EPOCH;
}

/* One line of metrics.jsonl into r: 0, 1 for a line that is not JSON (the
 * torn last line of a killed run: skipped), or EL_EFORMAT naming where (file
 * and line) and the key for a row with a missing, mistyped or out-of-range
 * field. */
static int parse_row(const char *line, el__mrow *r, const char *where, el_error *err) {
  cJSON *j = cJSON_Parse(line);
  if (!j) return 1;
  memset(r, 0, sizeof *r);
  int rc = EL_OK;
  const cJSON *kind = cJSON_GetObjectItemCaseSensitive(j, "kind");
  if (!cJSON_IsString(kind))
    rc = el_error_set(err, EL_EFORMAT, "%s: \"kind\" is missing or not a string", where);
  if (!rc) {
    r->val = !strcmp(kind->valuestring, "val");
    rc = el__json_int(j, "step", EL_JN_REQUIRED, 0, EL__JN_MAX_EXACT, &r->step, where, err);
  }
  for (int i = 0; i < EL_MF_COUNT && !rc; i++) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, NAMES[i]);
    double v = NAN;
    if (!x) continue;
    if (cJSON_IsNull(x)) { /* a value that was not finite */
      el__mrow_set(r, (el__mfield)i, NAN);
      continue;
    }
    if (count_field(i))
      rc = el__json_num(j, NAMES[i], EL_JN_INTEGER, 0, (double)EL__JN_MAX_EXACT, &v, where, err);
    else
      rc = el__json_num(j, NAMES[i], 0, -HUGE_VAL, HUGE_VAL, &v, where, err);
    if (!rc) el__mrow_set(r, (el__mfield)i, v);
  }
  cJSON_Delete(j);
  return rc;
}

int el__mlog_open(el__mlog *m, const char *path, int64_t keep_upto, el_error *err) {
  memset(m, 0, sizeof *m);
  m->path = strdup(path);
  if (!m->path) return el_error_set(err, EL_ENOMEM, "out of memory");
  if (keep_upto >= 0) {
    FILE *in = fopen(path, "rb");
    if (in) {
      char *line = NULL, where[4200];
      size_t cap = 0;
      int rc = EL_OK;
      for (long no = 1; !rc && getline(&line, &cap, in) > 0; no++) {
        el__mrow r;
        snprintf(where, sizeof where, "%.4000s line %ld", path, no);
        int pr = parse_row(line, &r, where, err);
        if (pr < 0)
          rc = pr;
        else if (pr == 0 && r.step <= keep_upto && push_row(m, &r))
          rc = el_error_set(err, EL_ENOMEM, "out of memory reading %s", path);
      }
      free(line);
      fclose(in);
      if (rc) {
        el__mlog_close(m);
        return rc;
      }
    }
    el__atomic a;
    int rc = el__atomic_begin(&a, path, err);
    if (!rc) {
      for (int i = 0; i < m->n; i++) write_row(a.f, &m->rows[i]);
      rc = el__atomic_commit(&a, err);
    }
    if (rc) {
      el__mlog_close(m);
      return rc;
    }
  }
  m->f = fopen(path, keep_upto >= 0 ? "ab" : "wb");
  if (!m->f) {
    int rc = el_error_set(err, errno == ENOSPC ? EL_ENOSPC : EL_EIO, "cannot open %s: %s", path,
                          strerror(errno));
    el__mlog_close(m);
    return rc;
  }
  return EL_OK;
}

void el__mlog_open_memory(el__mlog *m) { memset(m, 0, sizeof *m); }

int el__mlog_save(const el__mlog *m, const char *path, el_error *err) {
  el__atomic a;
  int rc = el__atomic_begin(&a, path, err);
  if (rc) return rc;
  for (int i = 0; i < m->n; i++) write_row(a.f, &m->rows[i]);
  return el__atomic_commit(&a, err);
}

int el__mlog_add(el__mlog *m, const el__mrow *r, el_error *err) {
  if (push_row(m, r)) return el_error_set(err, EL_ENOMEM, "out of memory");
  if (!m->f) return EL_OK;
  write_row(m->f, r);
  if (fflush(m->f) || ferror(m->f)) {
    int e = errno;
    clearerr(m->f);
    m->write_failed = 1;
    return el_error_set(err, e == ENOSPC ? EL_ENOSPC : EL_EIO, "cannot append to %s: %s",
                        m->path, strerror(e ? e : EIO));
  }
  return EL_OK;
}

void el__mlog_close(el__mlog *m) {
  if (m->f) fclose(m->f);
  free(m->rows);
  free(m->path);
  memset(m, 0, sizeof *m);
}

/* Collects (x, v[f]) of the rows of one kind into x/y, x being the step
 * (xf < 0) or field xf; returns the count. */
static int collect_x(const el__mlog *m, int val, int xf, el__mfield f, double *x, double *y) {
  int n = 0;
  for (int i = 0; i < m->n; i++) {
    const el__mrow *r = &m->rows[i];
    if (r->val != val || !(r->has & (1u << f))) continue;
    if (xf >= 0 && !(r->has & (1u << xf))) continue;
    x[n] = xf >= 0 ? r->v[xf] : (double)r->step;
    y[n] = r->v[f];
    n++;
  }
  return n;
}

/* A series of (x, field) from rows of one kind, its points in the k-th
 * pair of buffers. */
typedef struct plot_bufs {
  double *buf;
  size_t cap;
} plot_bufs;

static el__svg_series series(const el__mlog *m, plot_bufs *b, int k, const char *name,
                             const char *color, int val, int xf, el__mfield f, int dashed,
                             int markers) {
  double *x = b->buf + b->cap * (2 * (size_t)k), *y = x + b->cap;
  el__svg_series s = {name, color, x, y, collect_x(m, val, xf, f, x, y), dashed, markers};
  return s;
}

int el__mlog_plot(const el__mlog *m, const char *svg_path, const char *title, int mlm,
                  el_error *err) {
  plot_bufs b = {NULL, (size_t)(m->n ? m->n : 1)};
  b.buf = malloc(b.cap * 2 * 10 * sizeof *b.buf);
  if (!b.buf) return el_error_set(err, EL_ENOMEM, "out of memory plotting");
  el__svg_series gen[1], disc[4], va[3], lr[1];
  int nv = 0, nd = 0;
  gen[0] = series(m, &b, 0, mlm ? "MLM loss" : "generator MLM loss", "#1f77b4", 0, -1,
                  EL_MF_GEN_LOSS, 0, 0);
  if (!mlm) {
    disc[nd++] = series(m, &b, 1, "discriminator loss", "#d62728", 0, -1, EL_MF_DISC_LOSS, 0, 0);
    disc[nd++] = series(m, &b, 2, "base-rate loss", "#7f7f7f", 0, -1, EL_MF_DISC_BASE_LOSS, 1, 0);
    disc[nd++] = series(m, &b, 3, "validation loss", "#9467bd", 1, -1, EL_MF_DISC_LOSS, 0, 1);
    disc[nd++] = series(m, &b, 4, "validation base rate", "#bcbd22", 1, -1, EL_MF_DISC_BASE_LOSS,
                        1, 1);
  }
  va[nv++] = series(m, &b, 5, mlm ? "MLM accuracy" : "generator accuracy", "#1f77b4", 1, -1,
                    EL_MF_GEN_ACC, 0, 1);
  if (!mlm)
    va[nv++] = series(m, &b, 6, "discriminator AUC", "#2ca02c", 1, -1, EL_MF_DISC_AUC, 0, 1);
  va[nv++] = series(m, &b, 7, "unigram baseline", "#7f7f7f", 1, -1, EL_MF_UNIGRAM_ACC, 1, 1);
  lr[0] = series(m, &b, 8, "learning rate", "#ff7f0e", 0, -1, EL_MF_LR, 0, 0);
  el__svg_panel panels[4];
  int np = 0;
  panels[np++] = (el__svg_panel){mlm ? "MLM loss (mean over each logging interval)"
                                     : "Generator loss (mean over each logging interval)",
                                 "step", "loss", gen, 1, 0, 0, 0, 0, 0, 1};
  if (!mlm)
    panels[np++] = (el__svg_panel){
        "Discriminator loss against the base rate (below the grey line = learning)", "step",
        "loss", disc, nd, 0, 0, 0, 1, 0, 1};
  panels[np++] = (el__svg_panel){"Validation (held-out slice; a dot per validation)", "step",
                                 "accuracy / AUC", va, nv, 1, 0, 1, 0, 0, 1};
  panels[np++] = (el__svg_panel){"Learning rate", "step", "learning rate", lr, 1, 0, 0, 0, 1, 0, 1};
  int rc = el__svg_write(svg_path, title, panels, np, err);
  free(b.buf);
  return rc;
}

int el__mlog_plot_finetune(const el__mlog *m, const char *svg_path, const char *title,
                           const char *metric, el_error *err) {
  plot_bufs b = {NULL, (size_t)(m->n ? m->n : 1)};
  b.buf = malloc(b.cap * 2 * 4 * sizeof *b.buf);
  if (!b.buf) return el_error_set(err, EL_ENOMEM, "out of memory plotting");
  char dev_name[96], dev_title[128];
  snprintf(dev_name, sizeof dev_name, "dev %s", metric ? metric : "score");
  snprintf(dev_title, sizeof dev_title, "Dev %s after each epoch", metric ? metric : "score");
  el__svg_series loss[2], dev[1], lr[1];
  loss[0] = series(m, &b, 0, "train loss", "#1f77b4", 0, -1, EL_MF_LOSS, 0, 0);
  loss[1] = series(m, &b, 1, "epoch mean", "#d62728", 1, -1, EL_MF_LOSS, 0, 1);
  dev[0] = series(m, &b, 2, dev_name, "#2ca02c", 1, EL_MF_EPOCH, EL_MF_DEV_SCORE, 0, 1);
  lr[0] = series(m, &b, 3, "learning rate", "#ff7f0e", 0, -1, EL_MF_LR, 0, 0);
  el__svg_panel panels[3] = {
      {"Training loss (mean over each logging interval; a dot per epoch)", "step", "loss", loss, 2,
       0, 0, 0, 1, 0, 1},
      {dev_title, "epoch", metric ? metric : "score", dev, 1, 0, 0, 0, 0, 0, 1},
      {"Learning rate", "step", "learning rate", lr, 1, 0, 0, 0, 1, 0, 1},
  };
  int rc = el__svg_write(svg_path, title, panels, 3, err);
  free(b.buf);
  return rc;
}
