/* Internal: how el_cpu_quota() finds the CPUs a container may use.
 *
 * A pod limited to 2 CPUs on a 64-core node still sees 64 online cores and
 * an affinity mask of 64; only the cgroup CPU controller knows the limit.
 * The reading is split into pure parsers over file contents (so tests feed
 * them many inputs) and one reader, el__cgroup_cpu_limit(), that takes a
 * path prefix so tests can point it at a fake /proc + /sys tree.
 *
 * Limits are whole cores, rounded up: a quota of 1.5 CPUs runs 2 threads,
 * each throttled a little, rather than leaving half a core idle. */
#ifndef ELECTRA_ENGINE_CPUQUOTA_H
#define ELECTRA_ENGINE_CPUQUOTA_H

#include <stddef.h>

/* Return values of the parsers besides a positive core count. */
#define EL__CPU_UNLIMITED 0  /* the file says "no limit" */
#define EL__CPU_MALFORMED -1 /* unreadable contents: ignored by callers */

/* cgroup v2 cpu.max contents, "$MAX $PERIOD" ("max 100000", "150000 100000\n").
 * A missing period means the kernel default 100000. Returns ceil(max/period),
 * EL__CPU_UNLIMITED for "max", EL__CPU_MALFORMED otherwise (NULL included). */
int el__cpu_max_parse(const char *text);

/* cgroup v1 cpu.cfs_quota_us and cpu.cfs_period_us contents. A quota of -1
 * (any negative) means unlimited. Same returns as el__cpu_max_parse. */
int el__cfs_quota_parse(const char *quota, const char *period);

/* This process's cgroup path from /proc/self/cgroup contents: the v2 line
 * ("0::/path") when controller is NULL, else the v1 line whose controller
 * list contains controller ("4:cpu,cpuacct:/path"). Writes a NUL-terminated
 * path into out[n]. Returns 0, or -1 when absent or longer than n - 1. */
int el__cgroup_path(const char *proc_cgroup, const char *controller, char *out, size_t n);

/* The mount of the cgroup2 hierarchy (controller NULL) or of the v1
 * hierarchy carrying controller, from /proc/self/mountinfo contents. Writes
 * the mount point into mnt[mn] and the mounted root (which part of the
 * hierarchy the mount shows, "/" unless the mount is a bind of a sub-tree)
 * into root[rn]; octal escapes ("\040") are decoded. Returns 0 or -1. */
int el__cgroup_mount(const char *mountinfo, const char *controller, char *mnt, size_t mn,
                     char *root, size_t rn);

/* Folds the three sources into the answer: limit (cores from the cgroup,
 * <= 0 for none), affinity (CPUs in the affinity mask, <= 0 unknown), online
 * (online cores, <= 0 unknown). Never above the affinity count, always >= 1. */
int el__cpu_quota_combine(int limit, int affinity, int online);

/* The tightest CPU limit, in cores, of this process's cgroup and its
 * ancestors, v2 and v1 hierarchies both, reading every file under prefix
 * ("" for the real system, "/tmp/fake" in tests: then
 * "/tmp/fake/proc/self/cgroup" and the mount points found in
 * "/tmp/fake/proc/self/mountinfo" are read under that prefix too).
 * Returns EL__CPU_UNLIMITED when no limit is set or nothing is readable. */
int el__cgroup_cpu_limit(const char *prefix);

#endif
