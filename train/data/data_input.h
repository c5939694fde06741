/* Input text files of `vocab` and `pretrain`: validation with one clear
 * message per problem, and a fingerprint used to tell whether a token cache
 * still matches its inputs. */
#ifndef EL_TRAIN_DATA_INPUT_H
#define EL_TRAIN_DATA_INPUT_H

#include <stdint.h>
#include "electra/error.h"

/* Checks that every path is a readable regular file and that together they
 * hold at least one non-whitespace byte. EL_EIO names a missing/unreadable
 * path or a directory; EL_EINVAL says the input is empty. *total_bytes (may
 * be NULL) receives the summed sizes. */
int el__inputs_check(char *const *paths, int n, uint64_t *total_bytes, el_error *err);

/* FNV-1a over each path's name, size and modification time (ns), in order. */
uint64_t el__inputs_fingerprint(char *const *paths, int n);

#endif
