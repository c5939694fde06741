/* Data parallelism over Open MPI (dist.h). Built only with MPI (Makefile:
 * MPI=1 or pkg-config ompi-c). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <mpi.h>
#include "dist.h"
#include "progress.h"

static int g_joined, g_rank, g_size = 1;
static double g_sum_s;
static uint64_t g_sum_bytes;

static int mpi_fail(int rc, const char *what, el_error *err) {
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  return el_error_set(err, EL_EIO, "MPI %s failed: %s", what, msg);
}

int el__dist_init(el_error *err) {
  if (g_joined || el__dist_env_size() <= 1) return EL_OK;
  int inited = 0;
  MPI_Initialized(&inited);
  /* FUNNELED: only the main thread calls MPI; the op pool's threads never do */
  int provided, rc = inited ? MPI_SUCCESS : MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
  if (rc != MPI_SUCCESS) return mpi_fail(rc, "initialisation", err);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  g_joined = 1;
  return EL_OK;
}

void el__dist_finalize(void) {
  if (!g_joined) return;
  MPI_Finalize();
  g_joined = 0;
}

int el__dist_rank(void) { return g_rank; }
int el__dist_size(void) { return g_size; }
int el__dist_built(void) { return 1; }

const char *el__dist_library(void) {
  static char v[64];
  if (!v[0]) {
    int major = 0, minor = 0;
    MPI_Get_version(&major, &minor);
#ifdef OMPI_MAJOR_VERSION
    snprintf(v, sizeof v, "Open MPI %d.%d.%d (MPI %d.%d)", OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
             OMPI_RELEASE_VERSION, major, minor);
#else
    snprintf(v, sizeof v, "MPI %d.%d", major, minor);
#endif
  }
  return v;
}

int el__dist_sum_f32(float *buf, size_t n, el_error *err) {
  if (g_size <= 1) return EL_OK;
  double t0 = el__mono_s();
  for (size_t off = 0; off < n;) { /* MPI counts are ints */
    int k = n - off > (size_t)INT_MAX ? INT_MAX : (int)(n - off);
    int rc = MPI_Allreduce(MPI_IN_PLACE, buf + off, k, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) return mpi_fail(rc, "gradient sum", err);
    off += (size_t)k;
  }
  g_sum_s += el__mono_s() - t0;
  g_sum_bytes += n * sizeof *buf;
  return EL_OK;
}

int el__dist_sum_f64(double *buf, int n, el_error *err) {
  if (g_size <= 1) return EL_OK;
  int rc = MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return rc == MPI_SUCCESS ? EL_OK : mpi_fail(rc, "sum", err);
}

int el__dist_bcast_f64(double *buf, int n, el_error *err) {
  if (g_size <= 1) return EL_OK;
  int rc = MPI_Bcast(buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return rc == MPI_SUCCESS ? EL_OK : mpi_fail(rc, "broadcast", err);
}

int el__dist_barrier(el_error *err) {
  if (g_size <= 1) return EL_OK;
  int rc = MPI_Barrier(MPI_COMM_WORLD);
  return rc == MPI_SUCCESS ? EL_OK : mpi_fail(rc, "barrier", err);
}

void el__dist_abort(int code) {
  if (g_joined && g_size > 1) MPI_Abort(MPI_COMM_WORLD, code);
  exit(code);
}

void el__dist_stats(double *seconds, uint64_t *bytes) {
  *seconds = g_sum_s;
  *bytes = g_sum_bytes;
}
