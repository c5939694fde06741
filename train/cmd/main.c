/* electra-train: dispatches to the subcommands (usage: electra-train --help). */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "dist.h"
#include "electra/electra.h"

static void usage(FILE *f) {
  fprintf(f,
          "electra-train %s — ELECTRA pretraining, fine-tuning and evaluation on CPU\n"
          "\n"
          "usage: electra-train COMMAND [options]   (electra-train COMMAND --help for details)\n"
          "\n"
          "commands:\n"
          "  vocab      learn a WordPiece vocabulary from text files\n"
          "  pretrain   pretrain a generator + discriminator (replaced-token detection) or an MLM baseline\n"
          "  finetune   fine-tune a discriminator on a GLUE task, grammatical error detection or SQuAD\n"
          "  eval       evaluate a fine-tuned model and print metrics as JSON\n"
          "  corrupt    add synthetic learner errors to text (FCE token format, for inspection)\n"
          "  check      check text files for grammatical errors, with corrections (like a compiler)\n",
          EL_VERSION);
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "--version")) {
    /* tests/e2e/test_train_mpi.sh reads the data-parallel part */
    printf("electra-train %s (data-parallel: %s)\n", EL_VERSION,
           el__dist_built() ? el__dist_library() : "not built, make MPI=1");
    return 0;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "vocab")) return el__cmd_vocab(argc - 1, argv + 1);
  if (!strcmp(cmd, "pretrain")) return el__cmd_pretrain(argc - 1, argv + 1);
  if (!strcmp(cmd, "finetune")) return el__cmd_finetune(argc - 1, argv + 1);
  if (!strcmp(cmd, "eval")) return el__cmd_eval(argc - 1, argv + 1);
  if (!strcmp(cmd, "recipe")) return el__cmd_recipe(argc - 1, argv + 1);
  if (!strcmp(cmd, "corrupt")) return el__cmd_corrupt(argc - 1, argv + 1);
  if (!strcmp(cmd, "check")) return el__cmd_check(argc - 1, argv + 1);
  fprintf(stderr, "electra-train: unknown command '%s'\n\n", cmd);
  usage(stderr);
  return 2;
}
