/* The pretraining loop: steps, logging, validation, checkpoints, signals
 * and the time limit (pretrain_run.h). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "trainer_api.h"
#include "el_cli.h"
#include "dist.h"
#include "precision.h"
#include "pretrain_eval.h"
#include "pretrain_run.h"
#include "schedule.h"
#include "progress.h"
#include "save_trial.h"

#define PROG "electra-train pretrain"

static volatile sig_atomic_t g_stop = 0;

static void on_signal(int sig) {
  g_stop = sig;
  signal(sig, SIG_DFL); /* a second Ctrl-C ends the process at once */
}

/* Sums of the per-step values since the last log line. */
typedef struct acc {
  int steps;
  double loss, gen_loss, disc_loss, grad_norm;
  long gen_correct, n_selected, disc_correct, n_tokens, n_scored, tokens;
  long n_replaced; /* discriminator labels 1 (generator samples + learner errors) */
  double t0; /* wall time at the interval start */
} acc;

/* The checkpoints and the resume state under run_dir (state in state_dir). */
static int save_to(el__pt_run *r, const char *run_dir, const char *state_dir, el_error *err) {
  char dir[4500];
  int rc;
  if (r->o->mlm) {
    snprintf(dir, sizeof dir, "%s/mlm", run_dir);
    rc = el__checkpoint_save(dir, &r->p.cfg[0], &r->p.w[0], r->o->vocab, err);
  } else {
    snprintf(dir, sizeof dir, "%s/discriminator", run_dir);
    rc = el__checkpoint_save(dir, &r->p.cfg[0], &r->p.w[0], r->o->vocab, err);
    if (!rc) {
      snprintf(dir, sizeof dir, "%s/generator", run_dir);
      rc = el__checkpoint_save(dir, &r->p.cfg[1], &r->p.w[1], r->o->vocab, err);
    }
  }
  if (rc) return rc;
  el__state s;
  memset(&s, 0, sizeof s);
  s.step = r->step;
  s.data_epoch = r->data.pos.epoch;
  s.data_offset = r->data.pos.offset;
  s.rng = r->base;
  s.vocab_hash = r->vocab_hash;
  s.vocab_size = (uint32_t)r->vocab_size;
  s.data_hash = r->data.cache.h.content_hash;
  s.tokens_seen = r->tokens_seen;
  s.train_seconds = r->train_seconds;
  s.threads = el_get_threads();
  s.settings_json = el__pt_opts_to_json(r->o);
  if (!s.settings_json) return el_error_set(err, EL_ENOMEM, "out of memory");
  rc = el__state_save(state_dir, &s, &r->p, err);
  free(s.settings_json);
  return rc;
}

/* Rank 0 alone writes (checkpoints, state, metrics, loss.svg); every rank
 * holds the same weights. */
static int save_all(el__pt_run *r, el_error *err) {
  return r->rank ? EL_OK : save_to(r, r->run_dir, r->state_dir, err);
}

/* A whole save into the trial directory dir (save_trial.h). */
static int save_trial_fn(void *ctx, const char *dir, el_error *err) {
  char state[4500];
  snprintf(state, sizeof state, "%s/state", dir);
  return save_to(ctx, dir, state, err);
}

static void plot(el__pt_run *r) {
  char path[4300], title[256];
  if (r->rank) return;
  snprintf(path, sizeof path, "%s/loss.svg", r->run_dir);
  snprintf(title, sizeof title, "%s pretraining, preset %s, batch %ld x %ld",
           r->o->mlm ? "MLM" : "ELECTRA", r->o->preset, r->o->batch_size, r->o->seq_len);
  el_error e = {0};
  if (el__mlog_plot(&r->mlog, path, title, r->o->mlm, &e))
    el__progress_note(&r->prog, "warning: %s", e.msg);
}

/* On rank 0 (the weights are the same everywhere), in batches of one
 * micro-batch, which its models hold. */
static int validate(el__pt_run *r, el_error *err) {
  if (r->rank || !r->data.n_val || r->last_val_step == r->step) return EL_OK;
  r->last_val_step = r->step;
  double t0 = el__mono_s();
  el__val_result v;
  int rc = r->o->mlm ? el__validate_mlm(r->mlm[0], &r->data, &r->mc, r->micro,
                                        (uint64_t)r->o->seed, &v, err)
                     : el__validate_electra(r->electra[0], &r->data, &r->mc, &r->eo, r->micro,
                                            (uint64_t)r->o->seed, &v, err);
  if (rc) return rc;
  el__mrow row;
  memset(&row, 0, sizeof row);
  row.val = 1;
  row.step = r->step;
  el__mrow_set(&row, EL_MF_TIME, r->train_seconds);
  el__mrow_set(&row, EL_MF_TOKENS, (double)r->tokens_seen);
  el__mrow_set(&row, EL_MF_GEN_LOSS, v.gen_loss);
  el__mrow_set(&row, EL_MF_GEN_ACC, v.gen_acc);
  el__mrow_set(&row, EL_MF_UNIGRAM_ACC, v.unigram_acc);
  if (!r->o->mlm) {
    el__mrow_set(&row, EL_MF_DISC_LOSS, v.disc_loss);
    el__mrow_set(&row, EL_MF_DISC_ACC, v.disc_acc);
    el__mrow_set(&row, EL_MF_DISC_AUC, v.disc_auc);
    el__mrow_set(&row, EL_MF_REPLACED_FRAC, v.replaced_frac);
    el__mrow_set(&row, EL_MF_DISC_BASE_LOSS, v.disc_base_loss);
    r->last_auc = v.disc_auc;
  }
  el_error e = {0};
  if (el__mlog_add(&r->mlog, &row, &e) && r->mlog.write_failed == 1) {
    el__progress_note(&r->prog, "warning: %s", e.msg);
    r->mlog.write_failed = 2;
  }
  if (r->o->mlm)
    el__progress_note(&r->prog,
                      "validation at step %lld (%ld sequences): MLM loss %.4f, accuracy %.2f%% "
                      "(unigram baseline %.2f%%) [%.1fs]",
                      (long long)r->step, v.n_seqs, v.gen_loss, 100 * v.gen_acc,
                      100 * v.unigram_acc, el__mono_s() - t0);
  else
    el__progress_note(&r->prog,
                      "validation at step %lld (%ld sequences): generator loss %.4f, accuracy "
                      "%.2f%% (unigram baseline %.2f%%); discriminator loss %.4f (base rate %.4f), "
                      "accuracy %.2f%%, AUC %.4f (%.1f%% of tokens replaced) [%.1fs]",
                      (long long)r->step, v.n_seqs, v.gen_loss, 100 * v.gen_acc,
                      100 * v.unigram_acc, v.disc_loss, v.disc_base_loss, 100 * v.disc_acc,
                      v.disc_auc, 100 * v.replaced_frac, el__mono_s() - t0);
  plot(r);
  return EL_OK;
}

/* One optimizer step (pretrain_step.c) and its statistics into a. */
static int train_step(el__pt_run *r, el__packed *pk, acc *a, double lr, el_error *err) {
  double st[EL_PT_ST_COUNT];
  double grad_norm = 0;
  int rc = el__pt_step(r, pk, lr, st, &grad_norm, err);
  if (rc) return rc;
  a->steps++;
  a->loss += st[EL_PT_ST_LOSS];
  a->gen_loss += st[EL_PT_ST_GEN_LOSS];
  a->disc_loss += r->o->mlm ? NAN : st[EL_PT_ST_DISC_LOSS];
  a->grad_norm += grad_norm;
  a->gen_correct += (long)st[EL_PT_ST_GEN_CORRECT];
  a->n_selected += (long)st[EL_PT_ST_N_SEL];
  a->disc_correct += (long)st[EL_PT_ST_DISC_CORRECT];
  a->n_tokens += (long)st[EL_PT_ST_N_TOK];
  a->n_scored += r->o->mlm ? (long)st[EL_PT_ST_N_TOK] : (long)st[EL_PT_ST_N_SCORED];
  a->n_replaced += (long)st[EL_PT_ST_N_REPLACED];
  a->tokens += (long)st[EL_PT_ST_N_TOK];
  return EL_OK;
}

/* planned: the time plan's total (0 = no plan, no field) */
static void log_row(el__pt_run *r, acc *a, double lr, long planned) {
  if (!a->steps || r->rank) return;
  double dt = el__mono_s() - a->t0;
  el__mrow row;
  memset(&row, 0, sizeof row);
  row.step = r->step;
  el__mrow_set(&row, EL_MF_TIME, r->train_seconds);
  el__mrow_set(&row, EL_MF_TOKENS, (double)r->tokens_seen);
  el__mrow_set(&row, EL_MF_LR, lr);
  el__mrow_set(&row, EL_MF_LOSS, a->loss / a->steps);
  el__mrow_set(&row, EL_MF_GEN_LOSS, a->gen_loss / a->steps);
  el__mrow_set(&row, EL_MF_GEN_ACC, a->n_selected ? (double)a->gen_correct / a->n_selected : NAN);
  if (!r->o->mlm) {
    el__mrow_set(&row, EL_MF_DISC_LOSS, a->disc_loss / a->steps);
    el__mrow_set(&row, EL_MF_DISC_ACC, a->n_scored ? (double)a->disc_correct / a->n_scored : NAN);
    if (r->lids && a->n_scored) /* train rows without --corruption stay as they were */
      el__mrow_set(&row, EL_MF_REPLACED_FRAC, (double)a->n_replaced / a->n_scored);
    if (a->n_scored) /* what the constant answer would score on these tokens */
      el__mrow_set(&row, EL_MF_DISC_BASE_LOSS,
                   el__base_rate_loss((double)a->n_replaced / a->n_scored));
  }
  el__mrow_set(&row, EL_MF_TOKENS_PER_S, dt > 0 ? a->tokens / dt : NAN);
  el__mrow_set(&row, EL_MF_GRAD_NORM, a->grad_norm / a->steps);
  if (planned > 0) el__mrow_set(&row, EL_MF_PLANNED_STEPS, (double)planned);
  el_error e = {0};
  if (el__mlog_add(&r->mlog, &row, &e) && r->mlog.write_failed == 1) {
    el__progress_note(&r->prog, "warning: %s", e.msg);
    r->mlog.write_failed = 2;
  }
}

/* After each step of a time-planned session: re-plan, show the total, keep
 * it for the checkpoint's settings, and say once what was planned. reserve:
 * the seconds the session's end needs after its last step. */
static void plan_update(el__pt_run *r, el__plan *pl, double step_s, double elapsed,
                        double reserve) {
  int was = pl->measured;
  el__plan_set_reserve(pl, reserve);
  el__plan_step(pl, step_s, elapsed);
  if (!pl->measured) return;
  el__progress_set_total(&r->prog, pl->total, 1);
  r->o->planned_steps = pl->total;
  if (!was) {
    char lim[32];
    el__progress_note(&r->prog,
                      "time plan: %.3fs per step measured -> %ld steps in %s (warmup %ld), "
                      "%.1fs kept for the final validation and save; re-planned as the step "
                      "time changes",
                      el__plan_cost(pl), pl->total,
                      el__format_duration(pl->budget, lim, sizeof lim),
                      el__warmup_capped(pl->total, r->o->warmup_steps, r->o->warmup_auto),
                      pl->reserve);
  }
}

/* Says what failed; with several ranks it names this one and ends them all
 * (the others would wait for it in the next collective forever). */
static int fail(el__pt_run *r, const char *what, const el_error *err) {
  el__progress_done(&r->prog);
  if (r->ranks > 1) {
    fprintf(stderr, PROG " (rank %d of %d): %s%s; stopping every rank\n", r->rank, r->ranks, what,
            err->msg);
    el__dist_abort(1);
  }
  fprintf(stderr, PROG ": %s%s\n", what, err->msg);
  return 1;
}

/* Prints what is trained on what: the model's sizes, the data, the batch and
 * the step the session starts at. */
static void describe_run(const el__pt_run *r, int resume, const el__state *st) {
  const el__pt_opts *o = r->o;
  if (r->rank) return;
  size_t nd = 0, ng = 0;
  for (int i = 0; i < r->p.n_tensors; i++) {
    if (r->p.tensors[i].model == 0) nd += r->p.tensors[i].count;
    else ng += r->p.tensors[i].count;
  }
  const el_config *c = &r->p.cfg[0];
  fprintf(stderr,
          "%s %s: hidden %d, %d layer%s, %d head%s, FFN %d, embedding %d, vocabulary %d%s; "
          "%.2fM parameters%s",
          o->mlm ? "MLM model" : "discriminator", o->preset, c->hidden_size, c->num_layers,
          el__s(c->num_layers), c->num_heads, el__s(c->num_heads), c->intermediate_size,
          c->embedding_size, c->vocab_size,
          r->lower_case ? " (lower-cased)" : " (cased)", nd / 1e6, o->mlm ? "\n" : "");
  if (!o->mlm) {
    const el_config *g = &r->p.cfg[1];
    fprintf(stderr, " (incl. shared embeddings); generator: hidden %d, %d head%s, FFN %d, %.2fM own\n",
            g->hidden_size, g->num_heads, el__s(g->num_heads), g->intermediate_size, ng / 1e6);
  }
  char of[200], lim[32], cap[48] = "";
  if (o->max_steps < EL__STEPS_UNBOUNDED)
    snprintf(cap, sizeof cap, ", at most step %ld", o->max_steps);
  if (o->time_limit <= 0) snprintf(of, sizeof of, " of %ld", o->max_steps);
  else
    snprintf(of, sizeof of, "; LR schedule planned for the time limit %s%s",
             el__format_duration(o->time_limit, lim, sizeof lim), cap);
  fprintf(stderr,
          "data: %llu examples (%llu train, %llu held out), %llu tokens; batch %ld x %ld, "
          "%d thread%s, products in %s, %s step %lld%s\n",
          (unsigned long long)r->data.cache.h.n_examples, (unsigned long long)r->data.n_train,
          (unsigned long long)r->data.n_val, (unsigned long long)r->data.cache.h.n_tokens,
          o->batch_size, o->seq_len, el_get_threads(), el__s(el_get_threads()), el__precision_now(),
          resume ? "resuming after" : "starting at",
          (long long)r->step, of);
  if (r->ranks > 1 || r->accumulate > 1 || r->copies > 1)
    fprintf(stderr,
            "data parallel: %d rank(s) x %d model cop%s x %d accumulation step(s) x %d sequences = "
            "global batch %ld (%s); gradients summed with MPI_Allreduce: %.1f MB per step per "
            "rank\n",
            r->ranks, r->copies, r->copies == 1 ? "y" : "ies", r->accumulate, r->micro,
            o->batch_size, el__dist_library(), (double)r->p.numel * sizeof(float) / 1e6);
  if (resume && st->threads != el_get_threads())
    fprintf(stderr,
            "note: the run was saved with %d thread%s and continues with %d: results are "
            "deterministic per thread count, so they will differ slightly from an "
            "uninterrupted run\n",
            st->threads, el__s(st->threads), el_get_threads());
}

/* Everything of the run before its first step: the output directory (and
 * the temporaries an interrupted save left in it), vocabulary, data, model
 * and metrics.jsonl. *early: the failure came before anything was set up
 * (the output directory), so there is no progress line to close. */
static int run_open(el__pt_run *r, int resume, el__state *st, int *early, el_error *err) {
  *early = 1;
  if (r->rank == 0) {
    if (el__prepare_output(r->run_dir, 1, err)) return 1;
    *early = 0;
    int stale = el__pt_clean_stale(r);
    if (stale)
      fprintf(stderr, "removed %d temporary file(s) left by an interrupted save in %s\n", stale,
              r->run_dir);
  } else if (el__dist_barrier(err)) { /* rank 0 builds the token cache first */
    return 1;
  }
  *early = 0;
  if (el__pt_setup_vocab(r, resume ? st->vocab_hash : 0, err) ||
      el__pt_setup_data(r, resume ? st : NULL, err))
    return 1;
  if (r->rank == 0 && el__dist_barrier(err)) return 1;
  if (el__pt_setup_model(r, resume ? st : NULL, err)) return 1;
  if (r->rank) return 0; /* rank 0 alone writes metrics.jsonl */
  char mpath[4300];
  snprintf(mpath, sizeof mpath, "%.4000s/metrics.jsonl", r->run_dir);
  return el__mlog_open(&r->mlog, mpath, resume ? r->step : -1, err) != 0;
}

/* The state of one session's loop (a run, or the resumed part of one). */
typedef struct session {
  double t0;               /* --time-limit counts from here: the session's start, setup included */
  double loop_t0, last_plot, ema_step;
  double val_s;            /* the last validation's seconds (NAN: none yet in this session) */
  double save_s;           /* the last save's seconds, the trial save's before the first */
  el__plan plan, *pl;      /* --time-limit's schedule plan, or NULL */
  el__packed pk;           /* the batch buffer */
  acc a;                   /* sums since the last log line */
  int bad_steps;           /* non-finite steps in a row */
  double lr, last_lr;
  el__lr_ramp ramp; /* no jump when the time plan replaces the provisional total */
  long end;                /* the step the schedule ends at */
  long steps_run;          /* this session's steps and their seconds */
  double steps_s;
  const char *why_stop;
} session;

/* A validation takes about this share of a training step's time per batch
 * of held-out sequences (a forward pass of both models, no backward): 0.3
 * measured on `small` with 9 and with 372 held-out sequences, more with a
 * handful (fixed costs); rounded up, so a resumed session errs on the early
 * side until its first validation is timed. */
#define VAL_SHARE_OF_STEP 0.5

/* Seconds a time-planned session's end needs after its last step: the final
 * validation (as long as the last one; before any in this session, as
 * VAL_SHARE_OF_STEP of a step per batch of held-out sequences, the step
 * being step_s until the plan has one) and the final save (as long as the
 * last one or the trial save). */
static double end_reserve(const el__pt_run *r, const session *s, double step_s) {
  double val = s->val_s;
  if (isnan(val)) {
    double step = s->pl && s->pl->n ? el__plan_cost(s->pl) : step_s;
    val = r->data.n_val && isfinite(step)
              ? VAL_SHARE_OF_STEP * step * (double)r->data.n_val / (double)r->o->batch_size
              : 0;
  }
  return val + s->save_s;
}

/* Before the first step: a new run's validation at step 0 and, in a
 * time-planned session, the trial save, both timed for the plan's reserve. */
static int session_start(el__pt_run *r, session *s, const char **what, el_error *err) {
  s->val_s = NAN;
  if (!r->resume && r->step == 0) {
    double tv = el__mono_s();
    if (validate(r, err)) {
      *what = "validation failed: ";
      return 1;
    }
    s->val_s = el__mono_s() - tv;
  }
  if (r->o->time_limit <= 0 || r->rank) return EL_OK;
  char prefix[4300];
  snprintf(prefix, sizeof prefix, "%s/save-trial", r->run_dir);
  if (el__save_trial(prefix, save_trial_fn, r, &s->save_s, err)) {
    *what = "could not save the checkpoint (a trial save before training): ";
    return 1;
  }
  return EL_OK;
}

/* After the first validation: the loop's clocks and, with --time-limit, the
 * plan whose total drives the LR schedule; until it has measured, the saved
 * plan's total (a resumed time-planned run) or --max-steps' holds. */
static void session_plan(el__pt_run *r, session *s) {
  el__pt_opts *o = r->o;
  s->loop_t0 = s->last_plot = el__mono_s();
  s->ema_step = NAN;
  if (o->time_limit > 0) {
    s->pl = &s->plan;
    el__plan_init(s->pl, o->time_limit - (s->loop_t0 - s->t0), (long)r->step,
                  o->planned_steps > 0 ? o->planned_steps : o->max_steps, o->max_steps);
    el__plan_set_reserve(s->pl, end_reserve(r, s, NAN));
    el__progress_set_total(&r->prog, 0, 1);
  }
  o->planned_steps = 0; /* set again once this session has a plan */
  s->a.t0 = el__mono_s();
  s->why_stop = s->pl ? "finished the time-planned schedule" : "finished";
}

/* 1 when the loop ends before its next step (schedule done, a signal, the
 * time limit), with s->why_stop saying why. */
static int session_over_here(const el__pt_run *r, session *s) {
  const el__pt_opts *o = r->o;
  if (s->pl ? el__plan_done(s->pl) : r->step >= o->max_steps) return 1;
  if (g_stop) {
    s->why_stop = g_stop == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)";
    return 1;
  }
  /* the plan's safety net: no step once only the end's reserve is left */
  if (o->time_limit > 0 && el__mono_s() - s->t0 + s->pl->reserve >= o->time_limit) {
    s->why_stop = "time limit reached";
    return 1;
  }
  return 0;
}

/* Rank 0 decides for every rank whether the loop ends, and the step's
 * learning rate (a time plan measures rank 0's clock; signals reach rank 0
 * through mpirun/srun). */
static const char *const STOP_WHY[] = {"finished", "finished the time-planned schedule",
                                       "interrupted (SIGINT)", "terminated (SIGTERM)",
                                       "time limit reached"};

static int session_over(const el__pt_run *r, session *s, el_error *err) {
  double ctl[2] = {0, 0};
  if (r->rank == 0 && (ctl[0] = session_over_here(r, s)))
    for (int i = 0; i < 5; i++)
      if (!strcmp(s->why_stop, STOP_WHY[i])) ctl[1] = i;
  if (r->ranks == 1) return (int)ctl[0];
  if (el__dist_bcast_f64(ctl, 2, err)) return -1;
  if (ctl[0]) s->why_stop = STOP_WHY[(int)ctl[1]];
  return (int)ctl[0];
}

/* One timed optimizer step at the schedule's learning rate; re-plans a
 * time-planned session. A non-finite step is skipped with a warning, ten in
 * a row are an error. */
static int session_step(el__pt_run *r, session *s, const char **what, el_error *err) {
  el__pt_opts *o = r->o;
  long total = s->pl ? s->pl->total : o->max_steps;
  s->lr = el__lr_ramped(&s->ramp, o->lr, r->step, total,
                        s->pl ? el__warmup_capped(total, o->warmup_steps, o->warmup_auto)
                              : o->warmup_steps);
  double t0 = el__mono_s();
  int rc = el__dist_bcast_f64(&s->lr, 1, err);
  if (rc) {
    *what = "";
    return rc;
  }
  rc = train_step(r, &s->pk, &s->a, s->lr, err);
  double dt = el__mono_s() - t0;
  r->train_seconds += dt;
  s->steps_run++;
  s->steps_s += dt;
  s->ema_step = isnan(s->ema_step) ? dt : 0.9 * s->ema_step + 0.1 * dt;
  if (s->pl) plan_update(r, s->pl, dt, el__mono_s() - s->loop_t0, end_reserve(r, s, dt));
  s->end = s->pl ? s->pl->total : o->max_steps;
  if (rc == EL_EVALUE) {
    el__progress_note(&r->prog, "warning: step %lld skipped: %s", (long long)r->step, err->msg);
    if (++s->bad_steps >= 10) {
      *what = "training diverged (10 non-finite steps in a row): ";
      return rc;
    }
    return EL_OK;
  }
  if (rc) return rc;
  s->bad_steps = 0;
  return EL_OK;
}

/* The progress line (on a terminal, every step) and, every --log-every
 * steps and at the schedule's end, the log line, a metrics.jsonl row and
 * (at most every 30 s) loss.svg. */
static void session_report(el__pt_run *r, session *s) {
  const el__pt_opts *o = r->o;
  acc *a = &s->a;
  double remain = s->pl ? el__plan_eta(s->pl) : (double)(o->max_steps - r->step) * s->ema_step;
  if (o->time_limit > 0) {
    double left = o->time_limit - (el__mono_s() - s->t0);
    if (left < remain) remain = left > 0 ? left : 0;
  }
  int log_now = r->step % o->log_every == 0 || r->step == s->end;
  if (!r->prog.tty && !log_now) return;
  el__progress_stats ps = {
      .step = r->step,
      .tokens_per_s = a->tokens / fmax(el__mono_s() - a->t0, 1e-9),
      .lr = s->lr,
      .eta_s = remain,
      .gen_loss = a->gen_loss / a->steps,
      .gen_acc = a->n_selected ? (double)a->gen_correct / a->n_selected : 0,
      .disc_loss = o->mlm ? NAN : a->disc_loss / a->steps,
      .disc_acc = o->mlm ? NAN : (double)a->disc_correct / a->n_scored,
      .disc_base_loss = o->mlm || !a->n_scored
                            ? NAN
                            : el__base_rate_loss((double)a->n_replaced / a->n_scored),
      .disc_auc = o->mlm ? NAN : r->last_auc};
  if (r->prog.tty) el__progress_update(&r->prog, &ps, 0);
  if (!log_now) return;
  el__progress_log(&r->prog, &ps);
  log_row(r, a, s->lr, o->planned_steps);
  memset(a, 0, sizeof *a);
  a->t0 = el__mono_s();
  if (el__mono_s() - s->last_plot > 30) {
    plot(r);
    s->last_plot = el__mono_s();
  }
}

/* Every --val-every and --save-every steps before the schedule's end: a
 * validation, a checkpoint; their durations are reserved at the end of a
 * time plan and kept out of the throughput. */
static int session_checkpoints(el__pt_run *r, session *s, const char **what, el_error *err) {
  const el__pt_opts *o = r->o;
  if (o->val_every > 0 && r->step % o->val_every == 0 && r->step < s->end) {
    double tv = el__mono_s();
    if (validate(r, err)) {
      *what = "validation failed: ";
      return 1;
    }
    s->a.t0 = el__mono_s(); /* validation time is not training throughput */
    s->val_s = el__mono_s() - tv;
    if (s->pl) el__plan_set_reserve(s->pl, end_reserve(r, s, NAN)); /* the final ones take as long */
  }
  if (o->save_every > 0 && r->step % o->save_every == 0 && r->step < s->end) {
    double ts = el__mono_s();
    if (save_all(r, err)) {
      *what = "could not save the checkpoint: ";
      return 1;
    }
    s->save_s = el__mono_s() - ts;
    if (s->pl) el__plan_set_reserve(s->pl, end_reserve(r, s, NAN));
    el__progress_note(&r->prog, "saved step %lld to %s (%.1fs)", (long long)r->step, r->run_dir,
                      el__mono_s() - ts);
    s->a.t0 += el__mono_s() - ts;
  }
  return EL_OK;
}

/* The end of a session: the last partial log row; a validation unless a
 * signal asked for a quick exit; the checkpoint, loss.svg and a summary. */
static int session_end(el__pt_run *r, session *s, const char **what, el_error *err) {
  if (s->a.steps) log_row(r, &s->a, s->last_lr, r->o->planned_steps);
  if (!g_stop && validate(r, err)) {
    *what = "validation failed: ";
    return 1;
  }
  double ts = el__mono_s();
  if (save_all(r, err)) {
    *what = "could not save the checkpoint: ";
    return 1;
  }
  plot(r);
  if (r->ranks > 1 && s->steps_run > 0) {
    double sum_s;
    uint64_t bytes;
    el__dist_stats(&sum_s, &bytes);
    /* rank 0's wait in MPI_Allreduce: the transfer plus any rank's lag */
    el__progress_note(&r->prog,
                      "gradient sums (MPI_Allreduce, rank 0): %.2fs of %.2fs of steps (%.1f%%), "
                      "%.2f MB per step per rank",
                      sum_s, s->steps_s, s->steps_s > 0 ? 100 * sum_s / s->steps_s : 0.0,
                      (double)bytes / 1e6 / (double)s->steps_run);
  }
  char took[128] = "", session_s[64] = "", d[3][32];
  if (r->o->time_limit > 0) { /* what the limit covers: the whole session, this save included */
    double w = el__mono_s() - s->t0;
    if (w < 100) snprintf(d[0], sizeof d[0], "%.1fs", w);
    else el__format_duration(w, d[0], sizeof d[0]);
    snprintf(took, sizeof took, " The session took %s of its %s limit.", d[0],
             el__format_duration(r->o->time_limit, d[1], sizeof d[1]));
  }
  if (r->resume)
    snprintf(session_s, sizeof session_s, " %s in this session,",
             el__format_duration(s->steps_s, d[2], sizeof d[2]));
  el__progress_note(&r->prog, "%s at step %lld; saved to %s (%.1fs). Trained%s %s in total.%s",
                    s->why_stop, (long long)r->step, r->run_dir, el__mono_s() - ts, session_s,
                    el__format_duration(r->train_seconds, (char[32]){0}, 32), took);
  return EL_OK;
}

/* The ranks x copies x accumulation split of the global batch: *micro
 * sequences per micro-batch, or 1 after saying why not. The copies (one per
 * thread, replicas.h) divide what ranks and accumulation leave. */
static int split_batch(el__pt_run *r, int accumulate) {
  r->rank = el__dist_rank();
  r->ranks = el__dist_size();
  r->accumulate = accumulate > 0 ? accumulate : 1;
  long parts = (long)r->ranks * r->accumulate;
  if (r->o->batch_size % parts) {
    if (r->rank == 0)
      fprintf(stderr,
              PROG ": --batch-size %ld (the global batch) must divide evenly into %d rank(s) x "
              "--accumulate %d = %ld micro-batches\n",
              r->o->batch_size, r->ranks, r->accumulate, parts);
    return 1;
  }
  r->micro = (int)(r->o->batch_size / parts);
  r->copies = el__replicas_count(r->micro);
  r->micro /= r->copies;
  return 0;
}

/* What a failed run made, so that it can take it away again: the run
 * directory when it did not exist, else its cache/ when that did not (a
 * token cache an earlier run built is kept). Nothing goes while a checkpoint
 * is there: --resume continues from it. */
typedef struct made_here {
  int dir, cache;
} made_here;

static made_here note_made(const el__pt_run *r) {
  char cache[4300];
  snprintf(cache, sizeof cache, "%s/cache", r->run_dir);
  return (made_here){access(r->run_dir, F_OK) != 0, access(cache, F_OK) != 0};
}

static void remove_made(const el__pt_run *r, made_here m) {
  if (r->rank || access(r->state_dir, F_OK) == 0) return;
  char cache[4300];
  snprintf(cache, sizeof cache, "%s/cache", r->run_dir);
  if (m.dir) el__remove_tree(r->run_dir);
  else if (m.cache) el__remove_tree(cache);
}

int el__pretrain_main(el__pt_opts *o, int resume, el__state *st, int accumulate) {
  el__pt_run run, *r = &run;
  memset(r, 0, sizeof *r);
  r->o = o;
  r->resume = resume;
  el_set_threads((int)o->threads);
  if (split_batch(r, accumulate)) return 1;
  r->last_val_step = -1;
  r->last_auc = NAN;
  snprintf(r->run_dir, sizeof r->run_dir, "%s", o->out);
  snprintf(r->state_dir, sizeof r->state_dir, "%s/state", o->out);
  /* the other ranks' progress lines would repeat rank 0's */
  FILE *quiet = r->rank ? fopen("/dev/null", "w") : NULL;
  el__progress_init(&r->prog, quiet ? quiet : stderr, o->max_steps);
  el_error err = {0};
  const char *what = ""; /* what failed, before err's message */
  int early = 0, code = 1, precision = -1; /* the products' precision before the run */
  session s;
  memset(&s, 0, sizeof s);
  s.t0 = el__mono_s();
  made_here made = note_made(r);
  if (run_open(r, resume, st, &early, &err)) {
    if (early && r->ranks == 1) {
      fprintf(stderr, PROG ": %s\n", err.msg);
      if (quiet) fclose(quiet);
      return 1;
    }
    goto out;
  }
  describe_run(r, resume, st);
  precision = el__precision_train_begin();
  g_stop = 0;
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  if (session_start(r, &s, &what, &err)) goto out;
  session_plan(r, &s);
  int over;
  while (!(over = session_over(r, &s, &err))) {
    if (session_step(r, &s, &what, &err)) goto out;
    session_report(r, &s);
    if (session_checkpoints(r, &s, &what, &err)) goto out;
    s.last_lr = s.lr;
  }
  if (over < 0) goto out;
  if (session_end(r, &s, &what, &err)) goto out;
  code = 0;
out:
  if (precision >= 0) el__precision_restore(precision);
  if (code) fail(r, what, &err);
  el__packed_free(&s.pk);
  if (code) remove_made(r, made); /* before el__pt_run_free clears r's paths */
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  el__progress_done(&r->prog);
  el__pt_run_free(r);
  if (quiet) fclose(quiet);
  return code;
}
