/* --precision: what the training ops' matrix products run in (nn/matmul.h).
 *
 *   fp32  OpenBLAS SGEMM, as the PyTorch reference tests check it.
 *   bf16  operands rounded to bfloat16, sums in fp32: about twice the
 *         products' speed on a CPU with AVX512_BF16 (AMD Zen 4 and later,
 *         Intel Cooper Lake and Sapphire Rapids); refused elsewhere.
 *   auto  bf16 where the CPU has it, else fp32 (the default).
 *
 * Weights, gradients, the optimizer and the saved checkpoints are fp32 in
 * all three; so are the fine-tuner's dev evaluations, which choose the
 * epoch and the threshold the fp32 server uses. */
#ifndef EL_TRAIN_PRECISION_H
#define EL_TRAIN_PRECISION_H

#include "electra/error.h"

#define EL_PRECISION_CHOICES "auto|fp32|bf16"
/* --help of pretrain and finetune (recipe points at pretrain's) */
#define EL_PRECISION_HELP                                                                   \
  "what the training's matrix products run in: bf16 (operands rounded to bfloat16, sums, " \
  "weights and checkpoints fp32; about 1.5x the steps a second) or fp32; auto = bf16 "     \
  "where the CPU has AVX512_BF16 (auto)"

/* Records choice (NULL = auto) for the training loops of this process;
 * EL_EINVAL naming the reason when bf16 is asked for and this CPU cannot
 * run it. The products stay fp32 outside the loops (the engine's fp32
 * forward pass shares nn's relative-position product). */
int el__precision_apply(const char *choice, el_error *err);

/* "bf16" or "fp32": what the training loops' products run in. */
const char *el__precision_now(void);

/* The recorded precision from now on (a training loop's start), or fp32
 * (the fine-tuner's dev evaluations); each returns what to hand
 * el__precision_restore after. Not while another thread trains. */
int el__precision_train_begin(void);
int el__precision_fp32_begin(void);
void el__precision_restore(int saved);

#endif
