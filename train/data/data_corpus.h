/* Text files -> WordPiece ids (the engine's tokenizer) -> examples
 * (data_builder.h) -> token cache (data_cache.h).
 *
 * Files are read in the given order, line by line, in chunks; the lines of a
 * chunk are tokenized in parallel (OpenMP) and then fed to the example
 * builder in order, so the cache is the same whatever the thread count.
 * Lines with invalid UTF-8 lose the invalid bytes (Python errors="ignore",
 * as GR reads its input) and are counted. */
#ifndef EL_TRAIN_DATA_CORPUS_H
#define EL_TRAIN_DATA_CORPUS_H

#include <stdint.h>
#include "data_cache.h"
#include "electra/error.h"
#include "electra/tokenizer.h"

typedef struct el__corpus_stats {
  uint64_t bytes, lines, documents, examples, tokens, bad_utf8_lines;
  double seconds;
} el__corpus_stats;

/* Builds the cache at path (atomically) from the inputs. key->build_seed
 * seeds the example builder. stats may be NULL. Errors: unreadable input
 * (EL_EIO naming it), no example at all (EL_EINVAL: the input has no text
 * the vocabulary can tokenize), a full disk (EL_ENOSPC). */
int el__corpus_build(const char *path, char *const *inputs, int n_inputs,
                     const el_tokenizer *tok, const el__cache_key *key, el__corpus_stats *stats,
                     el_error *err);

#endif
