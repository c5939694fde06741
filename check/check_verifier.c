/* The verification pass's model (check.h): the detector itself, or a copy
 * of it in another dtype. int8 by default: verification runs more tokens
 * through the detector than detection does (bench_check's paragraph: 528
 * against 305), and on an int8 copy of an fp32 detector it takes up to a
 * third less time with the same corrections within noise (FCE dev,
 * docs/CHECKER.md), because a candidate's verdict is a comparison of
 * P(error) against the threshold, far coarser than int8's error in it
 * (docs/QUANT.md: within 0.02). Only on the engine's own int8 kernels
 * (el_dtype_native): oneDNN's are generated at load, which the systemd
 * unit's MemoryDenyWriteExecute forbids, and their speed here was not
 * measured. */
#include "check.h"

#include <string.h>

int el__check_verify_dtype_parse(const char *v, const char *src, int *out, el_error *err) {
  *out = -1;
  if (!v || !strcmp(v, "auto")) return EL_OK;
  int d = el_dtype_from_name(v);
  if (d < 0) return el_error_set(err, EL_EINVAL, "%s must be one of auto|fp32|int8, got '%s'", src, v);
  if (!el_dtype_available((el_dtype)d))
    return el_error_set(err, EL_EINVAL, "%s %s: this build has no int8 path (it needs oneDNN: "
                        "install libdnnl-dev and rebuild, or use fp32)", src, v);
  *out = d;
  return EL_OK;
}

int el__check_verifier_load(const char *dir, const el_model *detector, int requested,
                            el_model **out, el_error *err) {
  *out = NULL;
  const el_dtype own = el_model_dtype(detector);
  el_load_options lo = {.dtype = requested >= 0                        ? (el_dtype)requested
                                 : el_dtype_native(EL_DTYPE_INT8) ? EL_DTYPE_INT8
                                                                  : own};
  return lo.dtype == own ? EL_OK : el_model_load_opts(dir, &lo, out, err);
}
