/* sd_notify protocol: messages arrive on a fake $NOTIFY_SOCKET (path and
 * abstract), from this very process (systemd attributes them by the sender's
 * PID), errors are negative, and the watchdog variables are read as systemd
 * documents them. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "sdnotify.h"
#include "../test.h"

/* Datagram socket with credentials passing and a 2 s receive timeout, so a
 * missing message fails the test instead of hanging it. */
static int listener(const struct sockaddr_un *sa, socklen_t len) {
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int one = 1;
  struct timeval tv = {2, 0};
  if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) != 0 ||
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
      bind(fd, (const struct sockaddr *)sa, len) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* Receives one datagram into buf (NUL-terminated); *pid gets the sender's
 * PID from SCM_CREDENTIALS. Returns its length or -1. */
static int receive(int fd, char *buf, size_t n, pid_t *pid) {
  union {
    char raw[CMSG_SPACE(sizeof(struct ucred))];
    struct cmsghdr align;
  } ctl;
  struct iovec iov = {buf, n - 1};
  struct msghdr mh = {0};
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  mh.msg_control = ctl.raw;
  mh.msg_controllen = sizeof ctl.raw;
  ssize_t r = recvmsg(fd, &mh, 0);
  if (r < 0) return -1;
  buf[r] = '\0';
  *pid = -1;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
      struct ucred uc;
      memcpy(&uc, CMSG_DATA(c), sizeof uc);
      *pid = uc.pid;
    }
  }
  return (int)r;
}

/* state with '\n' shown as "\\n", cut at 60 bytes, for one-line TAP output. */
static const char *shown(const char *s) {
  static char out[80];
  size_t k = 0;
  for (; *s && k < 60; s++) {
    if (*s == '\n') { out[k++] = '\\'; out[k++] = 'n'; } else out[k++] = *s;
  }
  out[k] = '\0';
  return out;
}

static void expect(int fd, const char *what, const char *state) {
  char buf[8192];
  pid_t pid;
  int r = el__sd_notify(state);
  CHECK(r == 1, "%s: el__sd_notify returns 1 (got %d)", what, r);
  int n = receive(fd, buf, sizeof buf, &pid);
  int same = n >= 0 && strcmp(buf, state) == 0;
  CHECK(same, "%s: received exactly \"%s\" (%zu bytes)", what, shown(state), strlen(state));
  if (!same) printf("#   got %d bytes: \"%s\"\n", n, n >= 0 ? shown(buf) : "");
  CHECK(pid == getpid(), "%s: sent by this process (pid %d, sender %d)", what, (int)getpid(),
        (int)pid);
}

static void test_unset(void) {
  unsetenv("NOTIFY_SOCKET");
  CHECK(el__sd_notify("READY=1") == 0, "NOTIFY_SOCKET unset: no-op returning 0");
  setenv("NOTIFY_SOCKET", "", 1);
  CHECK(el__sd_notify("READY=1") == 0, "NOTIFY_SOCKET empty: no-op returning 0");
  CHECK(el__sd_notifyf("STATUS=%d models", 2) == 0, "notifyf unset: 0");
}

static void test_path(const char *dir) {
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  snprintf(sa.sun_path, sizeof sa.sun_path, "%s/notify", dir);
  int fd = listener(&sa, sizeof sa);
  CHECK(fd >= 0, "bind fake NOTIFY_SOCKET at %s (%s)", sa.sun_path, fd < 0 ? strerror(errno) : "ok");
  if (fd < 0) return;
  setenv("NOTIFY_SOCKET", sa.sun_path, 1);
  /* What the server sends over its life. */
  expect(fd, "path", "READY=1");
  expect(fd, "path", "RELOADING=1");
  expect(fd, "path", "WATCHDOG=1");
  expect(fd, "path", "STOPPING=1\nSTATUS=draining 3 requests");
  char big[3000];
  memset(big, 'x', sizeof big - 1);
  memcpy(big, "STATUS=", 7);
  big[sizeof big - 1] = '\0';
  expect(fd, "path, 3 kB status", big);

  char buf[256];
  pid_t pid;
  int r = el__sd_notifyf("STATUS=%d models loaded, %s", 2, "warm");
  CHECK(r == 1, "notifyf returns 1 (got %d)", r);
  CHECK(receive(fd, buf, sizeof buf, &pid) > 0 && strcmp(buf, "STATUS=2 models loaded, warm") == 0,
        "notifyf formats (got \"%s\")", buf);
  char huge[5000];
  memset(huge, 'y', sizeof huge - 1);
  huge[sizeof huge - 1] = '\0';
  CHECK(el__sd_notifyf("%s", huge) == -EMSGSIZE, "notifyf over 4095 bytes refused");

  CHECK(el__sd_notify("") == -EINVAL, "empty state: -EINVAL");
  CHECK(el__sd_notify(NULL) == -EINVAL, "NULL state: -EINVAL");
  close(fd);

  /* Nobody listening any more: the error is reported, not hidden. */
  unlink(sa.sun_path);
  r = el__sd_notify("READY=1");
  CHECK(r < 0, "socket gone: negative errno (got %d)", r);
}

static void test_abstract(void) {
  char name[64];
  snprintf(name, sizeof name, "@electra-sdnotify-test-%d", (int)getpid());
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  size_t n = strlen(name);
  memcpy(sa.sun_path + 1, name + 1, n - 1); /* sun_path[0] = '\0': abstract */
  int fd = listener(&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n));
  CHECK(fd >= 0, "bind abstract socket %s", name);
  if (fd < 0) return;
  setenv("NOTIFY_SOCKET", name, 1);
  expect(fd, "abstract", "READY=1");
  expect(fd, "abstract", "STOPPING=1");
  close(fd);
}

static void test_bad_addresses(void) {
  setenv("NOTIFY_SOCKET", "relative/path", 1);
  CHECK(el__sd_notify("READY=1") == -EAFNOSUPPORT, "relative path: -EAFNOSUPPORT");
  setenv("NOTIFY_SOCKET", "vsock:2:1234", 1);
  CHECK(el__sd_notify("READY=1") == -EAFNOSUPPORT, "vsock address: -EAFNOSUPPORT");
  char longp[200] = "/";
  memset(longp + 1, 'a', sizeof longp - 2);
  longp[sizeof longp - 1] = '\0';
  setenv("NOTIFY_SOCKET", longp, 1);
  CHECK(el__sd_notify("READY=1") == -ENAMETOOLONG, "path over sun_path: -ENAMETOOLONG");
  setenv("NOTIFY_SOCKET", "/nonexistent/electra/notify", 1);
  int r = el__sd_notify("READY=1");
  CHECK(r == -ENOENT, "missing socket file: -ENOENT (got %d)", r);
  unsetenv("NOTIFY_SOCKET");
}

static void test_watchdog(void) {
  char me[32], other[32];
  snprintf(me, sizeof me, "%d", (int)getpid());
  snprintf(other, sizeof other, "%d", (int)getpid() + 1);
  unsetenv("WATCHDOG_PID");
  unsetenv("WATCHDOG_USEC");
  CHECK(el__sd_watchdog_usec() == 0, "WATCHDOG_USEC unset: 0");
  setenv("WATCHDOG_USEC", "30000000", 1);
  CHECK(el__sd_watchdog_usec() == 30000000ULL, "WATCHDOG_USEC=30000000 read");
  setenv("WATCHDOG_PID", me, 1);
  CHECK(el__sd_watchdog_usec() == 30000000ULL, "WATCHDOG_PID = our pid: watched");
  setenv("WATCHDOG_PID", other, 1);
  CHECK(el__sd_watchdog_usec() == 0, "WATCHDOG_PID = another pid: 0");
  setenv("WATCHDOG_PID", "abc", 1);
  CHECK(el__sd_watchdog_usec() == 0, "WATCHDOG_PID malformed: 0");
  unsetenv("WATCHDOG_PID");
  static const char *bad[] = {"", "abc", "0", "-5", "12x", "99999999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    setenv("WATCHDOG_USEC", bad[i], 1);
    CHECK(el__sd_watchdog_usec() == 0, "WATCHDOG_USEC \"%s\": 0", bad[i]);
  }
  unsetenv("WATCHDOG_USEC");
}

int main(void) {
  char dir[] = "/tmp/el-sdnotify-XXXXXX";
  if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
  test_unset();
  test_path(dir);
  test_abstract();
  test_bad_addresses();
  test_watchdog();
  rmdir(dir);
  return el_test_done();
}
