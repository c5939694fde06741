/* The vocabulary learner: BasicTokenizer splitting, WordPiece merges checked
 * by hand on a tiny word list, min-frequency, determinism, the written file
 * and the refusal of a vocabulary without the special tokens. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../test.h"
#include "data_pretok.h"
#include "vocab_builder.h"

static int words_are(const char *text, int lower, const char *const *want, int n) {
  el__words w;
  memset(&w, 0, sizeof w);
  int ok = el__pretokenize(text, strlen(text), lower, &w) == 0 && w.n == n;
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
  const char *f[] = {"ok"};
  CHECK(words_are("o\xff" "k", 1, f, 1), "invalid UTF-8 bytes are dropped");
  /* NFC: e + combining acute composes, then (lower) the accent is stripped */
  const char *g[] = {"e"};
  CHECK(words_are("e\xcc\x81", 1, g, 1), "decomposed accent stripped when lower-casing");
  const char *h[] = {"\xc3\xa9"};
  CHECK(words_are("e\xcc\x81", 0, h, 1), "NFC composes e + U+0301 without lower-casing");
  CHECK(el__is_punct('$') && el__is_punct('~') && !el__is_punct('a') && el__is_punct(0x3002),
        "punctuation classes: ASCII symbols and category P");
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
  test_text_counts();
  test_learn();
  test_files();
  return el_test_done();
}
