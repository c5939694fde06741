/* Checked numbers from JSON (json_num.h). */
#include "json_num.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* x in the fewest digits that read back as x (as cJSON prints numbers). */
static void put_num(double x, char *buf, size_t cap) {
  snprintf(buf, cap, "%.15g", x);
  if (strtod(buf, NULL) != x) snprintf(buf, cap, "%.17g", x);
}

/* What v is, for the message: its value, or its kind. */
static void describe(const cJSON *v, char *buf, size_t cap) {
  if (cJSON_IsNumber(v))
    put_num(v->valuedouble, buf, cap);
  else if (cJSON_IsString(v))
    snprintf(buf, cap, "the string \"%.40s\"", v->valuestring);
  else if (cJSON_IsBool(v))
    snprintf(buf, cap, "%s", cJSON_IsTrue(v) ? "true" : "false");
  else if (cJSON_IsNull(v))
    snprintf(buf, cap, "null");
  else if (cJSON_IsArray(v))
    snprintf(buf, cap, "an array");
  else
    snprintf(buf, cap, "an object");
}

int el__json_num(const cJSON *obj, const char *key, int flags, double lo, double hi, double *out,
                 const char *where, el_error *err) {
  const cJSON *v = key ? cJSON_GetObjectItemCaseSensitive(obj, key) : obj;
  const char *k = key ? key : "value";
  if (!v) {
    if (!(flags & EL_JN_REQUIRED)) return EL_OK;
    return el_error_set(err, EL_EFORMAT, "%s: \"%s\" is missing", where, k);
  }
  int integer = (flags & EL_JN_INTEGER) != 0;
  double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
  if (isfinite(x) && x >= lo && x <= hi && (!integer || x == floor(x))) {
    *out = x;
    return EL_OK;
  }
  char got[80], from[32], to[32];
  describe(v, got, sizeof got);
  put_num(lo, from, sizeof from);
  put_num(hi, to, sizeof to);
  return el_error_set(err, EL_EFORMAT, "%s: \"%s\" must be %s from %s to %s, got %s", where, k,
                      integer ? "an integer" : "a number", from, to, got);
}

int el__json_int(const cJSON *obj, const char *key, int flags, int64_t lo, int64_t hi,
                 int64_t *out, const char *where, el_error *err) {
  double x = NAN; /* stays NaN when the key is absent */
  int rc = el__json_num(obj, key, flags | EL_JN_INTEGER, (double)lo, (double)hi, &x, where, err);
  if (!rc && !isnan(x)) *out = (int64_t)x; /* integral and within [lo, hi]: exact */
  return rc;
}
