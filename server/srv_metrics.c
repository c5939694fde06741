/* Prometheus metrics (srv_metrics.h). Fixed tables: routes and statuses are
 * closed sets, so no request can grow memory here. */
#include "srv_metrics.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include "srv_sbuf.h"

const char *const el__metric_routes[EL_ROUTE_COUNT] = {
    "/",      "/health",     "/ready",  "/v2/health/live", "/v2/health/ready",
    "/info",  "/metrics",    "/openapi.json", "/tokenize", "/score",
    "/classify", "/qa",     "/v2/check", "/v2/languages", "other"};

static const int statuses[] = {200, 400, 401, 404, 405, 413, 415, 422, 429, 500, 503, 504};
#define N_STATUS ((int)(sizeof statuses / sizeof statuses[0]))

static const double time_bounds[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                     0.1,    0.25,  0.5,    1,     2.5,  5,     10, 30};
#define N_TIME ((int)(sizeof time_bounds / sizeof time_bounds[0]))
static const double size_bounds[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
#define N_SIZE ((int)(sizeof size_bounds / sizeof size_bounds[0]))
static const double token_bounds[] = {16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
#define N_TOKEN ((int)(sizeof token_bounds / sizeof token_bounds[0]))

typedef struct hist {
  unsigned long long bucket[24]; /* per bound, plus +Inf at [n] */
  unsigned long long count;
  double sum;
} hist;

static struct {
  pthread_mutex_t mu;
  unsigned long long requests[EL_ROUTE_COUNT][N_STATUS + 1]; /* last: other statuses */
  hist latency[EL_ROUTE_COUNT];
  /* the same latencies per model: [route][k] for the model named models[k] */
  char models[EL_METRIC_MODELS][64];
  int n_models;
  hist model_latency[EL_ROUTE_COUNT][EL_METRIC_MODELS];
  double start_time; /* wall clock seconds, when /proc does not tell */
  hist queue, inference, batch_size, batch_tokens;
  unsigned long long batches, sequences, tokens, reload_ok, reload_fail;
  int depth, ready;
} M = {.mu = PTHREAD_MUTEX_INITIALIZER};

void el__metrics_init(void) {
  pthread_mutex_lock(&M.mu);
  memset(M.requests, 0, sizeof M.requests);
  memset(M.latency, 0, sizeof M.latency);
  memset(M.model_latency, 0, sizeof M.model_latency);
  M.n_models = 0;
  struct timeval tv;
  gettimeofday(&tv, NULL);
  M.start_time = (double)tv.tv_sec + tv.tv_usec * 1e-6;
  memset(&M.queue, 0, sizeof M.queue);
  memset(&M.inference, 0, sizeof M.inference);
  memset(&M.batch_size, 0, sizeof M.batch_size);
  memset(&M.batch_tokens, 0, sizeof M.batch_tokens);
  M.batches = M.sequences = M.tokens = M.reload_ok = M.reload_fail = 0;
  M.depth = M.ready = 0;
  pthread_mutex_unlock(&M.mu);
}

static void observe(hist *h, const double *bounds, int n, double v) {
  int i = 0;
  while (i < n && v > bounds[i]) i++;
  h->bucket[i]++;
  h->count++;
  h->sum += v;
}

/* Index of model in M.models, added when there is room; -1 otherwise. Names
 * come from the server's own model list (a request naming an unknown model
 * never runs on one), so the table cannot grow with requests. M.mu held. */
static int model_index(const char *model) {
  if (!model || !*model) return -1;
  for (int k = 0; k < M.n_models; k++)
    if (!strcmp(M.models[k], model)) return k;
  if (M.n_models >= EL_METRIC_MODELS || strlen(model) >= sizeof M.models[0]) return -1;
  snprintf(M.models[M.n_models], sizeof M.models[0], "%s", model);
  return M.n_models++;
}

void el__metrics_request(int route, int status, double seconds, const char *model) {
  if (route < 0 || route >= EL_ROUTE_COUNT) route = EL_ROUTE_OTHER;
  int s = N_STATUS;
  for (int i = 0; i < N_STATUS; i++)
    if (statuses[i] == status) s = i;
  pthread_mutex_lock(&M.mu);
  M.requests[route][s]++;
  observe(&M.latency[route], time_bounds, N_TIME, seconds);
  int k = model_index(model);
  if (k >= 0) observe(&M.model_latency[route][k], time_bounds, N_TIME, seconds);
  pthread_mutex_unlock(&M.mu);
}

void el__metrics_queue_time(double seconds) {
  pthread_mutex_lock(&M.mu);
  observe(&M.queue, time_bounds, N_TIME, seconds);
  pthread_mutex_unlock(&M.mu);
}

void el__metrics_batch(int seqs, int tokens, double seconds) {
  pthread_mutex_lock(&M.mu);
  observe(&M.inference, time_bounds, N_TIME, seconds);
  observe(&M.batch_size, size_bounds, N_SIZE, seqs);
  observe(&M.batch_tokens, token_bounds, N_TOKEN, tokens);
  M.batches++;
  M.sequences += (unsigned long long)seqs;
  M.tokens += (unsigned long long)tokens;
  pthread_mutex_unlock(&M.mu);
}

void el__metrics_queue_depth(int depth) {
  pthread_mutex_lock(&M.mu);
  M.depth = depth;
  pthread_mutex_unlock(&M.mu);
}

void el__metrics_ready(int ready) {
  pthread_mutex_lock(&M.mu);
  M.ready = ready;
  pthread_mutex_unlock(&M.mu);
}

void el__metrics_reload(int ok) {
  pthread_mutex_lock(&M.mu);
  if (ok)
    M.reload_ok++;
  else
    M.reload_fail++;
  pthread_mutex_unlock(&M.mu);
}

static void put_hist(el__sb *b, const char *name, const char *labels, const hist *h,
                     const double *bounds, int n) {
  unsigned long long cum = 0;
  const char *sep = labels[0] ? "," : "";
  for (int i = 0; i < n; i++) {
    cum += h->bucket[i];
    el__sb_printf(b, "%s_bucket{%s%sle=\"%g\"} %llu\n", name, labels, sep, bounds[i], cum);
  }
  cum += h->bucket[n];
  el__sb_printf(b, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, labels, sep, cum);
  if (labels[0]) {
    el__sb_printf(b, "%s_sum{%s} %.9g\n%s_count{%s} %llu\n", name, labels, h->sum, name, labels,
                  h->count);
  } else {
    el__sb_printf(b, "%s_sum %.9g\n%s_count %llu\n", name, h->sum, name, h->count);
  }
}

/* ---- process metrics (the names every Prometheus client library uses) ---- */

static double process_start_time(double fallback) {
  /* /proc/self/stat field 22: start time in clock ticks after boot; boot
   * time: /proc/stat btime */
  char buf[1024];
  FILE *f = fopen("/proc/self/stat", "r");
  if (!f) return fallback;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  const char *p = strrchr(buf, ')'); /* the command name may hold spaces */
  if (!p) return fallback;
  unsigned long long ticks = 0;
  int field = 2;
  for (p++; *p && field < 22; p++)
    if (*p == ' ') field++;
  if (field != 22 || sscanf(p, "%llu", &ticks) != 1) return fallback;
  f = fopen("/proc/stat", "r");
  if (!f) return fallback;
  unsigned long long btime = 0;
  char line[256];
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "btime %llu", &btime) == 1) break;
  fclose(f);
  long hz = sysconf(_SC_CLK_TCK);
  if (!btime || hz <= 0) return fallback;
  return (double)btime + (double)ticks / (double)hz;
}

static void put_process_metrics(el__sb *b, double fallback_start) {
  struct rusage ru;
  double cpu = 0;
  if (!getrusage(RUSAGE_SELF, &ru))
    cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
          ru.ru_stime.tv_usec * 1e-6;
  unsigned long long vm = 0, rss = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f) {
    if (fscanf(f, "%llu %llu", &vm, &rss) != 2) vm = rss = 0;
    fclose(f);
  }
  long page = sysconf(_SC_PAGESIZE);
  int fds = 0;
  DIR *d = opendir("/proc/self/fd");
  if (d) {
    for (struct dirent *e; (e = readdir(d));)
      if (e->d_name[0] != '.') fds++;
    closedir(d);
    fds--; /* the directory's own descriptor */
  }
  struct rlimit rl;
  double max_fds = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                       ? (double)rl.rlim_cur
                       : -1;
  el__sb_printf(b,
                "# HELP process_cpu_seconds_total Total user and system CPU time spent in "
                "seconds.\n# TYPE process_cpu_seconds_total counter\n"
                "process_cpu_seconds_total %.6f\n"
                "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
                "# TYPE process_resident_memory_bytes gauge\n"
                "process_resident_memory_bytes %llu\n"
                "# HELP process_virtual_memory_bytes Virtual memory size in bytes.\n"
                "# TYPE process_virtual_memory_bytes gauge\n"
                "process_virtual_memory_bytes %llu\n"
                "# HELP process_open_fds Number of open file descriptors.\n"
                "# TYPE process_open_fds gauge\nprocess_open_fds %d\n",
                cpu, rss * (unsigned long long)page, vm * (unsigned long long)page, fds);
  if (max_fds >= 0)
    el__sb_printf(b, "# HELP process_max_fds Maximum number of open file descriptors.\n"
                     "# TYPE process_max_fds gauge\nprocess_max_fds %.0f\n", max_fds);
  el__sb_printf(b, "# HELP process_start_time_seconds Start time of the process since unix "
                   "epoch in seconds.\n# TYPE process_start_time_seconds gauge\n"
                   "process_start_time_seconds %.2f\n", process_start_time(fallback_start));
}

char *el__metrics_render(const char *models_text, size_t *len) {
  el__sb b = {0};
  pthread_mutex_lock(&M.mu);
  el__sb_puts(&b, "# HELP electra_requests_total HTTP requests answered, by route and status.\n"
                  "# TYPE electra_requests_total counter\n");
  for (int r = 0; r < EL_ROUTE_COUNT; r++)
    for (int s = 0; s <= N_STATUS; s++) {
      if (!M.requests[r][s]) continue;
      if (s < N_STATUS)
        el__sb_printf(&b, "electra_requests_total{route=\"%s\",status=\"%d\"} %llu\n",
                      el__metric_routes[r], statuses[s], M.requests[r][s]);
      else
        el__sb_printf(&b, "electra_requests_total{route=\"%s\",status=\"other\"} %llu\n",
                      el__metric_routes[r], M.requests[r][s]);
    }
  el__sb_puts(&b, "# HELP electra_request_duration_seconds Time from request to response, by "
                  "route, and by route and model for requests that ran on a model.\n"
                  "# TYPE electra_request_duration_seconds histogram\n");
  for (int r = 0; r < EL_ROUTE_COUNT; r++) {
    if (!M.latency[r].count) continue;
    char lab[128];
    snprintf(lab, sizeof lab, "route=\"%s\"", el__metric_routes[r]);
    put_hist(&b, "electra_request_duration_seconds", lab, &M.latency[r], time_bounds, N_TIME);
    for (int k = 0; k < M.n_models; k++) {
      if (!M.model_latency[r][k].count) continue;
      snprintf(lab, sizeof lab, "route=\"%s\",model=\"%s\"", el__metric_routes[r], M.models[k]);
      put_hist(&b, "electra_request_duration_seconds", lab, &M.model_latency[r][k], time_bounds,
               N_TIME);
    }
  }
  el__sb_puts(&b, "# HELP electra_queue_duration_seconds Time a request waited before its "
                  "first batch ran.\n# TYPE electra_queue_duration_seconds histogram\n");
  put_hist(&b, "electra_queue_duration_seconds", "", &M.queue, time_bounds, N_TIME);
  el__sb_puts(&b, "# HELP electra_inference_duration_seconds Duration of one batched forward "
                  "pass.\n# TYPE electra_inference_duration_seconds histogram\n");
  put_hist(&b, "electra_inference_duration_seconds", "", &M.inference, time_bounds, N_TIME);
  el__sb_puts(&b, "# HELP electra_batch_size Sequences per batched forward pass.\n"
                  "# TYPE electra_batch_size histogram\n");
  put_hist(&b, "electra_batch_size", "", &M.batch_size, size_bounds, N_SIZE);
  el__sb_puts(&b, "# HELP electra_batch_tokens Tokens per batched forward pass.\n"
                  "# TYPE electra_batch_tokens histogram\n");
  put_hist(&b, "electra_batch_tokens", "", &M.batch_tokens, token_bounds, N_TOKEN);
  el__sb_printf(&b,
                "# HELP electra_batches_total Batched forward passes run.\n"
                "# TYPE electra_batches_total counter\nelectra_batches_total %llu\n"
                "# HELP electra_sequences_total Sequences run (items; items / batches = mean "
                "batch size).\n# TYPE electra_sequences_total counter\n"
                "electra_sequences_total %llu\n"
                "# HELP electra_tokens_total Tokens run.\n"
                "# TYPE electra_tokens_total counter\nelectra_tokens_total %llu\n"
                "# HELP electra_queue_depth Requests accepted and not yet answered.\n"
                "# TYPE electra_queue_depth gauge\nelectra_queue_depth %d\n"
                "# HELP electra_ready 1 when every model is loaded and warm and the server is "
                "not draining.\n# TYPE electra_ready gauge\nelectra_ready %d\n"
                "# HELP electra_reloads_total Model reloads (SIGHUP), by result.\n"
                "# TYPE electra_reloads_total counter\n"
                "electra_reloads_total{result=\"ok\"} %llu\n"
                "electra_reloads_total{result=\"failed\"} %llu\n",
                M.batches, M.sequences, M.tokens, M.depth, M.ready, M.reload_ok, M.reload_fail);
  double start = M.start_time;
  pthread_mutex_unlock(&M.mu);
  put_process_metrics(&b, start);
  if (models_text) el__sb_puts(&b, models_text);
  return el__sb_take(&b, len);
}
