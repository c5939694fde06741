/* The dictionary signal (lang/dict.h): British and American spellings both
 * correct in "en", each the other's misspelling in en-GB and en-US (with
 * that dictionary's suggestions), names left alone, split clitics and non-words never flagged,
 * misspellings flagged with hunspell's suggestions, and a clear error for a
 * folder without dictionaries. Needs hunspell-en-gb + hunspell-en-us (SKIP
 * without them). */
#include <string.h>
#include <unistd.h>
#include "../test.h"
#include "dict.h"

static el__dict *D;

static const char *const VNAME[] = {"en", "en-GB", "en-US"};

static void rejects_in(el__dict_variant v, const char *w, int start, int want) {
  CHECK(el__dict_rejects(D, v, w, start) == want, "%s: rejects(%s, start %d) = %d", VNAME[v], w,
        start, want);
}

static void rejects(const char *w, int start, int want) { rejects_in(EL__DICT_EN, w, start, want); }

static void test_verdicts(void) {
  rejects("colour", 0, 0); /* British */
  rejects("color", 0, 0);  /* American */
  rejects("organise", 0, 0);
  rejects("organize", 0, 0);
  rejects("recieve", 0, 1);
  rejects("becouse", 0, 1);
  rejects("Colour", 1, 0);  /* sentence start: its lower-case form is known */
  rejects("Becouse", 1, 1);
  rejects("Ngozi", 0, 0);   /* a name mid-sentence: not a dictionary's call */
  rejects("Stavanger", 0, 0);
  rejects("n't", 0, 0);     /* FCE's split clitics */
  rejects("'s", 0, 0);
  rejects("2019", 0, 0);
  rejects(",", 0, 0);
  rejects("£", 0, 0);       /* a symbol is no misspelling */
  rejects("café", 0, 0);
  rejects("well-known", 0, 0);
  rejects("don't", 0, 0);
  rejects("london", 0, 1);  /* the case a dictionary knows */
}

static void test_suggest(void) {
  char out[5][EL__DICT_WORD_MAX];
  int n = el__dict_suggest(D, EL__DICT_EN, "recieve", out, 5);
  int found = 0;
  for (int i = 0; i < n; i++) found |= !strcmp(out[i], "receive");
  CHECK(n >= 1 && found, "suggest(recieve) includes receive (%d suggestions, first %s)", n,
        n ? out[0] : "none");
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) CHECK(strcmp(out[i], out[j]), "no duplicate %s", out[i]);
  CHECK(el__dict_suggest(D, EL__DICT_EN, "becouse", out, 1) == 1 && !strcmp(out[0], "because"),
        "suggest(becouse, max 1) = because (got %s)", out[0]);
}

/* Running text as a spellchecker reads it: the rejected words, then the
 * names ("recieve|becouse / Ngozi"). */
static void text_rejects_in(el__dict_variant v, const char *text, const char *want) {
  int spans[48];
  int n = el__dict_read_text(D, v, text, strlen(text), spans, 16);
  char got[256] = "", names[256] = "";
  for (int i = 0; i < n && i < 16; i++) {
    char *to = spans[3 * i + 2] == EL_DICT_NAME ? names : got;
    size_t k = strlen(to);
    snprintf(to + k, 256 - k, "%s%.*s", k ? "|" : "", spans[3 * i + 1] - spans[3 * i],
             text + spans[3 * i]);
  }
  if (names[0]) snprintf(got + strlen(got), sizeof got - strlen(got), " / %s", names);
  CHECK(!strcmp(got, want), "%s: read_text(\"%s\") = \"%s\" (want \"%s\")", VNAME[v], text, got,
        want);
}

static void text_rejects(const char *text, const char *want) { text_rejects_in(EL__DICT_EN, text, want); }

static void test_text(void) {
  text_rejects("The cat sat on the mat.", "");
  text_rejects("She go to school yesterday.", "");  /* grammar is the model's part */
  text_rejects("I recieve the colour and the color.", "recieve");
  rejects("London", 1, 0);
  text_rejects("We organised it; they organized it.", "");
  text_rejects("I met Ngozi in Stavanger, then Olamide.", " / Ngozi|Stavanger|Olamide");
  text_rejects("We play Tennis in London with Mrs Okafor.", " / London|Mrs|Okafor"); /* tennis: a word */
  text_rejects("It isn't here and I don't know.", "");     /* contractions whole */
  text_rejects("(Becouse) it rained.", "Becouse");         /* first word, brackets stripped */
  text_rejects("Fine. Becouse \"Ngozi\" said so!", "Becouse / Ngozi");
  text_rejects("I saw it. Colour is nice", "");            /* sentence start, known lower-case */
  text_rejects("On 2nd May at 10am, e.g. now", "");        /* digits, abbreviations */
  text_rejects("becouse   wich", "becouse|wich");
  text_rejects("He said so . ' Becouse ' he said", "Becouse"); /* a lone quote keeps the start */
  text_rejects("I WILL REALY VISIT PARIS AND THE BBC. I DON'T KNOW.", "REALY"); /* in capitals */
  text_rejects("I watch the BBC and CNN with MANUELA.", "");    /* acronyms, names in capitals */
  text_rejects("Ngozi wrote. I met Ngozi.", " / Ngozi|Ngozi"); /* named so mid-sentence */
  text_rejects("Ngozi wrote.", "Ngozi");                /* ... else the dictionary's call */
  text_rejects("Becouse I said. Becouse!", "Becouse|Becouse");
}

/* Tokenized sentences (FCE: "do n't"): one verdict per word. */
static void test_words(void) {
  const char *w[] = {"Becouse", "I", "do", "n't", "know", "Ngozi", ",", "recieve", "'s", "."};
  unsigned char out[10];
  el_error err = {0};
  int rc = el__dict_read_words(D, EL__DICT_EN, w, 10, out, &err);
  const unsigned char want[10] = {1, 0, 0, 0, 0, 2, 0, 1, 0, 0};
  CHECK(rc == 0 && !memcmp(out, want, 10), "read_words: Becouse and recieve rejected, Ngozi a name (%d%d%d%d%d%d%d%d%d%d)",
        out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7], out[8], out[9]);
  const char *v[] = {".", "Ngozi", "wrote", "."};
  rc = el__dict_read_words(D, EL__DICT_EN, v, 4, out, &err);
  CHECK(rc == 0 && out[1] == 1, "a capital after a full stop is a sentence start: Ngozi there is the "
        "dictionary's call");
}

/* The cache of suggestions gives hunspell's answer whatever was asked
 * before: a list asked for in full, then its first; a first asked for alone,
 * then the full list (not the one cached entry). */
static void test_suggest_cache(void) {
  char a[5][EL__DICT_WORD_MAX], b[5][EL__DICT_WORD_MAX], c[5][EL__DICT_WORD_MAX];
  int na = el__dict_suggest(D, EL__DICT_EN, "gratefull", a, 5);
  int nb = el__dict_suggest(D, EL__DICT_EN, "gratefull", b, 5);
  int same = na == nb;
  for (int i = 0; same && i < na; i++) same = !strcmp(a[i], b[i]);
  CHECK(na >= 2 && same, "suggest(gratefull) twice: the same %d suggestions", na);
  CHECK(el__dict_suggest(D, EL__DICT_EN, "gratefull", c, 1) == 1 && !strcmp(c[0], a[0]),
        "then max 1: its first (%s)", c[0]);
  CHECK(el__dict_suggest(D, EL__DICT_EN, "leter", c, 1) == 1, "leter, max 1 first");
  int n = el__dict_suggest(D, EL__DICT_EN, "leter", b, 5);
  CHECK(n >= 2 && !strcmp(b[0], c[0]), "then max 5: the full list (%d), not the cached one", n);
}

/* A variant's first suggestion for word. */
static void first_suggestion(el__dict_variant v, const char *word, const char *want) {
  char out[5][EL__DICT_WORD_MAX];
  int n = el__dict_suggest(D, v, word, out, 5);
  CHECK(n >= 1 && !strcmp(out[0], want), "%s: suggest(%s) first %s (got %s of %d)", VNAME[v], word,
        want, n ? out[0] : "none", n);
}

/* en-GB and en-US: the other variant's spellings are misspellings, with the
 * variant's own suggestions; "en" takes both; the rules for names, capitals,
 * clitics and sentence starts hold in every variant. */
static void test_variants(void) {
  static const char *const GB[] = {"favourite", "colour", "theatre", "travelling", "marvellous"};
  static const char *const US[] = {"favorite", "color", "theater", "traveling", "marvelous"};
  for (int i = 0; i < 5; i++) {
    rejects_in(EL__DICT_GB, US[i], 0, 1);
    rejects_in(EL__DICT_GB, GB[i], 0, 0);
    rejects_in(EL__DICT_US, GB[i], 0, 1);
    rejects_in(EL__DICT_US, US[i], 0, 0);
    rejects_in(EL__DICT_EN, GB[i], 0, 0);
    rejects_in(EL__DICT_EN, US[i], 0, 0);
  }
  rejects_in(EL__DICT_GB, "recieve", 0, 1);  /* a misspelling in both stays one */
  rejects_in(EL__DICT_GB, "Favorite", 1, 1); /* sentence start: its lower case is American */
  rejects_in(EL__DICT_GB, "Favourite", 1, 0);
  rejects_in(EL__DICT_US, "Favourite", 1, 1);
  rejects_in(EL__DICT_GB, "Favorite", 0, 0); /* capitalised mid-sentence: a name's rule */
  rejects_in(EL__DICT_GB, "n't", 0, 0);
  rejects_in(EL__DICT_US, "don't", 0, 0);
  first_suggestion(EL__DICT_GB, "favorite", "favourite");
  first_suggestion(EL__DICT_US, "favourite", "favorite");
  first_suggestion(EL__DICT_GB, "theater", "theatre");
  first_suggestion(EL__DICT_US, "colour", "color");
  /* the cache keeps one answer per word and variant: en_US's list for a
   * word does not answer en_GB's question about it */
  first_suggestion(EL__DICT_US, "theatr", "theater");
  first_suggestion(EL__DICT_GB, "theatr", "theatre");
  first_suggestion(EL__DICT_US, "theatr", "theater");
  text_rejects_in(EL__DICT_GB, "My favorite color is red. Color me in.", "favorite|color|Color");
  text_rejects_in(EL__DICT_US, "My favourite colour is red. Colour me in.", "favourite|colour|Colour");
  text_rejects_in(EL__DICT_EN, "My favourite color is red. Colour me in.", "");
  text_rejects_in(EL__DICT_GB, "I met Ngozi at the Theater, then Olamide.", " / Ngozi|Theater|Olamide");
  text_rejects_in(EL__DICT_GB, "I WILL TRAVEL TO MY FAVORITE THEATER TODAY.", "FAVORITE|THEATER");
  text_rejects_in(EL__DICT_EN, "I WILL TRAVEL TO MY FAVORITE THEATER TODAY.", "");
  const char *w[] = {"My", "favorite", "color", "is", "n't", "red", "Ngozi", "."};
  unsigned char out[8];
  el_error err = {0};
  int rc = el__dict_read_words(D, EL__DICT_GB, w, 8, out, &err);
  const unsigned char want[8] = {0, 1, 1, 0, 0, 0, 2, 0};
  CHECK(rc == 0 && !memcmp(out, want, 8), "en-GB: read_words flags favorite, color; Ngozi a name "
        "(%d%d%d%d%d%d%d%d)", out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7]);
  CHECK(!strcmp(el__dict_variant_name(EL__DICT_GB), "British English") &&
        !strcmp(el__dict_variant_name(EL__DICT_US), "American English"), "variant names");
}

static void test_missing(void) {
  el__dict *d = NULL;
  el_error err = {0};
  int rc = el__dict_load("/nonexistent", &d, &err);
  CHECK(rc == EL_EIO && !d && strstr(err.msg, "hunspell-en-gb"),
        "a folder without dictionaries: EL_EIO naming the package (%s)", err.msg);
}

int main(void) {
  if (access("/usr/share/hunspell/en_GB.dic", R_OK) || access("/usr/share/hunspell/en_US.dic", R_OK)) {
    SKIP("no /usr/share/hunspell/en_GB.dic or en_US.dic (Debian hunspell-en-gb, hunspell-en-us)");
    return el_test_done();
  }
  el_error err = {0};
  int rc = el__dict_load(NULL, &D, &err);
  CHECK(rc == 0, "dictionaries load: %s", rc ? err.msg : "ok");
  if (rc) return el_test_done();
  test_verdicts();
  test_variants();
  test_suggest();
  test_suggest_cache();
  test_text();
  test_words();
  test_missing();
  el__dict_free(D);
  return el_test_done();
}
