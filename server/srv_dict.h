/* /score's dictionary signal: hunspell's verdicts on a request's text
 * (lang/dict.h) mapped onto the tokenizer's words, so the server, the
 * trainer's evaluation and the checker ask the dictionary the same question. */
#ifndef EL_SERVER_DICT_H
#define EL_SERVER_DICT_H

#include <stddef.h>

#include "dict.h"
#include "electra/tokenizer.h"

/* out[w]: the el_dict_verdict of the dictionary's word that holds tk's word w
 * (EL_DICT_REJECTS for "recieve"; the "isn" of "isn't" lies inside an
 * accepted word: EL_DICT_NONE). text is len bytes; cp_byte maps code points
 * to byte offsets (n_cp + 1 entries). Returns a malloc'd [n_words] array
 * (caller frees), or NULL when out of memory: the model alone then. */
unsigned char *el__srv_dict_words(el__dict *d, const char *text, size_t len, const size_t *cp_byte,
                                  int n_cp, const el_tokens *tk);

#endif
