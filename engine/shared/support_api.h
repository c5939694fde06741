/* What every program may use of the engine's internal helpers (not
 * installed): the one growable-array helper, el__grow (grow.h), the one
 * JSON file reader, el__json_parse_file (jsonfile.h), and strict UTF-8
 * decoding (tok_utf8.h: the checker validates the text a form-encoded
 * request decodes to by it). server/, lang/ and check/ are compiled with
 * `-iquote engine/shared`, a folder holding this header alone; the trainer
 * has them through engine/internal/trainer_api.h. */
#ifndef EL_SUPPORT_API_H
#define EL_SUPPORT_API_H

#include "../grow.h"
#include "../jsonfile.h"
#include "../tok_utf8.h"

#endif
