/* QA windowing and span decoding (include/electra/qa.h) on a tiny vocabulary
 * with hand-set logits; expected values are worked out in the comments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "electra/electra.h"
#include "electra/qa.h"

static el_tokenizer *tok;

static void load_vocab(void) {
  char path[] = "/tmp/el_test_qa_vocab_XXXXXX";
  int fd = mkstemp(path);
  FILE *f = fdopen(fd, "w");
  fputs("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n", f);
  for (char c = 'a'; c <= 'z'; c++) fprintf(f, "%c\n", c);
  fclose(f);
  el_error err = {0};
  int rc = el_tokenizer_load(path, 1, &tok, &err);
  unlink(path);
  CHECK(rc == 0, "vocab loads (%s)", err.msg);
}

static el_tokens tokens_of(const char *text) {
  el_tokens t = {0};
  el_error err = {0};
  el_tokenize(tok, text, strlen(text), &t, &err);
  return t;
}

/* 20 context pieces "a".."t" at code points 0, 2, 4, ...; question "x y z". */
static const char *CTX = "a b c d e f g h i j k l m n o p q r s t";

static void test_windows(void) {
  el_tokens q = tokens_of("x y z"), c = tokens_of(CTX);
  CHECK(q.n == 3 && c.n == 20, "question 3 pieces, context 20 (%d, %d)", q.n, c.n);
  el_qa_params p = el_qa_default_params();
  p.max_seq_len = 12; /* room for 12 - 3 - 3 = 6 context pieces */
  p.doc_stride = 3;
  el_qa_windows w = {0};
  el_error err = {0};
  int rc = el_qa_windows_build(tok, &q, &c, &p, &w, &err);
  CHECK(rc == 0, "windows build (%s)", err.msg);
  /* starts 0, 3, 6, 9, 12 (len 6 each), then 15 (len 5) reaches the end */
  int exp_first[] = {0, 3, 6, 9, 12, 15}, exp_len[] = {6, 6, 6, 6, 6, 5};
  int good = w.n == 6;
  for (int i = 0; good && i < 6; i++)
    good = w.ctx_first[i] == exp_first[i] && w.ctx_len[i] == exp_len[i] && w.ctx_pos[i] == 5 &&
           w.enc[i].n == 5 + exp_len[i] + 1 && w.enc[i].ids[0] == 2 && w.enc[i].ids[4] == 3 &&
           w.enc[i].ids[w.enc[i].n - 1] == 3 && w.enc[i].type_ids[5] == 1 &&
           w.enc[i].type_ids[4] == 0;
  CHECK(good, "6 windows: starts 0,3,...,15, [CLS] q [SEP] ctx [SEP], types 0/1 (n=%d)", w.n);
  int total = 0;
  for (int i = 0; i < w.n; i++) total += w.enc[i].n;
  CHECK(w.total_tokens == total, "total_tokens = sum of window lengths (%d)", total);
  /* the window's context offsets are the context's own */
  CHECK(w.enc[1].start[5] == c.tok[3].start && w.enc[1].end[6] == c.tok[4].end,
        "window offsets point into the context");

  /* max_query_len cuts the question */
  p.max_query_len = 2;
  rc = el_qa_windows_build(tok, &q, &c, &p, &w, &err);
  CHECK(rc == 0 && w.q_len == 2 && w.ctx_pos[0] == 4 && w.ctx_len[0] == 7,
        "max_query_len 2: question cut, room grows to 7");
  /* a window too small for anything is refused, naming the field */
  p.max_query_len = 64;
  p.max_seq_len = 6;
  rc = el_qa_windows_build(tok, &q, &c, &p, &w, &err);
  CHECK(rc == EL_EINVAL && strstr(err.msg, "max_seq_len"), "max_seq_len 6 refused: %s", err.msg);
  p.max_seq_len = 12;
  p.doc_stride = 0;
  rc = el_qa_windows_build(tok, &q, &c, &p, &w, &err);
  CHECK(rc == EL_EINVAL && strstr(err.msg, "doc_stride"), "doc_stride 0 refused: %s", err.msg);
  el_qa_windows_free(&w);
  el_tokens_free(&q);
  el_tokens_free(&c);
}

/* el_qa_window_count predicts el_qa_windows_build for every small shape. */
static void test_window_count(void) {
  el_tokens q = tokens_of("x y z w v"), c = tokens_of(CTX);
  el_qa_params p = el_qa_default_params();
  el_qa_windows w = {0};
  el_error err = {0};
  int cases = 0, wrong = 0;
  const int nq = q.n, nc = c.n;
  for (int seq = 6; seq <= 14; seq++)
    for (int stride = 1; stride <= 8; stride++)
      for (int mq = 1; mq <= 6; mq++)
        for (q.n = 0; q.n <= nq; q.n++)
          for (c.n = 0; c.n <= nc; c.n++) {
            p.max_seq_len = seq;
            p.doc_stride = stride;
            p.max_query_len = mq;
            int predicted = el_qa_window_count(q.n, c.n, &p);
            int rc = el_qa_windows_build(tok, &q, &c, &p, &w, &err);
            int built = rc == 0 ? w.n : -1;
            if (predicted != built && !wrong++)
              printf("#   seq %d stride %d max_query %d q %d ctx %d: predicted %d, built %d\n",
                     seq, stride, mq, q.n, c.n, predicted, built);
            cases++;
          }
  q.n = nq;
  c.n = nc;
  CHECK(wrong == 0, "window count equals the built windows in %d shapes (%d wrong)", cases, wrong);
  p = el_qa_default_params();
  CHECK(el_qa_window_count(10, 1000000, &p) == 1 + (1000000 - 371 + 127) / 128 &&
            el_qa_window_count(1, 2, NULL) == -1 && el_qa_window_count(-1, 2, &p) == -1,
        "a million-piece context: 7,811 windows at stride 128; bad arguments -1");
  el_qa_windows_free(&w);
  el_tokens_free(&q);
  el_tokens_free(&c);
}

/* Logits all -5 except the ones set; returns packed arrays. */
static void fill(float *x, int n, float v) {
  for (int i = 0; i < n; i++) x[i] = v;
}

static void test_decode(void) {
  el_tokens q = tokens_of("x y z"), c = tokens_of(CTX);
  el_qa_params p = el_qa_default_params();
  p.max_seq_len = 12;
  p.doc_stride = 3;
  el_qa_windows w = {0};
  el_error err = {0};
  el_qa_windows_build(tok, &q, &c, &p, &w, &err);
  int T = w.total_tokens;
  float *st = malloc(sizeof(float) * T), *en = malloc(sizeof(float) * T);
  fill(st, T, -5);
  fill(en, T, -5);
  /* offsets of window i in the packed arrays */
  int off[6] = {0};
  for (int i = 1; i < w.n; i++) off[i] = off[i - 1] + w.enc[i - 1].n;
  /* Context piece 8 ("i") is in windows 1 (pos 5..10 = pieces 3..8), 2 (6..11)
   * and 3 (9..14)? no: window 3 starts at 9. Windows holding piece 8: 1 (last
   * place, context 0 on the right) and 2 (index 2: min(2, 3) = 2). Its max
   * context window is 2. Put a strong start there in both windows and the end
   * on piece 10 ("k") in window 2: span "i j k" = code points 16..21. */
  st[off[1] + 5 + 5] = 4; /* window 1, piece 8 */
  st[off[2] + 5 + 2] = 4; /* window 2, piece 8 */
  en[off[2] + 5 + 4] = 3; /* window 2, piece 10 */
  /* [CLS] logits: 2 + 2 in every window but window 2, where -1 + -1 */
  for (int i = 0; i < w.n; i++) st[off[i]] = 2, en[off[i]] = 2;
  st[off[2]] = -1, en[off[2]] = -1;
  el_qa_span sp[5];
  int n = 0;
  el_qa_null null;
  int rc = el_qa_decode(&w, st, en, &p, sp, 5, &n, &null, &err);
  CHECK(rc == 0 && n == 5, "decode: 5 spans (%d, %s)", n, err.msg);
  CHECK(sp[0].first_tok == 8 && sp[0].last_tok == 10 && sp[0].window == 2 && sp[0].start == 16 &&
            sp[0].end == 21,
        "best span: pieces 8..10 from window 2 (its max-context window), code points 16..21 "
        "(got %d..%d w%d, %d..%d)",
        sp[0].first_tok, sp[0].last_tok, sp[0].window, sp[0].start, sp[0].end);
  CHECK_NEAR(sp[0].score, 7.0, 1e-6, 0, "logit score = start 4 + end 3");
  int dup = 0;
  for (int i = 1; i < n; i++)
    if (sp[i].first_tok == sp[0].first_tok && sp[i].last_tok == sp[0].last_tok) dup = 1;
  CHECK(!dup, "the same span is not reported twice from overlapping windows");
  /* next best: start 4 at piece 8 with any end -5 -> -1; spans sorted */
  int sorted = 1;
  for (int i = 1; i < n; i++) sorted &= sp[i - 1].score >= sp[i].score;
  CHECK(sorted && fabsf(sp[1].score - (-1.0f)) < 1e-6, "spans sorted best first (2nd %.3f)",
        sp[1].score);
  CHECK_NEAR(null.logit, -2.0, 1e-6, 0, "null logit = min over windows of [CLS] start+end");
  /* threshold rule: null - best = -2 - 7 = -9 */
  CHECK(el_qa_is_impossible(&null, sp, n, -10.0f), "impossible when null - best (-9) > threshold -10");
  CHECK(!el_qa_is_impossible(&null, sp, n, -8.0f), "answerable when -9 <= threshold -8");
  CHECK(el_qa_is_impossible(&null, sp, 0, 0.0f), "no span: impossible");

  /* max_answer_len 2 forbids the 3-piece span */
  p.max_answer_len = 2;
  el_qa_decode(&w, st, en, &p, sp, 1, &n, NULL, &err);
  CHECK(n == 1 && !(sp[0].first_tok == 8 && sp[0].last_tok == 10) &&
            sp[0].last_tok - sp[0].first_tok + 1 <= 2,
        "max_answer_len 2: best span has <= 2 pieces (%d..%d)", sp[0].first_tok, sp[0].last_tok);
  p.max_answer_len = 30;

  /* PROB mode: window 2's softmax over its 6 context pieces */
  p.score = EL_QA_SCORE_PROB;
  el_qa_decode(&w, st, en, &p, sp, 1, &n, &null, &err);
  double zs = exp(4.0) + 5 * exp(-5.0), ze = exp(3.0) + 5 * exp(-5.0);
  CHECK_NEAR(sp[0].score, exp(4.0) / zs * exp(3.0) / ze, 1e-6, 1e-5,
             "prob score = softmax start * softmax end over the window's context");
  CHECK(null.prob == 0, "null prob 0 without include_null");
  p.include_null = 1;
  el_qa_decode(&w, st, en, &p, sp, 1, &n, &null, &err);
  zs = exp(4.0) + 5 * exp(-5.0) + exp(-1.0);
  ze = exp(3.0) + 5 * exp(-5.0) + exp(-1.0);
  CHECK_NEAR(sp[0].score, exp(4.0) / zs * exp(3.0) / ze, 1e-6, 1e-5,
             "include_null: [CLS] joins the softmax");
  /* elsewhere [CLS] (2) dominates the -5s (window 1's start 4 leaves it
   * p ~ 0.12); window 2 has [CLS] -1/-1 against 4 and 3: the minimum. */
  double w2 = exp(-1.0) / zs * exp(-1.0) / ze;
  CHECK_NEAR(null.prob, w2, 1e-7, 1e-4, "null prob = min over windows of p_start*p_end at [CLS]");

  st[3] = NAN;
  rc = el_qa_decode(&w, st, en, &p, sp, 1, &n, &null, &err);
  CHECK(rc == EL_EVALUE, "NaN logit refused: %s", err.msg);
  free(st);
  free(en);
  el_qa_windows_free(&w);
  el_tokens_free(&q);
  el_tokens_free(&c);
}

static void test_empty_context(void) {
  el_tokens q = tokens_of("x"), c = tokens_of("   ");
  el_qa_params p = el_qa_default_params();
  el_qa_windows w = {0};
  el_error err = {0};
  int rc = el_qa_windows_build(tok, &q, &c, &p, &w, &err);
  CHECK(rc == 0 && w.n == 1 && w.ctx_len[0] == 0, "empty context: one window, no piece");
  float st[8] = {0}, en[8] = {0};
  el_qa_span sp[2];
  int n = -1;
  el_qa_null null;
  rc = el_qa_decode(&w, st, en, &p, sp, 2, &n, &null, &err);
  CHECK(rc == 0 && n == 0 && el_qa_is_impossible(&null, sp, n, 0), "no span, impossible");
  el_qa_windows_free(&w);
  el_tokens_free(&q);
  el_tokens_free(&c);
}

/* Answers on word boundaries: a span of pieces inside "un ##aff ##able" or
 * ending at "18" of "18 ##15" is widened to the whole words ("Unaffable",
 * "arrived in 1815"), and spans that widen to the same text are one answer. */
static void test_word_boundaries(void) {
  char path[] = "/tmp/el_test_qa_vocab2_XXXXXX";
  int fd = mkstemp(path);
  FILE *f = fdopen(fd, "w");
  fputs("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nun\n##aff\n##able\narrived\nin\n18\n##15\n!\n"
        "who\n?\n",
        f);
  fclose(f);
  el_tokenizer *wt = NULL;
  el_error err = {0};
  int rc = el_tokenizer_load(path, 1, &wt, &err);
  unlink(path);
  CHECK(rc == 0, "word vocab loads (%s)", err.msg);
  if (rc) return;
  /* "Unaffable arrived in 1815!": pieces un ##aff ##able arrived in 18 ##15 !
   * at code points 0-2 2-5 5-9 10-17 18-20 21-23 23-25 25-26 */
  const char *ctx = "Unaffable arrived in 1815!", *qs = "who?";
  el_tokens q = {0}, c = {0};
  el_tokenize(wt, qs, strlen(qs), &q, &err);
  el_tokenize(wt, ctx, strlen(ctx), &c, &err);
  CHECK(c.n == 8 && c.tok[1].start == 2 && c.tok[1].end == 5 && c.tok[5].end == 23,
        "context: 8 pieces, ##aff at 2..5, 18 ends at 23 (%d pieces)", c.n);
  el_qa_params p = el_qa_default_params();
  el_qa_windows w = {0};
  rc = el_qa_windows_build(wt, &q, &c, &p, &w, &err);
  CHECK(rc == 0 && w.n == 1 && w.n_words == 5, "one window, 5 context words (%d)", w.n_words);
  int T = w.total_tokens, pos = w.ctx_pos[0];
  float *st = malloc(sizeof(float) * T), *en = malloc(sizeof(float) * T);
  fill(st, T, -5);
  fill(en, T, -5);
  /* best: "un ##aff" (pieces 0..1) -> "Unaffable" 0..9 */
  st[pos + 0] = 5, en[pos + 1] = 5;
  el_qa_span sp[8];
  int n = 0;
  rc = el_qa_decode(&w, st, en, &p, sp, 8, &n, NULL, &err);
  CHECK(rc == 0 && n >= 1 && sp[0].start == 0 && sp[0].end == 9 && sp[0].first_tok == 0 &&
            sp[0].last_tok == 1,
        "\"Unaff\" widens to \"Unaffable\" (got %d..%d), pieces kept 0..1", sp[0].start,
        sp[0].end);
  int distinct = 1, words = 1;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) distinct &= sp[i].start != sp[j].start || sp[i].end != sp[j].end;
    int s0 = sp[i].start, e0 = sp[i].end;
    words &= (s0 == 0 || s0 == 10 || s0 == 18 || s0 == 21 || s0 == 25) &&
             (e0 == 9 || e0 == 17 || e0 == 20 || e0 == 25 || e0 == 26);
  }
  CHECK(distinct && words, "%d spans: distinct offsets, all on word edges", n);
  /* "arrived in 18" (pieces 3..5) -> "arrived in 1815" 10..25 */
  fill(st, T, -5);
  fill(en, T, -5);
  st[pos + 3] = 5, en[pos + 5] = 5;
  rc = el_qa_decode(&w, st, en, &p, sp, 1, &n, NULL, &err);
  CHECK(rc == 0 && n == 1 && sp[0].start == 10 && sp[0].end == 25,
        "\"arrived in 18\" widens to \"arrived in 1815\" (got %d..%d)", sp[0].start, sp[0].end);
  /* the three spans inside "Unaffable" (and the ones it contains) are one
   * answer: top 2 are "Unaffable" and the next distinct text */
  fill(st, T, -5);
  fill(en, T, -5);
  st[pos + 0] = 4, st[pos + 1] = 3, en[pos + 1] = 4, en[pos + 2] = 3, st[pos + 3] = 1,
  en[pos + 3] = 1;
  rc = el_qa_decode(&w, st, en, &p, sp, 2, &n, NULL, &err);
  CHECK(rc == 0 && n == 2 && sp[0].start == 0 && sp[0].end == 9 && fabsf(sp[0].score - 8) < 1e-6 &&
            !(sp[1].start == 0 && sp[1].end == 9),
        "top 2: \"Unaffable\" once (best score 8), then another text (%d..%d)", sp[1].start,
        sp[1].end);
  free(st);
  free(en);
  el_qa_windows_free(&w);
  el_tokens_free(&q);
  el_tokens_free(&c);
  el_tokenizer_free(wt);
}

int main(void) {
  load_vocab();
  if (!tok) return el_test_done();
  test_windows();
  test_window_count();
  test_decode();
  test_empty_context();
  test_word_boundaries();
  el_tokenizer_free(tok);
  return el_test_done();
}
