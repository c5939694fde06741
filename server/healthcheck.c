/* electra-server --healthcheck: a minimal HTTP/1.0 client for Docker's
 * HEALTHCHECK (the image has no curl). Exit status 0 when GET /health
 * answers 200 within 3 seconds, else 1. */
#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "srv_server.h"

static int wait_fd(int fd, short ev, int ms) {
  struct pollfd p = {fd, ev, 0};
  return poll(&p, 1, ms) == 1 && (p.revents & (ev | POLLHUP));
}

int el__healthcheck(const char *host, int port) {
  char portstr[16];
  snprintf(portstr, sizeof portstr, "%d", port);
  /* 0.0.0.0 / :: mean "all interfaces" to a server; a client probes loopback */
  if (!strcmp(host, "0.0.0.0") || !host[0]) host = "127.0.0.1";
  if (!strcmp(host, "::")) host = "::1";
  struct addrinfo hints = {0}, *res = NULL;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  if (getaddrinfo(host, portstr, &hints, &res) || !res) {
    fprintf(stderr, "healthcheck: cannot resolve %s\n", host);
    return 1;
  }
  int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int ok = 0;
  if (fd >= 0) {
    int rc = connect(fd, res->ai_addr, res->ai_addrlen);
    if (rc == 0 || wait_fd(fd, POLLOUT, 3000)) {
      int soerr = 0;
      socklen_t sl = sizeof soerr;
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
      char req[512];
      int n = snprintf(req, sizeof req,
                       "GET /health HTTP/1.0\r\nHost: %s:%d\r\nConnection: close\r\n\r\n", host,
                       port);
      if (!soerr && send(fd, req, (size_t)n, MSG_NOSIGNAL) == n && wait_fd(fd, POLLIN, 3000)) {
        char buf[64] = {0};
        ssize_t got = recv(fd, buf, sizeof buf - 1, 0);
        int status = 0;
        if (got > 12 && sscanf(buf, "HTTP/1.%*d %d", &status) == 1 && status == 200) ok = 1;
        if (!ok) fprintf(stderr, "healthcheck: /health answered status %d\n", status);
      } else {
        fprintf(stderr, "healthcheck: no answer from %s:%d\n", host, port);
      }
    } else {
      fprintf(stderr, "healthcheck: cannot connect to %s:%d\n", host, port);
    }
    close(fd);
  }
  freeaddrinfo(res);
  return ok ? 0 : 1;
}
