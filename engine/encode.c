/* el_encode: [CLS] a [SEP] (b [SEP]) with token types and Hugging Face's
 * "longest_first" truncation. */
#include <stdlib.h>
#include "electra/tokenizer.h"

static int reserve(el_encoding *e, int n) {
  if (n <= e->cap) return 0;
  int nc = e->cap ? e->cap : 64;
  while (nc < n) nc *= 2;
  /* Each array is swapped in as soon as it has grown, so a failure leaves
   * every pointer valid (and cap unchanged, which is still true of all). */
  int **arrs[6] = {&e->ids, &e->type_ids, &e->start, &e->end, &e->word, &e->segment};
  for (int i = 0; i < 6; i++) {
    int *p = realloc(*arrs[i], (size_t)nc * sizeof *p);
    if (!p) return -1;
    *arrs[i] = p;
  }
  e->cap = nc;
  return 0;
}

static void put(el_encoding *e, int id, int type, int s, int en, int word, int seg) {
  int i = e->n++;
  e->ids[i] = id, e->type_ids[i] = type, e->start[i] = s, e->end[i] = en;
  e->word[i] = word, e->segment[i] = seg;
}

int el_encode(const el_tokenizer *tok, const el_tokens *a, const el_tokens *b, int max_len,
              int truncate, el_encoding *out, el_error *err) {
  if (!tok || !a || !out) return el_error_set(err, EL_EINVAL, "el_encode: NULL argument");
  out->n = 0;
  out->truncated = 0;
  const int specials = b ? 3 : 2;
  if (max_len < specials)
    return el_error_set(err, EL_EINVAL,
                        "max_len %d cannot hold the %d special tokens of a %s", max_len,
                        specials, b ? "pair" : "single text");
  int la = a->n, lb = b ? b->n : 0;
  long total = (long)la + lb + specials;
  if (total > max_len) {
    if (!truncate) {
      if (b)
        return el_error_set(err, EL_ETOOLONG,
                            "input is %ld tokens (text %d + pair %d + 3 special), max_len is %d",
                            total, la, lb, max_len);
      return el_error_set(err, EL_ETOOLONG, "input is %ld tokens (text %d + 2 special), max_len is %d",
                          total, la, max_len);
    }
    int remove = (int)(total - max_len);
    out->truncated = remove;
    if (!b) {
      la -= remove; /* remove <= la because max_len >= 2 */
    } else {
      /* HF longest_first: first even the lengths out by cutting the longer
       * one, then cut both alternately, the pair taking the odd piece; this
       * equals removing one piece at a time from the currently longer
       * segment, the pair on ties. */
      int diff = la > lb ? la - lb : lb - la;
      int first = diff < remove ? diff : remove;
      int second = remove - first;
      int cut_a, cut_b;
      if (la > lb) {
        cut_a = first + second / 2;
        cut_b = second - second / 2;
      } else {
        cut_a = second / 2;
        cut_b = first + second - second / 2;
      }
      la -= cut_a;
      lb -= cut_b;
    }
  }
  if (reserve(out, la + lb + specials))
    return el_error_set(err, EL_ENOMEM, "out of memory encoding %d tokens", la + lb + specials);
  const int cls = el_tokenizer_special_id(tok, EL_TOK_CLS);
  const int sep = el_tokenizer_special_id(tok, EL_TOK_SEP);
  put(out, cls, 0, -1, -1, -1, -1);
  for (int i = 0; i < la; i++) {
    const el_token *t = &a->tok[i];
    put(out, t->id, 0, t->start, t->end, t->word, 0);
  }
  put(out, sep, 0, -1, -1, -1, -1);
  if (b) {
    for (int i = 0; i < lb; i++) {
      const el_token *t = &b->tok[i];
      put(out, t->id, 1, t->start, t->end, t->word, 1);
    }
    put(out, sep, 1, -1, -1, -1, -1);
  }
  return EL_OK;
}

void el_encoding_free(el_encoding *e) {
  if (!e) return;
  free(e->ids);
  free(e->type_ids);
  free(e->start);
  free(e->end);
  free(e->word);
  free(e->segment);
  e->ids = e->type_ids = e->start = e->end = e->word = e->segment = NULL;
  e->n = e->cap = e->truncated = 0;
}
