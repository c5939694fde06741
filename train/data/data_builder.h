/* Pretraining examples from tokenized lines: GR build_pretraining_dataset.py
 * ExampleBuilder (docs/MODEL.md §4), with the project's xoshiro RNG in place of
 * Python's `random` (same rules and probabilities, different draws).
 *
 *  - Lines accumulate as sentences; a blank line (or the end of a file) ends
 *    a document. When the accumulated tokens reach the target length, or at
 *    a document end with something accumulated, one example is made from all
 *    accumulated sentences and whatever does not fit is discarded.
 *  - Making an example: with p 0.1 a single segment (first-segment target
 *    100000), else first-segment target (target_length - 3) // 2. A sentence
 *    goes to A if A is empty, or len(A) + len(s) < target, or (B is empty and
 *    len(A) < target and a 50% coin says so); else to B. Then
 *    A = A[:max_len - 2], B = B[:max(0, max_len - len(A) - 3)].
 *  - After each example, with p 0.05 the next target length is
 *    randint(5, max_len) (inclusive), else max_len.
 *  - Output: [CLS] A [SEP] with type 0, then B [SEP] with type 1 if B is not
 *    empty. No NSP, no random second segment. Examples without any token
 *    between the specials are not produced. */
#ifndef EL_TRAIN_DATA_BUILDER_H
#define EL_TRAIN_DATA_BUILDER_H

#include "electra/error.h"
#include "rng.h"

typedef struct el__exbuilder {
  int max_len, target, cls_id, sep_id;
  el__rng rng;
  int *cur;      /* tokens of the accumulated sentences, end to end */
  int cur_n;
  size_t cur_cap;
  int *sent_end; /* end offset in cur of each accumulated sentence */
  char *dest;    /* per sentence: 1 = segment A, 0 = B (while making an example) */
  int n_sent, sent_cap;
  /* the example just made (valid after a call returned 1) */
  int *ids;      /* [n]: [CLS] A [SEP] (B [SEP]) */
  int n;
  int b_start;   /* index of the first type-1 token; == n when there is no B */
} el__exbuilder;

/* max_len >= 5 (the smallest random target). The rng is seeded from seed.
 * Release with el__exb_free. */
int el__exb_init(el__exbuilder *b, int max_len, int cls_id, int sep_id, uint64_t seed,
                 el_error *err);
void el__exb_free(el__exbuilder *b);

/* Feeds one line: n token ids (n may be 0), blank = the line held only
 * whitespace (a document boundary). Returns 1 when an example was made (read
 * ids/n/b_start before the next call), 0 when not, <0 on out of memory. */
int el__exb_add_line(el__exbuilder *b, const int *ids, int n, int blank);
/* End of a file: like a blank line. */
static inline int el__exb_flush(el__exbuilder *b) { return el__exb_add_line(b, 0, 0, 1); }

#endif
