/* Scratch files for unit tests: el_test_put writes text to DIR/name and
 * returns the path (valid for the next 8 calls). */
#ifndef EL_TEST_FILES_H
#define EL_TEST_FILES_H
#include <stdio.h>

static inline const char *el_test_put(const char *dir, const char *name, const char *text) {
  static char path[8][256];
  static int k;
  char *p = path[k++ % 8];
  snprintf(p, sizeof path[0], "%s/%s", dir, name);
  FILE *f = fopen(p, "wb");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
  return p;
}
#endif
