/* Typed commands (train/cmd/commands.h): a stage's options struct filled
 * directly, as electra-train recipe does, and the command line printed from
 * its table (el__cli_print_command) parse back to the same struct; a
 * hand-written command line gives the struct filled field by field; what is
 * not given keeps the "not given" value the run relies on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "../test.h"

/* The first option whose value differs between tables x and y (the same
 * table over two structs), or NULL. */
static const char *first_difference(const el_opt *x, const el_opt *y, int n) {
  for (int i = 0; i < n; i++) {
    const void *a = x[i].dst, *b = y[i].dst;
    int same = 1;
    switch (x[i].kind) {
      case EL_OPT_FLAG:
      case EL_OPT_INT32: same = *(const int *)a == *(const int *)b; break;
      case EL_OPT_INT: same = *(const long *)a == *(const long *)b; break;
      case EL_OPT_FLOAT:
      case EL_OPT_DURATION: same = *(const double *)a == *(const double *)b; break;
      case EL_OPT_STR:
      case EL_OPT_CHOICE: {
        const char *s = *(const char *const *)a, *t = *(const char *const *)b;
        same = (!s && !t) || (s && t && !strcmp(s, t));
        break;
      }
      case EL_OPT_STRS: {
        const el_strlist *s = a, *t = b;
        same = s->n == t->n;
        for (int k = 0; same && k < s->n; k++) same = !strcmp(s->v[k], t->v[k]);
        break;
      }
      default: same = 0;
    }
    if (!same) return x[i].name;
  }
  return NULL;
}

/* The command line el__cli_print_command prints for table t over defaults
 * d, split at spaces into argv (argv[0] = cmd; *buf owns the text). */
static int command_line(const char *cmd, const el_opt *t, const el_opt *d, int n, char **buf,
                        char **argv, int max) {
  size_t len = 0;
  FILE *f = open_memstream(buf, &len);
  fprintf(f, "%s", cmd);
  el__cli_print_command(f, t, d, n);
  fclose(f);
  int argc = 0;
  for (char *tok = strtok(*buf, " "); tok && argc < max - 1; tok = strtok(NULL, " ")) argv[argc++] = tok;
  argv[argc] = NULL;
  return argc;
}

/* Values parsed back (table tb) are those filled directly (table t). */
static void check_same(const char *what, const el_opt *t, const el_opt *tb, int n) {
  const char *diff = first_difference(t, tb, n);
  CHECK(!diff, "%s: parse(printed line) is the struct filled directly (differs at %s)", what,
        diff ? diff : "-");
}

static char *inputs[] = {"corpus/a.txt", "corpus/b.txt"};

/* recipe's pretraining stage: filled, printed, parsed back. */
static void pretrain_stage(void) {
  el__pt_args a, dflt, back;
  el__pt_args_init(&a);
  el__pt_args_init(&dflt);
  a.inputs = (el_strlist){inputs, 2};
  a.vocab = "w/vocab.txt";
  a.out = "w/pretrain";
  a.preset = "tiny";
  a.position = "relative_key";
  a.time_limit = 300;
  a.threads = 0;
  a.seed = 1;
  a.corruption = "learner:0.1";
  el_opt t[EL_PT_N_OPTS], d[EL_PT_N_OPTS], tb[EL_PT_N_OPTS];
  el__pt_cli_table(&a, t);
  el__pt_cli_table(&dflt, d);
  char *buf = NULL, *argv[64];
  int argc = command_line("pretrain", t, d, EL_PT_N_OPTS, &buf, argv, 64);
  CHECK(el__pretrain_parse(argc, argv, &back) == EL_CLI_OK, "pretrain: the printed line parses");
  el__pt_cli_table(&back, tb);
  check_same("pretrain", t, tb, EL_PT_N_OPTS);
  CHECK(back.max_steps == -1 && back.lr == -1 && !back.cache,
        "pretrain: options not given stay not given (the preset decides)");
  CHECK(first_difference(t, d, EL_PT_N_OPTS) != NULL, "pretrain: the comparison sees a difference");
  free(buf);
}

/* A hand-written pretrain command line and the same values filled directly. */
static void pretrain_argv(void) {
  char *argv[] = {"pretrain", "--input", "corpus/a.txt", "corpus/b.txt", "--out", "RUN",
                  "--max-steps", "30", "--lr=5e-4", "--seed", "0", "--tie-generator",
                  "--time-limit", "1h30m", NULL};
  el__pt_args parsed, filled;
  CHECK(el__pretrain_parse(14, argv, &parsed) == EL_CLI_OK, "pretrain: argv parses");
  el__pt_args_init(&filled);
  filled.inputs = (el_strlist){inputs, 2};
  filled.out = "RUN";
  filled.max_steps = 30;
  filled.lr = 5e-4;
  filled.seed = 0;
  filled.tie_generator = 1;
  filled.time_limit = 5400;
  el_opt tp[EL_PT_N_OPTS], tf[EL_PT_N_OPTS];
  el__pt_cli_table(&parsed, tp);
  el__pt_cli_table(&filled, tf);
  const char *diff = first_difference(tp, tf, EL_PT_N_OPTS);
  CHECK(!diff, "pretrain: argv gives the struct filled directly (differs at %s)", diff ? diff : "-");
}

/* recipe's synthetic stage (finetune): filled, printed, parsed back. */
static void finetune_stage(void) {
  el__ft_args a, dflt, back;
  el__ft_args_init(&a);
  el__ft_args_init(&dflt);
  a.task = "ged";
  a.init = "w/pretrain";
  a.out = "w/synthetic";
  a.synth = (el_strlist){inputs, 2};
  a.synth_n = 330000;
  a.synth_rate = 0.12;
  a.synth_pairs = 0.1 + 0.2; /* not a short decimal: printed with every digit it needs */
  a.epochs = 1;
  a.time_limit = 330;
  a.seed = 1;
  el_opt t[EL_FT_N_OPTS], d[EL_FT_N_OPTS], tb[EL_FT_N_OPTS];
  el__ft_table(&a, t);
  el__ft_table(&dflt, d);
  char *buf = NULL, *argv[64];
  int argc = command_line("finetune", t, d, EL_FT_N_OPTS, &buf, argv, 64);
  CHECK(el__finetune_parse(argc, argv, &back) == EL_CLI_OK, "finetune: the printed line parses");
  el__ft_table(&back, tb);
  check_same("finetune", t, tb, EL_FT_N_OPTS);
  CHECK(back.lr == 0 && back.max_len == 0, "finetune: --lr, --max-seq-len not given: the width's and task's");
  free(buf);
}

/* recipe's vocabulary stage: filled, printed, parsed back. */
static void vocab_stage(void) {
  el__vocab_args a, dflt, back;
  el__vocab_args_init(&a);
  el__vocab_args_init(&dflt);
  a.inputs = (el_strlist){inputs, 2};
  a.vocab_size = 8192;
  a.out = "w/vocab.txt";
  a.british = 1;
  el_opt t[EL_VOCAB_N_OPTS], d[EL_VOCAB_N_OPTS], tb[EL_VOCAB_N_OPTS];
  el__vocab_table(&a, t);
  el__vocab_table(&dflt, d);
  char *buf = NULL, *argv[64];
  int argc = command_line("vocab", t, d, EL_VOCAB_N_OPTS, &buf, argv, 64);
  CHECK(el__vocab_parse(argc, argv, &back) == EL_CLI_OK, "vocab: the printed line parses");
  el__vocab_table(&back, tb);
  check_same("vocab", t, tb, EL_VOCAB_N_OPTS);
  free(buf);
}

/* eval --m2 as a script would fill it; --max-seq-len not given stays 0 (the
 * task's length then applies). */
static void eval_struct(void) {
  el__eval_args a, dflt, back;
  el__eval_args_init(&a);
  el__eval_args_init(&dflt);
  a.task = "ged";
  a.m2 = "fce.dev.m2";
  a.model = "models/ged";
  a.suggest = 0.85;
  a.threshold = 0.1 + 0.2; /* not a round decimal: the printer must round-trip it */
  el_opt t[EL_EVAL_N_OPTS], d[EL_EVAL_N_OPTS], tb[EL_EVAL_N_OPTS];
  el__eval_table(&a, t);
  el__eval_table(&dflt, d);
  char *buf = NULL, *argv[64];
  int argc = command_line("eval", t, d, EL_EVAL_N_OPTS, &buf, argv, 64);
  CHECK(el__eval_parse(argc, argv, &back) == EL_CLI_OK, "eval: the printed line parses");
  el__eval_table(&back, tb);
  check_same("eval", t, tb, EL_EVAL_N_OPTS);
  CHECK(back.max_len == 0, "eval: --max-seq-len not given stays 0 (%ld)", back.max_len);
  free(buf);
}

/* check's FILE operands are kept apart from the options and their values. */
static void check_argv(void) {
  char *argv[] = {"check", "a.txt", "--model", "M", "-", "--suggest-threshold=0.5",
                  "--format", "json", "b.txt", NULL};
  el__check_args a;
  int rc = el__check_parse(9, argv, &a);
  CHECK(rc == EL_CLI_OK && a.n_files == 3 && !strcmp(a.files[0], "a.txt") &&
            !strcmp(a.files[1], "-") && !strcmp(a.files[2], "b.txt"),
        "check: three FILE operands in order (%d)", a.n_files);
  CHECK(!strcmp(a.model, "M") && a.suggest == 0.5 && !strcmp(a.format, "json") && a.threshold == -1,
        "check: the options' values, the threshold not given");
  el__check_args_free(&a);
  char *none[] = {"check", "--model", "M", NULL};
  CHECK(el__check_parse(3, none, &a) == EL_CLI_ERROR, "check without FILE: a usage error");
  el__check_args_free(&a);
}

int main(void) {
  pretrain_stage();
  pretrain_argv();
  finetune_stage();
  vocab_stage();
  eval_struct();
  check_argv();
  return el_test_done();
}
