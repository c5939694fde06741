/* The one atomic-write helper (engine/fileio.h: el__atomic_begin / commit /
 * abort, el__write_atomic) that the checkpoint, the token cache, the
 * vocabulary, the resume state, metrics.jsonl, loss.svg and eval.json go
 * through: a new file and a replaced one hold exactly what was written, a
 * reader of the old file keeps the old bytes, and every failure (missing or
 * unwritable directory, a write error, a rename that cannot happen, an abort)
 * names the path, leaves the target as it was and no temporary file behind. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "../test.h"

static char g_dir[256];

static char *slurp(const char *path) {
  char *buf = NULL;
  size_t len = 0;
  el_error err = {0};
  if (el__read_file(path, 1 << 20, &buf, &len, &err)) return NULL;
  return buf;
}

/* Number of entries of dir whose name holds ".tmp-". */
static int temporaries(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));) n += strstr(e->d_name, ".tmp-") != NULL;
  closedir(d);
  return n;
}

static int same_text(const char *path, const char *want) {
  char *got = slurp(path);
  int ok = got && !strcmp(got, want);
  free(got);
  return ok;
}

static void test_writes(void) {
  char path[1024];
  el_error err = {0};
  snprintf(path, sizeof path, "%s/a.txt", g_dir);
  int rc = el__write_atomic(path, "first\n", 6, &err);
  CHECK(rc == EL_OK && same_text(path, "first\n"), "a new file holds what was written: %s",
        err.msg);
  CHECK(temporaries(g_dir) == 0, "no temporary file after a write");

  /* Replacing: a reader that opened the old file keeps reading the old bytes
   * (the new file is renamed over the name, never written in place). */
  int old_fd = open(path, O_RDONLY);
  rc = el__write_atomic(path, "second, longer\n", 15, &err);
  char buf[32] = {0};
  ssize_t n = old_fd >= 0 ? pread(old_fd, buf, sizeof buf - 1, 0) : -1;
  if (old_fd >= 0) close(old_fd);
  CHECK(rc == EL_OK && same_text(path, "second, longer\n"), "a replaced file holds the new bytes");
  CHECK(n == 6 && !strcmp(buf, "first\n"), "an open reader of the old file still sees it whole");

  el__atomic a;
  rc = el__atomic_begin(&a, path, &err);
  int started = rc == EL_OK && a.f && access(a.tmp, F_OK) == 0 && strstr(a.tmp, path) == a.tmp;
  CHECK(started, "begin opens <path>.tmp-<pid> beside the target: %s", rc ? err.msg : a.tmp);
  if (rc) return;
  fprintf(a.f, "streamed %d\n", 3);
  CHECK(same_text(path, "second, longer\n"), "until commit the target is the old file");
  rc = el__atomic_commit(&a, &err);
  CHECK(rc == EL_OK && same_text(path, "streamed 3\n") && temporaries(g_dir) == 0,
        "commit puts the streamed bytes in place, no temporary left");

  rc = el__atomic_begin(&a, path, &err);
  if (rc == EL_OK) {
    fputs("never seen", a.f);
    el__atomic_abort(&a);
  }
  CHECK(rc == EL_OK && same_text(path, "streamed 3\n") && temporaries(g_dir) == 0,
        "abort leaves the target as it was and removes the temporary");

  snprintf(path, sizeof path, "%s/empty.txt", g_dir);
  rc = el__write_atomic(path, "", 0, &err);
  struct stat st;
  CHECK(rc == EL_OK && stat(path, &st) == 0 && st.st_size == 0, "an empty file can be written");
}

static void test_failures(void) {
  char path[1200], sub[1024];
  el_error err = {0};

  /* a directory that does not exist */
  snprintf(path, sizeof path, "%s/no/such/dir/out.txt", g_dir);
  int rc = el__write_atomic(path, "x", 1, &err);
  CHECK(rc == EL_EIO && strstr(err.msg, path) && strstr(err.msg, "cannot create"),
        "a missing directory is EL_EIO naming the path: %s", err.msg);
  CHECK(temporaries(g_dir) == 0, "nothing is left after it");

  /* a "directory" that is a regular file */
  snprintf(sub, sizeof sub, "%s/plain", g_dir);
  el__write_atomic(sub, "f", 1, &err);
  snprintf(path, sizeof path, "%s/out.txt", sub);
  rc = el__write_atomic(path, "x", 1, &err);
  CHECK(rc == EL_EIO && strstr(err.msg, path), "a file as the directory is EL_EIO naming the path: %s",
        err.msg);

  /* an unwritable directory: 0555 for a user; root writes anywhere, so as
   * root a read-only tmpfs mounted there */
  snprintf(sub, sizeof sub, "%s/ro", g_dir);
  mkdir(sub, 0755);
  snprintf(path, sizeof path, "%s/out.txt", sub);
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "mount -t tmpfs -o ro,size=64k tmpfs '%s' 2>/dev/null", sub);
  int mounted = geteuid() == 0 && system(cmd) == 0;
  if (geteuid() != 0 || mounted) {
    if (!mounted) chmod(sub, 0555);
    rc = el__write_atomic(path, "x", 1, &err);
    CHECK(rc == EL_EIO && strstr(err.msg, path) && strstr(err.msg, "cannot create"),
          "an unwritable directory is EL_EIO naming the path and why: %s", err.msg);
    CHECK(access(path, F_OK) != 0 && temporaries(sub) == 0,
          "nothing is left in the unwritable directory");
    if (mounted) {
      snprintf(cmd, sizeof cmd, "umount '%s'", sub);
      if (system(cmd) != 0) fprintf(stderr, "could not unmount %s\n", sub);
    } else {
      chmod(sub, 0755);
    }
  } else {
    SKIP("root without mount: a 0555 directory would be writable");
  }

  /* a write that fails (the descriptor swapped for /dev/full: ENOSPC) */
  snprintf(path, sizeof path, "%s/full.txt", g_dir);
  el__write_atomic(path, "kept\n", 5, &err);
  el__atomic a;
  rc = el__atomic_begin(&a, path, &err);
  int full = open("/dev/full", O_WRONLY);
  if (rc == EL_OK && full >= 0) {
    dup2(full, fileno(a.f));
    close(full);
    fputs("this does not fit\n", a.f);
    rc = el__atomic_commit(&a, &err);
    CHECK(rc == EL_ENOSPC && strstr(err.msg, path) && strstr(err.msg, "no space left on device"),
          "a full disk is EL_ENOSPC naming the file: %s", err.msg);
    CHECK(same_text(path, "kept\n") && temporaries(g_dir) == 0,
          "after a failed write the target is unchanged and no temporary is left");
  } else {
    if (rc == EL_OK) el__atomic_abort(&a);
    SKIP("no /dev/full");
  }

  /* a rename that cannot happen: the target is a non-empty directory */
  snprintf(path, sizeof path, "%s/adir", g_dir);
  mkdir(path, 0755);
  snprintf(sub, sizeof sub, "%s/adir/inside", g_dir);
  el__write_atomic(sub, "i", 1, &err);
  rc = el__write_atomic(path, "x", 1, &err);
  struct stat st;
  CHECK(rc == EL_EIO && strstr(err.msg, "cannot rename") && strstr(err.msg, path),
        "a failed rename is EL_EIO naming the path: %s", err.msg);
  CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode) && same_text(sub, "i") &&
            temporaries(g_dir) == 0,
        "after a failed rename the target is untouched and no temporary is left");

  /* a path longer than the helper holds */
  char *lng = malloc(5000);
  memset(lng, 'a', 4999);
  lng[4999] = 0;
  rc = el__write_atomic(lng, "x", 1, &err);
  CHECK(rc == EL_EINVAL && strstr(err.msg, "too long"), "an over-long path is refused: %s", err.msg);
  free(lng);
}

/* el__remove_tree: a nested tree goes, a symbolic link inside it is removed
 * without touching what it points to, a missing path is not an error, a
 * plain file is removed. */
static void test_remove_tree(void) {
  char top[300], sub[320], file[340], keep[300], link[340];
  snprintf(top, sizeof top, "%s/tree", g_dir);
  snprintf(sub, sizeof sub, "%s/a/b", top);
  snprintf(file, sizeof file, "%s/f.txt", sub);
  snprintf(keep, sizeof keep, "%s/keep.txt", g_dir);
  snprintf(link, sizeof link, "%s/to-keep", top);
  el_error err = {0};
  CHECK(el__mkdirs(sub, &err) == 0, "a nested tree is made: %s", err.msg);
  CHECK(el__write_atomic(file, "x", 1, &err) == 0 && el__write_atomic(keep, "k", 1, &err) == 0,
        "files written: %s", err.msg);
  CHECK(symlink(keep, link) == 0, "a symbolic link to a file outside the tree");
  CHECK(el__remove_tree(top) == 0, "el__remove_tree returns 0 for a whole tree");
  struct stat st;
  CHECK(lstat(top, &st) != 0 && errno == ENOENT, "the tree is gone");
  CHECK(same_text(keep, "k"), "the file a link in the tree pointed to is untouched");
  CHECK(el__remove_tree(top) == 0, "a missing path: 0 (nothing to remove)");
  CHECK(el__remove_tree(keep) == 0 && lstat(keep, &st) != 0, "a plain file is removed");
}

int main(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/el_fileio.XXXXXX");
  if (!mkdtemp(g_dir)) {
    printf("not ok - cannot create a temporary directory\n");
    return 1;
  }
  test_writes();
  test_failures();
  test_remove_tree();
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_dir);
  return el_test_done();
}
