/* The launcher's job size from its environment (dist.h), with or without
 * MPI built: Open MPI's mpirun, MPICH/PMI and PMIx launchers, Slurm's srun. */
#include <stdlib.h>
#include "dist.h"

int el__dist_env_size(void) {
  static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE",
                               "SLURM_STEP_NUM_TASKS"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    if (v && atoi(v) > 0) return atoi(v);
  }
  return 1;
}
