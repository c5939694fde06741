/* In-process data parallelism: a step's batch split over copies of the
 * model, one per thread.
 *
 * Why: a small model's step is made of many small operations (tiny's GED
 * fine-tuning step multiplies ~640 tokens by 128 x 128 weights): cut into
 * pool tasks they leave the second core mostly idle and pay a fork-join per
 * operation. Whole sequences shared out between copies keep every core busy
 * for the whole forward and backward, with no synchronisation inside them.
 *
 * Copy 0 is the run's own parameter set; copies 1..n-1 are gradient copies
 * of it (el__params_grad_copy: the same parameters, their own gradient
 * block). The caller keeps one trainable model (and its scratch) per copy,
 * made on that copy's views. el__replicas_step runs every copy's share on
 * the op pool (nn/op_pool.h), one task per copy, so the ops inside a copy run
 * on its thread alone; then the copies' gradients are added into copy 0's in
 * copy order. Which thread runs a copy never changes a result: the numbers
 * depend on the number of copies (the order of float sums), not on the
 * threads or the scheduling, and with one copy the step is the plain one.
 * When a helper thread gets no CPU the calling thread runs the copies in
 * turn. */
#ifndef EL_TRAIN_REPLICAS_H
#define EL_TRAIN_REPLICAS_H

#include "electra/error.h"
#include "params.h"

/* Most copies a run makes: beyond this the gradient sums and the copies'
 * memory outgrow what small per-copy batches save. */
#define EL_MAX_REPLICAS 8

typedef struct el__replicas {
  int n;              /* copies, >= 1 */
  el__params *p;      /* copy 0 (borrowed) */
  el__params *extra;  /* copies 1..n-1 (owned) */
} el__replicas;

/* Copies for a share of `seqs` sequences per step: the largest divisor of
 * seqs that is at most the pool's threads (el__pool_width, i.e. --threads)
 * and EL_MAX_REPLICAS; 1 on one thread. */
int el__replicas_count(long seqs);

/* n copies of p (borrowed, outlives rs); n = 1 allocates nothing. */
int el__replicas_new(el__replicas *rs, el__params *p, int n, el_error *err);
void el__replicas_free(el__replicas *rs);

/* Copy i's parameter set: p for 0. */
el__params *el__replicas_params(el__replicas *rs, int i);

/* fn(ctx, i, err) computes copy i's share into el__replicas_params(rs, i)'s
 * gradients (accumulating, as every backward does). */
typedef int (*el__replica_fn)(void *ctx, int i, el_error *err);

/* Zeroes every copy's gradients, runs fn for each copy (in parallel), and,
 * when all succeeded, adds copies 1..n-1's gradients into copy 0's. Returns
 * the first failure in copy order (its message in err), or EL_OK. */
int el__replicas_step(el__replicas *rs, el__replica_fn fn, void *ctx, el_error *err);

#endif
