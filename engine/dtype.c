/* el_dtype names and availability (include/electra/model.h). */
#include <string.h>
#include "electra/model.h"
#include "quant.h"
#include "quant_gemm.h"

static const char *const names[EL_DTYPE_COUNT] = {"fp32", "int8"};

const char *el_dtype_name(el_dtype d) {
  return (int)d >= 0 && d < EL_DTYPE_COUNT ? names[d] : NULL;
}

int el_dtype_from_name(const char *name) {
  for (int i = 0; name && i < EL_DTYPE_COUNT; i++)
    if (strcmp(name, names[i]) == 0) return i;
  return -1;
}

int el_dtype_available(el_dtype d) {
  if (d == EL_DTYPE_FP32) return 1;
  if (d == EL_DTYPE_INT8) return el__quant_available();
  return 0;
}

int el_dtype_native(el_dtype d) {
  if (d == EL_DTYPE_FP32) return 1;
  return d == EL_DTYPE_INT8 && el__quant_available() && el__qgemm_isa() != EL__QGEMM_NONE;
}
