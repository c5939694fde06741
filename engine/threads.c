/* Process-wide thread count for BLAS and the engine's own parallel loops.
 *
 * The forward pass (like the trainer) runs on nn/'s op pool, whose width is
 * the OpenMP count set here: each task makes single-threaded SGEMMs and does
 * its own element-wise epilogue, while OpenBLAS's pool is held at one thread
 * (el__blas_single_begin) so that the two pools never spin against each other.
 * Outside those sections OpenBLAS gets the same count, for any other BLAS
 * call in the process. */
#include <cblas.h>
#undef I /* complex.h (pulled in by cblas.h) defines I */
#include <omp.h>
#include <stdatomic.h>
#include "electra/engine.h"

static atomic_int g_threads; /* 0 until el_set_threads is called */

void el_set_threads(int n) {
  if (n <= 0) n = el_cpu_quota();
  if (n < 1) n = 1;
  openblas_set_num_threads(n);
  omp_set_num_threads(n);
  atomic_store(&g_threads, n);
}

int el_get_threads(void) {
  int n = atomic_load(&g_threads);
  if (n > 0) return n;
  n = openblas_get_num_threads();
  return n > 0 ? n : 1;
}
