/* The ELECTRA example builder (rules in data_builder.h). */
#include <stdlib.h>
#include <string.h>
#include "data_builder.h"
#include "trainer_api.h"

int el__exb_init(el__exbuilder *b, int max_len, int cls_id, int sep_id, uint64_t seed,
                 el_error *err) {
  memset(b, 0, sizeof *b);
  if (max_len < 5)
    return el_error_set(err, EL_EINVAL, "sequence length must be at least 5, got %d", max_len);
  b->max_len = b->target = max_len;
  b->cls_id = cls_id;
  b->sep_id = sep_id;
  el__rng_seed(&b->rng, seed);
  b->ids = malloc((size_t)(max_len + 1) * sizeof *b->ids);
  if (!b->ids) return el_error_set(err, EL_ENOMEM, "out of memory");
  return EL_OK;
}

void el__exb_free(el__exbuilder *b) {
  free(b->cur);
  free(b->dest);
  free(b->sent_end);
  free(b->ids);
  memset(b, 0, sizeof *b);
}

/* GR _create_example over the accumulated sentences. Returns 1 if an
 * example with at least one content token was made. */
static int create_example(el__exbuilder *b) {
  int first_target = el__rng_uniform(&b->rng) < 0.1f ? 100000 : (b->target - 3) / 2;
  int a_len = 0, b_len = 0;
  for (int s = 0, prev = 0; s < b->n_sent; s++) {
    int len = b->sent_end[s] - prev;
    prev = b->sent_end[s];
    int to_a = a_len == 0 || a_len + len < first_target ||
               (b_len == 0 && a_len < first_target && el__rng_uniform(&b->rng) < 0.5f);
    b->dest[s] = (char)to_a;
    if (to_a) a_len += len;
    else b_len += len;
  }
  int a_room = b->max_len - 2;
  int a_kept = a_len < a_room ? a_len : a_room;
  int b_room = b->max_len - a_kept - 3;
  if (b_room < 0) b_room = 0;
  int n = 0;
  b->ids[n++] = b->cls_id;
  for (int pass = 0; pass < 2; pass++) {
    int room = pass == 0 ? a_kept : b_room, put = 0;
    if (pass == 1 && (b_len == 0 || room == 0)) break;
    for (int s = 0, prev = 0; s < b->n_sent && put < room; s++) {
      int len = b->sent_end[s] - prev, start = prev;
      prev = b->sent_end[s];
      if (b->dest[s] != (pass == 0)) continue;
      if (len > room - put) len = room - put;
      memcpy(b->ids + n, b->cur + start, (size_t)len * sizeof(int));
      n += len;
      put += len;
    }
    b->ids[n++] = b->sep_id;
    if (pass == 0) b->b_start = n;
  }
  b->n = n;
  b->cur_n = 0;
  b->n_sent = 0;
  if (el__rng_uniform(&b->rng) < 0.05f)
    b->target = 5 + (int)el__rng_below(&b->rng, (uint32_t)(b->max_len - 4));
  else
    b->target = b->max_len;
  return a_kept > 0 ? 1 : 0;
}

int el__exb_add_line(el__exbuilder *b, const int *ids, int n, int blank) {
  if (blank && b->cur_n > 0) return create_example(b);
  if (blank) return 0; /* GR appends an empty sentence here: it changes nothing */
  if (el__grow((void **)&b->cur, &b->cur_cap, (size_t)b->cur_n + (size_t)n, sizeof *b->cur))
    return -1;
  if (b->n_sent == b->sent_cap) {
    int cap = b->sent_cap ? b->sent_cap * 2 : 64;
    int *e = realloc(b->sent_end, (size_t)cap * sizeof *e);
    if (!e) return -1;
    b->sent_end = e;
    char *d = realloc(b->dest, (size_t)cap);
    if (!d) return -1;
    b->dest = d;
    b->sent_cap = cap;
  }
  memcpy(b->cur + b->cur_n, ids, (size_t)n * sizeof(int));
  b->cur_n += n;
  b->sent_end[b->n_sent++] = b->cur_n;
  if (b->cur_n >= b->target) return create_example(b);
  return 0;
}
