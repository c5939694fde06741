/* Fine-tuning loop: AdamW with warmup + linear decay and layer-wise LR decay
 * (train/optim.h), dropout from the model config, evaluation on dev after
 * every epoch, best checkpoint saved atomically (el__checkpoint_save) with
 * DIR/eval.json next to it. Deterministic for a given --seed and data: the
 * shuffle and dropout streams are split from one el__rng and the optimizer
 * and model are thread-count independent. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "trainer_api.h"
#include "finetune_run.h"
#include "metrics_log.h"
#include "optim.h"
#include "params.h"
#include "progress.h"
#include "schedule.h"

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
  int rc = el__config_copy(cfg, src, err);
  if (rc) return rc;
  el__config_free(cfg);
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
      for (int i = 0; i < labels->n_labels; i++) {
        const char *name = t->label_names ? t->label_names[i] : labels->labels[i];
        if (!(cfg->id2label[i] = strdup(name))) goto oom;
      }
      break;
  }
  return EL_OK;
oom:
  el__config_free(cfg);
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

/* Writes text to dir/name atomically (el__write_atomic). */
static int write_atomic(const char *dir, const char *name, const char *text, el_error *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return el__write_atomic(path, text, strlen(text), err);
}

/* Synthetic GED examples: generated sentences for training, and for dev the
 * held-out ones unless a --dev file is given. */
static int read_synthetic(const el__ft_opts *o, const el_tokenizer *tok, el__ft_examples *tr,
                          el__ft_examples *dv, FILE *log, el_error *err) {
  el__synth_opts so = o->synth;
  so.seed = (uint64_t)o->seed;
  so.lower_case = el_tokenizer_lower_case(tok);
  tr->task = dv->task = o->task;
  tr->path = "synthetic";
  double t0 = now_wall();
  int rc = el__ged_synthesize(&so, &tr->ged, o->dev ? NULL : &dv->ged, err);
  if (rc) return rc;
  fprintf(log,
          "finetune: synthetic GED data from %d file(s): %d training sentences, %ld words, "
          "%.1f%% labelled errors (%.1f s)\n",
          so.n_paths, tr->ged.n, tr->ged.n_words,
          tr->ged.n_words ? 100.0 * tr->ged.n_errors / tr->ged.n_words : 0.0, now_wall() - t0);
  if (o->dev) return el__ft_read(o->task, o->dev, &o->cols, NULL, 0, (int)o->max_dev, dv, err);
  dv->path = "synthetic dev";
  return EL_OK;
}

static int read_examples(const el__ft_opts *o, const el_tokenizer *tok, el__ft_examples *tr,
                         el__ft_examples *dv, FILE *log, el_error *err) {
  if (o->synth.n_paths) return read_synthetic(o, tok, tr, dv, log, err);
  char note[700];
  int rc = el__ft_read(o->task, o->train, &o->cols, o->labels, o->n_labels, (int)o->max_train, tr,
                       err);
  if (rc) return rc;
  el__ft_skip_note(tr, note, sizeof note);
  if (note[0]) fprintf(log, "finetune: train: %s\n", note);
  char *const *labels = tr->cls.n_labels ? tr->cls.labels : NULL;
  if ((rc = el__ft_read(o->task, o->dev, &o->cols, labels, tr->cls.n_labels, (int)o->max_dev, dv, err)))
    return rc;
  el__ft_skip_note(dv, note, sizeof note);
  if (note[0]) fprintf(log, "finetune: dev: %s\n", note);
  return EL_OK;
}

static void add_epoch(cJSON *epochs, const el__task *t, long ep, double train_loss,
                      const el__ft_metrics *mt) {
  cJSON *e = cJSON_CreateObject();
  if (!e) return;
  cJSON_AddNumberToObject(e, "epoch", (double)ep);
  cJSON_AddNumberToObject(e, "train_loss", train_loss);
  cJSON *d = el__ft_metrics_object(t, mt);
  if (d) cJSON_AddItemToObject(e, "dev", d);
  cJSON_AddItemToArray(epochs, e);
}

typedef struct el__ft_run_summary {
  int best_epoch;
  const el__ft_metrics *best;
  const cJSON *epochs;
  int train_examples;
  long steps;
  double wall_s, cpu_s;
  const char *init_dir;
} el__ft_run_summary;

/* DIR/eval.json: the best epoch's dev metrics, every epoch, and the
 * settings that produced them. */
static int write_eval_json(const el__ft_opts *o, const el__ft_run_summary *r, el_error *err) {
  const el__task *t = o->task;
  cJSON *j = cJSON_CreateObject();
  if (!j) return el_error_set(err, EL_ENOMEM, "eval.json: out of memory");
  cJSON_AddStringToObject(j, "task", t->name);
  cJSON_AddStringToObject(j, "metric", t->metric);
  cJSON_AddNumberToObject(j, "best_epoch", r->best_epoch);
  cJSON *d = el__ft_metrics_object(t, r->best);
  if (d) cJSON_AddItemToObject(j, "dev", d);
  cJSON_AddItemToObject(j, "epochs", cJSON_Duplicate(r->epochs, 1));
  if (o->synth.n_paths) {
    cJSON *sy = cJSON_AddObjectToObject(j, "synthetic");
    cJSON *files = cJSON_AddArrayToObject(sy, "from");
    for (int i = 0; i < o->synth.n_paths; i++)
      cJSON_AddItemToArray(files, cJSON_CreateString(o->synth.paths[i]));
    cJSON_AddNumberToObject(sy, "sentences", (double)o->synth.sentences);
    cJSON_AddNumberToObject(sy, "rate", o->synth.rate);
  } else {
    cJSON_AddStringToObject(j, "train", o->train);
  }
  if (o->dev) cJSON_AddStringToObject(j, "dev_file", o->dev);
  else cJSON_AddNullToObject(j, "dev_file");
  cJSON_AddStringToObject(j, "init", r->init_dir);
  cJSON_AddBoolToObject(j, "random_init", o->random_init);
  cJSON_AddNumberToObject(j, "train_examples", r->train_examples);
  cJSON_AddNumberToObject(j, "seed", (double)o->seed);
  cJSON_AddNumberToObject(j, "lr", o->lr);
  cJSON_AddNumberToObject(j, "batch_size", (double)o->batch);
  cJSON_AddNumberToObject(j, "epochs_run", (double)cJSON_GetArraySize(r->epochs));
  cJSON_AddNumberToObject(j, "layer_decay", o->layer_decay);
  cJSON_AddNumberToObject(j, "warmup_proportion", o->warmup);
  cJSON_AddNumberToObject(j, "weight_decay", o->weight_decay);
  cJSON_AddNumberToObject(j, "max_seq_len", (double)o->max_seq_len);
  cJSON_AddNumberToObject(j, "steps", (double)r->steps);
  if (o->time_limit > 0) { /* a time-planned run ends when its plan is complete */
    cJSON_AddNumberToObject(j, "time_limit_seconds", o->time_limit);
    cJSON_AddNumberToObject(j, "planned_steps", (double)r->steps);
  }
  cJSON_AddNumberToObject(j, "wall_seconds", r->wall_s);
  cJSON_AddNumberToObject(j, "cpu_seconds", r->cpu_s);
  char *txt = cJSON_Print(j);
  cJSON_Delete(j);
  if (!txt) return el_error_set(err, EL_ENOMEM, "eval.json: out of memory");
  size_t n = strlen(txt);
  char *nl = realloc(txt, n + 2);
  if (nl) {
    txt = nl;
    strcpy(txt + n, "\n");
  }
  int rc = write_atomic(o->out, "eval.json", txt, err);
  cJSON_free(txt);
  return rc;
}

/* After a step of a time-planned run: re-plan; until a dev evaluation has
 * been timed, keep time for one at half a training step per dev batch (a
 * forward pass only); say once what was planned. */
static void plan_step(el__plan *pl, double step_s, double elapsed, int eval_timed,
                      long dev_batches, double warmup, el__progress *prog) {
  int was = pl->measured;
  el__plan_step(pl, step_s, elapsed);
  if (!eval_timed) el__plan_set_reserve(pl, 0.5 * el__plan_cost(pl) * (double)dev_batches);
  if (pl->measured) el__progress_set_total(prog, pl->total, 1);
  if (pl->measured && !was)
    el__progress_note(prog,
                      "finetune: time plan: %.3fs per step measured -> %ld steps in %gs (warmup "
                      "%ld); re-planned as the step time changes",
                      el__plan_cost(pl), pl->total, pl->budget, el__warmup_share(pl->total, warmup));
}

/* The run's curves in --out: metrics.jsonl (every row so far) and, with
 * plot, loss.svg. --out is replaced by every best-epoch checkpoint save (a
 * renamed temporary directory), so they are written again right after each
 * save, after logged rows once a checkpoint exists, and last after
 * eval.json. A failure is a warning: the checkpoint is what matters. */
static void write_curves(const el__ft_opts *o, const el__mlog *ml, el__progress *prog, int plot) {
  char path[4200], title[512];
  el_error e = {0};
  snprintf(path, sizeof path, "%s/metrics.jsonl", o->out);
  if (el__mlog_save(ml, path, &e)) el__progress_note(prog, "finetune: warning: %s", e.msg);
  if (!plot) return;
  snprintf(path, sizeof path, "%s/loss.svg", o->out);
  snprintf(title, sizeof title, "Fine-tuning %s, batch %ld, peak lr %g", o->task->name, o->batch,
           o->lr);
  if (el__mlog_plot_finetune(ml, path, title, o->task->metric, &e))
    el__progress_note(prog, "finetune: warning: %s", e.msg);
}

int el__ft_run(const el__ft_opts *o, FILE *log, el_error *err) {
  const el__task *t = o->task;
  double wall0 = now_wall(), cpu0 = now_cpu();
  char mdir[4096], vocab[4200];
  el__ft_resolve_model_dir(o->init, mdir, sizeof mdir);
  snprintf(vocab, sizeof vocab, "%s/vocab.txt", mdir);
  el_model *src = NULL;
  el__ft_examples tr = {0}, dv = {0};
  el__ft_data dtr = {0}, ddv = {0};
  el_config cfg = {0};
  el__params p = {0};
  el__tmodel *m = NULL;
  int *order = NULL, *lens = NULL, *bids = NULL, *btypes = NULL;
  float *dout = NULL;
  cJSON *epochs = cJSON_CreateArray();
  el__mlog ml;
  el__mlog_open_memory(&ml);
  el__progress prog;
  el__progress_init(&prog, log, 0);
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
  /* before any work: the parent of --out exists (made) and is writable */
  if ((rc = el__prepare_output(o->out, 0, err))) return rc;
  if ((rc = el_model_load(mdir, &src, err))) goto done;
  const el_tokenizer *tok = el_model_tokenizer(src);

  if ((rc = read_examples(o, tok, &tr, &dv, log, err))) goto done;

  el__ft_shape shape = {(int)o->max_seq_len, el_qa_default_params(), EL_SCORE_MAX};
  shape.qa.max_seq_len = (int)o->max_seq_len;
  shape.qa.doc_stride = (int)o->doc_stride;
  shape.qa.max_query_len = (int)o->max_query_len;
  shape.ged_rule = o->ged_rule;
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
  el__rng rng;
  el__rng_seed(&rng, (uint64_t)o->seed);
  el__rng r_init = el__rng_split(&rng, 1), r_shuf = el__rng_split(&rng, 2), r_drop = el__rng_split(&rng, 3);
  if ((rc = el__params_new_single(&p, &cfg, err)) ||
      (rc = el__params_init_random(&p, 0, 0, &r_init, err)))
    goto done;
  if (!o->random_init) {
    int what = EL_COPY_ENCODER;
    if (t->kind == EL__TASK_GED && scfg->arch == EL_ARCH_PRETRAINING) what |= EL_COPY_HEAD;
    if ((rc = el__params_copy_from_model(&p, 0, src, what, err))) goto done;
  }
  int max_len = dtr.max_len > ddv.max_len ? dtr.max_len : ddv.max_len;
  int B = (int)o->batch;
  el__tmodel_limits lim = {B * max_len, B, max_len, 0};
  if ((rc = el__tmodel_new(&cfg, &p.w[0], &p.g[0], &lim, &m, err))) goto done;
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

  el__adamw opt = el__adamw_defaults();
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
  /* --time-limit: the schedule's total follows the time plan (schedule.h),
   * at most the epochs' steps; a plan complete mid-epoch ends the run after
   * that partial epoch's dev evaluation */
  el__plan plan, *pl = NULL;
  double t_train = now_wall();
  el__progress_set_total(&prog, o->time_limit > 0 ? 0 : total, o->time_limit > 0);
  if (o->time_limit > 0) {
    el__plan_init(pl = &plan, o->time_limit, 0, total, total);
    fprintf(log, "finetune: LR schedule planned for --time-limit %gs, at most the %ld steps above\n",
            o->time_limit, total);
  }

  double best = -INFINITY;
  int best_epoch = 0;
  el__ft_metrics best_m = {0};
  long step = 0;
  char mj[1024];
  int saved = 0;                      /* --out holds this run's checkpoint */
  double eval_s = 0, eval_total = 0;  /* the last dev evaluation, all of them */
  double last_plot = now_wall();
  if (!epochs) {
    rc = el_error_set(err, EL_ENOMEM, "finetune: out of memory");
    goto done;
  }
  for (long ep = 1; ep <= o->epochs; ep++) {
    double t_ep = now_wall(), loss_sum = 0, loss_log = 0;
    long n_loss = 0, n_log = 0, ex_log = 0;
    double t_log = now_wall();
    for (int i = dtr.n - 1; i > 0; i--) { /* Fisher-Yates */
      int j = (int)el__rng_below(&r_shuf, (uint32_t)(i + 1)), tmp = order[i];
      order[i] = order[j];
      order[j] = tmp;
    }
    for (int a = 0; a < dtr.n; a += B) {
      if (pl && el__plan_done(pl)) break;
      double t_step = now_wall();
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
      el__params_zero_grads(&p);
      if ((rc = el__tmodel_forward(m, &bt, NULL, 0, 1, &r_drop, &out, err))) goto done_ej;
      double loss = task_loss(t, &dtr, order + a, nb, out, K, dout);
      if (!isfinite(loss)) {
        rc = el_error_set(err, EL_EVALUE, "finetune: loss is %g at step %ld (lower --lr?)", loss,
                          step + 1);
        goto done_ej;
      }
      if ((rc = el__tmodel_backward(m, dout, err))) goto done_ej;
      double lr = el__lr_at(o->lr, step, total, warm);
      if ((rc = el__adamw_step(&p, &opt, lr, NULL, err))) goto done_ej;
      step++;
      if (pl) { /* the next step's schedule */
        plan_step(pl, now_wall() - t_step, now_wall() - t_train, ep > 1, (ddv.n + B - 1) / B,
                  o->warmup, &prog);
        total = pl->total;
        warm = el__warmup_share(total, o->warmup);
      }
      loss_sum += loss;
      n_loss++;
      loss_log += loss;
      n_log++;
      ex_log += nb;
      int row_now = (o->log_every > 0 && step % o->log_every == 0) || a + B >= dtr.n ||
                    (pl && el__plan_done(pl));
      if (prog.tty || row_now) {
        double dt = now_wall() - t_log, per_step = (now_wall() - t_train - eval_total) / step;
        double eta = pl ? el__plan_eta(pl)
                        : (double)(total - step) * per_step + (double)(o->epochs - ep + 1) * eval_s;
        el__progress_stats ps = {.step = step, .lr = lr, .eta_s = eta, .finetune = 1,
                                 .loss = loss_log / n_log, .examples_per_s = dt > 0 ? ex_log / dt : NAN,
                                 .epoch = ep, .epochs = o->epochs};
        if (prog.tty) el__progress_update(&prog, &ps, 0);
        if (row_now && o->log_every > 0) el__progress_log(&prog, &ps);
        if (row_now) {
          el__mrow row;
          memset(&row, 0, sizeof row);
          row.step = step;
          el__mrow_set(&row, EL_MF_TIME, now_wall() - t_train);
          el__mrow_set(&row, EL_MF_EPOCH, (double)ep);
          el__mrow_set(&row, EL_MF_LR, lr);
          el__mrow_set(&row, EL_MF_LOSS, loss_log / n_log);
          el__mrow_set(&row, EL_MF_EXAMPLES_PER_S, ps.examples_per_s);
          if (pl) el__mrow_set(&row, EL_MF_PLANNED_STEPS, (double)total);
          el_error e = {0};
          if (el__mlog_add(&ml, &row, &e)) el__progress_note(&prog, "finetune: warning: %s", e.msg);
          if (saved) {
            int plot = now_wall() - last_plot > 30;
            write_curves(o, &ml, &prog, plot);
            if (plot) last_plot = now_wall();
          }
          loss_log = 0;
          n_log = 0;
          ex_log = 0;
          t_log = now_wall();
        }
      }
    }
    el__ft_metrics mt;
    el__ft_tmodel_ctx rctx = {m, t->kind, K};
    el__ft_runner runner = {el__ft_tmodel_run, &rctx};
    double t_eval = now_wall();
    if ((rc = el__ft_evaluate(&runner, &dv, &ddv, &shape, B, 1, 0, NULL, &mt, err))) goto done_ej;
    eval_s = now_wall() - t_eval;
    eval_total += eval_s;
    el__ft_metrics_json(t, &mt, mj, sizeof mj);
    el__progress_note(&prog, "epoch %ld: train loss %.4f, dev %s (%.0f s)", ep, loss_sum / n_loss,
                      mj, now_wall() - t_ep);
    add_epoch(epochs, t, ep, loss_sum / n_loss, &mt);
    {
      el__mrow row;
      memset(&row, 0, sizeof row);
      row.val = 1;
      row.step = step;
      el__mrow_set(&row, EL_MF_TIME, now_wall() - t_train);
      el__mrow_set(&row, EL_MF_EPOCH, (double)ep);
      el__mrow_set(&row, EL_MF_LOSS, loss_sum / n_loss);
      el__mrow_set(&row, EL_MF_DEV_SCORE, mt.primary);
      el_error e = {0};
      if (el__mlog_add(&ml, &row, &e)) el__progress_note(&prog, "finetune: warning: %s", e.msg);
    }
    if (mt.primary > best || best_epoch == 0) {
      best = mt.primary;
      best_epoch = (int)ep;
      best_m = mt;
      if (t->squad2) {
        cfg.has_null_threshold = 1;
        cfg.null_threshold = mt.null_threshold;
      }
      if (t->kind == EL__TASK_GED) { /* /score serves what dev chose */
        cfg.has_score_threshold = 1;
        cfg.score_threshold = (float)mt.threshold;
        cfg.score_rule = o->ged_rule;
      }
      if ((rc = el__checkpoint_save(o->out, &cfg, &p.w[0], vocab, err))) goto done_ej;
      saved = 1;
      el__progress_note(&prog, "finetune: saved %s (epoch %ld, %s %.4f)", o->out, ep, t->metric,
                        best);
    }
    if (saved) { /* the saved directory has no curves yet: put them (back) in */
      write_curves(o, &ml, &prog, 1);
      last_plot = now_wall();
    }
    if (pl) el__plan_set_reserve(pl, now_wall() - t_eval); /* the last one will take as long */
    if (pl && el__plan_done(pl)) break;
  }
  {
    el__ft_run_summary sum = {best_epoch, &best_m, epochs, t->kind == EL__TASK_QA ? tr.squad.n_q
                              : t->kind == EL__TASK_GED ? tr.ged.n : tr.cls.n,
                              step, now_wall() - wall0, now_cpu() - cpu0, mdir};
    rc = write_eval_json(o, &sum, err);
    el__ft_metrics_json(t, &best_m, mj, sizeof mj);
    if (!rc) {
      write_curves(o, &ml, &prog, 1); /* last: after the final save */
      el__progress_note(&prog, "finetune: best epoch %d, dev %s; wrote %s/eval.json, metrics.jsonl, loss.svg",
                        best_epoch, mj, o->out);
    }
  }
done_ej:
done:
  el__progress_done(&prog);
  el__mlog_close(&ml);
  cJSON_Delete(epochs);
  free(order);
  free(lens);
  free(bids);
  free(btypes);
  free(dout);
  el__tmodel_free(m);
  el__params_free(&p);
  el__config_free(&cfg);
  el__ft_data_free(&dtr);
  el__ft_data_free(&ddv);
  el__ft_examples_free(&tr);
  el__ft_examples_free(&dv);
  el_model_free(src);
  return rc;
}
