/* /score's dictionary signal: hunspell's verdicts on a request's text
 * (lang/dict.h) mapped onto the words /score reports, so the server, the
 * trainer's evaluation and the checker ask the dictionary the same question. */
#ifndef EL_SERVER_DICT_H
#define EL_SERVER_DICT_H

#include <stddef.h>

#include "dict.h"

/* out[i]: the el_dict_verdict of the dictionary's word that holds the text's
 * bytes [start[i], end[i]) (EL_DICT_REJECTS for "recieve"; the "isn" of
 * "isn't" lies inside an accepted word: EL_DICT_NONE); spans run left to
 * right. Returns a malloc'd [n] array (caller frees), or NULL when out of
 * memory: the model alone then. */
unsigned char *el__srv_dict_spans(el__dict *d, const char *text, size_t len, const size_t *start,
                                  const size_t *end, int n);

#endif
