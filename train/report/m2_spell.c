/* The spellchecker baseline of `eval --m2` (m2_spell.h). */
#include "m2_spell.h"

#include <string.h>

/* Token t of s ends a sentence inside an M2 "sentence" (which may hold
 * several), so the next word may be capitalised without being a name. */
static int ends_sentence(const el__m2_sent *s, int t) {
  const char *w = s->text + s->off[t];
  return s->tlen[t] == 1 && (w[0] == '.' || w[0] == '!' || w[0] == '?');
}

int el__m2_spell_propose(el__dict *d, el__dict_variant v, const el__m2_sent *s, el__m2_edits *out,
                         el_error *err) {
  char word[256], sugg[1][EL__DICT_WORD_MAX];
  for (int t = 0; t < s->n_tok; t++) {
    if ((size_t)s->tlen[t] >= sizeof word) continue; /* no dictionary word is that long */
    memcpy(word, s->text + s->off[t], (size_t)s->tlen[t]);
    word[s->tlen[t]] = 0;
    int start = t == 0 || ends_sentence(s, t - 1);
    if (!el__dict_rejects(d, v, word, start) || el__dict_suggest(d, v, word, sugg, 1) < 1) continue;
    int rc = el__m2_add_edit(s, t, t + 1, sugg[0], EL__M2_SPELL_TYPE, out, err);
    if (rc) return rc;
  }
  return EL_OK;
}
