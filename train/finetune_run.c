/* Fine-tuning loop: AdamW with warmup + linear decay and layer-wise LR decay
 * (train/optim.h), dropout from the model config, evaluation on dev after
 * every epoch, best checkpoint saved atomically (el_checkpoint_save) with
 * DIR/eval.json next to it. Deterministic for a given --seed and data: the
 * shuffle and dropout streams are split from one el_rng and the optimizer
 * and model are thread-count independent. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint.h"
#include "finetune_run.h"
#include "model_internal.h"
#include "optim.h"
#include "params.h"

static double now_wall(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static double now_cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

const char *el__ft_resolve_model_dir(const char *dir, char *buf, int n) {
  struct stat st;
  char probe[4200];
  snprintf(probe, sizeof probe, "%s/config.json", dir);
  int plain = stat(probe, &st) == 0;
  snprintf(probe, sizeof probe, "%s/discriminator/config.json", dir);
  int run = !plain && stat(probe, &st) == 0;
  snprintf(buf, (size_t)n, run ? "%s/discriminator" : "%s", dir);
  return buf;
}

/* The task's architecture and labels on a copy of the encoder's config. */
static int task_config(const el__task *t, const el_config *src, const el__cls_data *labels,
                       el_config *cfg, el_error *err) {
  int rc = el_config_copy(cfg, src, err);
  if (rc) return rc;
  el_config_free(cfg);
  cfg->num_labels = 0;
  cfg->regression = 0;
  cfg->has_null_threshold = 0;
  cfg->null_threshold = 0;
  switch (t->kind) {
    case EL__TASK_GED: cfg->arch = EL_ARCH_PRETRAINING; break;
    case EL__TASK_QA:
      cfg->arch = EL_ARCH_QA;
      cfg->has_null_threshold = t->squad2;
      break;
    case EL__TASK_REG:
      cfg->arch = EL_ARCH_SEQ_CLS;
      cfg->regression = 1;
      cfg->num_labels = 1;
      cfg->id2label = calloc(1, sizeof *cfg->id2label);
      if (!cfg->id2label || !(cfg->id2label[0] = strdup("LABEL_0"))) goto oom;
      break;
    case EL__TASK_CLS:
      cfg->arch = EL_ARCH_SEQ_CLS;
      cfg->id2label = calloc((size_t)labels->n_labels, sizeof *cfg->id2label);
      if (!cfg->id2label) goto oom;
      cfg->num_labels = labels->n_labels;
      for (int i = 0; i < labels->n_labels; i++)
        if (!(cfg->id2label[i] = strdup(labels->labels[i]))) goto oom;
      break;
  }
  return EL_OK;
oom:
  el_config_free(cfg);
  return el_error_set(err, EL_ENOMEM, "config: out of memory");
}

/* Loss over the batch's head output and dLoss/dout (mean over the batch). */
static double task_loss(const el__task *t, const el__ft_data *d, const int *idx, int nb,
                        const float *o, int K, float *dout) {
  double loss = 0;
  if (t->kind == EL__TASK_CLS) {
    for (int i = 0; i < nb; i++) {
      const float *l = o + (size_t)i * K;
      float *g = dout + (size_t)i * K;
      float mx = l[0];
      for (int k = 1; k < K; k++) mx = l[k] > mx ? l[k] : mx;
      double z = 0;
      for (int k = 0; k < K; k++) z += exp((double)l[k] - mx);
      int y = d->f[idx[i]].label;
      loss += -((double)l[y] - mx - log(z));
      for (int k = 0; k < K; k++) g[k] = (float)((exp((double)l[k] - mx) / z - (k == y)) / nb);
    }
    return loss / nb;
  }
  if (t->kind == EL__TASK_REG) {
    for (int i = 0; i < nb; i++) {
      double r = (double)o[i] - d->f[idx[i]].value;
      loss += r * r;
      dout[i] = (float)(2 * r / nb);
    }
    return loss / nb;
  }
  if (t->kind == EL__TASK_GED) {
    long T = 0, nl = 0;
    for (int i = 0; i < nb; i++) {
      const el__feat *f = &d->f[idx[i]];
      for (int k = 0; k < f->len; k++) nl += d->tlab[f->off + k] >= 0;
    }
    for (int i = 0; i < nb; i++) {
      const el__feat *f = &d->f[idx[i]];
      for (int k = 0; k < f->len; k++, T++) {
        int y = d->tlab[f->off + k];
        if (y < 0) {
          dout[T] = 0;
          continue;
        }
        double z = o[T], p = 1 / (1 + exp(-z));
        /* BCE with logits, stable: softplus(z) - y z */
        loss += (z > 0 ? z + log1p(exp(-z)) : log1p(exp(z))) - y * z;
        dout[T] = (float)((p - y) / nl);
      }
    }
    return nl ? loss / nl : 0;
  }
  /* QA: (CE(start) + CE(end)) / 2 per sequence over its tokens */
  long T = 0;
  for (int i = 0; i < nb; i++) {
    const el__feat *f = &d->f[idx[i]];
    for (int c = 0; c < 2; c++) {
      int y = c ? f->label2 : f->label;
      float mx = -INFINITY;
      for (int k = 0; k < f->len; k++) mx = o[2 * (T + k) + c] > mx ? o[2 * (T + k) + c] : mx;
      double z = 0;
      for (int k = 0; k < f->len; k++) z += exp((double)o[2 * (T + k) + c] - mx);
      loss += 0.5 * -((double)o[2 * (T + y) + c] - mx - log(z));
      for (int k = 0; k < f->len; k++)
        dout[2 * (T + k) + c] =
            (float)(0.5 * (exp((double)o[2 * (T + k) + c] - mx) / z - (k == y)) / nb);
    }
    T += f->len;
  }
  return loss / nb;
}

/* Writes text to dir/name through a temporary file and rename. */
static int write_atomic(const char *dir, const char *name, const char *text, el_error *err) {
  char path[4096], tmp[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f) return el_error_set(err, EL_EIO, "%s: %s", tmp, strerror(errno));
  int bad = fputs(text, f) < 0;
  bad |= fflush(f) != 0;
  bad |= fsync(fileno(f)) != 0;
  int e = errno;
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, path) != 0) {
    unlink(tmp);
    return el_error_set(err, e == ENOSPC ? EL_ENOSPC : EL_EIO, "%s: %s", path, strerror(e));
  }
  return EL_OK;
}

int el__ft_run(const el__ft_opts *o, FILE *log, el_error *err) {
  const el__task *t = o->task;
  double wall0 = now_wall(), cpu0 = now_cpu();
  char mdir[4096], note[700], vocab[4200];
  el__ft_resolve_model_dir(o->init, mdir, sizeof mdir);
  snprintf(vocab, sizeof vocab, "%s/vocab.txt", mdir);
  el_model *src = NULL;
  el__ft_examples tr = {0}, dv = {0};
  el__ft_data dtr = {0}, ddv = {0};
  el_config cfg = {0};
  el_params p = {0};
  el_tmodel *m = NULL;
  int *order = NULL, *lens = NULL, *bids = NULL, *btypes = NULL;
  float *dout = NULL;
  char *epochs_json = NULL;
  size_t ej_len = 0;
  int rc;
  if (o->threads > 0) el_set_threads((int)o->threads);
  /* saving replaces the whole --out directory: refuse one that holds
   * something other than a checkpoint */
  DIR *od = opendir(o->out);
  if (od) {
    struct dirent *de;
    int other = 0, ckpt = 0;
    while ((de = readdir(od))) {
      if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
      if (!strcmp(de->d_name, "config.json")) ckpt = 1;
      other = 1;
    }
    closedir(od);
    if (other && !ckpt)
      return el_error_set(err, EL_EINVAL,
                          "--out %s: exists and is not a checkpoint directory (it would be replaced)",
                          o->out);
  }
  if ((rc = el_model_load(mdir, &src, err))) goto done;
  const el_tokenizer *tok = el_model_tokenizer(src);

  if ((rc = el__ft_read(t, o->train, &o->cols, NULL, 0, (int)o->max_train, &tr, err))) goto done;
  el__ft_skip_note(&tr, note, sizeof note);
  if (note[0]) fprintf(log, "finetune: train: %s\n", note);
  char *const *labels = tr.cls.n_labels ? tr.cls.labels : NULL;
  if ((rc = el__ft_read(t, o->dev, &o->cols, labels, tr.cls.n_labels, (int)o->max_dev, &dv, err)))
    goto done;
  el__ft_skip_note(&dv, note, sizeof note);
  if (note[0]) fprintf(log, "finetune: dev: %s\n", note);

  el__ft_shape shape = {(int)o->max_seq_len, el_qa_default_params()};
  shape.qa.max_seq_len = (int)o->max_seq_len;
  shape.qa.doc_stride = (int)o->doc_stride;
  shape.qa.max_query_len = (int)o->max_query_len;
  const el_config *scfg = el_model_config(src);
  if (o->max_seq_len > scfg->max_position_embeddings) {
    rc = el_error_set(err, EL_EINVAL, "--max-seq-len %ld exceeds the model's max_position_embeddings %d",
                      o->max_seq_len, scfg->max_position_embeddings);
    goto done;
  }
  if ((rc = el__ft_features(&tr, tok, &shape, &dtr, err)) ||
      (rc = el__ft_features(&dv, tok, &shape, &ddv, err)))
    goto done;
  if (dtr.n == 0) {
    rc = el_error_set(err, EL_EINVAL, "%s: no training features", o->train);
    goto done;
  }
  if ((rc = task_config(t, scfg, &tr.cls, &cfg, err))) goto done;

  /* parameters: random everywhere, then the pretrained encoder (and, for GED
   * from a discriminator, its replaced-token head) unless --random-init */
  el_rng rng;
  el_rng_seed(&rng, (uint64_t)o->seed);
  el_rng r_init = el_rng_split(&rng, 1), r_shuf = el_rng_split(&rng, 2), r_drop = el_rng_split(&rng, 3);
  if ((rc = el_params_new_single(&p, &cfg, err)) ||
      (rc = el_params_init_random(&p, 0, 0, &r_init, err)))
    goto done;
  if (!o->random_init) {
    int what = EL_COPY_ENCODER;
    if (t->kind == EL__TASK_GED && scfg->arch == EL_ARCH_PRETRAINING) what |= EL_COPY_HEAD;
    if ((rc = el_params_copy_from_model(&p, 0, src, what, err))) goto done;
  }
  int max_len = dtr.max_len > ddv.max_len ? dtr.max_len : ddv.max_len;
  int B = (int)o->batch;
  el_tmodel_limits lim = {B * max_len, B, max_len, 0};
  if ((rc = el_tmodel_new(&cfg, &p.w[0], &p.g[0], &lim, &m, err))) goto done;
  int K = t->kind == EL__TASK_CLS ? cfg.num_labels : t->kind == EL__TASK_QA ? 2 : 1;
  order = malloc((size_t)dtr.n * sizeof *order);
  lens = malloc((size_t)B * sizeof *lens);
  bids = malloc((size_t)B * max_len * sizeof *bids);
  btypes = malloc((size_t)B * max_len * sizeof *btypes);
  dout = malloc((size_t)B * max_len * 2 * sizeof *dout + (size_t)B * K * sizeof *dout);
  if (!order || !lens || !bids || !btypes || !dout) {
    rc = el_error_set(err, EL_ENOMEM, "finetune: out of memory");
    goto done;
  }
  for (int i = 0; i < dtr.n; i++) order[i] = i;

  el_adamw opt = el_adamw_defaults();
  opt.weight_decay = (float)o->weight_decay;
  opt.layer_decay = (float)o->layer_decay;
  long steps_per_epoch = (dtr.n + B - 1) / B, total = steps_per_epoch * o->epochs;
  long warm = (long)(o->warmup * total);
  fprintf(log,
          "finetune: task %s, %d train / %d dev examples -> %d / %d sequences (max %d tokens), "
          "%s encoder from %s, %ld epochs x %ld steps, batch %d, lr %g, layer decay %g, warmup "
          "%ld steps, weight decay %g, seed %ld\n",
          t->name, t->kind == EL__TASK_QA ? tr.squad.n_q : t->kind == EL__TASK_GED ? tr.ged.n : tr.cls.n,
          t->kind == EL__TASK_QA ? dv.squad.n_q : t->kind == EL__TASK_GED ? dv.ged.n : dv.cls.n,
          dtr.n, ddv.n, max_len, o->random_init ? "random" : "pretrained", mdir, o->epochs,
          steps_per_epoch, B, o->lr, o->layer_decay, warm, o->weight_decay, o->seed);
  if (dtr.n_truncated)
    fprintf(log, "finetune: %ld training example(s) truncated to %ld tokens\n", dtr.n_truncated,
            o->max_seq_len);

  double best = -INFINITY;
  int best_epoch = 0;
  el__ft_metrics best_m = {0};
  long step = 0;
  char mj[1024], ejbuf[1400];
  FILE *ej = open_memstream(&epochs_json, &ej_len);
  if (!ej) {
    rc = el_error_set(err, EL_ENOMEM, "finetune: out of memory");
    goto done;
  }
  for (long ep = 1; ep <= o->epochs; ep++) {
    double t_ep = now_wall(), loss_sum = 0, loss_log = 0;
    long n_loss = 0, n_log = 0, ex_log = 0;
    double t_log = now_wall();
    for (int i = dtr.n - 1; i > 0; i--) { /* Fisher-Yates */
      int j = (int)el_rng_below(&r_shuf, (uint32_t)(i + 1)), tmp = order[i];
      order[i] = order[j];
      order[j] = tmp;
    }
    for (int a = 0; a < dtr.n; a += B) {
      int nb = a + B < dtr.n ? B : dtr.n - a;
      long T = 0;
      for (int i = 0; i < nb; i++) {
        const el__feat *f = &dtr.f[order[a + i]];
        lens[i] = f->len;
        memcpy(bids + T, dtr.ids + f->off, (size_t)f->len * sizeof *bids);
        memcpy(btypes + T, dtr.types + f->off, (size_t)f->len * sizeof *btypes);
        T += f->len;
      }
      el_batch bt = {nb, lens, bids, btypes};
      const float *out;
      el_params_zero_grads(&p);
      if ((rc = el_tmodel_forward(m, &bt, NULL, 0, 1, &r_drop, &out, err))) goto done_ej;
      double loss = task_loss(t, &dtr, order + a, nb, out, K, dout);
      if (!isfinite(loss)) {
        rc = el_error_set(err, EL_EVALUE, "finetune: loss is %g at step %ld (lower --lr?)", loss,
                          step + 1);
        goto done_ej;
      }
      if ((rc = el_tmodel_backward(m, dout, err))) goto done_ej;
      double lr = el_lr_at(o->lr, step, total, warm);
      if ((rc = el_adamw_step(&p, &opt, lr, NULL, err))) goto done_ej;
      step++;
      loss_sum += loss;
      n_loss++;
      loss_log += loss;
      n_log++;
      ex_log += nb;
      if (o->log_every > 0 && (step % o->log_every == 0 || a + B >= dtr.n)) {
        double dt = now_wall() - t_log;
        fprintf(log, "step %ld/%ld epoch %ld loss %.4f lr %.3g %.1f ex/s\n", step, total, ep,
                loss_log / n_log, lr, dt > 0 ? ex_log / dt : 0.0);
        fflush(log);
        loss_log = 0;
        n_log = 0;
        ex_log = 0;
        t_log = now_wall();
      }
    }
    el__ft_metrics mt;
    el__ft_tmodel_ctx rctx = {m, t->kind, K};
    el__ft_runner runner = {el__ft_tmodel_run, &rctx};
    if ((rc = el__ft_evaluate(&runner, &dv, &ddv, &shape, B, 1, 0, NULL, &mt, err))) goto done_ej;
    el__ft_metrics_json(t, &mt, mj, sizeof mj);
    fprintf(log, "epoch %ld: train loss %.4f, dev %s (%.0f s)\n", ep, loss_sum / n_loss, mj,
            now_wall() - t_ep);
    snprintf(ejbuf, sizeof ejbuf, "%s{\"epoch\": %ld, \"train_loss\": %.6f, \"dev\": %s}",
             ep > 1 ? ", " : "", ep, loss_sum / n_loss, mj);
    fputs(ejbuf, ej);
    if (mt.primary > best || best_epoch == 0) {
      best = mt.primary;
      best_epoch = (int)ep;
      best_m = mt;
      if (t->squad2) {
        cfg.has_null_threshold = 1;
        cfg.null_threshold = mt.null_threshold;
      }
      if ((rc = el_checkpoint_save(o->out, &cfg, &p.w[0], vocab, err))) goto done_ej;
      fprintf(log, "finetune: saved %s (epoch %ld, %s %.4f)\n", o->out, ep, t->metric, best);
    }
  }
  fflush(ej);
  {
    el__ft_metrics_json(t, &best_m, mj, sizeof mj);
    size_t cap = strlen(epochs_json ? epochs_json : "") + 4096;
    char *js = malloc(cap);
    if (!js) {
      rc = el_error_set(err, EL_ENOMEM, "finetune: out of memory");
      goto done_ej;
    }
    snprintf(js, cap,
             "{\n  \"task\": \"%s\",\n  \"metric\": \"%s\",\n  \"best_epoch\": %d,\n  \"dev\": %s,\n"
             "  \"epochs\": [%s],\n  \"train\": \"%s\",\n  \"dev_file\": \"%s\",\n"
             "  \"init\": \"%s\",\n  \"random_init\": %s,\n  \"train_examples\": %d,\n"
             "  \"seed\": %ld,\n  \"lr\": %g,\n  \"batch_size\": %ld,\n  \"epochs_run\": %ld,\n"
             "  \"layer_decay\": %g,\n  \"warmup_proportion\": %g,\n  \"weight_decay\": %g,\n"
             "  \"max_seq_len\": %ld,\n  \"steps\": %ld,\n  \"wall_seconds\": %.1f,\n"
             "  \"cpu_seconds\": %.1f\n}\n",
             t->name, t->metric, best_epoch, mj, epochs_json ? epochs_json : "", o->train, o->dev,
             mdir, o->random_init ? "true" : "false",
             t->kind == EL__TASK_QA ? tr.squad.n_q : t->kind == EL__TASK_GED ? tr.ged.n : tr.cls.n,
             o->seed, o->lr, o->batch, o->epochs, o->layer_decay, o->warmup, o->weight_decay,
             o->max_seq_len, step, now_wall() - wall0, now_cpu() - cpu0);
    rc = write_atomic(o->out, "eval.json", js, err);
    free(js);
    if (!rc) fprintf(log, "finetune: best epoch %d, dev %s; wrote %s/eval.json\n", best_epoch, mj, o->out);
  }
done_ej:
  fclose(ej);
done:
  free(epochs_json);
  free(order);
  free(lens);
  free(bids);
  free(btypes);
  free(dout);
  el_tmodel_free(m);
  el_params_free(&p);
  el_config_free(&cfg);
  el__ft_data_free(&dtr);
  el__ft_data_free(&ddv);
  el__ft_examples_free(&tr);
  el__ft_examples_free(&dv);
  el_model_free(src);
  return rc;
}
