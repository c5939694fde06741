/* What --model DIR may name, and what the start-up log says about each model.
 *
 * A DIR is a checkpoint directory (config.json, model.safetensors, vocab.txt),
 * or a pretraining run directory (RUN/discriminator/ is served, as
 * `electra-train finetune --init RUN` takes it). Before a load, a directory
 * that cannot be one is refused with what to do: missing, not a directory,
 * no config.json, or only PyTorch's pytorch_model.bin (convert it with
 * scripts/convert_pytorch_bin.py). */
#ifndef EL_SERVER_MODELDIR_H
#define EL_SERVER_MODELDIR_H

#include <stddef.h>

#include "srv_options.h"

struct el__model_set;

/* The directory to load for dir: dir/discriminator when dir is a pretraining
 * run (no dir/config.json, a dir/discriminator/config.json), else dir.
 * Written to out (cap bytes); returns 1 for a run, 0 otherwise, -1 when the
 * path does not fit. */
int el__model_dir_resolve(const char *dir, char *out, size_t cap);

/* 0 when dir looks like a checkpoint directory; else -1 with a reason and
 * what to do in err ("...: only pytorch_model.bin: convert it with ..."). The
 * engine's loader still checks every file in full. */
int el__model_dir_check(const char *dir, char *err, size_t cap);

/* el__model_set_load (srv_models.h) after el__model_dir_check of every
 * model's directory: err names the model and says what to do. */
int el__model_set_load_checked(const el__model_spec *specs, int n, int ws_tokens, int ws_seqs,
                               struct el__model_set **out, char *err, size_t cap);

/* One log line per model: name, route and architecture, directory, labels,
 * parameters and weight bytes, max_seq_len, and whether it is its task's
 * default. */
void el__model_set_log(const struct el__model_set *set);

#endif
