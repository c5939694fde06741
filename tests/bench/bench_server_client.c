/* Load client for bench_server.sh: C keep-alive HTTP/1.1 connections driven
 * by one epoll thread, each sending POST /score with a fixed body and waiting
 * for the answer before the next (closed loop). Prints one JSON line:
 * requests/s over the measured window and latency percentiles.
 *
 *   bench_server_client --port P --conns N --body TEXT [--path /score]
 *                       [--warmup S] [--seconds S] [--pid PID]
 *
 * Every answer must be 200; others are counted as errors. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "bench_util.h" /* bench_now */

typedef struct conn {
  int fd;
  size_t sent;
  char *in;
  size_t in_len, in_cap;
  double t_start;
} conn;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int open_conn(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr *)&a, sizeof a)) {
    perror("connect");
    exit(1);
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

/* Returns the length of a complete response at the start of buf, or 0. */
static size_t complete_response(const char *buf, size_t len, int *status) {
  const char *end = memmem(buf, len, "\r\n\r\n", 4);
  if (!end) return 0;
  size_t head = (size_t)(end - buf) + 4;
  size_t clen = 0;
  for (const char *p = buf; p < end; p++) {
    if ((p == buf || p[-1] == '\n') && !strncasecmp(p, "content-length:", 15)) {
      clen = strtoul(p + 15, NULL, 10);
      break;
    }
  }
  if (len < head + clen) return 0;
  *status = atoi(buf + 9);
  return head + clen;
}

int main(int argc, char **argv) {
  int port = 0, nconn = 1, pid = 0;
  const char *body = NULL, *path = "/score";
  double warmup = 1, seconds = 4;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--port")) port = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--conns")) nconn = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--body")) body = argv[i + 1];
    else if (!strcmp(argv[i], "--path")) path = argv[i + 1];
    else if (!strcmp(argv[i], "--warmup")) warmup = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--seconds")) seconds = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--pid")) pid = atoi(argv[i + 1]);
    else {
      fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (!port || !body || nconn < 1) {
    fprintf(stderr, "usage: %s --port P --conns N --body JSON [--path /score] [--warmup S] "
                    "[--seconds S] [--pid PID]\n", argv[0]);
    return 2;
  }
  size_t blen = strlen(body);
  char *req = malloc(blen + 256);
  int rlen = sprintf(req,
                     "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\n\r\n%s", path, blen, body);
  int ep = epoll_create1(0);
  conn *cs = calloc((size_t)nconn, sizeof *cs);
  size_t cap_lat = 1 << 16, n_lat = 0;
  double *lat = malloc(cap_lat * sizeof *lat);
  double t0 = bench_now(), t_measure = t0 + warmup, t_end = t_measure + seconds;
  long errors = 0, done_measured = 0;
  for (int i = 0; i < nconn; i++) {
    cs[i].fd = open_conn(port);
    cs[i].in_cap = 1 << 16;
    cs[i].in = malloc(cs[i].in_cap);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.u32 = (uint32_t)i};
    epoll_ctl(ep, EPOLL_CTL_ADD, cs[i].fd, &ev);
    cs[i].t_start = bench_now();
  }
  struct epoll_event evs[256];
  while (bench_now() < t_end) {
    int n = epoll_wait(ep, evs, 256, 100);
    for (int k = 0; k < n; k++) {
      conn *c = &cs[evs[k].data.u32];
      if ((evs[k].events & EPOLLOUT) && c->sent < (size_t)rlen) {
        ssize_t w = send(c->fd, req + c->sent, (size_t)rlen - c->sent, MSG_NOSIGNAL);
        if (w > 0) c->sent += (size_t)w;
        if (c->sent == (size_t)rlen) {
          struct epoll_event ev = {.events = EPOLLIN, .data.u32 = evs[k].data.u32};
          epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
        }
      }
      if (evs[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        if (c->in_len == c->in_cap) {
          c->in_cap *= 2;
          c->in = realloc(c->in, c->in_cap);
        }
        ssize_t r = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
        if (r <= 0) {
          fprintf(stderr, "connection closed by the server (%s)\n", r ? strerror(errno) : "EOF");
          return 1;
        }
        c->in_len += (size_t)r;
        int status = 0;
        size_t used = complete_response(c->in, c->in_len, &status);
        if (used) {
          double t = bench_now();
          if (status != 200) errors++;
          if (c->t_start >= t_measure && t <= t_end) {
            if (n_lat == cap_lat) lat = realloc(lat, (cap_lat *= 2) * sizeof *lat);
            lat[n_lat++] = t - c->t_start;
            done_measured++;
          }
          memmove(c->in, c->in + used, c->in_len - used);
          c->in_len -= used;
          c->sent = 0;
          c->t_start = t;
          struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.u32 = evs[k].data.u32};
          epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
        }
      }
    }
  }
  qsort(lat, n_lat, sizeof *lat, cmp_double);
#define PCT(p) (n_lat ? lat[(size_t)((p) / 100.0 * (n_lat - 1))] * 1e3 : 0)
  long rss = 0;
  if (pid) {
    char fn[64], line[256];
    snprintf(fn, sizeof fn, "/proc/%d/status", pid);
    FILE *f = fopen(fn, "r");
    while (f && fgets(line, sizeof line, f))
      if (!strncmp(line, "VmRSS:", 6)) rss = atol(line + 6);
    if (f) fclose(f);
  }
  printf("{\"conns\":%d,\"requests\":%ld,\"rps\":%.1f,\"p50_ms\":%.3f,\"p95_ms\":%.3f,"
         "\"p99_ms\":%.3f,\"errors\":%ld,\"rss_kb\":%ld}\n",
         nconn, done_measured, done_measured / seconds, PCT(50), PCT(95), PCT(99), errors, rss);
  for (int i = 0; i < nconn; i++) {
    close(cs[i].fd);
    free(cs[i].in);
  }
  free(cs);
  free(lat);
  free(req);
  return errors ? 1 : 0;
}
