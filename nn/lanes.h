/* Internal: the mask of a 16-lane AVX-512 operation on the first n lanes
 * (all 16 for n >= 16, none for n <= 0): the tails of rows and panels in
 * the bf16, fp32 and int8 kernels (nn/bf16_gemm.c, engine/infer_gemm.c,
 * engine/quant_gemm.c). A plain integer, so it needs no target attribute;
 * __mmask16 is a 16-bit integer. */
#ifndef EL_LANES_H
#define EL_LANES_H

#include <stdint.h>

static inline uint16_t el__first_lanes(int n) {
  return (uint16_t)(n >= 16 ? 0xffffu : n <= 0 ? 0u : (1u << n) - 1u);
}

#endif
