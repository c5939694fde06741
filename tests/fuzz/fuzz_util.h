/* Shared by the libFuzzer targets (tests/fuzz/README.md): a scratch
 * directory on tmpfs for the readers that take paths, and the fixtures'
 * location. */
#ifndef EL_FUZZ_UTIL_H
#define EL_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A directory of this process's own, made once. */
static inline const char *fuzz_dir(void) {
  static char dir[256];
  if (!dir[0]) {
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof dir, "%s/electra-fuzz-%d", base, (int)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    if (system(cmd) != 0) abort();
  }
  return dir;
}

/* Writes n bytes to DIR/name; returns the path (static buffer per name slot). */
static inline const char *fuzz_write(const char *name, const uint8_t *data, size_t n) {
  static char path[4][512];
  static int slot;
  char *p = path[slot++ & 3];
  snprintf(p, 512, "%s/%s", fuzz_dir(), name);
  FILE *f = fopen(p, "wb");
  if (!f) abort();
  if (n && fwrite(data, 1, n, f) != n) abort();
  fclose(f);
  return p;
}

/* tests/fuzz/fixtures/FILE, found from the working directory or the binary's
 * (EL_FUZZ_FIXTURES overrides). */
static inline const char *fuzz_fixture(const char *file) {
  static char p[1024];
  const char *env = getenv("EL_FUZZ_FIXTURES");
  const char *cands[] = {env, "tests/fuzz/fixtures", "../tests/fuzz/fixtures",
                         "../../tests/fuzz/fixtures"};
  for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++) {
    if (!cands[i]) continue;
    snprintf(p, sizeof p, "%s/%s", cands[i], file);
    if (access(p, R_OK) == 0) return p;
  }
  fprintf(stderr, "fuzz: cannot find fixture %s (run from the repository root)\n", file);
  abort();
}

#endif
