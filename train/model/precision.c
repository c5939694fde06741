/* --precision (precision.h) on nn's switch (nn/matmul.h). */
#include "precision.h"
#include <string.h>
#include "bf16_gemm.h"
#include "matmul.h"

static int g_bf16 = -1; /* the recorded choice; -1: none yet, auto */

int el__precision_apply(const char *choice, el_error *err) {
  const int can = el__bgemm_available();
  if (!choice || !strcmp(choice, "auto")) return g_bf16 = can, EL_OK;
  if (!strcmp(choice, "fp32")) return g_bf16 = 0, EL_OK;
  if (strcmp(choice, "bf16"))
    return el_error_set(err, EL_EINVAL, "--precision '%s': expected %s", choice,
                        EL_PRECISION_CHOICES);
  if (!can)
    return el_error_set(err, EL_EINVAL,
                        "--precision bf16: this CPU has no AVX512_BF16 (or ELECTRA_BF16=off); "
                        "use --precision fp32 or auto");
  return g_bf16 = 1, EL_OK;
}

static int recorded(void) { return g_bf16 < 0 ? el__bgemm_available() : g_bf16; }

const char *el__precision_now(void) { return recorded() ? "bf16" : "fp32"; }

int el__precision_train_begin(void) {
  const int was = el__matmul_bf16();
  (void)el__matmul_set_bf16(recorded());
  return was;
}

int el__precision_fp32_begin(void) {
  const int bf16 = el__matmul_bf16();
  (void)el__matmul_set_bf16(0);
  return bf16;
}

void el__precision_restore(int saved) { (void)el__matmul_set_bf16(saved); }
