/* The learner library's tables for a test program: loaded from Debian's
 * WordNet, or the test skipped (with its reason) when wordnet-base is
 * missing. */
#ifndef EL_TEST_LEARNER_FIXTURE_H
#define EL_TEST_LEARNER_FIXTURE_H

#include <unistd.h>
#include "../test.h"
#include "learner.h"

/* The loaded tables (the caller frees them: el__learner_free), or NULL after
 * a SKIP or a failed CHECK: the program then ends with el_test_done(). */
static inline el__learner *el_test_learner_load(void) {
  if (access("/usr/share/wordnet/verb.exc", R_OK) || access("/usr/share/wordnet/index.noun", R_OK)) {
    SKIP("WordNet files missing in /usr/share/wordnet (install the Debian package wordnet-base)");
    return NULL;
  }
  el__learner *l = NULL;
  el_error err = {0};
  int rc = el__learner_load(NULL, &l, &err);
  CHECK(rc == 0, "WordNet tables load: %s", rc ? err.msg : "ok");
  return rc ? NULL : l;
}

#endif
