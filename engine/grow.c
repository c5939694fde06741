/* Growable arrays (grow.h). */
#include "grow.h"

#include <stdlib.h>

int el__grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t nc = *cap ? *cap : 64;
  while (nc < need) nc *= 2;
  void *q = realloc(*p, nc * elem);
  if (!q) return -1;
  *p = q, *cap = nc;
  return 0;
}
