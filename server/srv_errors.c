/* Error kinds -> status, type and JSON body. */
#include "srv_errors.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
  int status;
  const char *type;
} kinds[EL_HERR_COUNT] = {
    [EL_HERR_NONE] = {200, "ok"},
    [EL_HERR_INVALID_JSON] = {400, "invalid_json"},
    [EL_HERR_INVALID_REQUEST] = {400, "invalid_request"},
    [EL_HERR_UNAUTHORIZED] = {401, "unauthorized"},
    [EL_HERR_NOT_FOUND] = {404, "not_found"},
    [EL_HERR_METHOD] = {405, "method_not_allowed"},
    [EL_HERR_TOO_LARGE] = {413, "payload_too_large"},
    [EL_HERR_MEDIA_TYPE] = {415, "unsupported_media_type"},
    [EL_HERR_VALIDATION] = {422, "validation_error"},
    [EL_HERR_OVERLOADED] = {429, "overloaded"},
    [EL_HERR_INTERNAL] = {500, "internal"},
    [EL_HERR_UNAVAILABLE] = {503, "unavailable"},
    [EL_HERR_TIMEOUT] = {504, "timeout"},
};

int el__herr_status(el__http_err e) {
  return (e >= 0 && e < EL_HERR_COUNT) ? kinds[e].status : 500;
}

const char *el__herr_type(el__http_err e) {
  return (e >= 0 && e < EL_HERR_COUNT) ? kinds[e].type : "internal";
}

el__http_err el__failf(el__fail *f, el__http_err kind, const char *fmt, ...) {
  if (!f) return kind;
  f->kind = kind;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(f->msg, sizeof f->msg, fmt, ap);
  va_end(ap);
  return kind;
}

size_t el__error_body(el__http_err e, const char *msg, char *buf, size_t cap) {
  if (cap < 96) {
    if (cap) buf[0] = 0;
    return 0;
  }
  int n = snprintf(buf, cap, "{\"error\":{\"code\":%d,\"type\":\"%s\",\"message\":\"",
                   el__herr_status(e), el__herr_type(e));
  size_t len = (size_t)n;
  const char *tail = "\"}}";
  size_t reserve = strlen(tail) + 1;
  for (const unsigned char *p = (const unsigned char *)(msg ? msg : ""); *p; p++) {
    char esc[8];
    size_t el;
    if (*p == '"' || *p == '\\') {
      esc[0] = '\\';
      esc[1] = (char)*p;
      el = 2;
    } else if (*p < 0x20 || *p >= 0x7f) {
      /* non-ASCII too: the message may quote invalid UTF-8 from the input */
      el = (size_t)snprintf(esc, sizeof esc, "\\u%04x", *p);
    } else {
      esc[0] = (char)*p;
      el = 1;
    }
    if (len + el + reserve > cap) break;
    memcpy(buf + len, esc, el);
    len += el;
  }
  memcpy(buf + len, tail, strlen(tail) + 1);
  return len + strlen(tail);
}
