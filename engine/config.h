/* Internal: config.json + tokenizer_config.json <-> el_config (config.c),
 * for the engine's loader (model.c), the checkpoint saver (checkpoint.h) and
 * the trainer. */
#ifndef EL_CONFIG_H
#define EL_CONFIG_H

#include "electra/model.h"

/* Parses dir/config.json (+ tokenizer_config.json) into cfg and checks it
 * with el__config_check. Absent fields take HF ElectraConfig defaults
 * (docs/MODEL.md §10); do_lower_case defaults to 1 when tokenizer_config.json or
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
 * to free. Strings in cfg are owned by cfg: release with el__config_free. */
int el__config_load(const char *dir, el_config *cfg, el_error *err);
void el__config_free(el_config *cfg);
/* Deep copy (id2label duplicated). */
int el__config_copy(el_config *dst, const el_config *src, el_error *err);

/* Writes dir/config.json (HF ElectraConfig fields, "architectures",
 * "model_type", id2label/label2id for sequence and token classifiers,
 * problem_type for regression, electra_null_threshold for QA,
 * score_threshold when set, score_aggregation when not "max") and
 * dir/tokenizer_config.json, each fsync'd.
 * dir must exist. Used by el__checkpoint_save. */
int el__config_write(const char *dir, const el_config *cfg, el_error *err);

#endif
