/* A loaded model owns its weights: truncating, overwriting or zeroing
 * model.safetensors after el_model_load changes nothing (and never crashes,
 * as a mapping of the file did with SIGBUS), and the reader refuses a file
 * that shrinks or changes while it is being read (engine/safetensors.h
 * el__st_open / el__st_read_f32 / el__st_check_unchanged). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint.h"
#include "electra/electra.h"
#include "model_internal.h"
#include "safetensors.h"
#include "../test.h"
#include "checkpoint_util.h"

static char g_tmp[256];

static uint64_t g_rng = 0x2545f4914f6cdd1dull;
static float frand(void) {
  g_rng ^= g_rng >> 12;
  g_rng ^= g_rng << 25;
  g_rng ^= g_rng >> 27;
  return (float)((g_rng * 0x2545f4914f6cdd1dull) >> 40) / 16777216.0f - 0.5f;
}

static long long file_size(const char *p) {
  struct stat st;
  return stat(p, &st) ? -1 : (long long)st.st_size;
}

/* Sets path's mtime an hour back, so a later write is seen whatever the
 * file system's timestamp granularity. */
static void age(const char *p) {
  struct timespec ts[2];
  clock_gettime(CLOCK_REALTIME, &ts[0]);
  ts[0].tv_sec -= 3600;
  ts[1] = ts[0];
  utimensat(AT_FDCWD, p, ts, 0);
}

static int pwrite_all(const char *p, const void *buf, size_t n, off_t off) {
  int fd = open(p, O_WRONLY);
  if (fd < 0) return -1;
  ssize_t w = pwrite(fd, buf, n, off);
  close(fd);
  return w == (ssize_t)n ? 0 : -1;
}

/* The discriminator's probabilities for a fixed 6-token input. */
static int run(const el_model *m, float *prob) {
  static const int ids[6] = {2, 7, 9, 11, 13, 3};
  int len = 6;
  el_batch b = {1, &len, ids, NULL};
  el_workspace *ws = NULL;
  el_error err = {0};
  int rc = el_workspace_new(m, 16, 1, &ws, &err);
  if (!rc) rc = el_run_replaced(m, ws, &b, prob, &err);
  if (rc) printf("#   %s\n", err.msg);
  el_workspace_free(ws);
  return rc;
}

/* Every change to model.safetensors after loading leaves the model as it was. */
static void test_file_changes_after_load(void) {
  el_config c = small_config(EL_ARCH_PRETRAINING, 8); /* dropout rates do not touch inference */
  const size_t total = el__weights_numel(&c);
  el__weights w;
  el_error err = {0};
  float *block = random_weights(&c, &w, frand);
  char vocab[400], dir[300], st[400];
  snprintf(vocab, sizeof vocab, "%s/vocab.txt", g_tmp);
  FILE *f = fopen(vocab, "w");
  fputs("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n", f);
  for (int i = 5; i < 40; i++) fprintf(f, "tok%d\n", i);
  fclose(f);
  snprintf(dir, sizeof dir, "%s/m", g_tmp);
  snprintf(st, sizeof st, "%s/model.safetensors", dir);
  el_model ref = {0};
  ref.cfg = c;
  ref.w = w;

  static const char *what[] = {"truncated to 100 bytes", "data section overwritten with other "
                               "values", "data section zeroed", "replaced by cp of another model",
                               "deleted"};
  for (int k = 0; k < 5; k++) {
    int rc = el__checkpoint_save(dir, &c, &w, vocab, &err);
    el_model *m = NULL;
    if (!rc) rc = el__model_load_hf(dir, &m, &err);
    CHECK(rc == 0, "load before the file is %s", what[k]);
    if (rc) {
      printf("#   %s\n", err.msg);
      continue;
    }
    float before[6], after[6];
    int r1 = run(m, before);
    long long size = file_size(st);
    size_t data = size > 1000 ? (size_t)size - 1000 : 1; /* the tail: tensor data */
    unsigned char *junk = malloc(data);
    for (size_t i = 0; i < data; i++) junk[i] = (unsigned char)(k == 2 ? 0 : (i * 131 + 7));
    int ch = -1;
    if (k == 0) ch = truncate(st, 100);
    if (k == 1 || k == 2) ch = pwrite_all(st, junk, data, 1000);
    if (k == 3) { /* cp other/model.safetensors M/: the same inode, truncated and rewritten */
      FILE *o = fopen(st, "wb");
      ch = o && fwrite(junk, 1, data, o) == data && fclose(o) == 0 ? 0 : -1;
    }
    if (k == 4) ch = unlink(st);
    int r2 = run(m, after);
    CHECK(ch == 0 && r1 == 0 && r2 == 0 && compare_models(&ref, m) == 0 &&
              memcmp(before, after, sizeof before) == 0,
          "model.safetensors %s after loading: every weight and the output unchanged", what[k]);
    free(junk);
    el_model_free(m);
  }

  el_model *m = NULL;
  el__checkpoint_save(dir, &c, &w, vocab, &err);
  int rc = el_model_load(dir, &m, &err);
  CHECK(rc == 0 && m->owned && m->owned_map_len >= total * sizeof(float) &&
            el_model_weight_bytes(m) == total * sizeof(float) && m->n_params == total,
        "the weights live in one owned block of el_model_weight_bytes = %zu bytes",
        total * sizeof(float));
  el_model_free(m);
  free(block);
}

/* A hand-written safetensors file: F16 "a" [n] then BF16 "b" [3]. */
static int write_half_file(const char *p, size_t n, uint16_t *a, uint16_t *b) {
  char hdr[256];
  int hn = snprintf(hdr, sizeof hdr,
                    "{\"a\":{\"dtype\":\"F16\",\"shape\":[%zu],\"data_offsets\":[0,%zu]},"
                    "\"b\":{\"dtype\":\"BF16\",\"shape\":[3],\"data_offsets\":[%zu,%zu]}}",
                    n, 2 * n, 2 * n, 2 * n + 6);
  FILE *f = fopen(p, "wb");
  if (!f) return -1;
  unsigned char len8[8];
  for (int i = 0; i < 8; i++) len8[i] = (unsigned char)((uint64_t)hn >> (8 * i));
  fwrite(len8, 1, 8, f);
  fwrite(hdr, 1, (size_t)hn, f);
  fwrite(a, 2, n, f);
  fwrite(b, 2, 3, f);
  return fclose(f);
}

static void test_reader(void) {
  char p[400], q[400];
  snprintf(p, sizeof p, "%s/half.safetensors", g_tmp);
  snprintf(q, sizeof q, "%s/other.safetensors", g_tmp);
  enum { N = 70001 }; /* more than two of the reader's 32768-value chunks */
  uint16_t *a = malloc(N * sizeof *a), b[3] = {0x3f80, 0xc0a0, 0x0001};
  for (int i = 0; i < N; i++) a[i] = (uint16_t)(i * 7919u) & 0x7bffu; /* finite halves */
  float *out = malloc(N * sizeof *out), bo[3];
  write_half_file(p, N, a, b);

  el_st_reader r;
  el_st_file f;
  el_error err = {0};
  int rc = el__st_open(p, &r, &f, &err);
  int ok = rc == 0 && f.n == 2 && f.data == NULL;
  if (ok) {
    ok = el__st_read_f32(&r, el__st_find(&f, "a"), out, &err) == 0 &&
         el__st_read_f32(&r, el__st_find(&f, "b"), bo, &err) == 0 &&
         el__st_check_unchanged(&r, &err) == 0;
    for (int i = 0; ok && i < N; i++) ok = out[i] == el__f16_to_f32(a[i]);
    ok = ok && bo[0] == 1.0f && bo[1] == -5.0f && bo[2] == 0x1p-133f;
  }
  CHECK(ok, "el__st_open + el__st_read_f32: F16 across chunk boundaries and BF16, exact");
  if (!ok) printf("#   %s\n", err.msg);
  if (!rc) {
    el__st_close(&r);
    el__st_free(&f);
  }

  /* truncated after the header was read: a read error naming the tensor */
  rc = el__st_open(p, &r, &f, &err);
  int t = truncate(p, 8 + 200 + 1000);
  int rr = rc ? rc : el__st_read_f32(&r, el__st_find(&f, "a"), out, &err);
  CHECK(rc == 0 && t == 0 && rr == EL_EIO && has(err.msg, "tensor \"a\"") &&
            has(err.msg, "truncated while being read"),
        "a file truncated while it is read: EL_EIO naming the tensor");
  printf("#   %s\n", err.msg);
  if (!rc) {
    el__st_close(&r);
    el__st_free(&f);
  }

  /* modified (same size) while it is read: refused by el__st_check_unchanged */
  write_half_file(p, N, a, b);
  age(p);
  rc = el__st_open(p, &r, &f, &err);
  uint16_t one = 0x3c00;
  int wr = pwrite_all(p, &one, 2, 500);
  rr = rc ? rc : el__st_read_f32(&r, el__st_find(&f, "a"), out, &err);
  int cu = rc ? rc : el__st_check_unchanged(&r, &err);
  CHECK(rc == 0 && wr == 0 && rr == 0 && cu == EL_EIO && has(err.msg, "modified while being read"),
        "a file overwritten in place while it is read: EL_EIO from el__st_check_unchanged");
  printf("#   %s\n", err.msg);
  if (!rc) {
    el__st_close(&r);
    el__st_free(&f);
  }

  /* replaced by rename while it is read: the open file is read, consistently */
  write_half_file(p, N, a, b);
  uint16_t *a2 = calloc(N, sizeof *a2);
  write_half_file(q, N, a2, b);
  rc = el__st_open(p, &r, &f, &err);
  int rn = rename(q, p);
  ok = rc == 0 && rn == 0 && el__st_read_f32(&r, el__st_find(&f, "a"), out, &err) == 0 &&
       el__st_check_unchanged(&r, &err) == 0;
  for (int i = 0; ok && i < N; i++) ok = out[i] == el__f16_to_f32(a[i]);
  CHECK(ok, "a file replaced by rename while it is read: the old one is read whole");
  if (!ok) printf("#   rc %d rename %d: %s\n", rc, rn, err.msg);
  if (!rc) {
    el__st_close(&r);
    el__st_free(&f);
  }

  /* the header checks of el__st_parse apply to el__st_open */
  truncate(p, 5);
  rc = el__st_open(p, &r, &f, &err);
  CHECK(rc == EL_EFORMAT && has(err.msg, "shorter than the 8-byte header"),
        "el__st_open: a 5-byte file refused as el__st_parse refuses it");
  write_half_file(p, N, a, b);
  truncate(p, 8 + 100);
  rc = el__st_open(p, &r, &f, &err);
  CHECK(rc == EL_EFORMAT && has(err.msg, "runs past the end of the file"),
        "el__st_open: a file cut inside its header refused");
  write_half_file(p, N, a, b);
  truncate(p, file_size(p) - 2);
  rc = el__st_open(p, &r, &f, &err);
  CHECK(rc == EL_EFORMAT && has(err.msg, "outside the data section"),
        "el__st_open: a file cut inside its data refused before any tensor is read");
  rc = el__st_open(g_tmp, &r, &f, &err);
  CHECK(rc == EL_EIO && has(err.msg, "not a regular file"), "el__st_open: a directory refused");
  free(a);
  free(a2);
  free(out);
}

int main(void) {
  snprintf(g_tmp, sizeof g_tmp, "%s/electra-model-file-XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(g_tmp)) {
    perror("mkdtemp");
    return 1;
  }
  test_file_changes_after_load();
  test_reader();
  int rc = el_test_done();
  if (!rc) rm_rf(g_tmp);
  return rc;
}
