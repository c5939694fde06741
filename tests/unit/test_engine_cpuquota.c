/* el_cpu_quota: cgroup v2/v1 parsing on many inputs, the reader on fake
 * /proc + /sys trees, and the real call bounded by the affinity mask. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpuquota.h"
#include "electra/engine.h"
#include "../test.h"

static void test_cpu_max(void) {
  static const struct {
    const char *text;
    int want;
  } cases[] = {
      {"max 100000\n", EL__CPU_UNLIMITED},
      {"max", EL__CPU_UNLIMITED},
      {"max\n", EL__CPU_UNLIMITED},
      {"200000 100000\n", 2},
      {"150000 100000\n", 2}, /* 1.5 CPUs -> 2 threads (rounded up) */
      {"50000 100000\n", 1},
      {"1000 100000", 1},
      {"100000 100000", 1},
      {"100001 100000", 2},
      {"400000 100000\n", 4},
      {"250000\n", 3}, /* period omitted: kernel default 100000 */
      {"50000 25000\n", 2},
      {" 200000 100000", 2},
      {"", EL__CPU_MALFORMED},
      {"\n", EL__CPU_MALFORMED},
      {"abc 100000", EL__CPU_MALFORMED},
      {"maximum 100000", EL__CPU_MALFORMED},
      {"200000 0", EL__CPU_MALFORMED},
      {"0 100000", EL__CPU_MALFORMED},
      {"-5 100000", EL__CPU_MALFORMED},
      {"200000 -100000", EL__CPU_MALFORMED},
      {"200000 100000 7", EL__CPU_MALFORMED},
      {"200000x 100000", EL__CPU_MALFORMED},
      {"200000 100000x", EL__CPU_MALFORMED},
      {"99999999999999999999 100000", EL__CPU_MALFORMED}, /* overflows long long */
      {"max 100000 junk", EL__CPU_MALFORMED},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int got = el__cpu_max_parse(cases[i].text);
    CHECK(got == cases[i].want, "cpu.max \"%.*s\" -> %d (got %d)",
          (int)strcspn(cases[i].text, "\n"), cases[i].text, cases[i].want, got);
  }
  CHECK(el__cpu_max_parse(NULL) == EL__CPU_MALFORMED, "cpu.max NULL (missing file) is malformed");
  /* A quota far above INT_MAX cores saturates instead of wrapping negative. */
  CHECK(el__cpu_max_parse("9000000000000000 1") > 0, "huge quota stays positive");
}

static void test_cfs(void) {
  static const struct {
    const char *q, *p;
    int want;
  } cases[] = {
      {"-1\n", "100000\n", EL__CPU_UNLIMITED},
      {"-1", "100000", EL__CPU_UNLIMITED},
      {"200000\n", "100000\n", 2},
      {"150000", "100000", 2},
      {"50000", "100000", 1},
      {"300000", "50000", 6},
      {"x", "100000", EL__CPU_MALFORMED},
      {"-", "100000", EL__CPU_MALFORMED},
      {"0", "100000", EL__CPU_MALFORMED},
      {"200000", "0", EL__CPU_MALFORMED},
      {"200000", "", EL__CPU_MALFORMED},
      {"", "100000", EL__CPU_MALFORMED},
      {"200000 5", "100000", EL__CPU_MALFORMED},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int got = el__cfs_quota_parse(cases[i].q, cases[i].p);
    CHECK(got == cases[i].want, "cfs quota \"%.*s\" period \"%.*s\" -> %d (got %d)",
          (int)strcspn(cases[i].q, "\n"), cases[i].q, (int)strcspn(cases[i].p, "\n"),
          cases[i].p, cases[i].want, got);
  }
  CHECK(el__cfs_quota_parse(NULL, "100000") == EL__CPU_MALFORMED, "cfs: missing quota file");
  CHECK(el__cfs_quota_parse("200000", NULL) == EL__CPU_MALFORMED, "cfs: missing period file");
}

static void test_cgroup_path(void) {
  const char *v1 = "12:pids:/docker/abc\n"
                   "5:cpuset:/docker/cpuset-only\n"
                   "4:cpu,cpuacct:/docker/abc\n"
                   "1:name=systemd:/docker/sd\n"
                   "0::/unified/path\n";
  char out[256];
  CHECK(el__cgroup_path(v1, "cpu", out, sizeof out) == 0 && strcmp(out, "/docker/abc") == 0,
        "v1 cpu path found past cpuset (got %s)", out);
  CHECK(el__cgroup_path(v1, NULL, out, sizeof out) == 0 && strcmp(out, "/unified/path") == 0,
        "v2 line 0:: found (got %s)", out);
  CHECK(el__cgroup_path("0::/kubepods/burstable/pod1/c1", NULL, out, sizeof out) == 0 &&
            strcmp(out, "/kubepods/burstable/pod1/c1") == 0,
        "v2 path without trailing newline");
  CHECK(el__cgroup_path("0::/a:b\n", NULL, out, sizeof out) == 0 && strcmp(out, "/a:b") == 0,
        "path may contain ':'");
  CHECK(el__cgroup_path("3:cpuset:/x\n", "cpu", out, sizeof out) != 0,
        "cpuset does not match controller cpu");
  CHECK(el__cgroup_path("4:cpu,cpuacct:/x\n", NULL, out, sizeof out) != 0, "no v2 line");
  CHECK(el__cgroup_path("", "cpu", out, sizeof out) != 0, "empty file");
  CHECK(el__cgroup_path("garbage without colons\n", "cpu", out, sizeof out) != 0, "garbage");
  CHECK(el__cgroup_path("0::/long/path\n", NULL, out, 5) != 0, "path longer than buffer refused");
}

static void test_cgroup_mount(void) {
  const char *mi =
      "22 1 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
      "30 25 0:26 / /sys/fs/cgroup/unified rw,nosuid shared:10 - cgroup2 cgroup2 rw,nsdelegate\n"
      "31 25 0:27 / /sys/fs/cgroup/cpuset rw,nosuid shared:11 - cgroup cgroup rw,cpuset\n"
      "32 25 0:28 /docker/abc /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:13 master:2 - cgroup "
      "cgroup rw,cpu,cpuacct\n"
      "33 25 0:29 / /mnt/with\\040space rw - cgroup cgroup rw,memory\n";
  char mnt[256], root[256];
  CHECK(el__cgroup_mount(mi, NULL, mnt, sizeof mnt, root, sizeof root) == 0 &&
            strcmp(mnt, "/sys/fs/cgroup/unified") == 0 && strcmp(root, "/") == 0,
        "cgroup2 mount found (got %s)", mnt);
  CHECK(el__cgroup_mount(mi, "cpu", mnt, sizeof mnt, root, sizeof root) == 0 &&
            strcmp(mnt, "/sys/fs/cgroup/cpu,cpuacct") == 0 && strcmp(root, "/docker/abc") == 0,
        "v1 cpu mount found past cpuset, with optional fields (got %s root %s)", mnt, root);
  CHECK(el__cgroup_mount(mi, "memory", mnt, sizeof mnt, root, sizeof root) == 0 &&
            strcmp(mnt, "/mnt/with space") == 0,
        "octal escape decoded (got '%s')", mnt);
  CHECK(el__cgroup_mount(mi, "pids", mnt, sizeof mnt, root, sizeof root) != 0,
        "absent controller not found");
  CHECK(el__cgroup_mount("1 2 3\nshort line - x\n", NULL, mnt, sizeof mnt, root, sizeof root) != 0,
        "malformed lines skipped");
  CHECK(el__cgroup_mount(mi, NULL, mnt, 4, root, sizeof root) != 0, "mount point too long refused");
}

static void test_combine(void) {
  CHECK(el__cpu_quota_combine(0, 8, 16) == 8, "no limit: affinity count");
  CHECK(el__cpu_quota_combine(2, 8, 16) == 2, "limit below affinity");
  CHECK(el__cpu_quota_combine(16, 8, 64) == 8, "never above affinity");
  CHECK(el__cpu_quota_combine(0, -1, 4) == 4, "affinity unknown: online cores");
  CHECK(el__cpu_quota_combine(3, -1, 2) == 2, "limit capped by online when affinity unknown");
  CHECK(el__cpu_quota_combine(0, -1, -1) == 1, "nothing known: 1");
  CHECK(el__cpu_quota_combine(-1, 0, 0) == 1, "always >= 1");
}

/* ---- fake /proc + /sys trees ---- */

static char base[64];

static void put(const char *rel, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", base, rel);
  for (char *s = path + strlen(base) + 1; *s; s++) { /* mkdir -p of the parent */
    if (*s != '/') continue;
    *s = '\0';
    mkdir(path, 0755);
    *s = '/';
  }
  FILE *f = fopen(path, "w");
  if (!f) { perror(path); exit(1); }
  fputs(text, f);
  fclose(f);
}

static int tree_no = 0;
static const char *new_tree(void) {
  snprintf(base, sizeof base, "%s/t%d", getenv("EL_FAKE_ROOT"), ++tree_no);
  mkdir(base, 0755);
  return base;
}

static void test_trees(void) {
  /* v2 without a cgroup namespace: the pod's limit sits on an ancestor. */
  const char *r = new_tree();
  put("proc/self/cgroup", "0::/kubepods/pod1/c1\n");
  put("proc/self/mountinfo", "30 25 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
  put("sys/fs/cgroup/kubepods/pod1/c1/cpu.max", "max 100000\n");
  put("sys/fs/cgroup/kubepods/pod1/cpu.max", "150000 100000\n");
  put("sys/fs/cgroup/kubepods/cpu.max", "800000 100000\n");
  CHECK(el__cgroup_cpu_limit(r) == 2, "v2: tightest ancestor (1.5 CPUs -> 2) (got %d)",
        el__cgroup_cpu_limit(r));

  /* v2 inside a cgroup namespace: our cgroup is the mount's top. */
  r = new_tree();
  put("proc/self/cgroup", "0::/\n");
  put("proc/self/mountinfo", "30 25 0:26 / /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n");
  put("sys/fs/cgroup/cpu.max", "300000 100000\n");
  CHECK(el__cgroup_cpu_limit(r) == 3, "v2 namespaced: 3 (got %d)", el__cgroup_cpu_limit(r));

  /* v2, limit "max" everywhere. */
  r = new_tree();
  put("proc/self/cgroup", "0::/a\n");
  put("proc/self/mountinfo", "30 25 0:26 / /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n");
  put("sys/fs/cgroup/a/cpu.max", "max 100000\n");
  CHECK(el__cgroup_cpu_limit(r) == EL__CPU_UNLIMITED, "v2 max: unlimited");

  /* v2 with a malformed file: ignored, the ancestor's limit still counts. */
  r = new_tree();
  put("proc/self/cgroup", "0::/a/b\n");
  put("proc/self/mountinfo", "30 25 0:26 / /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n");
  put("sys/fs/cgroup/a/b/cpu.max", "garbage\n");
  put("sys/fs/cgroup/a/cpu.max", "50000 100000\n");
  CHECK(el__cgroup_cpu_limit(r) == 1, "v2 malformed child ignored, parent 0.5 -> 1");

  /* v1 (Docker on cgroup v1): the mount shows a sub-tree of the hierarchy. */
  r = new_tree();
  put("proc/self/cgroup", "4:cpu,cpuacct:/docker/abc\n1:name=systemd:/docker/abc\n");
  put("proc/self/mountinfo",
      "32 25 0:28 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro - cgroup cgroup rw,cpu,cpuacct\n");
  put("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "200000\n");
  put("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  CHECK(el__cgroup_cpu_limit(r) == 2, "v1 bind-mounted sub-tree: 2 (got %d)",
        el__cgroup_cpu_limit(r));

  /* v1 without namespace: full hierarchy mounted, our cgroup deeper. */
  r = new_tree();
  put("proc/self/cgroup", "4:cpu,cpuacct:/svc/app\n");
  put("proc/self/mountinfo", "32 25 0:28 / /sys/fs/cgroup/cpu ro - cgroup cgroup rw,cpu,cpuacct\n");
  put("sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n");
  put("sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
  put("sys/fs/cgroup/cpu/svc/app/cpu.cfs_quota_us", "350000\n");
  put("sys/fs/cgroup/cpu/svc/app/cpu.cfs_period_us", "100000\n");
  CHECK(el__cgroup_cpu_limit(r) == 4, "v1 nested cgroup 3.5 -> 4 (got %d)",
        el__cgroup_cpu_limit(r));

  /* Hybrid: cgroup2 mounted without the cpu controller, v1 has the limit. */
  r = new_tree();
  put("proc/self/cgroup", "2:cpu:/\n0::/\n");
  put("proc/self/mountinfo",
      "30 25 0:26 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
      "31 25 0:27 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n");
  put("sys/fs/cgroup/unified/cgroup.controllers", "\n");
  put("sys/fs/cgroup/cpu/cpu.cfs_quota_us", "100000\n");
  put("sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
  CHECK(el__cgroup_cpu_limit(r) == 1, "hybrid: v1 limit found (got %d)", el__cgroup_cpu_limit(r));

  /* No mountinfo: the usual mount point is tried. */
  r = new_tree();
  put("proc/self/cgroup", "0::/\n");
  put("sys/fs/cgroup/cpu.max", "200000 100000\n");
  CHECK(el__cgroup_cpu_limit(r) == 2, "no mountinfo: /sys/fs/cgroup/cpu.max read");

  /* Missing files throughout. */
  r = new_tree();
  CHECK(el__cgroup_cpu_limit(r) == EL__CPU_UNLIMITED, "empty tree: unlimited");
  r = new_tree();
  put("proc/self/cgroup", "0::/gone\n");
  put("proc/self/mountinfo", "30 25 0:26 / /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n");
  CHECK(el__cgroup_cpu_limit(r) == EL__CPU_UNLIMITED, "cgroup dir missing: unlimited");
  r = new_tree();
  put("proc/self/cgroup", "4:cpu:/x\n");
  put("proc/self/mountinfo", "32 25 0:28 / /sys/fs/cgroup/cpu ro - cgroup cgroup rw,cpu\n");
  put("sys/fs/cgroup/cpu/x/cpu.cfs_quota_us", "200000\n"); /* period file missing */
  CHECK(el__cgroup_cpu_limit(r) == EL__CPU_UNLIMITED, "v1 period missing: unlimited");
}

static int affinity(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
  return CPU_COUNT(&set);
}

static void test_real(void) {
  int q = el_cpu_quota(), aff = affinity();
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  printf("# el_cpu_quota() = %d, affinity = %d, online = %ld, cgroup limit = %d\n", q, aff, online,
         el__cgroup_cpu_limit(""));
  CHECK(q >= 1, "real quota >= 1 (got %d)", q);
  CHECK(aff <= 0 || q <= aff, "real quota %d <= affinity %d", q, aff);
  CHECK(q == el__cpu_quota_combine(el__cgroup_cpu_limit(""), aff, (int)online),
        "real quota folds cgroup limit, affinity and online cores");

  /* Narrow the affinity mask to one CPU: the answer must follow it. */
  cpu_set_t old, one;
  if (sched_getaffinity(0, sizeof old, &old) != 0) {
    SKIP("sched_getaffinity failed: %s", strerror(errno));
    return;
  }
  int first = -1;
  for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
    if (CPU_ISSET(c, &old)) first = c;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  if (first < 0 || sched_setaffinity(0, sizeof one, &one) != 0) {
    SKIP("sched_setaffinity not permitted: %s", strerror(errno));
    return;
  }
  int q1 = el_cpu_quota();
  sched_setaffinity(0, sizeof old, &old);
  CHECK(q1 == 1, "affinity of one CPU -> el_cpu_quota() == 1 (got %d)", q1);
}

static int write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  int bad = fputs(text, f) < 0;
  return fclose(f) != 0 || bad ? -1 : 0;
}

static char *read_all(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  return strdup(buf);
}

/* A real cgroup with a 0.5-CPU quota (needs root and a writable cgroup fs,
 * else SKIP): a child moved into it must see el_cpu_quota() == 1. */
static void test_real_cgroup(void) {
  char *mi = read_all("/proc/self/mountinfo"), *pc = read_all("/proc/self/cgroup");
  char mnt[512], root[512], cg[512], dir[2048], path[2100];
  int v2 = -1;
  if (mi && pc && el__cgroup_mount(mi, "cpu", mnt, sizeof mnt, root, sizeof root) == 0 &&
      el__cgroup_path(pc, "cpu", cg, sizeof cg) == 0)
    v2 = 0;
  else if (mi && pc && el__cgroup_mount(mi, NULL, mnt, sizeof mnt, root, sizeof root) == 0 &&
           el__cgroup_path(pc, NULL, cg, sizeof cg) == 0)
    v2 = 1;
  free(mi);
  free(pc);
  if (v2 < 0 || strcmp(root, "/") != 0) {
    SKIP("no cgroup cpu hierarchy mounted whole here: real quota not tested");
    return;
  }
  snprintf(dir, sizeof dir, "%s%s/el-cpuquota-test-%d", mnt, strcmp(cg, "/") ? cg : "",
           (int)getpid());
  if (mkdir(dir, 0755) != 0) {
    SKIP("cannot create cgroup %s (%s): real quota not tested", dir, strerror(errno));
    return;
  }
  int ok;
  if (v2) {
    snprintf(path, sizeof path, "%s/cpu.max", dir);
    ok = write_file(path, "50000 100000") == 0;
  } else {
    snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
    ok = write_file(path, "100000") == 0;
    snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
    ok = ok && write_file(path, "50000") == 0;
  }
  if (!ok) {
    SKIP("cannot set a CPU quota in %s (%s)", dir, strerror(errno));
    rmdir(dir);
    return;
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    char me[32];
    snprintf(me, sizeof me, "%d", (int)getpid());
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    if (write_file(path, me) != 0) _exit(200);
    _exit(el_cpu_quota());
  }
  int st = 0;
  waitpid(pid, &st, 0);
  int got = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  rmdir(dir);
  if (got == 200) {
    SKIP("cannot move a process into %s", dir);
    return;
  }
  printf("# real cgroup %s (v%d): 0.5 CPU quota -> el_cpu_quota() = %d\n", dir, v2 ? 2 : 1, got);
  CHECK(got == 1, "process in a cgroup with a 0.5-CPU quota: el_cpu_quota() == 1 (got %d)", got);
}

int main(void) {
  char tmpl[] = "/tmp/el-cpuquota-XXXXXX";
  if (!mkdtemp(tmpl)) { perror("mkdtemp"); return 1; }
  setenv("EL_FAKE_ROOT", tmpl, 1);
  test_cpu_max();
  test_cfs();
  test_cgroup_path();
  test_cgroup_mount();
  test_combine();
  test_trees();
  test_real();
  test_real_cgroup();
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpl);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpl);
  return el_test_done();
}
