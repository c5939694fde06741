/* The English n-gram model beside hunspell (lang/ngram.h): the model's words
 * and sentence probabilities, the learner-error library's alternatives read
 * through it (a wrong preposition, article or verb form flagged; correct
 * English, names and unknown words left alone; each kind of edit at its own
 * level), and a clear error for a missing file. Needs pocketsphinx-en-us and
 * wordnet-base (SKIP without them). */
#include <string.h>
#include <unistd.h>
#include "../test.h"
#include "learner.h"
#include "ngram.h"

static el__ngram *M;
static el__learner *L;

/* Splits s at spaces into at most 32 words (in buf). */
static int words_of(const char *s, char *buf, size_t cap, const char **w) {
  snprintf(buf, cap, "%s", s);
  int n = 0;
  for (char *t = strtok(buf, " "); t && n < 32; t = strtok(NULL, " ")) w[n++] = t;
  return n;
}

/* The words of s the model flags, joined by '|' ("" for none). */
static void flagged(const char *s, const char *want) {
  char buf[512], got[512] = "";
  const char *w[32];
  int n = words_of(s, buf, sizeof buf, w);
  unsigned char out[32];
  el_error err = {0};
  int rc = el__ngram_read_words(M, L, w, n, out, &err);
  for (int i = 0; !rc && i < n; i++)
    if (out[i]) {
      if (*got) strcat(got, "|");
      strcat(got, w[i]);
    }
  CHECK(!rc && !strcmp(got, want), "\"%s\": flagged \"%s\", want \"%s\" (%s)", s, got, want,
        err.msg);
}

static double logp(const char *s) {
  char buf[512];
  const char *w[32];
  int n = words_of(s, buf, sizeof buf, w);
  return el__ngram_logp(M, w, n);
}

static void test_model(void) {
  CHECK(el__ngram_known(M, "the") && el__ngram_known(M, "The") && el__ngram_known(M, "school"),
        "common words are known, in any case");
  CHECK(!el__ngram_known(M, "recieve") && !el__ngram_known(M, "qzxv"), "misspellings are not");
  CHECK(logp("he goes to school") > logp("he go to school") + 1, "he goes > he go (%.2f, %.2f)",
        logp("he goes to school"), logp("he go to school"));
  CHECK(logp("I am interested in music") > logp("I am interested on music") + 3,
        "interested in > interested on");
  CHECK(logp("he goes to school .") == logp("he goes to school"), "punctuation is not read");
}

static void test_verdicts(void) {
  flagged("I am interested on music .", "on");     /* R:PREP */
  flagged("We was very happy .", "was");             /* R:VERB:SVA */
  flagged("There are many informations .", "informations"); /* R:NOUN:NUM */
  flagged("The cat sat on the mat .", "");           /* correct English */
  flagged("The chef cooked the meal and then he ate it .", ""); /* articles: not judged */
  flagged("She goes to school every day .", "");
  flagged("He have two brother .", "have|brother"); /* "brothers", not WordNet's "brethren" */
  flagged("She go to school every day .", "go");     /* the pronoun decides, not the trigrams */
  flagged("My father and I are alike .", "");
  flagged("He did n't went there .", "went");    /* the base form after "do" */
  flagged("They did experiments in the lab .", ""); /* "did" a main verb */
  /* a word too long for the tables before a verb (the agreement rule reads it as none) */
  flagged("Pneumonoultramicroscopicsilicovolcanoconiosisandmoreletters is rare .", "");
  flagged("I have lived in London for two years .", "");
  flagged("Ngozi lives in Stavanger with her sister .", ""); /* names: not the model's call */
  flagged("I recieve many letters .", "");          /* a misspelling: hunspell's, not this */
  flagged("The colour of the theatre was grey .", ""); /* British spellings */
  flagged("I do n't think so , but she does n't agree .", ""); /* FCE's split contractions */
  /* several sentences: each read as one (its first word judged, no trigram across the stop) */
  flagged("We met last week . I am interested on music .", "on");
  flagged("We met . Interested in music , she plays .", "");
  /* each word has its gains per kind */
  char buf[512];
  const char *w[32];
  int n = words_of("I am interested on music .", buf, sizeof buf, w);
  double g[EL__NGRAM_EDITS * 32];
  el_error err = {0};
  CHECK(el__ngram_gains(M, L, w, n, g, &err) == EL_OK, "gains: %s", err.msg);
  const int E = EL__NGRAM_EDITS;
  CHECK(g[E * 3 + EL__NGRAM_PREP] >= EL__NGRAM_GAIN[EL__NGRAM_PREP],
        "\"on\" -> another preposition gains %.2f", g[E * 3 + EL__NGRAM_PREP]);
  CHECK(g[E * 3 + EL__NGRAM_NOUN] < -1e29 && g[E * 4 + EL__NGRAM_NOUN] > -1e29,
        "a preposition has no noun forms, \"music\" has");
  int none = 1;
  for (int k = 0; k < E; k++) none &= g[E * 5 + k] < -1e29;
  CHECK(none, "\".\" has no alternatives");
  CHECK(g[E * 2 + EL__NGRAM_ADD] > -1e29 && g[E * 0 + EL__NGRAM_ADD] < -1e29,
        "an article may be added before \"interested\", not before \"I\"");
  for (int k = 0; k < E; k++)
    CHECK(EL__NGRAM_GAIN[k] > EL__NGRAM_GAIN[EL__NGRAM_ADD] || k == EL__NGRAM_ADD,
          "an added word makes any sentence less likely: adding needs less than edit %d", k);
}

/* The alternative offered for the word at index i of s (its kind in *kind). */
static void best_of(const char *s, int i, int *kind, char *alt) {
  char buf[512], best[32][EL__LWORD_MAX];
  const char *w[32];
  int kinds[32], n = words_of(s, buf, sizeof buf, w);
  el_error err = {0};
  *kind = -1, alt[0] = 0;
  if (el__ngram_best(M, L, w, n, kinds, best, &err) == EL_OK && i < n)
    *kind = kinds[i], snprintf(alt, EL__LWORD_MAX, "%s", best[i]);
}

/* A verb's alternative: the trigrams find "she had me" likelier than "she has
 * me" (gains 5.9 and 5.6 nats over "she have me", both past the verb level),
 * but the form that agrees with the subject is the one offered; where
 * agreement is no fix ("interested on") the best alternative stays. */
static void test_alternatives(void) {
  static const struct {
    const char *s;
    int at, kind;
    const char *want;
  } A[] = {{"she have me", 1, EL__NGRAM_VERB, "has"},
           {"She go to school every day .", 1, EL__NGRAM_VERB, "goes"}, /* the pronoun decides */
           {"He has two brother .", 3, EL__NGRAM_NOUN, "brothers"},      /* not "brethren" */
           {"I look forward to hear from you .", 4, EL__NGRAM_VERB, "hearing"},
           {"I am interested on music", 3, EL__NGRAM_PREP, "in"},
           {"My sister go to school every day .", 2, EL__NGRAM_VERB, "goes"}, /* a noun subject */
           {"She is very interesting in music .", 3, EL__NGRAM_VERB, "interested"},
           {"Yesterday I go to the cinema .", 2, EL__NGRAM_VERB, "went"}, /* not "gone" */
           {"I go to the cinema yesterday .", 1, EL__NGRAM_VERB, "went"}, /* a phrase at the end */
           {"I am agree with you .", 1, EL__NGRAM_DEL, ""},               /* by rule: deleted */
           {"We discussed about the plan .", 2, EL__NGRAM_DEL, ""},
           {"He is more taller than me .", 2, EL__NGRAM_DEL, ""},
           {"I agree with you .", 1, -1, ""},
           {"I stayed there the hole day .", 4, EL__NGRAM_CONF, "whole"}, /* a real word */
           {"He is bigger then me .", 3, EL__NGRAM_CONF, "than"},
           {"I though it was a good idea .", 1, EL__NGRAM_CONF, "thought"},
           {"Then we went home .", 0, -1, ""},
           {"I like it because is cheap .", 4, EL__NGRAM_ADD, "it"},     /* fixed phrases */
           {"I would appreciate if you answer .", 3, EL__NGRAM_ADD, "it"},
           {"I look forward hearing from you .", 3, EL__NGRAM_ADD, "to"},
           {"I look forward for your answer .", 3, EL__NGRAM_PREP, "to"},
           {"The reason of my letter is the show .", 2, EL__NGRAM_PREP, "for"},
           {"He looked forward and saw the ship .", 3, -1, ""},
           {"I suggest to go to the cinema .", 2, EL__NGRAM_JOIN, "going"}, /* two words as one */
           {"She enjoys to swim in the sea .", 2, EL__NGRAM_JOIN, "swimming"},
           {"I want to go to the cinema .", 2, -1, ""},
           {"Thank you for you letter .", 3, EL__NGRAM_CONF, "your"},   /* the trigrams agree */
           {"I will write to you tomorrow .", 4, -1, ""},
           {"However I think it is too expensive .", 1, EL__NGRAM_ADD, ","}, /* the comma */
           {"However , I think it is too expensive .", 2, -1, ""},
           {"May be I will come later .", 0, EL__NGRAM_JOIN, "maybe"},
           {"It may be late .", 1, -1, ""},
           {"Your sincerely , Anna", 0, EL__NGRAM_CONF, "yours"},
           {"I will travel on July because of my exams .", 3, EL__NGRAM_PREP, "in"},
           {"I am writing you to complain .", 3, EL__NGRAM_ADD, "to"},
           {"I think , it is a good idea .", 2, EL__NGRAM_DEL, ""},
           {"There were many people where I live .", 4, -1, ""},
           /* the pattern proposes "tongues", "names"; the trigrams find them unlikelier */
           {"My mother tongue is French .", 2, -1, ""},
           {"My brother name is Tom .", 2, -1, ""}};
  for (size_t a = 0; a < sizeof A / sizeof A[0]; a++) {
    int kind;
    char alt[EL__LWORD_MAX];
    best_of(A[a].s, A[a].at, &kind, alt);
    CHECK(kind == A[a].kind && !strcmp(alt, A[a].want), "\"%s\": \"%s\" offered (%d, %s)", A[a].s,
          A[a].want, kind, alt);
  }
}

static void test_missing(void) {
  el__ngram *x = NULL;
  el_error err = {0};
  int rc = el__ngram_load("/nonexistent/en-us.lm.bin", &x, &err);
  CHECK(rc == EL_EIO && !x && strstr(err.msg, "/nonexistent/en-us.lm.bin") &&
            strstr(err.msg, "pocketsphinx-en-us"),
        "missing model: the file and the Debian package named: %s", err.msg);
  char path[] = "/tmp/el_ngram_bad_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0 && write(fd, "not a model\n", 12) == 12, "temp file");
  close(fd);
  rc = el__ngram_load(path, &x, &err);
  CHECK(rc == EL_EIO && !x && strstr(err.msg, path), "a file that is no model is refused: %s",
        err.msg);
  unlink(path);
}

int main(void) {
  if (access(EL__NGRAM_DEFAULT_PATH, R_OK)) {
    SKIP("no " EL__NGRAM_DEFAULT_PATH " (Debian pocketsphinx-en-us)");
    return el_test_done();
  }
  el_error err = {0};
  int rc = el__ngram_load(NULL, &M, &err);
  if (!rc) rc = el__learner_load(NULL, &L, &err);
  CHECK(!rc, "the model and the learner tables load: %s", err.msg);
  if (rc) return el_test_done();
  test_model();
  test_verdicts();
  test_alternatives();
  test_missing();
  el__learner_free(L);
  el__ngram_free(M);
  return el_test_done();
}
