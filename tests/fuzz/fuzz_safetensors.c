/* libFuzzer: bytes -> the safetensors parser (engine/safetensors.c), both
 * ways a model is read: el__st_parse on a buffer, and el__st_open +
 * el__st_read_f32 of every float tensor from a file (what el_model_load
 * does). A file both accept must give the same tensors; every tensor lies
 * inside the data section. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  el_st_file a = {0}, b = {0};
  el_error err = {0};
  int rc_a = el__st_parse("fuzz", data, size, &a, &err);
  if (rc_a == 0)
    for (int i = 0; i < a.n; i++)
      if (a.t[i].begin > a.t[i].end || a.t[i].end > a.data_len) abort();
  const char *path = fuzz_write("model.safetensors", data, size);
  el_st_reader r;
  int rc_b = el__st_open(path, &r, &b, &err);
  if ((rc_a == 0) != (rc_b == 0)) abort(); /* the two readers agree */
  if (rc_b == 0) {
    if (b.n != a.n) abort();
    for (int i = 0; i < b.n; i++) {
      const el_st_tensor *t = &b.t[i];
      if (t->dtype == EL_ST_I64 || t->numel > (1u << 20)) continue;
      float *dst = malloc((t->numel ? t->numel : 1) * sizeof *dst);
      if (!dst) abort();
      if (el__st_read_f32(&r, t, dst, &err)) abort(); /* the file is whole */
      if (t->dtype == EL_ST_F32 && t->numel &&
          memcmp(dst, a.data + t->begin, t->numel * sizeof *dst))
        abort();
      free(dst);
    }
    el__st_close(&r);
    el__st_free(&b);
  }
  if (rc_a == 0) el__st_free(&a);
  return 0;
}
