/* libFuzzer: bytes -> a model's word_counts.txt (el__word_freq_parse, what
 * the checker reads beside a generator). A file is refused with a message
 * or read; a read table gives every word a finite log-probability at most
 * 0, and several words the sum of theirs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "word_freq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  el__word_freq *f = NULL;
  el_error err = {0};
  if (el__word_freq_parse((const char *)data, size, "fuzz", &f, &err)) {
    if (!err.msg[0] || f) abort();
    return 0;
  }
  /* the input's first line's word, and two made-up ones */
  char word[64] = "the";
  size_t n = 0;
  while (n < size && n < sizeof word - 1 && data[n] != '\t' && data[n] != '\n' && data[n] != ' ' &&
         data[n] != '-' && data[n])
    n++;
  if (n) memcpy(word, data, n), word[n] = 0;
  float a = el__word_freq_logp(f, word), b = el__word_freq_logp(f, "zzqx"), ab;
  char two[80];
  snprintf(two, sizeof two, "%s zzqx", word);
  ab = el__word_freq_logp(f, two);
  if (!isfinite(a) || a > 0 || !isfinite(b) || b > 0 || fabsf(ab - (a + b)) > 1e-3f * fabsf(ab) + 1e-5f)
    abort();
  el__word_freq_free(f);
  return 0;
}
