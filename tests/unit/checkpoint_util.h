/* Helpers shared by the checkpoint unit test (test_engine_checkpoint.c) and
 * the corrupt-checkpoint driver (tests/reference/checkpoint_driver.c). */
#ifndef EL_TESTS_CHECKPOINT_UTIL_H
#define EL_TESTS_CHECKPOINT_UTIL_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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

#endif
