/* Internal: a whole JSON file parsed, with the byte offset of the first
 * error in the message (engine/shared/support_api.h gives it to the server). */
#ifndef EL_JSONFILE_H
#define EL_JSONFILE_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "electra/error.h"

/* Reads path (at most max_bytes) and parses it as one JSON value with
 * nothing but whitespace after it. On success *out is the caller's (free
 * with cJSON_Delete); otherwise EL_EIO or EL_EFORMAT with "PATH: invalid
 * JSON near byte N" (or "unexpected data after the JSON value at byte N"). */
int el__json_parse_file(const char *path, size_t max_bytes, cJSON **out, el_error *err);

#endif
