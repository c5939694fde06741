/* Internal: HF checkpoint directory IO shared by the engine loader and the
 * trainer's saver. */
#ifndef EL_CHECKPOINT_H
#define EL_CHECKPOINT_H

#include "electra/model.h"
#include "weights.h"

/* Parses dir/config.json (+ tokenizer_config.json) into cfg and checks it
 * with el_config_check. Absent fields take HF ElectraConfig defaults
 * (ELECTRA.md §8); do_lower_case defaults to 1 when tokenizer_config.json or
 * the field is absent. num_labels/id2label are set for
 * ElectraForSequenceClassification and ElectraForTokenClassification only
 * (0/NULL otherwise); regression for sequence classification only, where one
 * label means regression (HF rule; a token classifier ignores problem_type).
 * "score_threshold" (a number in [0, 1]) and "score_aggregation" ("max",
 * "first", "mean"; absent = max) are read for any architecture; anything
 * else in them is EL_EFORMAT naming the file and key.
 * Refused as EL_EUNSUPPORTED: an unknown architecture,
 * hidden_act other than "gelu", non-absolute positions, is_decoder, an untied
 * generator head, multi-label classification. On failure cfg holds nothing
 * to free. Strings in cfg are owned by cfg: release with el_config_free. */
int el_config_load(const char *dir, el_config *cfg, el_error *err);
void el_config_free(el_config *cfg);
/* Deep copy (id2label duplicated). */
int el_config_copy(el_config *dst, const el_config *src, el_error *err);

/* Writes an HF checkpoint directory atomically: everything goes into
 * "<dir>.tmp-<pid>", each file is fsync'd, then the directory is renamed over
 * dir (an existing dir is replaced as a whole, by RENAME_EXCHANGE where the
 * filesystem has it; files of the old dir that are not rewritten are gone).
 * w must hold all tensors of cfg->arch (finite: NaN/Inf is refused with
 * EL_EVALUE); w may point into a model loaded from dir itself. The tied
 * generator_lm_head.weight is not written (HF ties it on load). vocab_path is
 * copied to vocab.txt. Errors name the file; a full disk is EL_ENOSPC. On any
 * failure the temporary directory is removed and dir is left as it was. */
int el_checkpoint_save(const char *dir, const el_config *cfg, const el_weights *w,
                       const char *vocab_path, el_error *err);

/* Writes just model.safetensors (F32, HF names of cfg->arch, header padded
 * to a multiple of 8) to path, fsync'd. A failed write removes the partial
 * file (never anything but a regular file). */
int el_safetensors_save(const char *path, const el_config *cfg, const el_weights *w,
                        el_error *err);

/* Writes dir/config.json (HF ElectraConfig fields, "architectures",
 * "model_type", id2label/label2id for sequence and token classifiers,
 * problem_type for regression, electra_null_threshold for QA,
 * score_threshold when set, score_aggregation when not "max") and
 * dir/tokenizer_config.json, each fsync'd.
 * dir must exist. Used by el_checkpoint_save. */
int el_config_write(const char *dir, const el_config *cfg, el_error *err);

/* ---- internal file helpers (engine/config.c, engine/checkpoint.c) ---- */

/* Reads a whole regular file of at most max_bytes into *out (NUL-terminated,
 * caller frees). Errors name path. */
int el__read_file(const char *path, size_t max_bytes, char **out, size_t *len, el_error *err);
/* Creates/truncates path, writes len bytes, fsyncs and closes it. ENOSPC or
 * EDQUOT -> EL_ENOSPC naming path; other failures EL_EIO. A failed write
 * leaves the partial file for the caller to remove. */
int el__write_file(const char *path, const void *data, size_t len, el_error *err);

#endif
