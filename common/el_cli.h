/* The option-table engine of both programs (electra-train's subcommands and
 * electra-server): one declarative table per program drives parsing, value
 * checks, "did you mean" suggestions and the --help listing, so help and
 * parser never disagree.
 *
 * Usage (electra-train):
 *   long steps = 1000; double lr = 5e-4; el_strlist inputs = {0};
 *   el_opt opts[] = {
 *     {"--input", EL_OPT_STRS, &inputs, 0, 0, "PATH...", "text files"},
 *     {"--max-steps", EL_OPT_INT, &steps, 1, 1e12, "N", "optimizer steps (1000)"},
 *     {"--lr", EL_OPT_FLOAT, &lr, 0, 1, "X", "peak learning rate (5e-4)"},
 *   };
 *   int rc = el__cli_parse("electra-train pretrain", opts, 3, argc, argv, usage_fn);
 *   if (rc != EL_CLI_OK) return rc == EL_CLI_HELP ? 0 : 2;
 *
 * Accepted forms: "--name value", "--name=value"; EL_OPT_STRS takes every
 * following argument up to the next one starting with "--" (so it has no
 * "--name=value" form). Errors print one line "PROG: ..." to stderr naming
 * the option and the bad value; an unknown option close to a known one gets
 * "did you mean --x?".
 *
 * electra-server layers the command line over ELECTRA_<OPTION> variables and
 * a JSON config file: it walks argv with el__cli_scan (same checks, values
 * handed to its visitor), finds config keys with el__cli_lookup_key and
 * stores every layer's text values with el__cli_store, so each source gets
 * the same conversions, ranges and messages.
 *
 * Internal to this repository (common/, linked into both programs); the
 * el_cli_ names are the train commands' stable API, el__ names the newer
 * helpers. */
#ifndef EL_COMMON_CLI_H
#define EL_COMMON_CLI_H

#include <stddef.h>
#include <stdio.h>

typedef enum el_opt_kind {
  EL_OPT_FLAG,     /* dst: int*, set to 1 when present (from text: true/false, 1/0, yes/no) */
  EL_OPT_INT,      /* dst: long*, integer within [lo, hi] */
  EL_OPT_FLOAT,    /* dst: double*, finite, within [lo, hi] */
  EL_OPT_STR,      /* dst: const char**, points into argv */
  EL_OPT_STRS,     /* dst: el_strlist*, one or more values, pointing into argv */
  EL_OPT_DURATION, /* dst: double* seconds; "90", "90s", "10m", "2h", "1h30m", "1.5h"; within [lo, hi] */
  EL_OPT_CHOICE,   /* dst: const char**, one of the '|'-separated words in `arg` */
  EL_OPT_INT32,    /* dst: int*, integer within [lo, hi] */
  EL_OPT_TEXT,     /* dst: char[hi] buffer: the value is copied (it may come from a freed string) */
  EL_OPT_CUSTOM    /* stored by the caller (el__cli_store returns 1); arg NULL: takes no value */
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
  double lo, hi;    /* bounds for INT/INT32/FLOAT/DURATION (inclusive); TEXT: hi = bytes at dst */
  const char *arg;  /* metavariable for --help ("N", "PATH..."); CHOICE: "a|b|c" */
  const char *help; /* one line (el__cli_print_options) or a paragraph (el__cli_print_wrapped) */
  int seen;         /* set by el__cli_parse: the option was given */
} el_opt;

enum { EL_CLI_OK = 0, EL_CLI_HELP = 1, EL_CLI_ERROR = 2 };

/* Parses argv[1..argc) (argv[0] is the subcommand name). "--help"/"-h"
 * calls usage(stdout) and returns EL_CLI_HELP. An unknown option, a missing
 * or malformed value, or a repeated option prints "prog: ..." to stderr and
 * returns EL_CLI_ERROR. usage may be NULL. */
int el__cli_parse(const char *prog, el_opt *opts, int n_opts, int argc, char **argv,
                 void (*usage)(FILE *));

/* Prints "  --name ARG   help" lines for every option, aligned. */
void el__cli_print_options(FILE *f, const el_opt *opts, int n_opts);

/* The option named `name` of the table, or NULL. */
el_opt *el__cli_find(el_opt *opts, int n_opts, const char *name);

/* Parsers used by el__cli_parse, exposed for other callers. Return 0 on
 * success, -1 when s is not a valid value (nothing written then). */
int el__parse_long(const char *s, long *out);
int el__parse_double(const char *s, double *out);
/* Seconds from "90", "90s", "10m", "2h", "1h30m", "1.5h", "2h5m10s" (no sign). */
int el__parse_duration(const char *s, double *seconds);

/* "1h02m03s", "4m05s", "12s" (rounded to whole seconds) into buf. */
const char *el__format_duration(double seconds, char *buf, int n);

/* ---- the engine's parts, for callers with their own layering ---- */

/* Called by el__cli_scan for each option given: v is its value ("true" for
 * an option that takes none; for EL_OPT_STRS it points to an el_strlist).
 * Return 0, or -1 with a message in err. */
typedef int (*el__cli_visit)(void *ctx, el_opt *o, const char *v, char *err, size_t cap);

/* Walks argv[1..argc) with el__cli_parse's rules (forms, unknown options with
 * suggestions, values present or absent as the option wants) and hands each
 * option to visit; stores nothing itself and never prints. Returns EL_CLI_OK,
 * EL_CLI_HELP at "--help"/"-h" (nothing after it is read), or EL_CLI_ERROR
 * with a message (no program name) in err. */
int el__cli_scan(el_opt *opts, int n_opts, int argc, char **argv, el__cli_visit visit,
                 void *ctx, char *err, size_t cap);

/* Converts the text v and stores it in o->dst, checking the kind and range.
 * shown names the option in messages (NULL: o->name), e.g. "ELECTRA_PORT".
 * Returns 0, 1 for EL_OPT_CUSTOM (the caller stores it) or -1 with a message
 * in err ("--port must be between 0 and 65535, got 70000"). */
int el__cli_store(const el_opt *o, const char *shown, const char *v, char *err, size_t cap);

/* The option a config-file key names: "max_batch_size" or "max-batch-size",
 * any case, without the leading dashes. NULL when none. */
el_opt *el__cli_lookup_key(el_opt *opts, int n_opts, const char *key);

/* ELECTRA_MAX_BATCH_SIZE for "--max-batch-size" with prefix "ELECTRA_". */
void el__cli_env_name(const el_opt *o, const char *prefix, char *out, size_t cap);

/* The option name nearest to name (edit distance, leading dashes and case
 * ignored) when it is a likely typo, else NULL. */
const char *el__cli_suggest(const el_opt *opts, int n_opts, const char *name);

/* The word of words[0..n) nearest to word when it is a likely typo of it
 * (optimal-string-alignment distance at most 1 + len/4, case ignored), else
 * NULL. A word equal to word (ignoring case) is returned too. */
const char *el__near_miss(const char *word, const char *const *words, int n);

/* --help listing with each option on its own line ("  --name ARG") and its
 * help word-wrapped below it, indented 8 columns, lines up to 78 columns. */
void el__cli_print_wrapped(FILE *f, const el_opt *opts, int n_opts);

/* Prints " --name value" for every option of opts whose value differs from
 * the same option of defaults: the same table built over a struct that
 * holds the command's defaults. So a caller that fills a command's values
 * itself (electra-train recipe) shows the command line that gives them;
 * el__cli_parse of that line fills the same values. A flag that is on
 * prints its name; a string not given (NULL) and a flag that is off print
 * nothing; numbers print as the shortest text that reads back exactly,
 * durations in seconds ("300s"). Values are not quoted. */
void el__cli_print_command(FILE *f, const el_opt *opts, const el_opt *defaults, int n_opts);

#endif
