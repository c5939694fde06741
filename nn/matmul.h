/* Internal: the matrix product every training op calls (op_dense.c,
 * op_attention.c, op_relpos.c), in fp32 on OpenBLAS or, under --precision
 * bf16, in bf16 with fp32 sums (matmul.c).
 *
 * el__matmul is cblas_sgemm's row-major product with its arguments in the
 * same order: C [M, N] = alpha op(A) op(B) + beta C, op(X) = X or X^T
 * (ta, tb nonzero: transposed). In bf16, op(A) and alpha op(B) are rounded
 * to bf16 (bf16_gemm.h) and their products summed in fp32; C, alpha and
 * beta stay fp32. */
#ifndef EL_MATMUL_H
#define EL_MATMUL_H

/* Turn bf16 products on (1) or off (0) for the whole process, while no
 * other thread runs a product (train/model/precision.c: around the training
 * loops, off for dev evaluations); -1 (and off) when this CPU has no
 * AVX512_BF16 or ELECTRA_BF16=off (bf16_gemm.h). Off unless turned on. */
int el__matmul_set_bf16(int on);
int el__matmul_bf16(void);

void el__matmul(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                const float *B, int ldb, float beta, float *C, int ldc);

/* The bf16 product itself, whatever the switch says: 0, or -1 when its
 * scratch could not be allocated (el__matmul then runs the fp32 one).
 * Needs el__bgemm_available(). */
int el__matmul_in_bf16(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                       const float *B, int ldb, float beta, float *C, int ldc);

#endif
