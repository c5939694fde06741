/* electra-server's process (srv_server.c): load, warm-up, ready, SIGHUP
 * reload, SIGTERM drain, around the HTTP layer (srv_http.h) and the shared
 * state (srv_state.h); and the --healthcheck client (healthcheck.c). */
#ifndef EL_SERVER_SERVER_H
#define EL_SERVER_SERVER_H

#include "srv_http.h"
#include "srv_options.h"

/* Runs the whole server; returns the process exit code. */
int el__server_main(const el__srv_options *opt);
/* --healthcheck: GET /health on host:port; 0 when it answers 200. */
int el__healthcheck(const char *host, int port);

#endif
