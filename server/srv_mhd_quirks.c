/* Answers libmicrohttpd 0.9.75 cannot give, written on the socket by the
 * server (srv_conn_req.h): a Content-Length it refuses itself, and a
 * half-closed client whose end-of-file it read before writing the answer.
 * The connection closes after such an answer. */
#include <errno.h>
#include <microhttpd.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "srv_conn_req.h"

typedef struct raw_head {
  char buf[2048];
  size_t n;
} raw_head;

static void put_raw(void *ctx, const char *name, const char *value) {
  raw_head *h = ctx;
  if (!strcmp(name, "Connection")) return; /* sent already: these answers close */
  if (h->n < sizeof h->buf)
    h->n += (size_t)snprintf(h->buf + h->n, sizeof h->buf - h->n, "%s: %s\r\n", name, value);
}

/* 1 when all n bytes went out before the deadline (el__now() time). */
static int write_all(int fd, const char *p, size_t n, double deadline) {
  while (n) {
    ssize_t k = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (k > 0) {
      p += k;
      n -= (size_t)k;
      continue;
    }
    if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return 0;
    double left = deadline - el__now();
    if (left <= 0) return 0;
    struct pollfd w = {.fd = fd, .events = POLLOUT};
    poll(&w, 1, (int)(left * 1000) + 1);
  }
  return 1;
}

/* Writes a JSON answer (status 200, or e's) within wait seconds; the access
 * log then records its status. */
static void raw_answer(el__conn_req *r, el__http_err e, const char *body, size_t n, int timing,
                       double wait) {
  int status = e ? el__herr_status(e) : 200;
  raw_head h;
  int k = snprintf(h.buf, sizeof h.buf, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n"
                   "Content-Length: %zu\r\nConnection: close\r\n", status,
                   MHD_get_reason_phrase_for((unsigned)status), n);
  h.n = k > 0 ? (size_t)k : 0;
  el__reply_headers(r, e, timing, put_raw, &h);
  if (h.n + 2 >= sizeof h.buf) return;
  memcpy(h.buf + h.n, "\r\n", 2);
  double deadline = el__now() + wait;
  if (!write_all(r->fd, h.buf, h.n + 2, deadline) || !write_all(r->fd, body, n, deadline)) return;
  r->status = status;
  r->err_type = e ? el__herr_type(e) : NULL;
}

/* ---- a Content-Length libmicrohttpd cannot read ----
 * libmicrohttpd 0.9.75 reads Content-Length itself once a header is in,
 * before any callback of ours, and answers a malformed one (`23, 23`, `abc`,
 * `+2`) with two 400 header blocks and an HTML body (413 for one past 64
 * bits). Its only sign is its log line, written on the thread serving that
 * connection just before its answer. So the requests whose header is still
 * arriving are listed with their thread; on that line, the one request of
 * this thread whose Content-Length libmicrohttpd cannot read gets the
 * documented JSON error on its socket, which is then shut for writing so that
 * libmicrohttpd's own answer is dropped. With no single match (two requests
 * of one thread holding such a header) libmicrohttpd's answer stands. */
static pthread_mutex_t hp_mu = PTHREAD_MUTEX_INITIALIZER;
static el__conn_req *hp_head;

void el__quirk_header_pending(el__conn_req *r, int on) {
  pthread_mutex_lock(&hp_mu);
  if (on && !r->header_pending) {
    r->thread = pthread_self();
    r->hp_next = hp_head;
    if (hp_head) hp_head->hp_prev = r;
    hp_head = r;
  } else if (!on && r->header_pending) {
    if (r->hp_prev) r->hp_prev->hp_next = r->hp_next;
    else hp_head = r->hp_next;
    if (r->hp_next) r->hp_next->hp_prev = r->hp_prev;
    r->hp_prev = r->hp_next = NULL;
  }
  r->header_pending = on;
  pthread_mutex_unlock(&hp_mu);
}

/* How libmicrohttpd 0.9.75 reads a request's Content-Length: 0 a number
 * (or not read: none, or Transfer-Encoding given), 1 malformed (not only
 * digits, or empty), 2 past 64 bits. */
static int length_kind(struct MHD_Connection *conn) {
  if (MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Transfer-Encoding")) return 0;
  const char *v = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
  if (!v) return 0;
  if (!*v) return 1;
  unsigned long long n = 0;
  for (; *v; v++) {
    if (*v < '0' || *v > '9') return 1;
    unsigned d = (unsigned)(*v - '0');
    if (n > (~0ULL - d) / 10) return 2;
    n = n * 10 + d;
  }
  return 0;
}

/* libmicrohttpd logged that it cannot read a Content-Length (kind 1, 400) or
 * that it is past 64 bits (kind 2, 413): answer that request in JSON. */
static void bad_length_answer(int kind) {
  el__conn_req *hit = NULL;
  int hits = 0;
  pthread_mutex_lock(&hp_mu);
  for (el__conn_req *r = hp_head; r; r = r->hp_next)
    if (pthread_equal(r->thread, pthread_self()) && length_kind(r->conn) == kind) hit = r, hits++;
  pthread_mutex_unlock(&hp_mu); /* the entries of this thread change only on it */
  if (hits != 1 || hit->fd < 0) return;
  el__http_err e = kind == 1 ? EL_HERR_INVALID_REQUEST : EL_HERR_TOO_LARGE;
  char body[512];
  size_t n = el__error_body(e, kind == 1 ? "malformed Content-Length (it must be digits only)"
                                         : "Content-Length is past 64 bits", body, sizeof body);
  el__reply_request_id(hit);
  raw_answer(hit, e, body, n, 0, 0.2);
  shutdown(hit->fd, SHUT_WR); /* libmicrohttpd's answer goes nowhere */
}

void el__quirk_mhd_log(const char *msg) {
  /* its lines for a Content-Length it refuses (0.9.75's wording) */
  if (!strstr(msg, "Content-Length")) return;
  if (strstr(msg, "Failed to parse")) bad_length_answer(1);
  else if (strstr(msg, "Too large value")) bad_length_answer(2);
}

/* ---- a half-closed client ----
 * libmicrohttpd 0.9.75 closes a connection when it reads end-of-file before
 * it has written the answer, and on a resume it may read first (a third of
 * the half-closed clients of a test under load lost their answer so). It
 * calls NOTIFY_COMPLETED before it shuts the socket: the answer of a done
 * request whose client half-closed but still reads (no reset) is written
 * there, waiting at most a second for the socket. */
void el__quirk_answer_half_closed(el__conn_req *r) {
  if (r->state != EL_REQ_DONE || r->status || r->fd < 0 || (r->job.cancelled && !r->perr))
    return;
  struct pollfd p = {.fd = r->fd, .events = POLLRDHUP};
  if (poll(&p, 1, 0) <= 0 || !(p.revents & POLLRDHUP) || (p.revents & (POLLERR | POLLHUP)))
    return;
  char msg[256], err[512], *body;
  size_t n = 0;
  el__http_err e = el__reply_result(r, &body, &n, msg, sizeof msg);
  if (e) {
    n = el__error_body(e, msg, err, sizeof err);
    raw_answer(r, e, err, n, 0, 1.0);
  } else {
    raw_answer(r, EL_HERR_NONE, body, n, 1, 1.0);
    free(body);
  }
}
