/* The HTTP layer's request on one connection (private to http.c,
 * srv_reply.c, srv_mhd_quirks.c and srv_listen.c): what a route is, the state of a
 * request from its first header to its answer, and what every answer
 * carries (srv_reply.c). */
#ifndef EL_SERVER_CONN_REQ_H
#define EL_SERVER_CONN_REQ_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include <microhttpd.h>

#include "srv_batcher.h"
#include "srv_check.h"
#include "srv_errors.h"
#include "srv_sbuf.h"
#include "srv_state.h"
#include "srv_workq.h"

struct MHD_Connection;
struct el__conn;

enum { EL_REQ_NEW = 0, EL_REQ_BODY, EL_REQ_WAITING, EL_REQ_DONE };

typedef struct el__route_def {
  const char *path;
  int route;
  int post;     /* POST route (else GET/HEAD) */
  int open;     /* no API key needed */
  int get_too;  /* a POST route that also answers GET, its fields in the query string
                 * (LanguageTool's /v2/check: some clients send GET) */
  int probe;    /* also served on the probe port (--health-port) */
} el__route_def;

typedef struct el__conn_req el__conn_req;
struct el__conn_req {
  el__server *srv;
  el__listener *lst; /* the port it came in on (srv_state.h) */
  struct MHD_Connection *conn;
  const el__route_def *rt; /* NULL: unknown route */
  char method[16];
  char path[256];
  double t0;
  int state;
  el__sb body;
  el__sb query;     /* the raw query string (after '?'), for a get_too route */
  size_t body_seen;
  int body_over;    /* a chunked body past --max-body-bytes: 413 once read */
  int budget_over;  /* a chunked body past --max-bytes-in-flight: 503 once read */
  int chunked;      /* its body has no Content-Length: held chunk by chunk */
  long held;        /* bytes of --max-bytes-in-flight it holds (its body, then its answer) */
  el__model_set *set;
  el__api_req *api;
  el__check_req *check; /* /v2/check instead of api */
  el__job job;
  int status;
  const char *err_type;
  char origin[256]; /* allowed Origin to echo, or "" */
  const char *model;
  int started;      /* the access handler has seen this request */
  int bad_path;     /* the raw path holds a control character (raw or %-escaped) */
  char rid[129];    /* X-Request-Id: the client's, else generated */
  char client[64];  /* the client's address */
  int fd;           /* the connection's socket (probed while the request waits) */
  struct el__conn *track; /* the connection's deadlines (srv_conns.h); may be NULL */
  long admitted_tokens; /* /tokenize: the tokens it holds in the queue's bound */
  int holds_place;  /* /tokenize: holds a queue place until answered */
  int suspended_here; /* suspended for the pool or the batcher, not yet back */
  el__http_err perr; /* the prepare step's error, else NONE */
  char pmsg[256];
  char *pbody;       /* the prepare step's answer (/tokenize) */
  size_t plen;
  el__workq_node prep_node; /* its place in the prepare threads' queue (srv_workq.h) */
  /* on the list of requests whose header is still arriving (srv_mhd_quirks.c) */
  int header_pending;
  pthread_t thread; /* the libmicrohttpd thread serving the connection */
  el__conn_req *hp_prev, *hp_next;
  /* Owners: libmicrohttpd until NOTIFY_COMPLETED, and the batcher from the
   * submit until job.release. The batcher may answer at the deadline while
   * the request's sequences are still in the running batch: the connection
   * then completes first, and the request (its job, sequences, outputs and
   * model set) lives until the batch has returned. The last owner frees. */
  atomic_int refs;
};

/* ---- what every answer carries (srv_reply.c) ---- */

/* Adds one header to an answer being built (a libmicrohttpd response, or
 * the text of an answer written on the socket). */
typedef void (*el__put_header)(void *ctx, const char *name, const char *value);

/* The Allow header of a route. */
const char *el__reply_allowed(const el__route_def *rt);
/* Every header of an answer but its Content-Type and framing. e: the error
 * answered, else EL_HERR_NONE; timing: with the request's queue and
 * inference times. */
void el__reply_headers(el__conn_req *r, el__http_err e, int timing, el__put_header put,
                       void *ctx);
/* Sets r->rid: the request's X-Request-Id when that is 1 to 128 printable
 * ASCII characters (no spaces), else 32 random hex digits. */
void el__reply_request_id(el__conn_req *r);
/* The answer of a request whose work is done: EL_HERR_NONE and *body (its
 * 200 JSON, the caller frees), or the error and msg. */
el__http_err el__reply_result(el__conn_req *r, char **body, size_t *n, char *msg, size_t cap);

/* ---- libmicrohttpd 0.9.75's gaps (srv_mhd_quirks.c) ---- */

/* r's header is (on) or is no longer (off) arriving: while it is, a
 * Content-Length libmicrohttpd refuses is answered in JSON on r's socket. */
void el__quirk_header_pending(el__conn_req *r, int on);
/* libmicrohttpd logged msg: when it is its refusal of a Content-Length,
 * the request it refused gets the documented JSON error instead. */
void el__quirk_mhd_log(const char *msg);
/* At NOTIFY_COMPLETED without a clean end: a done request whose client
 * half-closed but still reads gets its answer written on the socket. */
void el__quirk_answer_half_closed(el__conn_req *r);

/* ---- http.c's libmicrohttpd callbacks, registered by srv_listen.c ---- */
/* A request's start (its raw URI; returns the new el__conn_req), each call of
 * the access handler, the request's end, and the prepare threads' work item. */
void *el__http_uri_started(void *cls, const char *uri, struct MHD_Connection *conn);
enum MHD_Result el__http_access(void *cls, struct MHD_Connection *conn, const char *url,
                                const char *method, const char *version,
                                const char *upload_data, size_t *upload_data_size,
                                void **con_cls);
void el__http_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                        enum MHD_RequestTerminationCode toe);
void el__http_prepare_item(el__workq_node *node);

#endif
