/* Fork-join pool of the training ops (op_pool.h).
 *
 * One 64-bit word holds the current run: generation (24 bits), task count
 * (20 bits) and next unclaimed task (20 bits). Threads claim a task with a
 * compare-and-swap on that word, so a claim can only succeed for the run it
 * was read from; the run's function and context live in one of two slots
 * (generation parity) and are read after the claim, when the run cannot have
 * finished. Helpers spin briefly, then sleep on a futex. */
#include "op_pool.h"

#include <cblas.h>
#undef I /* complex.h (pulled in by cblas.h) defines I */
#include <limits.h>
#include <linux/futex.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_HELPERS 63
#define TASK_BITS 20
#define TASK_MASK ((1ULL << TASK_BITS) - 1)
#define SPIN 20000

typedef struct slot {
  _Atomic(el__task_fn) fn;
  _Atomic(void *) ctx;
} slot;

static _Atomic uint64_t g_state;  /* gen << 40 | n << 20 | next */
static _Atomic uint32_t g_wake;   /* futex word, bumped at each run */
static _Atomic int g_done;        /* tasks finished in the current run */
static _Atomic int g_width = 1;   /* threads allowed in the current run */
static slot g_slot[2];
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* one run at a time */
static int g_helpers;             /* created so far (under g_lock) */
static _Thread_local int tl_busy; /* inside a task or a run */

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

int el__pool_width(void) {
  int n = omp_get_max_threads();
  if (n < 1) n = 1;
  return n > MAX_HELPERS + 1 ? MAX_HELPERS + 1 : n;
}

int el__pool_avail(void) { return tl_busy ? 1 : el__pool_width(); }

/* Nested and concurrent sections (several threads running the engine) share
 * one hold: the first in saves the count, the last out restores it, so no
 * BLAS call inside any section ever runs with OpenBLAS's threads -- a product
 * is then computed the same way whichever thread makes it. */
static pthread_mutex_t g_blas_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_blas_holds, g_blas_saved;

void el__blas_single_begin(void) {
  pthread_mutex_lock(&g_blas_lock);
  if (g_blas_holds++ == 0) {
    g_blas_saved = openblas_get_num_threads();
    if (g_blas_saved != 1) openblas_set_num_threads(1);
  }
  pthread_mutex_unlock(&g_blas_lock);
}

void el__blas_single_end(void) {
  pthread_mutex_lock(&g_blas_lock);
  if (--g_blas_holds == 0 && g_blas_saved != 1) openblas_set_num_threads(g_blas_saved);
  pthread_mutex_unlock(&g_blas_lock);
}

/* Claims and runs tasks of generation gen until none is left. */
static void work(uint64_t gen, int worker) {
  for (;;) {
    uint64_t s = atomic_load_explicit(&g_state, memory_order_acquire);
    if ((s >> 40) != gen) return;
    const uint64_t n = (s >> TASK_BITS) & TASK_MASK, next = s & TASK_MASK;
    if (next >= n) return;
    if (!atomic_compare_exchange_weak_explicit(&g_state, &s, s + 1, memory_order_acq_rel,
                                               memory_order_relaxed))
      continue;
    /* the run cannot end before this task is counted: its slot is current */
    slot *sl = &g_slot[gen & 1];
    el__task_fn fn = atomic_load_explicit(&sl->fn, memory_order_relaxed);
    void *ctx = atomic_load_explicit(&sl->ctx, memory_order_relaxed);
    fn(ctx, (int)next, worker);
    atomic_fetch_add_explicit(&g_done, 1, memory_order_release);
  }
}

static void *helper_main(void *arg) {
  const int id = (int)(intptr_t)arg;
  tl_busy = 1;
  uint64_t seen = atomic_load(&g_state) >> 40;
  for (;;) {
    uint32_t w = atomic_load_explicit(&g_wake, memory_order_acquire);
    uint64_t gen = atomic_load_explicit(&g_state, memory_order_acquire) >> 40;
    if (gen != seen) {
      seen = gen;
      if (id < atomic_load_explicit(&g_width, memory_order_relaxed)) work(gen, id);
      continue;
    }
    int spins = 0;
    while (spins < SPIN && atomic_load_explicit(&g_wake, memory_order_acquire) == w) {
      cpu_relax();
      spins++;
    }
    if (spins == SPIN) syscall(SYS_futex, &g_wake, FUTEX_WAIT_PRIVATE, w, NULL, NULL, 0);
  }
  return NULL;
}

static void ensure_helpers(int n) {
  while (g_helpers < n) {
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &a, helper_main, (void *)(intptr_t)(g_helpers + 1));
    pthread_attr_destroy(&a);
    if (rc) break; /* fewer helpers: the caller does more of the work */
    g_helpers++;
  }
}

void el__pool_run(int n_tasks, el__task_fn fn, void *ctx) {
  if (n_tasks <= 0) return;
  const int width = el__pool_width();
  if (n_tasks == 1 || width == 1 || tl_busy || (uint64_t)n_tasks > TASK_MASK ||
      pthread_mutex_trylock(&g_lock) != 0) {
    const int was = tl_busy;
    tl_busy = 1;
    for (int t = 0; t < n_tasks; t++) fn(ctx, t, 0);
    tl_busy = was;
    return;
  }
  tl_busy = 1;
  ensure_helpers(width - 1);
  const uint64_t gen = (atomic_load_explicit(&g_state, memory_order_relaxed) >> 40) + 1;
  slot *sl = &g_slot[gen & 1];
  atomic_store_explicit(&sl->fn, fn, memory_order_relaxed);
  atomic_store_explicit(&sl->ctx, ctx, memory_order_relaxed);
  atomic_store_explicit(&g_done, 0, memory_order_relaxed);
  atomic_store_explicit(&g_width, width, memory_order_relaxed);
  atomic_store_explicit(&g_state, (gen & 0xffffff) << 40 | (uint64_t)n_tasks << TASK_BITS,
                        memory_order_release);
  atomic_fetch_add_explicit(&g_wake, 1, memory_order_release);
  syscall(SYS_futex, &g_wake, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
  work(gen & 0xffffff, 0);
  /* only tasks a helper has already claimed can be outstanding */
  int spins = 0;
  while (atomic_load_explicit(&g_done, memory_order_acquire) < n_tasks) {
    if (++spins < SPIN) cpu_relax();
    else sched_yield();
  }
  tl_busy = 0;
  pthread_mutex_unlock(&g_lock);
}

typedef struct range_job {
  size_t n, block;
  el__range_fn fn;
  void *ctx;
} range_job;

static void range_task(void *p, int t, int worker) {
  (void)worker;
  const range_job *j = p;
  const size_t lo = (size_t)t * j->block, hi = lo + j->block < j->n ? lo + j->block : j->n;
  j->fn(j->ctx, lo, hi);
}

void el__pool_for(size_t n, size_t block, el__range_fn fn, void *ctx) {
  if (n == 0) return;
  if (block == 0 || n <= block) {
    fn(ctx, 0, n);
    return;
  }
  range_job j = {n, block, fn, ctx};
  el__pool_run(el__blocks((long)n, (long)block), range_task, &j);
}
