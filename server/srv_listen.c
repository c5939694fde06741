/* The HTTP listeners' lifecycle: the API port and the probe port of
 * --health-port, each a libmicrohttpd daemon with its own connection watcher
 * (srv_conns.h) and limit; start, quiesce for a drain, stop. What a request
 * does on a connection is http.c's; the daemons call it through the
 * callbacks declared in srv_conn_req.h. */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "srv_conn_req.h"
#include "srv_conns.h"
#include "srv_http.h"
#include "srv_log.h"
#include "srv_workq.h"

/* libmicrohttpd's connection notification: track each connection's
 * deadlines from its start to its close (srv_conns.h). */
static void connection_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                              enum MHD_ConnectionNotificationCode toe) {
  el__listener *l = cls;
  if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    *socket_context = ci ? el__conns_open(l->conns, ci->connect_fd) : NULL;
  } else {
    el__conns_close(l->conns, *socket_context);
    *socket_context = NULL;
  }
}

/* libmicrohttpd's accept policy: a new client is refused at once (closed)
 * when the listener's connections (--max-connections on the API port) are
 * open, instead of waiting unanswered in the listen backlog as it would at
 * libmicrohttpd's own limit. */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen) {
  (void)addr, (void)addrlen;
  el__listener *l = cls;
  if (el__conns_count(l->conns) < l->max_connections) return MHD_YES;
  if (!l->probes_only) atomic_fetch_add(&l->srv->refused, 1);
  return MHD_NO;
}

static void mhd_logger(void *cls, const char *fmt, va_list ap) {
  (void)cls;
  char msg[512];
  vsnprintf(msg, sizeof msg, fmt, ap);
  size_t n = strlen(msg);
  while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r')) msg[--n] = 0;
  el__log("warn", "libmicrohttpd: %s", msg);
  el__quirk_mhd_log(msg); /* a Content-Length it refused gets a JSON answer */
}

/* The socket address of o->host at port; 0, or -1 with err. */
static int listen_address(const el__srv_options *o, int port, struct sockaddr_storage *ss,
                          unsigned *flags, char *err, size_t cap) {
  memset(ss, 0, sizeof *ss);
  struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
  struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
  if (inet_pton(AF_INET, o->host, &a4->sin_addr) == 1) {
    a4->sin_family = AF_INET;
    a4->sin_port = htons((uint16_t)port);
  } else if (inet_pton(AF_INET6, o->host, &a6->sin6_addr) == 1) {
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons((uint16_t)port);
    *flags |= MHD_USE_IPv6;
  } else if (!strcmp(o->host, "localhost")) {
    a4->sin_family = AF_INET;
    a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a4->sin_port = htons((uint16_t)port);
  } else {
    snprintf(err, cap, "--host \"%s\" is not an IPv4 or IPv6 address", o->host);
    return -1;
  }
  return 0;
}

/* The probe port's connections: probes and a metrics scraper need few. */
enum { PROBE_CONNECTIONS = 64 };

/* Starts listener l on port: pool threads of libmicrohttpd (0: one thread),
 * at most max_conns connections, per_client from one address (0: any). */
static int start_listener(el__listener *l, el__server *s, int port, int probes_only,
                          unsigned pool, int max_conns, int per_client, char *err, size_t cap) {
  const el__srv_options *o = &s->opt;
  struct sockaddr_storage ss;
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
  if (!probes_only) flags |= MHD_ALLOW_SUSPEND_RESUME;
  if (listen_address(o, port, &ss, &flags, err, cap)) return -1;
  l->srv = s;
  l->probes_only = probes_only;
  l->max_connections = max_conns;
  l->conns = el__conns_new(o->header_timeout, o->body_timeout);
  if (!l->conns) {
    snprintf(err, cap, "cannot start the connection watcher");
    return -1;
  }
  /* libmicrohttpd's own limit sits above ours: at it, it stops accepting and
   * new clients hang in the backlog; accept_policy refuses them at ours. */
  unsigned conn_limit = (unsigned)max_conns + 4 * (pool ? pool : 1) + 16;
  l->mhd = MHD_start_daemon(
      flags, (uint16_t)port, accept_policy, l, el__http_access, l, MHD_OPTION_EXTERNAL_LOGGER,
      mhd_logger, s, MHD_OPTION_SOCK_ADDR, &ss,
      MHD_OPTION_THREAD_POOL_SIZE, pool, MHD_OPTION_CONNECTION_LIMIT, conn_limit,
      MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)o->connection_timeout,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)64 * 1024, MHD_OPTION_LISTEN_BACKLOG_SIZE,
      (unsigned)1024, MHD_OPTION_URI_LOG_CALLBACK, el__http_uri_started, l,
      MHD_OPTION_NOTIFY_COMPLETED, el__http_completed, l, MHD_OPTION_NOTIFY_CONNECTION,
      connection_notify, l, MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)per_client,
      MHD_OPTION_END);
  if (!l->mhd) {
    el__conns_free(l->conns);
    l->conns = NULL;
    snprintf(err, cap, "cannot listen on %s:%d (address in use, or not permitted)", o->host,
             port);
    return -1;
  }
  const union MHD_DaemonInfo *di = MHD_get_daemon_info(l->mhd, MHD_DAEMON_INFO_BIND_PORT);
  l->port = di ? di->port : (unsigned)port;
  return 0;
}

static void stop_listener(el__listener *l) {
  if (!l->mhd) return;
  MHD_stop_daemon(l->mhd);
  l->mhd = NULL;
  el__conns_free(l->conns);
  l->conns = NULL;
}

int el__http_start(el__server *s, char *err, size_t cap) {
  const el__srv_options *o = &s->opt;
  unsigned pool = (unsigned)o->http_threads;
  if (pool == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    pool = n < 2 ? 2 : n > 4 ? 4 : (unsigned)n;
  }
  s->http_threads = (int)pool;
  s->listen_fd = -1;
  s->prep = el__workq_start((int)pool, el__http_prepare_item);
  if (!s->prep || !el__workq_threads(s->prep)) {
    el__workq_stop(s->prep);
    s->prep = NULL;
    snprintf(err, cap, "cannot start the prepare threads");
    return -1;
  }
  if (start_listener(&s->api, s, o->port, 0, pool, o->max_connections,
                     o->max_connections_per_client, err, cap) ||
      (o->health_port && start_listener(&s->probe, s, o->health_port, 1, 0, PROBE_CONNECTIONS, 0,
                                        err, cap))) {
    stop_listener(&s->api);
    el__workq_stop(s->prep);
    s->prep = NULL;
    return -1;
  }
  s->port = s->api.port;
  return 0;
}

int el__http_open_connections(el__server *s) {
  return s->api.conns ? el__conns_count(s->api.conns) : 0;
}

/* The probe port keeps answering: /ready says 503 "draining" until the end. */
void el__http_quiesce(el__server *s, double grace) {
  if (s->api.mhd && s->listen_fd < 0) s->listen_fd = MHD_quiesce_daemon(s->api.mhd);
  if (s->api.conns) el__conns_drain(s->api.conns, grace);
}

void el__http_stop(el__server *s) {
  if (!s->api.mhd) return;
  stop_listener(&s->probe);
  stop_listener(&s->api);
  el__workq_stop(s->prep);
  s->prep = NULL;
  if (s->listen_fd >= 0) close(s->listen_fd);
  s->listen_fd = -1;
}
