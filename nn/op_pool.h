/* Internal to the training ops: a small fork-join pool that tolerates a busy
 * machine.
 *
 * Why not `omp parallel for`: every OpenMP region ends in a barrier that waits
 * for EVERY team thread, and libgomp spins while it waits. On a machine with
 * more runnable threads than cores (other jobs, or OpenBLAS's own pool), a
 * team thread is often descheduled, and the whole step waits a scheduler
 * quantum per region -- several hundred times per training step (measured:
 * 2 threads 3-4x slower than 1 thread at load average 7 on 2 cores).
 *
 * Here the calling thread runs tasks itself and helpers join in when they
 * get CPU time: tasks are claimed one at a time from a shared counter, and
 * the caller waits only for tasks a helper has already started, never for a
 * helper that has not shown up. Task t's result must not depend on which
 * thread runs it; then the results of a run do not depend on the thread
 * count or on scheduling.
 *
 * The width (threads used, caller included) is omp_get_max_threads(), which
 * el_set_threads() sets. Calls from inside a task, or while another thread
 * is using the pool, run inline on the calling thread. */
#ifndef EL_OP_POOL_H
#define EL_OP_POOL_H

#include <stddef.h>

/* fn(ctx, task, worker) for every task in [0, n_tasks); worker in
 * [0, el__pool_width()) names the executing thread (per-thread scratch). */
typedef void (*el__task_fn)(void *ctx, int task, int worker);

void el__pool_run(int n_tasks, el__task_fn fn, void *ctx);

/* Threads a run may use, the caller included (>= 1). */
int el__pool_width(void);

/* Threads a run started by this thread now may use: 1 inside a task (the run
 * would be inline), else el__pool_width(). Lets a caller cut its work into
 * one block when nobody can help (each block of an SGEMM re-packs a matrix). */
int el__pool_avail(void);

/* OpenBLAS's own pool held at 1 thread while this pool runs BLAS calls in its
 * tasks (two pools on the same cores spin against each other):
 *   el__blas_single_begin(); ... el__blas_single_end();
 * Sections nest and may overlap across threads: OpenBLAS stays at 1 until the
 * last one ends, then gets back the count it had (el_set_threads() gives it
 * the full count). */
void el__blas_single_begin(void);
void el__blas_single_end(void);

/* Tasks for n items in blocks of `block`: ceil(n / block). */
static inline int el__blocks(long n, long block) { return (int)((n + block - 1) / block); }

/* fn(ctx, lo, hi) over [0, n) cut into fixed blocks of `block` items (the
 * cut depends only on n and block); one call when n <= block. */
typedef void (*el__range_fn)(void *ctx, size_t lo, size_t hi);
void el__pool_for(size_t n, size_t block, el__range_fn fn, void *ctx);

#endif
