/* The cost of a time-limited run's final save, measured before training:
 * one save into a scratch directory, timed, then removed. A time plan
 * (schedule.h) keeps that much time free at its end, so a run shorter than
 * its --save-every interval (whose final save is its first) still ends
 * within --time-limit; a disk too full for a checkpoint shows before the
 * work rather than after it. */
#ifndef EL_TRAIN_SAVE_TRIAL_H
#define EL_TRAIN_SAVE_TRIAL_H

#include "electra/error.h"

/* Writes a whole save (what the run writes at its end) under dir, which
 * exists and is empty. */
typedef int (*el__save_fn)(void *ctx, const char *dir, el_error *err);

/* Makes "<prefix>.tmp-<pid>" (a name the trainers' clean-up of an
 * interrupted save recognises), runs save(ctx, it), removes it, and puts the
 * seconds taken into *seconds. On failure nothing is left behind and the
 * error is save's (or the scratch directory's). */
int el__save_trial(const char *prefix, el__save_fn save, void *ctx, double *seconds,
                   el_error *err);

#endif
