/* Whole-file reads, fsync'd writes and atomic file replacement (fileio.h). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fileio.h"

int el__open_regular(const char *path, struct stat *st, el_error *err) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    el_error_set(err, EL_EIO, "%s: %s", path, strerror(errno));
    return -1;
  }
  if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
    close(fd);
    el_error_set(err, EL_EIO, "%s: not a regular file", path);
    return -1;
  }
  return fd;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)ftw;
  return (flag == FTW_DP ? rmdir(path) : unlink(path)) ? -1 : 0;
}

int el__remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
  if (!S_ISDIR(st.st_mode)) return unlink(path);
  return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) ? -1 : 0;
}

char *el__path_join(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/%s", dir, name);
  return p;
}

int el__read_file(const char *path, size_t max_bytes, char **out, size_t *len, el_error *err) {
  *out = NULL;
  *len = 0;
  struct stat st;
  int fd = el__open_regular(path, &st, err);
  if (fd < 0) return EL_EIO;
  if ((unsigned long long)st.st_size > max_bytes) {
    close(fd);
    return el_error_set(err, EL_EFORMAT, "%s: %lld bytes, more than the %zu accepted", path,
                        (long long)st.st_size, max_bytes);
  }
  size_t n = (size_t)st.st_size, got = 0;
  char *buf = malloc(n + 1);
  if (!buf) {
    close(fd);
    return el_error_set(err, EL_ENOMEM, "%s: cannot allocate %zu bytes", path, n + 1);
  }
  while (got < n) {
    ssize_t r = read(fd, buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      int e = r < 0 ? errno : EIO;
      free(buf);
      close(fd);
      return el_error_set(err, EL_EIO, "%s: read failed: %s", path, strerror(e));
    }
    got += (size_t)r;
  }
  close(fd);
  buf[n] = '\0';
  *out = buf;
  *len = n;
  return EL_OK;
}

int el__io_error(el_error *err, int e, const char *path, const char *what) {
  int code = (e == ENOSPC || e == EDQUOT) ? EL_ENOSPC : EL_EIO;
  return el_error_set(err, code, "%s: %s failed: %s", path, what, strerror(e));
}

int el__write_all(int fd, const void *data, size_t len, const char *path, el_error *err) {
  const char *p = data;
  while (len) {
    size_t chunk = len > (1u << 30) ? (1u << 30) : len;
    ssize_t w = write(fd, p, chunk);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return el__io_error(err, w < 0 ? errno : ENOSPC, path, "write");
    p += w;
    len -= (size_t)w;
  }
  return EL_OK;
}

int el__fsync_close(int fd, const char *path, el_error *err) {
  if (fsync(fd) != 0 && errno != EINVAL) { /* EINVAL: a special file, nothing to sync */
    int e = errno;
    close(fd);
    return el__io_error(err, e, path, "fsync");
  }
  if (close(fd) != 0) return el__io_error(err, errno, path, "close");
  return EL_OK;
}

int el__write_file(const char *path, const void *data, size_t len, el_error *err) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return el__io_error(err, errno, path, "open");
  int rc = el__write_all(fd, data, len, path, err);
  if (rc) {
    close(fd);
    return rc;
  }
  return el__fsync_close(fd, path, err);
}

int el__copy_file(const char *src, const char *dst, size_t max_bytes, el_error *err) {
  char *buf = NULL;
  size_t len = 0;
  int rc = el__read_file(src, max_bytes, &buf, &len, err);
  if (!rc) rc = el__write_file(dst, buf, len, err);
  free(buf);
  return rc;
}

int el__fsync_dir(const char *dir, el_error *err) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return el__io_error(err, errno, dir, "open directory");
  int rc = EL_OK;
  if (fsync(fd) != 0 && errno != EINVAL) rc = el__io_error(err, errno, dir, "fsync directory");
  close(fd);
  return rc;
}

/* "<what> <file>: <reason>", a full disk as EL_ENOSPC. */
static int atomic_error(el_error *err, int e, const char *what, const char *file) {
  if (e == ENOSPC || e == EDQUOT)
    return el_error_set(err, EL_ENOSPC, "%s %s: no space left on device", what, file);
  return el_error_set(err, EL_EIO, "%s %s: %s", what, file, strerror(e ? e : EIO));
}

int el__atomic_begin(el__atomic *a, const char *path, el_error *err) {
  a->f = NULL;
  a->tmp[0] = 0;
  if (snprintf(a->path, sizeof a->path, "%s", path) >= (int)sizeof a->path)
    return el_error_set(err, EL_EINVAL, "path too long: %.80s...", path);
  snprintf(a->tmp, sizeof a->tmp, "%s.tmp-%ld", path, (long)getpid());
  int fd = open(a->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || !(a->f = fdopen(fd, "wb"))) {
    int e = errno;
    if (fd >= 0) {
      close(fd);
      unlink(a->tmp);
    }
    return atomic_error(err, e, "cannot create", a->tmp);
  }
  return EL_OK;
}

void el__atomic_abort(el__atomic *a) {
  if (a->f) fclose(a->f);
  a->f = NULL;
  if (a->tmp[0]) unlink(a->tmp);
  a->tmp[0] = 0;
}

int el__atomic_commit(el__atomic *a, el_error *err) {
  int e = 0;
  if (ferror(a->f)) e = errno ? errno : EIO;
  else if (fflush(a->f) != 0 || (fsync(fileno(a->f)) != 0 && errno != EINVAL)) e = errno;
  int closed = fclose(a->f);
  a->f = NULL;
  if (!e && closed != 0) e = errno;
  if (e) {
    int rc = atomic_error(err, e, "cannot write", a->tmp);
    el__atomic_abort(a);
    return rc;
  }
  if (rename(a->tmp, a->path) != 0) {
    e = errno;
    char what[4200];
    snprintf(what, sizeof what, "cannot rename %s to", a->tmp);
    int rc = atomic_error(err, e, what, a->path);
    el__atomic_abort(a);
    return rc;
  }
  a->tmp[0] = 0;
  /* The new name is in place; syncing the directory makes it durable. A
   * failure here changes nothing for readers, so it is not an error. */
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", a->path);
  char *slash = strrchr(dir, '/');
  if (!slash) snprintf(dir, sizeof dir, ".");
  else if (slash == dir) dir[1] = 0;
  else *slash = 0;
  el__fsync_dir(dir, NULL);
  return EL_OK;
}

int el__write_atomic(const char *path, const void *data, size_t len, el_error *err) {
  el__atomic a;
  int rc = el__atomic_begin(&a, path, err);
  if (rc) return rc;
  if (len && fwrite(data, 1, len, a.f) != len) {
    rc = atomic_error(err, errno, "cannot write", a.tmp);
    el__atomic_abort(&a);
    return rc;
  }
  return el__atomic_commit(&a, err);
}

int el__mkdirs(const char *dir, el_error *err) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
    return el_error_set(err, EL_EINVAL, "path too long: %.80s...", dir);
  for (char *p = buf + 1;; p++) {
    if (*p != '/' && *p) continue;
    char c = *p;
    *p = 0;
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
      return el_error_set(err, errno == ENOSPC ? EL_ENOSPC : EL_EIO, "cannot create %s: %s", buf,
                          strerror(errno));
    *p = c;
    if (!c) break;
  }
  struct stat st;
  if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
    return el_error_set(err, EL_EIO, "cannot create %s: a file of that name exists", buf);
  return EL_OK;
}

int el__prepare_output(const char *path, int is_dir, el_error *err) {
  char parent[4096];
  if (snprintf(parent, sizeof parent, "%s", path) >= (int)sizeof parent)
    return el_error_set(err, EL_EINVAL, "path too long: %.80s...", path);
  size_t n = strlen(parent);
  while (n > 1 && parent[n - 1] == '/') parent[--n] = 0; /* "runs/x/" is "runs/x" */
  char *slash = strrchr(parent, '/');
  if (!slash) snprintf(parent, sizeof parent, ".");
  else if (slash == parent) parent[1] = 0;
  else *slash = 0;
  int rc = el__mkdirs(parent, err);
  if (!rc && access(parent, W_OK) != 0)
    rc = el_error_set(err, EL_EIO, "cannot write in %s: %s", parent, strerror(errno));
  if (!rc && is_dir) rc = el__mkdirs(path, err);
  return rc;
}
