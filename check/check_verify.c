/* Verification: each flag's most promising candidates (EL__VERIFY_CAP of
 * them, by source order and the generator's likelihood), each as its
 * sentence with that one edit, through the detector in one batched pass. A
 * candidate is kept when the edited region no longer looks wrong and no
 * other word of the sentence starts to; survivors are ranked by how
 * original the region looks and by the generator's likelihood; a
 * misspelling's fixes as a spelling corrector ranks them (SPELL_*). */
#include <math.h>

#include "check_internal.h"
#include "support_api.h"

/* A word that crosses the threshold only by less than this is noise. */
#define WORSE_MARGIN 0.10f
/* Rank: P(error) of the region over the threshold (0..1 for survivors),
 * plus LP_WEIGHT per nat of the generator's surprise (LP_UNKNOWN when it
 * has no say: a deletion, no generator), plus priors
 * measured on FCE dev's first 300 sentences with the 60-minute recipe's
 * synthetic-stage model: an insertion before the word wins too often (its
 * precision was ~10 %), so it needs a clearer verdict than a replacement; a
 * word the dictionaries reject is most likely misspelt (hunspell's first
 * suggestion is right for ~57 % of FCE's spelling edits, docs/GED.md), so
 * its other candidates wait. */
#define LP_WEIGHT 0.1f
#define LP_UNKNOWN (-6.0f)
/* The generator's likelihood counts where it is sure of the position: its
 * likeliest word (other than the flagged one) has at least this
 * probability. Where it spreads its mass thinner its order among the
 * verified words is noise, and the detector's verdict alone ranks them
 * ("She go to school yesterday.": a small generator's best word has
 * p 0.016 there and it ranked "going" over "goes"). Chosen on FCE dev
 * among 0, 0.02, 0.05, 0.1 and 0.2, replaying one run's verified
 * candidates: 0.05 the least that ranks "goes" first; against 0 it costs
 * corrections F0.5 0.003 with the one-hour recipe's model and 0.001 with
 * make run's, a generator's order where it is unsure was that little worth
 * there. */
#define GEN_SURE 0.05f
#define INSERT_PENALTY 0.5f
#define NOT_SPELL_PENALTY 1.0f
/* A word only the generator proposed ranks after every verified candidate
 * of the rules: with the recipe's small generator such words (then mostly
 * modals and pronouns inserted before the word, "Everybody would deserve",
 * which it no longer proposes: check_gencands.c) verified easily and were
 * the annotators' edit for 1 of 135 flags of FCE dev that they won,
 * against 17 % for the rules' candidates there (corrections F0.5 0.263
 * ranking them with the rest, 0.267 after). They stay among the
 * replacements, after the rules' words. */
#define GEN_ONLY_RANK 100.0f
/* Candidates of a flag verified together in one round (el__check_verify):
 * one is the fewest sentences (replaying the one-hour model's FCE dev
 * candidates: 2,762 against 3,318 at two, in up to 8 rounds against 4) and
 * was 5-10 % faster than two in bench_check (/v2/check 7.7-8.0 ms against
 * 8.6-8.9 ms, the 60-minute two-thread model): a round's small batch costs
 * less than the sentences it saves. */
#define PER_ROUND 1
/* Rounds of PER_ROUND; the round after them verifies every candidate of a
 * flag that could still rank first, at once. A pass costs about as much as
 * 25 more tokens in it whatever its size (bench_check's paragraph: 0.15 ms
 * for a 12-token sentence, 0.5 ms for 78 tokens), and a flag none of whose
 * candidates verifies went on one sentence a round. At 3: the same edits on
 * FCE dev (one-hour two-core and two-hour models), 0.6 % more verification
 * tokens in two thirds of the rounds (156 against 233); at 2, 3.5 % more
 * tokens in half of them. */
#define BEST_FIRST_ROUNDS 3
/* A misspelling's corrections (the dictionaries reject the word, so one of
 * them is meant) are ranked as a noisy-channel spelling corrector ranks
 * them: the detector's verdict in log-odds (a fix at P 0.004 is far
 * likelier than one at 0.05, which P over the threshold hardly tells
 * apart), and the word's frequency in the model's own text where the model
 * has word counts ("which" over "winch" for "wich", "believe" over "belie",
 * "restaurant" over "rest rant"). Chosen on FCE dev with the one-hour
 * two-core recipe model, among log-odds weights 0.1, 0.3, 0.5 and
 * frequency weights 0.05, 0.1, 0.2, 0.4: 0.3 and 0.1 (0.05-0.1 and 0.3-0.5
 * within 0.003 of each other); docs/RESULTS.md has the figures. */
#define SPELL_LOGIT_WEIGHT 0.3f
#define SPELL_FREQ_WEIGHT 0.1f
/* A misspelling's fixes verified: the best by hunspell's order and the
 * word's frequency. Two right (FCE dev, one-hour two-core model: 402 for
 * two or three, 400 for all, 389 for one) at half the sentences of all;
 * best first (el__cand_least_rank) verifies the second only when its
 * log-odds could still rank it first. */
#define SPELL_CAP 2
/* A misspelling's fix is verified on the words around it, not its whole
 * sentence: only the fix's own P(error) is read (no veto from the other
 * words). 10 words either side: the same edits as the sentence on FCE dev
 * (416 right of 826 with the one-hour two-core model, 482 of 925 two-hour;
 * one fewer at 6, and with the one-hour one-core model at 10) and
 * /v2/check 6-8 % faster on bench_check's paragraph (alternating, 30
 * rounds x 3: 6.6-7.0 ms against 7.2-7.5). */
#define SPELL_WINDOW 10

/* A correction of a word the dictionaries reject. */
static int misspelling_fix(const el__flag *f, const el__cand *e) {
  return f->rejected && (e->type == EL__ET_SPELL || e->type == EL__ET_ORTH);
}

void el__verify_span(const el__checker *c, const el__flag *f, const el__cand *e, int *w0, int *w1) {
  const el__csent *s = &c->sents[f->sent];
  *w0 = s->w0, *w1 = s->w1;
  if (!misspelling_fix(f, e)) return;
  if (f->word - SPELL_WINDOW > *w0) *w0 = f->word - SPELL_WINDOW;
  if (f->word + 1 + SPELL_WINDOW < *w1) *w1 = f->word + 1 + SPELL_WINDOW;
}

static int put_candidate(el__checker *c, const el__flag *f, const el__cand *e, el_error *err) {
  int cls = el_tokenizer_special_id(c->tok, EL_TOK_CLS), sep = el_tokenizer_special_id(c->tok, EL_TOK_SEP);
  int w0, w1;
  el__verify_span(c, f, e, &w0, &w1);
  if (el__seqs_put(&c->seqs, &cls, 1, err) || el__put_words(c, w0, f->word, err) ||
      el__seqs_put(&c->seqs, c->pool + e->ids, e->n_ids, err) ||
      el__put_words(c, f->word + el__edit_words(e->kind), w1, err) ||
      el__seqs_put(&c->seqs, &sep, 1, err) || el__seqs_close(&c->seqs, err))
    return err->code;
  return 0;
}

static float piece_word(const el__checker *c, size_t at, int n) {
  return el_word_prob(c->o.rule, c->prob + at, n);
}

/* Reads one candidate's sentence (ids from at): the region's P(error) and
 * whether another word got worse. */
static void judge(el__checker *c, const el__flag *f, el__cand *e, size_t at) {
  const el__csent *s = &c->sents[f->sent];
  const el__word *W = c->words.w;
  int w0, w1;
  el__verify_span(c, f, e, &w0, &w1); /* where the sequence starts: the words before the edit */
  (void)w1;
  int p0 = W[w0].piece;
  size_t edit = at + 1 + (size_t)(W[f->word].piece - p0); /* first id after the words before */
  int next = f->word + 1 < s->w1 ? f->word + 1 : -1, prev = f->word > s->w0 ? f->word - 1 : -1;
  int shift = e->n_ids;
  for (int k = 0; k < el__edit_words(e->kind); k++) shift -= W[f->word + k].n_pieces;
  if (e->kind == EL__EDIT_REPLACE || e->kind == EL__EDIT_JOIN) {
    e->p_edit = piece_word(c, edit, e->n_ids);
  } else if (e->kind == EL__EDIT_INSERT) {
    float pi = piece_word(c, edit, e->n_ids), pw = piece_word(c, edit + (size_t)e->n_ids, W[f->word].n_pieces);
    e->p_edit = pi > pw ? pi : pw;
  } else {
    e->p_edit = next >= 0 ? piece_word(c, edit, W[next].n_pieces)
                : prev >= 0 ? piece_word(c, at + 1 + (size_t)(W[prev].piece - p0), W[prev].n_pieces)
                : 0.0f;
  }
  /* a misspelling's fix is not vetoed by a new flag elsewhere: the word was
   * wrong for certain, and a misspelling often hid the sentence's other
   * error from the detector ("Secondly I belive": "believe" makes the
   * missing comma stand out) */
  int worse = 0;
  for (int w = s->w0; w < s->w1 && !worse && !misspelling_fix(f, e); w++) {
    if (w == f->word || (w == next && (e->kind == EL__EDIT_DELETE || e->kind == EL__EDIT_JOIN)))
      continue;
    long pos = (long)at + 1 + (W[w].piece - p0) + (w > f->word ? shift : 0);
    float p = piece_word(c, (size_t)pos, W[w].n_pieces);
    /* a word already flagged may look worse once its neighbour is fixed
     * ("I receive you letter": "you" stands out more); only a new flag counts */
    worse = c->word_p[w] < c->o.threshold && p >= c->o.threshold && p > c->word_p[w] + WORSE_MARGIN;
  }
  /* A misspelling is certain (the dictionaries say so): its spelling
   * corrections need only look better than it, as the corrected word may
   * carry another error the detector also sees ("recieve" -> "receive",
   * where FCE's letters have "received"). */
  float bar = misspelling_fix(f, e) && f->prob > c->o.threshold
                  ? f->prob : c->o.threshold;
  e->ok = e->p_edit < bar && !worse;
}

/* The rank before verification: all but the detector's verdict. */
static float prior_rank(const el__flag *f, const el__cand *e) {
  float lp = isnan(e->gen_lp) ? LP_UNKNOWN : e->gen_lp;
  float w = f->gen_top >= GEN_SURE || f->gen_row < 0 ? LP_WEIGHT : 0.0f;
  return e->prior - w * lp + (e->kind == EL__EDIT_INSERT ? INSERT_PENALTY : 0) +
            (f->rejected && !misspelling_fix(f, e) ? NOT_SPELL_PENALTY : 0);
}

/* The word's own other forms (agreement, tense, verb form, noun number):
 * a handful a word, the commonest learner errors, and ranked low by a
 * small generator ("deserves" for "Everybody deserve to ..." came after
 * five insertions), so they are verified outside the cap. */
int el__cand_own_form(const el__cand *e) {
  return e->kind == EL__EDIT_REPLACE && !e->by_gen &&
         (e->type == EL__ET_VERB_SVA || e->type == EL__ET_VERB_TENSE ||
          e->type == EL__ET_VERB_FORM || e->type == EL__ET_NOUN_NUM);
}

/* A misspelling fix's rank before the detector's verdict. */
static float fix_prior(const el__checker *c, const el__flag *f, const el__cand *e) {
  return prior_rank(f, e) - (c->freq ? SPELL_FREQ_WEIGHT * el__word_freq_logp(c->freq, e->text) : 0.0f);
}

/* 1 when candidate j, a fix of f's misspelling, is past the SPELL_CAP best. */
static int past_spell_cap(const el__checker *c, const el__flag *f, int j) {
  float r = fix_prior(c, f, &c->cands[j]);
  int better = 0;
  for (int i = f->cand0; i < f->cand0 + f->n_cand; i++) {
    if (i == j || c->cands[i].by_rule || !misspelling_fix(f, &c->cands[i])) continue;
    float q = fix_prior(c, f, &c->cands[i]);
    better += q < r || (q == r && i < j);
  }
  return better >= SPELL_CAP;
}

static float log_odds(float p) {
  p = p < 1e-6f ? 1e-6f : p > 1 - 1e-6f ? 1 - 1e-6f : p;
  return logf(p / (1 - p));
}

/* The least rank e can get once verified: its p_edit adds >= 0, or for a
 * misspelling's fix at least the log-odds of the least P(error) log_odds
 * reads (1e-6). */
float el__cand_least_rank(const el__checker *c, const el__flag *f, const el__cand *e) {
  if (misspelling_fix(f, e))
    return fix_prior(c, f, e) + SPELL_LOGIT_WEIGHT * log_odds(0.0f) + (e->by_gen ? GEN_ONLY_RANK : 0.0f);
  return prior_rank(f, e) + (e->by_gen ? GEN_ONLY_RANK : 0.0f);
}

void el__cand_rank(const el__checker *c, const el__flag *f, el__cand *e) {
  float verdict = e->p_edit / c->o.threshold;
  float pre = prior_rank(f, e);
  if (misspelling_fix(f, e)) {
    verdict = SPELL_LOGIT_WEIGHT * log_odds(e->p_edit);
    pre = fix_prior(c, f, e);
  }
  e->rank = pre + verdict + (e->by_gen ? GEN_ONLY_RANK : 0.0f);
}

/* Marks the candidates of f past the EL__VERIFY_CAP best by prior_rank (a
 * misspelling's fixes: past the SPELL_CAP best fixes, else as the others)
 * as not verified (skip); the word's own forms are all verified. */
static void cap(el__checker *c, const el__flag *f) {
  for (int j = f->cand0; j < f->cand0 + f->n_cand; j++) {
    el__cand *e = &c->cands[j];
    e->skip = 0;
    if (e->by_rule || el__cand_own_form(e)) continue;
    if (misspelling_fix(f, e) && past_spell_cap(c, f, j)) {
      e->skip = 1;
      continue;
    }
    float r = prior_rank(f, e);
    int better = 0;
    for (int i = f->cand0; i < f->cand0 + f->n_cand; i++) {
      if (i == j || c->cands[i].by_rule || el__cand_own_form(&c->cands[i])) continue;
      float q = prior_rank(f, &c->cands[i]);
      better += q < r || (q == r && i < j);
    }
    e->skip = better >= EL__VERIFY_CAP;
  }
}

static int pending(const el__cand *e) { return isnan(e->p_edit); }

/* Puts the next PER_ROUND candidates of flag i (least rank first) into
 * c->seqs, unless its best verified candidate already ranks before every
 * candidate still waiting. */
static int put_round(el__checker *c, int i, int round, el_error *err) {
  const el__flag *f = &c->flags[i];
  float best = INFINITY;
  for (int j = f->cand0; j < f->cand0 + f->n_cand; j++)
    if (c->cands[j].ok && !pending(&c->cands[j]) && c->cands[j].rank < best) best = c->cands[j].rank;
  int per_round = c->o.verify_all || round >= BEST_FIRST_ROUNDS ? f->n_cand : PER_ROUND;
  for (int k = 0; k < per_round; k++) {
    int next = -1;
    for (int j = f->cand0; j < f->cand0 + f->n_cand; j++) {
      const el__cand *e = &c->cands[j];
      if (!pending(e) || e->ok) continue; /* ok marks one put this round */
      if (next < 0 || e->least < c->cands[next].least) next = j;
    }
    if (next < 0 || (!c->o.verify_all && c->cands[next].least >= best)) return 0;
    c->cands[next].ok = 1;
    c->where[2 * c->seqs.n] = i, c->where[2 * c->seqs.n + 1] = next;
    if (put_candidate(c, f, &c->cands[next], err)) return err->code;
  }
  return 0;
}

/* One round: the chosen candidates' sentences through the detector, each
 * judged and ranked. 0 candidates: nothing left to verify (*more = 0). */
static int verify_round(el__checker *c, int round, int *more, el_error *err) {
  el__seqs_reset(&c->seqs);
  for (int i = 0; i < c->n_flags; i++)
    if (put_round(c, i, round, err)) return err->code;
  *more = c->seqs.n > 0;
  if (*more) c->cost.verify_rounds++, c->cost.verify_seqs += c->seqs.n, c->cost.verify_ids += (long)c->seqs.n_ids;
  int rc = *more ? el__detect_seqs(c, 1, err) : 0;
  size_t at = 0;
  for (int q = 0; !rc && q < c->seqs.n; q++) {
    const el__flag *f = &c->flags[c->where[2 * q]];
    el__cand *e = &c->cands[c->where[2 * q + 1]];
    judge(c, f, e, at);
    el__cand_rank(c, f, e);
    at += (size_t)c->seqs.len[q];
  }
  return rc;
}

/* Candidates no rule decides are verified best first: in rounds, each
 * flag's PER_ROUND candidates of least possible rank, until the best
 * verified one ranks before all that wait (their p_edit can only add to
 * their rank). The best replacement is the one verifying all of them would
 * give; FCE dev, replaying the one-hour model's candidates: 2,762
 * verification sentences instead of 5,089, the same best edit for every
 * flag (eval --m2 of the 60-minute two-thread model: the same 377 of 773
 * edits right as verifying all). Those never verified are not offered. */
int el__check_verify(el__checker *c, el_error *err) {
  if (el__grow((void **)&c->where, &c->where_cap, 2 * ((size_t)c->n_cands + 1), sizeof(int)))
    return el_error_set(err, EL_ENOMEM, "check: out of memory");
  for (int i = 0; i < c->n_flags; i++) {
    el__flag *f = &c->flags[i];
    cap(c, f);
    for (int j = f->cand0; j < f->cand0 + f->n_cand; j++) {
      el__cand *e = &c->cands[j];
      e->ok = e->by_rule;
      e->p_edit = e->by_rule ? 0.5f * c->o.threshold : e->skip ? 1.0f : NAN;
      if (!pending(e)) el__cand_rank(c, f, e);
      else e->least = el__cand_least_rank(c, f, e); /* constant: one frequency lookup */
    }
  }
  int more = 1, rc = 0;
  for (int round = 0; !rc && more; round++) rc = verify_round(c, round, &more, err);
  for (int j = 0; j < c->n_cands; j++)
    if (pending(&c->cands[j])) {
      c->cands[j].skip = 1, c->cands[j].ok = 0, c->cands[j].p_edit = 1.0f;
      c->cands[j].rank = INFINITY;
    }
  return rc;
}
