/* Learner-error corruption (lang/learner.h): each family on hand-written
 * sentences with the FCE labels, capitalisation, the sentence-level driver
 * (determinism, realised rate, label convention), the word-level variants
 * and the error paths; the rules the checker reads are test_lang_rules.c's.
 * Needs WordNet (Debian wordnet-base); skips without. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "../test.h"
#include "learner.h"
#include "learner_fixture.h"

static el__learner *L;
static el__learner_out OUT;

/* Splits a space-separated sentence into words (static storage). */
static int split(const char *text, const char **words, char *buf, int max) {
  strcpy(buf, text);
  int n = 0;
  for (char *save = NULL, *t = strtok_r(buf, " ", &save); t && n < max; t = strtok_r(NULL, " ", &save))
    words[n++] = t;
  return n;
}

/* The corrupted sentence as "w w w" and its labels as "0100". */
static void render(char *text, char *labels) {
  text[0] = 0;
  for (int i = 0; i < OUT.n; i++) {
    if (i) strcat(text, " ");
    strcat(text, OUT.words[i]);
    labels[i] = (char)('0' + OUT.labels[i]);
  }
  labels[OUT.n] = 0;
}

/* One error of `family` on `in` with seed; writes the result. */
static int one(int family, const char *in, uint64_t seed, char *text, char *labels) {
  const char *w[64];
  char buf[1024];
  int n = split(in, w, buf, 64);
  el_error err = {0};
  int rc = el__learner_corrupt_family(L, w, n, family, &seed, &OUT, &err);
  if (rc) printf("#   %s\n", err.msg);
  render(text, labels);
  return rc ? -1 : OUT.n_edits;
}

/* The family has exactly one place in `in`: the result must be `want`. */
static void expect(int family, const char *in, const char *want, const char *want_labels) {
  char text[1024], labels[128];
  int e = one(family, in, 7, text, labels);
  int ok = e == 1 && !strcmp(text, want) && !strcmp(labels, want_labels);
  CHECK(ok, "%s: \"%s\" -> \"%s\" %s", el__lfam_name(family), in, want, want_labels);
  if (!ok) printf("#   got %d edit(s): \"%s\" %s\n", e, text, labels);
}

/* The word at position i of the result is one of the space-separated alts,
 * it alone is labelled, and every other word is the input's. */
static void expect_at(int family, const char *in, int i, const char *alts) {
  const char *w[64];
  char buf[1024];
  int n = split(in, w, buf, 64);
  int ok = 1;
  char text[1024], labels[128];
  for (uint64_t seed = 1; seed <= 20 && ok; seed++) {
    ok = one(family, in, seed, text, labels) == 1 && OUT.n == n;
    for (int j = 0; ok && j < n; j++)
      ok = j == i ? OUT.labels[j] == 1 : OUT.labels[j] == 0 && !strcmp(OUT.words[j], w[j]);
    if (ok) {
      char a[256], *save = NULL;
      strcpy(a, alts);
      int hit = 0;
      for (char *t = strtok_r(a, " ", &save); t; t = strtok_r(NULL, " ", &save))
        hit |= !strcmp(t, OUT.words[i]);
      ok = hit;
    }
  }
  CHECK(ok, "%s: \"%s\": word %d becomes one of {%s}, marked alone", el__lfam_name(family), in,
        i, alts);
  if (!ok) printf("#   got \"%s\" %s\n", text, labels);
}

static void test_families(void) {
  /* verbs */
  expect(EL__LF_VERB_SVA, "She goes to school .", "She go to school .", "01000");
  expect(EL__LF_VERB_SVA, "I eat apples .", "I eats apples .", "0100");
  expect(EL__LF_VERB_SVA, "They were happy .", "They was happy .", "0100");
  expect(EL__LF_VERB_SVA, "He watches films .", "He watch films .", "0100");
  expect(EL__LF_VERB_TENSE, "Yesterday I went home .", "Yesterday I go home .", "00100");
  expect(EL__LF_VERB_TENSE, "He studied hard .", "He studies hard .", "0100");
  expect_at(EL__LF_VERB_FORM, "I want to go .", 3, "going went gone");
  expect_at(EL__LF_VERB_FORM, "He has eaten .", 2, "eat eating");
  expect(EL__LF_AUX_MISSING, "I am going home .", "I going home .", "0100");
  /* nouns */
  expect(EL__LF_NOUN_NUM, "I like the children .", "I like the child .", "00010");
  expect(EL__LF_NOUN_NUM, "She has two cats .", "She has two cat .", "00010");
  expect(EL__LF_NOUN_NUM, "I bought two boxes .", "I bought two box .", "00010");
  expect(EL__LF_NOUN_NUM, "I bought a box .", "I bought a boxes .", "00010");
  /* determiners: a missing word marks the word after the gap */
  expect(EL__LF_DET_MISSING, "I took the exam .", "I took exam .", "0010");
  expect(EL__LF_DET_MISSING, "The cat sat .", "Cat sat .", "100");
  expect(EL__LF_DET_WRONG, "I saw the elephant .", "I saw an elephant .", "00100");
  expect(EL__LF_DET_WRONG, "The dog barks .", "A dog barks .", "1000");
  expect_at(EL__LF_DET_WRONG, "She ate an apple .", 2, "a the");
  expect_at(EL__LF_DET_WRONG, "THE END", 0, "AN");
  /* prepositions */
  expect_at(EL__LF_PREP_WRONG, "I am interested in art .", 3,
            "on at to for of with by from about into");
  expect(EL__LF_PREP_MISSING, "I listen to music .", "I listen music .", "0010");
  /* punctuation: a gap marks the word after it; at the end, nothing */
  expect(EL__LF_PUNCT_MISSING, "However , it works", "However it works", "010");
  expect(EL__LF_PUNCT_MISSING, "It works .", "It works", "00"); /* FCE marks nothing at the end */
  expect_at(EL__LF_PUNCT_WRONG, "It works .", 2, "!");  /* a closing mark stays one */
  /* pronouns */
  expect(EL__LF_PRON_MISSING, "Cats like it .", "Cats like .", "001");
  /* case: "The" -> "A" above; here a name loses its capital or a word gains one */
  expect_at(EL__LF_ORTH, "london", 0, "London");
}

/* Insertions: one new word from the family's list, marked; the rest as
 * before and unmarked. */
static void test_insertions(void) {
  static const struct {
    int family;
    const char *in;
  } C[] = {{EL__LF_DET_EXTRA, "I like music ."},
           {EL__LF_PREP_EXTRA, "We discussed the plan ."},
           {EL__LF_PUNCT_EXTRA, "I like cats"},
           {EL__LF_WORD_EXTRA, "I like cats very much ."}};
  for (size_t c = 0; c < sizeof C / sizeof C[0]; c++) {
    int nlist = 0;
    const char *const *list = el__learner_insertions(C[c].family, &nlist);
    const char *w[64];
    char buf[1024], text[1024], labels[128];
    int n = split(C[c].in, w, buf, 64), ok = nlist > 0;
    for (uint64_t seed = 1; seed <= 30 && ok; seed++) {
      ok = one(C[c].family, C[c].in, seed, text, labels) == 1 && OUT.n == n + 1;
      int at = -1;
      for (int j = 0; ok && j < OUT.n; j++)
        if (OUT.labels[j]) ok = at < 0, at = j;
      ok = ok && at > 0; /* never before the first word */
      for (int j = 0, k = 0; ok && j < OUT.n; j++)
        if (j != at) ok = !strcmp(OUT.words[j], w[k++]);
      int listed = 0;
      for (int k = 0; ok && k < nlist; k++) listed |= !strcmp(OUT.words[at], list[k]);
      ok = ok && listed;
    }
    CHECK(ok, "%s: \"%s\": one listed word inserted and marked, the rest unchanged",
          el__lfam_name(C[c].family), C[c].in);
    if (!ok) printf("#   got \"%s\" %s\n", text, labels);
  }
  char text[1024], labels[128];
  CHECK(one(EL__LF_PREP_EXTRA, "We discussed the plan .", 3, text, labels) == 1 &&
            !strcmp(labels, "001000"),
        "U:PREP goes before the noun phrase: \"%s\"", text);
}

/* Optimal string alignment distance (adjacent transposition = 1). */
static int osa(const char *a, const char *b) {
  int n = (int)strlen(a), m = (int)strlen(b), d[64][64];
  for (int i = 0; i <= n; i++) d[i][0] = i;
  for (int j = 0; j <= m; j++) d[0][j] = j;
  for (int i = 1; i <= n; i++)
    for (int j = 1; j <= m; j++) {
      int c = a[i - 1] != b[j - 1];
      int v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
      if (d[i - 1][j - 1] + c < v) v = d[i - 1][j - 1] + c;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
        v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  return d[n][m];
}

static void test_spelling_and_order(void) {
  const char *in = "The elephant sleeps in a zoo";
  const char *w[16];
  char buf[256], text[1024], labels[128];
  int n = split(in, w, buf, 16), ok = 1, touched_short = 0;
  for (uint64_t seed = 1; seed <= 200 && ok; seed++) {
    ok = one(EL__LF_SPELL, in, seed, text, labels) == 1 && OUT.n == n;
    int changed = 0;
    for (int j = 0; ok && j < n; j++) {
      if (!strcmp(OUT.words[j], w[j])) {
        ok = OUT.labels[j] == 0;
        continue;
      }
      changed++;
      touched_short |= strlen(w[j]) < 3;
      ok = OUT.labels[j] == 1 && osa(OUT.words[j], w[j]) == 1 && OUT.words[j][0] == w[j][0];
    }
    ok = ok && changed == 1;
  }
  CHECK(ok, "R:SPELL: one word, one character edit, first letter kept, marked (200 seeds)");
  if (!ok) printf("#   got \"%s\" %s\n", text, labels);
  CHECK(!touched_short, "R:SPELL never touches words shorter than 3 letters (\"in\", \"a\")");
  CHECK(one(EL__LF_SPELL, "I am ok", 1, text, labels) == 0, "R:SPELL: no word of 3+ letters, no edit");

  const char *wo[16];
  char wbuf[256];
  int nw = split("I really like it .", wo, wbuf, 16);
  ok = 1;
  for (uint64_t seed = 1; seed <= 50 && ok; seed++) {
    ok = one(EL__LF_WORD_ORDER, "I really like it .", seed, text, labels) == 1 && OUT.n == nw;
    int a = ok ? (int)(strchr(labels, '1') - labels) : 0, ones = 0;
    for (int j = 0; ok && j < nw; j++) ones += labels[j] == '1';
    ok = ok && ones == 2 && a + 1 < nw && labels[a + 1] == '1' &&
         !strcasecmp(OUT.words[a], wo[a + 1]) && !strcasecmp(OUT.words[a + 1], wo[a]);
  }
  CHECK(ok, "R:WO: two adjacent words swapped, both marked");
  CHECK(one(EL__LF_WORD_ORDER, "She often goes .", 5, text, labels) == 1 &&
            (!strcmp(text, "Often she goes .") || !strcmp(text, "She goes often .")),
        "R:WO keeps the sentence-initial capital at the start: \"%s\"", text);
}

/* R:PUNCT never ends a sentence with a comma (a letter's salutation, not a
 * learner's error): the final mark becomes another closing mark; a comma
 * inside the sentence may still become a full stop. */
static void test_final_punct(void) {
  char text[1024], labels[128];
  int final_comma = 0, final_swaps = 0, inner = 0;
  for (uint64_t seed = 1; seed <= 300; seed++) {
    if (one(EL__LF_PUNCT_WRONG, "Yes , I like it very much .", seed, text, labels) != 1) continue;
    size_t n = strlen(text);
    if (labels[strlen(labels) - 1] == '1') {
      final_swaps++;
      final_comma += text[n - 1] == ',' || text[n - 1] == ';' || text[n - 1] == ':';
    } else {
      inner++;
    }
  }
  CHECK(final_swaps > 20 && final_comma == 0,
        "R:PUNCT: the final full stop becomes ! or ?, never a comma (%d swaps, %d commas)", final_swaps,
        final_comma);
  CHECK(inner > 20, "R:PUNCT: the inner comma is still swapped (%d)", inner);
}

static void test_no_site(void) {
  char text[1024], labels[128];
  CHECK(one(EL__LF_DET_MISSING, "Cats sleep .", 1, text, labels) == 0 &&
            !strcmp(text, "Cats sleep .") && !strcmp(labels, "000"),
        "a family with no place in the sentence leaves it unchanged and unmarked");
  CHECK(one(EL__LF_PUNCT_MISSING, ".", 1, text, labels) == 0, "the only token is never deleted");
  CHECK(one(EL__LF_NOUN_NUM, "I met Londons", 1, text, labels) == 0,
        "names in mid-sentence are left alone");
  CHECK(one(EL__LF_VERB_SVA, "He puts it away .", 1, text, labels) == 0,
        "\"He puts\": no agreement error (\"He put\" is a correct past)");
}

/* Sentences where every family has a place. */
static const char *const CORPUS[] = {
    "She goes to the school by bus every day , and I walk there .",
    "Yesterday I went to a concert with my friends , and we were happy .",
    "I am writing to complain about the show that I saw in London .",
    "They have eaten the cakes , but he wants to buy more boxes of them .",
    "The children played in the garden while their parents talked about the plans .",
    "I think that you will enjoy the trip to the mountains in summer .",
    "He is reading a book because he has finished his work .",
};
#define N_CORPUS ((int)(sizeof CORPUS / sizeof CORPUS[0]))

static void test_driver(void) {
  const char *w[N_CORPUS][64];
  char buf[N_CORPUS][1024];
  int n[N_CORPUS];
  for (int s = 0; s < N_CORPUS; s++) n[s] = split(CORPUS[s], w[s], buf[s], 64);
  long tokens = 0, edits = 0, labels = 0, fam[EL__LF_COUNT] = {0};
  int ok_labels = 1, ok_rc = 1;
  uint64_t rng = 42;
  for (int rep = 0; rep < 3000; rep++)
    for (int s = 0; s < N_CORPUS; s++) {
      el_error err = {0};
      ok_rc &= el__learner_corrupt(L, w[s], n[s], 0.12, &rng, &OUT, &err) == 0;
      int lab = 0;
      for (int i = 0; i < OUT.n; i++) lab += OUT.labels[i];
      /* every error marks one token, a word-order swap two; a gap at the end
       * of the sentence none (the sentence then ends in another token) */
      int end_gap = strcmp(OUT.words[OUT.n - 1], w[s][n[s] - 1]) != 0;
      ok_labels &= lab >= OUT.n_edits - 2 * end_gap && lab <= OUT.n_edits + OUT.family_edits[EL__LF_WORD_ORDER];
      tokens += n[s];
      edits += OUT.n_edits;
      labels += lab;
      for (int f = 0; f < EL__LF_COUNT; f++) fam[f] += OUT.family_edits[f];
    }
  CHECK(ok_rc, "corrupt succeeds on every sentence");
  CHECK(ok_labels, "labels: one marked token per error (two for a swap, none for a gap at the end)");
  double rate = (double)edits / (double)tokens;
  CHECK_NEAR(rate, 0.12, 0.0, 0.08, "realised errors per token %.4f close to the rate 0.12", rate);
  int fam_ok = 1;
  for (int f = 0; f < EL__LF_COUNT; f++) {
    double share = (double)fam[f] / (double)edits, want = el__lfam_weight(f);
    /* redraws shift shares towards families with more places; within x2 */
    if (share < want / 2 || share > want * 2) {
      fam_ok = 0;
      printf("#   %s: share %.4f, weight %.4f\n", el__lfam_name(f), share, want);
    }
  }
  CHECK(fam_ok, "every family's share within a factor 2 of its weight (%ld errors)", edits);
  double wsum = 0;
  for (int f = 0; f < EL__LF_COUNT; f++) wsum += el__lfam_weight(f);
  CHECK_NEAR(wsum, 1.0, 1e-12, 0, "family weights sum to 1");

  /* determinism, and the input left alone */
  char first[1024], again[1024], lab1[128], lab2[128];
  uint64_t r1 = 99, r2 = 99, r3 = 100;
  el__learner_corrupt(L, w[0], n[0], 0.3, &r1, &OUT, NULL);
  render(first, lab1);
  el__learner_corrupt(L, w[0], n[0], 0.3, &r2, &OUT, NULL);
  render(again, lab2);
  CHECK(!strcmp(first, again) && !strcmp(lab1, lab2) && r1 == r2,
        "same seed, same sentence and labels, same rng state after");
  int differs = 0;
  for (int t = 0; t < 20 && !differs; t++) {
    el__learner_corrupt(L, w[0], n[0], 0.3, &r3, &OUT, NULL);
    render(again, lab2);
    differs = strcmp(first, again) != 0;
  }
  CHECK(differs, "other seeds give other errors");
  CHECK(!strcmp(w[0][0], "She") && !strcmp(w[0][n[0] - 1], "."), "the input words are not modified");

  uint64_t r = 5;
  el__learner_corrupt(L, w[1], n[1], 0.0, &r, &OUT, NULL);
  render(first, lab1);
  CHECK(!strcmp(first, CORPUS[1]) && !strchr(lab1, '1'), "rate 0 leaves the sentence as it is");
  int ok1 = el__learner_corrupt(L, w[1], n[1], 1.0, &r, &OUT, NULL) == 0 && OUT.n_edits > n[1] / 3;
  CHECK(ok1, "rate 1 corrupts heavily without failing (%d errors on %d tokens)", OUT.n_edits, n[1]);
  CHECK(el__learner_corrupt(L, NULL, 0, 0.1, &r, &OUT, NULL) == 0 && OUT.n == 0,
        "an empty sentence stays empty");
}

static void test_variants(void) {
  char v[8][EL__LWORD_MAX];
  static const struct {
    int family;
    const char *w, *want;
  } C[] = {{EL__LF_VERB_TENSE, "went", "go"},        {EL__LF_VERB_TENSE, "walks", "walked"},
           {EL__LF_VERB_TENSE, "stop", "stopped"},   {EL__LF_VERB_SVA, "goes", "go"},
           {EL__LF_VERB_SVA, "carry", "carries"},   {EL__LF_VERB_SVA, "is", "are"},
           {EL__LF_VERB_SVA, "don't", "doesn't"},
           {EL__LF_VERB_FORM, "make", "making"},     {EL__LF_VERB_FORM, "running", "run"},
           {EL__LF_VERB_FORM, "went", "gone"},       {EL__LF_VERB_FORM, "seen", "saw"},
           {EL__LF_VERB_FORM, "wrote", "written"},
           {EL__LF_NOUN_NUM, "child", "children"},   {EL__LF_NOUN_NUM, "cats", "cat"},
           {EL__LF_NOUN_NUM, "box", "boxes"},        {EL__LF_NOUN_NUM, "city", "cities"},
           {EL__LF_NOUN_NUM, "information", "informations"},
           {EL__LF_DET_WRONG, "a", "an"},            {EL__LF_PREP_WRONG, "in", "on"},
           {EL__LF_PUNCT_WRONG, ",", "."}};
  for (size_t c = 0; c < sizeof C / sizeof C[0]; c++) {
    int k = el__learner_variants(L, C[c].w, C[c].family, v, 8), hit = 0, self = 0;
    for (int i = 0; i < k; i++) hit |= !strcmp(v[i], C[c].want), self |= !strcmp(v[i], C[c].w);
    CHECK(hit && !self, "%s variants of \"%s\" include \"%s\" and not the word itself",
          el__lfam_name(C[c].family), C[c].w, C[c].want);
  }
  /* "he puts" -> "he put" reads as a correct past: neither family offers it
   * (tense offers the over-regularised "putted") */
  for (int f = 0; f < 2; f++) {
    int fam = f ? EL__LF_VERB_TENSE : EL__LF_VERB_SVA, k = el__learner_variants(L, "puts", fam, v, 8),
        put = 0;
    for (int i = 0; i < k; i++) put |= !strcmp(v[i], "put");
    CHECK(!put, "%s variants of \"puts\" leave out \"put\" (%d variants)", el__lfam_name(fam), k);
  }
  CHECK(el__learner_variants(L, "the", EL__LF_NOUN_NUM, v, 8) == 0 &&
            el__learner_variants(L, "xqzt", EL__LF_VERB_TENSE, v, 8) == 0,
        "function words and unknown words have no noun/verb variants");
  /* overregularisation: a regular ending on an irregular word */
  static const struct {
    const char *w, *want;
  } R[] = {{"buyed", "bought"}, {"goed", "went"}, {"goed", "gone"}, {"thinked", "thought"},
           {"childs", "children"}, {"mans", "men"}, {"foots", "feet"}, {"stoped", "stopped"}};
  int irregular = 1;
  for (size_t r = 0; r < sizeof R / sizeof R[0]; r++) {
    int k = el__learner_irregular(L, R[r].w, v, 8), hit = 0;
    for (int i = 0; i < k; i++) hit |= !strcmp(v[i], R[r].want);
    irregular &= hit;
    if (!hit) printf("# %s: no %s among %d\n", R[r].w, R[r].want, k);
  }
  CHECK(irregular, "irregular forms of regular endings: buyed bought, goed went gone, thinked "
                   "thought, childs children, mans men, foots feet, stoped stopped");
  CHECK(el__learner_irregular(L, "walked", v, 8) == 0 && el__learner_irregular(L, "went", v, 8) == 0 &&
            el__learner_irregular(L, "informations", v, 8) == 0 &&
            el__learner_irregular(L, "xqzted", v, 8) == 0,
        "none for a regular verb's past, a word WordNet knows, a noun without an irregular "
        "plural, an unknown stem");
  /* a singular whose WordNet plural is old or learned also has its plural by the rule */
  static const char *const PLURALS[][3] = {{"brother", "brothers", "brethren"},
                                           {"camera", "cameras", "camerae"},
                                           {"child", "children", NULL}};
  for (size_t p = 0; p < sizeof PLURALS / sizeof PLURALS[0]; p++) {
    int k = el__learner_variants(L, PLURALS[p][0], EL__LF_NOUN_NUM, v, 8), common = 0, old = 0;
    for (int i = 0; i < k; i++)
      common |= !strcmp(v[i], PLURALS[p][1]), old |= PLURALS[p][2] && !strcmp(v[i], PLURALS[p][2]);
    CHECK(common && (old || !PLURALS[p][2]), "NOUN:NUM variants of \"%s\": \"%s\"%s%s (%d)",
          PLURALS[p][0], PLURALS[p][1], PLURALS[p][2] ? " and " : "", PLURALS[p][2] ? PLURALS[p][2] : "", k);
  }
  CHECK(el__learner_variants(L, "media", EL__LF_NOUN_NUM, v, 8) == 1 && !strcmp(v[0], "medium"),
        "a plural gets its singular alone (\"media\" -> \"medium\")");
  CHECK((el__learner_word_class(L, "the") & EL__LC_ARTICLE) &&
            (el__learner_word_class(L, "with") & EL__LC_PREP) &&
            (el__learner_word_class(L, "they") & EL__LC_PRON_SUBJ) &&
            el__learner_word_class(L, "elephant") == 0,
        "closed classes");
}

static void test_errors(void) {
  el_error err = {0};
  const char *w[] = {"a", "b"};
  uint64_t r = 1;
  CHECK(el__learner_corrupt(L, w, 2, 1.5, &r, &OUT, &err) == EL_EINVAL && strstr(err.msg, "rate"),
        "a rate above 1 is refused: %s", err.msg);
  const char *bad[] = {"a", ""};
  CHECK(el__learner_corrupt(L, bad, 2, 0.1, &r, &OUT, &err) == EL_EINVAL, "an empty word is refused: %s",
        err.msg);
  CHECK(el__learner_corrupt_family(L, w, 2, EL__LF_COUNT, &r, &OUT, &err) == EL_EINVAL,
        "an unknown family is refused");
  el__learner *x = NULL;
  int rc = el__learner_load("/nonexistent/wordnet", &x, &err);
  CHECK(rc == EL_EIO && !x && strstr(err.msg, "/nonexistent/wordnet/index.noun") &&
            strstr(err.msg, "wordnet-base"),
        "missing WordNet: the file and the Debian package named: %s", err.msg);
}

/* --mix: a scaled family's share moves, a zeroed one disappears, and bad
 * specifications are refused naming the defect, leaving the mix unchanged. */
static void test_mix(void) {
  el__learner *m = NULL;
  el_error err = {0};
  if (el__learner_load(NULL, &m, &err)) {
    CHECK(0, "second learner loads: %s", err.msg);
    return;
  }
  CHECK(el__lfam_by_name("R:SPELL") == EL__LF_SPELL && el__lfam_by_name("r:spell") == -1,
        "families are found by their exact ERRANT name");
  const char *bad[] = {"R:SPELL", "R:SPELL=", "=2", "R:SPEL=1", "R:SPELL=-1", "R:SPELL=x",
                       "R:SPELL=1,,M:DET=1"};
  for (int i = 0; i < (int)(sizeof bad / sizeof *bad); i++) {
    el_error e = {0};
    int rc = el__learner_apply_mix(m, bad[i], &e);
    CHECK(rc == EL_EINVAL && strstr(e.msg, "error mix"), "mix \"%s\" refused: %s", bad[i], e.msg);
  }
  char all_off[1024] = "";
  for (int f = 0; f < EL__LF_COUNT; f++)
    snprintf(all_off + strlen(all_off), sizeof all_off - strlen(all_off), "%s%s=0", f ? "," : "",
             el__lfam_name(f));
  el_error e = {0};
  CHECK(el__learner_apply_mix(m, all_off, &e) == EL_EINVAL && strstr(e.msg, "every error type off"),
        "a mix that turns every type off is refused");
  CHECK(el__learner_apply_mix(m, "R:SPELL=0,M:DET=3", &e) == 0, "valid mix accepted");
  const char *w[64];
  char buf[1024];
  int n = split(CORPUS[0], w, buf, 64);
  long fam[EL__LF_COUNT] = {0}, edits = 0;
  uint64_t rng = 7;
  for (int rep = 0; rep < 4000; rep++) {
    el__learner_corrupt(m, w, n, 0.12, &rng, &OUT, NULL);
    for (int f = 0; f < EL__LF_COUNT; f++) fam[f] += OUT.family_edits[f];
    edits += OUT.n_edits;
  }
  double det = (double)fam[EL__LF_DET_MISSING] / (double)edits;
  CHECK(fam[EL__LF_SPELL] == 0, "R:SPELL=0: no spelling errors (%ld of %ld)", fam[EL__LF_SPELL], edits);
  CHECK(det > 2 * el__lfam_weight(EL__LF_DET_MISSING), "M:DET=3: share %.3f, default weight %.3f", det,
        el__lfam_weight(EL__LF_DET_MISSING));
  /* coverage: the FCE shares (%) of the families in use, so calibration can
   * count the other error types as missed (docs/MODEL.md §11: 63 in all,
   * R:ORTH 2.9, R:SPELL 9.9) */
  CHECK_NEAR(el__learner_coverage(m), 0.63 - 0.099, 1e-9, 0, "coverage without R:SPELL");
  el__learner_free(m);
  CHECK(el__learner_load(NULL, &m, &e) == 0, "reload");
  CHECK_NEAR(el__learner_coverage(m), 0.63, 1e-9, 0, "coverage of the default mix: 63 %% of FCE's edits");
  el__learner_set_share(m, EL__LF_ORTH, 0);
  CHECK_NEAR(el__learner_coverage(m), 0.601, 1e-9, 0, "coverage without R:ORTH (an uncased model)");
  el__learner_free(m);
}

/* The third-person copy: in -> one of the allowed outputs (any pronoun is
 * he/she/it by the draw, so "P" in want stands for it), no label, or no
 * change when want is NULL. */
static void expect_third(const char *in, const char *want) {
  const char *w[64];
  char buf[1024], text[1024], labels[128];
  int n = split(in, w, buf, 64);
  int found = 0, unchanged = 1, clean = 1;
  for (uint64_t seed = 1; seed <= 40; seed++) {
    uint64_t r = seed;
    int changed = -1;
    el_error err = {0};
    int rc = el__learner_third_person(L, w, n, &r, &OUT, &changed, &err);
    if (rc) printf("#   %s\n", err.msg);
    render(text, labels);
    clean &= !rc && !strchr(labels, '1') && OUT.n_edits == 0;
    unchanged &= !rc && !changed && !strcmp(text, in);
    if (!want || rc || !changed) continue;
    static const char *const P[][2] = {{"he", "himself"}, {"she", "herself"}, {"it", "itself"},
                                       {"He", "himself"}, {"She", "herself"}, {"It", "itself"}};
    for (int p = 0; p < 6 && !found; p++) {
      char exp[1024] = "";
      const char *in_w = want;
      for (const char *q; (q = strpbrk(in_w, "PR"));) { /* P: pronoun, R: reflexive */
        strncat(exp, in_w, (size_t)(q - in_w));
        strcat(exp, *q == 'P' ? P[p][0] : P[p][1]);
        in_w = q + 1;
      }
      strcat(exp, in_w);
      found = !strcmp(text, exp);
    }
    if (!found) printf("#   seed %llu: \"%s\"\n", (unsigned long long)seed, text);
  }
  CHECK(clean, "third person \"%s\": no word labelled, no edit counted", in);
  if (want)
    CHECK(found, "third person \"%s\" -> \"%s\"", in, want);
  else
    CHECK(unchanged, "third person \"%s\": no plain subject with a present verb, unchanged", in);
}

static void test_third_person(void) {
  expect_third("I like music .", "P likes music .");
  expect_third("Yesterday you go to school .", "Yesterday P goes to school .");
  /* either subject may be drawn */
  expect_third("If we have time , we watch films .", "If P has time , we watch films .");
  expect_third("If we have time , we watch films .", "If we have time , P watches films .");
  expect_third("They do n't know .", "P does n't know .");
  expect_third("I don ' t know .", "P doesn ' t know .");
  expect_third("You are late .", "P is late .");
  expect_third("We enjoy ourselves .", "P enjoys R .");
  expect_third("I saw you .", NULL);          /* "saw": a past form before it is a verb */
  expect_third("Do you like music ?", NULL);  /* a question: the verb comes first */
  expect_third("Can we go now ?", NULL);
  expect_third("I went home .", NULL);        /* past: no agreement to show */
  /* a base form that is also the past: the tense is unknown (not in verb.exc) */
  expect_third("Yesterday we hurt ourselves .", NULL);
  expect_third("Then I put it away .", NULL);
  expect_third("We read books .", NULL);
  expect_third("Thank you very much .", NULL);
  expect_third("Let you go now .", NULL);        /* an object before a bare infinitive */
  expect_third("Don ' t you know ?", NULL);     /* the engine's split "don't" */
  expect_third("She likes music .", NULL);
  /* the capital of "I" belongs to the word, not the place */
  expect_third("Then I watch films .", "Then P watches films .");
}

/* Which of the `|`-separated alternatives `text` is (-1: none); *count
 * gets how many there are. */
static int alternative(const char *alts, const char *text, int *count) {
  int hit = -1, k = 0;
  for (const char *a = alts; a; k++) {
    const char *bar = strchr(a, '|');
    size_t len = bar ? (size_t)(bar - a) : strlen(a);
    if (strlen(text) == len && !strncmp(text, a, len)) hit = k;
    a = bar ? bar + 1 : NULL;
  }
  *count = k;
  return hit;
}

/* The one labelled word of OUT differs from the input's word there. */
static int one_changed_label(const char *labels, const char *const *w, int n) {
  const char *first = strchr(labels, '1');
  return OUT.n == n && first && first == strrchr(labels, '1') &&
         strcmp(OUT.words[first - labels], w[first - labels]);
}

/* el__learner_subject_agreement on `in` over 40 seeds: every result one of
 * the `|`-separated outputs in `want` (each reached), one edit, the changed
 * word alone labelled; want NULL: unchanged, no edit. */
static void expect_subject_sva(const char *in, const char *want) {
  const char *w[64];
  char buf[1024], text[1024], labels[128], seen[8] = {0};
  int n = split(in, w, buf, 64), ok = 1, count = 0;
  for (uint64_t seed = 1; seed <= 40; seed++) {
    uint64_t r = seed;
    el_error err = {0};
    int rc = el__learner_subject_agreement(L, w, n, &r, &OUT, &err);
    if (rc) printf("#   %s\n", err.msg);
    render(text, labels);
    if (!want) {
      ok &= !rc && OUT.n_edits == 0 && !strcmp(text, in) && !strchr(labels, '1');
      continue;
    }
    int hit = alternative(want, text, &count), good = !rc && hit >= 0 && OUT.n_edits == 1 &&
                                                      one_changed_label(labels, w, n);
    if (!good) printf("#   seed %llu: \"%s\" labels %s\n", (unsigned long long)seed, text, labels);
    ok &= good;
    if (hit >= 0 && hit < 8) seen[hit] = 1;
  }
  int all = 1;
  for (int k = 0; k < count; k++) all &= k < 8 && seen[k];
  if (want)
    CHECK(ok && all, "subject agreement \"%s\" -> \"%s\"", in, want);
  else
    CHECK(ok, "subject agreement \"%s\": no agreement site after he/she/it, unchanged", in);
}

static void test_subject_agreement(void) {
  expect_subject_sva("She goes to school .", "She go to school .");
  expect_subject_sva("He has a car .", "He have a car .");
  expect_subject_sva("It does not work .", "It do not work .");
  /* two sites: either may be drawn */
  expect_subject_sva("He eats and she sleeps .", "He eat and she sleeps .|He eats and she sleep .");
  /* after I/you/we/they, with be, or away from a pronoun: left to R:VERB:SVA */
  expect_subject_sva("I like music .", NULL);
  expect_subject_sva("They were happy .", NULL);
  expect_subject_sva("She is happy .", NULL);
  expect_subject_sva("The people were happy .", NULL);
  expect_subject_sva("My brother likes music .", NULL);
  /* no agreement to break: past, modal */
  expect_subject_sva("She went home .", NULL);
  expect_subject_sva("He can swim .", NULL);
  expect_subject_sva("He puts it away .", NULL); /* "He put it away" is a correct past */
}

int main(void) {
  if (!(L = el_test_learner_load())) return el_test_done();
  test_families();
  test_insertions();
  test_spelling_and_order();
  test_no_site();
  test_final_punct();
  test_driver();
  test_variants();
  test_errors();
  test_mix();
  test_third_person();
  test_subject_agreement();
  el__learner_sentence_free(&OUT);
  el__learner_free(L);
  return el_test_done();
}
