/* el_cpu_quota: the CPUs this process may really use (see cpuquota.h). */
#include "cpuquota.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "electra/engine.h"

/* Parses a whole-token positive decimal integer at *s, moving *s past it. */
static int parse_positive(const char **s, long long *out) {
  const char *p = *s;
  if (*p < '0' || *p > '9') return -1;
  errno = 0;
  char *end;
  long long v = strtoll(p, &end, 10);
  if (errno == ERANGE || v <= 0) return -1;
  if (*end != '\0' && *end != ' ' && *end != '\t' && *end != '\n') return -1;
  *s = end;
  *out = v;
  return 0;
}

static const char *skip_blank(const char *s) {
  while (*s == ' ' || *s == '\t') s++;
  return s;
}

/* Only trailing whitespace (the kernel ends its files with '\n') may follow. */
static int at_end(const char *s) {
  while (*s == ' ' || *s == '\t' || *s == '\n') s++;
  return *s == '\0';
}

static int ceil_cores(long long quota, long long period) {
  long long c = quota / period + (quota % period != 0);
  return c > INT_MAX ? INT_MAX : (int)c;
}

int el__cpu_max_parse(const char *text) {
  if (!text) return EL__CPU_MALFORMED;
  const char *s = skip_blank(text);
  long long quota = -1, period = 100000;
  if (strncmp(s, "max", 3) == 0 && (s[3] == '\0' || s[3] == ' ' || s[3] == '\t' || s[3] == '\n')) {
    s += 3;
  } else if (parse_positive(&s, &quota) != 0) {
    return EL__CPU_MALFORMED;
  }
  s = skip_blank(s);
  if (*s != '\0' && *s != '\n' && parse_positive(&s, &period) != 0) return EL__CPU_MALFORMED;
  if (!at_end(s)) return EL__CPU_MALFORMED;
  return quota < 0 ? EL__CPU_UNLIMITED : ceil_cores(quota, period);
}

int el__cfs_quota_parse(const char *quota, const char *period) {
  if (!quota || !period) return EL__CPU_MALFORMED;
  const char *q = skip_blank(quota), *p = skip_blank(period);
  long long pv;
  if (parse_positive(&p, &pv) != 0 || !at_end(p)) return EL__CPU_MALFORMED;
  if (*q == '-') { /* the kernel writes -1; any negative means no limit */
    errno = 0;
    char *end;
    long long v = strtoll(q, &end, 10);
    if (errno == ERANGE || end == q + 1 || v >= 0 || !at_end(end)) return EL__CPU_MALFORMED;
    return EL__CPU_UNLIMITED;
  }
  long long qv;
  if (parse_positive(&q, &qv) != 0 || !at_end(q)) return EL__CPU_MALFORMED;
  return ceil_cores(qv, pv);
}

/* Is tok (length len) one of the comma-separated items of list[0..ln)? */
static int list_has(const char *list, size_t ln, const char *tok) {
  size_t tl = strlen(tok);
  const char *p = list, *end = list + ln;
  while (p < end) {
    const char *c = memchr(p, ',', (size_t)(end - p));
    size_t il = c ? (size_t)(c - p) : (size_t)(end - p);
    if (il == tl && memcmp(p, tok, tl) == 0) return 1;
    if (!c) break;
    p = c + 1;
  }
  return 0;
}

int el__cgroup_path(const char *proc_cgroup, const char *controller, char *out, size_t n) {
  if (!proc_cgroup || !out || n == 0) return -1;
  for (const char *line = proc_cgroup; *line;) {
    const char *eol = strchr(line, '\n');
    if (!eol) eol = line + strlen(line);
    const char *c1 = memchr(line, ':', (size_t)(eol - line));
    const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) : NULL;
    if (c2) {
      const char *ctl = c1 + 1;
      size_t cl = (size_t)(c2 - ctl);
      int match = controller ? list_has(ctl, cl, controller)
                             : (c1 - line == 1 && line[0] == '0' && cl == 0);
      size_t pl = (size_t)(eol - c2 - 1);
      if (match && pl > 0 && pl < n) {
        memcpy(out, c2 + 1, pl);
        out[pl] = '\0';
        return 0;
      }
    }
    line = *eol ? eol + 1 : eol;
  }
  return -1;
}

/* Copies field [s, e) into out[n] decoding mountinfo's "\ooo" escapes. */
static int copy_unescaped(const char *s, const char *e, char *out, size_t n) {
  size_t k = 0;
  while (s < e) {
    char ch = *s++;
    if (ch == '\\' && e - s >= 3 && s[0] >= '0' && s[0] <= '3' && s[1] >= '0' && s[1] <= '7' &&
        s[2] >= '0' && s[2] <= '7') {
      ch = (char)((s[0] - '0') * 64 + (s[1] - '0') * 8 + (s[2] - '0'));
      s += 3;
    }
    if (k + 1 >= n) return -1;
    out[k++] = ch;
  }
  out[k] = '\0';
  return 0;
}

/* Splits line [s, e) into at most max space-separated fields. */
static int split_fields(const char *s, const char *e, const char **fs, const char **fe, int max) {
  int nf = 0;
  while (s < e && nf < max) {
    while (s < e && *s == ' ') s++;
    if (s >= e) break;
    fs[nf] = s;
    while (s < e && *s != ' ') s++;
    fe[nf++] = s;
  }
  return nf;
}

int el__cgroup_mount(const char *mountinfo, const char *controller, char *mnt, size_t mn,
                     char *root, size_t rn) {
  if (!mountinfo || !mnt || !root) return -1;
  enum { MAXF = 32 };
  for (const char *line = mountinfo; *line;) {
    const char *eol = strchr(line, '\n');
    if (!eol) eol = line + strlen(line);
    const char *fs[MAXF], *fe[MAXF];
    int nf = split_fields(line, eol, fs, fe, MAXF);
    /* id parent dev root mountpoint opts [optional...] - fstype source superopts */
    int sep = -1;
    for (int i = 6; i < nf; i++)
      if (fe[i] - fs[i] == 1 && fs[i][0] == '-') { sep = i; break; }
    if (sep > 0 && sep + 1 < nf) {
      size_t tl = (size_t)(fe[sep + 1] - fs[sep + 1]);
      int match;
      if (!controller) {
        match = tl == 7 && memcmp(fs[sep + 1], "cgroup2", 7) == 0;
      } else {
        match = tl == 6 && memcmp(fs[sep + 1], "cgroup", 6) == 0 && sep + 3 < nf &&
                list_has(fs[sep + 3], (size_t)(fe[sep + 3] - fs[sep + 3]), controller);
      }
      if (match && copy_unescaped(fs[3], fe[3], root, rn) == 0 &&
          copy_unescaped(fs[4], fe[4], mnt, mn) == 0)
        return 0;
    }
    line = *eol ? eol + 1 : eol;
  }
  return -1;
}

int el__cpu_quota_combine(int limit, int affinity, int online) {
  int n = affinity > 0 ? affinity : online > 0 ? online : 1;
  if (limit > 0 && limit < n) n = limit;
  return n;
}

/* Reads a small file whole into a malloc'd NUL-terminated buffer (caller
 * frees), at most cap bytes; NULL when it cannot be read. */
static char *slurp(const char *path, size_t cap) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  size_t size = 4096, len = 0;
  char *buf = malloc(size);
  while (buf) {
    size_t got = fread(buf + len, 1, size - 1 - len, f);
    len += got;
    if (len < size - 1) break; /* short read: end of file or error */
    if (size >= cap) break;
    char *nb = realloc(buf, size * 2);
    if (!nb) { free(buf); buf = NULL; break; }
    buf = nb;
    size *= 2;
  }
  int bad = ferror(f);
  fclose(f);
  if (!buf) return NULL;
  if (bad) { free(buf); return NULL; }
  buf[len] = '\0';
  return buf;
}

/* out = a + b + c; -1 when it does not fit (the path is then not read:
 * a truncated path could name another file). */
static int path_join(char *out, size_t n, const char *a, const char *b, const char *c) {
  int w = snprintf(out, n, "%s%s%s", a, b, c);
  return w < 0 || (size_t)w >= n ? -1 : 0;
}

static int read_v2(const char *dir) {
  char path[PATH_MAX];
  if (path_join(path, sizeof path, dir, "/cpu.max", "") != 0) return EL__CPU_MALFORMED;
  char *t = slurp(path, 4096);
  int r = el__cpu_max_parse(t);
  free(t);
  return r;
}

static int read_v1(const char *dir) {
  char path[PATH_MAX];
  if (path_join(path, sizeof path, dir, "/cpu.cfs_quota_us", "") != 0) return EL__CPU_MALFORMED;
  char *q = slurp(path, 4096);
  char *p = NULL;
  if (path_join(path, sizeof path, dir, "/cpu.cfs_period_us", "") == 0) p = slurp(path, 4096);
  int r = el__cfs_quota_parse(q, p);
  free(q);
  free(p);
  return r;
}

/* Tightest limit along the process's cgroup and its ancestors within one
 * hierarchy mounted at mnt (showing the hierarchy's sub-tree root). A parent
 * limit binds its children, so the minimum over the chain is what counts. */
static int chain_limit(const char *prefix, const char *mnt, const char *root, const char *cg,
                       int v2) {
  /* cg is relative to the hierarchy; the mount shows it from root down. */
  char rel[PATH_MAX];
  size_t rl = strlen(root);
  if (strcmp(root, "/") == 0) {
    snprintf(rel, sizeof rel, "%s", cg);
  } else if (strncmp(cg, root, rl) == 0 && (cg[rl] == '/' || cg[rl] == '\0')) {
    snprintf(rel, sizeof rel, "%s", cg + rl);
  } else {
    rel[0] = '\0'; /* our cgroup is outside what is mounted: read the top only */
  }
  int best = EL__CPU_UNLIMITED;
  for (;;) {
    size_t n = strlen(rel);
    while (n > 0 && rel[n - 1] == '/') rel[--n] = '\0';
    char dir[PATH_MAX];
    int r = path_join(dir, sizeof dir, prefix, mnt, rel) != 0 ? EL__CPU_MALFORMED
            : v2                                              ? read_v2(dir)
                                                              : read_v1(dir);
    if (r > 0 && (best == EL__CPU_UNLIMITED || r < best)) best = r;
    char *slash = strrchr(rel, '/');
    if (!slash) break;
    *slash = '\0';
  }
  return best;
}

static int hierarchy_limit(const char *prefix, const char *proc_cgroup, const char *mountinfo,
                           int v2) {
  const char *ctl = v2 ? NULL : "cpu";
  char cg[PATH_MAX], mnt[PATH_MAX], root[PATH_MAX];
  if (el__cgroup_path(proc_cgroup, ctl, cg, sizeof cg) != 0) snprintf(cg, sizeof cg, "/");
  if (el__cgroup_mount(mountinfo, ctl, mnt, sizeof mnt, root, sizeof root) == 0)
    return chain_limit(prefix, mnt, root, cg, v2);
  /* No mount table: try where distributions mount the hierarchy. */
  if (v2) return chain_limit(prefix, "/sys/fs/cgroup", "/", cg, 1);
  int r = chain_limit(prefix, "/sys/fs/cgroup/cpu", "/", cg, 0);
  return r > 0 ? r : chain_limit(prefix, "/sys/fs/cgroup/cpu,cpuacct", "/", cg, 0);
}

int el__cgroup_cpu_limit(const char *prefix) {
  if (!prefix) prefix = "";
  char path[PATH_MAX];
  char *proc_cgroup = NULL, *mountinfo = NULL;
  if (path_join(path, sizeof path, prefix, "/proc/self/cgroup", "") == 0)
    proc_cgroup = slurp(path, 1 << 20);
  if (path_join(path, sizeof path, prefix, "/proc/self/mountinfo", "") == 0)
    mountinfo = slurp(path, 16 << 20);
  /* Hybrid systems mount both; the cpu controller lives in one of them. */
  int a = hierarchy_limit(prefix, proc_cgroup ? proc_cgroup : "", mountinfo ? mountinfo : "", 1);
  int b = hierarchy_limit(prefix, proc_cgroup ? proc_cgroup : "", mountinfo ? mountinfo : "", 0);
  free(proc_cgroup);
  free(mountinfo);
  if (a > 0 && b > 0) return a < b ? a : b;
  return a > 0 ? a : b > 0 ? b : EL__CPU_UNLIMITED;
}

/* CPUs in the affinity mask; the set grows for machines past CPU_SETSIZE. */
static int affinity_count(void) {
  for (int ncpu = 1024; ncpu <= (1 << 20); ncpu *= 4) {
    cpu_set_t *set = CPU_ALLOC((size_t)ncpu);
    if (!set) return -1;
    size_t sz = CPU_ALLOC_SIZE((size_t)ncpu);
    CPU_ZERO_S(sz, set);
    if (sched_getaffinity(0, sz, set) == 0) {
      int n = CPU_COUNT_S(sz, set);
      CPU_FREE(set);
      return n;
    }
    int e = errno;
    CPU_FREE(set);
    if (e != EINVAL) return -1;
  }
  return -1;
}

int el_cpu_quota(void) {
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  return el__cpu_quota_combine(el__cgroup_cpu_limit(""), affinity_count(),
                               online > INT_MAX ? INT_MAX : (int)online);
}
