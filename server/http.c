/* The HTTP layer on libmicrohttpd 0.9.75: routing, limits decided before the
 * body is read, suspend while the batcher works, resume with the result.
 *
 * Access-handler calls for one request (libmicrohttpd's protocol): the first call has
 * only headers, and rejections that need no body (404, 405, 401, 413, 415,
 * 503) are queued there; body chunks are copied (or counted and dropped past
 * the limit for chunked bodies); the final call (no data) parses, submits and
 * suspends; after the batcher resumes the connection the handler runs once
 * more and queues the answer. NOTIFY_COMPLETED logs, counts and frees.
 *
 * What every answer carries is in srv_reply.c; the answers libmicrohttpd
 * 0.9.75 cannot give (a Content-Length it refuses, a half-closed client) are
 * written on the socket by srv_mhd_quirks.c. */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "electra/electra.h"
#include "lt_lang.h"
#include "srv_check.h"
#include "srv_log.h"
#include "srv_metrics.h"
#include "srv_conn_req.h"
#include "srv_conns.h"
#include "srv_http.h"
#include "srv_info.h"
#include "srv_workq.h"

static const el__route_def routes[] = {
    {"/", EL_ROUTE_ROOT, 0, 1, 0, 0},
    {"/health", EL_ROUTE_HEALTH, 0, 1, 0, 1},
    {"/ready", EL_ROUTE_READY, 0, 1, 0, 1},
    {"/v2/health/live", EL_ROUTE_LIVE_V2, 0, 1, 0, 1},
    {"/v2/health/ready", EL_ROUTE_READY_V2, 0, 1, 0, 1},
    {"/info", EL_ROUTE_INFO, 0, 0, 0, 0},
    {"/metrics", EL_ROUTE_METRICS, 0, 1, 0, 1},
    {"/openapi.json", EL_ROUTE_OPENAPI, 0, 0, 0, 0},
    {"/tokenize", EL_ROUTE_TOKENIZE, 1, 0, 0, 0},
    {"/score", EL_ROUTE_SCORE, 1, 0, 0, 0},
    {"/classify", EL_ROUTE_CLASSIFY, 1, 0, 0, 0},
    {"/qa", EL_ROUTE_QA, 1, 0, 0, 0},
    {"/v2/check", EL_ROUTE_CHECK, 1, 0, 1, 0},
    {"/v2/languages", EL_ROUTE_LANGUAGES, 0, 0, 0, 0},
};
#define N_ROUTES ((int)(sizeof routes / sizeof routes[0]))

/* ---- responses ---- */

static void put_mhd(void *ctx, const char *name, const char *value) {
  MHD_add_response_header(ctx, name, value);
}

static enum MHD_Result send_buf(el__conn_req *r, int status, const char *ctype, char *data,
                                size_t len, int must_free) {
  struct MHD_Response *resp = MHD_create_response_from_buffer(
      len, data, must_free ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
  if (!resp) {
    if (must_free) free(data);
    return MHD_NO;
  }
  MHD_add_response_header(resp, "Content-Type", ctype);
  el__reply_headers(r, EL_HERR_NONE, 1, put_mhd, resp);
  r->status = status;
  enum MHD_Result ret = MHD_queue_response(r->conn, (unsigned)status, resp);
  MHD_destroy_response(resp);
  return ret;
}

static enum MHD_Result send_json(el__conn_req *r, int status, char *data, size_t len) {
  return send_buf(r, status, "application/json", data, len, 1);
}

/* The one function that turns an error into a reply. */
static enum MHD_Result send_error(el__conn_req *r, el__http_err e, const char *msg) {
  char buf[512];
  size_t n = el__error_body(e, msg, buf, sizeof buf);
  struct MHD_Response *resp = MHD_create_response_from_buffer(n, buf, MHD_RESPMEM_MUST_COPY);
  if (!resp) return MHD_NO;
  MHD_add_response_header(resp, "Content-Type", "application/json");
  el__reply_headers(r, e, 0, put_mhd, resp);
  r->status = el__herr_status(e);
  r->err_type = el__herr_type(e);
  enum MHD_Result ret = MHD_queue_response(r->conn, (unsigned)r->status, resp);
  MHD_destroy_response(resp);
  return ret;
}

/* ---- checks on the first call ---- */

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  c |= 0x20;
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* 1 when the raw request path (up to '?') holds a control character, sent
 * raw or %-escaped: libmicrohttpd unescapes the path into a C string, so a
 * %00 would cut it ("/health%00x" would reach /health) and other controls
 * would reach the routes and the log. */
static int path_has_control(const char *uri) {
  for (const char *p = uri; *p && *p != '?'; p++) {
    int c = (unsigned char)*p;
    if (c == '%' && hexval(p[1]) >= 0 && hexval(p[2]) >= 0) c = hexval(p[1]) * 16 + hexval(p[2]);
    if (c < 0x20 || c == 0x7f) return 1;
  }
  return 0;
}

/* The route of url on listener l (the probe port has the probe routes
 * only); NULL: none. */
static const el__route_def *find_route(const el__listener *l, const char *url) {
  for (int i = 0; i < N_ROUTES; i++)
    if (!strcmp(url, routes[i].path)) return !l->probes_only || routes[i].probe ? &routes[i] : NULL;
  return NULL;
}

/* Constant-time comparison: time depends on the lengths only. */
static int key_equal(const char *given, size_t glen, const char *key) {
  size_t klen = strlen(key);
  unsigned char diff = (unsigned char)(glen != klen);
  for (size_t i = 0; i < klen; i++) {
    unsigned char g = i < glen ? (unsigned char)given[i] : 0;
    diff |= (unsigned char)(g ^ (unsigned char)key[i]);
  }
  return diff == 0;
}

static int authorized(el__conn_req *r) {
  const char *key = r->srv->opt.api_key;
  if (!key[0] || r->rt->open) return 1;
  const char *h = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Authorization");
  if (!h || strncasecmp(h, "Bearer ", 7)) return 0;
  h += 7;
  while (*h == ' ') h++;
  size_t n = strlen(h);
  while (n && h[n - 1] == ' ') n--;
  return key_equal(h, n, key);
}

static void check_origin(el__conn_req *r) {
  const el__srv_options *o = &r->srv->opt;
  if (!o->n_cors) return;
  const char *origin = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Origin");
  if (!origin) return;
  for (int i = 0; i < o->n_cors; i++) {
    if (!strcmp(o->cors_origins[i], "*")) {
      snprintf(r->origin, sizeof r->origin, "*");
      return;
    }
    if (!strcmp(o->cors_origins[i], origin)) {
      snprintf(r->origin, sizeof r->origin, "%s", origin);
      return;
    }
  }
}

/* ct is the media type want, parameters (; charset=utf-8) allowed. */
static int is_type(const char *ct, const char *want) {
  if (!ct) return 0;
  while (*ct == ' ') ct++;
  size_t n = strlen(want);
  if (strncasecmp(ct, want, n)) return 0;
  return ct[n] == 0 || ct[n] == ';' || ct[n] == ' ';
}

/* The framing headers of a request, counted over every header line. */
typedef struct framing {
  int n_cl, n_te, cl_differ;
  const char *cl;
} framing;

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value) {
  (void)kind;
  framing *fr = cls;
  if (!strcasecmp(key, "Content-Length")) {
    if (fr->n_cl++ && strcmp(fr->cl, value ? value : "")) fr->cl_differ = 1;
    if (fr->n_cl == 1) fr->cl = value ? value : "";
  } else if (!strcasecmp(key, "Transfer-Encoding")) {
    fr->n_te++;
  }
  return MHD_YES;
}

/* ---- the memory budget of requests in flight (--max-bytes-in-flight) ----
 * A request holds its body's bytes BODY_WEIGHT times from its header to its
 * answer: the body, then the parsed request it becomes (its JSON tree, every
 * token with its offsets, a code-point map of 8 bytes a character) stay
 * until it is answered, and that is what piles up while requests wait in
 * the queue (a 1 MiB /score text with "truncate" keeps ~34 MiB, measured).
 * Its answer is held once made, until sent. */
enum { BODY_WEIGHT = EL_SRV_BODY_WEIGHT };

static int hold(el__conn_req *r, long n) {
  if (el__server_hold(r->srv, n)) {
    r->held += n;
    return 1;
  }
  atomic_fetch_add(&r->srv->budget_refused, 1);
  return 0;
}

static int hold_body(el__conn_req *r, long n) { return hold(r, n * BODY_WEIGHT); }

/* Frees the body and gives back what the request holds. */
static void drop_body(el__conn_req *r) {
  el__sb_free(&r->body);
  el__server_release(r->srv, r->held);
  r->held = 0;
}

static const char *budget_msg(const el__server *s) {
  static _Thread_local char msg[160];
  snprintf(msg, sizeof msg, "the requests in flight fill --max-bytes-in-flight (%ld bytes); "
           "retry", s->opt.max_bytes_in_flight);
  return msg;
}

/* GET on a get_too route: its query string is the form body, and the
 * request goes on as a POST whose body has been read. */
static enum MHD_Result query_as_body(el__conn_req *r) {
  el__server *s = r->srv;
  if (atomic_load(&s->draining))
    return send_error(r, EL_HERR_UNAVAILABLE, "the server is draining");
  if (!atomic_load(&s->loaded))
    return send_error(r, EL_HERR_UNAVAILABLE, "models are loading");
  if (!hold_body(r, (long)r->query.len)) return send_error(r, EL_HERR_UNAVAILABLE, budget_msg(s));
  if (r->query.len) el__sb_put(&r->body, r->query.data, r->query.len);
  if (r->body.oom) return send_error(r, EL_HERR_INTERNAL, "out of memory");
  r->state = EL_REQ_BODY;
  return MHD_YES;
}

/* The body's framing headers: EL_HERR_NONE and *n its Content-Length (0
 * when chunked), else the error and msg. */
static el__http_err framing_error(el__conn_req *r, unsigned long long *n, char *msg, size_t cap) {
  const el__server *s = r->srv;
  const char *te = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Transfer-Encoding");
  const char *cl = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Content-Length");
  /* libmicrohttpd 0.9.75 frames the body by the first Content-Length or
   * Transfer-Encoding header and ignores repeats, where a proxy may read the
   * last one (request smuggling): a repeated framing header is refused, as
   * is both kinds together. */
  framing fr = {0};
  MHD_get_connection_values(r->conn, MHD_HEADER_KIND, count_framing, &fr);
  if (fr.n_cl > 1 && fr.cl_differ)
    return snprintf(msg, cap, "conflicting Content-Length headers"), EL_HERR_INVALID_REQUEST;
  if (fr.n_te > 1)
    return snprintf(msg, cap, "Transfer-Encoding sent more than once"), EL_HERR_INVALID_REQUEST;
  if (te && cl)
    return snprintf(msg, cap, "Transfer-Encoding and Content-Length must not both be sent"),
           EL_HERR_INVALID_REQUEST;
  if (te && strcasecmp(te, "chunked"))
    return snprintf(msg, cap, "unsupported Transfer-Encoding"), EL_HERR_INVALID_REQUEST;
  if (!cl) return EL_HERR_NONE;
  char *end;
  *n = strtoull(cl, &end, 10);
  if (end == cl || *end) return snprintf(msg, cap, "bad Content-Length"), EL_HERR_INVALID_REQUEST;
  if (*n > (unsigned long long)s->opt.max_body_bytes)
    return snprintf(msg, cap, "body of %llu bytes is over the limit of %ld", *n,
                    s->opt.max_body_bytes), EL_HERR_TOO_LARGE;
  return EL_HERR_NONE;
}

static enum MHD_Result first_call(el__conn_req *r) {
  el__server *s = r->srv;
  check_origin(r);
  if (r->bad_path)
    return send_error(r, EL_HERR_INVALID_REQUEST,
                      "the path holds a control character (raw or as %00-%1F, %7F)");
  if (!r->rt) return send_error(r, EL_HERR_NOT_FOUND, "no such route");
  if (!strcmp(r->method, "OPTIONS")) {
    struct MHD_Response *resp = MHD_create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT);
    if (!resp) return MHD_NO;
    MHD_add_response_header(resp, "Allow", el__reply_allowed(r->rt));
    if (r->origin[0]) {
      MHD_add_response_header(resp, "Access-Control-Allow-Methods", el__reply_allowed(r->rt));
      MHD_add_response_header(resp, "Access-Control-Allow-Headers",
                              "Content-Type, Authorization, X-Request-Id");
      MHD_add_response_header(resp, "Access-Control-Max-Age", "600");
    }
    el__reply_headers(r, EL_HERR_NONE, 0, put_mhd, resp);
    r->status = 204;
    enum MHD_Result ret = MHD_queue_response(r->conn, 204, resp);
    MHD_destroy_response(resp);
    return ret;
  }
  int is_post = !strcmp(r->method, "POST");
  int is_get = !strcmp(r->method, "GET") || !strcmp(r->method, "HEAD");
  int query_form = r->rt->get_too && !strcmp(r->method, "GET");
  if (r->rt->post ? !is_post && !query_form : !is_get)
    return send_error(r, EL_HERR_METHOD, r->rt->post ? "use POST" : "use GET");
  if (!authorized(r))
    return send_error(r, EL_HERR_UNAUTHORIZED, "missing or wrong Authorization: Bearer key");
  if (!r->rt->post) return MHD_YES;
  if (query_form) return query_as_body(r);

  unsigned long long n = 0; /* the body's Content-Length */
  char msg[128];
  el__http_err fe = framing_error(r, &n, msg, sizeof msg);
  if (fe) return send_error(r, fe, msg);
  /* /v2/check takes a form, as LanguageTool does; the other routes JSON */
  const char *want = r->rt->route == EL_ROUTE_CHECK ? "application/x-www-form-urlencoded"
                                                    : "application/json";
  if (!is_type(MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Content-Type"), want)) {
    snprintf(msg, sizeof msg, "Content-Type must be %s", want);
    return send_error(r, EL_HERR_MEDIA_TYPE, msg);
  }
  if (atomic_load(&s->draining))
    return send_error(r, EL_HERR_UNAVAILABLE, "the server is draining");
  if (!atomic_load(&s->loaded))
    return send_error(r, EL_HERR_UNAVAILABLE, "models are loading");
  if (el__sched_depth(s->sched) >= s->opt.max_queue)
    return send_error(r, EL_HERR_OVERLOADED, "the request queue is full");
  /* the body's bytes are held before it is read: past the budget it is
   * refused now, and never buffered (a chunked body is held as it comes) */
  r->chunked = !MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Content-Length");
  if (n && !hold_body(r, (long)n)) return send_error(r, EL_HERR_UNAVAILABLE, budget_msg(s));
  r->state = EL_REQ_BODY;
  el__conns_phase(r->lst->conns, r->track, EL_CONN_BODY);
  return MHD_YES;
}

/* ---- GET routes ---- */

static enum MHD_Result handle_get(el__conn_req *r) {
  el__server *s = r->srv;
  switch (r->rt->route) {
    case EL_ROUTE_ROOT:
      return send_buf(r, 200, "text/html; charset=utf-8", (char *)el__page_html,
                      strlen(el__page_html), 0);
    case EL_ROUTE_HEALTH:
    case EL_ROUTE_LIVE_V2: {
      static const char ok[] = "{\"status\":\"ok\"}";
      return send_buf(r, 200, "application/json", (char *)ok, sizeof ok - 1, 0);
    }
    case EL_ROUTE_READY:
    case EL_ROUTE_READY_V2: {
      static const char ok[] = "{\"status\":\"ready\"}";
      if (atomic_load(&s->ready))
        return send_buf(r, 200, "application/json", (char *)ok, sizeof ok - 1, 0);
      return send_error(r, EL_HERR_UNAVAILABLE,
                        atomic_load(&s->draining) ? "draining" : "loading models");
    }
    case EL_ROUTE_INFO: {
      size_t n;
      char *body = el__info_render(s, &n);
      if (!body) return send_error(r, EL_HERR_INTERNAL, "out of memory");
      return send_json(r, 200, body, n);
    }
    case EL_ROUTE_METRICS: {
      size_t n;
      char *models = el__info_model_metrics(s);
      char *body = el__metrics_render(models, &n);
      free(models);
      if (!body) return send_error(r, EL_HERR_INTERNAL, "out of memory");
      return send_buf(r, 200, "text/plain; version=0.0.4; charset=utf-8", body, n, 1);
    }
    case EL_ROUTE_OPENAPI:
      return send_buf(r, 200, "application/json", (char *)el__openapi_json,
                      strlen(el__openapi_json), 0);
    case EL_ROUTE_LANGUAGES: {
      char *body = el__lt_languages_json();
      if (!body) return send_error(r, EL_HERR_INTERNAL, "out of memory");
      return send_json(r, 200, body, strlen(body));
    }
  }
  return send_error(r, EL_HERR_NOT_FOUND, "no such route");
}

/* ---- POST routes ---- */

static void req_unref(el__conn_req *r) {
  if (atomic_fetch_sub(&r->refs, 1) != 1) return;
  el__api_free(r->api);
  el__check_free(r->check);
  if (r->set) el__model_set_unref(r->set);
  el__sb_free(&r->body);
  el__sb_free(&r->query);
  free(r->pbody);
  free(r);
}

static void job_done(el__job *j) {
  el__conn_req *r = j->user;
  r->state = EL_REQ_DONE;
  /* the connection may complete at once: only the batcher's reference
   * (job_release) keeps r, and nothing here touches it after this */
  MHD_resume_connection(r->conn);
}

/* The batcher no longer touches the job or its sequences (srv_batcher.h). */
static void job_release(el__job *j) { req_unref(j->user); }

/* el__job.gone: 1 when the client of a waiting request has reset its
 * connection. libmicrohttpd does not watch a suspended connection (its
 * NOTIFY_COMPLETED comes only after the resume), so the socket is polled.
 * End-of-file alone is no sign: HTTP/1.1 lets a client half-close
 * (shutdown(SHUT_WR)) after a complete request and still read the answer,
 * and on the wire that FIN is the same as a close(). Only a reset or a
 * socket error (POLLERR, POLLHUP: both directions shut) says nobody will
 * read; a client that closed without a reset is found when the answer is
 * written. Polling consumes nothing, pending bytes (a pipelined request)
 * stay for libmicrohttpd. */
static int client_gone(el__job *j) {
  el__conn_req *r = j->user;
  if (r->fd < 0) return 0;
  struct pollfd p = {.fd = r->fd, .events = POLLRDHUP};
  if (poll(&p, 1, 0) <= 0) return 0;
  return (p.revents & (POLLERR | POLLHUP | POLLNVAL)) != 0;
}

static enum MHD_Result respond_result(el__conn_req *r) {
  if (!r->perr && !r->pbody && r->job.cancelled) return MHD_NO; /* nobody to answer: close */
  char msg[256], *body;
  size_t n = 0;
  el__http_err e = el__reply_result(r, &body, &n, msg, sizeof msg);
  if (e) return send_error(r, e, msg);
  /* the answer is held until it is sent (NOTIFY_COMPLETED gives it back) */
  if (!hold(r, (long)n)) {
    free(body);
    return send_error(r, EL_HERR_UNAVAILABLE, budget_msg(r->srv));
  }
  return send_json(r, 200, body, n);
}

/* ---- the prepare pool ----
 * Parsing, tokenizing and encoding a POST body, and rendering a /tokenize
 * answer, take milliseconds per 100 KB: done on libmicrohttpd's threads they
 * would hold every connection those threads serve (a /health probe waited
 * 0.8 s behind a /tokenize flood). The connection is suspended and the work
 * runs on these threads (srv_workq.h); the answer is queued once it resumes. */

/* Ends the prepare step without a job: the answer (r->perr or r->pbody) is
 * queued when the connection is back in its handler. */
static void prep_answer(el__conn_req *r, el__http_err e, const char *msg) {
  r->perr = e;
  if (e) snprintf(r->pmsg, sizeof r->pmsg, "%s", msg);
  r->state = EL_REQ_DONE;
  MHD_resume_connection(r->conn); /* nothing may touch r after this */
}

static void prepare(el__conn_req *r);
static void submit(el__conn_req *r, void *model, el__seq *seqs, int n);

/* /v2/check: the form parsed here, the check itself on the inference thread. */
static void prepare_check(el__conn_req *r) {
  el__fail f = {0};
  el__http_err e = el__check_prepare(r->body.data ? r->body.data : "", r->body.len, r->set,
                                     &r->check, &f);
  el__sb_free(&r->body); /* its hold stays: the parsed request lives on */
  if (e) return prep_answer(r, e, f.msg);
  r->model = el__check_model_name(r->check);
  submit(r, el__check_queue(r->check), el__check_seq(r->check), 1);
}

void el__http_prepare_item(el__workq_node *node) {
  prepare((el__conn_req *)((char *)node - offsetof(el__conn_req, prep_node)));
}

static void prepare(el__conn_req *r) {
  el__server *s = r->srv;
  /* waited past its deadline for a prepare thread: no work for it */
  if (s->opt.request_timeout > 0 && el__now() >= r->t0 + s->opt.request_timeout)
    return prep_answer(r, EL_HERR_TIMEOUT, "no result within the request timeout");
  r->set = el__server_models(s);
  if (!r->set) return prep_answer(r, EL_HERR_UNAVAILABLE, "models are loading");
  if (r->rt->route == EL_ROUTE_TOKENIZE) {
    /* /tokenize holds a queue place and its estimated tokens (a piece per 4
     * bytes) until answered, so --max-queue and --max-queue-tokens bound it
     * like the other routes */
    long est = (long)(r->body.len / 4) + 1;
    el__http_err ae = el__sched_admit_cost(s->sched, 0, est);
    if (ae)
      return prep_answer(r, ae, ae == EL_HERR_OVERLOADED ? "the request queue is full"
                                                          : "the server is draining");
    r->holds_place = 1;
    r->admitted_tokens = est;
  }
  if (r->rt->route == EL_ROUTE_CHECK) return prepare_check(r);
  el__fail f = {0};
  el__http_err e = el__api_prepare(r->rt->route, r->body.data ? r->body.data : "", r->body.len,
                                   r->set, &s->lim, &r->api, &f);
  el__sb_free(&r->body); /* its hold stays: the parsed request lives on */
  if (e) return prep_answer(r, e, f.msg);
  r->model = el__api_entry(r->api)->name;
  int n;
  el__seq *seqs = el__api_seqs(r->api, &n);
  if (n == 0) { /* /tokenize: the answer is made here too */
    el__sb b = {0};
    e = el__api_render(r->api, &b, &f);
    if (!e && b.len > (size_t)s->opt.max_response_bytes) {
      e = el__failf(&f, EL_HERR_VALIDATION, "the answer would be %zu bytes, over "
                    "--max-response-bytes %ld; send less text", b.len,
                    s->opt.max_response_bytes);
    }
    if (e) {
      el__sb_free(&b);
      return prep_answer(r, e, f.msg);
    }
    r->pbody = el__sb_take(&b, &r->plen);
    return prep_answer(r, r->pbody ? EL_HERR_NONE : EL_HERR_INTERNAL, "out of memory");
  }
  submit(r, el__api_entry(r->api), seqs, n);
}

/* Hands the request's sequences to the batcher under queue key `model`;
 * job_done resumes the connection. */
static void submit(el__conn_req *r, void *model, el__seq *seqs, int n) {
  el__server *s = r->srv;
  long tokens = 0;
  for (int i = 0; i < n; i++) tokens += seqs[i].len;
  el__http_err e = el__sched_admit_cost(s->sched, 0, tokens);
  if (e)
    return prep_answer(r, e, e == EL_HERR_OVERLOADED ? "the request queue is full"
                                                     : "the server is draining");
  memset(&r->job, 0, sizeof r->job);
  r->job.model = model;
  r->job.seqs = seqs;
  r->job.n_seqs = n;
  r->job.cost = tokens;
  r->job.gone = client_gone;
  r->job.deadline = s->opt.request_timeout > 0 ? r->t0 + s->opt.request_timeout : 0;
  r->job.done = job_done;
  r->job.release = job_release;
  r->job.user = r;
  atomic_fetch_add(&r->refs, 1); /* the batcher's, until job_release */
  el__sched_submit(s->sched, &r->job); /* job_done resumes the connection */
}

static enum MHD_Result handle_post(el__conn_req *r) {
  el__server *s = r->srv;
  if (r->body_over) {
    char msg[128];
    snprintf(msg, sizeof msg, "body is over the limit of %ld bytes", s->opt.max_body_bytes);
    return send_error(r, EL_HERR_TOO_LARGE, msg);
  }
  if (r->budget_over) return send_error(r, EL_HERR_UNAVAILABLE, budget_msg(s));
  el__conns_phase(r->lst->conns, r->track, EL_CONN_BUSY);
  r->state = EL_REQ_WAITING;
  /* suspend first: the pool or the batcher can then only resume a
   * suspended connection */
  r->suspended_here = 1;
  atomic_fetch_add(&s->suspended, 1);
  MHD_suspend_connection(r->conn);
  el__workq_push(s->prep, &r->prep_node);
  return MHD_YES;
}

/* The client's address as text ("-" when unknown). */
static void client_address(struct MHD_Connection *conn, char *out, size_t cap) {
  const union MHD_ConnectionInfo *ci =
      MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  const struct sockaddr *sa = ci ? ci->client_addr : NULL;
  snprintf(out, cap, "-");
  if (sa && sa->sa_family == AF_INET)
    inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)cap);
  else if (sa && sa->sa_family == AF_INET6)
    inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, (socklen_t)cap);
}

static el__conn_req *new_req(el__listener *l, struct MHD_Connection *conn) {
  el__server *s = l->srv;
  el__conn_req *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->srv = s;
  r->lst = l;
  r->conn = conn;
  r->t0 = el__now();
  atomic_init(&r->refs, 1); /* libmicrohttpd's, until NOTIFY_COMPLETED */
  r->fd = -1;
  const union MHD_ConnectionInfo *ci =
      MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
  if (ci) r->fd = ci->connect_fd;
  ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  if (ci) r->track = ci->socket_context;
  client_address(conn, r->client, sizeof r->client);
  atomic_fetch_add(&s->inflight, 1);
  return r;
}

/* libmicrohttpd's URI log callback: called once per request with the raw
 * request target, before any unescaping; what it returns becomes the
 * request's *con_cls (NOTIFY_COMPLETED frees it, even when the handler never
 * runs). The raw path is checked here, where a %00 is still visible. */
void *el__http_uri_started(void *cls, const char *uri, struct MHD_Connection *conn) {
  el__conn_req *r = new_req(cls, conn);
  if (!r) return NULL;
  r->bad_path = path_has_control(uri);
  el__conns_request(r->lst->conns, r->track); /* a drain now closes it until it is in */
  el__quirk_header_pending(r, 1);
  const char *q = strchr(uri, '?');
  if (q && q[1]) el__sb_put(&r->query, q + 1, strlen(q + 1));
  return r;
}

enum MHD_Result el__http_access(void *cls, struct MHD_Connection *conn, const char *url,
                                const char *method, const char *version,
                                const char *upload_data, size_t *upload_data_size,
                                void **con_cls) {
  (void)version;
  el__listener *l = cls;
  el__server *s = l->srv;
  el__conn_req *r = *con_cls;
  if (!r && !(r = *con_cls = new_req(l, conn))) return MHD_NO;
  if (!r->started) {
    r->started = 1;
    el__quirk_header_pending(r, 0);
    el__reply_request_id(r);
    r->rt = r->bad_path ? NULL : find_route(l, url);
    snprintf(r->method, sizeof r->method, "%s", method);
    snprintf(r->path, sizeof r->path, "%s", r->rt ? r->rt->path : url);
    el__conns_phase(r->lst->conns, r->track, EL_CONN_BUSY); /* the header is in */
    return first_call(r);
  }
  if (r->state == EL_REQ_DONE) {
    if (r->suspended_here) atomic_fetch_sub(&s->suspended, 1);
    r->suspended_here = 0; /* count the resume once */
    return respond_result(r);
  }
  if (r->state == EL_REQ_WAITING) return MHD_YES; /* spurious call while suspended */
  if (*upload_data_size) {
    size_t n = *upload_data_size;
    *upload_data_size = 0;
    if (!r->rt || !r->rt->post || r->state != EL_REQ_BODY) return MHD_YES; /* discard */
    r->body_seen += n;
    if (r->body_over || r->budget_over) return MHD_YES; /* read and dropped */
    if (r->body_seen > (size_t)s->opt.max_body_bytes) {
      /* chunked body past the limit: stop storing, answer 413 at the end */
      r->body_over = 1;
      drop_body(r);
      return MHD_YES;
    }
    if (r->chunked && !hold_body(r, (long)n)) {
      r->budget_over = 1; /* stop storing, answer 503 at the end */
      drop_body(r);
      return MHD_YES;
    }
    el__sb_put(&r->body, upload_data, n);
    if (r->body.oom) {
      r->body_over = 1;
      drop_body(r);
    }
    return MHD_YES;
  }
  if (!r->rt) return send_error(r, EL_HERR_NOT_FOUND, "no such route");
  if (r->rt->post) return handle_post(r);
  return handle_get(r);
}

void el__http_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                        enum MHD_RequestTerminationCode toe) {
  (void)conn;
  el__listener *l = cls;
  el__server *s = l->srv;
  el__conn_req *r = *con_cls;
  if (!r) return;
  *con_cls = NULL;
  el__quirk_header_pending(r, 0);
  if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK) el__quirk_answer_half_closed(r);
  double dt = el__now() - r->t0;
  int status = r->status ? r->status : 499; /* 499: closed before an answer */
  if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK && r->status == 0) r->err_type = "aborted";
  el__metrics_request(r->rt ? r->rt->route : EL_ROUTE_OTHER, status, dt, r->model);
  if (!r->started) { /* closed (or refused by libmicrohttpd) before its headers were read */
    snprintf(r->method, sizeof r->method, "-");
    snprintf(r->path, sizeof r->path, "-");
  }
  if (s->opt.access_log)
    el__log_access(r->method, r->path, status, dt, r->job.max_batch_seqs, r->model,
                   r->err_type, r->rid[0] ? r->rid : "-", r->client);
  if (r->holds_place) el__sched_unadmit_cost(s->sched, r->admitted_tokens);
  drop_body(r); /* the request and its answer are done */
  /* a kept-alive connection waits for its next header from now */
  if (toe == MHD_REQUEST_TERMINATED_COMPLETED_OK) el__conns_phase(r->lst->conns, r->track, EL_CONN_HEADER);
  req_unref(r); /* freed here, or by job_release when its batch returns */
  /* idle: the bodies, token lists and answers of a burst (a 1 MB /tokenize
   * answers 12 MB) go back to the system instead of staying in glibc's
   * arenas */
  if (atomic_fetch_sub(&s->inflight, 1) == 1) el__conns_trim_soon(l->conns);
}
