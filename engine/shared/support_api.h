/* What every program may use of the engine's internal helpers (not
 * installed): the one growable-array helper, el__grow (grow.h), and the one
 * JSON file reader, el__json_parse_file (jsonfile.h). server/ and
 * lang/ are compiled with `-iquote engine/shared`, a folder holding this
 * header alone; the trainer has it through engine/internal/trainer_api.h. */
#ifndef EL_SUPPORT_API_H
#define EL_SUPPORT_API_H

#include "../grow.h"
#include "../jsonfile.h"

#endif
