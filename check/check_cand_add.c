/* The candidate list of the flagged words (check_internal.h): each
 * candidate once per word, tokenized into the pool, with the generator's
 * log-probability at the mask (check_internal.h). */
#include <math.h>
#include <string.h>

#include "check_internal.h"
#include "support_api.h"

static int same_ids(const el__checker *c, const el__flag *f, const int *ids, int n) {
  const el__word *x = &c->words.w[f->word];
  if (n != x->n_pieces) return 0;
  for (int i = 0; i < n; i++)
    if (ids[i] != c->tk.tok[x->piece + i].id) return 0;
  return 1;
}

/* Long because: dedupe, tokenize, the uncased-case rule and the generator's
 * likelihood each need a few lines, and splitting would pass them all. */
int el__cand_add(el__checker *c, el__flag *f, int kind, int type, const char *text,
                 el_error *err) {
  size_t n = strlen(text);
  if (n >= EL__CAND_TEXT || (kind != EL__EDIT_DELETE && n == 0)) return 0;
  for (int i = f->cand0; i < c->n_cands; i++)
    if (c->cands[i].kind == kind && !strcmp(c->cands[i].text, text)) return 0;
  const el__word *x = &c->words.w[f->word];
  if (kind == EL__EDIT_REPLACE && n == x->end - x->start && !memcmp(text, c->text + x->start, n))
    return 0;
  int n_ids = 0;
  if (kind != EL__EDIT_DELETE) {
    int rc = el_tokenize_opts(c->tok, text, n, EL_TOKENIZE_SPECIALS_AS_TEXT, &c->scratch, err);
    if (rc) return rc;
    n_ids = c->scratch.n;
    if (n_ids == 0 || n_ids > 8) return 0;
  }
  if (el__grow((void **)&c->pool, &c->pool_cap, c->n_pool + (size_t)n_ids, sizeof(int)) ||
      el__grow((void **)&c->cands, &c->cands_cap, (size_t)c->n_cands + 1, sizeof *c->cands))
    return el_error_set(err, EL_ENOMEM, "check: out of memory");
  int *ids = c->pool + c->n_pool;
  for (int i = 0; i < n_ids; i++) ids[i] = c->scratch.tok[i].id;
  int by_rule = 0;
  if (kind == EL__EDIT_REPLACE && same_ids(c, f, ids, n_ids)) {
    if (type != EL__ET_ORTH) return 0; /* the detector cannot tell them apart */
    by_rule = 1;
  }
  el__cand *e = &c->cands[c->n_cands++];
  memset(e, 0, sizeof *e);
  e->kind = kind;
  e->type = type;
  memcpy(e->text, text, n + 1);
  e->ids = (int)c->n_pool;
  e->n_ids = n_ids;
  c->n_pool += (size_t)n_ids;
  e->by_rule = by_rule;
  /* The generator's log-probability of the word's first piece at the mask:
   * exact for one vocabulary entry; for a longer word ("winch" = win ##ch)
   * the probability that the position starts with it, which bounds the
   * word's from above. Unknown (NAN), a multi-piece word looked likelier
   * than most one-piece ones and won against the generator's own choice
   * ("winch" over "which" for "wich"). */
  e->gen_lp = NAN;
  if (f->gen_row >= 0 && n_ids >= 1 && kind != EL__EDIT_DELETE) {
    int row = f->gen_row + (kind == EL__EDIT_INSERT);
    e->gen_lp = c->lp[(size_t)row * (size_t)c->vocab + (size_t)ids[0]];
  }
  f->n_cand++;
  return 1;
}

