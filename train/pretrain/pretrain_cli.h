/* electra-train pretrain's options: the values a command line gives
 * (el__pt_args) and the one option table over them, which parses the
 * command line, prints --help and the command line a caller's values stand
 * for (recipe), and gives the ranges the settings saved for --resume are
 * checked against (pretrain_opts.c). train/cmd/cmd_pretrain.c turns them
 * into a run's el__pt_opts (the preset's defaults, or a saved run's
 * settings, for what was not given). */
#ifndef EL_TRAIN_PRETRAIN_CLI_H
#define EL_TRAIN_PRETRAIN_CLI_H

#include "el_cli.h"

/* Every number is -1 and every string NULL when not given (each option's
 * range starts at 0 or above), so the preset or the saved run decides. */
typedef struct el__pt_args {
  el_strlist inputs;
  const char *vocab, *out, *cache, *preset, *objective, *bias_init, *disc_special;
  const char *position;   /* --position-embedding absolute|relative_key */
  const char *precision;  /* --precision auto|fp32|bf16 (precision.h) */
  const char *corruption; /* --corruption none|learner[:RATE] */
  long accumulate, max_steps, batch, seq_len, warmup, seed, save_every, threads, log_every,
      val_every, val_examples;
  double time_limit, lr, wd, gen_size, disc_weight, mask_prob, val_fraction;
  int resume, tie_generator; /* flags: 0 = not given */
} el__pt_args;

enum { EL_PT_N_OPTS = 31 };

/* Nothing given. */
void el__pt_args_init(el__pt_args *a);
/* The option table over a (--help prints it in this order). */
void el__pt_cli_table(el__pt_args *a, el_opt t[EL_PT_N_OPTS]);

#endif
