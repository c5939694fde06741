/* Numbers from the trainer's own JSON files (the settings saved in
 * RUN/state/state.bin, RUN/metrics.jsonl rows, SQuAD answer offsets), read
 * through one check: a damaged or hand-edited file is refused with a message
 * naming the file and the key, instead of 1e300, -5 or 2.5 becoming a count
 * (cJSON's valueint saturates, and converting a double outside an integer
 * type's range is undefined behaviour). */
#ifndef EL_TRAIN_JSON_NUM_H
#define EL_TRAIN_JSON_NUM_H

#include <cJSON.h>
#include <stdint.h>
#include "electra/error.h"

/* 2^53: the largest bound for an integer a double holds exactly, for counts
 * and steps with no smaller natural limit. */
#define EL__JN_MAX_EXACT 9007199254740992LL

enum {
  EL_JN_REQUIRED = 1, /* absent is an error (else: EL_OK, *out untouched) */
  EL_JN_INTEGER = 2   /* the value must be integral */
};

/* obj[key] (key NULL: obj itself) as a finite number in [lo, hi], integral
 * with EL_JN_INTEGER (then |lo|, |hi| <= 2^53, where doubles are exact).
 * EL_OK with *out set; absent and not EL_JN_REQUIRED: EL_OK, *out untouched;
 * else EL_EFORMAT, "WHERE: \"KEY\" must be an integer from LO to HI, got V"
 * (V: the number, or what the value is instead: a string, null, ...) or
 * "WHERE: \"KEY\" is missing". */
int el__json_num(const cJSON *obj, const char *key, int flags, double lo, double hi, double *out,
                 const char *where, el_error *err);

/* el__json_num with EL_JN_INTEGER, into an int64_t. */
int el__json_int(const cJSON *obj, const char *key, int flags, int64_t lo, int64_t hi,
                 int64_t *out, const char *where, el_error *err);

#endif
