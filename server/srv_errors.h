/* The server's error kinds and the one place they become HTTP replies
 * (docs/API.md, "Errors"): every non-2xx answer is
 * {"error": {"code": N, "type": T, "message": M}}. */
#ifndef EL_SERVER_ERRORS_H
#define EL_SERVER_ERRORS_H

#include <stddef.h>

typedef enum el__http_err {
  EL_HERR_NONE = 0,
  EL_HERR_INVALID_JSON,     /* 400 invalid_json */
  EL_HERR_INVALID_REQUEST,  /* 400 invalid_request */
  EL_HERR_UNAUTHORIZED,     /* 401 unauthorized */
  EL_HERR_NOT_FOUND,        /* 404 not_found */
  EL_HERR_METHOD,           /* 405 method_not_allowed */
  EL_HERR_TOO_LARGE,        /* 413 payload_too_large */
  EL_HERR_MEDIA_TYPE,       /* 415 unsupported_media_type */
  EL_HERR_VALIDATION,       /* 422 validation_error */
  EL_HERR_OVERLOADED,       /* 429 overloaded */
  EL_HERR_INTERNAL,         /* 500 internal */
  EL_HERR_UNAVAILABLE,      /* 503 unavailable */
  EL_HERR_TIMEOUT,          /* 504 timeout */
  EL_HERR_COUNT
} el__http_err;

/* Status code and type string of an error kind. */
int el__herr_status(el__http_err e);
const char *el__herr_type(el__http_err e);

/* A failed request: kind + message (bounded, sanitized when rendered). */
typedef struct el__fail {
  el__http_err kind;
  char msg[256];
} el__fail;

/* Sets f and returns its kind, so parsers can `return el__failf(f, ...)`. */
el__http_err el__failf(el__fail *f, el__http_err kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Renders the JSON error body into buf (NUL-terminated; truncates the message
 * so the body always fits). Control characters and non-ASCII bytes of the
 * message are escaped, so no input can break the JSON. Returns its length. */
size_t el__error_body(el__http_err e, const char *msg, char *buf, size_t cap);

#endif
