/* Internal: the one growable-array helper of the engine and the trainer
 * (through engine/internal/trainer_api.h). */
#ifndef EL_GROW_H
#define EL_GROW_H

#include <stddef.h>

/* Makes room for `need` elements of `elem` bytes in *p (capacity *cap, in
 * elements): doubles from at least 64 until it fits, by realloc. 0, or -1
 * when out of memory (*p and *cap unchanged, still valid). */
int el__grow(void **p, size_t *cap, size_t need, size_t elem);

#endif
