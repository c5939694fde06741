/* The dictionary signal (lang/dict.h): British and American spellings both
 * correct, names left alone, split clitics and non-words never flagged,
 * misspellings flagged with hunspell's suggestions, and a clear error for a
 * folder without dictionaries. Needs hunspell-en-gb + hunspell-en-us (SKIP
 * without them). */
#include <string.h>
#include <unistd.h>
#include "../test.h"
#include "dict.h"

static el__dict *D;

static void rejects(const char *w, int start, int want) {
  CHECK(el__dict_rejects(D, w, start) == want, "rejects(%s, start %d) = %d", w, start, want);
}

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
  rejects("well-known", 0, 0);
  rejects("don't", 0, 0);
  rejects("london", 0, 1);  /* the case a dictionary knows */
}

static void test_suggest(void) {
  char out[5][EL__DICT_WORD_MAX];
  int n = el__dict_suggest(D, "recieve", out, 5);
  int found = 0;
  for (int i = 0; i < n; i++) found |= !strcmp(out[i], "receive");
  CHECK(n >= 1 && found, "suggest(recieve) includes receive (%d suggestions, first %s)", n,
        n ? out[0] : "none");
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) CHECK(strcmp(out[i], out[j]), "no duplicate %s", out[i]);
  CHECK(el__dict_suggest(D, "becouse", out, 1) == 1 && !strcmp(out[0], "because"),
        "suggest(becouse, max 1) = because (got %s)", out[0]);
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
  test_suggest();
  test_missing();
  el__dict_free(D);
  return el_test_done();
}
