/* The cost of the gradient sum alone (tests/bench/bench_mpi.sh):
 *   mpirun -np N bench_allreduce MB [REPS]
 * el__dist_sum_f32 of an MB-megabyte block REPS times (20), every call after
 * a barrier, so no rank waits for a slower one: the transfer itself. Rank 0
 * prints one JSON line: ranks, bytes, seconds per call, GB/s of the block.
 * Compared with the share of a training step spent in the same call it tells
 * transfer from waiting (what overlapping the sum with the backward pass
 * could save at most). Without MPI it says so and exits 0. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "dist.h"

static double mono(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: mpirun -np N %s MB [REPS]\n", argv[0]);
    return 2;
  }
  el_error err = {0};
  if (!el__dist_built()) {
    printf("{\"skip\": \"built without MPI\"}\n");
    return 0;
  }
  if (el__dist_init(&err)) {
    fprintf(stderr, "bench_allreduce: %s\n", err.msg);
    return 1;
  }
  size_t n = (size_t)(atof(argv[1]) * 1e6 / sizeof(float));
  int reps = argc > 2 ? atoi(argv[2]) : 20;
  float *buf = malloc(n * sizeof *buf);
  if (!buf || n == 0 || reps < 1) return 1;
  for (size_t i = 0; i < n; i++) buf[i] = (float)(i % 7) * 1e-3f;
  double total = 0;
  for (int r = 0; r <= reps; r++) {
    if (el__dist_barrier(&err)) return 1;
    double t0 = mono();
    if (el__dist_sum_f32(buf, n, &err)) {
      fprintf(stderr, "bench_allreduce: %s\n", err.msg);
      return 1;
    }
    if (r) total += mono() - t0; /* the first call sets up the connections */
  }
  if (el__dist_rank() == 0)
    printf("{\"ranks\": %d, \"bytes\": %zu, \"seconds_per_call\": %.6f, \"GB_per_s\": %.2f}\n",
           el__dist_size(), n * sizeof *buf, total / reps,
           (double)(n * sizeof *buf) / (total / reps) / 1e9);
  free(buf);
  el__dist_finalize();
  return 0;
}
