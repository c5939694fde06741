/* Detection: the detector over packed sequences, chunked to the
 * workspace, and the flagged words of the text. */
#include <stdlib.h>
#include <string.h>

#include "check_internal.h"
#include "support_api.h"

/* One engine call of model m over sequences [s0, s1) whose ids start at id0. */
static int run_chunk(el__checker *c, const el_model *m, el_workspace *ws, int s0, int s1, size_t id0,
                     el_error *err) {
  size_t t = 0;
  for (int s = s0; s < s1; s++) t += (size_t)c->seqs.len[s];
  el_batch b = {s1 - s0, c->seqs.len + s0, c->seqs.ids + id0, NULL};
  if (c->o.correct_label < 0) return el_run_replaced(m, ws, &b, c->prob + id0, err);
  if (el__grow((void **)&c->logits, &c->logits_cap, t * (size_t)c->num_labels, sizeof(float)))
    return el_error_set(err, EL_ENOMEM, "check: out of memory");
  int rc = el_run_token_classify(m, ws, &b, c->logits, err);
  if (!rc) el_error_probs(c->logits, (int)t, c->num_labels, c->o.correct_label, c->prob + id0);
  return rc;
}

static int detect_chunk(el__checker *c, int s0, int s1, size_t id0, el_error *err) {
  return run_chunk(c, c->o.detector, c->ws_det, s0, s1, id0, err);
}

static int verify_chunk(el__checker *c, int s0, int s1, size_t id0, el_error *err) {
  return run_chunk(c, c->o.verifier, c->ws_ver ? c->ws_ver : c->ws_det, s0, s1, id0, err);
}

int el__detect_seqs(el__checker *c, int verify, el_error *err) {
  if (el__grow((void **)&c->prob, &c->prob_cap, c->seqs.n_ids + 1, sizeof(float)))
    return el_error_set(err, EL_ENOMEM, "check: out of memory");
  return el__seqs_chunks(c, 0, verify ? verify_chunk : detect_chunk, err);
}

static int add_flag(el__checker *c, int w, float p, int rejected, int variant_only, el_error *err) {
  if (el__grow((void **)&c->flags, &c->flags_cap, (size_t)c->n_flags + 1, sizeof *c->flags))
    return el_error_set(err, EL_ENOMEM, "check: out of memory");
  el__flag *f = &c->flags[c->n_flags++];
  memset(f, 0, sizeof *f);
  f->word = w;
  f->sent = c->word_sent[w];
  f->prob = p;
  f->gen_row = -1;
  f->rejected = rejected;
  f->variant_only = variant_only;
  f->ngram_kind = -1;
  return 0;
}

int el__flag_suggests(const el__checker *c, const el__flag *f) {
  return f->rejected || f->ngram_kind >= 0 ||
         f->prob >= (c->picky ? c->o.threshold : c->o.suggest_threshold);
}

/* The n-gram model's edits of sentence s (o.ngram; lang/ngram.h) into
 * kind[w - w0] / alt[w - w0]: -1 where it has none. On failure (out of
 * memory) it has none. */
static void sentence_ngram_edits(el__checker *c, const el__csent *s, int *kind,
                                 char (*alt)[EL__LWORD_MAX]) {
  int n = s->w1 - s->w0;
  for (int i = 0; i < n; i++) kind[i] = -1;
  if (!c->o.ngram || n <= 0) return;
  char(*text)[EL__LWORD_MAX] = calloc((size_t)n, sizeof *text);
  const char **w = calloc((size_t)n, sizeof *w);
  el_error er = {0};
  if (text && w) {
    el__sent_texts(c, s, text, w);
    if (el__ngram_best(c->o.ngram, c->lang, w, n, kind, alt, &er))
      for (int i = 0; i < n; i++) kind[i] = -1;
  }
  free(text);
  free(w);
}

/* c->lm_kind and c->lm_alt for every word of the text. */
static int ngram_edits(el__checker *c, el_error *err) {
  size_t n = (size_t)c->words.n + 1;
  if (el__grow((void **)&c->lm_kind, &c->lm_kind_cap, n, sizeof *c->lm_kind) ||
      el__grow((void **)&c->lm_alt, &c->lm_alt_cap, n, sizeof *c->lm_alt))
    return el_error_set(err, EL_ENOMEM, "check: out of memory");
  for (int s = 0; s < c->n_sents; s++)
    sentence_ngram_edits(c, &c->sents[s], c->lm_kind + c->sents[s].w0, c->lm_alt + c->sents[s].w0);
  return 0;
}

/* A word the check's variant's dictionaries reject, as a spellchecker
 * sees running text (names inside a sentence left alone): 1, or 2 when
 * the other variant knows it (a misspelling only in this variant). A word
 * in capitals of a sentence written in capitals (check_sents.c) is read in
 * small letters, as a word that is no name: "REALY" in "WE ARE REALY
 * INTERESTED" is misspelt as "realy" is. */
static int rejected(el__checker *c, int w, int start) {
  char word[EL__DICT_WORD_MAX];
  if (!c->dict || !el__word_text(c, w, word, sizeof word)) return 0;
  if (c->sents[c->word_sent[w]].shouted && el__word_in_capitals(c, w)) {
    for (char *p = word; *p; p++)
      if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
    start = 0;
  }
  if (!el__dict_rejects(c->dict, c->variant, word, start)) return 0;
  return c->variant != EL__DICT_EN && !el__dict_rejects(c->dict, EL__DICT_EN, word, start) ? 2 : 1;
}

/* One sequence per sentence; a word is flagged when its P(error), from its
 * pieces by the model's rule, reaches the threshold, or when the check's
 * variant's dictionaries reject it: a WordPiece detector sees a
 * misspelling only as an unusual split, and hunspell alone finds FCE's
 * misspellings at precision 0.83 (docs/GED.md); the detector then ranks
 * its suggestions. */
int el__check_detect(el__checker *c, el_error *err) {
  el__seqs_reset(&c->seqs);
  int cls = el_tokenizer_special_id(c->tok, EL_TOK_CLS), sep = el_tokenizer_special_id(c->tok, EL_TOK_SEP);
  for (int s = 0; s < c->n_sents; s++) {
    if (el__seqs_put(&c->seqs, &cls, 1, err) || el__put_words(c, c->sents[s].w0, c->sents[s].w1, err) ||
        el__seqs_put(&c->seqs, &sep, 1, err) || el__seqs_close(&c->seqs, err))
      return err->code;
  }
  c->cost.detect_ids += (long)c->seqs.n_ids;
  int rc = el__detect_seqs(c, 0, err);
  if (rc) return rc;
  if (el__grow((void **)&c->word_p, &c->word_p_cap, (size_t)c->words.n + 1, sizeof(float)))
    return el_error_set(err, EL_ENOMEM, "check: out of memory");
  if ((rc = ngram_edits(c, err))) return rc;
  c->n_flags = 0;
  size_t at = 0;
  for (int s = 0; s < c->n_sents; s++) {
    const el__word *first = &c->words.w[c->sents[s].w0];
    for (int w = c->sents[s].w0; w < c->sents[s].w1; w++) {
      const el__word *x = &c->words.w[w];
      const float *pp = c->prob + at + 1 + (x->piece - first->piece);
      c->word_p[w] = el_word_prob(c->o.rule, pp, x->n_pieces);
      /* code, the web, acronyms, the writer's own words: context, never an error */
      if (x->technical || x->acronym || el__word_accepted(c, w)) continue;
      int rej = rejected(c, w, el__sent_start(c, w)), lm = c->lm_kind[w];
      if (!(c->word_p[w] >= c->o.threshold || rej || lm >= 0)) continue;
      /* "go" in "suggest to go": the match of "to" rewrites it ("going") */
      if (!rej && w > c->sents[s].w0 && c->lm_kind[w - 1] == EL__NGRAM_JOIN) continue;
      if (add_flag(c, w, c->word_p[w], rej != 0, rej == 2, err)) return err->code;
      el__flag *f = &c->flags[c->n_flags - 1];
      if (!rej && lm >= 0) { /* a misspelling's corrections are the dictionary's */
        f->ngram_kind = lm;
        memcpy(f->ngram_alt, c->lm_alt[w], EL__LWORD_MAX);
      }
    }
    at += (size_t)c->seqs.len[s];
  }
  return 0;
}
