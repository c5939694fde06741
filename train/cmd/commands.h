/* The electra-train subcommands; each parses its own argv (argv[0] is the
 * subcommand name) and returns the process exit status. */
#ifndef EL_TRAIN_COMMANDS_H
#define EL_TRAIN_COMMANDS_H
int el__cmd_vocab(int argc, char **argv);    /* train/cmd/cmd_vocab.c */
int el__cmd_pretrain(int argc, char **argv); /* train/cmd/cmd_pretrain.c */
int el__cmd_finetune(int argc, char **argv); /* train/cmd/cmd_finetune.c */
int el__cmd_eval(int argc, char **argv);     /* train/cmd/cmd_eval.c */
int el__cmd_recipe(int argc, char **argv);   /* train/cmd/cmd_recipe.c */
int el__cmd_corrupt(int argc, char **argv);  /* train/cmd/cmd_corrupt.c */
int el__cmd_check(int argc, char **argv);    /* train/cmd/cmd_check.c */
#endif
