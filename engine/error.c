/* el_status names and the one place that formats error messages. */
#include <stdarg.h>
#include <stdio.h>
#include "electra/error.h"

const char *el_status_name(int code) {
  switch (code) {
    case EL_OK: return "EL_OK";
    case EL_EIO: return "EL_EIO";
    case EL_EFORMAT: return "EL_EFORMAT";
    case EL_ESHAPE: return "EL_ESHAPE";
    case EL_ENOMEM: return "EL_ENOMEM";
    case EL_EINVAL: return "EL_EINVAL";
    case EL_ETOOLONG: return "EL_ETOOLONG";
    case EL_EUNSUPPORTED: return "EL_EUNSUPPORTED";
    case EL_ENOSPC: return "EL_ENOSPC";
    case EL_EVALUE: return "EL_EVALUE";
    default: return "EL_UNKNOWN";
  }
}

int el_error_set(el_error *err, int code, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->code = code;
  }
  return code;
}
