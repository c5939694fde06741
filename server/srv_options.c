/* Option parsing (srv_options.h). One table drives flags, environment names,
 * config-file keys and the --help text, so they cannot disagree; it runs on
 * the option engine electra-train uses too (common/el_cli.h): the same
 * forms, value checks, messages and "did you mean" suggestions. */
#include "srv_options.h"

#include "el_cli.h"
#include "electra/model.h"
#include "check.h"
#include "srv_modeldir.h"
#include "support_api.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* The table, built on the struct being filled: el_opt destinations are
 * pointers. --model, --correct-label, --cors-origin and --log-format are
 * EL_OPT_CUSTOM, stored by set_value below. Long because it is the table:
 * one entry per option, read as data (--help prints it in this order). */
enum { N_DEFS = 39 };
static int build_table(el__srv_options *o, el_opt *t) {
  const el_opt d[N_DEFS] = {
      {"--model", EL_OPT_CUSTOM, o, 0, 0, "[NAME=]DIR",
       "serve the checkpoint directory DIR as NAME (default: DIR's base name); a\n"
       "      pretraining run directory serves its discriminator/. Repeat for several models. The task\n"
       "      follows the architecture (ElectraForPreTraining and ...TokenClassification ->\n"
       "      /score, ...SequenceClassification -> /classify, ...QuestionAnswering -> /qa); the\n"
       "      first model of each task is its default. Models from --config, ELECTRA_MODEL\n"
       "      (NAME=DIR,NAME=DIR) and flags add up; a repeated NAME takes the later DIR", 0},
      {"--correct-label", EL_OPT_CUSTOM, o, 0, 0, "NAME=LABEL",
       "for the ElectraForTokenClassification model NAME, the id2label name of its \"no\n"
       "      error\" class; /score gives each piece 1 - P(LABEL). Without it the one label\n"
       "      named CORRECT, C, O, OK or KEEP (any case) is taken; a model with none or several\n"
       "      such labels is refused. Repeat for several models (config file:\n"
       "      \"correct_label\": {\"NAME\": \"LABEL\"})", 0},
      {"--generator", EL_OPT_CUSTOM, o, 0, 0, "NAME=GEN_DIR",
       "the generator (ElectraForMaskedLM, the same vocabulary) whose words /v2/check\n"
       "      proposes as corrections for the /score model NAME; default: NAME's DIR/generator/\n"
       "      when present (a hub GED model ships none; without one the other candidate\n"
       "      sources still apply; its word_counts.txt, else DIR's, ranks a misspelling's\n"
       "      suggestions). Repeat for several models (config file:\n"
       "      \"generator\": {\"NAME\": \"GEN_DIR\"})", 0},
      {"--dtype", EL_OPT_CUSTOM, o, 0, 0, "fp32|int8",
       "arithmetic of the models' dense layers (fp32). int8: weights quantized once at\n"
       "      load (per output channel), activations per token, int32 products on the\n"
       "      engine's own AVX2 / AVX-512 VNNI kernels, else oneDNN's; attention in bf16 on\n"
       "      AVX512_BF16 CPUs (speed, memory, accuracy: docs/QUANT.md). Needs oneDNN", 0},
      {"--model-dtype", EL_OPT_CUSTOM, o, 0, 0, "NAME=DTYPE",
       "--dtype for the model NAME alone. Repeat for several models (config file:\n"
       "      \"model_dtype\": {\"NAME\": \"int8\"}, or \"dtype\" in a \"models\" array entry)", 0},
      {"--config", EL_OPT_TEXT, o->config, 0, sizeof o->config, "FILE.json",
       "options as JSON: {\"models\": {\"NAME\": \"DIR\", ...}, \"port\": 8080, ...}; any option\n"
       "      below is a key (dashes or underscores)", 0},
      {"--host", EL_OPT_TEXT, o->host, 0, sizeof o->host, "ADDR",
       "address to listen on (127.0.0.1)", 0},
      {"--port", EL_OPT_INT32, &o->port, 0, 65535, "N", "TCP port (8080; 0 picks a free port)", 0},
      {"--health-port", EL_OPT_INT32, &o->health_port, 0, 65535, "N",
       "also serve GET /health, /ready, /v2/health/* and /metrics (nothing else) on this\n"
       "      port, with connections of its own (64), so probes are answered while the API\n"
       "      port is full (0 = none; when given, --healthcheck probes it)", 0},
      {"--threads", EL_OPT_INT32, &o->threads, 0, 1024, "N",
       "compute threads of the inference thread's BLAS (0 = the CPU quota)", 0},
      {"--http-threads", EL_OPT_INT32, &o->http_threads, 0, 256, "N",
       "HTTP worker threads (0 = cores, between 2 and 4)", 0},
      {"--max-batch-tokens", EL_OPT_INT32, &o->max_batch_tokens, 1, 1 << 20, "N",
       "tokens per batched forward pass (8192)", 0},
      {"--max-batch-size", EL_OPT_INT32, &o->max_batch_size, 1, 65536, "N",
       "sequences per batched forward pass (64; 1 turns batching off)", 0},
      {"--max-wait-us", EL_OPT_INT32, &o->max_wait_us, 0, 10000000, "US",
       "wait up to US microseconds for a batch to fill (0: run as soon as the engine is free)", 0},
      {"--max-queue", EL_OPT_INT32, &o->max_queue, 1, 1 << 24, "N",
       "requests accepted and not yet answered before 429 (1024)", 0},
      {"--max-queue-tokens", EL_OPT_INT, &o->max_queue_tokens, 0, 1L << 40, "N",
       "tokens of requests accepted and not yet answered before 429 (262144; a request\n"
       "      alone is always accepted; 0 = no bound)", 0},
      {"--max-inputs", EL_OPT_INT32, &o->max_inputs, 1, 1 << 20, "N",
       "items in one request's texts/inputs (64; more is 422)", 0},
      {"--max-qa-windows", EL_OPT_INT32, &o->max_qa_windows, 1, 1 << 20, "N",
       "/qa: windows (max_seq_len tokens each) over all of a request's contexts (256, a "
       "32k-piece context at the default doc_stride; more is 422 before any work)", 0},
      {"--max-body-bytes", EL_OPT_INT, &o->max_body_bytes, 16, 1L << 30, "N",
       "largest request body (1048576; larger is 413 before reading it)", 0},
      {"--max-bytes-in-flight", EL_OPT_INT, &o->max_bytes_in_flight, 1024, 1L << 40, "N",
       "memory of the requests in flight, all connections together (268435456): each\n"
       "      request's body counts 40 times its size from its header to its answer (the\n"
       "      body, then the parsed request), each answer its size until sent; a body that\n"
       "      would pass it is 503 before it is read. At least 40 x --max-body-bytes and\n"
       "      --max-response-bytes", 0},
      {"--request-timeout", EL_OPT_DURATION, &o->request_timeout, 0, 86400, "SECONDS",
       "longest wait for a result: 504 at this deadline, also while its batch runs\n"
       "      (30; fractions allowed)", 0},
      {"--drain-timeout", EL_OPT_DURATION, &o->drain_timeout, 0, 86400, "SECONDS",
       "on SIGTERM/SIGINT, time to finish accepted requests (30)", 0},
      {"--connection-timeout", EL_OPT_INT32, &o->connection_timeout, 0, 86400, "SECONDS",
       "close a connection idle this long, e.g. a stalled client (30; 0 = never)", 0},
      {"--max-connections", EL_OPT_INT32, &o->max_connections, 8, 1000000, "N",
       "open connections at once (1000)", 0},
      {"--max-connections-per-client", EL_OPT_INT32, &o->max_connections_per_client, 0,
       1000000, "N", "open connections from one client address (256; 0 = no limit; behind\n"
       "      a proxy every client has the proxy's address: raise it or set 0)", 0},
      {"--header-timeout", EL_OPT_DURATION, &o->header_timeout, 0, 86400, "SECONDS",
       "time to receive a request's whole header, from the connection's start or the\n"
       "      end of the previous answer (10; 0 = none)", 0},
      {"--body-timeout", EL_OPT_DURATION, &o->body_timeout, 0, 86400, "SECONDS",
       "time to receive a request's whole body once its header is read (30; 0 = none)", 0},
      {"--max-response-bytes", EL_OPT_INT, &o->max_response_bytes, 1024, 1L << 32, "N",
       "largest answer body of /tokenize, /score, /classify and /qa (8388608; a\n"
       "      larger answer is refused with 422)", 0},
      {"--special-tokens-in-text", EL_OPT_CUSTOM, o, 0, 0, "special|text",
       "what \"[SEP]\", \"[CLS]\", \"[MASK]\"... typed in a request's text are: special\n"
       "      tokens (special, Hugging Face's default) or plain text (text: \"[\", \"sep\", \"]\");\n"
       "      a request's \"special_tokens_in_text\": true|false overrides it", 0},
      {"--api-key-file", EL_OPT_TEXT, o->api_key_file, 0, sizeof o->api_key_file, "FILE",
       "require \"Authorization: Bearer KEY\" with KEY the file's first line\n"
       "      (GET /, /health, /ready, /v2/health/*, /metrics stay open)", 0},
      {"--cors-origin", EL_OPT_CUSTOM, o, 0, 0, "ORIGIN",
       "allow browser requests from ORIGIN (repeat or comma-separate; * = any)", 0},
      {"--log-format", EL_OPT_CUSTOM, o, 0, 0, "text|json",
       "log line format (text, to stderr; json lines go to stdout)", 0},
      {"--no-dictionary", EL_OPT_FLAG, &o->no_dictionary, 0, 0, NULL,
       "/score with the models alone: no hunspell (nor n-gram) verdicts beside a model whose\n"
       "      config.json has score_dictionary_weight (its score_threshold then applies)", 0},
      {"--no-checker", EL_OPT_FLAG, &o->no_checker, 0, 0, NULL,
       "no grammar checker: /v2/check and /score's suggestions answer 503; saves the\n"
       "      checker's English (~24 MB resident: hunspell's dictionaries, WordNet's forms,\n"
       "      shared by every model) and its workspaces", 0},
      {"--verify-dtype", EL_OPT_CUSTOM, o, 0, 0, "auto|fp32|int8",
       "arithmetic of /v2/check's verification pass: auto (default) is int8 where the\n"
       "      engine's own int8 kernels run (AVX2, AVX-512 VNNI), else fp32; int8 verifies\n"
       "      on an int8 copy of an fp32 detector, up to a third faster, the same\n"
       "      corrections within noise; fp32 on the detector itself (docs/CHECKER.md)", 0},
      {"--no-access-log", EL_OPT_FLAG, &o->no_access_log, 0, 0, NULL, "no log line per request", 0},
      {"--healthcheck", EL_OPT_FLAG, &o->healthcheck, 0, 0, NULL,
       "probe http://HOST:PORT/health (HEALTH_PORT when given) and exit 0 when it\n"
       "      answers 200, else 1", 0},
      {"--version", EL_OPT_FLAG, &o->version, 0, 0, NULL, "print the version and exit", 0},
      {"--help", EL_OPT_FLAG, &o->help, 0, 0, NULL, "this text", 0},
  };
  memcpy(t, d, sizeof d);
  return N_DEFS;
}

static char usage_buf[12288];

const char *el__options_usage(void) {
  if (usage_buf[0]) return usage_buf;
  static el__srv_options dummy;
  el_opt t[N_DEFS];
  int n = build_table(&dummy, t);
  FILE *f = fmemopen(usage_buf, sizeof usage_buf - 1, "w");
  if (!f) return "electra-server: cannot build the --help text\n";
  fputs("usage: electra-server --model [NAME=]DIR [--model [NAME=]DIR ...] [options]\n"
        "       electra-server --healthcheck [--host H] [--port P] [--health-port P]\n\n"
        "Batched REST inference for ELECTRA checkpoints:\n"
        "POST /score /classify /qa /tokenize; GET / /health /ready /info "
        "/metrics /openapi.json\n(and /v2/health/live, /v2/health/ready).\n\n"
        "Every option is also read from ELECTRA_<OPTION> (ELECTRA_PORT=8080 "
        "for --port,\nELECTRA_MAX_BATCH_SIZE for --max-batch-size). The flag "
        "wins over the\nenvironment, which wins over --config.\n\n",
        f);
  el__cli_print_wrapped(f, t, n);
  fputs("\nSignals: SIGTERM/SIGINT drain (not ready, stop accepting, finish accepted "
        "work,\nexit 0); SIGHUP reloads every model from its directory (a failed reload "
        "keeps\nthe old models). Exit status: 0 after a drain, 1 on a start-up error,\n"
        "2 on bad options.\n",
        f);
  fclose(f);
  return usage_buf;
}

void el__options_defaults(el__srv_options *o) {
  memset(o, 0, sizeof *o);
  snprintf(o->host, sizeof o->host, "127.0.0.1");
  o->port = 8080;
  o->verify_dtype = -1;
  o->max_batch_tokens = 8192;
  o->max_batch_size = 64;
  o->max_queue = 1024;
  o->max_inputs = 64;
  o->max_qa_windows = 256;
  o->max_body_bytes = 1048576;
  o->max_bytes_in_flight = 268435456;
  o->request_timeout = 30;
  o->drain_timeout = 30;
  o->connection_timeout = 30;
  o->max_connections = 1000;
  o->max_connections_per_client = 256;
  o->max_queue_tokens = 262144;
  o->header_timeout = 10;
  o->body_timeout = 30;
  o->max_response_bytes = 8388608;
  o->access_log = 1;
}

static int fail(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, cap, fmt, ap);
  va_end(ap);
  return -1;
}

/* Models add up across the layers (config file, environment, flags); the
 * same name in a higher layer replaces the lower layer's directory. */
enum { LAYER_CONFIG = 1, LAYER_ENV, LAYER_FLAGS };
static int cur_layer;
static int model_layer[EL_SRV_MAX_MODELS];

static int el__has_model(const el__srv_options *o, const char *name, size_t nl) {
  for (int i = 0; i < o->n_models; i++)
    if (strlen(o->models[i].name) == nl && !strncmp(o->models[i].name, name, nl)) return 1;
  return 0;
}

static int check_model_name(const char *name, size_t nl, const char *src, char *err,
                            size_t cap) {
  if (nl >= sizeof ((el__model_spec *)0)->name)
    return fail(err, cap, "%s: model name longer than %zu bytes", src,
                sizeof ((el__model_spec *)0)->name - 1);
  for (size_t i = 0; i < nl; i++) {
    char c = name[i];
    if (!(isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.'))
      return fail(err, cap, "%s: model name \"%.*s\" may hold only letters, digits, - _ .",
                  src, (int)nl, name);
  }
  return 0;
}

static int is_model_name(const char *s, size_t n) {
  if (!n || n >= sizeof ((el__model_spec *)0)->name) return 0;
  for (size_t i = 0; i < n; i++)
    if (!(isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '_' || s[i] == '.')) return 0;
  return 1;
}

/* NAME=DIR, or DIR alone: then the name is the directory's base name. What
 * precedes the first '=' is a NAME only when it is a valid model name, so a
 * directory path holding '=' (or '/') before it is still a DIR. A pretraining
 * run directory becomes its discriminator/ (srv_modeldir.h). */
static int add_model(el__srv_options *o, const char *spec, const char *src, char *err,
                     size_t cap) {
  const char *eq = strchr(spec, '=');
  const char *name = spec, *dir;
  size_t nl;
  if (eq && is_model_name(spec, (size_t)(eq - spec))) {
    nl = (size_t)(eq - spec);
    dir = eq + 1;
    if (!*dir) return fail(err, cap, "%s: model must be NAME=DIR or DIR, got \"%s\"", src, spec);
  } else {
    dir = spec;
    size_t end = strlen(dir);
    while (end > 1 && dir[end - 1] == '/') end--;
    size_t start = end;
    while (start > 0 && dir[start - 1] != '/') start--;
    name = dir + start;
    nl = end - start;
    if (!is_model_name(name, nl) || (nl == 1 && name[0] == '.') ||
        (nl == 2 && !strncmp(name, "..", 2)))
      return fail(err, cap, "%s: cannot name a model after the directory \"%s\" (a name holds "
                  "only letters, digits, - _ .): give --model NAME=DIR", src, spec);
  }
  if (check_model_name(name, nl, src, err, cap)) return -1;
  char resolved[sizeof o->models[0].dir];
  if (strlen(dir) >= sizeof o->models[0].dir ||
      el__model_dir_resolve(dir, resolved, sizeof resolved) < 0)
    return fail(err, cap, "%s: model directory path too long", src);
  if (o->n_models >= EL_SRV_MAX_MODELS && !el__has_model(o, name, nl))
    return fail(err, cap, "%s: more than %d models", src, EL_SRV_MAX_MODELS);
  el__model_spec *m = NULL;
  for (int i = 0; i < o->n_models; i++)
    if (strlen(o->models[i].name) == nl && !strncmp(o->models[i].name, name, nl)) {
      if (model_layer[i] == cur_layer)
        return fail(err, cap, "%s: model name \"%.*s\" given twice%s", src, (int)nl, name,
                    name == spec ? "" : " (DIR alone is named after its base name: give "
                                        "NAME=DIR)");
      m = &o->models[i]; /* a higher layer names it again: its directory wins */
      model_layer[i] = cur_layer;
    }
  if (!m) {
    model_layer[o->n_models] = cur_layer;
    m = &o->models[o->n_models++];
  }
  memcpy(m->name, name, nl);
  m->name[nl] = 0;
  snprintf(m->dir, sizeof m->dir, "%s", resolved);
  return 0;
}

/* NAME=VALUE (a correct label, a model dtype): the value is everything after
 * the first '=' (model names hold none). Layers work as for models: a higher
 * layer replaces, the same layer may not name a model twice. */
static int add_pair(el__label_spec *list, int *n, const char *what, const char *spec,
                    const char *src, char *err, size_t cap) {
  const char *eq = strchr(spec, '=');
  if (!eq || eq == spec || !eq[1])
    return fail(err, cap, "%s: %s must be NAME=%s, got \"%s\"", src, what,
                strcmp(what, "correct label") ? "DTYPE" : "LABEL", spec);
  size_t nl = (size_t)(eq - spec);
  if (check_model_name(spec, nl, src, err, cap)) return -1;
  if (strlen(eq + 1) >= sizeof list[0].label)
    return fail(err, cap, "%s: %s longer than %zu bytes", src, what, sizeof list[0].label - 1);
  el__label_spec *l = NULL;
  for (int i = 0; i < *n; i++) {
    el__label_spec *x = &list[i];
    if (strlen(x->model) != nl || strncmp(x->model, spec, nl)) continue;
    if (x->layer == cur_layer)
      return fail(err, cap, "%s: %s of model \"%.*s\" given twice", src, what, (int)nl, spec);
    l = x;
  }
  if (!l) {
    if (*n >= EL_SRV_MAX_MODELS)
      return fail(err, cap, "%s: more than %d %ss", src, EL_SRV_MAX_MODELS, what);
    l = &list[(*n)++];
  }
  memcpy(l->model, spec, nl);
  l->model[nl] = 0;
  snprintf(l->label, sizeof l->label, "%s", eq + 1);
  l->layer = cur_layer;
  return 0;
}

static int add_label(el__srv_options *o, const char *spec, const char *src, char *err,
                     size_t cap) {
  return add_pair(o->correct_labels, &o->n_correct_labels, "correct label", spec, src, err, cap);
}

static int add_generator(el__srv_options *o, const char *spec, const char *src, char *err,
                         size_t cap) {
  return add_pair(o->generators, &o->n_generators, "generator", spec, src, err, cap);
}

/* fp32|int8, refused when unknown or when this build cannot run it. */
static int parse_dtype(const char *v, const char *src, int *out, char *err, size_t cap) {
  int d = el_dtype_from_name(v);
  if (d < 0) return fail(err, cap, "%s must be one of fp32|int8, got '%s'", src, v);
  if (!el_dtype_available((el_dtype)d))
    return fail(err, cap, "%s %s: this build has no int8 path (it needs oneDNN: install "
                "libdnnl-dev and rebuild, or use fp32)", src, v);
  *out = d;
  return 0;
}

static int add_model_dtype(el__srv_options *o, const char *spec, const char *src, char *err,
                           size_t cap) {
  const char *eq = strchr(spec, '=');
  int d;
  if (eq && eq[1] && parse_dtype(eq + 1, src, &d, err, cap)) return -1;
  return add_pair(o->model_dtypes, &o->n_model_dtypes, "model dtype", spec, src, err, cap);
}

/* Each correct label to its model; one naming no model is an error (a typo
 * would otherwise leave the model on the automatic rule). */
static int apply_labels(el__srv_options *o, char *err, size_t cap) {
  for (int i = 0; i < o->n_correct_labels; i++) {
    const el__label_spec *l = &o->correct_labels[i];
    el__model_spec *m = NULL;
    for (int k = 0; k < o->n_models && !m; k++)
      if (!strcmp(o->models[k].name, l->model)) m = &o->models[k];
    if (!m)
      return fail(err, cap, "--correct-label %s=%s: no model is named \"%s\" (give --model "
                  "%s=DIR)", l->model, l->label, l->model, l->model);
    snprintf(m->correct_label, sizeof m->correct_label, "%s", l->label);
  }
  return 0;
}

/* Each --generator to its model, which must be given (as for labels). */
static int apply_generators(el__srv_options *o, char *err, size_t cap) {
  for (int i = 0; i < o->n_generators; i++) {
    const el__label_spec *l = &o->generators[i];
    el__model_spec *m = NULL;
    for (int k = 0; k < o->n_models && !m; k++)
      if (!strcmp(o->models[k].name, l->model)) m = &o->models[k];
    if (!m)
      return fail(err, cap, "--generator %s=%s: no model is named \"%s\" (give --model "
                  "%s=DIR)", l->model, l->label, l->model, l->model);
    snprintf(m->generator, sizeof m->generator, "%s", l->label);
  }
  return 0;
}

/* Every model gets --dtype, then its own --model-dtype (which must name a
 * model that is given, as a correct label must). */
static int apply_dtypes(el__srv_options *o, char *err, size_t cap) {
  for (int k = 0; k < o->n_models; k++) o->models[k].dtype = o->dtype;
  for (int k = 0; k < o->n_models; k++) {
    o->models[k].no_dictionary = o->no_dictionary;
    o->models[k].no_checker = o->no_checker;
    o->models[k].verify_dtype = o->verify_dtype;
  }
  for (int i = 0; i < o->n_model_dtypes; i++) {
    const el__label_spec *l = &o->model_dtypes[i];
    el__model_spec *m = NULL;
    for (int k = 0; k < o->n_models && !m; k++)
      if (!strcmp(o->models[k].name, l->model)) m = &o->models[k];
    if (!m)
      return fail(err, cap, "--model-dtype %s=%s: no model is named \"%s\" (give --model "
                  "%s=DIR)", l->model, l->label, l->model, l->model);
    m->dtype = el_dtype_from_name(l->label); /* checked when given */
  }
  return 0;
}

static int add_origin(el__srv_options *o, const char *v, const char *src, char *err,
                      size_t cap) {
  const char *p = v;
  while (*p) {
    const char *c = strchr(p, ',');
    size_t n = c ? (size_t)(c - p) : strlen(p);
    while (n && isspace((unsigned char)*p)) p++, n--;
    while (n && isspace((unsigned char)p[n - 1])) n--;
    if (n) {
      if (o->n_cors >= EL_SRV_MAX_ORIGINS)
        return fail(err, cap, "%s: more than %d CORS origins", src, EL_SRV_MAX_ORIGINS);
      if (n >= sizeof o->cors_origins[0]) return fail(err, cap, "%s: origin too long", src);
      memcpy(o->cors_origins[o->n_cors], p, n);
      o->cors_origins[o->n_cors++][n] = 0;
    }
    if (!c) break;
    p = c + 1;
  }
  return 0;
}

/* Sets one option from its text value. shown names where it came from in
 * messages: NULL for the command line (the option's name is shown),
 * "ELECTRA_PORT", or "FILE: \"port\"". */
static int set_value(el__srv_options *o, const el_opt *d, const char *v, const char *shown,
                     char *err, size_t cap) {
  int rc = el__cli_store(d, shown, v, err, cap);
  if (rc <= 0) return rc;
  const char *src = shown ? shown : d->name;
  if (!strcmp(d->name, "--dtype")) return parse_dtype(v, src, &o->dtype, err, cap);
  if (!strcmp(d->name, "--verify-dtype")) {
    el_error e = {0};
    if (el__check_verify_dtype_parse(v, src, &o->verify_dtype, &e) == EL_OK) return 0;
    return fail(err, cap, "%s", e.msg);
  }
  if (!strcmp(d->name, "--model") || !strcmp(d->name, "--correct-label") ||
      !strcmp(d->name, "--model-dtype") || !strcmp(d->name, "--generator")) {
    int (*add)(el__srv_options *, const char *, const char *, char *, size_t) =
        !strcmp(d->name, "--model")           ? add_model
        : !strcmp(d->name, "--correct-label") ? add_label
        : !strcmp(d->name, "--generator")     ? add_generator
                                              : add_model_dtype;
    const char *p = v;
    while (*p) { /* env and config lists: NAME=DIR,NAME=DIR */
      const char *c = strchr(p, ',');
      char one[1200];
      size_t n = c ? (size_t)(c - p) : strlen(p);
      if (n >= sizeof one) return fail(err, cap, "%s: value too long", src);
      memcpy(one, p, n);
      one[n] = 0;
      if (n && add(o, one, src, err, cap)) return -1;
      if (!c) break;
      p = c + 1;
    }
    return 0;
  }
  if (!strcmp(d->name, "--cors-origin")) return add_origin(o, v, src, err, cap);
  if (!strcmp(d->name, "--special-tokens-in-text")) {
    if (!strcmp(v, "special"))
      o->specials_as_text = 0;
    else if (!strcmp(v, "text"))
      o->specials_as_text = 1;
    else
      return fail(err, cap, "%s must be one of special|text, got '%s'", src, v);
    return 0;
  }
  /* --log-format */
  if (!strcmp(v, "text"))
    o->log_json = 0;
  else if (!strcmp(v, "json"))
    o->log_json = 1;
  else
    return fail(err, cap, "%s must be one of text|json, got '%s'", src, v);
  return 0;
}

static int read_file(const char *path, char **out, char *err, size_t cap) {
  FILE *f = fopen(path, "rb");
  if (!f) return fail(err, cap, "%s: %s", path, strerror(errno));
  size_t n = 0, c = 4096;
  char *buf = malloc(c);
  while (buf) {
    size_t r = fread(buf + n, 1, c - n - 1, f);
    n += r;
    if (r == 0) break;
    if (n + 1 == c) {
      if (c > (16u << 20)) {
        free(buf);
        fclose(f);
        return fail(err, cap, "%s: larger than 16 MiB", path);
      }
      char *nb = realloc(buf, c * 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      c *= 2;
    }
  }
  int bad = ferror(f);
  fclose(f);
  if (!buf) return fail(err, cap, "%s: out of memory", path);
  if (bad) {
    free(buf);
    return fail(err, cap, "%s: read error", path);
  }
  buf[n] = 0;
  *out = buf;
  return 0;
}

/* A config key that names no option: the message, with the nearest key. */
static int unknown_key(el_opt *t, int n, const char *path, const char *key, char *err,
                       size_t cap) {
  const char *names[N_DEFS + 1];
  char keys[N_DEFS + 1][40];
  int k = 0;
  int underscores = strchr(key, '_') != NULL;
  for (int i = 0; i < n; i++) {
    if (!strcmp(t[i].name, "--config") || !strcmp(t[i].name, "--help") ||
        !strcmp(t[i].name, "--version") || !strcmp(t[i].name, "--healthcheck"))
      continue;
    snprintf(keys[k], sizeof keys[k], "%s", t[i].name + 2);
    for (char *c = keys[k]; *c; c++)
      if (*c == '-' && underscores) *c = '_';
    names[k] = keys[k];
    k++;
  }
  names[k++] = "models";
  const char *s = el__near_miss(key, names, k);
  if (s) return fail(err, cap, "%s: unknown option \"%s\" (did you mean \"%s\"?)", path, key, s);
  return fail(err, cap, "%s: unknown option \"%s\" (see electra-server --help)", path, key);
}

/* The config file's "models": {"NAME": "DIR", ...} or [{"name", "path",
 * "dtype"?, "correct_label"?}, ...]. */
static int config_models(el__srv_options *o, const cJSON *it, const char *path, const char *src,
                         char *err, size_t cap) {
  int rc = 0;
  if (cJSON_IsObject(it)) {
    for (cJSON *m = it->child; m && !rc; m = m->next) {
      if (!cJSON_IsString(m)) {
        rc = fail(err, cap, "%s: \"models\".\"%s\" must be a directory string", path,
                  m->string);
        break;
      }
      char spec[1200];
      snprintf(spec, sizeof spec, "%s=%s", m->string, m->valuestring);
      rc = add_model(o, spec, src, err, cap);
    }
  } else if (cJSON_IsArray(it)) {
    for (cJSON *m = it->child; m && !rc; m = m->next) {
      cJSON *nm = cJSON_GetObjectItemCaseSensitive(m, "name");
      cJSON *pa = cJSON_GetObjectItemCaseSensitive(m, "path");
      if (!cJSON_IsString(nm) || !cJSON_IsString(pa)) {
        rc = fail(err, cap, "%s: \"models\" entries need string \"name\" and \"path\"",
                  path);
        break;
      }
      char spec[1200];
      snprintf(spec, sizeof spec, "%s=%s", nm->valuestring, pa->valuestring);
      rc = add_model(o, spec, src, err, cap);
      cJSON *dt = cJSON_GetObjectItemCaseSensitive(m, "dtype");
      if (!rc && dt && !cJSON_IsNull(dt)) {
        if (!cJSON_IsString(dt)) {
          rc = fail(err, cap, "%s: \"models\" entry \"%s\": \"dtype\" must be a string",
                    path, nm->valuestring);
          break;
        }
        snprintf(spec, sizeof spec, "%s=%s", nm->valuestring, dt->valuestring);
        rc = add_model_dtype(o, spec, src, err, cap);
      }
      cJSON *cl = cJSON_GetObjectItemCaseSensitive(m, "correct_label");
      if (rc || !cl || cJSON_IsNull(cl)) continue;
      if (!cJSON_IsString(cl)) {
        rc = fail(err, cap, "%s: \"models\" entry \"%s\": \"correct_label\" must be a "
                  "string", path, nm->valuestring);
        break;
      }
      snprintf(spec, sizeof spec, "%s=%s", nm->valuestring, cl->valuestring);
      rc = add_label(o, spec, src, err, cap);
    }
  } else {
    rc = fail(err, cap, "%s: \"models\" must be an object or an array", path);
  }
  return rc;
}

/* --correct-label / --model-dtype given as {"NAME": "LABEL" or "DTYPE", ...} */
static int config_map(el__srv_options *o, const el_opt *d, const cJSON *it, const char *path,
                      const char *src, char *err, size_t cap) {
  int rc = 0;
  for (cJSON *m = it->child; m && !rc; m = m->next) {
    if (!cJSON_IsString(m)) {
      rc = fail(err, cap, "%s: \"%s\".\"%s\" must be a %s string", path, it->string,
                m->string, d->name[2] == 'c' ? "label" : d->name[2] == 'g' ? "directory" : "dtype");
      break;
    }
    char spec[1200];
    snprintf(spec, sizeof spec, "%s=%s", m->string, m->valuestring);
    rc = d->name[2] == 'c'   ? add_label(o, spec, src, err, cap)
         : d->name[2] == 'g' ? add_generator(o, spec, src, err, cap)
                             : add_model_dtype(o, spec, src, err, cap);
  }
  return rc;
}

/* One option's value: a string, true/false, a number (as its text), or for
 * the options that repeat an array of strings. */
static int config_value(el__srv_options *o, const el_opt *d, const cJSON *it, int is_list,
                        const char *path, const char *src, char *err, size_t cap) {
  int rc = 0;
  char val[1200];
  if (cJSON_IsString(it)) {
    snprintf(val, sizeof val, "%s", it->valuestring);
  } else if (cJSON_IsBool(it)) {
    snprintf(val, sizeof val, "%s", cJSON_IsTrue(it) ? "true" : "false");
  } else if (cJSON_IsNumber(it)) {
    if (d->kind == EL_OPT_DURATION)
      snprintf(val, sizeof val, "%.17g", it->valuedouble);
    else if (it->valuedouble == floor(it->valuedouble) && fabs(it->valuedouble) < 1e15)
      snprintf(val, sizeof val, "%.0f", it->valuedouble);
    else
      snprintf(val, sizeof val, "%.17g", it->valuedouble);
  } else if (cJSON_IsArray(it) && is_list) {
    for (cJSON *e = it->child; e && !rc; e = e->next) {
      if (!cJSON_IsString(e)) {
        rc = fail(err, cap, "%s: \"%s\" entries must be strings", path, it->string);
        break;
      }
      rc = set_value(o, d, e->valuestring, src, err, cap);
    }
    return rc;
  } else {
    return fail(err, cap, "%s: \"%s\" has the wrong type", path, it->string);
  }
  return set_value(o, d, val, src, err, cap);
}

/* --config FILE: a JSON object whose keys are options without "--" (or
 * "models"), applied in file order as the command line would. */
static int apply_config(el__srv_options *o, el_opt *t, int n_opts, const char *path, char *err,
                        size_t cap) {
  cJSON *root = NULL;
  el_error e = {0};
  if (el__json_parse_file(path, 16u << 20, &root, &e)) return fail(err, cap, "%s", e.msg);
  if (!cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return fail(err, cap, "%s: not a JSON object", path);
  }
  int rc = 0;
  char src[1100];
  for (cJSON *it = root->child; it && !rc; it = it->next) {
    snprintf(src, sizeof src, "%s: \"%s\"", path, it->string);
    if (!strcmp(it->string, "models")) {
      rc = config_models(o, it, path, src, err, cap);
      continue;
    }
    const el_opt *d = el__cli_lookup_key(t, n_opts, it->string);
    if (!d || !strcmp(d->name, "--config") || !strcmp(d->name, "--help") ||
        !strcmp(d->name, "--version") || !strcmp(d->name, "--healthcheck")) {
      rc = unknown_key(t, n_opts, path, it->string, err, cap);
      break;
    }
    int is_list = !strcmp(d->name, "--model") || !strcmp(d->name, "--correct-label") ||
                  !strcmp(d->name, "--model-dtype") || !strcmp(d->name, "--cors-origin") ||
                  !strcmp(d->name, "--generator");
    int is_map = !strcmp(d->name, "--correct-label") || !strcmp(d->name, "--model-dtype") ||
                 !strcmp(d->name, "--generator");
    if (is_map && cJSON_IsObject(it))
      rc = config_map(o, d, it, path, src, err, cap);
    else
      rc = config_value(o, d, it, is_list, path, src, err, cap);
  }
  cJSON_Delete(root);
  return rc;
}

static const char *env_get(char **envp, const char *name) {
  size_t n = strlen(name);
  for (char **e = envp; e && *e; e++)
    if (!strncmp(*e, name, n) && (*e)[n] == '=') return *e + n + 1;
  return NULL;
}

static int read_api_key(el__srv_options *o, char *err, size_t cap) {
  char *text = NULL;
  if (read_file(o->api_key_file, &text, err, cap)) return -1;
  size_t n = strcspn(text, "\r\n");
  text[n] = 0;
  while (n && isspace((unsigned char)text[n - 1])) text[--n] = 0;
  if (n == 0 || n >= sizeof o->api_key) {
    free(text);
    return fail(err, cap, "%s: the first line must hold a key of 1 to %zu bytes",
                o->api_key_file, sizeof o->api_key - 1);
  }
  memcpy(o->api_key, text, n + 1);
  free(text);
  return 0;
}

/* Flags as given, collected by el__cli_scan's visitor so the config file
 * and the environment can be applied underneath them. */
typedef struct flag_list {
  const el_opt *d[256];
  const char *v[256];
  int n;
} flag_list;

static int collect(void *ctx, el_opt *d, const char *v, char *err, size_t cap) {
  flag_list *l = ctx;
  if (l->n >= 256) return fail(err, cap, "too many arguments");
  l->d[l->n] = d;
  l->v[l->n++] = v;
  return 0;
}

int el__options_parse(el__srv_options *o, int argc, char **argv, char **envp, char *err,
                      size_t errcap) {
  if (!envp) envp = environ;
  el__options_defaults(o);
  memset(model_layer, 0, sizeof model_layer);
  el_opt t[N_DEFS];
  int n_opts = build_table(o, t);
  static flag_list fl;
  fl.n = 0;
  switch (el__cli_scan(t, n_opts, argc, argv, collect, &fl, err, errcap)) {
    case EL_CLI_HELP: o->help = 1; return 0;
    case EL_CLI_ERROR: return -1;
    default: break;
  }
  const char *config = NULL;
  for (int i = 0; i < fl.n; i++)
    if (!strcmp(fl.d[i]->name, "--config")) config = fl.v[i];
  if (!config) config = env_get(envp, "ELECTRA_CONFIG");
  if (config && *config) {
    if (strlen(config) >= sizeof o->config)
      return fail(err, errcap, "--config path too long");
    snprintf(o->config, sizeof o->config, "%s", config);
    cur_layer = LAYER_CONFIG;
    if (apply_config(o, t, n_opts, config, err, errcap)) return -1;
  }
  /* Environment over the file. CORS origins given in a higher layer replace
   * the lower layer's list; models add up (see add_model). */
  cur_layer = LAYER_ENV;
  for (int i = 0; i < n_opts; i++) {
    const el_opt *d = &t[i];
    if (!strcmp(d->name, "--config") || !strcmp(d->name, "--help") ||
        !strcmp(d->name, "--version") || !strcmp(d->name, "--healthcheck"))
      continue;
    char en[64];
    el__cli_env_name(d, "ELECTRA_", en, sizeof en);
    const char *v = env_get(envp, en);
    if (!v || !*v) continue;
    if (!strcmp(d->name, "--cors-origin")) o->n_cors = 0;
    if (set_value(o, d, v, en, err, errcap)) return -1;
  }
  int flag_origins = 0;
  cur_layer = LAYER_FLAGS;
  for (int i = 0; i < fl.n; i++) {
    const el_opt *d = fl.d[i];
    if (!strcmp(d->name, "--cors-origin") && !flag_origins++) o->n_cors = 0;
    if (!strcmp(d->name, "--config")) continue;
    if (set_value(o, d, fl.v[i], NULL, err, errcap)) return -1;
  }
  o->access_log = !o->no_access_log;
  if (o->help || o->version || o->healthcheck) return 0;
  if (o->n_models == 0)
    return fail(err, errcap, "no model: give --model DIR or --model NAME=DIR (or ELECTRA_MODEL, "
                "or --config)");
  if (apply_labels(o, err, errcap) || apply_generators(o, err, errcap) ||
      apply_dtypes(o, err, errcap))
    return -1;
  if (o->api_key_file[0] && read_api_key(o, err, errcap)) return -1;
  if (o->health_port && o->health_port == o->port)
    return fail(err, errcap, "--health-port %d is --port: give another port", o->health_port);
  /* a request alone must fit the budget, or it could never be served */
  if (o->max_bytes_in_flight / EL_SRV_BODY_WEIGHT < o->max_body_bytes ||
      o->max_bytes_in_flight < o->max_response_bytes)
    return fail(err, errcap, "--max-bytes-in-flight %ld must be at least %d x --max-body-bytes "
                "%ld and --max-response-bytes %ld", o->max_bytes_in_flight, EL_SRV_BODY_WEIGHT,
                o->max_body_bytes, o->max_response_bytes);
  return 0;
}
