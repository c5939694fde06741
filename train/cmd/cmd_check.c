/* electra-train check (see --help): a grammar checker on the command line.
 * Checks each FILE (- is stdin) with the checker of check/check.h and prints
 * its matches like a compiler, file:line:col: TYPE: message [suggestions],
 * or LanguageTool's /v2/check answer (--format json), so a CI job or a
 * pre-commit hook can guard documentation: exit 1 when something is found,
 * 0 when clean, 2 on a usage or I/O error. Markdown files are read as their
 * prose (check/md_doc.h): code, links' targets and markup are not checked,
 * and positions count in the file as written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "checker_open.h"
#include "commands.h"
#include "el_cli.h"
#include "lt_format.h"
#include "lt_lang.h"
#include "lt_rules.h"
#include "md_doc.h"
#include "trainer_api.h"

#define PROG "electra-train check"
#define MAX_FILE_BYTES ((size_t)64 << 20)
#define DEFAULT_MODEL "models/default" /* where `make run` builds its model */

static void usage(FILE *f) {
  fprintf(f,
          "usage: " PROG " [--model DIR] [--generator DIR] [--threshold X] [--language en|en-GB|en-US]\n"
          "       [--format text|json] [--markup auto|text|markdown] [--words FILE]\n"
          "       [--only TYPES] [--disable TYPES] FILE...\n\n"
          "Checks each FILE (- reads stdin) for grammatical errors and prints one line per\n"
          "match, file:line:col: TYPE: message [suggestions] (col in characters), or\n"
          "LanguageTool's /v2/check answer as JSON. Markdown (.md) is checked as its prose:\n"
          "code, link targets and markup are skipped. Exit status: 1 when something is\n"
          "found, 0 when the files are clean, 2 on a usage or I/O error.\n\noptions:\n");
  el__check_args unused;
  el_opt t[EL_CHECK_N_OPTS];
  el__check_args_init(&unused);
  el__check_table(&unused, t);
  el__cli_print_options(f, t, EL_CHECK_N_OPTS);
}

/* Splits argv into options (for the table) and FILE operands; an option
 * that takes a value keeps the argument after it. */
static int split_args(int argc, char **argv, el_opt *t, char **opts, char **files,
                      int *n_files) {
  int n = 0;
  *n_files = 0;
  opts[n++] = argv[0];
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strncmp(a, "--", 2) && strcmp(a, "-h")) {
      files[(*n_files)++] = argv[i];
      continue;
    }
    opts[n++] = argv[i];
    el_opt *o = strchr(a, '=') ? NULL : el__cli_find(t, EL_CHECK_N_OPTS, a);
    if (o && o->kind != EL_OPT_FLAG && i + 1 < argc) opts[n++] = argv[++i];
  }
  return n;
}

static int read_input(const char *path, char **text, size_t *len, el_error *err) {
  if (strcmp(path, "-")) return el__read_file(path, MAX_FILE_BYTES, text, len, err);
  size_t cap = 0, n = 0;
  char *buf = NULL;
  for (;;) {
    if (el__grow((void **)&buf, &cap, n + 65536, 1)) {
      free(buf);
      return el_error_set(err, EL_ENOMEM, "stdin: out of memory");
    }
    ssize_t got = read(0, buf + n, cap - n - 1);
    if (got < 0) {
      free(buf);
      return el_error_set(err, EL_EIO, "stdin: read failed");
    }
    if (got == 0) break;
    n += (size_t)got;
  }
  buf[n] = 0;
  *text = buf;
  *len = n;
  return 0;
}

/* One replacement for a reader, on the match's one line: a deletion's is
 * empty and the span's edge spaces are the text's own, so they are not
 * shown; a line break inside (a comma inserted at a line's end) shows as
 * \n. */
static void print_repl(const char *r) {
  size_t n = strlen(r);
  while (n && strchr(" \t\r\n", r[n - 1])) n--;
  while (n && strchr(" \t\r\n", *r)) r++, n--;
  if (!n) printf("(remove)");
  for (size_t i = 0; i < n; i++) {
    if (r[i] == '\n') printf("\\n");
    else if (r[i] == '\r' || r[i] == '\t') putchar(' ');
    else putchar(r[i]);
  }
}

/* file:line:col: TYPE: message [a, b] per match; line and column 1-based,
 * the column in characters (code points) of the file as written (d's
 * document). */
static void print_text(const char *name, const el__lt_doc *d, const el__matches *ms) {
  size_t at = 0;
  int line = 1, col = 1;
  for (int i = 0; i < ms->n; i++) {
    const el__match *m = &ms->m[i];
    for (size_t to = el__lt_doc_map(d, m->offset, 0); at < to; at++) {
      if (d->doc[at] == '\n') line++, col = 1;
      else if (((unsigned char)d->doc[at] & 0xC0) != 0x80) col++;
    }
    printf("%s:%d:%d: %s: %s", name, line, col, el__etype_name(m->type), m->message);
    for (int r = 0; r < m->n_repl; r++) {
      printf("%s", r ? ", " : " [");
      print_repl(m->repl[r]);
    }
    printf("%s\n", m->n_repl ? "]" : "");
  }
}

/* The types --only and --disable leave (bit t: el__etype t), into *types;
 * an unknown type name is an error naming the known ones. */
static int report_types(const el__check_args *a, unsigned *types, el_error *err) {
  const char *lists[2] = {a->only, a->disable};
  unsigned masks[2] = {0, 0};
  for (int l = 0; l < 2; l++) {
    for (const char *p = lists[l]; p && *p;) {
      size_t n = strcspn(p, ",");
      char name[32];
      snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), p);
      int t = el__etype_by_name(name);
      if (t < 0) {
        char known[256] = "";
        for (int k = 0; k < EL__ET_COUNT; k++)
          snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", k ? ", " : "",
                   el__etype_name(k));
        return el_error_set(err, EL_EINVAL, "%s: unknown type '%s' (one of %s)",
                            l ? "--disable" : "--only", name, known);
      }
      masks[l] |= 1u << t;
      p += n + (p[n] == ',');
    }
  }
  *types = (a->only ? masks[0] : EL__LT_ALL_TYPES) & ~masks[1];
  return 0;
}

/* Leaves out the matches of types not reported and those on what markup
 * reads as (the word inline code stands for): the writer wrote no prose
 * there. */
static void keep_matches(el__matches *ms, const el__lt_doc *d, unsigned types) {
  int k = 0;
  for (int i = 0; i < ms->n; i++) {
    el__match *m = &ms->m[i];
    int type = m->type >= 0 && m->type < EL__ET_COUNT ? m->type : EL__ET_OTHER;
    if (!(types & (1u << type)) || el__lt_doc_in_markup(d, m->offset, m->length)) {
      for (int r = 0; r < m->n_repl; r++) free(m->repl[r]);
      continue;
    }
    ms->m[k++] = *m;
  }
  ms->n = k;
}

/* The file as the document checked: Markdown read as its prose (by
 * --markup, or by the name's extension with auto), else the text itself. */
static int read_doc(const el__check_args *a, const char *path, el__lt_doc *d, el_error *err) {
  char *raw = NULL;
  size_t len = 0;
  int rc = read_input(path, &raw, &len, err);
  if (rc) return rc;
  int md = !strcmp(a->markup, "markdown") || (!strcmp(a->markup, "auto") && el__is_markdown_name(path));
  if ((md ? el__lt_doc_from_markdown(raw, len, d) : el__lt_doc_from_text(raw, len, d)) < 0)
    rc = el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
  free(raw);
  return rc;
}

/* Checks one file; 0 clean, 1 matches, 2 an error (printed). */
static int check_file(el__checker *ck, const el__check_args *a, unsigned types, const char *path) {
  const el__lt_lang *lang = el__lt_lang_find(a->language); /* one of the choices: known */
  el_error err = {0};
  el__lt_doc d = {0};
  el__matches ms = {0};
  int rc = read_doc(a, path, &d, &err);
  if (!rc) rc = el__check_text(ck, d.plain, d.plain_len, lang->variant, &ms, &err);
  if (rc) {
    fprintf(stderr, PROG ": %s\n", err.msg);
    el__lt_doc_free(&d);
    el__matches_free(&ms);
    return 2;
  }
  keep_matches(&ms, &d, types);
  if (!strcmp(a->format, "json")) {
    char *js = el__lt_response(&d, lang, EL__LT_ALL_TYPES, &ms);
    if (js) printf("%s\n", js);
    else fprintf(stderr, PROG ": %s: out of memory\n", path);
    free(js);
  } else {
    print_text(strcmp(path, "-") ? path : "<stdin>", &d, &ms);
  }
  int found = ms.n > 0;
  el__lt_doc_free(&d);
  el__matches_free(&ms);
  return found;
}

/* The writer's own words of --words FILE into the checker. */
static int accept_words(el__checker *ck, const char *path, el_error *err) {
  char *list = NULL;
  size_t len = 0;
  int rc = el__read_file(path, MAX_FILE_BYTES, &list, &len, err);
  if (!rc && (rc = el__checker_accept_words(ck, list, len, err))) {
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    el_error_set(err, rc, "%s: %s", path, why);
  }
  free(list);
  return rc;
}

/* Loads the models, makes the checker and checks every file. */
static int run_check(const el__check_args *a, char **files, int n_files) {
  el_error err = {0};
  el__checker_set set;
  el__checker_args ca = {a->model, a->generator, a->correct, a->threshold, a->suggest, NULL,
                         EL_DTYPE_FP32, -1};
  unsigned types = 0;
  if (el__check_verify_dtype_parse(a->verify_dtype, "--verify-dtype", &ca.verify_dtype, &err) ||
      report_types(a, &types, &err)) {
    fprintf(stderr, PROG ": %s\n", err.msg);
    return 2;
  }
  int rc = el__checker_open(&ca, &set, &err), status = 0;
  if (rc && !strcmp(a->model, DEFAULT_MODEL) && access(DEFAULT_MODEL "/config.json", F_OK))
    el_error_set(&err, rc, "no model at %s: `make run` builds the default model there once, or give "
                           "--model DIR (a `recipe ged` model, or a Hugging Face ELECTRA GED model)",
                 DEFAULT_MODEL);
  if (!rc && a->words) rc = accept_words(set.checker, a->words, &err);
  if (rc) {
    fprintf(stderr, PROG ": %s\n", err.msg);
    status = 2;
  }
  for (int i = 0; !rc && i < n_files; i++) {
    int s = check_file(set.checker, a, types, files[i]);
    status = s == 2 || status == 2 ? 2 : s > status ? s : status;
  }
  el__checker_close(&set);
  return status;
}

void el__check_args_init(el__check_args *a) {
  *a = (el__check_args){.model = DEFAULT_MODEL, .format = "text", .language = "en", .markup = "auto",
                        .verify_dtype = "auto", .threshold = -1, .suggest = -1};
}

/* The option table, on the struct being filled (--help prints it in this order). */
void el__check_table(el__check_args *a, el_opt t[EL_CHECK_N_OPTS]) {
  const el_opt d[EL_CHECK_N_OPTS] = {
      {"--model", EL_OPT_STR, &a->model, 0, 0, "DIR", "the detector's model directory (models/default)", 0},
      {"--generator", EL_OPT_STR, &a->generator, 0, 0, "DIR",
       "a generator (ElectraForMaskedLM) with the detector's vocabulary, for more\n"
       "      suggestions (default: DIR/generator when there is one, else none); the\n"
       "      word_counts.txt beside it (else in DIR) ranks a misspelling's suggestions", 0},
      {"--threshold", EL_OPT_FLOAT, &a->threshold, 0, 1, "X",
       "flag words with P(error) >= X (the threshold /score flags at: the dictionary\n"
       "      combination's, else the model's score_threshold, else 0.5)", 0},
      {"--suggest-threshold", EL_OPT_FLOAT, &a->suggest, 0, 1, "X",
       "offer replacements only for words with P(error) >= X (0.7, or the threshold\n"
       "      when higher); a misspelling always gets them: higher trades suggestions for\n"
       "      precision", 0},
      {"--language", EL_OPT_CHOICE, &a->language, 0, 0, "en|en-GB|en-US",
       "the English checked: en-GB British spelling (\"favorite\", \"color\" misspelt;\n"
       "      hunspell's en_GB suggests), en-US American (\"favourite\" misspelt; en_US),\n"
       "      en either (default: a word en_GB or en_US knows is correct)", 0},
      {"--format", EL_OPT_CHOICE, &a->format, 0, 0, "text|json",
       "text: file:line:col lines (default); json: LanguageTool's /v2/check answer per file", 0},
      {"--markup", EL_OPT_CHOICE, &a->markup, 0, 0, "auto|text|markdown",
       "markdown: check the prose only (code blocks, `code`, link targets, HTML and\n"
       "      markup skipped; headings, list items and table cells are sentences of their\n"
       "      own); auto (default): markdown for .md/.markdown files, text otherwise", 0},
      {"--words", EL_OPT_STR, &a->words, 0, 0, "FILE",
       "the writer's own words, never flagged: one a line, '#' comments (a word in\n"
       "      small letters is accepted in any case, \"GitHub\" only as written)", 0},
      {"--only", EL_OPT_STR, &a->only, 0, 0, "TYPES",
       "report only these types, comma-separated (SPELL, VERB:SVA, VERB:TENSE, VERB:FORM,\n"
       "      NOUN:NUM, DET, PREP, PUNCT, ORTH, WO, MISSING, UNNECESSARY, OTHER): a CI job that\n"
       "      fails on misspellings alone is --only SPELL", 0},
      {"--disable", EL_OPT_STR, &a->disable, 0, 0, "TYPES",
       "report every type but these (after --only), e.g. --disable OTHER: no\n"
       "      \"Possible error\" matches of no known type", 0},
      {"--correct-label", EL_OPT_STR, &a->correct, 0, 0, "LABEL",
       "an ElectraForTokenClassification detector's \"no error\" label (found by name)", 0},
      {"--verify-dtype", EL_OPT_CHOICE, &a->verify_dtype, 0, 0, "auto|fp32|int8",
       "arithmetic of the verification pass (the detector's verdict on each candidate\n"
       "      correction's sentence): auto (default) int8 on the engine's own int8 kernels\n"
       "      (AVX2, AVX-512 VNNI), on an int8 copy of an fp32 detector: up to a third\n"
       "      faster, the same corrections within noise (docs/CHECKER.md); fp32 on the\n"
       "      detector itself", 0},
      {"--threads", EL_OPT_INT, &a->threads, 0, 4096, "N", "threads (0 = CPU quota)", 0},
  };
  memcpy(t, d, sizeof d);
}

/* The options, and the FILE operands into a->files (a->n_files; the array is
 * the caller's to free with el__check_args_free). */
int el__check_parse(int argc, char **argv, el__check_args *a) {
  el__check_args_init(a);
  el_opt t[EL_CHECK_N_OPTS];
  el__check_table(a, t);
  char **oargv = calloc((size_t)argc + 1, sizeof *oargv);
  a->files = calloc((size_t)argc + 1, sizeof *a->files);
  if (!oargv || !a->files) {
    fprintf(stderr, PROG ": out of memory\n");
    free(oargv);
    return EL_CLI_ERROR;
  }
  int oargc = split_args(argc, argv, t, oargv, a->files, &a->n_files);
  int rc = el__cli_parse(PROG, t, EL_CHECK_N_OPTS, oargc, oargv, usage);
  free(oargv);
  if (rc == EL_CLI_OK && !a->n_files) {
    fprintf(stderr, PROG ": no FILE to check (- reads stdin; see --help)\n");
    rc = EL_CLI_ERROR;
  }
  return rc;
}

void el__check_args_free(el__check_args *a) {
  free(a->files);
  a->files = NULL;
  a->n_files = 0;
}

int el__cmd_check(int argc, char **argv) {
  el__check_args a;
  int rc = el__check_parse(argc, argv, &a);
  int status = rc == EL_CLI_OK ? el__check_run(&a) : rc == EL_CLI_HELP ? 0 : 2;
  el__check_args_free(&a);
  return status;
}

int el__check_run(const el__check_args *a) {
  if (a->threads > 0) el_set_threads((int)a->threads);
  return run_check(a, a->files, a->n_files);
}
