/* The verification pass's dtype (check.h). int8 by default: verification
 * runs more tokens through the detector than detection does (bench_check's
 * paragraph: 528 against 305), and on an int8 copy of an fp32 detector it
 * takes up to a third less time with the same corrections within noise
 * (FCE dev, docs/CHECKER.md), because a candidate's verdict is a
 * comparison of P(error) against the threshold, far coarser than int8's
 * error in it (docs/QUANT.md: within 0.02). Only on the engine's own int8
 * kernels (el_dtype_native): oneDNN's are generated at load, which the
 * systemd unit's MemoryDenyWriteExecute forbids, and their speed here was
 * not measured. */
#include "check.h"

el_dtype el__check_verify_dtype(el_dtype detector, int requested) {
  if (requested >= 0) return (el_dtype)requested;
  return el_dtype_native(EL_DTYPE_INT8) ? EL_DTYPE_INT8 : detector;
}
