/* A timed save into a scratch directory (save_trial.h). */
#include "save_trial.h"

#include <stdio.h>
#include <unistd.h>

#include "trainer_api.h"
#include "progress.h"

int el__save_trial(const char *prefix, el__save_fn save, void *ctx, double *seconds,
                   el_error *err) {
  char dir[4400];
  if (snprintf(dir, sizeof dir, "%s.tmp-%ld", prefix, (long)getpid()) >= (int)sizeof dir)
    return el_error_set(err, EL_EINVAL, "path too long: %.80s...", prefix);
  double t0 = el__mono_s();
  el__remove_tree(dir); /* a pid reused after a crash */
  int rc = el__mkdirs(dir, err);
  if (!rc) rc = save(ctx, dir, err);
  el__remove_tree(dir);
  *seconds = el__mono_s() - t0;
  return rc;
}
