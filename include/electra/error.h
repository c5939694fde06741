/* Error codes and messages shared by every electra.c library call.
 *
 * Library functions return 0 (EL_OK) or a negative el_status and, when the
 * caller passes a non-NULL el_error, fill it with the same code plus a
 * one-line message naming the file, tensor, field or position at fault.
 * Only the command-line programs print and exit. */
#ifndef ELECTRA_ERROR_H
#define ELECTRA_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif
/* the public API: default visibility (engine/ and nn/ are built hidden) */
#pragma GCC visibility push(default)

typedef enum el_status {
  EL_OK = 0,
  EL_EIO = -1,          /* a file is missing, unreadable or could not be written */
  EL_EFORMAT = -2,      /* file content is malformed (JSON, safetensors, vocab) */
  EL_ESHAPE = -3,       /* sizes disagree: tensor shape, config field, vocab size */
  EL_ENOMEM = -4,       /* an allocation failed */
  EL_EINVAL = -5,       /* a bad argument or input (e.g. invalid UTF-8) */
  EL_ETOOLONG = -6,     /* input longer than the model or workspace accepts */
  EL_EUNSUPPORTED = -7, /* valid but not handled (e.g. an unknown architecture) */
  EL_ENOSPC = -8,       /* the disk is full */
  EL_EVALUE = -9        /* a non-finite value (NaN/Inf) where numbers are required */
} el_status;

/* Filled by a failing call; untouched on success. Plain value, no ownership. */
typedef struct el_error {
  int code;
  char msg[512];
} el_error;

/* Static string such as "EL_EFORMAT"; never NULL. */
const char *el_status_name(int code);

/* Sets err (if non-NULL) and returns code, so callers can write
 * `return el_error_set(err, EL_EIO, "%s: %s", path, strerror(errno));`. */
int el_error_set(el_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
