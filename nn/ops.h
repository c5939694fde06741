/* Internal: every op of the encoder and heads, forward and backward side by
 * side, plus a naive reference of each used by the tests.
 *
 * Conventions (as in llm.c): outputs first, shapes last; row-major; dense
 * weights in HF layout [out, in]. Backward functions ACCUMULATE (+=) into
 * every gradient they write, input gradients included; callers zero first. */
#ifndef EL_OPS_H
#define EL_OPS_H

#include <stddef.h>
#include <stdint.h>

/* ---- dense: out[N,Cout] = in[N,Cin] . W[Cout,Cin]^T + b[Cout] (b may be NULL) ---- */
void el__dense_forward(float *out, const float *in, const float *w, const float *b, int N, int Cin,
                      int Cout);
void el__dense_forward_naive(float *out, const float *in, const float *w, const float *b, int N,
                            int Cin, int Cout);
/* din [N,Cin] (may be NULL), dw [Cout,Cin], db [Cout] (may be NULL) */
void el__dense_backward(float *din, float *dw, float *db, const float *dout, const float *in,
                       const float *w, int N, int Cin, int Cout);
void el__dense_backward_naive(float *din, float *dw, float *db, const float *dout,
                             const float *in, const float *w, int N, int Cin, int Cout);

/* ---- LayerNorm over the last dim C: out = (x - mean) * rstd * g + b ----
 * mean/rstd [N] are saved for backward (may be NULL for inference). */
void el__layernorm_forward(float *out, float *mean, float *rstd, const float *in, const float *g,
                          const float *b, int N, int C, float eps);
void el__layernorm_forward_naive(float *out, float *mean, float *rstd, const float *in,
                                const float *g, const float *b, int N, int C, float eps);
void el__layernorm_backward(float *din, float *dg, float *db, const float *dout, const float *in,
                           const float *mean, const float *rstd, const float *g, int N, int C);
void el__layernorm_backward_naive(float *din, float *dg, float *db, const float *dout,
                                 const float *in, const float *mean, const float *rstd,
                                 const float *g, int N, int C);

/* ---- exact erf GELU: x * 0.5 * (1 + erf(x / sqrt 2)) ---- */
void el__gelu_forward(float *out, const float *in, size_t n);
void el__gelu_forward_naive(float *out, const float *in, size_t n);
void el__gelu_backward(float *din, const float *in, const float *dout, size_t n);
void el__gelu_backward_naive(float *din, const float *in, const float *dout, size_t n);
/* out = gelu(in) and grad = gelu'(in), for a backward that recomputes the
 * activation: din = dout * grad then replaces el__gelu_backward. Its naive
 * references are the two above. */
void el__gelu_forward_grad(float *out, float *grad, const float *in, size_t n);

/* ---- embeddings over packed sequences ----
 * out[T,E] = word[ids[t]] + pos[p(t)] + type[type_ids[t]], where p(t) restarts
 * at 0 for each sequence. type_ids may be NULL (all 0); pos (dpos) NULL for a
 * model with relative positions, which adds none. */
void el__embed_forward(float *out, const int *ids, const int *type_ids, const int *seq_len,
                      int n_seqs, const float *word, const float *pos, const float *type, int E);
void el__embed_backward(float *dword, float *dpos, float *dtype, const float *dout,
                       const int *ids, const int *type_ids, const int *seq_len, int n_seqs,
                       int E);

/* ---- relative-key position scores (op_relpos.c) ----
 * dist: the layer's distance embedding [2 max_pos - 1, dh]; ddist its gradient
 * (backward only). A NULL el__relpos everywhere below means absolute positions. */
typedef struct el__relpos {
  const float *dist;
  float *ddist;
  int max_pos;
} el__relpos;
/* S[i][j] (rows i of [i0, i0+n), ldS apart, L keys) += scale q_i.D[i-j+P-1]; q
 * points at row i0 (ldq apart); G: n (n + L - 1) floats of scratch. */
void el__relpos_scores(float *S, int ldS, const float *q, int ldq, int i0, int n, int L, int dh,
                       const el__relpos *rel, float scale, float *G);
/* Its second half, for G computed elsewhere (the engine's packed product):
 * S[i][j] += G[i][g0 + i - j + L - 1], rows of G ldG apart, where column g0
 * of G holds the distance of query row i0 to key L - 1. */
void el__relpos_gather(float *S, int ldS, const float *G, int ldG, int g0, int n, int L);
/* From dS [L,L] (the gradient of the scaled scores of one sequence and head):
 * dq += scale dG Dsub, and dpart [2L-1, dh] = scale dG^T q, the gradient of
 * D's rows max_pos - L ... max_pos + L - 2 (el__relpos_accumulate adds it to
 * ddist). dG: L (2L - 1) floats of scratch. */
void el__relpos_backward(float *dq, int ldq, float *dpart, const float *dS, const float *q,
                         int L, int dh, const el__relpos *rel, float scale, float *dG);
void el__relpos_accumulate(const el__relpos *rel, const float *dpart, int L, int dh);
/* The naive references: the unscaled term of (i, j), and its gradient with
 * ds = dLoss/d(unscaled score) added to dq_i and ddist. */
double el__relpos_term_naive(const el__relpos *rel, const float *qi, int i, int j, int dh);
void el__relpos_grad_naive(const el__relpos *rel, float *dqi, const float *qi, int i, int j,
                           int dh, double ds);

/* ---- multi-head self-attention over packed sequences ----
 * q,k,v,ctx [T,H] with nh heads of H/nh; every token attends to all tokens of
 * its own sequence (packing replaces the padding mask).
 * probs: softmax(q.k^T/sqrt(dh)) saved for backward, laid out per sequence s,
 *        per head h, as [len_s, len_s] blocks in order; size el__attention_probs_size.
 *        May be NULL at inference (scratch is used instead).
 * drop: NULL, or an array shaped like probs holding 0 or 1/(1-p): attention
 *        dropout applied to probs before multiplying by v.
 * rel: NULL, or relative-key positions (their gradient is added to rel->ddist).
 * scratch: at least el__attention_scratch_size(max length, rel != NULL) floats.
 * Forward and backward return 0, or -1 when their small bookkeeping allocation
 * fails (outputs then unwritten). */
size_t el__attention_probs_size(const int *seq_len, int n_seqs, int nh);
size_t el__attention_scratch_size(int max_len, int relative);
int el__attention_forward(float *ctx, float *probs, const float *q, const float *k,
                          const float *v, const float *drop, const int *seq_len, int n_seqs,
                          int H, int nh, const el__relpos *rel, float *scratch);
void el__attention_forward_naive(float *ctx, float *probs, const float *q, const float *k,
                                const float *v, const float *drop, const int *seq_len,
                                int n_seqs, int H, int nh, const el__relpos *rel);
int el__attention_backward(float *dq, float *dk, float *dv, const float *dctx,
                           const float *probs, const float *q, const float *k, const float *v,
                           const float *drop, const int *seq_len, int n_seqs, int H, int nh,
                           const el__relpos *rel, float *scratch);
void el__attention_backward_naive(float *dq, float *dk, float *dv, const float *dctx,
                                 const float *probs, const float *q, const float *k,
                                 const float *v, const float *drop, const int *seq_len,
                                 int n_seqs, int H, int nh, const el__relpos *rel);

/* ---- dropout with a precomputed mask of 0 or 1/(1-p) ---- */
void el__dropout_forward(float *out, const float *in, const float *mask, size_t n);
void el__dropout_backward(float *din, const float *dout, const float *mask, size_t n);

/* ---- softmax cross-entropy over rows of V (generator MLM loss) ----
 * Returns sum_i w_i * -log softmax(logits_i)[target_i]; writes probs [n,V]
 * (may alias logits). weights may be NULL (all 1). correct (may be NULL)
 * receives the number of rows with w > 0 whose argmax equals the target. */
double el__softmax_xent_forward(float *probs, const float *logits, const int *targets,
                               const float *weights, int n, int V, int *correct);
/* dlogits += scale * w_i * (probs_i - onehot(target_i)). dlogits may be
 * probs itself: the gradient then replaces the probs it is made from (no
 * second [n,V] buffer for the generator's rows). */
void el__softmax_xent_backward(float *dlogits, const float *probs, const int *targets,
                              const float *weights, float scale, int n, int V);

/* ---- sigmoid cross-entropy (discriminator loss) ----
 * Returns sum_i w_i * BCE(sigmoid(logit_i), label_i), computed stably. */
double el__sigmoid_xent_forward(const float *logits, const float *labels, const float *weights,
                               int n);
/* dlogits += scale * w_i * (sigmoid(logit_i) - label_i). dlogits may be
 * logits itself: the gradient then replaces them (0 where w_i is 0). */
void el__sigmoid_xent_backward(float *dlogits, const float *logits, const float *labels,
                              const float *weights, float scale, int n);

/* ---- the fine-tuning heads' losses, in double (op_loss_head.c) ----
 * Forwards ADD each term into *sum (a batch passed row by row sums in the
 * order of one pass); backwards accumulate like every op. norm: the loss's
 * divisor, applied to each gradient element as the last division. */
/* Softmax cross-entropy over one segment x[0], x[stride], ... x[(n-1)
 * stride] (a sequence's K class logits at stride 1; a QA window's start or
 * end logits at stride 2): *sum += w * -log softmax(x)[target]. */
void el__seg_xent_forward(double *sum, const float *x, int n, int stride, int target, double w);
/* dx[k stride] += w * (softmax(x)_k - [k == target]) / norm */
void el__seg_xent_backward(float *dx, const float *x, int n, int stride, int target, double w,
                           double norm);
/* Squared error (regression): *sum += sum_i (x_i - y_i)^2 */
void el__sq_err_forward(double *sum, const float *x, const float *y, int n);
/* dx_i += 2 (x_i - y_i) / norm */
void el__sq_err_backward(float *dx, const float *x, const float *y, int n, double norm);
/* Sigmoid cross-entropy with labels 0/1, or < 0 for a token without one (no
 * loss, no gradient): *sum += softplus(x_i) - y_i x_i over the labelled. */
void el__label_xent_forward(double *sum, const float *x, const signed char *y, int n);
/* dx_i += (sigmoid(x_i) - y_i) / norm over the labelled */
void el__label_xent_backward(float *dx, const float *x, const signed char *y, int n,
                             double norm);

/* ---- small helpers ---- */
void el__add_inplace(float *y, const float *x, size_t n);   /* y += x */
void el__mul_inplace(float *y, const float *x, size_t n);   /* y *= x */
float el__sigmoidf(float x);

#endif
