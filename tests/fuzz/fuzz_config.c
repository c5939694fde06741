/* libFuzzer: bytes -> el__config_load (engine/config.c): config.json, and
 * tokenizer_config.json from the bytes after the first NUL (if any). An
 * accepted config holds sane values for the loader behind it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *nul = memchr(data, 0, size);
  size_t n1 = nul ? (size_t)(nul - data) : size;
  fuzz_write("config.json", data, n1);
  if (nul)
    fuzz_write("tokenizer_config.json", nul + 1, size - n1 - 1);
  else
    fuzz_write("tokenizer_config.json", (const uint8_t *)"{}", 2);
  el_config c;
  memset(&c, 0, sizeof c);
  el_error err = {0};
  if (el__config_load(fuzz_dir(), &c, &err) == 0) {
    if (c.vocab_size <= 0 || c.hidden_size <= 0 || c.num_layers <= 0 || c.num_heads <= 0 ||
        c.max_position_embeddings <= 0)
      abort();
    if ((c.arch == EL_ARCH_SEQ_CLS || c.arch == EL_ARCH_TOKEN_CLS) && c.num_labels > 0 &&
        c.id2label)
      for (int i = 0; i < c.num_labels; i++)
        if (!c.id2label[i]) abort();
    el__config_free(&c);
  }
  return 0;
}
