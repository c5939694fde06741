/* Word frequencies (lang/word_freq.h): log P of a word under the counts,
 * lower-cased lookups (a cased file's spellings summed), several words
 * separated by spaces or hyphens costing each, an unknown word half an
 * occurrence; a malformed line refused naming file:line, an empty or
 * missing file refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../test.h"
#include "word_freq.h"

static char dir[] = "/tmp/el_test_wf_XXXXXX";

/* Writes text to dir/name and returns the path (static storage). */
static const char *put(const char *name, const char *text) {
  static char path[256];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (f) fputs(text, f), fclose(f);
  return path;
}

static void test_logp(void) {
  el__word_freq *f = NULL;
  el_error err = {0};
  int rc = el__word_freq_load(put("ok.txt", "the\t60\nwhich\t30\r\nWhich\t5\nrest\t4\nrant\t1\n"), &f, &err);
  CHECK(rc == 0 && f, "a word-count file loads (%s)", rc ? err.msg : "ok");
  if (rc) return;
  double total = 100;
  CHECK_NEAR(el__word_freq_logp(f, "the"), log(60 / (total + 0.5)), 1e-5, 0, "log P(the) = log(60 / total)");
  CHECK_NEAR(el__word_freq_logp(f, "WHICH"), log(35 / (total + 0.5)), 1e-5, 0,
             "any case; the file's which and Which summed (35)");
  CHECK_NEAR(el__word_freq_logp(f, "winch"), log(0.5 / (total + 0.5)), 1e-5, 0, "unknown: half an occurrence");
  CHECK_NEAR(el__word_freq_logp(f, "rest rant"), log(4 / (total + 0.5)) + log(1 / (total + 0.5)), 1e-5, 0,
             "two words cost both");
  CHECK(el__word_freq_logp(f, "rest-rant") == el__word_freq_logp(f, "rest rant"), "a hyphen separates words too");
  CHECK(el__word_freq_logp(f, "which") > el__word_freq_logp(f, "rest rant"), "which likelier than rest rant");
  el__word_freq_free(f);
}

static void refused(const char *name, const char *text, const char *want) {
  el__word_freq *f = NULL;
  el_error err = {0};
  int rc = el__word_freq_load(put(name, text), &f, &err);
  CHECK(rc == EL_EFORMAT && !f && strstr(err.msg, want), "%s refused: %s (got %d: %s)", name, want, rc, err.msg);
}

static void test_refused(void) {
  refused("nocount.txt", "the\t60\nwhich\n", "nocount.txt:2: no word and tab");
  refused("letters.txt", "the\t60\nwhich\tmany\n", "letters.txt:2: the count is not a positive integer");
  refused("zero.txt", "the\t0\n", "zero.txt:1: the count is not a positive integer");
  refused("empty.txt", "", "no word counts in the file");
  refused("huge.txt", "the\t9223372036854775807\n", "huge.txt:1: counts past 10^15 in all");
  refused("sum.txt", "the\t600000000000000\nThe\t600000000000000\n", "sum.txt:2: counts past 10^15 in all");
  refused("overflow.txt", "the\t99999999999999999999\n", "overflow.txt:1: the count is not a positive integer");
  el__word_freq *f = NULL;
  el_error err = {0};
  char path[256];
  snprintf(path, sizeof path, "%s/missing.txt", dir);
  int rc = el__word_freq_load(path, &f, &err);
  CHECK(rc == EL_EIO && strstr(err.msg, "missing.txt"), "a missing file is EL_EIO naming it (%s)", err.msg);
}

int main(void) {
  if (!mkdtemp(dir)) {
    CHECK(0, "mkdtemp");
    return el_test_done();
  }
  test_logp();
  test_refused();
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) fprintf(stderr, "# could not remove %s\n", dir);
  return el_test_done();
}
