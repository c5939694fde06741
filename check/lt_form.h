/* application/x-www-form-urlencoded bodies, the way LanguageTool's clients
 * send /v2/check: `key=value` pairs joined by '&', '+' for a space, %XX for
 * any byte. Values are decoded to strict UTF-8 without NUL, so they can go
 * to the tokenizer and into JSON as they are. */
#ifndef EL_CHECK_LT_FORM_H
#define EL_CHECK_LT_FORM_H

#include <stddef.h>

typedef struct el__form_field {
  char *key, *value; /* decoded, NUL-terminated */
  size_t value_len;
} el__form_field;

typedef struct el__form {
  int n;
  el__form_field *f; /* in body order; a repeated key appears once per time */
} el__form;

#define EL__FORM_MAX_FIELDS 64

/* Decodes len bytes of body into *out (zeroed first). -1 with a message
 * for the client in msg: a bad %XX escape, %00, invalid UTF-8, an empty key
 * or more than EL__FORM_MAX_FIELDS fields. */
int el__form_parse(const char *body, size_t len, el__form *out, char *msg, size_t cap);

/* The first value of key, or NULL; *count (if given) = how many times it came. */
const el__form_field *el__form_get(const el__form *f, const char *key, int *count);

void el__form_free(el__form *f);

#endif
