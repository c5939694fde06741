/* metrics.jsonl writing/reloading and loss.svg (metrics_log.h). */
#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "metrics_log.h"
#include "trainer_api.h"
#include "svg.h"

static const char *const NAMES[EL_MF_COUNT] = {
    "time_s",    "tokens",      "lr",          "loss",          "gen_loss",
    "gen_acc",   "disc_loss",   "disc_acc",    "disc_auc",      "unigram_acc",
    "replaced_frac", "tokens_per_s", "grad_norm", "disc_base_loss", "planned_steps"};

const char *el__mfield_name(el__mfield f) {
  return (int)f >= 0 && f < EL_MF_COUNT ? NAMES[f] : "?";
}

static int push_row(el__mlog *m, const el__mrow *r) {
  if (m->n == m->cap) {
    int cap = m->cap ? m->cap * 2 : 256;
    el__mrow *p = realloc(m->rows, (size_t)cap * sizeof *p);
    if (!p) return -1;
    m->rows = p;
    m->cap = cap;
  }
  m->rows[m->n++] = *r;
  return 0;
}

static void write_row(FILE *f, const el__mrow *r) {
  fprintf(f, "{\"kind\":\"%s\",\"step\":%lld", r->val ? "val" : "train", (long long)r->step);
  for (int i = 0; i < EL_MF_COUNT; i++) {
    if (!(r->has & (1u << i))) continue;
    double x = r->v[i];
    if (!isfinite(x)) fprintf(f, ",\"%s\":null", NAMES[i]);
    else if (i == EL_MF_TOKENS || i == EL_MF_PLANNED_STEPS) fprintf(f, ",\"%s\":%.0f", NAMES[i], x);
    else fprintf(f, ",\"%s\":%.6g", NAMES[i], x);
  }
  fputs("}\n", f);
}

static int parse_row(const char *line, el__mrow *r) {
  cJSON *j = cJSON_Parse(line);
  if (!j) return -1;
  memset(r, 0, sizeof *r);
  const cJSON *kind = cJSON_GetObjectItemCaseSensitive(j, "kind");
  const cJSON *step = cJSON_GetObjectItemCaseSensitive(j, "step");
  int ok = cJSON_IsString(kind) && cJSON_IsNumber(step);
  if (ok) {
    r->val = !strcmp(kind->valuestring, "val");
    r->step = (int64_t)step->valuedouble;
    for (int i = 0; i < EL_MF_COUNT; i++) {
      const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, NAMES[i]);
      if (cJSON_IsNumber(x)) el__mrow_set(r, (el__mfield)i, x->valuedouble);
      else if (cJSON_IsNull(x)) el__mrow_set(r, (el__mfield)i, NAN);
    }
  }
  cJSON_Delete(j);
  return ok ? 0 : -1;
}

int el__mlog_open(el__mlog *m, const char *path, int64_t keep_upto, el_error *err) {
  memset(m, 0, sizeof *m);
  m->path = strdup(path);
  if (!m->path) return el_error_set(err, EL_ENOMEM, "out of memory");
  if (keep_upto >= 0) {
    FILE *in = fopen(path, "rb");
    if (in) {
      char *line = NULL;
      size_t cap = 0;
      while (getline(&line, &cap, in) > 0) {
        el__mrow r;
        if (parse_row(line, &r) == 0 && r.step <= keep_upto && push_row(m, &r)) {
          free(line);
          fclose(in);
          el__mlog_close(m);
          return el_error_set(err, EL_ENOMEM, "out of memory reading %s", path);
        }
      }
      free(line);
      fclose(in);
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

int el__mlog_add(el__mlog *m, const el__mrow *r, el_error *err) {
  if (push_row(m, r)) return el_error_set(err, EL_ENOMEM, "out of memory");
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

/* Collects (step, v[f]) of the rows of one kind into x/y; returns the count. */
static int collect(const el__mlog *m, int val, el__mfield f, double *x, double *y) {
  int n = 0;
  for (int i = 0; i < m->n; i++) {
    const el__mrow *r = &m->rows[i];
    if (r->val != val || !(r->has & (1u << f))) continue;
    x[n] = (double)r->step;
    y[n] = r->v[f];
    n++;
  }
  return n;
}

int el__mlog_plot(const el__mlog *m, const char *svg_path, const char *title, int mlm,
                  el_error *err) {
  size_t cap = (size_t)(m->n ? m->n : 1);
  double *buf = malloc(cap * 16 * sizeof *buf);
  if (!buf) return el_error_set(err, EL_ENOMEM, "out of memory plotting");
  double *bx[8], *by[8];
  for (int i = 0; i < 8; i++) bx[i] = buf + cap * (2 * (size_t)i), by[i] = bx[i] + cap;
  el__svg_series tr[3], va[4];
  int nt = 0, nv = 0;
  if (mlm) {
    tr[nt] = (el__svg_series){"MLM loss", "#1f77b4", bx[0], by[0],
                              collect(m, 0, EL_MF_GEN_LOSS, bx[0], by[0]), 0};
    nt++;
    va[nv] = (el__svg_series){"MLM accuracy", "#1f77b4", bx[4], by[4],
                              collect(m, 1, EL_MF_GEN_ACC, bx[4], by[4]), 0};
    nv++;
  } else {
    tr[nt] = (el__svg_series){"generator MLM loss", "#1f77b4", bx[0], by[0],
                              collect(m, 0, EL_MF_GEN_LOSS, bx[0], by[0]), 0};
    nt++;
    tr[nt] = (el__svg_series){"discriminator loss", "#d62728", bx[1], by[1],
                              collect(m, 0, EL_MF_DISC_LOSS, bx[1], by[1]), 0};
    nt++;
    va[nv] = (el__svg_series){"generator accuracy", "#1f77b4", bx[4], by[4],
                              collect(m, 1, EL_MF_GEN_ACC, bx[4], by[4]), 0};
    nv++;
    va[nv] = (el__svg_series){"discriminator accuracy", "#d62728", bx[5], by[5],
                              collect(m, 1, EL_MF_DISC_ACC, bx[5], by[5]), 0};
    nv++;
    va[nv] = (el__svg_series){"discriminator AUC", "#2ca02c", bx[6], by[6],
                              collect(m, 1, EL_MF_DISC_AUC, bx[6], by[6]), 0};
    nv++;
  }
  va[nv] = (el__svg_series){"unigram baseline", "#7f7f7f", bx[7], by[7],
                            collect(m, 1, EL_MF_UNIGRAM_ACC, bx[7], by[7]), 1};
  nv++;
  el__svg_panel panels[2] = {
      {"Training loss (averaged over each logging interval)", "step", "loss", tr, nt, 0, 0, 0, 0,
       1},
      {"Validation (held-out slice)", "step", "accuracy / AUC", va, nv, 1, 0, 1, 0, 0},
  };
  int rc = el__svg_write(svg_path, title, panels, 2, err);
  free(buf);
  return rc;
}
