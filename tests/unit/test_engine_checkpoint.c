/* Checkpoint IO: tensor table, safetensors validation on hand-crafted
 * buffers, F16/BF16 conversion, atomic save and a
 * save -> load round trip of every architecture. (Loading PyTorch-written and
 * corrupted checkpoints: tests/reference/test_checkpoint_corrupt.sh; config.json:
 * test_engine_config.c.) */
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint.h"
#include "electra/electra.h"
#include "fileio.h"
#include "infer_gemm.h"
#include "model_internal.h"
#include "quant.h"
#include "safetensors.h"
#include "../test.h"
#include "checkpoint_util.h"

static char g_tmp[256];

/* ---- small helpers ---------------------------------------------------- */

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static float frand(void) { /* xorshift64*, uniform in [-0.5, 0.5) */
  g_rng ^= g_rng >> 12;
  g_rng ^= g_rng << 25;
  g_rng ^= g_rng >> 27;
  return (float)((g_rng * 0x2545f4914f6cdd1dull) >> 40) / 16777216.0f - 0.5f;
}

/* ---- the tensor table ------------------------------------------------- */

static const el__tensor_spec *find_spec(const el__tensor_spec *s, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(s[i].name, name) == 0) return &s[i];
  return NULL;
}

static void test_specs(void) {
  static el__tensor_spec specs[EL_MAX_TENSORS];
  el__weights w;
  el_error err = {0};
  int n = 0;
  /* Expected counts: 5 embedding tensors (+2 projection) + 16 per layer + head. */
  const int head[EL_ARCH_COUNT] = {4, 6, 4, 2, 2};
  for (int a = 0; a < EL_ARCH_COUNT; a++)
    for (int E = 8; E <= 16; E += 8) {
      el_config c = small_config((el_arch)a, E);
      int rc = el__tensor_specs(&c, &w, specs, &n, &err);
      int want = 5 + (E != 16 ? 2 : 0) + 16 * c.num_layers + head[a];
      CHECK(rc == 0 && n == want, "specs %s E=%d: %d tensors (expected %d)", el_arch_name(c.arch),
            E, n, want);
      size_t sum = 0;
      int names_ok = 1, depth_ok = 1, decay_ok = 1;
      for (int i = 0; i < n; i++) {
        const el__tensor_spec *s = &specs[i];
        if (!s->optional) sum += (size_t)s->shape[0] * (size_t)(s->ndim == 2 ? s->shape[1] : 1);
        int is_head = strncmp(s->name, "electra.", 8) != 0;
        if (!is_head && strncmp(s->name, "electra.", 8) != 0) names_ok = 0;
        int layer = -1;
        if (sscanf(s->name, "electra.encoder.layer.%d.", &layer) == 1) {
          if (s->depth != layer + 1) depth_ok = 0;
        } else if (is_head ? s->depth != c.num_layers + 1 : s->depth != 0) {
          depth_ok = 0;
        }
        int want_nd = strstr(s->name, "LayerNorm") || strstr(s->name, ".bias");
        if (s->no_decay != want_nd) decay_ok = 0;
      }
      CHECK(names_ok && depth_ok && decay_ok, "specs %s E=%d: depth and no_decay flags",
            el_arch_name(c.arch), E);
      CHECK(sum == el__weights_numel(&c), "specs %s E=%d: numel %zu == el__weights_numel %zu",
            el_arch_name(c.arch), E, sum, el__weights_numel(&c));
      CHECK((find_spec(specs, n, "electra.embeddings_project.weight") != NULL) == (E != 16),
            "specs %s E=%d: embeddings_project only when E != H", el_arch_name(c.arch), E);
    }
  el_config c = small_config(EL_ARCH_MASKED_LM, 8);
  el__tensor_specs(&c, &w, specs, &n, &err);
  const el__tensor_spec *lm = find_spec(specs, n, "generator_lm_head.weight");
  const el__tensor_spec *gd = find_spec(specs, n, "generator_predictions.dense.weight");
  CHECK(lm && lm->optional && lm->shape[0] == 40 && lm->shape[1] == 8 && lm->slot == &w.lm_w,
        "mlm: generator_lm_head.weight optional [V, E] slot lm_w");
  CHECK(gd && gd->shape[0] == 8 && gd->shape[1] == 16, "mlm: generator_predictions.dense [E, H]");
  c = small_config(EL_ARCH_SEQ_CLS, 16);
  el__tensor_specs(&c, &w, specs, &n, &err);
  const el__tensor_spec *op = find_spec(specs, n, "classifier.out_proj.weight");
  CHECK(op && op->shape[0] == 3 && op->shape[1] == 16 && op->slot == &w.cls_out.w,
        "cls: classifier.out_proj.weight [num_labels, H]");
  c = small_config(EL_ARCH_TOKEN_CLS, 16);
  el__tensor_specs(&c, &w, specs, &n, &err);
  const el__tensor_spec *tw = find_spec(specs, n, "classifier.weight");
  const el__tensor_spec *tb = find_spec(specs, n, "classifier.bias");
  CHECK(tw && tw->shape[0] == 3 && tw->shape[1] == 16 && tw->slot == &w.tok_cls.w && tb &&
            tb->ndim == 1 && tb->shape[0] == 3 && tb->slot == &w.tok_cls.b &&
            !find_spec(specs, n, "classifier.dense.weight"),
        "token cls: classifier.weight [num_labels, H] and classifier.bias, no dense layer");
  c = small_config(EL_ARCH_SEQ_CLS, 16);
  el__tensor_specs(&c, &w, specs, &n, &err);
  const el__tensor_spec *q = find_spec(specs, n, "electra.encoder.layer.1.attention.self.key.bias");
  CHECK(q && q->ndim == 1 && q->shape[0] == 16 && q->slot == &w.layer[1].k.b && q->depth == 2 &&
            q->no_decay,
        "layer 1 key bias: [H], slot, depth 2, no decay");

  /* el__weights_point: contiguous, in spec order, tied lm -> word. */
  c = small_config(EL_ARCH_MASKED_LM, 8);
  size_t total = el__weights_numel(&c);
  float *block = calloc(total, sizeof(float));
  int rc = el__weights_point(&c, &w, block, &err);
  el__tensor_specs(&c, &w, specs, &n, &err);
  size_t at = 0;
  int contiguous = 1;
  for (int i = 0; i < n; i++) {
    if (specs[i].optional) continue;
    if (*specs[i].slot != block + at) contiguous = 0;
    at += (size_t)specs[i].shape[0] * (size_t)(specs[i].ndim == 2 ? specs[i].shape[1] : 1);
  }
  CHECK(rc == 0 && contiguous && at == total, "el__weights_point: spec order, contiguous");
  CHECK(w.lm_w == w.word && w.project.w != NULL && w.qa.w == NULL,
        "el__weights_point: tied lm_w == word; other heads NULL");
  free(block);
}

/* ---- safetensors ------------------------------------------------------ */

/* 8-byte length + header + data_len bytes (zeros); len_override >= 0
 * replaces the length prefix. Caller frees. */
static unsigned char *mk_st(const char *header, size_t data_len, long long len_override,
                            size_t *out_len) {
  size_t h = strlen(header), n = 8 + h + data_len;
  unsigned char *b = calloc(1, n);
  uint64_t L = len_override >= 0 ? (uint64_t)len_override : h;
  for (int i = 0; i < 8; i++) b[i] = (unsigned char)(L >> (8 * i));
  memcpy(b + 8, header, h);
  *out_len = n;
  return b;
}

static void expect_st(const char *header, size_t data_len, long long len_override, int code,
                      const char *s1, const char *s2, const char *what) {
  size_t n;
  unsigned char *b = mk_st(header, data_len, len_override, &n);
  el_st_file f;
  el_error err = {0};
  int rc = el__st_parse("m.safetensors", b, n, &f, &err);
  int ok = rc == code && (!s1 || has(err.msg, s1)) && (!s2 || has(err.msg, s2)) &&
           (code == 0 || has(err.msg, "m.safetensors"));
  CHECK(ok, "safetensors %s -> %s", what, el_status_name(code));
  if (!ok) printf("#   got %s: %s\n", el_status_name(rc), err.msg);
  if (rc == 0) el__st_free(&f);
  free(b);
}

#define T_A "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}"

static void test_safetensors(void) {
  size_t n;
  unsigned char *b = mk_st("{\"__metadata__\":{\"format\":\"pt\"},"
                           "\"w\":{\"dtype\":\"BF16\",\"shape\":[2,3],\"data_offsets\":[8,20]},"
                           T_A "}   ", 20, -1, &n);
  el_st_file f;
  el_error err = {0};
  int rc = el__st_parse("m.safetensors", b, n, &f, &err);
  CHECK(rc == 0 && f.n == 2 && strcmp(f.t[0].name, "a") == 0 && f.t[1].dtype == EL_ST_BF16 &&
            f.t[1].ndim == 2 && f.t[1].shape[1] == 3 && f.t[1].numel == 6 && f.data_len == 20 &&
            el__st_find(&f, "w") == &f.t[1] && el__st_find(&f, "x") == NULL,
        "safetensors: valid file parsed, sorted by offset, padding spaces accepted");
  if (rc) printf("#   %s\n", err.msg);
  if (!rc) el__st_free(&f);
  free(b);
  expect_st("{}", 0, -1, 0, NULL, NULL, "empty header");
  expect_st("{\"s\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]}}", 4, -1, 0, NULL,
            NULL, "scalar tensor");

  /* truncated / length prefix */
  b = mk_st("{}", 0, -1, &n);
  rc = el__st_parse("m.safetensors", b, 5, &f, &err);
  CHECK(rc == EL_EFORMAT && has(err.msg, "shorter than the 8-byte"), "safetensors: 5-byte file");
  free(b);
  expect_st("{" T_A "}", 8, 4000, EL_EFORMAT, "header length 4000", "past the end",
            "header length past the end");
  expect_st("{" T_A "}", 8, (long long)1 << 62, EL_EFORMAT, "past the end", NULL,
            "header length 2^62");
  expect_st("{" T_A "}", 4, -1, EL_EFORMAT, "\"a\"", "outside the data section",
            "truncated data");
  expect_st("{}", 0, 0, EL_EFORMAT, "not a JSON object", NULL, "header length 0");
  /* header JSON */
  expect_st("{\"a\":{\"dtype\":\"F32\",", 0, -1, EL_EFORMAT, "invalid JSON", NULL,
            "cut JSON header");
  expect_st("[1,2]", 0, -1, EL_EFORMAT, "not a JSON object", NULL, "array header");
  expect_st("{" T_A "}xyz", 8, -1, EL_EFORMAT, "unexpected bytes", NULL, "junk after header");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}\0}", 8, -1,
            EL_EFORMAT, NULL, NULL, "NUL inside header");
  expect_st("{\"a\":5}", 0, -1, EL_EFORMAT, "\"a\"", "not an object", "entry not an object");
  expect_st("{\"__metadata__\":3}", 0, -1, EL_EFORMAT, "__metadata__", NULL, "metadata number");
  /* dtypes */
  expect_st("{\"a\":{\"dtype\":\"F99\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, -1,
            EL_EFORMAT, "\"a\"", "F99", "unknown dtype F99");
  expect_st("{\"a\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]}}", 8, -1,
            EL_EUNSUPPORTED, "\"a\"", "F64", "dtype F64");
  expect_st("{\"a\":{\"dtype\":7,\"shape\":[1],\"data_offsets\":[0,4]}}", 4, -1, EL_EFORMAT,
            "dtype", NULL, "numeric dtype");
  /* shapes and offsets */
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8, -1,
            EL_EFORMAT, "\"a\"", "needs 12 bytes", "shape vs byte count");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}", 8, -1,
            EL_EFORMAT, "shape[0]", NULL, "negative dimension");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,8]}}", 8, -1,
            EL_EFORMAT, "shape[0]", NULL, "fractional dimension");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,4294967296],"
            "\"data_offsets\":[0,0]}}", 0, -1, EL_EFORMAT, "overflows", NULL,
            "shape product overflow");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}",
            4, -1, EL_EFORMAT, "dimensions", NULL, "9 dimensions");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0]}}", 8, -1,
            EL_EFORMAT, "data_offsets", NULL, "one offset");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,0]}}", 8, -1,
            EL_EFORMAT, "end before", NULL, "offsets reversed");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,1e300]}}", 8, -1,
            EL_EFORMAT, "data_offsets", NULL, "offset 1e300");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[18446744073709551608,"
            "18446744073709551616]}}", 8, -1, EL_EFORMAT, "data_offsets", NULL,
            "offsets near 2^64");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4096,4104]}}", 8, -1,
            EL_EFORMAT, "outside", "4096", "offsets outside the data");
  expect_st("{" T_A ",\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12, -1,
            EL_EFORMAT, "overlap", "\"b\"", "overlapping tensors");
  expect_st("{" T_A ",\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, -1,
            EL_EFORMAT, "overlap", NULL, "two tensors on the same bytes");
  expect_st("{" T_A "," T_A "}", 8, -1, EL_EFORMAT, "\"a\" appears twice", NULL,
            "duplicate name");
  expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
            "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}", 12, -1,
            EL_EFORMAT, "belong to no tensor", "\"b\"", "hole between tensors");
  expect_st("{" T_A "}", 12, -1, EL_EFORMAT, "4 bytes after the last tensor", NULL,
            "trailing bytes");
}

static void test_half(void) {
  CHECK(el__f16_to_f32(0x3c00) == 1.0f && el__f16_to_f32(0xc000) == -2.0f &&
            el__f16_to_f32(0x7bff) == 65504.0f && el__f16_to_f32(0x3555) == 0x1.554p-2f &&
            el__f16_to_f32(0x0001) == 0x1p-24f && el__f16_to_f32(0x03ff) == 0x1.ff8p-15f &&
            el__f16_to_f32(0x0400) == 0x1p-14f,
        "f16 -> f32: normal, max, subnormal values exact");
  float inf = el__f16_to_f32(0x7c00), nan = el__f16_to_f32(0x7e00), nz = el__f16_to_f32(0x8000);
  CHECK(isinf(inf) && inf > 0 && isnan(nan) && nz == 0.0f && signbit(nz),
        "f16 -> f32: inf, nan, -0");
  CHECK(el__bf16_to_f32(0x3f80) == 1.0f && el__bf16_to_f32(0xc0a0) == -5.0f &&
            el__bf16_to_f32(0x0001) == 0x1p-133f && isnan(el__bf16_to_f32(0x7fc0)),
        "bf16 -> f32 exact");
}

/* ---- save / load round trip (C-made weights) -------------------------- */

static void test_roundtrip_c(void) {
  char vocab[300], dir[300];
  snprintf(vocab, sizeof vocab, "%s/vocab40.txt", g_tmp);
  write_vocab(vocab, 40);
  for (int a = 0; a < EL_ARCH_COUNT; a++)
    for (int E = 8; E <= 16; E += 8) {
      el_config c = small_config((el_arch)a, E);
      char *names[3] = {"x", "y", "z"};
      if (a == EL_ARCH_SEQ_CLS || a == EL_ARCH_TOKEN_CLS) c.id2label = names;
      size_t total = el__weights_numel(&c);
      float *block = malloc(total * sizeof(float));
      for (size_t i = 0; i < total; i++) block[i] = frand();
      el__weights w;
      el_error err = {0};
      el__weights_point(&c, &w, block, &err);
      snprintf(dir, sizeof dir, "%s/rt-%d-%d", g_tmp, a, E);
      int rc = el__checkpoint_save(dir, &c, &w, vocab, &err);
      el_model *m = NULL;
      int rc2 = rc ? rc : el__model_load_hf(dir, &m, &err);
      int same = 0;
      if (!rc2) {
        el_model ref = {0};
        ref.cfg = c;
        ref.w = w;
        same = compare_models(&ref, m) == 0;
      }
      CHECK(rc == 0 && rc2 == 0 && same, "C round trip %s E=%d: save, load, every tensor equal",
            el_arch_name(c.arch), E);
      if (rc || rc2) printf("#   %s\n", err.msg);
      if (m) {
        const el_config *mc = el_model_config(m);
        CHECK(mc->arch == c.arch && mc->num_labels == c.num_labels &&
                  el_model_num_parameters(m) == total &&
                  el_model_weight_bytes(m) == total * sizeof(float) &&
                  (a != EL_ARCH_MASKED_LM || m->w.lm_w == m->w.word) &&
                  ((a != EL_ARCH_SEQ_CLS && a != EL_ARCH_TOKEN_CLS) ||
                   strcmp(mc->id2label[2], "z") == 0) &&
                  el_tokenizer_vocab_size(el_model_tokenizer(m)) == 40,
              "C round trip %s E=%d: config, parameter count, tied head, vocab",
              el_arch_name(c.arch), E);
      }
      el_model_free(m);
      free(block);
    }
}

static void test_save_errors(void) {
  char vocab[300], dir[300], p[400];
  el_error err = {0};
  snprintf(vocab, sizeof vocab, "%s/vocab40.txt", g_tmp);
  el_config c = small_config(EL_ARCH_PRETRAINING, 8);
  el__weights w;
  float *block = random_weights(&c, &w, frand);

  /* Replacing an existing checkpoint: new content, stray files gone, no temporaries. */
  snprintf(dir, sizeof dir, "%s/replace", g_tmp);
  int rc = el__checkpoint_save(dir, &c, &w, vocab, &err);
  snprintf(p, sizeof p, "%s/stray.txt", dir);
  write_text(p, "old");
  block[0] = 123.0f;
  char slash[320];
  snprintf(slash, sizeof slash, "%s/", dir);
  int rc2 = el__checkpoint_save(slash, &c, &w, vocab, &err);
  el_model *m = NULL;
  int rc3 = el_model_load(dir, &m, &err);
  CHECK(rc == 0 && rc2 == 0 && rc3 == 0 && m && m->w.word[0] == 123.0f && !path_exists(p) &&
            count_prefix(g_tmp, "replace.") == 0,
        "el__checkpoint_save replaces an existing directory (trailing slash), no temporaries");
  if (rc || rc2 || rc3) printf("#   %s\n", err.msg);
  el_model_free(m);

  /* Saving a loaded model over the directory it was read from, as a trainer
   * keeping its best checkpoint does. */
  m = NULL;
  el_model *m2 = NULL;
  char own_vocab[400];
  snprintf(own_vocab, sizeof own_vocab, "%s/vocab.txt", dir);
  rc = el__model_load_hf(dir, &m, &err);
  rc2 = rc ? rc : el__checkpoint_save(dir, &m->cfg, &m->w, own_vocab, &err);
  rc3 = rc2 ? rc2 : el__model_load_hf(dir, &m2, &err);
  CHECK(rc3 == 0 && compare_models(m, m2) == 0,
        "save a loaded model over its own directory, reload: identical");
  if (rc3) printf("#   %s\n", err.msg);
  el_model_free(m);
  el_model_free(m2);

  /* Failures leave nothing behind and the old checkpoint intact. */
  snprintf(p, sizeof p, "%s/no-such-vocab.txt", g_tmp);
  rc = el__checkpoint_save(dir, &c, &w, p, &err);
  m = NULL;
  rc2 = el_model_load(dir, &m, &err);
  CHECK(rc == EL_EIO && has(err.msg, "no-such-vocab.txt") && rc2 == 0 && count_prefix(g_tmp, "replace.") == 0,
        "save with a missing vocab: EL_EIO, old checkpoint intact, temporary removed");
  el_model_free(m);
  snprintf(p, sizeof p, "%s/no/such/parent/ckpt", g_tmp);
  rc = el__checkpoint_save(p, &c, &w, vocab, &err);
  CHECK(rc == EL_EIO && has(err.msg, "no/such/parent/ckpt.tmp-"),
        "save under a missing parent: EL_EIO naming the path");
  float keep = block[5];
  block[5] = NAN;
  snprintf(p, sizeof p, "%s/nan", g_tmp);
  rc = el__checkpoint_save(p, &c, &w, vocab, &err);
  CHECK(rc == EL_EVALUE && has(err.msg, "electra.embeddings.word_embeddings.weight") &&
            has(err.msg, "index 5") && !path_exists(p) && count_prefix(g_tmp, "nan.") == 0,
        "save refuses NaN weights naming tensor and index; nothing left behind");
  block[5] = keep;
  el__weights w2 = w;
  w2.layer[1].v.b = NULL;
  rc = el__checkpoint_save(p, &c, &w2, vocab, &err);
  CHECK(rc == EL_EINVAL && has(err.msg, "electra.encoder.layer.1.attention.self.value.bias"),
        "save refuses weights with an unset tensor, naming it");
  snprintf(p, sizeof p, "%s/afile", g_tmp);
  write_text(p, "x");
  rc = el__checkpoint_save(p, &c, &w, vocab, &err);
  CHECK(rc == EL_EIO && has(err.msg, "not a directory"),
        "save over a regular file is refused");

  /* A full disk is EL_ENOSPC naming the file (/dev/full fails every write). */
  if (access("/dev/full", W_OK) == 0) {
    rc = el__write_file("/dev/full", "abc", 3, &err);
    CHECK(rc == EL_ENOSPC && has(err.msg, "/dev/full"), "write to a full device -> EL_ENOSPC");
    rc = el__safetensors_save("/dev/full", &c, &w, &err);
    CHECK(rc == EL_ENOSPC && has(err.msg, "/dev/full") && path_exists("/dev/full"),
          "safetensors save to a full device -> EL_ENOSPC, device not removed");
  } else {
    SKIP("/dev/full not writable");
  }
  free(block);
}

/* ---- model-level defects on a C-written checkpoint -------------------- */

static void test_load_errors(void) {
  char vocab[300], dir[300], p[400];
  el_error err = {0};
  el_model *m = NULL;
  snprintf(vocab, sizeof vocab, "%s/vocab40.txt", g_tmp);
  el_config c = small_config(EL_ARCH_QA, 16);
  el__weights w;
  float *block = random_weights(&c, &w, frand);
  snprintf(dir, sizeof dir, "%s/qa", g_tmp);
  el__checkpoint_save(dir, &c, &w, vocab, &err);

  snprintf(p, sizeof p, "%s/vocab.txt", dir);
  write_vocab(p, 39);
  int rc = el_model_load(dir, &m, &err);
  CHECK(rc == EL_ESHAPE && has(err.msg, "vocab.txt") && has(err.msg, "39") &&
            has(err.msg, "40") && m == NULL,
        "vocab.txt with 39 tokens for vocab_size 40 -> EL_ESHAPE naming both");
  if (rc != EL_ESHAPE) printf("#   %s\n", err.msg);
  unlink(p);
  rc = el_model_load(dir, &m, &err);
  CHECK(rc == EL_EIO && has(err.msg, "vocab.txt"), "missing vocab.txt -> EL_EIO naming it");
  write_vocab(p, 40);
  snprintf(p, sizeof p, "%s/model.safetensors", dir);
  unlink(p);
  rc = el_model_load(dir, &m, &err);
  CHECK(rc == EL_EIO && has(err.msg, "model.safetensors"),
        "missing model.safetensors -> EL_EIO naming it");
  snprintf(p, sizeof p, "%s/config.json", dir);
  unlink(p);
  rc = el_model_load(dir, &m, &err);
  CHECK(rc == EL_EIO && has(err.msg, "config.json"), "missing config.json -> EL_EIO naming it");
  rc = el_model_load("/nonexistent/dir", &m, &err);
  CHECK(rc == EL_EIO && has(err.msg, "/nonexistent/dir/config.json"),
        "missing directory -> EL_EIO");
  free(block);
}

/* ---- the fp32 inference layout (infer_layout.c) ------------------------ */

/* 1 when a [in,out] equals the transpose of b [out,in]. */
static int is_transpose(const float *a, const float *b, int out, int in) {
  for (int o = 0; o < out; o++)
    for (int i = 0; i < in; i++)
      if (a[(size_t)i * out + o] != b[(size_t)o * in + i]) return 0;
  return 1;
}

/* a is b [out,in] in the inference layout `layout` (infer_layout.c). */
static int is_layout(const float *a, const float *b, int out, int in, el__wlayout layout) {
  if (layout == EL__W_IN_OUT) return is_transpose(a, b, out, in);
  if (layout != EL__W_PACKED) return 0;
  float *p = malloc(sizeof(float) * (size_t)out * in);
  el__gemm_pack(p, b, out, in);
  const int same = !memcmp(a, p, sizeof(float) * (size_t)out * in);
  free(p);
  return same;
}

static void test_inference_layout(void) {
  char vocab[300], dir[300];
  snprintf(vocab, sizeof vocab, "%s/vocab40.txt", g_tmp);
  snprintf(dir, sizeof dir, "%s/layout", g_tmp);
  el_config c = small_config(EL_ARCH_PRETRAINING, 8);
  el__weights w;
  el_error err = {0};
  float *block = random_weights(&c, &w, frand);
  el_model *inf = NULL, *hf = NULL;
  int rc = el__checkpoint_save(dir, &c, &w, vocab, &err);
  if (!rc) rc = el_model_load(dir, &inf, &err);
  if (!rc) rc = el__model_load_hf(dir, &hf, &err);
  CHECK(rc == 0, "a model loaded both ways: %s", rc ? err.msg : "ok");
  if (rc) goto done;
  const int H = c.hidden_size, I = c.intermediate_size; /* 16, 24: not square */
  int ok = 1, flags = 1;
  const el__wlayout want = el__gemm_isa() != EL__GEMM_NONE ? EL__W_PACKED : EL__W_IN_OUT;
  for (int l = 0; l < c.num_layers; l++) {
    const el__layer_w *a = &inf->w.layer[l], *b = &hf->w.layer[l];
    const el__dense_w *da[6] = {&a->q, &a->k, &a->v, &a->attn_out, &a->inter, &a->out};
    const el__dense_w *db[6] = {&b->q, &b->k, &b->v, &b->attn_out, &b->inter, &b->out};
    const int outs[6] = {H, H, H, H, I, H}, ins[6] = {H, H, H, H, H, I};
    for (int k = 0; k < 6; k++) {
      ok = ok && is_layout(da[k]->w, db[k]->w, outs[k], ins[k], want) &&
           !memcmp(da[k]->b, db[k]->b, sizeof(float) * (size_t)outs[k]);
      flags = flags && da[k]->layout == want && db[k]->layout == EL__W_HF;
    }
  }
  CHECK(ok && flags, "el_model_load: every encoder dense weight is the file's [out,in] in the "
        "inference layout this CPU gets (%s); el__model_load_hf keeps the file's layout",
        want == EL__W_PACKED ? "packed panels" : "[in,out]");
  CHECK(is_layout(inf->w.disc_dense.w, hf->w.disc_dense.w, H, H, want) &&
            inf->w.disc_dense.layout == want && hf->w.disc_dense.layout == EL__W_HF,
        "the head's dense layer is in the same inference layout (el__head_dense)");
  CHECK(!memcmp(inf->w.disc_pred.w, hf->w.disc_pred.w, sizeof(float) * (size_t)H) &&
            !memcmp(inf->w.word, hf->w.word, sizeof(float) * 40 * 8),
        "the embeddings and the output row read as a row keep the file's layout");
  CHECK(el__weights_hf_layout(&c, &hf->w) && !el__weights_hf_layout(&c, &inf->w),
        "el__weights_hf_layout tells the two apart");
  char again[320];
  snprintf(again, sizeof again, "%s/layout-again", g_tmp);
  rc = el__checkpoint_save(again, &inf->cfg, &inf->w, vocab, &err);
  CHECK(rc == EL_EINVAL && has(err.msg, "laid out for inference") && !path_exists(again),
        "saving a model in the inference layout is refused (it would write transposed tensors "
        "under HF names): %s", err.msg);
  if (el_dtype_available(EL_DTYPE_INT8)) {
    el_model *q = NULL;
    el_load_options lo = {.dtype = EL_DTYPE_INT8};
    rc = el_model_load_opts(dir, &lo, &q, &err);
    const int E = c.embedding_size;
    CHECK(!rc && is_layout(q->w.project.w, hf->w.project.w, H, E, want) &&
              q->w.project.layout == want,
          "an int8 model's fp32 projection is in the same inference layout (%s)",
          rc ? err.msg : "ok");
    CHECK(!rc && q->w.disc_dense.w == NULL && q->q->disc_dense != NULL,
          "an int8 model's discriminator dense layer is int8, its fp32 weights released");
    if (!rc) rc = el__checkpoint_save(again, &q->cfg, &q->w, vocab, &err);
    CHECK(rc == EL_EINVAL && has(err.msg, "int8") && !path_exists(again),
          "saving an int8-loaded model (its fp32 dense weights released) is refused: %s", err.msg);
    el_model_free(q);
  }
done:
  el_model_free(inf);
  el_model_free(hf);
  free(block);
}

int main(void) {
  snprintf(g_tmp, sizeof g_tmp, "/tmp/el-test-ckpt-XXXXXX");
  if (!mkdtemp(g_tmp)) {
    perror("mkdtemp");
    return 1;
  }
  test_specs();
  test_safetensors();
  test_half();
  test_roundtrip_c();
  test_inference_layout();
  test_save_errors();
  test_load_errors();
  rm_rf(g_tmp);
  return el_test_done();
}
