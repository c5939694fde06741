/* Internal: the int8 product of quant.h on weights packed once at load,
 * acc [M,N] (int32) = a [M,K] (u8) x Wq^T (Wq [N,K] s8 codes, |q| <= 63).
 *
 * oneDNN's matmul costs per call (memory objects, primitive execution, a
 * stream) and blocks for large products; a forward pass at batch 1 makes
 * many small ones (20-60 rows each). Here the codes are stored at load in
 * the layout the kernels read, and a product copies nothing.
 *
 * Packed layout of Wq [N,K]: K padded with zero codes to Kp (a multiple of
 * 4), N to a multiple of EL_QGEMM_NR; panels of EL_QGEMM_NR output columns,
 * panel j holding columns [32j, 32j + 32) at byte 32 j Kp; inside a panel,
 * groups of 4 consecutive k, one after another, each 32 columns x 4 bytes:
 * code (k, c) at 32 j Kp + (k / 4) 128 + (c - 32 j) 4 + k % 4. One 32-bit
 * lane holds one column's 4 codes, which is what VNNI's vpdpbusd (and
 * AVX2's vpmaddubsw + vpmaddwd) multiply by 4 broadcast activations.
 *
 * Kernels (chosen at run time from cpuid, never from the build machine):
 * AVX-512 VNNI (12 rows x 32 columns) and AVX2 (4 rows x 16 columns; its
 * u8 x s8 pair sums are exact in int16 because the codes are 7-bit, see
 * quant.h). Both give the exact integer product, so they agree with each
 * other and with oneDNN bit for bit. el__qgemm_isa() returns
 * EL__QGEMM_NONE where neither runs (the product is then oneDNN's). */
#ifndef EL_QUANT_GEMM_H
#define EL_QUANT_GEMM_H

#include <stddef.h>
#include <stdint.h>

#define EL_QGEMM_NR 32 /* columns per panel */

typedef enum { EL__QGEMM_NONE = 0, EL__QGEMM_AVX2 = 1, EL__QGEMM_VNNI = 2 } el__qgemm_isa_t;

/* The best kernel this CPU runs, read once. Capped by the environment:
 * ELECTRA_QGEMM=onednn (oneDNN's kernels), ELECTRA_QGEMM=avx2 (the AVX2
 * kernel on a VNNI CPU); ELECTRA_GEMM=openblas and =avx2 (infer_gemm.h)
 * cap it the same way, so they keep meaning "library kernels only" and
 * "what an AVX2 CPU runs" for the whole engine. */
el__qgemm_isa_t el__qgemm_isa(void);

/* Bytes of the packed form of an [N,K] matrix (with its padding). */
size_t el__qgemm_packed_bytes(int N, int K);

/* dst [el__qgemm_packed_bytes(N, K)] = q [N,K] (row-major codes) packed. */
void el__qgemm_pack(int8_t *dst, const int8_t *q, int N, int K);

/* The dequantization a product can end with, in the kernel while a tile is
 * in registers (quant.h's el__dequant, then the bias, on the same values in
 * the same order, so the floats are el__dequant's bit for bit):
 * out[m,n] (= or += when accumulate) sa[m] sw[n] (acc[m,n] - za[m] cs[n]),
 * then out[m,n] += bias[n] when bias is not NULL, then out[m,n] =
 * gelu(out[m,n]) when gelu (the FFN's first product: its floats are written
 * once instead of read back for the activation). out is [M,N] row-major. */
typedef struct el__qdeq {
  float *out;
  const float *sa, *sw, *bias;
  const int32_t *za, *cs;
  int accumulate, gelu;
} el__qdeq;

/* The dequantization of deq on an int32 product acc [M,N] already made (the
 * reference of the VNNI kernel's epilogue; quant_act.c): columns [n0, n1) of
 * every row, N apart in acc and deq->out. */
void el__qdeq_apart(const el__qdeq *deq, const int32_t *acc, int M, int N, int n0, int n1);

/* acc [M,N] = a [M,K] x Wq^T for W packed by el__qgemm_pack; a and acc
 * row-major without gaps. isa: el__qgemm_isa() or a lesser one the CPU also
 * runs (the tests pick), never EL__QGEMM_NONE. deq (may be NULL): the
 * product dequantized into deq->out instead, acc then scratch of [M,N]
 * (the VNNI kernel writes the floats from its registers; AVX2 dequantizes
 * after). */
void el__qgemm(el__qgemm_isa_t isa, int M, int N, int K, const uint8_t *a, const int8_t *W,
               int32_t *acc, const el__qdeq *deq);
/* Columns [n0, n1) of el__qgemm's product (n0 a multiple of EL_QGEMM_NR, n1
 * <= N): only those columns of acc (rows N apart) or of deq->out written, so
 * runs over disjoint column ranges may go at once (quant_forward.c, batch 1:
 * each thread then reads its share of the weights, not all of them). */
void el__qgemm_cols(el__qgemm_isa_t isa, int M, int N, int K, const uint8_t *a, const int8_t *W,
                    int32_t *acc, const el__qdeq *deq, int n0, int n1);

#endif
