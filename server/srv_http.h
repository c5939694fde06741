/* electra-server's HTTP layer (http.c, on libmicrohttpd), as the lifecycle
 * (srv_server.c) drives it, and the static bodies it serves. */
#ifndef EL_SERVER_HTTP_H
#define EL_SERVER_HTTP_H

#include <stddef.h>

#include "srv_state.h"

/* Start listening (err: why not); stop accepting and close the requests not
 * fully received (those begun later after grace seconds: el__conns_drain);
 * stop. A --health-port listener starts and stops with the API port but is
 * not quiesced: its /ready says 503 through the drain. */
int el__http_start(el__server *s, char *err, size_t cap);
void el__http_quiesce(el__server *s, double grace);
void el__http_stop(el__server *s);
/* Connections open now on the API port (kept-alive ones included). */
int el__http_open_connections(el__server *s);

/* The bodies of GET / and GET /openapi.json (page.c, openapi.c). */
extern const char el__page_html[];
extern const char el__openapi_json[];

#endif
