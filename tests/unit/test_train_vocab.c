/* The vocabulary learner: BasicTokenizer splitting (the engine's: the same
 * words as el_tokenize on the tokenizer's golden cases and on 2,000 corpus
 * lines), WordPiece merges checked
 * by hand on a tiny word list, min-frequency, determinism, the written file
 * and the refusal of a vocabulary without the special tokens. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../test.h"
#include "data_pretok.h"
#include "electra/tokenizer.h"
#include "tok_basic.h"
#include "tokenizer_golden.h"
#include "vocab_builder.h"

static int words_are(const char *text, int lower, const char *const *want, int n) {
  el__words w;
  memset(&w, 0, sizeof w);
  el_error err = {0};
  int ok = el__pretokenize(text, strlen(text), lower, &w, &err) == 0 && w.n == n;
  for (int i = 0; ok && i < n; i++) ok = !strcmp(w.buf + w.off[i], want[i]);
  if (!ok) {
    printf("#   got %d words:", w.n);
    for (int i = 0; i < w.n; i++) printf(" [%s]", w.buf + w.off[i]);
    printf("\n");
  }
  el__words_free(&w);
  return ok;
}

static void test_pretok(void) {
  const char *a[] = {"hello", ",", "world", "!", "cafe", "naive"};
  CHECK(words_are("Hello, WORLD! Caf\xc3\xa9 na\xc3\xafve", 1, a, 6), "lower-case, accents stripped, punctuation split");
  const char *b[] = {"Hello", ",", "WORLD", "!", "Caf\xc3\xa9", "na\xc3\xafve"};
  CHECK(words_are("Hello, WORLD! Caf\xc3\xa9 na\xc3\xafve", 0, b, 6), "--no-lower-case keeps case and accents");
  const char *c[] = {"\xe4\xb8\xad", "\xe6\x96\x87", "abc"};
  CHECK(words_are("\xe4\xb8\xad\xe6\x96\x87" "abc", 1, c, 3), "CJK ideographs become words of their own");
  const char *d[] = {"ab", "cd"};
  CHECK(words_are("a\x01" "b\tcd\n", 1, d, 2), "control characters dropped, tab is whitespace");
  const char *e[] = {"x", "\xe2\x80\x94", "y"};
  CHECK(words_are("x\xe2\x80\x94y", 1, e, 3), "Unicode punctuation (em dash) splits");
  /* NFC: e + combining acute composes, then (lower) the accent is stripped */
  const char *g[] = {"e"};
  CHECK(words_are("e\xcc\x81", 1, g, 1), "decomposed accent stripped when lower-casing");
  const char *h[] = {"\xc3\xa9"};
  CHECK(words_are("e\xcc\x81", 0, h, 1), "NFC composes e + U+0301 without lower-casing");
  /* where the old second splitter differed from the engine */
  const char *i[] = {"a", "b"};
  CHECK(words_are("a\xe2\x80\xa8" "b", 1, i, 2), "U+2028 separates words (Python whitespace, as the engine)");
  const char *j[] = {"istanbul"};
  CHECK(words_are("\xc4\xb0stanbul", 1, j, 1), "İ lower-cases to i + U+0307 (Python lower), mark stripped");
  const char *k[] = {"hello", "[MASK]", "world"};
  CHECK(words_are("hello [MASK] world", 1, k, 3), "a special token in the text stays one word");
  el__words w = {0};
  el_error err = {0};
  CHECK(el__pretokenize("o\xff" "k", 3, 1, &w, &err) == EL_EINVAL && w.n == 0 && strstr(err.msg, "byte 1"),
        "invalid UTF-8 is refused, naming the byte: %s", err.msg);
  el__words_free(&w);
}

/* ---- the builder's words are the engine's words ------------------------ */

/* A batch of texts: the builder's words of each are checked against
 * el_tokenize on a vocabulary learned from exactly these texts with no size
 * limit and min-frequency 1, where every counted word becomes one entry. So
 * the engine must give one piece per builder word, and that piece must be
 * the builder's word itself (a special token its special id; a word over 100
 * characters [UNK]). Returns the number of texts that differ. */
static int same_words(const char *const *texts, const size_t *lens, int n, int lower,
                      const char *tag, int *n_words) {
  char dir[] = "/tmp/el_test_vocab_split_XXXXXX", path[300];
  if (!mkdtemp(dir)) return n;
  snprintf(path, sizeof path, "%s/vocab.txt", dir);
  el_error err = {0};
  el__word_counts *wc = NULL;
  el__wc_new(&wc, &err);
  for (int i = 0; i < n; i++) el__wc_add_text(wc, texts[i], lens[i], lower, &err);
  el__vb_opts o = {1 << 24, 1, EL_VOCAB_SCORE_FREQ};
  el__vb_vocab v = {0};
  el_tokenizer *tk = NULL;
  int bad = n;
  if (el__vb_learn(wc, &o, &v, &err) || el__vb_write(&v, path, &err) ||
      el_tokenizer_load(path, lower, &tk, &err)) {
    printf("#   %s: %s\n", tag, err.msg);
    goto done;
  }
  bad = 0;
  *n_words = 0;
  el__words w = {0};
  el_tokens t = {0};
  const int unk = el_tokenizer_special_id(tk, EL_TOK_UNK);
  for (int i = 0; i < n; i++) {
    int rb = el__pretokenize(texts[i], lens[i], lower, &w, &err);
    int re = el_tokenize(tk, texts[i], lens[i], &t, &err);
    int ok = rb == re && (rb || (w.n == t.n_words && w.n == t.n));
    for (int k = 0; ok && !rb && k < w.n; k++) {
      const char *word = w.buf + w.off[k];
      int want = w.special[k] >= 0 ? el_tokenizer_special_id(tk, (el_special)w.special[k])
                 : w.ncp[k] > EL__MAX_WORD_CHARS ? unk
                                                   : el_tokenizer_id(tk, word);
      ok = want >= 0 && t.tok[k].id == want && t.tok[k].word == k;
      if (!ok)
        printf("#   %s text %d word %d: builder [%s], engine [%s]\n", tag, i, k, word,
               el_tokenizer_token(tk, t.tok[k].id));
    }
    if (!ok && !bad)
      printf("#   %s text %d: builder rc %d, %d words; engine rc %d, %d words, %d pieces\n", tag, i, rb,
             w.n, re, t.n_words, t.n);
    bad += !ok;
    *n_words += w.n;
  }
  el__words_free(&w);
  el_tokens_free(&t);
done:
  el_tokenizer_free(tk);
  el__vb_free(&v);
  el__wc_free(wc);
  unlink(path);
  rmdir(dir);
  return bad;
}

static void golden_texts(const golden *g, int n, const char **texts, size_t *lens) {
  for (int i = 0; i < n; i++) {
    texts[i] = g[i].text;
    lens[i] = g[i].len < 0 ? strlen(g[i].text) : (size_t)g[i].len;
  }
}

static void test_same_words_golden(void) {
  enum { NU = sizeof k_uncased / sizeof *k_uncased, NC = sizeof k_cased / sizeof *k_cased };
  const char *texts[NU + NC];
  size_t lens[NU + NC];
  int words = 0;
  golden_texts(k_uncased, NU, texts, lens);
  golden_texts(k_cased, NC, texts + NU, lens + NU);
  int bad = same_words(texts, lens, NU + NC, 1, "uncased", &words);
  CHECK(bad == 0, "the tokenizer's %d golden texts, uncased: the builder's words are the engine's (%d words, %d texts differ)",
        NU + NC, words, bad);
  bad = same_words(texts, lens, NU + NC, 0, "cased", &words);
  CHECK(bad == 0, "the tokenizer's %d golden texts, cased: the builder's words are the engine's (%d words, %d texts differ)",
        NU + NC, words, bad);

  /* Invalid UTF-8: both refuse, naming the same byte; nothing is counted. */
  int same = 1;
  el__word_counts *wc = NULL;
  el_error err = {0};
  el__wc_new(&wc, &err);
  el__words w = {0};
  for (size_t i = 0; i < sizeof k_bad_utf8 / sizeof *k_bad_utf8; i++) {
    char want[32];
    snprintf(want, sizeof want, "byte %d", k_bad_utf8[i].at);
    err.msg[0] = 0;
    int rc = el__pretokenize(k_bad_utf8[i].bytes, (size_t)k_bad_utf8[i].len, 1, &w, &err);
    int ok = rc == EL_EINVAL && strstr(err.msg, want) != NULL;
    err.msg[0] = 0;
    rc = el__wc_add_text(wc, k_bad_utf8[i].bytes, (size_t)k_bad_utf8[i].len, 1, &err);
    ok = ok && rc == EL_EINVAL && strstr(err.msg, want) != NULL;
    if (!ok) printf("#   %s: rc %d, %s\n", k_bad_utf8[i].what, rc, err.msg);
    same &= ok;
  }
  CHECK(same && el__wc_total(wc) == 0,
        "the tokenizer's %zu invalid UTF-8 cases: the builder refuses each as the engine does, naming the byte, counting nothing",
        sizeof k_bad_utf8 / sizeof *k_bad_utf8);
  el__words_free(&w);
  el__wc_free(wc);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 2,000 lines of the shared corpus: 80 from each of its first 25 files (by
 * name), from line 201 on (past the Gutenberg front matter; a line is a
 * paragraph there). */
static void test_same_words_corpus(void) {
  const char *dir_path = "/work/shared/data/corpus/gutenberg-british-novels";
  enum { PER_FILE = 80, FILES = 25, SKIP_LINES = 200 };
  DIR *d = opendir(dir_path);
  if (!d) {
    SKIP("corpus %s not found: the builder-vs-engine word check on 2,000 corpus lines did not run", dir_path);
    return;
  }
  char *names[256];
  int nn = 0;
  struct dirent *e;
  while ((e = readdir(d)) && nn < 256)
    if (strlen(e->d_name) > 4 && !strcmp(e->d_name + strlen(e->d_name) - 4, ".txt"))
      names[nn++] = strdup(e->d_name);
  closedir(d);
  qsort(names, (size_t)nn, sizeof *names, cmp_str);
  char **texts = calloc(PER_FILE * FILES, sizeof *texts);
  size_t *lens = calloc(PER_FILE * FILES, sizeof *lens);
  int n = 0;
  for (int f = 0; f < nn && f < FILES; f++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir_path, names[f]);
    FILE *fp = fopen(path, "rb");
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0, taken = 0;
    while (fp && taken < PER_FILE && (len = getline(&line, &cap, fp)) > 0)
      if (++lineno > SKIP_LINES && len > 1) {
        texts[n] = strndup(line, (size_t)len);
        lens[n++] = (size_t)len;
        taken++;
      }
    free(line);
    if (fp) fclose(fp);
  }
  int words = 0, bad = same_words((const char *const *)texts, lens, n, 1, "corpus uncased", &words);
  CHECK(n == PER_FILE * FILES && bad == 0,
        "%d corpus lines, uncased: the builder's words are the engine's (%d words, %d lines differ)", n,
        words, bad);
  bad = same_words((const char *const *)texts, lens, n, 0, "corpus cased", &words);
  CHECK(n == PER_FILE * FILES && bad == 0,
        "%d corpus lines, cased: the builder's words are the engine's (%d words, %d lines differ)", n, words,
        bad);
  for (int i = 0; i < n; i++) free(texts[i]);
  for (int i = 0; i < nn; i++) free(names[i]);
  free(texts);
  free(lens);
}

/* The classic example: low x5, lower x2, newest x6, widest x3. */
static el__word_counts *classic(void) {
  el__word_counts *wc;
  el_error err = {0};
  el__wc_new(&wc, &err);
  el__wc_add_word(wc, "low", 3, 5, &err);
  el__wc_add_word(wc, "lower", 5, 2, &err);
  el__wc_add_word(wc, "newest", 6, 6, &err);
  el__wc_add_word(wc, "widest", 6, 3, &err);
  return wc;
}

static int vocab_is(const el__vb_vocab *v, const char *const *want, int n) {
  int ok = v->n == n;
  for (int i = 0; ok && i < n; i++) ok = !strcmp(v->tok[i], want[i]);
  if (!ok) {
    printf("#   got %d:", v->n);
    for (int i = 0; i < v->n; i++) printf(" %s", v->tok[i]);
    printf("\n");
  }
  return ok;
}

static void test_learn(void) {
  el__word_counts *wc = classic();
  el_error err = {0};
  el__vb_vocab v;
  /* Hand-computed pair counts: (##e,##s)=9 and (##s,##t)=9 tie, (##e,##s) was
   * seen first; then ##es+##t=9; l+##o=7, lo+##w=7; n+##e=6 (the oldest of
   * the pairs counting 6); then (ne,##w) and (##w,##est) both count 6 and
   * (##w,##est) is older (created by the ##est merge); then ne+##west. */
  el__vb_opts o = {23, 1, EL_VOCAB_SCORE_FREQ};
  CHECK(el__vb_learn(wc, &o, &v, &err) == EL_OK, "learn (frequency) %s", err.msg);
  const char *want[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "l", "n", "w", "##d", "##e",
                        "##i", "##o", "##r", "##s", "##t", "##w", "##es", "##est", "lo", "low",
                        "ne", "##west", "newest"};
  CHECK(vocab_is(&v, want, 23), "specials, sorted alphabet, then merges in order");
  CHECK(v.n_alphabet == 11 && v.n_merges == 7, "11 characters and 7 merges (%d, %d)",
        v.n_alphabet, v.n_merges);
  el__vb_vocab v2;
  el__vb_learn(wc, &o, &v2, &err);
  int same = v.n == v2.n;
  for (int i = 0; same && i < v.n; i++) same = !strcmp(v.tok[i], v2.tok[i]);
  CHECK(same, "learning twice gives the same vocabulary");
  el__vb_free(&v2);
  el__vb_free(&v);

  /* min-frequency 7: characters n(6) w(3) ##r(2) ##i(3) ##d(3) are dropped, so
   * only "low" remains, whose pairs occur 5 < 7 times: no merge. */
  el__vb_opts o7 = {100, 7, EL_VOCAB_SCORE_FREQ};
  CHECK(el__vb_learn(wc, &o7, &v, &err) == EL_OK, "learn with min-frequency 7");
  const char *want7[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "l", "##e", "##o", "##s",
                         "##t", "##w"};
  CHECK(vocab_is(&v, want7, 11), "min-frequency filters characters and merges");
  el__vb_free(&v);

  /* Likelihood score count(ab)/(count(a)count(b)): (w,##i) = (##i,##d) =
   * 3/(3*3) are the best; (w,##i) was seen first, then wi+##d = 3/(3*3). */
  el__vb_opts ol = {18, 1, EL_VOCAB_SCORE_LIKELIHOOD};
  CHECK(el__vb_learn(wc, &ol, &v, &err) == EL_OK, "learn (likelihood)");
  CHECK(v.n == 18 && !strcmp(v.tok[16], "wi") && !strcmp(v.tok[17], "wid"),
        "likelihood score merges w+##i then wi+##d (%s %s)", v.n > 16 ? v.tok[16] : "-",
        v.n > 17 ? v.tok[17] : "-");
  el__vb_free(&v);

  el__vb_opts bad = {5, 1, EL_VOCAB_SCORE_FREQ};
  CHECK(el__vb_learn(wc, &bad, &v, &err) == EL_EINVAL, "vocab size below 6 refused: %s", err.msg);
  el__wc_free(wc);
  el__word_counts *empty;
  el__wc_new(&empty, &err);
  CHECK(el__vb_learn(empty, &o, &v, &err) == EL_EINVAL, "empty input refused: %s", err.msg);
  el__wc_free(empty);
}

static void test_text_counts(void) {
  el__word_counts *wc;
  el_error err = {0};
  el__wc_new(&wc, &err);
  const char *t = "The cat. the CAT!\n";
  el__wc_add_text(wc, t, strlen(t), 1, &err);
  CHECK(el__wc_total(wc) == 6 && el__wc_distinct(wc) == 4, "counts: 6 words, 4 distinct (%llu, %zu)",
        (unsigned long long)el__wc_total(wc), el__wc_distinct(wc));
  char longw[150];
  memset(longw, 'a', 149);
  longw[149] = 0;
  el__wc_add_text(wc, longw, 149, 1, &err);
  CHECK(el__wc_total(wc) == 6, "words over 100 characters are not counted");
  el__wc_free(wc);
}

static void write_text(const char *path, const char *s) {
  FILE *f = fopen(path, "wb");
  fputs(s, f);
  fclose(f);
}

static void test_files(void) {
  char dir[] = "/tmp/el_test_vocab_XXXXXX";
  if (!mkdtemp(dir)) {
    CHECK(0, "mkdtemp");
    return;
  }
  char path[256];
  snprintf(path, sizeof path, "%s/vocab.txt", dir);
  el__word_counts *wc = classic();
  el_error err = {0};
  el__vb_vocab v;
  el__vb_opts o = {23, 1, EL_VOCAB_SCORE_FREQ};
  el__vb_learn(wc, &o, &v, &err);
  CHECK(el__vb_write(&v, path, &err) == EL_OK, "write vocab.txt");
  int size = 0, cased = -1;
  uint64_t h1 = 0, h2 = 0;
  CHECK(el__vb_check(path, &size, &h1, &cased, &err) == EL_OK && size == 23 && cased == 0,
        "written vocabulary passes the check (size %d, cased %d) %s", size, cased, err.msg);
  el__vb_write(&v, path, &err);
  el__vb_check(path, NULL, &h2, NULL, &err);
  CHECK(h1 == h2, "same vocabulary, same file hash");
  FILE *f = fopen(path, "rb");
  char line[64];
  int n = 0, ok = 1;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    ok &= n < v.n && !strcmp(line, v.tok[n]);
    n++;
  }
  fclose(f);
  CHECK(ok && n == 23, "one token per line, in id order");
  char tmpname[300];
  snprintf(tmpname, sizeof tmpname, "%s/vocab.txt.tmp-%d", dir, (int)getpid());
  CHECK(access(tmpname, F_OK) != 0, "no temporary file left behind");
  el__vb_free(&v);
  el__wc_free(wc);

  snprintf(path, sizeof path, "%s/nomask.txt", dir);
  write_text(path, "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\n##s\n");
  err.msg[0] = 0;
  CHECK(el__vb_check(path, NULL, NULL, NULL, &err) == EL_EFORMAT && strstr(err.msg, "[MASK]"),
        "a vocabulary without [MASK] is refused, naming it: %s", err.msg);
  write_text(path, "[PAD]\nthe\n");
  CHECK(el__vb_check(path, NULL, NULL, NULL, &err) == EL_EFORMAT && strstr(err.msg, "[UNK]") &&
            strstr(err.msg, "[CLS]") && strstr(err.msg, "[SEP]"),
        "every missing special token is named: %s", err.msg);
  write_text(path, "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\nthe\n");
  CHECK(el__vb_check(path, NULL, NULL, NULL, &err) == EL_EFORMAT && strstr(err.msg, "line 7"),
        "a repeated token is refused: %s", err.msg);
  write_text(path, "");
  CHECK(el__vb_check(path, NULL, NULL, NULL, &err) == EL_EFORMAT, "an empty vocabulary is refused");
  write_text(path, "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nThe\n");
  CHECK(el__vb_check(path, NULL, NULL, &cased, &err) == EL_OK && cased == 1,
        "upper-case tokens mark a cased vocabulary");
  snprintf(path, sizeof path, "%s/missing.txt", dir);
  CHECK(el__vb_check(path, NULL, NULL, NULL, &err) == EL_EIO, "a missing file is EL_EIO");
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) printf("# could not remove %s\n", dir);
}

int main(void) {
  test_pretok();
  test_same_words_golden();
  test_same_words_corpus();
  test_text_counts();
  test_learn();
  test_files();
  return el_test_done();
}
