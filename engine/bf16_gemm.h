/* Internal: a bf16 product for attention under --dtype int8.
 *
 * With the dense layers in int8 (quant_gemm.h), attention's two products
 * (scores = q K^T, context = P V) were a sixth of an int8 forward pass in
 * fp32 (ELECTRA-Small, batch 32 x 128, AVX-512 EPYC). CPUs with AVX512_BF16
 * multiply pairs of bfloat16 into fp32 sums (vdpbf16ps) at twice the rate of
 * fp32 FMAs; the int8 forward pass runs attention so there, where the CPU
 * has it (docs/QUANT.md). The fp32 forward pass never does: its results are
 * checked against PyTorch to 1e-6.
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
 * once), and the fp32 kernels are the AVX-512 ones: ELECTRA_GEMM=avx2 and
 * =openblas (infer_gemm.h) turn it off as they cap the rest of the engine,
 * and so does ELECTRA_BF16=off (attention in fp32 under int8 too). */
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

/* C [M, nc] = A [M, K] x W^T for W packed by el__bgemm_pack_strided with
 * Cout >= nc columns: C's first nc columns of M rows (ldc apart) written,
 * nothing else; A rows lda elements apart (even), padded as el__bf16_rows
 * writes them. Needs el__bgemm_available(). */
void el__bgemm(int M, int nc, int K, const uint16_t *A, size_t lda, const uint16_t *W, float *C,
               size_t ldc);

#endif
