/* A GED file's correct sentences as pretraining text (train/data/
 * data_learner_text.h): tokens joined back as text ("do n't", "word ,",
 * quotes, "..."), sentences with an error and short ones left out, a blank
 * line after every 12, repeated to the bytes asked for; a file without a
 * correct sentence and a missing file are refused naming them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "data_learner_text.h"
#include "fileio.h"

static void test_join(void) {
  static const struct {
    const char *tokens, *text;
  } J[] = {{"I do n't know , she said .", "I don't know, she said."},
           {"It 's my friend 's car !", "It's my friend's car!"},
           {"He said \" hello there \" to me .", "He said \"hello there\" to me."},
           {"It was depressing ...", "It was depressing..."},
           {"( see above ) and 50 %", "(see above) and 50%"}};
  for (size_t j = 0; j < sizeof J / sizeof *J; j++) {
    char buf[256], *w[32], out[256];
    snprintf(buf, sizeof buf, "%s", J[j].tokens);
    int n = 0;
    for (char *t = strtok(buf, " "); t && n < 32; t = strtok(NULL, " ")) w[n++] = t;
    size_t len = el__learner_text_join(w, n, out, sizeof out);
    CHECK(!strcmp(out, J[j].text) && len == strlen(out), "\"%s\" -> \"%s\" (got \"%s\")", J[j].tokens,
          J[j].text, out);
  }
  char *w[] = {"a", "longer", "sentence"}, small[8];
  size_t len = el__learner_text_join(w, 3, small, sizeof small);
  CHECK(len < sizeof small && !strcmp(small, "a"), "cut to fit whole tokens (got \"%s\")", small);
}

/* The file's text (the library's reader), kept until the next call. */
static const char *slurp(const char *path) {
  static char *text;
  size_t len = 0;
  el_error err = {0};
  free(text);
  text = NULL;
  if (el__read_file(path, 1 << 20, &text, &len, &err)) return NULL;
  return text;
}

static void test_write(void) {
  char dir[] = "/tmp/el_learner_text_XXXXXX";
  CHECK(mkdtemp(dir) != NULL, "temp dir");
  char ged[256], out[256], bad[256];
  snprintf(ged, sizeof ged, "%s/train.txt", dir);
  snprintf(out, sizeof out, "%s/text.txt", dir);
  snprintf(bad, sizeof bad, "%s/bad.txt", dir);
  FILE *f = fopen(ged, "w");
  fputs("I\tc\ndo\tc\nn't\tc\nknow\tc\n.\tc\n\n"   /* kept */
        "She\tc\ngo\ti\nhome\tc\n.\tc\n\n"        /* an error: left out */
        "Yes\tc\n.\tc\n\n"                         /* two words: left out */
        "We\tc\nwent\tc\nhome\tc\n.\tc\n",        /* kept, no blank line at the end */
        f);
  fclose(f);
  el__learner_text_stats st;
  el_error err = {0};
  int rc = el__learner_text_write(ged, out, 1, &st, &err);
  const char *text = slurp(out);
  CHECK(rc == EL_OK && st.sentences == 4 && st.kept == 2 && st.repeats == 1,
        "4 sentences read, 2 kept, one pass (rc %d, %ld, %ld, %d: %s)", rc, st.sentences, st.kept,
        st.repeats, err.msg);
  CHECK(text && !strcmp(text, "I don't know.\nWe went home.\n\n"), "the two as text lines (got \"%s\")",
        text ? text : "");
  rc = el__learner_text_write(ged, out, 100, &st, &err);
  text = slurp(out);
  CHECK(rc == EL_OK && st.repeats == 4 && st.bytes >= 100 && text && st.bytes == strlen(text),
        "repeated until 100 bytes: %d passes, %zu bytes", st.repeats, st.bytes);
  f = fopen(bad, "w");
  fputs("She\tc\ngo\ti\nhome\tc\n", f);
  fclose(f);
  rc = el__learner_text_write(bad, out, 10, &st, &err);
  CHECK(rc == EL_EINVAL && strstr(err.msg, bad), "no correct sentence: refused naming the file (%s)", err.msg);
  char tmp[300];
  snprintf(tmp, sizeof tmp, "%s.tmp", out);
  CHECK(access(tmp, F_OK) != 0, "no temporary file left behind");
  rc = el__learner_text_write("/nonexistent/train.txt", out, 10, &st, &err);
  CHECK(rc == EL_EIO && strstr(err.msg, "/nonexistent/train.txt"), "a missing file named (%s)", err.msg);
  unlink(ged), unlink(out), unlink(bad), rmdir(dir);
}

int main(void) {
  test_join();
  test_write();
  return el_test_done();
}
