/* GET /info and the model lines of GET /metrics (srv_info.c). */
#ifndef EL_SERVER_INFO_H
#define EL_SERVER_INFO_H

#include <stddef.h>

#include "srv_state.h"

/* /info as JSON: version, readiness, limits, every model (task, route,
 * labels, how /score reads it), the last reload. Caller frees; NULL when out
 * of memory. */
char *el__info_render(el__server *s, size_t *len);
/* The cancelled/refused/timed-out counters and electra_model_info lines of
 * /metrics (Prometheus text). Caller frees; NULL while no models are loaded. */
char *el__info_model_metrics(el__server *s);

#endif
