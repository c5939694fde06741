/* /score's words and suggestions (srv_score.h). */
#include "srv_score.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "srv_dict.h"

int el__score_text_words(el__score_text *st, const char *text, size_t len, const el_tokens *t,
                         el_error *err) {
  st->text = text;
  st->len = len;
  return el__text_words_group(text, len, t, &st->words, err);
}

void el__score_text_check(void *arg) {
  el__score_text *st = arg;
  el_error er = {0};
  if (el__check_text(st->checker, st->text, st->len, EL__DICT_EN, &st->matches, &er)) {
    st->failed = 1;
    snprintf(st->errmsg, sizeof st->errmsg, "check: %s", er.msg);
  }
}

/* The first match on word w: overlapping it, or an insertion point at its
 * start (a word missing before it); NULL if none. */
static const el__match *match_on(const el__matches *ms, const el__word *w) {
  for (int i = 0; i < ms->n; i++) {
    const el__match *m = &ms->m[i];
    if (m->length ? m->offset < w->end && m->offset + m->length > w->start
                  : m->offset == w->start)
      return m;
  }
  return NULL;
}

/* "suggestions" and "type" of a flagged word. A suggestion replaces the
 * word's text: a match inside the word (or an insertion before it) is
 * spliced into it ("apple" -> "an apple"); a match reaching past the word
 * (two words swapped) keeps its type but offers no word-sized suggestion. */
static void put_suggestions(el__sb *b, const el__score_text *st, const el__word *w) {
  const el__match *m = match_on(&st->matches, w);
  el__sb_puts(b, ",\"suggestions\":[");
  int inside = m && m->offset >= w->start && m->offset + m->length <= w->end;
  for (int i = 0; inside && i < m->n_repl; i++) {
    el__sb word = {0};
    el__sb_put(&word, st->text + w->start, m->offset - w->start);
    el__sb_puts(&word, m->repl[i]);
    el__sb_put(&word, st->text + m->offset + m->length, w->end - (m->offset + m->length));
    if (i) el__sb_puts(b, ",");
    el__sb_json_str(b, word.data ? word.data : "", word.len);
    b->oom |= word.oom;
    el__sb_free(&word);
  }
  el__sb_puts(b, "],\"type\":");
  const char *type = m ? el__etype_name(m->type) : NULL;
  if (type)
    el__sb_json_str(b, type, strlen(type));
  else
    el__sb_puts(b, "null");
}

/* hunspell's verdict on each word (srv_dict.h), or NULL when out of memory:
 * the model alone then. */
static unsigned char *dict_verdicts(el__dict *d, const el__score_text *st) {
  int n = st->words.n;
  size_t *start = malloc(((size_t)n + 1) * sizeof *start), *end = malloc(((size_t)n + 1) * sizeof *end);
  unsigned char *out = NULL;
  if (start && end) {
    for (int i = 0; i < n; i++) start[i] = st->words.w[i].start, end[i] = st->words.w[i].end;
    out = el__srv_dict_spans(d, st->text, st->len, start, end, n);
  }
  free(start);
  free(end);
  return out;
}

/* The n-gram model's verdicts (lang/ngram.h) joined to hunspell's: a word
 * with a far likelier alternative reads as one the dictionary rejects. On
 * failure (out of memory) hunspell's stay alone. */
static void ngram_verdicts(const el__score_view *v, const el__score_text *st, unsigned char *verdict) {
  int n = st->words.n;
  char **w = calloc((size_t)n + 1, sizeof *w);
  unsigned char *lm = malloc((size_t)n + 1);
  int ok = w && lm;
  for (int i = 0; ok && i < n; i++)
    ok = (w[i] = strndup(st->text + st->words.w[i].start, st->words.w[i].end - st->words.w[i].start)) != NULL;
  el_error er = {0};
  if (ok && !el__ngram_read_words(v->ngram, v->learner, (const char *const *)w, n, lm, &er))
    for (int i = 0; i < n; i++)
      if (lm[i] && verdict[i] == EL_DICT_NONE) verdict[i] = EL_DICT_REJECTS;
  for (int i = 0; w && i < n; i++) free(w[i]);
  free(w);
  free(lm);
}

el__http_err el__score_text_render(el__sb *b, const el__score_text *st, const el__score_view *v,
                                   el__fail *f) {
  if (st->failed) return el__failf(f, EL_HERR_INTERNAL, "%s", st->errmsg);
  const el_encoding *en = v->enc;
  /* the text's pieces sit in order after [CLS]; truncation cut the last ones */
  int k0 = 0, kept = 0;
  while (k0 < en->n && en->segment[k0] != 0) k0++;
  while (k0 + kept < en->n && en->segment[k0 + kept] == 0) kept++;
  unsigned char *verdict = v->dict ? dict_verdicts(v->dict, st) : NULL;
  if (verdict && v->ngram) ngram_verdicts(v, st, verdict);
  for (int i = 0; i < st->words.n; i++) {
    const el__word *w = &st->words.w[i];
    if (w->piece >= kept) break;
    int n = w->piece + w->n_pieces <= kept ? w->n_pieces : kept - w->piece;
    float p = el_word_prob(v->rule, v->prob + k0 + w->piece, n);
    if (verdict)
      p = el_word_prob_dict(p, (el_dict_verdict)verdict[i], v->dict_weight, v->dict_name_weight);
    el__sb_puts(b, i ? ",{\"word\":" : "{\"word\":");
    el__sb_json_str(b, st->text + w->start, w->end - w->start);
    el__sb_printf(b, ",\"start\":%d,\"end\":%d,\"prob\":", w->cp_start, w->cp_end);
    el__sb_json_num(b, p);
    el__sb_printf(b, ",\"flagged\":%s", p >= v->threshold ? "true" : "false");
    if (st->checker && p >= v->threshold) put_suggestions(b, st, w);
    el__sb_puts(b, "}");
  }
  free(verdict);
  return EL_HERR_NONE;
}

void el__score_text_free(el__score_text *st) {
  el__text_words_free(&st->words);
  el__matches_free(&st->matches);
}
