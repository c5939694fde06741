/* Scores the words of a sentence with an ELECTRA discriminator through the
 * public API: P(the word looks replaced), what /score serves.
 *   cc score.c $(pkg-config --cflags --libs electra) -o score
 *   ./score MODEL_DIR "She go to school yesterday."                   */
#include <electra/electra.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc != 3) return fprintf(stderr, "usage: %s MODEL_DIR TEXT\n", argv[0]), 2;
  const char *text = argv[2];
  el_error err = {0};
  el_model *m = NULL;
  el_workspace *ws = NULL;
  el_tokens toks = {0};
  el_encoding enc = {0};
  float *prob = NULL;
  if (el_model_load(argv[1], &m, &err) ||
      el_tokenize(el_model_tokenizer(m), text, strlen(text), &toks, &err) ||
      el_encode(el_model_tokenizer(m), &toks, NULL, el_model_config(m)->max_position_embeddings,
                1, &enc, &err) || /* 1: truncate a text too long for the model */
      el_workspace_new(m, enc.n, 1, &ws, &err) || (!(prob = malloc(enc.n * sizeof *prob)) &&
       el_error_set(&err, EL_ENOMEM, "out of memory")) ||
      el_run_replaced(m, ws, &(el_batch){1, &enc.n, enc.ids, enc.type_ids}, prob, &err))
    return fprintf(stderr, "score: %s\n", err.msg), 1;
  for (int w = 0, i = 1; w < toks.n_words; w++) { /* pieces follow [CLS] in word order */
    int first = i;
    while (i < enc.n && enc.word[i] == w) i++;
    size_t a = el_utf8_byte_offset(text, strlen(text), (size_t)toks.word_start[w]);
    size_t b = el_utf8_byte_offset(text, strlen(text), (size_t)toks.word_end[w]);
    printf("%.*s\t%.3f\n", (int)(b - a), text + a, el_word_prob(EL_SCORE_MAX, prob + first, i - first));
  }
  free(prob), el_workspace_free(ws), el_encoding_free(&enc), el_tokens_free(&toks), el_model_free(m);
  return 0;
}
