/* Errors of form rather than grammar: spelling (character edits), case, and
 * the order of two adjacent words (learner.h). */
#include <string.h>
#include "learner_internal.h"

/* QWERTY neighbours of each lower-case letter: a slip of the finger. */
static const char *const KEYS[26] = {
    "qwsz", "vghn", "xdfv", "serfcx", "wsdr", "drtgvc", "ftyhbv", "gyujnb", "ujko", "huikmn",
    "jiolm", "kop", "njk", "bhjm", "iklp", "ol", "wa", "edft", "awedxz", "rfgy", "yhji",
    "cfgb", "qase", "zsdc", "tghu", "asx"};

static int lower_letter(char c) { return c >= 'a' && c <= 'z'; }

static char neighbour(char c, uint64_t *rng) {
  if (!lower_letter(c)) return 0;
  const char *k = KEYS[c - 'a'];
  return k[el__lr_below(rng, (int)strlen(k))];
}

enum { SP_DELETE, SP_INSERT, SP_TRANSPOSE, SP_SUBSTITUTE, SP_DOUBLE, SP_UNDOUBLE, SP_COUNT };

/* One character edit of the lower-case word w (length n >= 3) into out.
 * The first letter stays: learners rarely get it wrong. Returns 0 when the
 * chosen edit does not apply or changes nothing. */
static int spell_edit(const char *w, size_t n, int op, uint64_t *rng, char *out) {
  size_t p = 1 + (size_t)el__lr_below(rng, (int)(n - 1)); /* a position after the first */
  switch (op) {
    case SP_DELETE:
      memcpy(out, w, p);
      memcpy(out + p, w + p + 1, n - p);
      break;
    case SP_INSERT: {
      char c = neighbour(w[p - 1], rng);
      if (!c || n + 2 > EL__LWORD_MAX) return 0;
      memcpy(out, w, p);
      out[p] = c;
      memcpy(out + p + 1, w + p, n - p + 1);
      break;
    }
    case SP_TRANSPOSE:
      if (p + 1 >= n) p = n - 2;
      if (p < 1) return 0;
      memcpy(out, w, n + 1);
      out[p] = w[p + 1];
      out[p + 1] = w[p];
      break;
    case SP_SUBSTITUTE: {
      char c = neighbour(w[p], rng);
      if (!c) return 0;
      memcpy(out, w, n + 1);
      out[p] = c;
      break;
    }
    case SP_DOUBLE:
      if (!lower_letter(w[p]) || n + 2 > EL__LWORD_MAX) return 0;
      memcpy(out, w, p + 1);
      memcpy(out + p + 1, w + p, n - p + 1);
      break;
    case SP_UNDOUBLE: {
      size_t d = 0;
      for (size_t i = 1; i < n && !d; i++)
        if (w[i] == w[i - 1] && lower_letter(w[i])) d = i;
      if (!d) return 0;
      memcpy(out, w, d);
      memcpy(out + d, w + d + 1, n - d);
      break;
    }
    default: return 0;
  }
  return strcmp(out, w) != 0;
}

/* Words of 3+ letters, letters only; not names (a capital in mid-sentence):
 * learners copy those from the question paper. */
static int spell_site(const el__lsent *s, int i) {
  const el__lw *w = &s->w[i];
  if (!el__ls_free(s, i) || w->kind != EL__LK_WORD || strlen(w->low) < 3) return 0;
  if (i > 0 && el__lm_is_upper(el__lw_str(w)[0])) return 0;
  for (const char *p = w->low; *p; p++)
    if (!lower_letter(*p)) return 0;
  return 1;
}

int el__learner_misspell(const char *w, uint64_t *rng, char *out) {
  size_t n = strlen(w);
  if (n < 3 || n >= EL__LWORD_MAX) return 0;
  for (size_t i = 0; i < n; i++)
    if (!lower_letter(w[i])) return 0;
  for (int tries = 0; tries < 8; tries++)
    if (spell_edit(w, n, el__lr_below(rng, SP_COUNT), rng, out)) return 1;
  return 0;
}

int el__lf_spell(el__lsent *s, uint64_t *rng) {
  int m = 0;
  for (int i = 0; i < s->n; i++)
    if (spell_site(s, i)) s->sites[m++] = i;
  int i = el__ls_pick(s->sites, m, rng);
  char out[EL__LWORD_MAX];
  if (i < 0 || !el__learner_misspell(s->w[i].low, rng, out)) return 0;
  el__ls_replace(s, i, out);
  return 1;
}

/* Case: a capitalised word loses its capital ("london", "i"), or a
 * lower-case word gains one; each half of the time when the sentence has
 * both, as most words are lower-case. */
int el__lf_orth(el__lsent *s, uint64_t *rng) {
  int nu = 0, nl = 0, *upper = s->sites, *lower = s->sites + s->n;
  for (int i = 0; i < s->n; i++) {
    if (!el__ls_free(s, i) || s->w[i].kind != EL__LK_WORD || !lower_letter(s->w[i].low[0]))
      continue;
    if (el__lm_is_upper(el__lw_str(&s->w[i])[0])) upper[nu++] = i;
    else lower[nl++] = i;
  }
  if (!nu && !nl) return 0;
  int from_upper = nu && (!nl || el__lr_below(rng, 2));
  int i = from_upper ? el__ls_pick(upper, nu, rng) : el__ls_pick(lower, nl, rng);
  el__lw *w = &s->w[i];
  char out[EL__LWORD_MAX];
  strcpy(out, w->low);
  if (!from_upper) out[0] = (char)(out[0] - 32);
  el__lw_set(s->l, w, NULL, out);
  w->label = w->lock = 1;
  return 1;
}

/* Keeps a sentence-initial capital in place when the first two words swap:
 * "She often goes" -> "Often she goes". Names keep theirs: "I", words in
 * capitals, and words neither WordNet nor the function-word table knows. */
static void swap_case_at_start(el__lsent *s) {
  el__lw *a = &s->w[0], *b = &s->w[1];
  const char *sa = el__lw_str(a), *sb = el__lw_str(b);
  if (!el__lm_is_upper(sb[0]) || el__lm_is_upper(sa[0]) || !a->low[0] || !b->low[0]) return;
  if (!strcmp(b->low, "i") || (strlen(sb) > 1 && el__lm_is_upper(sb[1]))) return;
  if (!b->cls && el__lword(s->l, b->low) < 0) return;
  char na[EL__LWORD_MAX], nb[EL__LWORD_MAX];
  strcpy(na, a->low);
  na[0] = (char)(na[0] >= 'a' && na[0] <= 'z' ? na[0] - 32 : na[0]);
  strcpy(nb, b->low);
  el__lw_set(s->l, a, NULL, na);
  el__lw_set(s->l, b, NULL, nb);
}

int el__lf_word_order(el__lsent *s, uint64_t *rng) {
  int m = 0;
  for (int i = 0; i + 1 < s->n; i++)
    if (el__ls_free(s, i) && el__ls_free(s, i + 1) && s->w[i].kind == EL__LK_WORD &&
        s->w[i + 1].kind == EL__LK_WORD && strcmp(s->w[i].low, s->w[i + 1].low))
      s->sites[m++] = i;
  int i = el__ls_pick(s->sites, m, rng);
  if (i < 0) return 0;
  el__lw t = s->w[i];
  s->w[i] = s->w[i + 1];
  s->w[i + 1] = t;
  if (i == 0) swap_case_at_start(s);
  s->w[i].label = s->w[i].lock = s->w[i + 1].label = s->w[i + 1].lock = 1;
  return 1;
}
