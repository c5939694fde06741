/* Dictionary verdicts on a /score text's words (srv_dict.h). */
#include "srv_dict.h"

#include <stdlib.h>

/* The dictionary's words with a verdict (start, end, verdict), grown until
 * all fit; *n their number. */
static int *rejected_spans(el__dict *d, const char *text, size_t len, int *n) {
  int cap = 16;
  int *spans = malloc(3 * (size_t)cap * sizeof *spans);
  while (spans) {
    *n = el__dict_read_text(d, EL__DICT_EN, text, len, spans, cap);
    if (*n <= cap) return spans;
    cap = *n;
    free(spans);
    spans = malloc(3 * (size_t)cap * sizeof *spans);
  }
  return NULL;
}

unsigned char *el__srv_dict_spans(el__dict *d, const char *text, size_t len, const size_t *start,
                                  const size_t *end, int n) {
  unsigned char *out = calloc((size_t)n + 1, 1);
  int m = 0, *spans = out ? rejected_spans(d, text, len, &m) : NULL;
  if (!spans) {
    free(out);
    return NULL;
  }
  /* words and spans both run left to right */
  for (int w = 0, j = 0; w < n && j < m; w++) {
    while (j < m && (size_t)spans[3 * j + 1] <= start[w]) j++;
    if (j < m && (size_t)spans[3 * j] <= start[w] && end[w] <= (size_t)spans[3 * j + 1])
      out[w] = (unsigned char)spans[3 * j + 2];
  }
  free(spans);
  return out;
}
