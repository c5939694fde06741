/* Each fine-tuning task kind's head in one table (finetune_heads.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "trainer_api.h"
#include "finetune_heads.h"

/* The losses: the sum over the batch divided by norm (the divisor of the
 * global batch this one is part of, so micro-batches' losses and gradients
 * add up to the global batch's); dout receives dLoss/dout. */

static int label_names(el_config *cfg, int n, const char *const *names, char *const *labels) {
  cfg->id2label = calloc((size_t)n, sizeof *cfg->id2label);
  if (!cfg->id2label) return -1;
  cfg->num_labels = n;
  for (int i = 0; i < n; i++)
    if (!(cfg->id2label[i] = strdup(names ? names[i] : labels[i]))) return -1;
  return 0;
}

static int cls_configure(const el__task *t, const el__cls_data *labels, el_config *cfg) {
  cfg->arch = EL_ARCH_SEQ_CLS;
  return label_names(cfg, labels->n_labels, t->label_names, labels->labels);
}

static int reg_configure(const el__task *t, const el__cls_data *labels, el_config *cfg) {
  (void)t;
  (void)labels;
  static const char *const one[] = {"LABEL_0"};
  cfg->arch = EL_ARCH_SEQ_CLS;
  cfg->regression = 1;
  return label_names(cfg, 1, one, NULL);
}

static int ged_configure(const el__task *t, const el__cls_data *labels, el_config *cfg) {
  (void)t;
  (void)labels;
  cfg->arch = EL_ARCH_PRETRAINING;
  return 0;
}

static int qa_configure(const el__task *t, const el__cls_data *labels, el_config *cfg) {
  (void)labels;
  cfg->arch = EL_ARCH_QA;
  cfg->has_null_threshold = t->squad2;
  return 0;
}

/* a loss's divisor as a double; an empty batch divides by 1 */
static double divisor(long norm_l) { return norm_l > 0 ? (double)norm_l : 1.0; }

/* sequences: the divisor of CLS, REG and QA */
static long norm_seqs(const el__ft_data *d, const int *idx, int nb) {
  (void)d;
  (void)idx;
  return nb;
}

/* GED: the labelled tokens */
static long norm_labelled(const el__ft_data *d, const int *idx, int nb) {
  long nl = 0;
  for (int i = 0; i < nb; i++) {
    const el__feat *f = &d->f[idx[i]];
    for (int k = 0; k < f->len; k++) nl += d->tlab[f->off + k] >= 0;
  }
  return nl;
}

/* Each loss zeroes its rows of dout and adds the gradient of its nn/ loss
 * op (op_loss_head.c) into them. */

/* softmax cross-entropy over the K logits of each sequence */
static double cls_loss(const el__ft_data *d, const int *idx, int nb, long norm_l, const float *o,
                       int K, float *dout) {
  const double norm = divisor(norm_l);
  double loss = 0;
  for (int i = 0; i < nb; i++) {
    const float *l = o + (size_t)i * K;
    float *g = dout + (size_t)i * K;
    const int y = d->f[idx[i]].label;
    memset(g, 0, sizeof *g * (size_t)K);
    el__seg_xent_forward(&loss, l, K, 1, y, 1.0);
    el__seg_xent_backward(g, l, K, 1, y, 1.0, norm);
  }
  return loss / norm;
}

/* squared error of each sequence's one output */
static double reg_loss(const el__ft_data *d, const int *idx, int nb, long norm_l, const float *o,
                       int K, float *dout) {
  (void)K;
  const double norm = divisor(norm_l);
  double loss = 0;
  memset(dout, 0, sizeof *dout * (size_t)nb);
  for (int i = 0; i < nb; i++) {
    const float *y = &d->f[idx[i]].value;
    el__sq_err_forward(&loss, o + i, y, 1);
    el__sq_err_backward(dout + i, o + i, y, 1, norm);
  }
  return loss / norm;
}

/* sigmoid cross-entropy of each labelled token (unlabelled: gradient 0) */
static double ged_loss(const el__ft_data *d, const int *idx, int nb, long norm_l, const float *o,
                       int K, float *dout) {
  (void)K;
  const double norm = divisor(norm_l);
  double loss = 0;
  long T = 0;
  for (int i = 0; i < nb; i++) {
    const el__feat *f = &d->f[idx[i]];
    const signed char *y = d->tlab + f->off;
    memset(dout + T, 0, sizeof *dout * (size_t)f->len);
    el__label_xent_forward(&loss, o + T, y, f->len);
    el__label_xent_backward(dout + T, o + T, y, f->len, norm);
    T += f->len;
  }
  return norm_l ? loss / norm : 0;
}

/* (CE(start) + CE(end)) / 2 per sequence over its tokens: columns 0 and 1
 * of its [len, 2] logits */
static double qa_loss(const el__ft_data *d, const int *idx, int nb, long norm_l, const float *o,
                      int K, float *dout) {
  (void)K;
  const double norm = divisor(norm_l);
  double loss = 0;
  long T = 0;
  for (int i = 0; i < nb; i++) {
    const el__feat *f = &d->f[idx[i]];
    memset(dout + 2 * T, 0, sizeof *dout * 2 * (size_t)f->len);
    for (int c = 0; c < 2; c++) {
      const int y = c ? f->label2 : f->label;
      el__seg_xent_forward(&loss, o + 2 * T + c, f->len, 2, y, 0.5);
      el__seg_xent_backward(dout + 2 * T + c, o + 2 * T + c, f->len, 2, y, 0.5, norm);
    }
    T += f->len;
  }
  return loss / norm;
}

static const el__ft_head KINDS[] = {
    [EL__TASK_CLS] = {cls_configure, 0, norm_seqs, cls_loss},
    [EL__TASK_REG] = {reg_configure, 1, norm_seqs, reg_loss},
    [EL__TASK_GED] = {ged_configure, 1, norm_labelled, ged_loss},
    [EL__TASK_QA] = {qa_configure, 2, norm_seqs, qa_loss},
};

int el__ft_task_config(const el__task *t, const el_config *src, const el__cls_data *labels,
                       el_config *cfg, el_error *err) {
  int rc = el__config_copy(cfg, src, err);
  if (rc) return rc;
  el__config_free(cfg);
  cfg->num_labels = 0;
  cfg->regression = 0;
  cfg->has_null_threshold = 0;
  cfg->null_threshold = 0;
  if (KINDS[t->kind].configure(t, labels, cfg) == 0) return EL_OK;
  el__config_free(cfg);
  return el_error_set(err, EL_ENOMEM, "config: out of memory");
}

const el__ft_head *el__ft_head_of(el__task_kind kind) { return &KINDS[kind]; }
