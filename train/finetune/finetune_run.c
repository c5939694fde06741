/* Fine-tuning loop: AdamW with warmup + linear decay and layer-wise LR decay
 * (train/model/optim.h), dropout from the model config, evaluation on dev after
 * every epoch, best checkpoint saved atomically (el__checkpoint_save) with
 * DIR/eval.json next to it. Deterministic for a given --seed and data: the
 * shuffle and dropout streams are split from one el__rng, and the optimizer
 * and model give the same numbers for a given --threads (which sets the
 * model copies: replicas.h; another count changes only the order of float
 * sums).
 *
 * Data parallelism and --accumulate (dist.h): each step's global batch of
 * --batch-size features is split into ranks x accumulate micro-batches, the
 * loss divided by the global batch's count, dropout keyed by the step and
 * each feature's index in the global batch; the ranks' gradients are summed
 * (MPI_Allreduce) before the one AdamW step. Every rank evaluates dev (the
 * same weights, the same numbers); rank 0 alone writes --out and logs.
 * Inside a rank, with several threads, its share is split over model
 * copies, one per thread, each computing `accumulate` micro-batches
 * (replicas.h). */
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
#include "dist.h"
#include "finetune_heads.h"
#include "finetune_evaljson.h"
#include "finetune_run.h"
#include "keep_generator.h"
#include "metrics_log.h"
#include "optim.h"
#include "params.h"
#include "precision.h"
#include "progress.h"
#include "replicas.h"
#include "save_trial.h"
#include "weight_avg.h"
#include "schedule.h"

static double now_cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* A pretrain RUN directory keeps its encoder in discriminator/ (ELECTRA) or
 * mlm/ (--objective mlm). */
const char *el__ft_resolve_model_dir(const char *dir, char *buf, int n) {
  static const char *const encoders[] = {"discriminator", "mlm"};
  struct stat st;
  char probe[4200];
  snprintf(buf, (size_t)n, "%s", dir);
  snprintf(probe, sizeof probe, "%s/config.json", dir);
  if (stat(probe, &st) == 0) return buf;
  for (size_t i = 0; i < sizeof encoders / sizeof *encoders; i++) {
    snprintf(probe, sizeof probe, "%s/%s/config.json", dir, encoders[i]);
    if (stat(probe, &st) == 0) {
      snprintf(buf, (size_t)n, "%s/%s", dir, encoders[i]);
      break;
    }
  }
  return buf;
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
  double t0 = el__mono_s();
  int rc = el__ged_synthesize(&so, &tr->ged, o->dev ? NULL : &dv->ged, err);
  if (rc) return rc;
  fprintf(log,
          "finetune: synthetic GED data from %d file(s): %d training sentences, %ld words, "
          "%.1f%% labelled errors (%.1f s)\n",
          so.n_paths, tr->ged.n, tr->ged.n_words,
          tr->ged.n_words ? 100.0 * tr->ged.n_errors / tr->ged.n_words : 0.0, el__mono_s() - t0);
  if (o->dev) return el__ft_read(o->task, o->dev, &o->cols, NULL, 0, (int)o->max_dev, dv, err);
  dv->path = "synthetic dev";
  return EL_OK;
}

/* Words in a joined unit at most: two FCE sentences of average length are 35. */
#define JOINED_MAX_WORDS 80

static int read_examples(const el__ft_opts *o, const el_tokenizer *tok, el__ft_examples *tr,
                         el__ft_examples *dv, FILE *log, el_error *err) {
  if (o->synth.n_paths) return read_synthetic(o, tok, tr, dv, log, err);
  char note[700];
  int rc = el__ft_read(o->task, o->train, &o->cols, o->labels, o->n_labels, (int)o->max_train, tr,
                       err);
  if (rc) return rc;
  el__ft_skip_note(tr, note, sizeof note);
  if (note[0]) fprintf(log, "finetune: train: %s\n", note);
  if (o->task->kind == EL__TASK_GED && o->ged_joined > 0) {
    const int alone = tr->ged.n;
    /* a unit of two within the pieces a sequence holds, as most FCE pairs are */
    if ((rc = el__ged_join_neighbours(&tr->ged, o->ged_joined, (uint64_t)o->seed, JOINED_MAX_WORDS, err)))
      return rc;
    fprintf(log, "finetune: train: %d sentences, and %d of them also joined to the one before\n",
            alone, tr->ged.n - alone);
  }
  char *const *labels = tr->cls.n_labels ? tr->cls.labels : NULL;
  if ((rc = el__ft_read(o->task, o->dev, &o->cols, labels, tr->cls.n_labels, (int)o->max_dev, dv, err)))
    return rc;
  el__ft_skip_note(dv, note, sizeof note);
  if (note[0]) fprintf(log, "finetune: dev: %s\n", note);
  return EL_OK;
}

/* After a step of a time-planned run: re-plan, keeping free the time the
 * end needs (the final dev evaluation and save, reserve_after_eval), or
 * until a dev evaluation has been timed, time for one at half a training
 * step per dev batch (a forward pass only; after the first step, that
 * step's time) and the trial save; say once what was planned. */
static void plan_step(el__plan *pl, double step_s, double elapsed, double reserve_after_eval,
                      double save_s, long dev_batches, double warmup, el__progress *prog) {
  int was = pl->measured;
  double cost = pl->n ? el__plan_cost(pl) : step_s;
  el__plan_set_reserve(pl, reserve_after_eval > 0 ? reserve_after_eval
                                                  : 0.5 * cost * (double)dev_batches + save_s);
  el__plan_step(pl, step_s, elapsed);
  if (pl->measured) el__progress_set_total(prog, pl->total, 1);
  if (pl->measured && !was)
    el__progress_note(prog,
                      "finetune: time plan: %.3fs per step measured -> %ld steps in %.0fs (warmup "
                      "%ld), %.1fs kept for the final evaluation and save; re-planned as the step "
                      "time changes",
                      el__plan_cost(pl), pl->total, pl->budget, el__warmup_share(pl->total, warmup),
                      pl->reserve);
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

/* One copy of the model and the batch buffers of its micro-batches. */
typedef struct ft_copy {
  el__tmodel *m;
  int *lens, *bids, *btypes;
  float *dout;
} ft_copy;

/* Everything one fine-tuning run holds, so that el__ft_run reads as its
 * steps: setup, then train and evaluate epoch by epoch, then the summary. */
typedef struct ft_run {
  const el__ft_opts *o;
  const el__task *t;
  FILE *log;
  double wall0, cpu0, t_train;
  char mdir[4096], vocab[4200];
  el_model *src;
  el__ft_examples tr, dv;
  el__ft_data dtr, ddv;
  el__ft_shape shape;
  el_config cfg;
  el__params p;
  el__replicas reps;              /* copies of the model, one per thread (replicas.h) */
  ft_copy copy[EL_MAX_REPLICAS];  /* copy 0's model also evaluates dev */
  el__rng r_shuf, r_drop;
  int B, K, max_len;
  int rank, ranks, accumulate, micro_cap; /* data parallelism; micro_cap: the model's sequences */
  int plan_over;                           /* the time plan is complete (rank 0's decision) */
  el__lr_ramp ramp; /* no LR jump when the plan replaces the provisional total (synced: same on every rank) */
  int *order;
  el__adamw opt;
  el__weight_avg avg; /* --average-weights: avg.avg non-NULL */
  long total, warm, step;
  el__plan plan, *pl; /* pl: &plan with --time-limit, else NULL */
  cJSON *epochs;
  el__mlog ml;
  el__progress prog;
  double best;
  int best_epoch, saved; /* saved: --out holds this run's checkpoint */
  el__ft_metrics best_m;
  double eval_s, eval_total, last_plot; /* the last dev evaluation, all of them */
  double train_s;                        /* in training steps, all of them */
  double save_s;   /* the last checkpoint save's seconds (the trial save's before the first) */
  double end_s;    /* a time plan's reserve: the last epoch end's seconds, its save counted */
} ft_run;

/* Saving replaces the whole --out directory: refuse one that holds
 * something other than a checkpoint, and a model unless told to replace it
 * (a silent overwrite lost a trained model); then make its parent
 * (writable) before any work. */
static int check_out(const char *out, int overwrite, el_error *err) {
  DIR *od = opendir(out);
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
                          out);
    if (ckpt && !overwrite)
      return el_error_set(err, EL_EINVAL,
                          "--out %s already holds a model (config.json): give another --out, "
                          "or --overwrite to replace it",
                          out);
  }
  return el__prepare_output(out, 0, err);
}

/* The encoder, the examples and their features, the task's config. */
static int load_inputs(ft_run *r, el_error *err) {
  const el__ft_opts *o = r->o;
  int rc = el__model_load_hf(r->mdir, &r->src, err); /* its weights are copied */
  if (rc) return rc;
  const el_tokenizer *tok = el_model_tokenizer(r->src);
  if ((rc = read_examples(o, tok, &r->tr, &r->dv, r->log, err))) return rc;
  r->shape = (el__ft_shape){.max_seq_len = (int)o->max_seq_len, .qa = el_qa_default_params(),
                            .ged_rule = o->ged_rule};
  r->shape.qa.max_seq_len = (int)o->max_seq_len;
  r->shape.qa.doc_stride = (int)o->doc_stride;
  r->shape.qa.max_query_len = (int)o->max_query_len;
  r->shape.dict_weight = -1; /* calibrated on dev */
  if (o->dictionary && o->task->kind == EL__TASK_GED && (rc = el__dict_load(NULL, &r->shape.dict, err)))
    return rc;
  if (r->shape.dict && o->ngram && (rc = el__ged_readers_open_ngram(&r->shape.ngram, err)))
    return rc;
  const el_config *scfg = el_model_config(r->src);
  if (o->max_seq_len > scfg->max_position_embeddings)
    return el_error_set(err, EL_EINVAL, "--max-seq-len %ld exceeds the model's max_position_embeddings %d",
                        o->max_seq_len, scfg->max_position_embeddings);
  if ((rc = el__ft_features(&r->tr, tok, &r->shape, &r->dtr, err)) ||
      (rc = el__ft_features(&r->dv, tok, &r->shape, &r->ddv, err)))
    return rc;
  if (r->dtr.n == 0) return el_error_set(err, EL_EINVAL, "%s: no training features", o->train);
  return el__ft_task_config(r->t, scfg, &r->tr.cls, &r->cfg, err);
}

/* Copy i's model on its parameter set's views, and its batch buffers. */
static int new_copy(ft_run *r, int i, el_error *err) {
  ft_copy *c = &r->copy[i];
  const el__params *p = el__replicas_params(&r->reps, i);
  el__tmodel_limits lim = {r->micro_cap * r->max_len, r->micro_cap, r->max_len, 0};
  int rc = el__tmodel_new(&r->cfg, &p->w[0], &p->g[0], &lim, &c->m, err);
  if (rc) return rc;
  const size_t BL = (size_t)r->micro_cap * r->max_len;
  c->lens = malloc((size_t)r->micro_cap * sizeof *c->lens);
  c->bids = malloc(BL * sizeof *c->bids);
  c->btypes = malloc(BL * sizeof *c->btypes);
  c->dout = malloc(BL * 2 * sizeof *c->dout + (size_t)r->micro_cap * r->K * sizeof *c->dout);
  if (!c->lens || !c->bids || !c->btypes || !c->dout)
    return el_error_set(err, EL_ENOMEM, "finetune: out of memory");
  return EL_OK;
}

/* Parameters: random everywhere, then the pretrained encoder (and, for GED
 * from a discriminator, its replaced-token head) unless --random-init; the
 * trainable model and the batch buffers. */
static int build_model(ft_run *r, el_error *err) {
  const el__ft_opts *o = r->o;
  el__rng rng;
  el__rng_seed(&rng, (uint64_t)o->seed);
  el__rng r_init = el__rng_split(&rng, 1);
  r->r_shuf = el__rng_split(&rng, 2);
  r->r_drop = el__rng_split(&rng, 3);
  int rc = el__params_new_single(&r->p, &r->cfg, err);
  if (!rc) rc = el__params_init_random(&r->p, 0, 0, &r_init, err);
  if (!rc && !o->random_init) {
    int what = EL_COPY_ENCODER;
    if (r->t->kind == EL__TASK_GED && el_model_config(r->src)->arch == EL_ARCH_PRETRAINING)
      what |= EL_COPY_HEAD;
    rc = el__params_copy_from_model(&r->p, 0, r->src, what, err);
  }
  if (rc) return rc;
  r->max_len = r->dtr.max_len > r->ddv.max_len ? r->dtr.max_len : r->ddv.max_len;
  r->B = (int)o->batch;
  r->K = el__ft_head_of(r->t->kind)->outputs ? el__ft_head_of(r->t->kind)->outputs : r->cfg.num_labels;
  /* a rank's share of B / ranks sequences over the copies, each in
   * `accumulate` micro-batches; a model holds one micro-batch: at most
   * ceil(B / (ranks x copies x accumulate)) sequences */
  if ((rc = el__replicas_new(&r->reps, &r->p, el__replicas_count(r->B / r->ranks / r->accumulate),
                             err)))
    return rc;
  const int parts = r->ranks * r->reps.n * r->accumulate;
  r->micro_cap = (r->B + parts - 1) / parts;
  if (r->reps.n > 1)
    fprintf(r->log, "finetune: %d model copies, one per thread, %d sequences each per batch\n",
            r->reps.n, r->B / r->ranks / r->reps.n);
  for (int i = 0; i < r->reps.n && !rc; i++) rc = new_copy(r, i, err);
  if (rc) return rc;
  if (!(r->order = malloc((size_t)r->dtr.n * sizeof *r->order)))
    return el_error_set(err, EL_ENOMEM, "finetune: out of memory");
  for (int i = 0; i < r->dtr.n; i++) r->order[i] = i;
  return EL_OK;
}

/* What the run's end writes (save_trial.h): the checkpoint and the
 * generator kept beside it. */
static int save_trial_fn(void *ctx, const char *dir, el_error *err) {
  const ft_run *r = ctx;
  char out[4500];
  snprintf(out, sizeof out, "%s/model", dir);
  int rc = el__checkpoint_save(out, &r->cfg, &r->p.w[0], r->vocab, err);
  int kept = rc ? 0 : el__ft_keep_generator(r->o->init, out, err);
  return rc ? rc : kept < 0 ? kept : EL_OK;
}

/* A time-planned run times a save before training (rank 0 saves): the
 * plan keeps that time free for the final one. */
static int time_save(ft_run *r, el_error *err) {
  if (r->o->time_limit <= 0 || r->rank) return EL_OK;
  char prefix[4200];
  snprintf(prefix, sizeof prefix, "%s.save-trial", r->o->out);
  int rc = el__save_trial(prefix, save_trial_fn, r, &r->save_s, err);
  if (!rc) return EL_OK;
  char why[sizeof err->msg];
  snprintf(why, sizeof why, "%s", err->msg);
  return el_error_set(err, rc, "finetune: a trial save before training failed: %s", why);
}

static int n_examples(const el__task *t, const el__ft_examples *e) {
  return t->kind == EL__TASK_QA ? e->squad.n_q : t->kind == EL__TASK_GED ? e->ged.n : e->cls.n;
}

/* Optimizer steps in one pass over the training sequences. */
static long steps_per_epoch(const ft_run *r) { return (r->dtr.n + r->B - 1) / r->B; }

/* The optimizer, the schedule (planned for --time-limit: its total follows
 * the time plan, schedule.h, at most the epochs' steps; a plan complete
 * mid-epoch ends the run after that partial epoch's dev evaluation), and
 * the settings line. */
static void start_schedule(ft_run *r) {
  const el__ft_opts *o = r->o;
  r->opt = el__adamw_defaults();
  r->opt.weight_decay = (float)o->weight_decay;
  r->opt.layer_decay = (float)o->layer_decay;
  r->total = steps_per_epoch(r) * o->epochs;
  r->warm = (long)(o->warmup * r->total);
  fprintf(r->log,
          "finetune: task %s, %d train / %d dev examples -> %d / %d sequences (max %d tokens), "
          "%s encoder from %s, %ld epoch%s x %ld step%s, batch %d, lr %g, layer decay %g, warmup "
          "%ld step%s, weight decay %g, seed %ld, products in %s\n",
          r->t->name, n_examples(r->t, &r->tr), n_examples(r->t, &r->dv), r->dtr.n, r->ddv.n,
          r->max_len, o->random_init ? "random" : "pretrained", r->mdir, o->epochs,
          el__s(o->epochs), steps_per_epoch(r), el__s(steps_per_epoch(r)), r->B, o->lr,
          o->layer_decay, r->warm, el__s(r->warm), o->weight_decay, o->seed, el__precision_now());
  if (r->dtr.n_truncated)
    fprintf(r->log, "finetune: %ld training example(s) truncated to %ld tokens\n", r->dtr.n_truncated,
            o->max_seq_len);
  r->t_train = el__mono_s();
  el__progress_set_total(&r->prog, o->time_limit > 0 ? 0 : r->total, o->time_limit > 0);
  if (o->time_limit > 0) { /* the limit counts from the run's start: loading and setup inside */
    el__plan_init(r->pl = &r->plan, o->time_limit - (r->t_train - r->wall0), 0, r->total, r->total);
    fprintf(r->log, "finetune: LR schedule planned for --time-limit %gs, at most the %ld steps above\n",
            o->time_limit, r->total);
  }
  r->best = -INFINITY;
  r->last_plot = el__mono_s();
}

/* --average-weights: the average starts as the initial weights. */
static int start_average(ft_run *r, el_error *err) {
  if (!(r->o->average_weights > 0)) return EL_OK;
  fprintf(r->log, "finetune: dev and the checkpoint read the weights' moving average (decay %g)\n",
          r->o->average_weights);
  return el__weight_avg_init(&r->avg, r->p.params, r->p.numel, r->o->average_weights, err);
}

static void shuffle(ft_run *r) { /* Fisher-Yates */
  for (int i = r->dtr.n - 1; i > 0; i--) {
    int j = (int)el__rng_below(&r->r_shuf, (uint32_t)(i + 1)), tmp = r->order[i];
    r->order[i] = r->order[j];
    r->order[j] = tmp;
  }
}

/* Forward + backward of the nb features at order[a...] on copy c, sequence
 * `first` of the global batch onwards (dropout keyed by it) into its
 * gradients; the loss divided by norm is added to *loss. */
static int micro_step(const ft_run *r, ft_copy *c, int a, int nb, int first, long norm,
                      const el__rng *drop, double *loss, el_error *err) {
  long T = 0;
  for (int i = 0; i < nb; i++) {
    const el__feat *f = &r->dtr.f[r->order[a + i]];
    c->lens[i] = f->len;
    memcpy(c->bids + T, r->dtr.ids + f->off, (size_t)f->len * sizeof *c->bids);
    memcpy(c->btypes + T, r->dtr.types + f->off, (size_t)f->len * sizeof *c->btypes);
    T += f->len;
  }
  el_batch bt = {nb, c->lens, c->bids, c->btypes};
  const float *out;
  el__rng d = *drop; /* every micro-batch the step's draw, keyed by `first` */
  el__tmodel_set_seq0(c->m, (uint64_t)first);
  int rc = el__tmodel_forward(c->m, &bt, NULL, 0, 1, &d, &out, err);
  if (rc) return rc;
  double l = el__ft_head_of(r->t->kind)->loss(&r->dtr, r->order + a, nb, norm, out, r->K, c->dout);
  *loss += l;
  if (!isfinite(l)) return EL_OK; /* reported once the ranks' losses are summed */
  return el__tmodel_backward(c->m, c->dout, err);
}

/* One step's batch: nb features at order[a...], the loss's divisor, the
 * dropout draw; each copy's loss. */
typedef struct step_share {
  ft_run *r;
  int a, nb;
  long norm;
  el__rng drop;
  double loss[EL_MAX_REPLICAS];
} step_share;

/* Copy i's micro-batches of this rank's share: global micro-batches
 * k = (rank x copies + i) x accumulate + j of ranks x copies x accumulate. */
static int copy_share(void *ctx, int i, el_error *err) {
  step_share *s = ctx;
  ft_run *r = s->r;
  const int per = r->accumulate, parts = r->ranks * r->reps.n * per;
  const int k0 = (r->rank * r->reps.n + i) * per;
  int rc = EL_OK;
  for (int k = k0; k < k0 + per && !rc; k++) {
    int lo = (int)((long)s->nb * k / parts), hi = (int)((long)s->nb * (k + 1) / parts);
    if (hi > lo)
      rc = micro_step(r, &r->copy[i], s->a + lo, hi - lo, lo, s->norm, &s->drop, &s->loss[i], err);
  }
  return rc;
}

/* One optimizer step on the global batch of nb features at order[a...]:
 * this rank's micro-batches over its model copies, the gradients summed
 * over the copies and the ranks, one AdamW step; *loss the global batch's
 * loss. */
static int train_step(ft_run *r, int a, int nb, double *lr, double *loss, el_error *err) {
  step_share s = {.r = r, .a = a, .nb = nb,
                  .norm = el__ft_head_of(r->t->kind)->norm(&r->dtr, r->order + a, nb),
                  .drop = el__rng_split(&r->r_drop, (uint64_t)r->step)};
  int rc = el__replicas_step(&r->reps, copy_share, &s, err);
  if (rc) return rc;
  *loss = 0;
  for (int i = 0; i < r->reps.n; i++) *loss += s.loss[i];
  if ((rc = el__dist_sum_f64(loss, 1, err))) return rc;
  if (!isfinite(*loss))
    return el_error_set(err, EL_EVALUE, "finetune: loss is %g at step %ld (lower --lr?)", *loss,
                        r->step + 1);
  if ((rc = el__dist_sum_f32(r->p.grads, r->p.numel, err))) return rc;
  *lr = el__lr_ramped(&r->ramp, r->o->lr, r->step, r->total, r->warm);
  if ((rc = el__adamw_step(&r->p, &r->opt, *lr, NULL, err))) return rc;
  if (r->avg.avg) el__weight_avg_update(&r->avg, r->p.params);
  r->step++;
  return EL_OK;
}

/* A time plan runs on rank 0's clock: its total, warmup and whether it is
 * complete go to every rank. */
static int sync_plan(ft_run *r, el_error *err) {
  double v[3] = {(double)r->total, (double)r->warm, el__plan_done(r->pl)};
  int rc = el__dist_bcast_f64(v, 3, err);
  r->total = (long)v[0];
  r->warm = (long)v[1];
  r->plan_over = v[2] != 0;
  return rc;
}

/* Losses since the last progress row. */
typedef struct interval {
  double loss, t0;
  long n, examples;
} interval;

/* The progress bar (terminal), and every log_every steps a log line and a
 * metrics row (the curves rewritten once a checkpoint exists). */
static void report_progress(ft_run *r, long ep, double lr, int row_now, interval *iv) {
  const el__ft_opts *o = r->o;
  double dt = el__mono_s() - iv->t0, per_step = (el__mono_s() - r->t_train - r->eval_total) / r->step;
  double eta = r->pl ? el__plan_eta(r->pl)
                     : (double)(r->total - r->step) * per_step + (double)(o->epochs - ep + 1) * r->eval_s;
  el__progress_stats ps = {.step = r->step, .lr = lr, .eta_s = eta, .finetune = 1,
                           .loss = iv->loss / iv->n, .examples_per_s = dt > 0 ? iv->examples / dt : NAN,
                           .epoch = ep, .epochs = o->epochs};
  if (r->prog.tty) el__progress_update(&r->prog, &ps, 0);
  if (!row_now) return;
  if (o->log_every > 0) el__progress_log(&r->prog, &ps);
  el__mrow row;
  memset(&row, 0, sizeof row);
  row.step = r->step;
  el__mrow_set(&row, EL_MF_TIME, el__mono_s() - r->t_train);
  el__mrow_set(&row, EL_MF_EPOCH, (double)ep);
  el__mrow_set(&row, EL_MF_LR, lr);
  el__mrow_set(&row, EL_MF_LOSS, iv->loss / iv->n);
  el__mrow_set(&row, EL_MF_EXAMPLES_PER_S, ps.examples_per_s);
  if (r->pl) el__mrow_set(&row, EL_MF_PLANNED_STEPS, (double)r->total);
  el_error e = {0};
  if (el__mlog_add(&r->ml, &row, &e)) el__progress_note(&r->prog, "finetune: warning: %s", e.msg);
  if (r->saved && !r->rank) {
    int plot = el__mono_s() - r->last_plot > 30;
    write_curves(o, &r->ml, &r->prog, plot);
    if (plot) r->last_plot = el__mono_s();
  }
  *iv = (interval){0, el__mono_s(), 0, 0};
}

/* One pass over the shuffled training features (or until the time plan is
 * complete); *loss_sum / *n_loss the epoch's losses. */
static int train_epoch(ft_run *r, long ep, double *loss_sum, long *n_loss, el_error *err) {
  const el__ft_opts *o = r->o;
  interval iv = {0, el__mono_s(), 0, 0};
  shuffle(r);
  for (int a = 0; a < r->dtr.n; a += r->B) {
    if (r->pl && r->plan_over) break;
    double t_step = el__mono_s(), lr = 0, loss = 0;
    int nb = a + r->B < r->dtr.n ? r->B : r->dtr.n - a;
    int rc = train_step(r, a, nb, &lr, &loss, err);
    if (rc) return rc;
    r->train_s += el__mono_s() - t_step;
    if (r->pl) { /* the next step's schedule */
      plan_step(r->pl, el__mono_s() - t_step, el__mono_s() - r->t_train, r->end_s, r->save_s,
                (r->ddv.n + r->B - 1) / r->B, o->warmup, &r->prog);
      r->total = r->pl->total;
      r->warm = el__warmup_share(r->total, o->warmup);
      if ((rc = sync_plan(r, err))) return rc;
    }
    *loss_sum += loss;
    (*n_loss)++;
    iv.loss += loss;
    iv.n++;
    iv.examples += nb;
    int row_now = (o->log_every > 0 && r->step % o->log_every == 0) || a + r->B >= r->dtr.n ||
                  (r->pl && r->plan_over);
    if (r->prog.tty || row_now) report_progress(r, ep, lr, row_now, &iv);
  }
  return EL_OK;
}

/* A better dev score than any before: its checkpoint, with what dev chose
 * (the squad2 null threshold; the GED threshold and word rule /score serves). */
static int save_best(ft_run *r, long ep, const el__ft_metrics *mt, el_error *err) {
  r->best = mt->primary;
  r->best_epoch = (int)ep;
  r->best_m = *mt;
  if (r->t->squad2) {
    r->cfg.has_null_threshold = 1;
    r->cfg.null_threshold = mt->null_threshold;
  }
  if (r->t->kind == EL__TASK_GED) {
    r->cfg.has_score_threshold = 1;
    r->cfg.score_threshold = (float)mt->threshold;
    r->cfg.score_rule = r->o->ged_rule;
    r->cfg.has_score_dictionary = mt->has_dict;
    r->cfg.score_dictionary_weight = (float)mt->dict.weight;
    r->cfg.score_dictionary_name_weight = (float)mt->dict.name_weight;
    r->cfg.score_dictionary_threshold = (float)mt->dict.threshold;
    r->cfg.score_dictionary_ngram = mt->has_dict && r->shape.ngram.lm;
  }
  double t0 = el__mono_s();
  int rc = r->rank ? EL_OK : el__checkpoint_save(r->o->out, &r->cfg, &r->p.w[0], r->vocab, err);
  if (rc) return rc;
  r->save_s = el__mono_s() - t0;
  r->saved = 1;
  el__progress_note(&r->prog, "finetune: saved %s (epoch %ld, %s %.4f)", r->o->out, ep, r->t->metric,
                    r->best);
  return EL_OK;
}

/* Dev evaluation after an epoch: the log line, eval.json's epoch entry, a
 * metrics row, the checkpoint when it is the best so far, the curves. */
static int end_epoch_of(ft_run *r, long ep, double t_ep, double loss_sum, long n_loss,
                        el_error *err);

/* With --average-weights, the epoch's evaluation and save read the average
 * (swapped into the parameter block and back: training goes on from the
 * last step's weights). */
static int end_epoch(ft_run *r, long ep, double t_ep, double loss_sum, long n_loss, el_error *err) {
  if (r->avg.avg) el__weight_avg_swap(&r->avg, r->p.params);
  int rc = end_epoch_of(r, ep, t_ep, loss_sum, n_loss, err);
  if (r->avg.avg) el__weight_avg_swap(&r->avg, r->p.params);
  return rc;
}

static int end_epoch_of(ft_run *r, long ep, double t_ep, double loss_sum, long n_loss,
                        el_error *err) {
  el__ft_metrics mt;
  el__ft_tmodel_ctx rctx = {r->copy[0].m, r->t->kind, r->K};
  el__ft_runner runner = {el__ft_tmodel_run, &rctx};
  double t_eval = el__mono_s();
  /* in fp32 whatever --precision trains in: the threshold chosen here is
   * the fp32 server's */
  const int precision = el__precision_fp32_begin();
  int rc = el__ft_evaluate(&runner, &r->dv, &r->ddv, &r->shape, r->micro_cap, 1, 0, NULL, &mt,
                           err);
  el__precision_restore(precision);
  if (rc) return rc;
  r->eval_s = el__mono_s() - t_eval;
  r->eval_total += r->eval_s;
  char mj[1024];
  el__ft_metrics_json(r->t, &mt, 1, mj, sizeof mj);
  el__progress_note(&r->prog, "epoch %ld: train loss %.4f, dev %s (%.0f s)", ep, loss_sum / n_loss,
                    mj, el__mono_s() - t_ep);
  el__ft_add_epoch(r->epochs, r->t, ep, loss_sum / n_loss, &mt);
  el__mrow row;
  memset(&row, 0, sizeof row);
  row.val = 1;
  row.step = r->step;
  el__mrow_set(&row, EL_MF_TIME, el__mono_s() - r->t_train);
  el__mrow_set(&row, EL_MF_EPOCH, (double)ep);
  el__mrow_set(&row, EL_MF_LOSS, loss_sum / n_loss);
  el__mrow_set(&row, EL_MF_DEV_SCORE, mt.primary);
  el_error e = {0};
  if (el__mlog_add(&r->ml, &row, &e)) el__progress_note(&r->prog, "finetune: warning: %s", e.msg);
  int best = mt.primary > r->best || r->best_epoch == 0;
  if (best && (rc = save_best(r, ep, &mt, err))) return rc;
  if (r->saved && !r->rank) { /* the saved directory has no curves yet: put them (back) in */
    write_curves(r->o, &r->ml, &r->prog, 1);
    r->last_plot = el__mono_s();
  }
  /* the last epoch end will take as long, with a save whether or not this one saved */
  r->end_s = el__mono_s() - t_eval + (best ? 0 : r->save_s);
  if (r->pl) el__plan_set_reserve(r->pl, r->end_s);
  return EL_OK;
}

/* The outcome into *res and eval.json, then the curves once more (after
 * the final save). */
static int finish(ft_run *r, el__ft_result *res, el_error *err) {
  el__ft_run_summary sum = {r->best_epoch, &r->best_m, r->epochs, n_examples(r->t, &r->tr), r->step,
                            steps_per_epoch(r), el__mono_s() - r->wall0, now_cpu() - r->cpu0,
                            r->train_s, r->mdir};
  *res = (el__ft_result){r->best_epoch, r->best_m, r->step, steps_per_epoch(r), r->train_s};
  if (r->rank) return EL_OK; /* rank 0 writes */
  int rc = el__ft_write_eval_json(r->o, &sum, err);
  int kept = rc ? 0 : el__ft_keep_generator(r->o->init, r->o->out, err);
  if (rc || kept < 0) return rc ? rc : kept;
  if (kept) el__progress_note(&r->prog, "finetune: kept %s/generator/ as %s/generator/", r->o->init,
                              r->o->out);
  char mj[1024];
  el__ft_metrics_json(r->t, &r->best_m, 1, mj, sizeof mj);
  write_curves(r->o, &r->ml, &r->prog, 1);
  el__progress_note(&r->prog, "finetune: best epoch %d, dev %s; wrote %s/eval.json, metrics.jsonl, loss.svg",
                    r->best_epoch, mj, r->o->out);
  return EL_OK;
}

static void ft_run_free(ft_run *r) {
  el__progress_done(&r->prog);
  el__mlog_close(&r->ml);
  cJSON_Delete(r->epochs);
  free(r->order);
  for (int i = 0; i < EL_MAX_REPLICAS; i++) {
    ft_copy *c = &r->copy[i];
    free(c->lens);
    free(c->bids);
    free(c->btypes);
    free(c->dout);
    el__tmodel_free(c->m);
  }
  el__replicas_free(&r->reps);
  el__weight_avg_free(&r->avg);
  el__params_free(&r->p);
  el__config_free(&r->cfg);
  el__ft_data_free(&r->dtr);
  el__ft_data_free(&r->ddv);
  el__ft_examples_free(&r->tr);
  el__ft_examples_free(&r->dv);
  el__dict_free(r->shape.dict);
  el__ged_readers_close_ngram(&r->shape.ngram);
  el_model_free(r->src);
}

int el__ft_run(const el__ft_opts *o, FILE *log, el__ft_result *res, el_error *err) {
  el_set_threads((int)o->threads); /* 0: the CPU quota */
  int rc = el__dist_rank() ? EL_OK : check_out(o->out, o->overwrite, err);
  if (rc) return rc;
  ft_run *r = calloc(1, sizeof *r);
  if (!r) return el_error_set(err, EL_ENOMEM, "finetune: out of memory");
  r->rank = el__dist_rank();
  r->ranks = el__dist_size();
  r->accumulate = o->accumulate > 0 ? (int)o->accumulate : 1;
  r->o = o;
  r->t = o->task;
  r->log = log;
  r->wall0 = el__mono_s();
  r->cpu0 = now_cpu();
  el__ft_resolve_model_dir(o->init, r->mdir, sizeof r->mdir);
  snprintf(r->vocab, sizeof r->vocab, "%s/vocab.txt", r->mdir);
  r->epochs = cJSON_CreateArray();
  el__mlog_open_memory(&r->ml);
  el__progress_init(&r->prog, log, 0);
  rc = r->epochs ? EL_OK : el_error_set(err, EL_ENOMEM, "finetune: out of memory");
  if (!rc) rc = load_inputs(r, err);
  if (!rc) rc = build_model(r, err);
  if (!rc) rc = time_save(r, err);
  if (!rc) start_schedule(r);
  if (!rc) rc = start_average(r, err);
  const int precision = el__precision_train_begin();
  for (long ep = 1; !rc && ep <= o->epochs; ep++) {
    double t_ep = el__mono_s(), loss_sum = 0;
    long n_loss = 0;
    rc = train_epoch(r, ep, &loss_sum, &n_loss, err);
    if (!rc) rc = end_epoch(r, ep, t_ep, loss_sum, n_loss, err);
    if (r->pl && r->plan_over) break;
  }
  el__precision_restore(precision);
  if (!rc) rc = finish(r, res, err);
  ft_run_free(r);
  free(r);
  return rc;
}
