/* Internal: HF checkpoint directory IO shared by the engine loader and the
 * trainer's saver. */
#ifndef EL_CHECKPOINT_H
#define EL_CHECKPOINT_H

#include "electra/model.h"
#include "weights.h"

/* Parses dir/config.json (+ tokenizer_config.json) into cfg and checks it.
 * Strings in cfg are owned by cfg: release with el_config_free. */
int el_config_load(const char *dir, el_config *cfg, el_error *err);
void el_config_free(el_config *cfg);
/* Deep copy (id2label duplicated). */
int el_config_copy(el_config *dst, const el_config *src, el_error *err);

/* Writes an HF checkpoint directory atomically: everything goes into
 * "<dir>.tmp-<pid>", each file is fsync'd, then the directory is renamed over
 * dir (an existing dir is replaced). w must hold all tensors of cfg->arch.
 * vocab_path is copied to vocab.txt. Errors name the file; a full disk is
 * EL_ENOSPC. Nothing half-written is ever left at dir. */
int el_checkpoint_save(const char *dir, const el_config *cfg, const el_weights *w,
                       const char *vocab_path, el_error *err);

/* Writes just model.safetensors (F32, HF names of cfg->arch) to path, fsync'd. */
int el_safetensors_save(const char *path, const el_config *cfg, const el_weights *w,
                        el_error *err);

#endif
