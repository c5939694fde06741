/* electra-train vocab: learn a WordPiece vocabulary from text files
 * (algorithm in vocab_builder.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "el_cli.h"
#include "commands.h"
#include "data_input.h"
#include "trainer_api.h"
#include "vocab_builder.h"
#include "progress.h"
#include "text_variants.h"

#define PROG "electra-train vocab"

/* One entry per option, read as data; --help lists them in this order. */
void el__vocab_table(el__vocab_args *a, el_opt t[EL_VOCAB_N_OPTS]) {
  const el_opt d[EL_VOCAB_N_OPTS] = {
      {"--input", EL_OPT_STRS, &a->inputs, 0, 0, "PATH...", "text files (UTF-8, one sentence or paragraph per line)", 0},
      {"--vocab-size", EL_OPT_INT, &a->vocab_size, 6, 1 << 24, "N", "vocabulary entries including the 5 special tokens (required)", 0},
      {"--out", EL_OPT_STR, &a->out, 0, 0, "vocab.txt", "where to write the vocabulary (written atomically; required)", 0},
      {"--min-frequency", EL_OPT_INT, &a->min_frequency, 1, 1e15, "N", "minimum count of a character and of a merged pair (2)", 0},
      {"--no-lower-case", EL_OPT_FLAG, &a->no_lower_case, 0, 0, NULL, "keep case and accents (default: lower-case and strip accents)", 0},
      {"--word-counts", EL_OPT_STR, &a->word_counts, 0, 0, "FILE",
       "also write the words counted (word, tab, count; 2 or more, most frequent first): the\n"
       "      grammar checker's word frequencies for ranking spelling suggestions, read from\n"
       "      MODEL/generator/word_counts.txt (recipe ged writes it); alone, without --out and\n"
       "      --vocab-size, only the counts are written", 0},
      {"--british", EL_OPT_FLAG, &a->british, 0, 0, NULL, "count each word with a British spelling (color) half again under it (colour), as if half the text were British; pairs from Debian's wamerican + wbritish word lists", 0},
  };
  memcpy(t, d, sizeof d);
}

void el__vocab_args_init(el__vocab_args *a) { *a = (el__vocab_args){.min_frequency = 2}; }

static void usage(FILE *f) {
  fprintf(f,
          "usage: " PROG " --input PATH... --vocab-size N --out vocab.txt\n"
          "                           [--min-frequency N] [--no-lower-case] [--british]\n"
          "                           [--word-counts FILE]\n"
          "       " PROG " --input PATH... --word-counts FILE [--no-lower-case]\n"
          "\n"
          "Learns a WordPiece vocabulary. Text is split into words by the tokenizer the model\n"
          "will use (lower-casing and accent stripping unless --no-lower-case, punctuation split).\n"
          "A line that is not valid UTF-8 is skipped, as the tokenizer would refuse it: the\n"
          "count and the first such file:line are reported, and the vocabulary is still written.\n"
          "Every word starts as its characters (\"the\" -> t ##h ##e); the most frequent\n"
          "adjacent pair that occurs at least --min-frequency times is merged (t ##h -> th),\n"
          "again and again, until the vocabulary is full. Words longer than 100 characters\n"
          "are skipped, as the tokenizer maps them to [UNK], and so are special tokens written\n"
          "in the text ([MASK], ...), which the tokenizer never splits.\n"
          "Ids: [PAD] [UNK] [CLS] [SEP] [MASK] = 0..4, then the characters, then merges in\n"
          "the order they were made. The same input always gives the same file.\n"
          "\n"
          "options:\n");
  el__vocab_args unused;
  el_opt t[EL_VOCAB_N_OPTS];
  el__vocab_table(&unused, t);
  el__cli_print_options(f, t, EL_VOCAB_N_OPTS);
}

/* Counts the words of every --input file into wc. A line that is not valid
 * UTF-8 is skipped and counted in *bad_lines; the first one is named in
 * first_bad. */
static int count_words(const el__vocab_args *a, el__word_counts *wc, long *bad_lines, char *first_bad, size_t first_cap,
                       el_error *err) {
  char *line = NULL;
  size_t cap = 0;
  int rc = EL_OK;
  const el_strlist *inputs = &a->inputs;
  for (int i = 0; i < inputs->n && !rc; i++) {
    FILE *f = fopen(inputs->v[i], "rb");
    if (!f) {
      rc = el_error_set(err, EL_EIO, "cannot open %s", inputs->v[i]);
      break;
    }
    ssize_t len;
    long line_no = 0;
    while (!rc && (len = getline(&line, &cap, f)) > 0) {
      line_no++;
      rc = el__wc_add_text(wc, line, (size_t)len, !a->no_lower_case, err);
      if (rc == EL_EINVAL) {
        if (!(*bad_lines)++)
          snprintf(first_bad, first_cap, "%s:%ld: %s", inputs->v[i], line_no, err->msg);
        rc = EL_OK;
      }
    }
    if (!rc && ferror(f)) rc = el_error_set(err, EL_EIO, "read error in %s", inputs->v[i]);
    fclose(f);
  }
  free(line);
  return rc;
}

/* --british: both spellings of a word counted alike (text_variants.h). */
static int add_british(el__word_counts *wc, el_error *err) {
  el__variants *v = NULL;
  int rc = el__variants_load(NULL, &v, err);
  if (!rc) rc = el__wc_add_british(wc, v, err);
  el__variants_free(v);
  return rc;
}

int el__vocab_parse(int argc, char **argv, el__vocab_args *a) {
  el__vocab_args_init(a);
  el_opt t[EL_VOCAB_N_OPTS];
  el__vocab_table(a, t);
  return el__cli_parse(PROG, t, EL_VOCAB_N_OPTS, argc, argv, usage);
}

int el__cmd_vocab(int argc, char **argv) {
  el__vocab_args a;
  int rc = el__vocab_parse(argc, argv, &a);
  if (rc != EL_CLI_OK) return rc == EL_CLI_HELP ? 0 : 2;
  return el__vocab_run(&a);
}

/* Words counted at least this often go into --word-counts: a word seen once
 * is as often a typo of the corpus as a word. */
#define WORD_COUNT_MIN 2

int el__vocab_run(const el__vocab_args *a) {
  int counts_only = a->word_counts && !a->out && !a->vocab_size;
  if (!a->inputs.n || (!counts_only && (!a->vocab_size || !a->out))) {
    fprintf(stderr, PROG ": --input, --vocab-size and --out are required (--input and "
                         "--word-counts alone write the counts only; see --help)\n");
    return 2;
  }
  el_error err = {0};
  uint64_t bytes = 0;
  if (el__inputs_check(a->inputs.v, a->inputs.n, &bytes, &err) ||
      (a->out && el__prepare_output(a->out, 0, &err)) ||
      (a->word_counts && el__prepare_output(a->word_counts, 0, &err))) { /* before reading: a bad output fails at once */
    fprintf(stderr, PROG ": %s\n", err.msg);
    return 1;
  }
  double t0 = el__mono_s();
  el__word_counts *wc = NULL;
  if (el__wc_new(&wc, &err)) goto fail;
  long bad_lines = 0;
  char first_bad[sizeof err.msg + 64] = "";
  if (count_words(a, wc, &bad_lines, first_bad, sizeof first_bad, &err)) goto fail;
  double t1 = el__mono_s();
  fprintf(stderr, "read %d file(s), %.1f MB: %llu words, %zu distinct (%.1fs)\n", a->inputs.n,
          (double)bytes / 1e6, (unsigned long long)el__wc_total(wc), el__wc_distinct(wc),
          t1 - t0);
  if (bad_lines)
    fprintf(stderr, "skipped %ld line(s) that are not valid UTF-8; the first: %s\n", bad_lines,
            first_bad);
  /* the text's own counts (before --british's additions) */
  if (a->word_counts) {
    if (el__wc_write(wc, a->word_counts, WORD_COUNT_MIN, &err)) goto fail;
    fprintf(stderr, "wrote %s: the words counted %d times or more\n", a->word_counts, WORD_COUNT_MIN);
  }
  if (counts_only) {
    el__wc_free(wc);
    return 0;
  }
  /* after the report: its counts are those of the text read */
  if (a->british && add_british(wc, &err)) goto fail;
  el__vb_opts vo = {(int)a->vocab_size, a->min_frequency, EL_VOCAB_SCORE_FREQ};
  el__vb_vocab v;
  if (el__vb_learn(wc, &vo, &v, &err)) goto fail;
  double t2 = el__mono_s();
  if (el__vb_write(&v, a->out, &err)) {
    el__vb_free(&v);
    goto fail;
  }
  fprintf(stderr, "wrote %s: %d tokens (5 special, %d characters, %d from %d merges) in %.1fs\n",
          a->out, v.n, v.n_alphabet, v.n - 5 - v.n_alphabet, v.n_merges, t2 - t1);
  if (v.n < a->vocab_size)
    fprintf(stderr,
            "note: fewer than --vocab-size %ld entries: no more pairs occur --min-frequency %ld "
            "times\n",
            a->vocab_size, a->min_frequency);
  el__vb_free(&v);
  el__wc_free(wc);
  return 0;
fail:
  fprintf(stderr, PROG ": %s\n", err.msg);
  el__wc_free(wc);
  return 1;
}
