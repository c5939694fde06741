/* Internal: int8 inference of the encoder's dense layers (el_load_options
 * dtype EL_DTYPE_INT8).
 *
 * Scheme (docs/QUANT.md):
 *   weights      symmetric per output channel, built once at load from the
 *                fp32 weights: q = round(w / s_w[n]), |q| <= 63, s_w[n] =
 *                max_k |w[n,k]| / 63. Seven bits, not eight: without VNNI
 *                (AVX2) the int8 kernels add pairs of u8*s8 products in
 *                int16, and 255 * 127 * 2 overflows it; 255 * 63 * 2 does
 *                not, so the integer product is exact on every x86 ISA and a
 *                model gives the same answers on AVX2 and AVX-512 machines.
 *   activations  asymmetric per token row, at run time: u8 = round(x / s_a)
 *                + z, s_a = (max(x,0) - min(x,0)) / 255.
 *   product      int32 accumulate (the engine's AVX-512 VNNI or AVX2 kernel,
 *                quant_gemm.h, else oneDNN's matmul; chosen at run time),
 *                y = s_a[m] s_w[n] (acc[m,n] - z[m] colsum_w[n]) in fp32,
 *                then the fp32 epilogue (bias, GELU, residual, LayerNorm).
 * Also int8: the discriminator head's dense layer (ONNX Runtime's
 * quantize_dynamic quantizes every MatMul). Attention, LayerNorm, GELU, the
 * position/type embeddings, the E->H projection (quantized, it moved the
 * int8 reference suite's logits from 0.075 to 0.094 of its 0.1 bound) and
 * the other task heads stay fp32. The word embeddings are stored
 * int8 per row (dequantized on lookup), which brings a loaded model under
 * 40 % of its fp32 memory (docs/QUANT.md).
 *
 * Built without oneDNN (make DNNL=0) the functions here exist but
 * el__quant_build refuses with EL_EUNSUPPORTED. */
#ifndef EL_QUANT_H
#define EL_QUANT_H

#include <stddef.h>
#include <stdint.h>
#include "electra/engine.h"
#include "quant_gemm.h"
#include "weights.h"

/* The weights' integer range: |q| <= EL_QUANT_WMAX (see above). */
#define EL_QUANT_WMAX 63

typedef struct el__qdense el__qdense; /* one quantized dense layer (quant_dnnl.c) */

typedef struct el__qlayer {
  el__qdense *q, *k, *v, *attn_out, *inter, *out;
} el__qlayer;

typedef struct el__qmodel {
  int num_layers;
  el__qlayer layer[EL_MAX_LAYERS];
  el__qdense *disc_dense; /* the discriminator head's dense layer; NULL for other heads */
  /* The word embeddings [V,E], symmetric per row to |q| <= 127 (the largest
   * fp32 tensor left; a MASKED_LM model keeps them fp32: its head is tied to
   * them). NULL: fp32 word embeddings. */
  int8_t *word;
  float *word_scale;
  size_t bytes; /* int8 weights (as reordered for the kernel), scales and column sums */
} el__qmodel;

/* Per-workspace state of the int8 path: the oneDNN stream (not shareable
 * between threads), the u8 activations and their row scales/zero points,
 * the int32 products, the kernels' scratchpad. */
typedef struct el__qws el__qws;

/* 1 when this build has the int8 path (oneDNN found at build time). */
int el__quant_available(void);

/* Quantizes m's encoder dense layers into m->q and releases the physical
 * pages of their fp32 copies (m->w.layer[l]'s dense weights become NULL:
 * nothing may read them afterwards). m must be fully loaded. */
int el__quant_build(el_model *m, el_error *err);
void el__quant_free(el__qmodel *q);

/* The int8 state of a workspace of max_tokens tokens for m (an int8 model). */
int el__qws_new(const el_model *m, int max_tokens, el__qws **out, el_error *err);
void el__qws_free(el__qws *q);

/* One post-LN encoder layer (the steps of encoder.c's encoder_layer) with
 * int8 dense layers, over the Tc tokens in x (quant_forward.c). */
void el__quant_layer(const el_model *m, int l, const el_workspace *ws, float *x, float *ctx,
                     float *big, const int *seq_len, int n_seqs, int Tc);

/* out [M,N] = x [M,K] d^T + bias, then GELU when gelu: one int8 dense
 * layer outside the encoder layers (the discriminator head's), its rows
 * spread over the op pool as the layers' are (quant_forward.c). */
void el__quant_dense(const el_workspace *ws, const el__qdense *d, const float *x, float *out,
                     const float *bias, int gelu, int M, int K, int N);

/* out[T,E] = word[ids] + pos + type from the int8 word table (as
 * el__embed_forward, nn/ops.h). */
void el__quant_embed(const el_model *m, float *out, const int *ids, const int *type_ids,
                     const int *seq_len, int n_seqs);

/* An int8 forward pass splits each product's rows across the op pool's
 * threads (nn/op_pool.h, which tolerates a busy machine; oneDNN's own OpenMP
 * teams wait at a barrier for every thread and were measured 4-12x slower
 * at load average 5-7 on 2 cores). OpenBLAS is held at 1 thread meanwhile by
 * the callers of el__encode (el__blas_single_begin/end), as for fp32. */

/* quant_dnnl.c: one dense layer W [N,K] quantized and prepared for the
 * kernel; acc [M,N] = a [M,K] x Wq^T in int32. The kernel is
 * el__qgemm_isa()'s; el__qdense_new_isa names it (EL__QGEMM_NONE: oneDNN's,
 * or one the CPU runs; the tests compare them). */
int el__qdense_new(const float *w, int N, int K, el__qdense **out, el_error *err);
int el__qdense_new_isa(const float *w, int N, int K, el__qgemm_isa_t isa, el__qdense **out,
                       el_error *err);
void el__qdense_free(el__qdense *d);
size_t el__qdense_bytes(const el__qdense *d);   /* memory it holds */
size_t el__qdense_scratch(const el__qdense *d); /* scratchpad bytes a run needs */
const float *el__qdense_scale(const el__qdense *d);
const int32_t *el__qdense_colsum(const el__qdense *d);
/* worker (< EL_QWS_WORKERS) picks the stream and scratchpad: concurrent runs
 * on one workspace need distinct workers. The product runs on the calling
 * thread alone (quant_forward.c splits the rows across threads). */
#define EL_QWS_WORKERS 256
void el__qdense_run(const el__qdense *d, el__qws *ws, int worker, const uint8_t *a, int32_t *acc,
                    int M, const el__qdeq *deq);
/* Whether d runs on the engine's own kernels, whose products can be made a
 * range of columns at a time (el__qgemm_cols); oneDNN's cannot. */
int el__qdense_by_columns(const el__qdense *d);
/* Columns [n0, n1) of el__qdense_run's product (n0 a multiple of
 * EL_QGEMM_NR); d must run on the engine's kernels. */
void el__qdense_run_cols(const el__qdense *d, const uint8_t *a, int32_t *acc, int M,
                         const el__qdeq *deq, int n0, int n1);
/* A workspace's int8 buffers for max_tokens rows of up to width columns:
 * two slots of quantized activations (a product reads one while its
 * epilogue quantizes its output into the other for the next product) and
 * one buffer of int32 products. */
int el__qws_alloc(el__qws **out, int max_tokens, int width, size_t scratch, el_error *err);
/* Slot 0 or 1: returns its u8 activations, sets its row scales and zero
 * points, and the int32 products. */
uint8_t *el__qws_act(el__qws *q, int slot, float **sa, int32_t **za, int32_t **acc);
/* The hand-over from one product to the next (quant_forward.c): slot holds
 * the quantized rows of the floats at `of`, made by the last product's
 * epilogue; of NULL: nothing handed over. */
typedef struct el__qready {
  const float *of;
  int slot;
} el__qready;
el__qready *el__qws_ready(el__qws *q);

/* Kernel pieces (quant_act.c), exposed for the unit tests. */
/* Row-wise asymmetric u8 quantization of x [N,C]: q [N,C], scale[N], zp[N]
 * (quant_rows.c): el__quant_rows_avx512 where el__qgemm_isa() is
 * EL__QGEMM_VNNI, else el__quant_rows_ref, the plain loop (quant_act.c; the
 * same codes). */
void el__quant_rows(uint8_t *q, float *scale, int32_t *zp, const float *x, int N, int C);
void el__quant_rows_ref(uint8_t *q, float *scale, int32_t *zp, const float *x, int N, int C);
/* lo/hi NULL: the rows' ranges found here; else given (el__quant_rows_ranged) */
void el__quant_rows_avx512(uint8_t *q, float *scale, int32_t *zp, const float *x, int N, int C,
                           const float *lo, const float *hi);
/* The same with each row's range given, lo[n] = min(0, row n), hi[n] =
 * max(0, row n) (el__bias_layernorm_range's): the same codes, one pass. */
void el__quant_rows_ranged(uint8_t *q, float *scale, int32_t *zp, const float *x, const float *lo,
                           const float *hi, int N, int C);
void el__quant_rows_ranged_ref(uint8_t *q, float *scale, int32_t *zp, const float *x,
                               const float *lo, const float *hi, int N, int C);
/* Symmetric per-row (output channel) quantization of w [N,K] to |q| <= qmax:
 * q [N,K], scale[N], colsum[N] = sum_k q[n,k] (colsum may be NULL). */
void el__quant_weights(int8_t *q, float *scale, int32_t *colsum, const float *w, int N, int K,
                       int qmax);
/* out[m,n] (= or += when accumulate) sa[m] sw[n] (acc[m,n] - za[m] cs[n]). */
void el__dequant(float *out, const int32_t *acc, const float *sa, const int32_t *za,
                 const float *sw, const int32_t *cs, int M, int N, int accumulate);

#endif
