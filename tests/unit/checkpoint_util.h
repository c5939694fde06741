/* Helpers shared by the checkpoint unit test (test_engine_checkpoint.c) and
 * the corrupt-checkpoint driver (tests/reference/checkpoint_driver.c). */
#ifndef EL_TESTS_CHECKPOINT_UTIL_H
#define EL_TESTS_CHECKPOINT_UTIL_H

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "electra/electra.h"
#include "model_internal.h"

static inline int has(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

static inline int path_exists(const char *p) {
  struct stat st;
  return lstat(p, &st) == 0;
}

/* Entries of dir whose name starts with prefix (-1 if dir cannot be read). */
static inline int count_prefix(const char *dir, const char *prefix) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) n++;
  closedir(d);
  return n;
}

/* The status code named s ("EL_EFORMAT"), or 1 (never a status). */
static inline int code_from_name(const char *s) {
  for (int c = 0; c >= -20; c--)
    if (strcmp(el_status_name(c), s) == 0) return c;
  return 1;
}

static inline int same_bits(const float *a, const float *b, size_t n) {
  return a && b && memcmp(a, b, n * sizeof(float)) == 0;
}

/* Compares every tensor of two models bit for bit; returns the number of
 * tensors that differ (name of the first printed). */
static inline int compare_models(const el_model *a, const el_model *b) {
  static el__tensor_spec sa[EL_MAX_TENSORS], sb[EL_MAX_TENSORS];
  el__weights wa = a->w, wb = b->w;
  int na = 0, nb = 0, bad = 0;
  el_error err = {0};
  if (el__tensor_specs(&a->cfg, &wa, sa, &na, &err) || el__tensor_specs(&b->cfg, &wb, sb, &nb, &err) ||
      na != nb)
    return 1000;
  for (int i = 0; i < na; i++) {
    size_t n = (size_t)sa[i].shape[0] * (size_t)(sa[i].ndim == 2 ? sa[i].shape[1] : 1);
    if (strcmp(sa[i].name, sb[i].name) != 0 || !same_bits(*sa[i].slot, *sb[i].slot, n)) {
      if (!bad) printf("#   tensor %s differs\n", sa[i].name);
      bad++;
    }
  }
  return bad;
}

/* ---- scratch files and small configs (unit tests) ---- */

static inline int write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t n = strlen(text);
  int ok = fwrite(text, 1, n, f) == n;
  return (fclose(f) == 0 && ok) ? 0 : -1;
}

static inline int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)ftw;
  return flag == FTW_DP ? rmdir(p) : unlink(p);
}
static inline void rm_rf(const char *p) { nftw(p, rm_cb, 16, FTW_DEPTH | FTW_PHYS); }

static inline el_config small_config(el_arch arch, int E) {
  el_config c;
  memset(&c, 0, sizeof c);
  c.arch = arch;
  c.vocab_size = 40;
  c.embedding_size = E;
  c.hidden_size = 16;
  c.num_layers = 2;
  c.num_heads = 2;
  c.intermediate_size = 24;
  c.max_position_embeddings = 20;
  c.type_vocab_size = 2;
  c.layer_norm_eps = 1e-12f;
  c.initializer_range = 0.02f;
  c.hidden_dropout_prob = 0.1f;
  c.attention_probs_dropout_prob = 0.1f;
  c.do_lower_case = 1;
  if (arch == EL_ARCH_SEQ_CLS || arch == EL_ARCH_TOKEN_CLS) c.num_labels = 3;
  return c;
}

/* A parameter block of c's size filled from rnd, w pointed into it; the
 * caller frees the block. */
static inline float *random_weights(const el_config *c, el__weights *w, float (*rnd)(void)) {
  size_t total = el__weights_numel(c);
  float *block = malloc(total * sizeof(float));
  if (!block) return NULL;
  for (size_t i = 0; i < total; i++) block[i] = rnd();
  el__weights_point(c, w, block, NULL);
  return block;
}

static inline int write_vocab(const char *path, int V) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n", f);
  for (int i = 5; i < V; i++) fprintf(f, "tok%d\n", i);
  return fclose(f);
}

#endif
