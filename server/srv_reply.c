/* What every answer of the HTTP layer carries (srv_conn_req.h): its headers,
 * the request's id and a done request's result, the same whether
 * libmicrohttpd sends the answer (http.c) or the server writes it on the
 * socket (srv_mhd_quirks.c). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>
#include <sys/random.h>

#include "srv_conn_req.h"

const char *el__reply_allowed(const el__route_def *rt) {
  if (rt && rt->get_too) return "GET, POST, OPTIONS";
  return rt && rt->post ? "POST, OPTIONS" : "GET, HEAD, OPTIONS";
}

void el__reply_headers(el__conn_req *r, el__http_err e, int timing, el__put_header put,
                       void *ctx) {
  if (r->rid[0]) put(ctx, "X-Request-Id", r->rid);
  if (r->origin[0]) {
    put(ctx, "Access-Control-Allow-Origin", r->origin);
    put(ctx, "Access-Control-Expose-Headers", "X-Request-Id, x-queue-time, x-inference-time");
    put(ctx, "Vary", "Origin");
  }
  if (atomic_load(&r->srv->draining)) put(ctx, "Connection", "close");
  if (timing && r->state == EL_REQ_DONE && r->job.t_enqueue > 0) {
    char v[32];
    double q = (r->job.t_first_run > 0 ? r->job.t_first_run : r->job.t_done) - r->job.t_enqueue;
    double inf = r->job.t_first_run > 0 ? r->job.t_done - r->job.t_first_run : 0;
    snprintf(v, sizeof v, "%.3f", q * 1e3);
    put(ctx, "x-queue-time", v);
    snprintf(v, sizeof v, "%.3f", inf * 1e3);
    put(ctx, "x-inference-time", v);
  }
  if (e == EL_HERR_METHOD) put(ctx, "Allow", el__reply_allowed(r->rt));
  if (e == EL_HERR_OVERLOADED || e == EL_HERR_UNAVAILABLE) put(ctx, "Retry-After", "1");
  if (e == EL_HERR_UNAUTHORIZED) put(ctx, "WWW-Authenticate", "Bearer");
}

/* The X-Request-Id proxies and clients send is kept; else 32 random hex
 * digits (from a clock and a counter when getrandom fails: still unique). */
void el__reply_request_id(el__conn_req *r) {
  const char *h = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "X-Request-Id");
  size_t n = h ? strlen(h) : 0;
  int good = n > 0 && n < sizeof r->rid;
  for (size_t i = 0; good && i < n; i++) good = h[i] > 0x20 && h[i] < 0x7f;
  if (good) {
    memcpy(r->rid, h, n + 1);
    return;
  }
  unsigned char raw[16];
  if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
    static atomic_ullong counter;
    unsigned long long c = atomic_fetch_add(&counter, 1) + 1;
    unsigned long long t = (unsigned long long)(el__now() * 1e9);
    memcpy(raw, &t, 8);
    memcpy(raw + 8, &c, 8);
  }
  for (size_t i = 0; i < sizeof raw; i++) snprintf(r->rid + 2 * i, 3, "%02x", raw[i]);
}

el__http_err el__reply_result(el__conn_req *r, char **body, size_t *n, char *msg, size_t cap) {
  *body = NULL;
  if (r->perr) return snprintf(msg, cap, "%s", r->pmsg), r->perr;
  if (r->pbody) {
    *body = r->pbody;
    *n = r->plen;
    r->pbody = NULL;
    return EL_HERR_NONE;
  }
  if (r->job.status != EL_HERR_NONE) return snprintf(msg, cap, "%s", r->job.errmsg), r->job.status;
  el__fail f = {0};
  if (r->check) {
    el__http_err ce = el__check_render(r->check, body, n, &f);
    if (ce) snprintf(msg, cap, "%s", f.msg);
    return ce;
  }
  el__sb b = {0};
  el__http_err e = el__api_render(r->api, &b, &f);
  if (!e && b.len > (size_t)r->srv->opt.max_response_bytes)
    e = el__failf(&f, EL_HERR_VALIDATION, "the answer would be %zu bytes, over "
                  "--max-response-bytes %ld; send less text", b.len,
                  r->srv->opt.max_response_bytes);
  if (!e && !(*body = el__sb_take(&b, n))) e = el__failf(&f, EL_HERR_INTERNAL, "out of memory");
  if (e) {
    el__sb_free(&b);
    snprintf(msg, cap, "%s", f.msg);
  }
  return e;
}
