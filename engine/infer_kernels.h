/* Internal: fused, vectorised kernels of the inference forward pass.
 *
 * The training ops (ops.h) keep every intermediate for backward; inference
 * needs none of them, so here biases are the starting value of each GEMM and
 * its element-wise work (GELU, residual + LayerNorm) runs in the same task on
 * the same block (el__dense_fused), and exp/erf use branch-free polynomial
 * forms that GCC vectorises. Each kernel is checked
 * against the naive op of ops.h in tests/unit/test_engine_forward.c.
 *
 * Accuracy: el__expf_vec relative error < 2e-7 on [-87, 88]; el__gelu_vec absolute
 * error < 3e-7 * max(1, |x|) (erf as a rational function, nn/op_fastmath.h). */
#ifndef EL_INFER_KERNELS_H
#define EL_INFER_KERNELS_H

#include <stddef.h>
#include "ops.h"
#include "weights.h"

/* out[i] = exp(in[i]); inputs clamped to [-87.3, 88.3]. out may alias in. */
void el__expf_vec(float *out, const float *in, size_t n);

/* out[i] = gelu(in[i]) (exact-erf GELU to float precision). out may alias in. */
void el__gelu_vec(float *out, const float *in, size_t n);

/* x[N,C] = LayerNorm(x + b) * g + beta, row by row, in place (b may be NULL).
 * Used after a GEMM that accumulated into the residual stream: x already
 * holds residual + product, b is the product's bias. */
void el__bias_layernorm(float *x, const float *b, const float *g, const float *beta, int N, int C,
                        float eps);
/* el__bias_layernorm (the same floats), also setting lo[r] = min(0, row r)
 * and hi[r] = max(0, row r) of the result: the range quant.h's activation
 * rows need (found in the normalising pass on AVX-512 CPUs, in a pass of
 * its own elsewhere). */
void el__bias_layernorm_range(float *x, const float *b, const float *g, const float *beta, int N,
                              int C, float eps, float *lo, float *hi);

/* Multi-head self-attention over packed sequences, inference only.
 * q, k, v [T,H] hold the projections with their biases; ctx [T,H] receives
 * softmax(q k^T/sqrt(dh)) v per head, each sequence attending only to
 * itself. The (sequence, head, block of query rows) tasks are shared out by
 * the op pool (op_pool.h); the scores of a block live on the stack. rel:
 * NULL, or the layer's relative-key positions (nn/ops.h, op_relpos.c).
 * bf16: the two products (q K^T and P V) in bf16 with fp32 sums where the
 * CPU has AVX512_BF16 (bf16_gemm.h), else fp32 all the same; the int8
 * forward pass asks for it, the fp32 one never does. */
void el__attention(float *ctx, const float *q, const float *k, const float *v, const int *seq_len,
                   int n_seqs, int H, int nh, const el__relpos *rel, int bf16);

/* The relative-key positions of layer lw (NULL for an absolute-position model,
 * whose layers have no distance embedding); *slot holds them. */
const el__relpos *el__layer_relpos(const el__layer_w *lw, int max_pos, el__relpos *slot);

/* What el__dense_fused does after each product. */
typedef enum {
  EL__EPI_BIAS,        /* out = in W^T + b */
  EL__EPI_BIAS_GELU,   /* out = gelu(in W^T + b) */
  EL__EPI_RESIDUAL_LN, /* out = LayerNorm(out + in W^T + b): out holds the residual */
} el__epilogue;

/* n_mats products of the same input in[N,Cin] (Q, K and V share one call):
 * out[m][N,Cout] from d[m] (W in the layout d[m].layout: HF [Cout,Cin], or
 * an inference layout, weights.h; b [Cout]) with the
 * epilogue epi (ln and eps: EL__EPI_RESIDUAL_LN only, with n_mats == 1).
 * Blocks of rows or columns are shared out by the op pool, each one product
 * followed by its epilogue; run with OpenBLAS at 1 thread (el__blas_single). */
void el__dense_fused(int n_mats, float *const *out, const float *in, const el__dense_w *d,
                     const el__ln_w *ln, float eps, int N, int Cin, int Cout, el__epilogue epi);

#endif
