/* Words of a text by the engine's BasicTokenizer (data_pretok.h): the words
 * el__basic_text reports, copied out as UTF-8 strings. */
#include <stdlib.h>
#include <string.h>
#include "data_pretok.h"
#include "trainer_api.h"

static int reserve_bytes(el__words *w, size_t extra) {
  if (w->used + extra <= w->cap) return 0;
  size_t cap = w->cap ? w->cap : 256;
  while (cap < w->used + extra) cap *= 2;
  char *b = realloc(w->buf, cap);
  if (!b) return -1;
  w->buf = b;
  w->cap = cap;
  return 0;
}

static int reserve_words(el__words *w) {
  if (w->n < w->wcap) return 0;
  int cap = w->wcap ? 2 * w->wcap : 64;
  int **arrays[4] = {&w->off, &w->len, &w->ncp, &w->special};
  for (int k = 0; k < 4; k++) {
    int *a = realloc(*arrays[k], (size_t)cap * sizeof *a);
    if (!a) return -1;
    *arrays[k] = a;
  }
  w->wcap = cap;
  return 0;
}

static int add_word(void *ctx, const el__basic *bt, const el__tword *tw, int base) {
  (void)base;
  el__words *w = ctx;
  size_t nch = tw->e - tw->b;
  const char *spelling = tw->special >= 0 ? el__special_text(tw->special) : NULL;
  size_t most = spelling ? strlen(spelling) : 4 * nch;
  if (reserve_words(w) || reserve_bytes(w, most + 1)) return -1;
  int i = w->n++;
  w->off[i] = (int)w->used;
  w->special[i] = tw->special;
  if (spelling) {
    memcpy(w->buf + w->used, spelling, most);
    w->used += most;
    w->ncp[i] = (int)most;
  } else {
    for (size_t c = tw->b; c < tw->e; c++) w->used += (size_t)el__utf8_put(bt->c[c].cp, w->buf + w->used);
    w->ncp[i] = (int)nch;
  }
  w->len[i] = (int)(w->used - (size_t)w->off[i]);
  w->buf[w->used++] = 0;
  return 0;
}

int el__pretokenize(const char *text, size_t len, int lower, el__words *out, el_error *err) {
  out->n = 0;
  out->used = 0;
  int rc = el__basic_text(text, len, lower, add_word, out, NULL, err);
  if (rc) out->n = 0;
  return rc;
}

void el__words_free(el__words *w) {
  free(w->buf);
  free(w->off);
  free(w->len);
  free(w->ncp);
  free(w->special);
  memset(w, 0, sizeof *w);
}
