/* Input file checks and fingerprints (data_input.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "data_input.h"
#include "strmap.h"

/* 1 if the file holds a non-whitespace byte (stops at the first one). */
static int has_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char buf[65536];
  size_t n;
  int found = 0;
  while (!found && (n = fread(buf, 1, sizeof buf, f)) > 0)
    for (size_t i = 0; i < n; i++)
      if (!isspace((unsigned char)buf[i])) {
        found = 1;
        break;
      }
  fclose(f);
  return found;
}

int el__inputs_check(char *const *paths, int n, uint64_t *total_bytes, el_error *err) {
  if (n <= 0) return el_error_set(err, EL_EINVAL, "no input file given (--input PATH...)");
  uint64_t total = 0;
  int any_text = 0;
  for (int i = 0; i < n; i++) {
    struct stat st;
    if (stat(paths[i], &st))
      return el_error_set(err, EL_EIO, "input %s: %s", paths[i], strerror(errno));
    if (S_ISDIR(st.st_mode))
      return el_error_set(err, EL_EIO,
                          "input %s is a directory (give the text files, e.g. %s/*.txt)",
                          paths[i], paths[i]);
    if (!S_ISREG(st.st_mode))
      return el_error_set(err, EL_EIO, "input %s is not a regular file", paths[i]);
    FILE *f = fopen(paths[i], "rb");
    if (!f) return el_error_set(err, EL_EIO, "input %s: %s", paths[i], strerror(errno));
    fclose(f);
    total += (uint64_t)st.st_size;
    if (!any_text && st.st_size > 0) any_text = has_text(paths[i]);
  }
  if (!any_text) {
    if (n == 1) return el_error_set(err, EL_EINVAL, "input %s is empty (no text)", paths[0]);
    return el_error_set(err, EL_EINVAL, "the %d input files are all empty (no text)", n);
  }
  if (total_bytes) *total_bytes = total;
  return EL_OK;
}

uint64_t el__inputs_fingerprint(char *const *paths, int n) {
  uint64_t h = EL_FNV_OFFSET;
  for (int i = 0; i < n; i++) {
    struct stat st;
    memset(&st, 0, sizeof st);
    stat(paths[i], &st);
    int64_t v[3] = {(int64_t)st.st_size, (int64_t)st.st_mtim.tv_sec, (int64_t)st.st_mtim.tv_nsec};
    h = el__fnv1a(paths[i], strlen(paths[i]) + 1, h);
    h = el__fnv1a(v, sizeof v, h);
  }
  return h;
}
