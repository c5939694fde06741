/* A GED file's correct sentences as plain text, for pretraining on the
 * learners' own domain (recipe ged --pretrain-learner-text): letters and
 * essays on everyday subjects, where the corpus is novels.
 *
 * The sentences of the GED file (task_data.h: token c|i per line) that have
 * no token marked "i" and at least 3 words are written one a line, their
 * tokens joined back as text ("do n't" -> "don't", "word ," -> "word,",
 * quotes closed up), a blank line after every 12 (the example builder's
 * documents), the whole repeated until at least target_bytes are written.
 * Sentences with an error are left out: pretraining would read a learner's
 * error as original text, the very thing the discriminator must flag. */
#ifndef EL_TRAIN_DATA_LEARNER_TEXT_H
#define EL_TRAIN_DATA_LEARNER_TEXT_H

#include <stddef.h>

#include "electra/error.h"

typedef struct el__learner_text_stats {
  long sentences, kept; /* in the GED file; without an error, written */
  int repeats;          /* passes over the kept sentences */
  size_t bytes;         /* written */
} el__learner_text_stats;

/* Writes path (replaced atomically) from the GED file ged_path. Errors: the
 * GED file's (el__ged_read), no correct sentence in it (EL_EINVAL), an
 * unwritable path (EL_EIO). stats may be NULL. */
int el__learner_text_write(const char *ged_path, const char *path, size_t target_bytes,
                           el__learner_text_stats *stats, el_error *err);

/* The tokens of one sentence joined as text into out (cap bytes, cut to
 * fit): the rule el__learner_text_write follows. Returns the length. */
size_t el__learner_text_join(char *const *words, int n, char *out, size_t cap);

#endif
