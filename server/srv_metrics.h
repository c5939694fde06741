/* Prometheus metrics of the server (text exposition format 0.0.4).
 * All functions are thread-safe (one mutex; updates are a few adds). */
#ifndef EL_SERVER_METRICS_H
#define EL_SERVER_METRICS_H

#include <stddef.h>

/* Routes as counted: index into el__metric_routes. */
enum {
  EL_ROUTE_ROOT = 0,
  EL_ROUTE_HEALTH,
  EL_ROUTE_READY,
  EL_ROUTE_LIVE_V2,
  EL_ROUTE_READY_V2,
  EL_ROUTE_INFO,
  EL_ROUTE_METRICS,
  EL_ROUTE_OPENAPI,
  EL_ROUTE_TOKENIZE,
  EL_ROUTE_SCORE,
  EL_ROUTE_CLASSIFY,
  EL_ROUTE_QA,
  EL_ROUTE_CHECK,     /* POST /v2/check (LanguageTool's API) */
  EL_ROUTE_LANGUAGES, /* GET /v2/languages */
  EL_ROUTE_OTHER, /* unknown routes, counted together so paths cannot grow the table */
  EL_ROUTE_COUNT
};
extern const char *const el__metric_routes[EL_ROUTE_COUNT];

void el__metrics_init(void);
/* One answered request. model: the name of the model it ran on (NULL when
 * none): its latency is also kept per model, for the models the server was
 * started with (the first EL_METRIC_MODELS names seen; later ones count
 * under the route only). */
#define EL_METRIC_MODELS 16
void el__metrics_request(int route, int status, double seconds, const char *model);
/* Time a request waited before its first sequence ran. */
void el__metrics_queue_time(double seconds);
/* One batched forward: its sequences, tokens and duration. */
void el__metrics_batch(int seqs, int tokens, double seconds);
void el__metrics_queue_depth(int depth);
void el__metrics_ready(int ready);
void el__metrics_reload(int ok);

/* Appends the exposition to a malloc'd NUL-terminated string (caller frees),
 * with the standard process metrics (process_cpu_seconds_total,
 * process_resident_memory_bytes, process_virtual_memory_bytes,
 * process_open_fds, process_max_fds, process_start_time_seconds, read from
 * /proc and getrusage). models_text, if non-NULL, is appended verbatim
 * (per-model info lines). */
char *el__metrics_render(const char *models_text, size_t *len);

#endif
