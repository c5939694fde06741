/* The electra-train subcommands. Each is parse(argv) -> its options struct,
 * then run(const options *), with one option table over the struct that
 * parses, prints --help and (el__cli_print_command against a table over the
 * defaults) the command line a caller's values stand for; el__cmd_* does
 * both for main.c (argv[0] is the subcommand name) and returns the process
 * exit status, as do the run functions. A parse function fills its struct
 * with the defaults first and returns EL_CLI_OK, EL_CLI_HELP or
 * EL_CLI_ERROR (el_cli.h); strings point into argv. */
#ifndef EL_TRAIN_COMMANDS_H
#define EL_TRAIN_COMMANDS_H

#include "el_cli.h"
#include "finetune_run.h"
#include "pretrain_cli.h"

int el__cmd_vocab(int argc, char **argv);    /* train/cmd/cmd_vocab.c */
int el__cmd_pretrain(int argc, char **argv); /* train/cmd/cmd_pretrain.c */
int el__cmd_finetune(int argc, char **argv); /* train/cmd/cmd_finetune.c */
int el__cmd_eval(int argc, char **argv);     /* train/cmd/cmd_eval.c */
int el__cmd_recipe(int argc, char **argv);   /* train/cmd/cmd_recipe.c */
int el__cmd_corrupt(int argc, char **argv);  /* train/cmd/cmd_corrupt.c */
int el__cmd_check(int argc, char **argv);    /* train/cmd/cmd_check.c */

/* pretrain: the options are train/pretrain/pretrain_cli.h's. */
int el__pretrain_parse(int argc, char **argv, el__pt_args *a);
int el__pretrain_run(const el__pt_args *a);

/* vocab */
typedef struct el__vocab_args {
  el_strlist inputs;
  long vocab_size, min_frequency; /* vocab_size 0: not given (required) */
  const char *out;
  const char *word_counts; /* also write the word counts here, or NULL */
  int no_lower_case, british;
} el__vocab_args;
enum { EL_VOCAB_N_OPTS = 7 };
void el__vocab_args_init(el__vocab_args *a);
void el__vocab_table(el__vocab_args *a, el_opt t[EL_VOCAB_N_OPTS]);
int el__vocab_parse(int argc, char **argv, el__vocab_args *a);
int el__vocab_run(const el__vocab_args *a);

/* corrupt */
typedef struct el__corrupt_args {
  const char *input, *family, *wordnet, *mix;
  double rate;
  long seed, max;
} el__corrupt_args;
enum { EL_CORRUPT_N_OPTS = 7 };
void el__corrupt_args_init(el__corrupt_args *a);
void el__corrupt_table(el__corrupt_args *a, el_opt t[EL_CORRUPT_N_OPTS]);
int el__corrupt_parse(int argc, char **argv, el__corrupt_args *a);
int el__corrupt_run(const el__corrupt_args *a);

/* finetune: the command line's values, before they become el__ft_opts.
 * epochs, max_len, lr and decay are 0 when not given (their ranges start
 * above 0): the task's and the encoder width's defaults then apply. */
typedef struct el__ft_args {
  const char *task, *train, *dev, *init, *out, *tcol, *pcol, *lcol, *labels, *rule;
  long epochs, batch, max_len, seed, stride, max_query, threads, max_train, max_dev, log_every;
  long accumulate;
  double lr, decay, warmup, wd, time_limit;
  int random_init, overwrite, dictionary, ngram;
  el_strlist synth;
  long synth_n, synth_dev;
  double synth_rate, synth_coverage, synth_word_share, synth_third, synth_pairs, synth_joined;
  double joined, average;
  const char *synth_mix;
  const char *precision; /* --precision auto|fp32|bf16 (precision.h) */
} el__ft_args;
enum { EL_FT_N_OPTS = 43 };
void el__ft_args_init(el__ft_args *a);
void el__ft_table(el__ft_args *a, el_opt t[EL_FT_N_OPTS]);
int el__finetune_parse(int argc, char **argv, el__ft_args *a);
/* The run's outcome (best dev metrics, step time) into *res. */
int el__finetune_run(const el__ft_args *a, el__ft_result *res);

/* eval: max_len 0 when not given (the task's then applies). */
typedef struct el__eval_args {
  const char *task, *data, *model, *outp, *tcol, *pcol, *lcol, *correct, *dtype, *verify_dtype, *dict, *m2,
      *dict_dir, *generator, *language, *edits, *ngram;
  long batch, max_len, stride, max_query, threads, max_ex;
  double threshold, dict_weight, dict_threshold, suggest;
} el__eval_args;
enum { EL_EVAL_N_OPTS = 27 };
void el__eval_args_init(el__eval_args *a);
void el__eval_table(el__eval_args *a, el_opt t[EL_EVAL_N_OPTS]);
int el__eval_parse(int argc, char **argv, el__eval_args *a);
int el__eval_run(const el__eval_args *a);

/* check: FILE operands in files (allocated by el__check_parse). */
typedef struct el__check_args {
  const char *model, *generator, *format, *correct, *language, *markup, *words, *only, *disable,
      *verify_dtype;
  double threshold, suggest;
  long threads;
  char **files;
  int n_files;
} el__check_args;
enum { EL_CHECK_N_OPTS = 13 };
void el__check_args_init(el__check_args *a);
void el__check_table(el__check_args *a, el_opt t[EL_CHECK_N_OPTS]);
int el__check_parse(int argc, char **argv, el__check_args *a);
int el__check_run(const el__check_args *a);
void el__check_args_free(el__check_args *a);

#endif
