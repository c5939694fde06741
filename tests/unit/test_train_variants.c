/* Correct text written another way (lang/text_variants.h): British
 * spellings derived from Debian's word lists, FCE's split contractions, the
 * per-copy draw, the vocabulary builder's counts, and the error for a missing
 * list. Needs wamerican + wbritish (SKIP without them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../test.h"
#include "text_variants.h"
#include "vocab_builder.h"

static el__variants *V;

static void check_british(const char *us, const char *want) {
  char out[EL__VARIANT_WORD_MAX] = "";
  int got = el__variants_british(V, us, out);
  if (want)
    CHECK(got && !strcmp(out, want), "british(%s) = %s (got %s)", us, want, got ? out : "none");
  else
    CHECK(!got, "british(%s): none (got %s)", us, got ? out : "none");
}

static void test_pairs(void) {
  CHECK(el__variants_count(V) > 1000, "over 1,000 pairs derived (%d)", el__variants_count(V));
  check_british("color", "colour");
  check_british("theater", "theatre");
  check_british("realize", "realise");
  check_british("organization", "organisation");
  check_british("analyze", "analyse");
  check_british("traveling", "travelling");
  check_british("catalog", "catalogue");
  check_british("defense", "defence");
  check_british("gray", "grey");
  check_british("Color", "Colour");   /* case pattern kept */
  check_british("COLOR", "COLOUR");
  check_british("colour", NULL);      /* already British */
  check_british("check", NULL);       /* in both lists: not American-only */
  check_british("the", NULL);
  check_british("", NULL);
}

/* words joined by single spaces */
static void join(const char **w, int n, char *out) {
  out[0] = 0;
  for (int i = 0; i < n; i++) {
    if (i) strcat(out, " ");
    strcat(out, w[i]);
  }
}

static void check_apply(const char *in, int flags, const char *want) {
  const char *words[32], *out[32];
  char copy[512], buf[32 * EL__VARIANT_WORD_MAX], got[512];
  snprintf(copy, sizeof copy, "%s", in);
  int n = 0;
  for (char *s = NULL, *t = strtok_r(copy, " ", &s); t && n < 32; t = strtok_r(NULL, " ", &s)) words[n++] = t;
  uint64_t rng = 5;
  int m = el__variants_apply(V, words, n, flags, &rng, out, buf);
  join(out, m, got);
  CHECK(!strcmp(got, want), "apply(\"%s\", %d) = \"%s\" (got \"%s\")", in, flags, want, got);
}

static void test_apply(void) {
  check_apply("I don ' t like the color", EL__VAR_SPLIT_NT, "I do n't like the color");
  check_apply("I can ' t and won ' t", EL__VAR_SPLIT_NT, "I ca n't and wo n't");
  check_apply("It isn ' t the theater", EL__VAR_SPLIT_NT | EL__VAR_BRITISH, "It is n't the theatre");
  check_apply("It isn ' t the theater", EL__VAR_BRITISH, "It isn ' t the theatre");
  check_apply("It isn ' t the theater", 0, "It isn ' t the theater");
  check_apply("the rock ' n ' roll", EL__VAR_SPLIT_NT, "the rock ' n ' roll"); /* no "t" after */
  check_apply("n ' t", EL__VAR_SPLIT_NT, "n ' t");  /* a one-letter word is no contraction */
  check_apply("don '", EL__VAR_SPLIT_NT, "don '");  /* cut short */
  /* the draw: two fair bits, deterministic for a state */
  uint64_t r1 = 42, r2 = 42;
  int seen[8] = {0}, same = 1, fair = 1;
  for (int i = 0; i < 8000; i++) {
    int a = el__variants_draw(&r1), b = el__variants_draw(&r2);
    same &= a == b;
    if (a >= 0 && a < 8) seen[a]++;
  }
  for (int k = 0; k < 8; k++) fair &= seen[k] > 850 && seen[k] < 1150;
  CHECK(same, "draw: deterministic for a state");
  CHECK(fair, "draw: each of the 8 combinations about an eighth (%d %d %d %d %d %d %d %d)", seen[0],
        seen[1], seen[2], seen[3], seen[4], seen[5], seen[6], seen[7]);
}

/* names: a name after the first word becomes another name; the first word,
 * words that are also ordinary words ("Pat": pat) and lower-case words stay */
static void test_names(void) {
  CHECK(el__variants_names(V) > 3000, "names from the word list (%d)", el__variants_names(V));
  const char *in[] = {"Helen", "met", "Ryan", "and", "Pat", "in", "Paris", "with", "helen", "."};
  const char *out[16];
  char buf[16 * EL__VARIANT_WORD_MAX];
  int changed[10] = {0}, differ = 0;
  for (uint64_t seed = 1; seed <= 20; seed++) {
    uint64_t rng = seed;
    int m = el__variants_apply(V, in, 10, EL__VAR_NAMES, &rng, out, buf);
    if (m != 10) {
      CHECK(0, "names keep the word count (%d)", m);
      return;
    }
    for (int i = 0; i < 10; i++) changed[i] += strcmp(out[i], in[i]) != 0;
    differ += strcmp(out[2], "Ryan") != 0;
  }
  CHECK(changed[2] == 20 && changed[6] == 20, "names after the first word replaced (Ryan %d, Paris %d of 20)",
        changed[2], changed[6]);
  CHECK(!changed[0] && !changed[1] && !changed[4] && !changed[8] && !changed[9],
        "the first word, ordinary words, \"Pat\" (pat is a word) and lower case stay");
  CHECK(differ == 20, "the replacement names vary with the draw");
}

static void test_vocab_counts(void) {
  el__word_counts *wc = NULL;
  el_error err = {0};
  CHECK(el__wc_new(&wc, &err) == 0, "word counts");
  const char *text = "the color of the color of the theater";
  CHECK(el__wc_add_text(wc, text, strlen(text), 1, &err) == 0, "count text");
  size_t before = el__wc_distinct(wc);
  uint64_t total = el__wc_total(wc);
  CHECK(el__wc_add_british(wc, V, &err) == 0, "add British forms");
  CHECK(el__wc_distinct(wc) == before + 2, "two British forms added (colour, theatre): %zu -> %zu",
        before, el__wc_distinct(wc));
  CHECK(el__wc_total(wc) == total + 1 + 1, "half of each count, rounded up: color 2 -> colour 1, theater 1 -> theatre 1");
  el__wc_free(wc);
}

static void test_missing_list(void) {
  el__variants *v = NULL;
  el_error err = {0};
  int rc = el__variants_load("/nonexistent-dict", &v, &err);
  CHECK(rc == EL_EIO && v == NULL && strstr(err.msg, "american-english") && strstr(err.msg, "wamerican"),
        "a missing word list is refused naming the file and the Debian package: %s", err.msg);
}

int main(void) {
  test_missing_list();
  if (access("/usr/share/dict/american-english", R_OK) || access("/usr/share/dict/british-english", R_OK)) {
    SKIP("no /usr/share/dict/american-english or british-english (Debian wamerican, wbritish)");
    return el_test_done();
  }
  el_error err = {0};
  int rc = el__variants_load(NULL, &V, &err);
  CHECK(rc == 0, "word lists load: %s", rc ? err.msg : "ok");
  if (rc) return el_test_done();
  test_pairs();
  test_apply();
  test_names();
  test_vocab_counts();
  el__variants_free(V);
  return el_test_done();
}
