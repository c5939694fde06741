/* Internal: writing an HF checkpoint directory (the trainer's saver; the
 * engine's loader is model.c). config.json reading and writing is config.h,
 * included here because every saver needs it too. */
#ifndef EL_CHECKPOINT_H
#define EL_CHECKPOINT_H

#include "config.h"
#include "electra/model.h"
#include "weights.h"

/* Writes an HF checkpoint directory atomically: everything goes into
 * "<dir>.tmp-<pid>", each file is fsync'd, then the directory is renamed over
 * dir (an existing dir is replaced as a whole, by RENAME_EXCHANGE where the
 * filesystem has it; files of the old dir that are not rewritten are gone).
 * w must hold all tensors of cfg->arch (finite: NaN/Inf is refused with
 * EL_EVALUE); w may point into a model loaded from dir itself. The tied
 * generator_lm_head.weight is not written (HF ties it on load). vocab_path is
 * copied to vocab.txt. Errors name the file; a full disk is EL_ENOSPC. On any
 * failure the temporary directory is removed and dir is left as it was. */
int el__checkpoint_save(const char *dir, const el_config *cfg, const el__weights *w,
                       const char *vocab_path, el_error *err);

/* Writes just model.safetensors (F32, HF names of cfg->arch, header padded
 * to a multiple of 8) to path, fsync'd. A failed write removes the partial
 * file (never anything but a regular file). */
int el__safetensors_save(const char *path, const el_config *cfg, const el__weights *w,
                        el_error *err);

#endif
