/* Command-line helpers shared by the electra-train subcommands: a small
 * declarative option table, number and duration parsing, and the --help
 * listing generated from the same table (so help and parser never disagree).
 *
 * Usage:
 *   long steps = 1000; double lr = 5e-4; el_strlist inputs = {0};
 *   el_opt opts[] = {
 *     {"--input", EL_OPT_STRS, &inputs, 0, 0, "PATH...", "text files"},
 *     {"--max-steps", EL_OPT_INT, &steps, 1, 1e12, "N", "optimizer steps (1000)"},
 *     {"--lr", EL_OPT_FLOAT, &lr, 0, 1, "X", "peak learning rate (5e-4)"},
 *   };
 *   int rc = el_cli_parse("electra-train pretrain", opts, 3, argc, argv, usage_fn);
 *   if (rc != EL_CLI_OK) return rc == EL_CLI_HELP ? 0 : 2;
 *
 * Accepted forms: "--name value", "--name=value"; EL_OPT_STRS takes every
 * following argument up to the next one starting with "--" (so it has no
 * "--name=value" form). Errors print one
 * line "PROG: ..." to stderr naming the option and the bad value.
 * The API is stable: the fine-tuning commands use it too. */
#ifndef EL_TRAIN_CLI_UTIL_H
#define EL_TRAIN_CLI_UTIL_H

#include <stdio.h>

typedef enum el_opt_kind {
  EL_OPT_FLAG,     /* dst: int*, set to 1 when present */
  EL_OPT_INT,      /* dst: long*, integer within [lo, hi] */
  EL_OPT_FLOAT,    /* dst: double*, finite, within [lo, hi] */
  EL_OPT_STR,      /* dst: const char**, points into argv */
  EL_OPT_STRS,     /* dst: el_strlist*, one or more values, pointing into argv */
  EL_OPT_DURATION, /* dst: double* seconds; "90", "90s", "10m", "2h", "1h30m", "1.5h"; within [lo, hi] */
  EL_OPT_CHOICE    /* dst: const char**, one of the '|'-separated words in `arg` */
} el_opt_kind;

/* Values of an EL_OPT_STRS option: v points into argv (the values follow the
 * option name there, so no copy is made); valid as long as argv. */
typedef struct el_strlist {
  char *const *v;
  int n;
} el_strlist;

typedef struct el_opt {
  const char *name; /* "--max-steps" */
  el_opt_kind kind;
  void *dst;
  double lo, hi;    /* bounds for INT/FLOAT/DURATION (inclusive) */
  const char *arg;  /* metavariable for --help ("N", "PATH..."); CHOICE: "a|b|c" */
  const char *help; /* one line; mention the default */
  int seen;         /* set by el_cli_parse: the option was given */
} el_opt;

enum { EL_CLI_OK = 0, EL_CLI_HELP = 1, EL_CLI_ERROR = 2 };

/* Parses argv[1..argc) (argv[0] is the subcommand name). "--help"/"-h"
 * calls usage(stdout) and returns EL_CLI_HELP. An unknown option, a missing
 * or malformed value, or a repeated option prints "prog: ..." to stderr and
 * returns EL_CLI_ERROR. usage may be NULL. */
int el_cli_parse(const char *prog, el_opt *opts, int n_opts, int argc, char **argv,
                 void (*usage)(FILE *));

/* Prints "  --name ARG   help" lines for every option, aligned. */
void el_cli_print_options(FILE *f, const el_opt *opts, int n_opts);

/* The option named `name` of the table, or NULL. */
el_opt *el_cli_find(el_opt *opts, int n_opts, const char *name);

/* Parsers used by el_cli_parse, exposed for other callers. Return 0 on
 * success, -1 when s is not a valid value (nothing written then). */
int el_parse_long(const char *s, long *out);
int el_parse_double(const char *s, double *out);
/* Seconds from "90", "90s", "10m", "2h", "1h30m", "1.5h", "2h5m10s" (no sign). */
int el_parse_duration(const char *s, double *seconds);

/* "1h02m03s", "4m05s", "12s" (rounded to whole seconds) into buf. */
const char *el_format_duration(double seconds, char *buf, int n);

#endif
