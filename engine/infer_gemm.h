/* Internal: the fp32 inference product on weights packed once at load.
 *
 * OpenBLAS copies W into its panel layout on every call; with one sequence
 * (128 rows) that copy is a large share of each product, and it runs on
 * every request. Here W is stored in such panels from the start, in place of
 * the file's [out,in] copy (same size, no padding), and the kernels read the
 * activations where they are: a product copies nothing.
 *
 * Packed layout of W [Cout, K] (HF [out,in]): panels of EL_GEMM_NR output
 * columns, panel j holding columns [32j, 32j + w_j), w_j = min(32, Cout -
 * 32j), stored k-major: element (k, c) at 32 j K + k w_j + (c - 32 j). The
 * last panel is narrower when Cout is not a multiple of 32, so the packed
 * matrix has exactly Cout x K floats.
 *
 * Kernels (chosen at run time from what the CPU reports, never from the
 * build machine): AVX-512F (12 x 32 register tile) and AVX2 + FMA (6 x 16);
 * el__gemm_isa() returns 0 when neither is there, and the weights are then
 * left for OpenBLAS (infer_layout.c). */
#ifndef EL_INFER_GEMM_H
#define EL_INFER_GEMM_H

#include <stddef.h>

#define EL_GEMM_NR 32 /* columns per panel; column blocks start at multiples of it */

typedef enum { EL__GEMM_NONE = 0, EL__GEMM_AVX2 = 1, EL__GEMM_AVX512 = 2 } el__gemm_isa_t;

/* The best kernel this CPU runs (the environment variable ELECTRA_GEMM=avx2
 * or =openblas caps it; read once). */
el__gemm_isa_t el__gemm_isa(void);

/* dst [Cout*K] = w [Cout, K] (HF layout) in the packed layout; dst != w. */
void el__gemm_pack(float *dst, const float *w, int Cout, int K);
/* dst = the matrix M[c][k] = alpha * src[c * sc + k * sk] (Cout x K) in the
 * packed layout: el__gemm_pack's general form, for operands that are not a
 * weight in HF layout (attention's keys and values, rows of a wider matrix). */
void el__gemm_pack_strided(float *dst, const float *src, size_t sc, size_t sk, int Cout, int K,
                           float alpha);

/* C[M, nc] += A[M,K] x W[:, c0:c0+nc] for packed W of Cout columns: C
 * points at the block (column c0 of the output); A rows lda floats apart, C
 * rows ldc apart; c0 a multiple of EL_GEMM_NR. With bias (nc floats, the
 * bias's column c0 on), C = bias + A x W instead, C's contents unread: the
 * bias goes into the registers, not through a copy into C first.
 * isa: el__gemm_isa() or a lesser one the CPU also runs (the tests pick). */
void el__gemm_packed(el__gemm_isa_t isa, int M, int nc, int K, const float *A, size_t lda,
                     const float *W, int Cout, int c0, const float *bias, float *C, size_t ldc);

#endif
