/* A small ELECTRA configuration for the trainer's unit tests: the shape
 * given, 32 positions, 2 token types, dropout 0.1 (attention and hidden),
 * lower-casing vocabulary, no labels. Tests change single fields after. */
#ifndef EL_TESTS_TEST_CONFIG_H
#define EL_TESTS_TEST_CONFIG_H

#include <string.h>

#include "electra/model.h"

static inline el_config el_test_config(el_arch arch, int vocab, int embedding, int hidden,
                                       int layers, int heads, int intermediate) {
  el_config c;
  memset(&c, 0, sizeof c);
  c.arch = arch;
  c.vocab_size = vocab;
  c.embedding_size = embedding;
  c.hidden_size = hidden;
  c.num_layers = layers;
  c.num_heads = heads;
  c.intermediate_size = intermediate;
  c.max_position_embeddings = 32;
  c.type_vocab_size = 2;
  c.layer_norm_eps = 1e-12f;
  c.initializer_range = 0.02f;
  c.hidden_dropout_prob = 0.1f;
  c.attention_probs_dropout_prob = 0.1f;
  c.do_lower_case = 1;
  return c;
}

#endif
