/* electra-train corrupt: synthetic learner errors on a text file, printed in
 * the FCE token format so they can be inspected (or used as GED data);
 * generator in learner.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "el_cli.h"
#include "commands.h"
#include "data_pretok.h"
#include "learner.h"
#include "progress.h"

#define PROG "electra-train corrupt"

/* One entry per option, read as data; --help lists them in this order. */
void el__corrupt_table(el__corrupt_args *a, el_opt t[EL_CORRUPT_N_OPTS]) {
  const el_opt d[EL_CORRUPT_N_OPTS] = {
      {"--input", EL_OPT_STR, &a->input, 0, 0, "FILE", "text, one sentence per line (- = standard input); required", 0},
      {"--rate", EL_OPT_FLOAT, &a->rate, 0, 1, "R", "expected errors per token (0.12; FCE has ~0.10)", 0},
      {"--seed", EL_OPT_INT, &a->seed, 0, 9007199254740992.0, "S", "random seed (1); the same seed and input give the same output", 0},
      {"--family", EL_OPT_STR, &a->family, 0, 0, "TYPE", "exactly one error of this type per sentence where it fits (M:DET, R:SPELL, ...; see below)", 0},
      {"--mix", EL_OPT_STR, &a->mix, 0, 0, "TYPE=X,...", "scale types' shares of the mix: R:SPELL=0.5,M:DET=2 (0 turns a type off)", 0},
      {"--max-sentences", EL_OPT_INT, &a->max, 0, 1e12, "N", "stop after N sentences (0 = all)", 0},
      {"--wordnet", EL_OPT_STR, &a->wordnet, 0, 0, "DIR", "WordNet files (/usr/share/wordnet, Debian package wordnet-base)", 0},
  };
  memcpy(t, d, sizeof d);
}

void el__corrupt_args_init(el__corrupt_args *a) { *a = (el__corrupt_args){.rate = 0.12, .seed = 1}; }

static void usage(FILE *f) {
  fprintf(f,
          "usage: " PROG " --input FILE [--rate R] [--seed S] [--family TYPE]\n"
          "\n"
          "Adds learner (ESL) errors to each line and prints one \"token label\" line per\n"
          "token (label i = error, c = correct) and a blank line after each sentence: the\n"
          "layout of the FCE files that `finetune --task ged` reads. Lines are split into\n"
          "tokens like the BERT tokenizer does, without lower-casing: words and punctuation\n"
          "separate (so \"don't\" gives don ' t, where FCE has do n't).\n"
          "Labels follow FCE: a replaced or unnecessary word is marked; for a missing word\n"
          "the word after the gap is marked (nothing when the gap ends the sentence);\n"
          "both words of a swap are marked. Counts per error type and the speed go to\n"
          "standard error.\n"
          "\n"
          "options:\n");
  el__corrupt_args unused;
  el_opt t[EL_CORRUPT_N_OPTS];
  el__corrupt_table(&unused, t);
  el__cli_print_options(f, t, EL_CORRUPT_N_OPTS);
  fprintf(f, "\nerror types and their default shares:\n");
  for (int k = 0; k < EL__LF_COUNT; k++)
    fprintf(f, "  %-13s %4.1f%%%s", el__lfam_name(k), 100 * el__lfam_weight(k),
            k % 4 == 3 || k == EL__LF_COUNT - 1 ? "\n" : "");
}

typedef struct totals {
  long sentences, tokens, edits, marked, family[EL__LF_COUNT], bad_utf8;
  double seconds; /* inside the generator only */
} totals;

/* A line's words (the engine's BasicTokenizer without lower-casing:
 * punctuation split off, like the FCE token files) and pointers to them. */
typedef struct splitter {
  el__words w;
  const char **words; /* [w.n] into w.buf */
  int cap_words;
} splitter;

/* Returns EL_OK (no words for a line that is not valid UTF-8: *bad set) or
 * EL_ENOMEM. */
static int split_line(splitter *sp, const char *line, size_t len, int *bad, el_error *err) {
  *bad = 0;
  int rc = el__pretokenize(line, len, 0, &sp->w, err);
  if (rc == EL_EINVAL) {
    *bad = 1;
    return EL_OK;
  }
  if (rc) return rc;
  if (sp->w.n > sp->cap_words) {
    const char **p = realloc(sp->words, (size_t)sp->w.n * sizeof *p);
    if (!p) return el_error_set(err, EL_ENOMEM, "out of memory");
    sp->words = p;
    sp->cap_words = sp->w.n;
  }
  for (int i = 0; i < sp->w.n; i++) sp->words[i] = sp->w.buf + sp->w.off[i];
  return EL_OK;
}

static void print_sentence(const el__learner_out *o) {
  for (int i = 0; i < o->n; i++) printf("%s %c\n", o->words[i], o->labels[i] ? 'i' : 'c');
  printf("\n");
}

static void report(const totals *t) {
  fprintf(stderr,
          "%ld sentences, %ld tokens: %ld errors (%.4f per token), %.2f%% of the output "
          "tokens marked; generator %.2fs (%.0f sentences/s)\n",
          t->sentences, t->tokens, t->edits, t->tokens ? (double)t->edits / t->tokens : 0.0,
          t->tokens ? 100.0 * t->marked / (t->tokens + 0.0) : 0.0, t->seconds,
          t->seconds > 0 ? t->sentences / t->seconds : 0.0);
  if (t->bad_utf8) fprintf(stderr, "%ld line(s) skipped: not valid UTF-8\n", t->bad_utf8);
  fprintf(stderr, "%-13s %8s %7s %7s\n", "type", "errors", "share", "weight");
  for (int k = 0; k < EL__LF_COUNT; k++)
    fprintf(stderr, "%-13s %8ld %6.2f%% %6.2f%%\n", el__lfam_name(k), t->family[k],
            t->edits ? 100.0 * t->family[k] / t->edits : 0.0, 100 * el__lfam_weight(k));
}

/* Corrupts every line of f to stdout. */
static int run(const el__corrupt_args *a, FILE *f, const el__learner *l, int family, totals *t, el_error *err) {
  splitter sp;
  el__learner_out o;
  memset(&sp, 0, sizeof sp);
  memset(&o, 0, sizeof o);
  int rc = EL_OK, bad;
  uint64_t rng = (uint64_t)a->seed;
  char *line = NULL;
  size_t lcap = 0;
  ssize_t len;
  while (rc == EL_OK && (a->max == 0 || t->sentences < a->max) && (len = getline(&line, &lcap, f)) > 0) {
    if ((rc = split_line(&sp, line, (size_t)len, &bad, err))) break;
    t->bad_utf8 += bad;
    if (!sp.w.n) continue;
    double t0 = el__mono_s();
    rc = family >= 0 ? el__learner_corrupt_family(l, sp.words, sp.w.n, family, &rng, &o, err)
                     : el__learner_corrupt(l, sp.words, sp.w.n, a->rate, &rng, &o, err);
    t->seconds += el__mono_s() - t0;
    if (rc) break;
    print_sentence(&o);
    t->sentences++;
    t->tokens += sp.w.n;
    t->edits += o.n_edits;
    for (int i = 0; i < o.n; i++) t->marked += o.labels[i];
    for (int k = 0; k < EL__LF_COUNT; k++) t->family[k] += o.family_edits[k];
  }
  free(line);
  el__words_free(&sp.w);
  free(sp.words);
  el__learner_sentence_free(&o);
  return rc;
}

int el__corrupt_parse(int argc, char **argv, el__corrupt_args *a) {
  el__corrupt_args_init(a);
  el_opt t[EL_CORRUPT_N_OPTS];
  el__corrupt_table(a, t);
  return el__cli_parse(PROG, t, EL_CORRUPT_N_OPTS, argc, argv, usage);
}

int el__cmd_corrupt(int argc, char **argv) {
  el__corrupt_args a;
  int rc = el__corrupt_parse(argc, argv, &a);
  if (rc != EL_CLI_OK) return rc == EL_CLI_HELP ? 0 : 2;
  return el__corrupt_run(&a);
}

int el__corrupt_run(const el__corrupt_args *a) {
  if (!a->input) {
    fprintf(stderr, PROG ": --input is required (see --help)\n");
    return 2;
  }
  int family = a->family ? el__lfam_by_name(a->family) : -1;
  if (a->family && family < 0) {
    fprintf(stderr, PROG ": unknown error type '%s' (see --help for the list)\n", a->family);
    return 2;
  }
  FILE *f = strcmp(a->input, "-") ? fopen(a->input, "r") : stdin;
  if (!f) {
    fprintf(stderr, PROG ": cannot open %s\n", a->input);
    return 1;
  }
  el_error err = {0};
  el__learner *l = NULL;
  totals t;
  memset(&t, 0, sizeof t);
  int rc = el__learner_load(a->wordnet, &l, &err);
  if (!rc && a->mix) rc = el__learner_apply_mix(l, a->mix, &err);
  if (!rc) rc = run(a, f, l, family, &t, &err);
  if (!rc && ferror(f)) rc = el_error_set(&err, EL_EIO, "read error in %s", a->input);
  if (f != stdin) fclose(f);
  el__learner_free(l);
  if (fflush(stdout) && !rc) rc = el_error_set(&err, EL_EIO, "cannot write the output");
  if (rc) {
    fprintf(stderr, PROG ": %s\n", err.msg);
    return 1;
  }
  report(&t);
  return 0;
}
