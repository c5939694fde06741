/* sd_notify protocol over $NOTIFY_SOCKET (see sdnotify.h). */
#include "sdnotify.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Fills *sa from $NOTIFY_SOCKET's value; returns the address length or a
 * negative errno. An abstract name ('@') has no terminating NUL and its
 * length is exact: the kernel compares every byte of it. */
static int notify_addr(const char *e, struct sockaddr_un *sa, socklen_t *len) {
  memset(sa, 0, sizeof *sa);
  sa->sun_family = AF_UNIX;
  size_t n = strlen(e);
  if (e[0] == '@') {
    if (n > sizeof sa->sun_path) return -ENAMETOOLONG;
    memcpy(sa->sun_path + 1, e + 1, n - 1);
    *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
  } else if (e[0] == '/') {
    if (n >= sizeof sa->sun_path) return -ENAMETOOLONG;
    memcpy(sa->sun_path, e, n + 1);
    *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
  } else {
    return -EAFNOSUPPORT; /* systemd's vsock: addresses are not supported */
  }
  return 0;
}

int el__sd_notify(const char *state) {
  const char *e = getenv("NOTIFY_SOCKET");
  if (!e || !e[0]) return 0;
  if (!state || !state[0]) return -EINVAL;
  struct sockaddr_un sa;
  socklen_t len;
  int r = notify_addr(e, &sa, &len);
  if (r < 0) return r;
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  size_t n = strlen(state);
  ssize_t sent;
  do {
    sent = sendto(fd, state, n, MSG_NOSIGNAL, (struct sockaddr *)&sa, len);
  } while (sent < 0 && errno == EINTR);
  int err = sent < 0 ? errno : (size_t)sent != n ? EMSGSIZE : 0;
  close(fd);
  return err ? -err : 1;
}

int el__sd_notifyf(const char *fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return -EINVAL;
  if ((size_t)n >= sizeof buf) return -EMSGSIZE;
  return el__sd_notify(buf);
}

/* A decimal integer > 0 filling the whole string, else 0. */
static unsigned long long parse_ull(const char *s) {
  if (!s || *s < '0' || *s > '9') return 0;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno == ERANGE || *end != '\0') return 0;
  return v;
}

unsigned long long el__sd_watchdog_usec(void) {
  unsigned long long usec = parse_ull(getenv("WATCHDOG_USEC"));
  if (usec == 0) return 0;
  /* The variable may be inherited by a child; only the named PID is watched. */
  const char *p = getenv("WATCHDOG_PID");
  if (p && p[0]) {
    unsigned long long pid = parse_ull(p);
    if (pid == 0 || pid != (unsigned long long)getpid()) return 0;
  }
  return usec;
}
