/* --precision (precision.h) on nn's switch (nn/matmul.h). */
#include "precision.h"
#include <string.h>
#include "matmul.h"

int el__precision_apply(const char *choice, el_error *err) {
  if (!choice || !strcmp(choice, "auto")) {
    (void)el__matmul_set_bf16(1); /* off where the CPU cannot */
    return EL_OK;
  }
  if (!strcmp(choice, "fp32")) return el__matmul_set_bf16(0), EL_OK;
  if (strcmp(choice, "bf16"))
    return el_error_set(err, EL_EINVAL, "--precision '%s': expected %s", choice,
                        EL_PRECISION_CHOICES);
  if (el__matmul_set_bf16(1))
    return el_error_set(err, EL_EINVAL,
                        "--precision bf16: this CPU has no AVX512_BF16 (or ELECTRA_BF16=off); "
                        "use --precision fp32 or auto");
  return EL_OK;
}

const char *el__precision_now(void) { return el__matmul_bf16() ? "bf16" : "fp32"; }

int el__precision_fp32_begin(void) {
  const int bf16 = el__matmul_bf16();
  (void)el__matmul_set_bf16(0);
  return bf16;
}

void el__precision_restore(int saved) { (void)el__matmul_set_bf16(saved); }
