/* The option-table engine (el_cli.h). */
#include "el_cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int el__parse_long(const char *s, long *out) {
  if (!s || !*s) return -1;
  errno = 0;
  char *end;
  long v = strtol(s, &end, 10);
  if (errno || *end) return -1;
  *out = v;
  return 0;
}

int el__parse_double(const char *s, double *out) {
  if (!s || !*s) return -1;
  errno = 0;
  char *end;
  double v = strtod(s, &end);
  if (errno || *end || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

int el__parse_duration(const char *s, double *seconds) {
  if (!s || !*s) return -1;
  double total = 0;
  const char *p = s;
  int parts = 0;
  while (*p) {
    if (!isdigit((unsigned char)*p) && *p != '.') return -1;
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (errno || end == p || !isfinite(v) || v < 0) return -1;
    p = end;
    double unit = 1;
    if (*p == 'h') unit = 3600, p++;
    else if (*p == 'm') unit = 60, p++;
    else if (*p == 's') unit = 1, p++;
    else if (*p) return -1;
    total += v * unit;
    parts++;
  }
  if (!parts) return -1;
  *seconds = total;
  return 0;
}

const char *el__format_duration(double seconds, char *buf, int n) {
  if (!isfinite(seconds) || seconds < 0) {
    snprintf(buf, n, "?");
    return buf;
  }
  long s = (long)(seconds + 0.5);
  long h = s / 3600, m = (s / 60) % 60;
  s %= 60;
  if (h) snprintf(buf, n, "%ldh%02ldm%02lds", h, m, s);
  else if (m) snprintf(buf, n, "%ldm%02lds", m, s);
  else snprintf(buf, n, "%lds", s);
  return buf;
}

el_opt *el__cli_find(el_opt *opts, int n_opts, const char *name) {
  for (int i = 0; i < n_opts; i++)
    if (!strcmp(opts[i].name, name)) return &opts[i];
  return NULL;
}

static int choice_ok(const char *choices, const char *v) {
  size_t n = strlen(v);
  for (const char *p = choices; *p;) {
    const char *bar = strchr(p, '|');
    size_t len = bar ? (size_t)(bar - p) : strlen(p);
    if (len == n && !strncmp(p, v, n)) return 1;
    if (!bar) break;
    p = bar + 1;
  }
  return 0;
}

static int fail(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err && cap) vsnprintf(err, cap, fmt, ap);
  va_end(ap);
  return -1;
}

/* ---- "did you mean" ---- */

/* Optimal-string-alignment distance (Levenshtein plus adjacent swaps),
 * ignoring case; words longer than 63 bytes are never close. */
static int edit_distance(const char *a, size_t la, const char *b, size_t lb) {
  enum { M = 64 };
  if (la >= M || lb >= M) return 1 << 20;
  int d[M][M];
  for (size_t i = 0; i <= la; i++) d[i][0] = (int)i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = (int)j;
  for (size_t i = 1; i <= la; i++)
    for (size_t j = 1; j <= lb; j++) {
      int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
      int best = d[i - 1][j - 1] + (ca != cb);
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
          tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  return d[la][lb];
}

static const char *skip_dashes(const char *s) {
  while (*s == '-') s++;
  return s;
}

const char *el__near_miss(const char *word, const char *const *words, int n) {
  const char *w = skip_dashes(word);
  size_t lw = strlen(w);
  const char *best = NULL;
  int best_d = 1 << 20;
  for (int i = 0; i < n; i++) {
    const char *c = skip_dashes(words[i]);
    size_t lc = strlen(c);
    int d = edit_distance(w, lw, c, lc);
    int limit = 1 + (int)(lc > lw ? lc : lw) / 4;
    if (d <= limit && d < (int)lc && d < best_d) {
      best = words[i];
      best_d = d;
    }
  }
  return best;
}

const char *el__cli_suggest(const el_opt *opts, int n_opts, const char *name) {
  const char *names[128];
  int n = 0;
  for (int i = 0; i < n_opts && n < 128; i++) names[n++] = opts[i].name;
  return el__near_miss(name, names, n);
}

/* ---- storing values ---- */

static int parse_bool(const char *v, int *on) {
  if (!strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes")) *on = 1;
  else if (!strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "no") || !*v) *on = 0;
  else return -1;
  return 0;
}

int el__cli_store(const el_opt *o, const char *shown, const char *v, char *err, size_t cap) {
  const char *nm = shown ? shown : o->name;
  switch (o->kind) {
    case EL_OPT_FLAG: {
      int on;
      if (parse_bool(v, &on)) return fail(err, cap, "%s expects true or false, got '%s'", nm, v);
      *(int *)o->dst = on;
      return 0;
    }
    case EL_OPT_INT:
    case EL_OPT_INT32: {
      long x;
      if (el__parse_long(v, &x)) return fail(err, cap, "%s expects an integer, got '%s'", nm, v);
      if (x < o->lo || x > o->hi)
        return fail(err, cap, "%s must be between %.0f and %.0f, got %ld", nm, o->lo, o->hi, x);
      if (o->kind == EL_OPT_INT) *(long *)o->dst = x;
      else *(int *)o->dst = (int)x;
      return 0;
    }
    case EL_OPT_FLOAT: {
      double x;
      if (el__parse_double(v, &x)) return fail(err, cap, "%s expects a number, got '%s'", nm, v);
      if (x < o->lo || x > o->hi)
        return fail(err, cap, "%s must be between %g and %g, got %g", nm, o->lo, o->hi, x);
      *(double *)o->dst = x;
      return 0;
    }
    case EL_OPT_DURATION: {
      double x;
      if (el__parse_duration(v, &x))
        return fail(err, cap, "%s expects a duration such as 90s, 10m, 2h or 1h30m, got '%s'",
                    nm, v);
      if (x < o->lo || x > o->hi)
        return fail(err, cap, "%s must be between %gs and %gs, got %gs", nm, o->lo, o->hi, x);
      *(double *)o->dst = x;
      return 0;
    }
    case EL_OPT_STR:
      if (!*v) return fail(err, cap, "%s expects a non-empty value", nm);
      *(const char **)o->dst = v;
      return 0;
    case EL_OPT_TEXT:
      if (strlen(v) + 1 > (size_t)o->hi)
        return fail(err, cap, "%s: value longer than %.0f bytes", nm, o->hi - 1);
      memcpy(o->dst, v, strlen(v) + 1);
      return 0;
    case EL_OPT_CHOICE:
      if (!choice_ok(o->arg, v))
        return fail(err, cap, "%s must be one of %s, got '%s'", nm, o->arg, v);
      *(const char **)o->dst = v;
      return 0;
    case EL_OPT_CUSTOM:
      return 1;
    case EL_OPT_STRS:
      break;
  }
  return fail(err, cap, "%s cannot be set from one value", nm);
}

/* ---- the command line ---- */

static int takes_value(const el_opt *o) {
  return o->kind != EL_OPT_FLAG && !(o->kind == EL_OPT_CUSTOM && !o->arg);
}

int el__cli_scan(el_opt *opts, int n_opts, int argc, char **argv, el__cli_visit visit,
                 void *ctx, char *err, size_t cap) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return EL_CLI_HELP;
    if (strncmp(a, "--", 2)) {
      fail(err, cap, "unexpected argument '%s' (options start with --; see --help)", a);
      return EL_CLI_ERROR;
    }
    char name[64];
    const char *eq = strchr(a, '=');
    size_t nl = eq ? (size_t)(eq - a) : strlen(a);
    if (nl >= sizeof name) nl = sizeof name - 1;
    memcpy(name, a, nl);
    name[nl] = 0;
    el_opt *o = el__cli_find(opts, n_opts, name);
    if (!o) {
      const char *s = el__cli_suggest(opts, n_opts, name);
      if (s) fail(err, cap, "unknown option '%s' (did you mean %s? see --help)", name, s);
      else fail(err, cap, "unknown option '%s' (see --help)", name);
      return EL_CLI_ERROR;
    }
    int rc;
    if (!takes_value(o)) {
      if (eq) {
        fail(err, cap, "%s takes no value", o->name);
        return EL_CLI_ERROR;
      }
      rc = visit(ctx, o, "true", err, cap);
    } else if (o->kind == EL_OPT_STRS) {
      if (eq) {
        fail(err, cap, "write %s PATH... with spaces, not '='", o->name);
        return EL_CLI_ERROR;
      }
      int j = i + 1;
      while (j < argc && strncmp(argv[j], "--", 2)) j++;
      if (j == i + 1) {
        fail(err, cap, "%s expects at least one value", o->name);
        return EL_CLI_ERROR;
      }
      el_strlist l = {argv + i + 1, j - i - 1};
      i = j - 1;
      rc = visit(ctx, o, (const char *)&l, err, cap);
    } else {
      const char *v;
      if (eq) {
        v = eq + 1;
      } else {
        if (i + 1 >= argc) {
          fail(err, cap, "%s expects a value%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
          return EL_CLI_ERROR;
        }
        v = argv[++i];
      }
      rc = visit(ctx, o, v, err, cap);
    }
    if (rc) return EL_CLI_ERROR;
  }
  return EL_CLI_OK;
}

/* el__cli_parse's visitor: each option once, stored at once. For STRS, v is
 * the el_strlist el__cli_scan built. */
static int store_once(void *ctx, el_opt *o, const char *v, char *err, size_t cap) {
  (void)ctx;
  if (o->seen) return fail(err, cap, "%s given twice", o->name);
  o->seen = 1;
  if (o->kind == EL_OPT_FLAG) {
    *(int *)o->dst = 1;
    return 0;
  }
  if (o->kind == EL_OPT_STRS) {
    *(el_strlist *)o->dst = *(const el_strlist *)v;
    return 0;
  }
  return el__cli_store(o, NULL, v, err, cap) < 0 ? -1 : 0;
}

int el__cli_parse(const char *prog, el_opt *opts, int n_opts, int argc, char **argv,
                 void (*usage)(FILE *)) {
  for (int i = 0; i < n_opts; i++) opts[i].seen = 0;
  char err[512];
  int rc = el__cli_scan(opts, n_opts, argc, argv, store_once, NULL, err, sizeof err);
  if (rc == EL_CLI_HELP) {
    if (usage) usage(stdout);
  } else if (rc == EL_CLI_ERROR) {
    fprintf(stderr, "%s: %s\n", prog, err);
  }
  return rc;
}

/* ---- config keys and environment names ---- */

el_opt *el__cli_lookup_key(el_opt *opts, int n_opts, const char *key) {
  size_t len = strlen(key);
  for (int i = 0; i < n_opts; i++) {
    const char *d = skip_dashes(opts[i].name);
    if (strlen(d) != len) continue;
    size_t k = 0;
    for (; k < len; k++) {
      char c = key[k] == '_' ? '-' : (char)tolower((unsigned char)key[k]);
      if (c != d[k]) break;
    }
    if (k == len) return &opts[i];
  }
  return NULL;
}

void el__cli_env_name(const el_opt *o, const char *prefix, char *out, size_t cap) {
  if (!cap) return;
  size_t k = (size_t)snprintf(out, cap, "%s", prefix);
  if (k >= cap) k = cap - 1;
  for (const char *p = skip_dashes(o->name); *p && k + 1 < cap; p++)
    out[k++] = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
  out[k] = 0;
}

/* ---- --help ---- */

void el__cli_print_options(FILE *f, const el_opt *opts, int n_opts) {
  int w = 0;
  for (int i = 0; i < n_opts; i++) {
    int l = (int)strlen(opts[i].name) + (opts[i].arg ? 1 + (int)strlen(opts[i].arg) : 0);
    if (l > w) w = l;
  }
  for (int i = 0; i < n_opts; i++) {
    char left[160];
    snprintf(left, sizeof left, "%s%s%s", opts[i].name, opts[i].arg ? " " : "",
             opts[i].arg ? opts[i].arg : "");
    fprintf(f, "  %-*s  %s\n", w, left, opts[i].help ? opts[i].help : "");
  }
}

void el__cli_print_wrapped(FILE *f, const el_opt *opts, int n_opts) {
  enum { INDENT = 8, WIDTH = 70 };
  for (int i = 0; i < n_opts; i++) {
    fprintf(f, "  %s%s%s\n", opts[i].name, opts[i].arg ? " " : "", opts[i].arg ? opts[i].arg : "");
    const char *p = opts[i].help ? opts[i].help : "";
    int col = 0;
    while (*p) {
      while (*p == ' ' || *p == '\n') p++;
      size_t w = strcspn(p, " \n");
      if (!w) break;
      if (col && col + 1 + (int)w > WIDTH) {
        fputc('\n', f);
        col = 0;
      }
      fprintf(f, "%*s%.*s", col ? 1 : INDENT, "", (int)w, p);
      col += (col ? 1 : 0) + (int)w;
      p += w;
    }
    fputc('\n', f);
  }
}

/* ---- a command line from values ---- */

/* x as the shortest text that reads back as x ("0.12", not 0.11999...). */
static void shortest(double x, char *buf, size_t cap) {
  for (int p = 1; p <= 17; p++) {
    snprintf(buf, cap, "%.*g", p, x);
    if (strtod(buf, NULL) == x) return;
  }
}

/* The text of o's value as its option takes it (a flag that is on: ""),
 * or NULL when it has none (a string not given, a flag that is off). */
static const char *value_text(const el_opt *o, char *buf, size_t cap) {
  switch (o->kind) {
    case EL_OPT_FLAG: return *(const int *)o->dst ? "" : NULL;
    case EL_OPT_INT: snprintf(buf, cap, "%ld", *(const long *)o->dst); return buf;
    case EL_OPT_INT32: snprintf(buf, cap, "%d", *(const int *)o->dst); return buf;
    case EL_OPT_FLOAT: shortest(*(const double *)o->dst, buf, cap); return buf;
    case EL_OPT_DURATION: /* seconds, which el__parse_duration reads with or without the s */
      shortest(*(const double *)o->dst, buf, cap - 1);
      strcat(buf, "s");
      return buf;
    case EL_OPT_STR:
    case EL_OPT_CHOICE: return *(const char *const *)o->dst;
    case EL_OPT_TEXT: return *(const char *)o->dst ? (const char *)o->dst : NULL;
    case EL_OPT_STRS:
    case EL_OPT_CUSTOM: break;
  }
  return NULL;
}

static int strs_differ(const el_strlist *a, const el_strlist *b) {
  if (a->n != b->n) return 1;
  for (int i = 0; i < a->n; i++)
    if (strcmp(a->v[i], b->v[i])) return 1;
  return 0;
}

static void print_value(FILE *f, const el_opt *o, const el_opt *dflt) {
  if (o->kind == EL_OPT_STRS) {
    const el_strlist *l = o->dst;
    if (!strs_differ(l, dflt->dst)) return;
    fprintf(f, " %s", o->name);
    for (int i = 0; i < l->n; i++) fprintf(f, " %s", l->v[i]);
    return;
  }
  char a[64], b[64];
  const char *v = value_text(o, a, sizeof a), *d = value_text(dflt, b, sizeof b);
  if (!v || (d && !strcmp(v, d))) return;
  fprintf(f, " %s%s%s", o->name, *v ? " " : "", v);
}

void el__cli_print_command(FILE *f, const el_opt *opts, const el_opt *defaults, int n_opts) {
  for (int i = 0; i < n_opts; i++) print_value(f, &opts[i], &defaults[i]);
}
