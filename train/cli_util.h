/* Command-line helpers of the electra-train subcommands: the option table,
 * el__cli_parse, number and duration parsing and the --help listing. They are
 * the one option engine both programs share, in common/el_cli.h (see there
 * for the API); this header keeps the train commands' include working. */
#ifndef EL_TRAIN_CLI_UTIL_H
#define EL_TRAIN_CLI_UTIL_H

#include "el_cli.h"

#endif
