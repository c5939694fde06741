/* The levels of lang/ngram.h's EL__NGRAM_GAIN, measured: reads correct
 * English (one sentence or paragraph per line; punctuation at a word's ends
 * split off), computes every word's gain for each kind of edit
 * (el__ngram_gains) and prints, per kind, the gain that the given shares of
 * the places of that kind reach or pass: the level at which that share of
 * correct text would be flagged.
 *
 *   ngram_levels FILE [EVERY (1)]   (EVERY k: every k-th line only)
 *
 * make run's levels: ngram_levels build/default-sentences.txt (docs/GED.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learner.h"
#include "ngram.h"

#define MAX_WORDS 256

static int cmp_desc(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x < y) - (x > y);
}

/* Splits line into words, punctuation at either end of a chunk its own word. */
static int split(char *line, char *store, char **w) {
  int n = 0;
  for (char *c = strtok(line, " \t\r\n"); c && n + 3 < MAX_WORDS; c = strtok(NULL, " \t\r\n")) {
    size_t len = strlen(c), a = 0, b = len;
    while (a < b && strchr(".,;:!?\"()", c[a])) a++;
    while (b > a && strchr(".,;:!?\"()", c[b - 1])) b--;
    if (a > 0) { w[n] = store; memcpy(store, c, a); store[a] = 0; store += a + 1; n++; }
    if (b > a) { w[n] = store; memcpy(store, c + a, b - a); store[b - a] = 0; store += b - a + 1; n++; }
    if (len > b) { w[n] = store; memcpy(store, c + b, len - b); store[len - b] = 0; store += len - b + 1; n++; }
  }
  return n;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: ngram_levels FILE [EVERY]\n");
    return 2;
  }
  long every = argc > 2 ? atol(argv[2]) : 1, seen = 0;
  if (every < 1) every = 1;
  FILE *f = fopen(argv[1], "r");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  el_error err = {0};
  el__ngram *m = NULL;
  el__learner *l = NULL;
  if (el__ngram_load(NULL, &m, &err) || el__learner_load(NULL, &l, &err)) {
    fprintf(stderr, "ngram_levels: %s\n", err.msg);
    return 1;
  }
  size_t cap = 1 << 16, count[EL__NGRAM_EDITS] = {0};
  double *g[EL__NGRAM_EDITS];
  for (int k = 0; k < EL__NGRAM_EDITS; k++) g[k] = malloc(cap * sizeof *g[k]);
  char line[8192], store[16384], *w[MAX_WORDS];
  double gain[EL__NGRAM_EDITS * MAX_WORDS];
  long lines = 0;
  while (fgets(line, sizeof line, f)) {
    if (seen++ % every) continue;
    int n = split(line, store, w);
    if (n < 4) continue; /* blank lines, list items: not sentences */
    lines++;
    if (el__ngram_gains(m, l, (const char *const *)w, n, gain, &err)) break;
    for (int i = 0; i < EL__NGRAM_EDITS * n; i++) {
      int k = i % EL__NGRAM_EDITS;
      if (gain[i] < -1e29) continue;
      if (count[k] == cap) {
        cap *= 2;
        for (int j = 0; j < EL__NGRAM_EDITS; j++)
          if (!(g[j] = realloc(g[j], cap * sizeof *g[j]))) return 1;
      }
      g[k][count[k]++] = gain[i];
    }
  }
  fclose(f);
  static const char *const names[EL__NGRAM_EDITS] = {"prep", "verb", "noun", "a/an", "add", "delete", "confused", "joined"};
  static const double shares[] = {0.05, 0.02, 0.01, 0.005};
  printf("%ld lines of %s\n", lines, argv[1]);
  for (int k = 0; k < EL__NGRAM_EDITS; k++) {
    qsort(g[k], count[k], sizeof *g[k], cmp_desc);
    printf("%-8s %7zu places:", names[k], count[k]);
    for (size_t s = 0; s < sizeof shares / sizeof *shares; s++)
      if (count[k]) printf("  %.3g %% at %.2f", 100 * shares[s], g[k][(size_t)(shares[s] * (double)count[k])]);
    printf("  (now %.2f)\n", EL__NGRAM_GAIN[k]);
    free(g[k]);
  }
  el__learner_free(l);
  el__ngram_free(m);
  return 0;
}
