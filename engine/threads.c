/* Process-wide thread count for BLAS and the engine's own parallel loops.
 *
 * The forward pass lets OpenBLAS (pthreads build) parallelise its GEMMs from
 * the calling thread and keeps its own element-wise kernels on that thread:
 * an OpenMP team running next to OpenBLAS's spinning workers would fight them
 * for the same cores. The OpenMP count is still set so that any OpenMP loop
 * elsewhere in the process (trainer) follows the same limit. */
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
