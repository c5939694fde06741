/* Data parallelism without MPI (dist.h): one process; a launch by mpirun or
 * srun with more than one process is refused, since N copies of the same
 * run would only overwrite each other's output. */
#include <stdlib.h>
#include "dist.h"

int el__dist_init(el_error *err) {
  int n = el__dist_env_size();
  if (n > 1)
    return el_error_set(err, EL_EUNSUPPORTED,
                        "launched as one of %d processes (mpirun/srun), but this electra-train "
                        "was built without MPI: rebuild with `make MPI=1` (Debian: "
                        "libopenmpi-dev) for data-parallel training, or run one process",
                        n);
  return EL_OK;
}
void el__dist_finalize(void) {}
int el__dist_rank(void) { return 0; }
int el__dist_size(void) { return 1; }
int el__dist_built(void) { return 0; }
const char *el__dist_library(void) { return "not built"; }
int el__dist_sum_f32(float *buf, size_t n, el_error *err) {
  (void)buf, (void)n, (void)err;
  return EL_OK;
}
int el__dist_sum_f64(double *buf, int n, el_error *err) {
  (void)buf, (void)n, (void)err;
  return EL_OK;
}
int el__dist_bcast_f64(double *buf, int n, el_error *err) {
  (void)buf, (void)n, (void)err;
  return EL_OK;
}
int el__dist_barrier(el_error *err) {
  (void)err;
  return EL_OK;
}
void el__dist_abort(int code) { exit(code); }
void el__dist_stats(double *seconds, uint64_t *bytes) {
  *seconds = 0;
  *bytes = 0;
}
