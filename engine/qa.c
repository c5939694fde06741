/* QA windowing and span decoding (include/electra/qa.h). */
#include "electra/qa.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

el_qa_params el_qa_default_params(void) {
  el_qa_params p;
  p.max_seq_len = 384;
  p.doc_stride = 128;
  p.max_query_len = 64;
  p.max_answer_len = 30;
  p.score = EL_QA_SCORE_LOGIT;
  p.include_null = 0;
  return p;
}

void el_qa_windows_free(el_qa_windows *w) {
  if (!w) return;
  for (int i = 0; i < w->cap; i++) el_encoding_free(&w->enc[i]);
  free(w->enc);
  free(w->ctx_first);
  free(w->ctx_len);
  free(w->ctx_pos);
  free(w->word_start);
  free(w->word_end);
  memset(w, 0, sizeof *w);
}

/* Makes room for n windows; new encodings start zeroed as el_encode wants.
 * Each array is replaced as soon as it grows, so a failure leaves a
 * consistent struct (cap only moves once all arrays have the room). */
static int grow_ints(int **a, int cap) {
  int *p = realloc(*a, (size_t)cap * sizeof *p);
  if (!p) return -1;
  *a = p;
  return 0;
}

static int windows_reserve(el_qa_windows *w, int n, el_error *err) {
  if (n <= w->cap) return EL_OK;
  int cap = w->cap ? w->cap : 4;
  while (cap < n) cap *= 2;
  el_encoding *enc = realloc(w->enc, (size_t)cap * sizeof *enc);
  if (!enc) return el_error_set(err, EL_ENOMEM, "qa: %d windows", n);
  memset(enc + w->cap, 0, (size_t)(cap - w->cap) * sizeof *enc);
  w->enc = enc;
  if (grow_ints(&w->ctx_first, cap) || grow_ints(&w->ctx_len, cap) ||
      grow_ints(&w->ctx_pos, cap))
    return el_error_set(err, EL_ENOMEM, "qa: %d windows", n);
  w->cap = cap;
  return EL_OK;
}

/* Context pieces per window: what [CLS] question [SEP] ... [SEP] leaves. */
static int context_room(int question_pieces, const el_qa_params *p) {
  int q_len = question_pieces < p->max_query_len ? question_pieces : p->max_query_len;
  return p->max_seq_len - q_len - 3;
}

int el_qa_window_count(int question_pieces, int context_pieces, const el_qa_params *p) {
  if (!p || p->max_query_len < 1 || p->doc_stride < 1 || question_pieces < 0 || context_pieces < 0)
    return -1;
  int room = context_room(question_pieces, p);
  if (room < 1) return -1;
  if (context_pieces <= room) return 1;
  /* windows start at 0, step, 2 step, ... until one reaches the end */
  int step = p->doc_stride < room ? p->doc_stride : room;
  return 1 + (int)(((long)context_pieces - room + step - 1) / step);
}

int el_qa_windows_build(const el_tokenizer *tok, const el_tokens *question,
                        const el_tokens *context, const el_qa_params *p, el_qa_windows *out,
                        el_error *err) {
  if (!tok || !question || !context || !p || !out)
    return el_error_set(err, EL_EINVAL, "qa: NULL argument");
  if (p->max_query_len < 1)
    return el_error_set(err, EL_EINVAL, "qa: max_query_len must be >= 1, got %d",
                        p->max_query_len);
  if (p->doc_stride < 1)
    return el_error_set(err, EL_EINVAL, "qa: doc_stride must be >= 1, got %d", p->doc_stride);
  int q_len = question->n < p->max_query_len ? question->n : p->max_query_len;
  int room = context_room(question->n, p);
  if (room < 1)
    return el_error_set(err, EL_EINVAL,
                        "qa: max_seq_len %d leaves no room for context after %d question "
                        "pieces (needs at least %d)",
                        p->max_seq_len, q_len, q_len + 4);
  el_tokens qv = *question;
  qv.n = q_len;

  out->n = 0;
  out->total_tokens = 0;
  out->q_len = q_len;
  out->n_words = 0;
  int nw = context->word_start && context->word_end && context->n_words > 0 ? context->n_words : 0;
  if (nw > out->words_cap) {
    if (grow_ints(&out->word_start, nw) || grow_ints(&out->word_end, nw))
      return el_error_set(err, EL_ENOMEM, "qa: %d context words", nw);
    out->words_cap = nw;
  }
  if (nw) {
    memcpy(out->word_start, context->word_start, (size_t)nw * sizeof *out->word_start);
    memcpy(out->word_end, context->word_end, (size_t)nw * sizeof *out->word_end);
    out->n_words = nw;
  }
  int start = 0, n_ctx = context->n;
  for (;;) {
    int len = n_ctx - start < room ? n_ctx - start : room;
    int rc = windows_reserve(out, out->n + 1, err);
    if (rc) return rc;
    int i = out->n;
    el_tokens cv = *context;
    cv.tok = context->tok ? context->tok + start : NULL;
    cv.n = len;
    rc = el_encode(tok, &qv, &cv, p->max_seq_len, 0, &out->enc[i], err);
    if (rc) return rc;
    int pos = -1;
    for (int t = 0; t < out->enc[i].n; t++)
      if (out->enc[i].segment[t] == 1) {
        pos = t;
        break;
      }
    out->ctx_first[i] = start;
    out->ctx_len[i] = len;
    out->ctx_pos[i] = pos >= 0 ? pos : q_len + 2;
    out->total_tokens += out->enc[i].n;
    out->n++;
    if (start + len >= n_ctx) break;
    start += len < p->doc_stride ? len : p->doc_stride;
  }
  return EL_OK;
}

/* Context a piece has in a window: min of pieces left and right of it, plus a
 * small bonus for longer windows (run_squad's _check_is_max_context). */
static double piece_context(const el_qa_windows *w, int win, int piece) {
  int left = piece - w->ctx_first[win];
  int right = w->ctx_first[win] + w->ctx_len[win] - 1 - piece;
  return (left < right ? left : right) + 0.01 * w->ctx_len[win];
}

static int is_max_context(const el_qa_windows *w, int win, int piece) {
  double mine = piece_context(w, win, piece);
  for (int k = 0; k < w->n; k++) {
    if (k == win) continue;
    if (piece < w->ctx_first[k] || piece >= w->ctx_first[k] + w->ctx_len[k]) continue;
    double other = piece_context(w, k, piece);
    if (other > mine || (other == mine && k < win)) return 0;
  }
  return 1;
}

/* Inserts s into the sorted best-first list of at most cap entries with
 * distinct offsets: a span with the offsets of a listed one replaces it only
 * when it scores better. (A span dropped off the end scored below every
 * listed one, so the list stays the best distinct spans seen.) */
static void keep_best(el_qa_span *list, int *n, int cap, const el_qa_span *s) {
  if (cap <= 0) return;
  for (int j = 0; j < *n; j++) {
    if (list[j].start != s->start || list[j].end != s->end) continue;
    if (!(s->score > list[j].score)) return;
    memmove(list + j, list + j + 1, (size_t)(*n - j - 1) * sizeof *list);
    (*n)--;
    break;
  }
  if (*n == cap && !(s->score > list[cap - 1].score)) return;
  int i = *n < cap ? (*n)++ : cap - 1;
  while (i > 0 && list[i - 1].score < s->score) {
    list[i] = list[i - 1];
    i--;
  }
  list[i] = *s;
}

/* The start (end = 0) or end (end = 1) offset of the word of the piece at
 * position t of encoding e; the piece's own offset when its word is unknown. */
static int word_edge(const el_qa_windows *w, const el_encoding *e, int t, int end) {
  int wd = e->word ? e->word[t] : -1;
  if (wd < 0 || wd >= w->n_words) return end ? e->end[t] : e->start[t];
  return end ? w->word_end[wd] : w->word_start[wd];
}

/* log-sum-exp of x over the window's context positions and optionally [CLS]. */
static double window_lse(const float *x, int pos, int len, int with_cls) {
  double m = with_cls ? x[0] : -DBL_MAX;
  for (int t = 0; t < len; t++)
    if (x[pos + t] > m) m = x[pos + t];
  if (m == -DBL_MAX) return 0.0;
  double s = with_cls ? exp(x[0] - m) : 0.0;
  for (int t = 0; t < len; t++) s += exp(x[pos + t] - m);
  return m + log(s);
}

int el_qa_decode(const el_qa_windows *w, const float *start_logits, const float *end_logits,
                 const el_qa_params *p, el_qa_span *spans, int max_spans, int *n_spans,
                 el_qa_null *null, el_error *err) {
  if (!w || !p || !n_spans || (max_spans > 0 && !spans))
    return el_error_set(err, EL_EINVAL, "qa: NULL argument");
  if (w->total_tokens > 0 && (!start_logits || !end_logits))
    return el_error_set(err, EL_EINVAL, "qa: NULL logits");
  if (p->max_answer_len < 1)
    return el_error_set(err, EL_EINVAL, "qa: max_answer_len must be >= 1, got %d",
                        p->max_answer_len);
  for (int t = 0; t < w->total_tokens; t++)
    if (!isfinite(start_logits[t]) || !isfinite(end_logits[t]))
      return el_error_set(err, EL_EVALUE, "qa: non-finite logit at packed position %d", t);

  *n_spans = 0;
  double null_logit = DBL_MAX, null_prob = DBL_MAX;
  int prob = p->score == EL_QA_SCORE_PROB;
  int off = 0;
  for (int i = 0; i < w->n; i++) {
    const float *st = start_logits + off, *en = end_logits + off;
    const el_encoding *e = &w->enc[i];
    int pos = w->ctx_pos[i], len = w->ctx_len[i];
    if (pos + len > e->n) len = e->n - pos > 0 ? e->n - pos : 0; /* defensive */
    double nl = (double)st[0] + en[0];
    if (nl < null_logit) null_logit = nl;
    double lse_s = 0, lse_e = 0;
    if (prob) {
      lse_s = window_lse(st, pos, len, p->include_null);
      lse_e = window_lse(en, pos, len, p->include_null);
      if (p->include_null) {
        double np = exp(st[0] - lse_s) * exp(en[0] - lse_e);
        if (np < null_prob) null_prob = np;
      }
    }
    for (int a = 0; a < len; a++) {
      int piece = w->ctx_first[i] + a;
      if (!is_max_context(w, i, piece)) continue;
      int last = a + p->max_answer_len - 1 < len - 1 ? a + p->max_answer_len - 1 : len - 1;
      for (int b = a; b <= last; b++) {
        el_qa_span s;
        s.first_tok = piece;
        s.last_tok = w->ctx_first[i] + b;
        s.window = i;
        s.start_logit = st[pos + a];
        s.end_logit = en[pos + b];
        if (prob)
          s.score = (float)(exp(st[pos + a] - lse_s) * exp(en[pos + b] - lse_e));
        else
          s.score = s.start_logit + s.end_logit;
        s.start = word_edge(w, e, pos + a, 0);
        s.end = word_edge(w, e, pos + b, 1);
        keep_best(spans, n_spans, max_spans, &s);
      }
    }
    off += e->n;
  }
  if (null) {
    null->logit = w->n ? (float)null_logit : 0.0f;
    null->prob = (prob && p->include_null && w->n) ? (float)null_prob : 0.0f;
  }
  return EL_OK;
}

int el_qa_is_impossible(const el_qa_null *null, const el_qa_span *best, int n_spans,
                        float threshold) {
  if (n_spans < 1 || !best) return 1;
  if (!null) return 0;
  return (double)null->logit - ((double)best->start_logit + best->end_logit) > threshold;
}
