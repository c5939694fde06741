/* Data parallelism across processes (issue 18): the ranks of one training
 * run and the few collectives it needs, over Open MPI when electra-train is
 * built with it (make MPI=1, or detected through pkg-config ompi-c:
 * dist_mpi.c), otherwise a single process (dist_none.c).
 *
 * Each rank computes the gradient of its share of the global batch with the
 * loss divided by the GLOBAL batch's counts, so summing the ranks' gradients
 * (el__dist_sum_f32) gives the gradient of the global batch, and every rank
 * then takes the same AdamW step. Random draws are keyed by the global
 * sequence index (masking.h, tmodel.h), so the result does not depend on how
 * many ranks computed it beyond the order of float additions.
 *
 * MPI is started only when a launcher started us (mpirun / srun: its
 * environment names the job's size), so a plain `electra-train` never pays
 * for MPI_Init. A failure on one rank ends all of them (el__dist_abort, and
 * MPI's default error handler when a peer dies): no rank waits forever. */
#ifndef EL_TRAIN_DIST_H
#define EL_TRAIN_DIST_H

#include <stddef.h>
#include <stdint.h>
#include "electra/error.h"

/* Joins the job when launched by mpirun/srun (the size in its environment >
 * 1); a plain run is rank 0 of 1. Without MPI built, a launch with size > 1
 * is refused (EL_EUNSUPPORTED, saying so) instead of running N copies.
 * Idempotent. */
int el__dist_init(el_error *err);
/* MPI_Finalize (once, if joined). */
void el__dist_finalize(void);
int el__dist_rank(void);
int el__dist_size(void);
/* 1 when built with MPI. The launcher's size from the environment (1 if none). */
int el__dist_built(void);
int el__dist_env_size(void);
/* "Open MPI v4.1.4" or "not built" (static text). */
const char *el__dist_library(void);

/* Sum over the ranks, in place on every rank (no-ops for one rank). */
int el__dist_sum_f32(float *buf, size_t n, el_error *err);
int el__dist_sum_f64(double *buf, int n, el_error *err);
/* Rank 0's values to every rank. */
int el__dist_bcast_f64(double *buf, int n, el_error *err);
int el__dist_barrier(el_error *err);
/* Ends every rank after this one printed why (MPI_Abort; exit for one rank). */
void el__dist_abort(int code);

/* Totals since start: seconds inside the gradient sums and bytes each rank
 * contributed to them (the benchmark's communication share). */
void el__dist_stats(double *seconds, uint64_t *bytes);

#endif
