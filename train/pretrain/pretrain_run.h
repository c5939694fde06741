/* One pretraining run: setup (pretrain_setup.c), one optimizer step
 * (pretrain_step.c) and the training loop with logging, validation and
 * checkpoints (pretrain_loop.c). cmd_pretrain.c
 * parses the command line and reconciles a resume's settings, then calls
 * el__pretrain_main.
 *
 * Determinism: every random draw of step t comes from streams split off the
 * run's base RNG with tags derived from t (masking: 2t+1, dropout and
 * generator samples: 2t+2), each sequence's draws from those streams keyed
 * by its index in the global batch (masking.h, tmodel.h, objective.h); the
 * data order from (seed, epoch), the cache from a fixed builder seed. So the
 * state after step t is a function of (settings, data, thread count, and
 * through the order of float sums the ranks x --accumulate split), and a
 * resume from a state saved at step t continues exactly as the
 * uninterrupted run would have with the same split; with another split it
 * continues equivalently (the same draws and arithmetic up to the order of
 * float sums).
 *
 * Data parallelism (dist.h): the global batch of --batch-size sequences is
 * split into ranks x accumulate micro-batches of batch/(ranks x accumulate)
 * sequences; rank r computes sequences [r B/R, (r+1) B/R) in `accumulate`
 * micro-batches, the losses divided by the global batch's counts, the ranks'
 * gradient sums are added (one MPI_Allreduce of the flat gradient block) and
 * every rank takes the same AdamW step. Rank 0 alone validates and writes
 * checkpoints, state, metrics.jsonl, loss.svg and the progress display.
 * Inside a rank, with several threads, the share is split further over
 * model copies, one per thread (replicas.h): copy i computes `accumulate`
 * micro-batches of the share's i-th part. */
#ifndef EL_TRAIN_PRETRAIN_RUN_H
#define EL_TRAIN_PRETRAIN_RUN_H

#include <stdint.h>
#include "data_loader.h"
#include "electra/electra.h"
#include "learner_ids.h"
#include "masking.h"
#include "metrics_log.h"
#include "objective.h"
#include "optim.h"
#include "params.h"
#include "pretrain_opts.h"
#include "progress.h"
#include "replicas.h"
#include "rng.h"
#include "state.h"
#include "tmodel.h"

/* Seed of the example builder: fixed, so one cache serves every --seed. */
#define EL_PT_BUILD_SEED 20200323ULL

typedef struct el__pt_run {
  el__pt_opts *o;
  int resume;
  int rank, ranks, accumulate; /* this process, the job's size, micro-batches per copy */
  int copies;                  /* model copies in this process, one per thread (replicas.h) */
  int micro;                   /* sequences per micro-batch: batch / (ranks x copies x accumulate) */
  char run_dir[4096], state_dir[4200], cache_path[4200];
  /* vocabulary */
  el_tokenizer *tok;
  int vocab_size, lower_case;
  uint64_t vocab_hash;
  /* data */
  el__dataset data;
  /* model */
  el__params p;
  el__replicas reps;
  /* each copy's models: ELECTRA objective, or MLM objective; copy 0's also validate */
  el__electra *electra[EL_MAX_REPLICAS];
  el__tmodel *mlm[EL_MAX_REPLICAS];
  el__adamw adam;
  el__mask_cfg mc;
  el__electra_opts eo;
  /* progress of the run */
  el__rng base;
  int64_t step;
  uint64_t tokens_seen;
  double train_seconds;
  int64_t last_val_step; /* step of the last validation, -1 = none yet */
  double last_auc;       /* the last validation's discriminator AUC (NaN: none yet) */
  /* per-step buffers */
  int *pos, *targets, *corrupt;
  uint8_t *use_mask;
  /* --corruption learner: the id tables (NULL = none) and the corrupted batch */
  el__lids *lids;
  el__lids_batch lb;
  /* output */
  el__mlog mlog;
  el__progress prog;
} el__pt_run;

/* Setup (pretrain_setup.c). Each returns EL_OK or fills err. */
int el__pt_setup_vocab(el__pt_run *r, uint64_t expect_hash, el_error *err);
int el__pt_setup_data(el__pt_run *r, const el__state *resume_state, el_error *err);
int el__pt_setup_model(el__pt_run *r, el__state *resume_state, el_error *err);
void el__pt_run_free(el__pt_run *r);
/* Removes temporary files of killed saves (NAME.tmp-PID of a dead PID) from
 * RUN, RUN/state and RUN/cache; returns how many. */
int el__pt_clean_stale(const el__pt_run *r);

/* The statistics of one step (pretrain_step.c), summed over its
 * micro-batches and the ranks: losses (each micro-batch's share of the
 * global batch's mean), counts; FAILED > 0 when a rank met a non-finite
 * loss. */
enum { EL_PT_ST_LOSS, EL_PT_ST_GEN_LOSS, EL_PT_ST_DISC_LOSS, EL_PT_ST_GEN_CORRECT,
       EL_PT_ST_DISC_CORRECT, EL_PT_ST_N_SEL, EL_PT_ST_N_SCORED, EL_PT_ST_N_REPLACED,
       EL_PT_ST_N_TOK, EL_PT_ST_FAILED, EL_PT_ST_COUNT };

/* One optimizer step on the next global batch at learning rate lr
 * (pretrain_step.c): st[EL_PT_ST_COUNT] its statistics, *grad_norm the
 * gradient's norm before clipping. Advances r->step and the data
 * position on every rank. Returns EL_OK, EL_EVALUE for a skipped
 * (non-finite) step, or an error (with several ranks the caller must end
 * them all: the others wait in a collective). */
int el__pt_step(el__pt_run *r, el__packed *pk, double lr, double *st, double *grad_norm,
                el_error *err);

/* Runs o (resume: continue RUN/state) to the end; returns the exit code and
 * prints every message itself. */
int el__pretrain_main(el__pt_opts *o, int resume, el__state *resume_state, int accumulate);

#endif
