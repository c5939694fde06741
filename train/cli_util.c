/* Option table parsing for the electra-train subcommands (see cli_util.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli_util.h"

int el_parse_long(const char *s, long *out) {
  if (!s || !*s) return -1;
  errno = 0;
  char *end;
  long v = strtol(s, &end, 10);
  if (errno || *end) return -1;
  *out = v;
  return 0;
}

int el_parse_double(const char *s, double *out) {
  if (!s || !*s) return -1;
  errno = 0;
  char *end;
  double v = strtod(s, &end);
  if (errno || *end || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

int el_parse_duration(const char *s, double *seconds) {
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

const char *el_format_duration(double seconds, char *buf, int n) {
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

el_opt *el_cli_find(el_opt *opts, int n_opts, const char *name) {
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

/* Stores one value; returns 0 or prints the problem and returns -1. */
static int store(const char *prog, el_opt *o, const char *v) {
  switch (o->kind) {
    case EL_OPT_INT: {
      long x;
      if (el_parse_long(v, &x)) {
        fprintf(stderr, "%s: %s expects an integer, got '%s'\n", prog, o->name, v);
        return -1;
      }
      if (x < o->lo || x > o->hi) {
        fprintf(stderr, "%s: %s must be between %.0f and %.0f, got %ld\n", prog, o->name, o->lo,
                o->hi, x);
        return -1;
      }
      *(long *)o->dst = x;
      return 0;
    }
    case EL_OPT_FLOAT: {
      double x;
      if (el_parse_double(v, &x)) {
        fprintf(stderr, "%s: %s expects a number, got '%s'\n", prog, o->name, v);
        return -1;
      }
      if (x < o->lo || x > o->hi) {
        fprintf(stderr, "%s: %s must be between %g and %g, got %g\n", prog, o->name, o->lo, o->hi,
                x);
        return -1;
      }
      *(double *)o->dst = x;
      return 0;
    }
    case EL_OPT_DURATION: {
      double x;
      if (el_parse_duration(v, &x)) {
        fprintf(stderr, "%s: %s expects a duration such as 90s, 10m, 2h or 1h30m, got '%s'\n",
                prog, o->name, v);
        return -1;
      }
      if (x < o->lo || x > o->hi) {
        fprintf(stderr, "%s: %s must be between %gs and %gs, got %gs\n", prog, o->name, o->lo,
                o->hi, x);
        return -1;
      }
      *(double *)o->dst = x;
      return 0;
    }
    case EL_OPT_STR:
      if (!*v) {
        fprintf(stderr, "%s: %s expects a non-empty value\n", prog, o->name);
        return -1;
      }
      *(const char **)o->dst = v;
      return 0;
    case EL_OPT_CHOICE:
      if (!choice_ok(o->arg, v)) {
        fprintf(stderr, "%s: %s must be one of %s, got '%s'\n", prog, o->name, o->arg, v);
        return -1;
      }
      *(const char **)o->dst = v;
      return 0;
    default:
      return -1;
  }
}

int el_cli_parse(const char *prog, el_opt *opts, int n_opts, int argc, char **argv,
                 void (*usage)(FILE *)) {
  for (int i = 0; i < n_opts; i++) opts[i].seen = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      if (usage) usage(stdout);
      return EL_CLI_HELP;
    }
    if (strncmp(a, "--", 2)) {
      fprintf(stderr, "%s: unexpected argument '%s' (options start with --; see --help)\n", prog,
              a);
      return EL_CLI_ERROR;
    }
    char name[64];
    const char *eq = strchr(a, '=');
    size_t nl = eq ? (size_t)(eq - a) : strlen(a);
    if (nl >= sizeof name) nl = sizeof name - 1;
    memcpy(name, a, nl);
    name[nl] = 0;
    el_opt *o = el_cli_find(opts, n_opts, name);
    if (!o) {
      fprintf(stderr, "%s: unknown option '%s' (see --help)\n", prog, name);
      return EL_CLI_ERROR;
    }
    if (o->seen) {
      fprintf(stderr, "%s: %s given twice\n", prog, o->name);
      return EL_CLI_ERROR;
    }
    o->seen = 1;
    if (o->kind == EL_OPT_FLAG) {
      if (eq) {
        fprintf(stderr, "%s: %s takes no value\n", prog, o->name);
        return EL_CLI_ERROR;
      }
      *(int *)o->dst = 1;
      continue;
    }
    if (o->kind == EL_OPT_STRS) {
      if (eq) {
        fprintf(stderr, "%s: write %s PATH... with spaces, not '='\n", prog, o->name);
        return EL_CLI_ERROR;
      }
      int j = i + 1;
      while (j < argc && strncmp(argv[j], "--", 2)) j++;
      if (j == i + 1) {
        fprintf(stderr, "%s: %s expects at least one value\n", prog, o->name);
        return EL_CLI_ERROR;
      }
      el_strlist *l = o->dst;
      l->v = argv + i + 1;
      l->n = j - i - 1;
      i = j - 1;
      continue;
    }
    const char *v;
    if (eq) {
      v = eq + 1;
    } else {
      if (i + 1 >= argc) {
        fprintf(stderr, "%s: %s expects a value%s%s\n", prog, o->name, o->arg ? " " : "",
                o->arg ? o->arg : "");
        return EL_CLI_ERROR;
      }
      v = argv[++i];
    }
    if (store(prog, o, v)) return EL_CLI_ERROR;
  }
  return EL_CLI_OK;
}

void el_cli_print_options(FILE *f, const el_opt *opts, int n_opts) {
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
