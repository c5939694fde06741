/* The generator's one masked pass: for every flagged word that gets
 * suggestions (el__flag_suggests), its sentence with the word replaced by
 * [MASK] and (unless it is a misspelling) with a [MASK] inserted before
 * it, all in one batch (chunked to the workspace). Each mask's
 * distribution is kept as log-probabilities: the generator's proposals come
 * from it (check_gencands.c), and so does the likelihood of every other
 * candidate (of its first piece). */
#include <stdlib.h>

#include "check_internal.h"
#include "support_api.h"

/* Positions per el_run_mlm call: its logits are [positions x vocabulary]. */
#define MAX_POS_PER_CALL 32

/* The two masked sentences of flag f; the mask's index in the packed ids
 * goes to c->where. */
static int put_masked(el__checker *c, const el__flag *f, int insert, el_error *err) {
  int cls = el_tokenizer_special_id(c->tok, EL_TOK_CLS), sep = el_tokenizer_special_id(c->tok, EL_TOK_SEP);
  int mask = el_tokenizer_special_id(c->tok, EL_TOK_MASK);
  const el__csent *s = &c->sents[f->sent];
  if (el__seqs_put(&c->seqs, &cls, 1, err) || el__put_words(c, s->w0, f->word, err)) return err->code;
  c->where[c->seqs.n] = (int)c->seqs.n_ids;
  if (el__seqs_put(&c->seqs, &mask, 1, err) ||
      el__put_words(c, insert ? f->word : f->word + 1, s->w1, err) ||
      el__seqs_put(&c->seqs, &sep, 1, err) || el__seqs_close(&c->seqs, err))
    return err->code;
  return 0;
}

/* Sequences [s0, s1) (ids from id0) through the generator; rows s0.. of c->lp. */
static int gen_chunk(el__checker *c, int s0, int s1, size_t id0, el_error *err) {
  int pos[MAX_POS_PER_CALL];
  for (int s = s0; s < s1; s++) pos[s - s0] = c->where[s] - (int)id0;
  el_batch b = {s1 - s0, c->seqs.len + s0, c->seqs.ids + id0, NULL};
  float *rows = c->lp + (size_t)s0 * (size_t)c->vocab;
  int rc = el_run_mlm(c->o.generator, c->ws_gen, &b, pos, s1 - s0, rows, err);
  if (!rc) el_log_softmax(rows, s1 - s0, c->vocab);
  return rc;
}

int el__check_generate(el__checker *c, el_error *err) {
  if (!c->o.generator || !c->n_flags) return 0;
  size_t n = 2 * (size_t)c->n_flags;
  if (el__grow((void **)&c->where, &c->where_cap, n, sizeof(int)) ||
      el__grow((void **)&c->lp, &c->lp_cap, n * (size_t)c->vocab, sizeof(float)))
    return el_error_set(err, EL_ENOMEM, "check: out of memory for the generator's rows");
  el__seqs_reset(&c->seqs);
  for (int i = 0; i < c->n_flags; i++) {
    if (!el__flag_suggests(c, &c->flags[i])) continue;
    c->flags[i].gen_row = c->seqs.n;
    if (put_masked(c, &c->flags[i], 0, err)) return err->code;
    /* a misspelling gets no insertion before it (check_candidates.c): no
     * inserted mask to fill */
    if (!c->flags[i].rejected && put_masked(c, &c->flags[i], 1, err)) return err->code;
  }
  c->cost.gen_seqs += c->seqs.n, c->cost.gen_ids += (long)c->seqs.n_ids;
  return c->seqs.n ? el__seqs_chunks(c, MAX_POS_PER_CALL, gen_chunk, err) : 0;
}
