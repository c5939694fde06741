/* Internal: a bf16 matrix product with fp32 sums.
 *
 * CPUs with AVX512_BF16 multiply pairs of bfloat16 into fp32 sums
 * (vdpbf16ps) at twice the rate of fp32 FMAs. Two users: attention's two
 * products under --dtype int8 (engine/infer_kernels.c, docs/QUANT.md), and
 * the trainer's dense layers under --precision bf16 (op_dense.c,
 * docs/TRAINING.md). The engine's fp32 forward pass never uses it: its
 * results are checked against PyTorch to 1e-6.
 *
 * bf16 here is the upper half of an IEEE float rounded to nearest even (as
 * vcvtneps2bf16 rounds; subnormal inputs become zero, as that instruction
 * makes them). Sums are fp32.
 *
 * Packed layout of W [Cout, K] (the "weights": keys or values of a head):
 * K padded with zeros to Kp = K rounded up to even, Cout to a multiple of
 * EL_BGEMM_NR; panels of 32 output columns, panel j at element 32 j Kp;
 * inside a panel, pairs of consecutive k one after another, each 32
 * columns x 2 values: (k, c) at 32 j Kp + (k / 2) 64 + (c - 32 j) 2 + k % 2.
 * One 32-bit lane holds one column's pair, which vdpbf16ps multiplies by a
 * broadcast pair of activations. */
#ifndef EL_BF16_GEMM_H
#define EL_BF16_GEMM_H

#include <stddef.h>
#include <stdint.h>

#define EL_BGEMM_NR 32 /* columns per panel */

/* Whether this CPU runs the bf16 kernel (AVX-512F/BW/VL and AVX512_BF16, read
 * once) and ELECTRA_BF16 is not "off". (The engine also asks that its fp32
 * kernels be the AVX-512 ones, so that ELECTRA_GEMM=avx2 measures an
 * AVX2-only CPU: infer_kernels.c.) */
int el__bgemm_available(void);

/* x rounded to bf16 (the scalar reference of the conversions below). */
uint16_t el__bf16_round(float x);

/* Elements of the packed form of an [Cout, K] matrix, padding included. */
size_t el__bgemm_packed_elems(int Cout, int K);

/* dst [el__bgemm_packed_elems] = bf16 of alpha * src[c sc + k sk] for
 * c < Cout, k < K, in the packed layout (zeros in the padding). */
void el__bgemm_pack_strided(uint16_t *dst, const float *src, size_t sc, size_t sk, int Cout, int K,
                            float alpha);

/* dst rows (ldd elements apart, ldd even) = bf16 of src rows (lds floats
 * apart), M rows of K values, then a zero when K is odd. Needs
 * el__bgemm_available(). */
void el__bf16_rows(uint16_t *dst, size_t ldd, const float *src, size_t lds, int M, int K);

/* C [M, nc] = A [M, K] x W^T (accumulate 0), or C += A x W^T (accumulate
 * 1), for W packed by el__bgemm_pack_strided with Cout >= nc columns: C's
 * first nc columns of M rows (ldc apart) written, nothing else; A rows lda
 * elements apart (even), padded as el__bf16_rows writes them. Needs
 * el__bgemm_available(). */
void el__bgemm(int M, int nc, int K, const uint16_t *A, size_t lda, const uint16_t *W, float *C,
               size_t ldc, int accumulate);

/* The same with A's pair p of row r the 32-bit word at A + r rs + p ps (in
 * bf16 elements): el__bgemm's rows are rs = lda, ps = 2; el__bf16_pairs's
 * layout is rs = 2, ps = 2 M. */
void el__bgemm_strided(int M, int nc, int K, const uint16_t *A, size_t rs, size_t ps,
                       const uint16_t *W, float *C, size_t ldc, int accumulate);

/* The transpose of src [K rows of M floats, lds apart] as bf16 pairs,
 * pair-major: dst's 32-bit word p M + m holds (src[2p][m], src[2p+1][m]),
 * the second a zero for an odd K; (K + 1) / 2 M words. This is how a
 * product reads op(A) = A^T with no transposition: a pair of A's rows
 * converts into one run of words. Needs el__bgemm_available(). */
void el__bf16_pairs(uint16_t *dst, const float *src, size_t lds, int M, int K);

#endif
