/* Extractive question answering around the engine's start/end logits:
 * windowing a long context and decoding answer spans. Shared by the server's
 * /qa route and the trainer's SQuAD evaluation, so both see the same spans.
 *
 * Windows follow BERT/ELECTRA run_squad: the question is cut to
 * max_query_len pieces; the context is covered by windows
 * [CLS] question [SEP] context[first .. first+len) [SEP] of at most
 * max_seq_len tokens whose starts are doc_stride context pieces apart (the
 * step between windows, not their overlap); the last window ends at the end of
 * the context. A context piece that appears in several windows is a
 * candidate answer start only in the window where it has the most context on
 * both sides (the "max context" rule), so a span is never reported twice.
 *
 * Scores (el_qa_params.score):
 *  EL_QA_SCORE_LOGIT: start_logit + end_logit, the quantity BERT and ELECTRA
 *    rank spans by across windows; the null score is start+end at [CLS].
 *  EL_QA_SCORE_PROB: per window, softmax of the start logits and of the end
 *    logits over the window's context pieces (plus [CLS] when include_null),
 *    span score = p_start * p_end, in [0, 1]; the Hugging Face
 *    question-answering pipeline reports this.
 * Whatever the mode, spans are ranked by their score, and el_qa_null holds both
 * forms of the null score (the minimum over windows, as in run_squad).
 *
 * Impossible answers: a model fine-tuned with them stores a threshold
 * ("electra_null_threshold", el_config.null_threshold) in logit units: the
 * question is unanswerable when null.logit - best.logit > threshold (BERT's
 * null_score_diff_threshold). el_qa_is_impossible applies that rule. */
#ifndef ELECTRA_QA_H
#define ELECTRA_QA_H

#include "error.h"
#include "tokenizer.h"

#ifdef __cplusplus
extern "C" {
#endif
/* the public API: default visibility (engine/ and nn/ are built hidden) */
#pragma GCC visibility push(default)

typedef enum el_qa_score { EL_QA_SCORE_LOGIT = 0, EL_QA_SCORE_PROB = 1 } el_qa_score;

typedef struct el_qa_params {
  int max_seq_len;    /* tokens per window including [CLS] and two [SEP]; 384 */
  int doc_stride;     /* context pieces between window starts; 128 */
  int max_query_len;  /* question pieces kept; 64 */
  int max_answer_len; /* pieces per answer span; 30 */
  el_qa_score score;  /* EL_QA_SCORE_LOGIT */
  int include_null;   /* PROB mode: [CLS] takes part in the softmax; 0 */
} el_qa_params;

/* The defaults above. */
el_qa_params el_qa_default_params(void);

/* Windows over one (question, context) pair. Zero-initialise, reuse across
 * calls (buffers grow), release with el_qa_windows_free. Window i's tokens are
 * enc[i] (an el_encoding built by el_encode: segment 0 = question, 1 =
 * context); its context pieces are context->tok[ctx_first[i] ..
 * ctx_first[i] + ctx_len[i]) and start at position ctx_pos[i] in enc[i]. */
typedef struct el_qa_windows {
  int n, cap;
  el_encoding *enc;
  int *ctx_first, *ctx_len, *ctx_pos;
  int total_tokens; /* sum of enc[i].n: the length of packed logits */
  int q_len;        /* question pieces kept */
  /* the context's words (copies of its el_tokens word_start/word_end): a
   * span's offsets are widened to the whole words of its first and last
   * pieces */
  int n_words, words_cap;
  int *word_start, *word_end;
} el_qa_windows;

/* Builds the windows. question and context are el_tokenize results for the
 * texts; context may have n = 0 (one window with no context piece).
 * EL_EINVAL for bad parameters (max_seq_len too small for the question plus
 * one context piece, doc_stride < 1, max_query_len < 1, ...), naming the
 * field. The windows borrow nothing: they stay valid after the inputs go. */
int el_qa_windows_build(const el_tokenizer *tok, const el_tokens *question,
                        const el_tokens *context, const el_qa_params *p, el_qa_windows *out,
                        el_error *err);
void el_qa_windows_free(el_qa_windows *w);

/* The number of windows el_qa_windows_build makes for a question and a
 * context of these many pieces, without building them (a server caps a
 * request's work with it before allocating); -1 when p would be refused. */
int el_qa_window_count(int question_pieces, int context_pieces, const el_qa_params *p);

/* One answer span. Offsets are code-point offsets into the context text
 * (end exclusive) on word boundaries: start is the start of the word of the
 * first piece, end the end of the word of the last piece (BasicTokenizer
 * words: punctuation is a word of its own), as the Hugging Face
 * question-answering pipeline aligns answers to words; so a span never cuts
 * a word ("Unaff" of "Unaffable" is reported as "Unaffable"). Spans that
 * widen to the same text are reported once, with the best score. */
typedef struct el_qa_span {
  int start, end;           /* code points into the context */
  int first_tok, last_tok;  /* indices into the context's el_tokens, inclusive */
  int window;               /* window the span was read from */
  float start_logit, end_logit;
  float score;              /* per el_qa_params.score */
} el_qa_span;

typedef struct el_qa_null {
  float logit; /* min over windows of start[0] + end[0] ([CLS]) */
  float prob;  /* min over windows of p_start[CLS] * p_end[CLS] (include_null
                  softmax); 0 unless PROB mode with include_null */
} el_qa_null;

/* Decodes the best spans. start_logits/end_logits are packed in window order
 * (window i's enc[i].n values follow window i-1's: total_tokens floats), as
 * el_run_qa writes them for a batch of the windows. Candidates: start <= end,
 * both context pieces of the same window, end - start + 1 <= max_answer_len,
 * the start in its max-context window. Writes up to max_spans spans (distinct
 * offsets), best first, into spans (caller-owned) and their count into *n_spans (0 when the
 * context is empty); null (if non-NULL) gets the null scores. Non-finite
 * logits are EL_EVALUE. */
int el_qa_decode(const el_qa_windows *w, const float *start_logits, const float *end_logits,
                 const el_qa_params *p, el_qa_span *spans, int max_spans, int *n_spans,
                 el_qa_null *null, el_error *err);

/* 1 when the null answer wins: no span, or null_logit - best_logit > threshold. */
int el_qa_is_impossible(const el_qa_null *null, const el_qa_span *best, int n_spans,
                        float threshold);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
