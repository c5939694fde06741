/* Server pieces without a model: JSON pre-scan, error bodies, option
 * precedence (flag > environment > config file > default), metrics text. */
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../test.h"
#include "el_cli.h"
#include "electra/model.h"
#include "srv_errors.h"
#include "srv_jsonscan.h"
#include "srv_metrics.h"
#include "srv_options.h"
#include "srv_sbuf.h"

static void test_prescan(void) {
  size_t at = 0;
  const char *good = "{\"t\":\"Zo\xc3\xab \xe6\x97\xa5 \xf0\x9f\x98\x80\",\"e\":\"\\\"\\\\u0000\"}";
  CHECK(el__json_prescan(good, strlen(good), 8, &at) == EL_SCAN_OK,
        "valid UTF-8 and an escaped backslash before u0000 pass");
  struct {
    const char *s;
    size_t at;
    const char *what;
  } bad[] = {
      {"{\"t\":\"a\xff\"}", 7, "0xff"},
      {"{\"t\":\"\xc0\xaf\"}", 6, "overlong 2-byte"},
      {"{\"t\":\"\xe0\x80\xaf\"}", 6, "overlong 3-byte"},
      {"{\"t\":\"\xed\xa0\x80\"}", 6, "surrogate"},
      {"{\"t\":\"\xf4\x90\x80\x80\"}", 6, "past U+10FFFF"},
      {"{\"t\":\"\xe2\x82\"}", 6, "truncated"},
      {"{\"t\":\"\x80\"}", 6, "lone continuation"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    at = 999;
    el__scan_result r = el__json_prescan(bad[i].s, strlen(bad[i].s), 8, &at);
    CHECK(r == EL_SCAN_BAD_UTF8 && at == bad[i].at, "bad UTF-8 (%s) at byte %zu (got %d at %zu)",
          bad[i].what, bad[i].at, r, at);
  }
  const char *deep = "{\"a\":[[[[1]]]]}"; /* depth 5 */
  CHECK(el__json_prescan(deep, strlen(deep), 5, &at) == EL_SCAN_OK, "depth 5 within 5");
  CHECK(el__json_prescan(deep, strlen(deep), 4, &at) == EL_SCAN_TOO_DEEP && at == 8,
        "depth 5 over 4, at the 5th bracket (byte %zu)", at);
  const char *brackets_in_string = "{\"a\":\"[[[[[[[[\"}";
  CHECK(el__json_prescan(brackets_in_string, strlen(brackets_in_string), 2, &at) == EL_SCAN_OK,
        "brackets inside strings do not count");
  const char *nul = "{\"a\":\"x\\u0000\"}";
  CHECK(el__json_prescan(nul, strlen(nul), 8, &at) == EL_SCAN_NUL_ESCAPE && at == 7,
        "\\u0000 escape found at byte %zu", at);
}

static void test_error_bodies(void) {
  struct {
    el__http_err e;
    int status;
    const char *type;
  } kinds[] = {
      {EL_HERR_INVALID_JSON, 400, "invalid_json"},
      {EL_HERR_INVALID_REQUEST, 400, "invalid_request"},
      {EL_HERR_UNAUTHORIZED, 401, "unauthorized"},
      {EL_HERR_NOT_FOUND, 404, "not_found"},
      {EL_HERR_METHOD, 405, "method_not_allowed"},
      {EL_HERR_TOO_LARGE, 413, "payload_too_large"},
      {EL_HERR_MEDIA_TYPE, 415, "unsupported_media_type"},
      {EL_HERR_VALIDATION, 422, "validation_error"},
      {EL_HERR_OVERLOADED, 429, "overloaded"},
      {EL_HERR_INTERNAL, 500, "internal"},
      {EL_HERR_UNAVAILABLE, 503, "unavailable"},
      {EL_HERR_TIMEOUT, 504, "timeout"},
  };
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    char buf[512];
    el__error_body(kinds[i].e, "a \"quoted\" \\ message\n\x01 caf\xc3\xa9", buf, sizeof buf);
    cJSON *j = cJSON_Parse(buf);
    cJSON *e = cJSON_GetObjectItem(j, "error");
    cJSON *code = cJSON_GetObjectItem(e, "code"), *type = cJSON_GetObjectItem(e, "type"),
          *msg = cJSON_GetObjectItem(e, "message");
    CHECK(j && cJSON_GetArraySize(j) == 1 && cJSON_GetArraySize(e) == 3 && code &&
              code->valueint == kinds[i].status && el__herr_status(kinds[i].e) == kinds[i].status &&
              type && !strcmp(type->valuestring, kinds[i].type) && msg &&
              !strncmp(msg->valuestring, "a \"quoted\" \\ message\n\x01 caf", 26),
          "%d %s: exact shape, message escaped", kinds[i].status, kinds[i].type);
    cJSON_Delete(j);
  }
  char longmsg[2000];
  memset(longmsg, 'x', sizeof longmsg - 1);
  longmsg[sizeof longmsg - 1] = 0;
  longmsg[100] = '"';
  char buf[300];
  size_t n = el__error_body(EL_HERR_INTERNAL, longmsg, buf, sizeof buf);
  cJSON *j = cJSON_Parse(buf);
  CHECK(j && n < sizeof buf && n == strlen(buf), "a long message is cut and stays valid JSON");
  cJSON_Delete(j);
}

static void test_sbuf(void) {
  el__sb b = {0};
  const char *raw = "a\"b\\c\n\x1f\xc3\xa9";
  el__sb_json_str(&b, raw, strlen(raw));
  el__sb_puts(&b, " ");
  el__sb_json_num(&b, 0.25);
  el__sb_puts(&b, " ");
  el__sb_json_num(&b, 1.0 / 0.0);
  char *s = el__sb_take(&b, NULL);
  CHECK(s && !strcmp(s, "\"a\\\"b\\\\c\\n\\u001f\xc3\xa9\" 0.25 null"), "JSON strings and numbers: %s",
        s);
  free(s);
  el__sb f = {0};
  el__sb_json_float(&f, 0.37f);
  el__sb_puts(&f, " ");
  el__sb_json_float(&f, 0.1f + 0.2f);
  el__sb_puts(&f, " ");
  el__sb_json_float(&f, 1.0f);
  el__sb_puts(&f, " ");
  el__sb_json_float(&f, NAN);
  s = el__sb_take(&f, NULL);
  CHECK(s && !strcmp(s, "0.37 0.3 1 null"), "floats in their shortest round-trip form: %s", s);
  free(s);
}

static int parse(el__srv_options *o, int argc, char **argv, char **envp, char *err) {
  return el__options_parse(o, argc, argv, envp, err, 512);
}

/* --correct-label NAME=LABEL: flags, environment and config file forms; the
 * label is everything after the first '='; layers replace as for models. */
static void test_correct_label_options(void) {
  el__srv_options o;
  char err[512] = "";
  char *env0[] = {NULL};
  char *a1[] = {"s", "--correct-label", "g=x=y", "--model", "g=/g", "--model", "h=/h", NULL};
  CHECK(parse(&o, 7, a1, env0, err) == 0 && !strcmp(o.models[0].correct_label, "x=y") &&
            o.models[1].correct_label[0] == 0,
        "--correct-label before its --model; the label keeps a later '=' (%s)", err);
  char *env1[] = {"ELECTRA_CORRECT_LABEL=g=C,h=OK", NULL};
  char *a2[] = {"s", "--model", "g=/g", "--model", "h=/h", "--correct-label", "h=O", NULL};
  CHECK(parse(&o, 7, a2, env1, err) == 0 && !strcmp(o.models[0].correct_label, "C") &&
            !strcmp(o.models[1].correct_label, "O"),
        "ELECTRA_CORRECT_LABEL list; the flag wins for h (%s)", err);
  char *a3[] = {"s", "--model", "g=/g", "--correct-label", "g=C", "--correct-label", "g=D", NULL};
  CHECK(parse(&o, 7, a3, env0, err) == -1 && strstr(err, "twice"),
        "the same model's label twice in one layer refused: %s", err);
  char cfg[] = "/tmp/el_test_srv_cl_XXXXXX";
  int fd = mkstemp(cfg);
  const char *js = "{\"models\": [{\"name\": \"g\", \"path\": \"/g\", \"correct_label\": \"c\"},"
                   " {\"name\": \"h\", \"path\": \"/h\"}, {\"name\": \"k\", \"path\": \"/k\"}],"
                   " \"correct_label\": {\"h\": \"no, error\"}}";
  if (write(fd, js, strlen(js)) < 0) perror("write");
  close(fd);
  char *a4[] = {"s", "--config", cfg, "--correct-label", "k=KEEP", NULL};
  CHECK(parse(&o, 5, a4, env0, err) == 0 && !strcmp(o.models[0].correct_label, "c") &&
            !strcmp(o.models[1].correct_label, "no, error") &&
            !strcmp(o.models[2].correct_label, "KEEP"),
        "config file: per-entry correct_label and a correct_label object (commas kept) (%s)", err);
  fd = open(cfg, O_WRONLY | O_TRUNC);
  js = "{\"models\": {\"g\": \"/g\"}, \"correct_label\": {\"g\": 1}}";
  if (write(fd, js, strlen(js)) < 0) perror("write");
  close(fd);
  char *a5[] = {"s", "--config", cfg, NULL};
  CHECK(parse(&o, 3, a5, env0, err) == -1 && strstr(err, "label string"),
        "config file: a non-string label refused: %s", err);
  unlink(cfg);
}

/* --dtype and --model-dtype NAME=DTYPE: every form (flag, ELECTRA_ variable,
 * config key, per-entry "dtype"), precedence, and the errors. */
static void test_dtype_options(void) {
  el__srv_options o;
  char err[512] = "";
  char *env0[] = {NULL};
  const int int8 = el_dtype_available(EL_DTYPE_INT8);
  char *a0[] = {"s", "--model", "a=/a", NULL};
  CHECK(parse(&o, 3, a0, env0, err) == 0 && o.models[0].dtype == EL_DTYPE_FP32,
        "models default to fp32 (%s)", err);
  char *a1[] = {"s", "--model", "a=/a", "--model", "b=/b", "--dtype", "int8", "--model-dtype",
                "b=fp32", NULL};
  int rc = parse(&o, 9, a1, env0, err);
  if (int8) {
    CHECK(rc == 0 && o.models[0].dtype == EL_DTYPE_INT8 && o.models[1].dtype == EL_DTYPE_FP32,
          "--dtype int8 for all, --model-dtype b=fp32 for b (%s)", err);
  } else {
    CHECK(rc == -1 && strstr(err, "--dtype int8") && strstr(err, "oneDNN"),
          "without oneDNN, --dtype int8 is refused clearly: %s", err);
    SKIP("the int8 forms of --dtype / --model-dtype: this build has no oneDNN");
    return;
  }
  char *env1[] = {"ELECTRA_DTYPE=int8", "ELECTRA_MODEL_DTYPE=a=fp32,b=int8", NULL};
  char *a2[] = {"s", "--model", "a=/a", "--model", "b=/b", "--model", "c=/c",
                "--model-dtype", "b=fp32", NULL};
  CHECK(parse(&o, 9, a2, env1, err) == 0 && o.models[0].dtype == EL_DTYPE_FP32 &&
            o.models[1].dtype == EL_DTYPE_FP32 && o.models[2].dtype == EL_DTYPE_INT8,
        "ELECTRA_DTYPE and ELECTRA_MODEL_DTYPE; the flag wins for b (%s)", err);
  char cfg[] = "/tmp/el_test_srv_dt_XXXXXX";
  int fd = mkstemp(cfg);
  const char *js = "{\"models\": [{\"name\": \"g\", \"path\": \"/g\", \"dtype\": \"int8\"},"
                   " {\"name\": \"h\", \"path\": \"/h\"}, {\"name\": \"k\", \"path\": \"/k\"}],"
                   " \"model_dtype\": {\"h\": \"int8\"}}";
  if (write(fd, js, strlen(js)) < 0) perror("write");
  close(fd);
  char *a3[] = {"s", "--config", cfg, NULL};
  CHECK(parse(&o, 3, a3, env0, err) == 0 && o.models[0].dtype == EL_DTYPE_INT8 &&
            o.models[1].dtype == EL_DTYPE_INT8 && o.models[2].dtype == EL_DTYPE_FP32,
        "config file: per-entry \"dtype\" and a \"model_dtype\" object (%s)", err);
  fd = open(cfg, O_WRONLY | O_TRUNC);
  js = "{\"models\": {\"g\": \"/g\"}, \"dtype\": \"int8\"}";
  if (write(fd, js, strlen(js)) < 0) perror("write");
  close(fd);
  CHECK(parse(&o, 3, a3, env0, err) == 0 && o.models[0].dtype == EL_DTYPE_INT8,
        "config file: \"dtype\" for every model (%s)", err);
  fd = open(cfg, O_WRONLY | O_TRUNC);
  js = "{\"models\": {\"g\": \"/g\"}, \"model_dtype\": {\"g\": 8}}";
  if (write(fd, js, strlen(js)) < 0) perror("write");
  close(fd);
  CHECK(parse(&o, 3, a3, env0, err) == -1 && strstr(err, "dtype string"),
        "config file: a non-string dtype refused: %s", err);
  unlink(cfg);
  struct {
    char *argv[8];
    int argc;
    const char *needle;
  } bad[] = {
      {{"s", "--model", "a=/a", "--dtype", "fp16"}, 5, "--dtype must be one of fp32|int8"},
      {{"s", "--model", "a=/a", "--model-dtype", "a=bf16"}, 5, "one of fp32|int8"},
      {{"s", "--model", "a=/a", "--model-dtype", "b=int8"}, 5, "no model is named \"b\""},
      {{"s", "--model", "a=/a", "--model-dtype", "a"}, 5, "NAME=DTYPE"},
      {{"s", "--model", "a=/a", "--model-dtype", "a=int8", "--model-dtype", "a=fp32"}, 7,
       "twice"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = 0;
    rc = parse(&o, bad[i].argc, bad[i].argv, env0, err);
    CHECK(rc == -1 && strstr(err, bad[i].needle), "refused: %s", err);
  }
}

static void test_options(void) {
  el__srv_options o;
  char err[512] = "";
  char *env0[] = {NULL};
  char *a1[] = {"electra-server", "--model", "m=/x", NULL};
  CHECK(parse(&o, 3, a1, env0, err) == 0 && o.n_models == 1 && !strcmp(o.models[0].name, "m") &&
            !strcmp(o.models[0].dir, "/x") && o.port == 8080 && o.max_batch_tokens == 8192 &&
            o.max_batch_size == 64 && o.max_wait_us == 0 && o.max_queue == 1024 &&
            o.max_inputs == 64 && o.max_body_bytes == 1048576 && o.request_timeout == 30 &&
            o.drain_timeout == 30 && !strcmp(o.host, "127.0.0.1") && !o.log_json,
        "defaults as in docs/API.md (%s)", err);
  char *env1[] = {"ELECTRA_PORT=9000", "ELECTRA_MAX_QUEUE=7", "ELECTRA_MODEL=a=/a,b=/b",
                  "ELECTRA_LOG_FORMAT=json", "ELECTRA_REQUEST_TIMEOUT=0.5", NULL};
  char *a2[] = {"electra-server", "--port=9100", NULL};
  CHECK(parse(&o, 2, a2, env1, err) == 0 && o.port == 9100 && o.max_queue == 7 &&
            o.n_models == 2 && !strcmp(o.models[1].dir, "/b") && o.log_json &&
            o.request_timeout == 0.5,
        "environment read; the flag wins (%s)", err);
  char *a3[] = {"electra-server", "--model", "c=/c", NULL};
  CHECK(parse(&o, 3, a3, env1, err) == 0 && o.n_models == 3 && !strcmp(o.models[2].name, "c"),
        "--model flags add to ELECTRA_MODEL's models");
  char *a3b[] = {"electra-server", "--model", "a=/new", NULL};
  CHECK(parse(&o, 3, a3b, env1, err) == 0 && o.n_models == 2 && !strcmp(o.models[0].dir, "/new"),
        "a --model flag with an ELECTRA_MODEL name replaces its directory");

  char cfg[] = "/tmp/el_test_srv_cfg_XXXXXX";
  int fd = mkstemp(cfg);
  const char *js = "{\"models\": {\"x\": \"/dx\", \"y\": \"/dy\"}, \"port\": 7000, "
                   "\"max_batch_size\": 3, \"cors-origin\": [\"http://a\", \"http://b\"], "
                   "\"request_timeout\": 2.5}";
  if (write(fd, js, strlen(js)) < 0) perror("write");
  close(fd);
  char *a4[] = {"electra-server", "--config", cfg, "--max-batch-size", "5", NULL};
  char *env2[] = {"ELECTRA_PORT=7100", NULL};
  CHECK(parse(&o, 5, a4, env2, err) == 0 && o.n_models == 2 && !strcmp(o.models[1].dir, "/dy") &&
            o.port == 7100 && o.max_batch_size == 5 && o.n_cors == 2 &&
            !strcmp(o.cors_origins[1], "http://b") && o.request_timeout == 2.5,
        "config file under environment under flags (%s)", err);
  unlink(cfg);

  test_correct_label_options();
  test_dtype_options();

  /* --model DIR: named after the base name; a pretraining run serves its discriminator/ */
  char *a6[] = {"s", "--model", "/data/models/sst2/", "--model", "./odd=dir/qa.v2", NULL};
  CHECK(parse(&o, 5, a6, env0, err) == 0 && o.n_models == 2 && !strcmp(o.models[0].name, "sst2") &&
            !strcmp(o.models[0].dir, "/data/models/sst2/") && !strcmp(o.models[1].name, "qa.v2") &&
            !strcmp(o.models[1].dir, "./odd=dir/qa.v2"),
        "--model DIR: the base name names it (a path with '=' stays a path) (%s)", err);
  char run[] = "/tmp/el_test_srv_run_XXXXXX";
  if (mkdtemp(run)) {
    char p[300];
    snprintf(p, sizeof p, "%s/discriminator", run);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/discriminator/config.json", run);
    int cf = open(p, O_WRONLY | O_CREAT, 0600);
    if (cf >= 0) close(cf);
    char spec[300], want[300];
    snprintf(spec, sizeof spec, "%s/", run);
    snprintf(want, sizeof want, "%s/discriminator", run);
    char *a7[] = {"s", "--model", spec, NULL};
    CHECK(parse(&o, 3, a7, env0, err) == 0 && !strcmp(o.models[0].dir, want) &&
              !strncmp(o.models[0].name, "el_test_srv_run_", 16),
          "--model RUN/: a pretraining run serves RUN/discriminator (%s)", o.models[0].dir);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", run);
    if (system(cmd)) printf("# could not remove %s\n", run);
  }

  struct {
    char *argv[6];
    int argc;
    const char *needle;
  } bad[] = {
      {{"s", "--port", "70000"}, 3, "--port"},
      {{"s", "--max-batch-size", "0", "--model", "a=/a"}, 5, "--max-batch-size"},
      {{"s", "--model", "/models/a b"}, 3, "give --model NAME=DIR"},
      {{"s", "--model", "/"}, 3, "give --model NAME=DIR"},
      {{"s", "--model", "x="}, 3, "NAME=DIR or DIR"},
      {{"s", "--model", "/m/a", "--model", "/n/a"}, 5, "DIR alone is named after its base name"},
      {{"s", "--model", "a=/a", "--model", "a=/b"}, 5, "twice"},
      {{"s", "--bogus"}, 2, "unknown option"},
      {{"s", "--log-format", "xml", "--model", "a=/a"}, 5, "one of text|json"},
      {{"s", "--port"}, 2, "--port expects a value"},
      {{"s"}, 1, "no model"},
      {{"s", "--model", "a=/a", "--request-timeout", "soon"}, 5, "--request-timeout"},
      {{"s", "--model", "a=/a", "--correct-label", "b=C"}, 5, "no model is named \"b\""},
      {{"s", "--model", "a=/a", "--correct-label", "a"}, 5, "NAME=LABEL"},
      {{"s", "--model", "a=/a", "--correct-label", "a="}, 5, "NAME=LABEL"},
      {{"s", "--model", "a=/a", "--correct-label", "a b=C"}, 5, "letters, digits"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = 0;
    int rc = parse(&o, bad[i].argc, bad[i].argv, env0, err);
    CHECK(rc == -1 && strstr(err, bad[i].needle), "refused: %s", err);
  }
  char *a5[] = {"s", "--healthcheck", "--port", "1234", NULL};
  CHECK(parse(&o, 4, a5, env0, err) == 0 && o.healthcheck && o.port == 1234,
        "--healthcheck needs no model");
  const char *u = el__options_usage();
  const char *flags[] = {"--model", "--config", "--host", "--port", "--threads", "--http-threads",
                         "--max-batch-tokens", "--max-batch-size", "--max-wait-us", "--max-queue",
                         "--max-inputs", "--max-body-bytes", "--request-timeout",
                         "--drain-timeout", "--api-key-file", "--cors-origin", "--log-format",
                         "--healthcheck", "--dtype", "--model-dtype", "ELECTRA_"};
  int all = 1;
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
    if (!strstr(u, flags[i])) all = 0;
  CHECK(all, "--help lists every documented option and the environment rule");
}

static int count_visit(void *ctx, el_opt *o, const char *v, char *err, size_t cap) {
  (void)o, (void)v, (void)err, (void)cap;
  ++*(int *)ctx;
  return 0;
}

/* The one option engine (common/el_cli.h) under both programs: the
 * server's sources (flags, ELECTRA_ variables, config keys) get the train
 * commands' value kinds, checks and messages, and both suggest the option
 * a typo was close to. */
static void test_option_engine(void) {
  el__srv_options o;
  char err[512] = "";
  char *env0[] = {NULL};
  char *a1[] = {"s", "--model", "a=/a", "--request-timeout", "2m", "--drain-timeout=1h", NULL};
  CHECK(parse(&o, 6, a1, env0, err) == 0 && o.request_timeout == 120 && o.drain_timeout == 3600,
        "server timeouts take the train commands' durations (2m, 1h) (%s)", err);
  char *env1[] = {"ELECTRA_REQUEST_TIMEOUT=1m30s", "ELECTRA_NO_ACCESS_LOG=true", NULL};
  char *a2[] = {"s", "--model", "a=/a", NULL};
  CHECK(parse(&o, 3, a2, env1, err) == 0 && o.request_timeout == 90 && !o.access_log,
        "environment values go through the same kinds (1m30s; a flag as true) (%s)", err);
  char *env2[] = {"ELECTRA_PORT=70000", NULL};
  CHECK(parse(&o, 3, a2, env2, err) == -1 &&
            !strcmp(err, "ELECTRA_PORT must be between 0 and 65535, got 70000"),
        "an environment value out of range names the variable and the range: %s", err);
  char *a3[] = {"s", "--model", "a=/a", "--port", "70000", NULL};
  CHECK(parse(&o, 5, a3, env0, err) == -1 &&
            !strcmp(err, "--port must be between 0 and 65535, got 70000"),
        "the same check on the command line names the flag: %s", err);
  char *a4[] = {"s", "--model", "a=/a", "--max-batchsize", "3", NULL};
  CHECK(parse(&o, 5, a4, env0, err) == -1 &&
            strstr(err, "unknown option '--max-batchsize' (did you mean --max-batch-size?"),
        "a near-miss flag gets a suggestion: %s", err);
  char *a5[] = {"s", "--model", "a=/a", "--prot", "1", NULL};
  CHECK(parse(&o, 5, a5, env0, err) == -1 && strstr(err, "did you mean --port?"),
        "a swapped pair of letters is a near miss: %s", err);
  char *a6[] = {"s", "--model", "a=/a", "--frobnicate", NULL};
  CHECK(parse(&o, 4, a6, env0, err) == -1 && strstr(err, "unknown option '--frobnicate'") &&
            !strstr(err, "did you mean"),
        "no suggestion when nothing is close: %s", err);
  char cfg[] = "/tmp/el_test_srv_eng_XXXXXX";
  int fd = mkstemp(cfg);
  const char *js = "{\"models\": {\"a\": \"/a\"}, \"max_batch_sise\": 3}";
  if (write(fd, js, strlen(js)) < 0) perror("write");
  close(fd);
  char *a7[] = {"s", "--config", cfg, NULL};
  CHECK(parse(&o, 3, a7, env0, err) == -1 && strstr(err, "unknown option \"max_batch_sise\"") &&
            strstr(err, "did you mean \"max_batch_size\"?"),
        "a near-miss config key gets a suggestion in the file's spelling: %s", err);
  fd = open(cfg, O_WRONLY | O_TRUNC);
  js = "{\"models\": {\"a\": \"/a\"}, \"request_timeout\": \"45s\", \"no_access_log\": true}";
  if (write(fd, js, strlen(js)) < 0) perror("write");
  close(fd);
  CHECK(parse(&o, 3, a7, env0, err) == 0 && o.request_timeout == 45 && !o.access_log,
        "config values too: \"45s\", a boolean flag (%s)", err);
  unlink(cfg);

  /* a train-style table through the same scanner */
  long steps = 0;
  el_opt t[] = {{"--max-steps", EL_OPT_INT, &steps, 1, 100, "N", "steps", 0},
                {"--seed", EL_OPT_INT, &steps, 0, 9, "N", "seed", 0}};
  char *b1[] = {"cmd", "--max-step", "5", NULL};
  int visits = 0;
  CHECK(el__cli_scan(t, 2, 3, b1, count_visit, &visits, err, sizeof err) == EL_CLI_ERROR &&
            !strcmp(err, "unknown option '--max-step' (did you mean --max-steps? see --help)") &&
            visits == 0,
        "train tables: the same suggestion: %s", err);
  CHECK(el__cli_store(&t[0], NULL, "500", err, sizeof err) == -1 &&
            !strcmp(err, "--max-steps must be between 1 and 100, got 500"),
        "train tables: the same range message: %s", err);
  char *b2[] = {"cmd", "--seed=3", "--help", "--bogus", NULL};
  visits = 0;
  CHECK(el__cli_scan(t, 2, 4, b2, count_visit, &visits, err, sizeof err) == EL_CLI_HELP &&
            visits == 1,
        "--help stops the scan (options before it visited)");
  const char *words[] = {"threshold", "truncate", "texts"};
  CHECK(el__near_miss("treshold", words, 3) == words[0] && el__near_miss("TEXT", words, 3) == words[2] &&
            el__near_miss("x", words, 3) == NULL && el__near_miss("model", words, 3) == NULL,
        "near misses: treshold -> threshold, TEXT -> texts; none for x or model");
  char buf[512] = "";
  FILE *f = fmemopen(buf, sizeof buf - 1, "w");
  el_opt w[] = {{"--port", EL_OPT_INT32, NULL, 0, 1, "N", "TCP port\n   (8080)", 0},
                {"--quiet", EL_OPT_FLAG, NULL, 0, 0, NULL, "", 0}};
  el__cli_print_wrapped(f, w, 2);
  fclose(f);
  CHECK(!strcmp(buf, "  --port N\n        TCP port (8080)\n  --quiet\n\n"),
        "wrapped --help layout: the flag on its own line, help reflowed below: [%s]", buf);
}

static void test_metrics(void) {
  el__metrics_init();
  el__metrics_request(EL_ROUTE_SCORE, 200, 0.003, "disc");
  el__metrics_request(EL_ROUTE_SCORE, 200, 0.2, NULL);
  el__metrics_request(EL_ROUTE_QA, 422, 0.001, "qa");
  el__metrics_request(EL_ROUTE_OTHER, 418, 0.001, NULL);
  el__metrics_batch(5, 100, 0.004);
  el__metrics_queue_depth(3);
  size_t n;
  char *t = el__metrics_render("extra_line 1\n", &n);
  CHECK(t && strstr(t, "electra_requests_total{route=\"/score\",status=\"200\"} 2\n") &&
            strstr(t, "electra_requests_total{route=\"/qa\",status=\"422\"} 1\n") &&
            strstr(t, "electra_requests_total{route=\"other\",status=\"other\"} 1\n"),
        "requests counted by route and status");
  CHECK(t && strstr(t, "electra_request_duration_seconds_bucket{route=\"/score\",le=\"0.005\"} 1\n") &&
            strstr(t, "electra_request_duration_seconds_bucket{route=\"/score\",le=\"0.25\"} 2\n") &&
            strstr(t, "electra_request_duration_seconds_bucket{route=\"/score\",le=\"+Inf\"} 2\n") &&
            strstr(t, "electra_request_duration_seconds_count{route=\"/score\"} 2\n"),
        "latency histogram is cumulative");
  CHECK(t && strstr(t, "electra_batch_size_bucket{le=\"4\"} 0\n") &&
            strstr(t, "electra_batch_size_bucket{le=\"8\"} 1\n") &&
            strstr(t, "electra_batch_tokens_bucket{le=\"128\"} 1\n") &&
            strstr(t, "electra_queue_depth 3\n") && strstr(t, "extra_line 1\n"),
        "batch size / tokens histograms, queue depth, appended model lines");
  CHECK(t && strstr(t, "electra_request_duration_seconds_count{route=\"/score\",model=\"disc\"} 1\n") &&
            strstr(t, "electra_request_duration_seconds_bucket{route=\"/qa\",model=\"qa\",le=\"+Inf\"} 1\n") &&
            !strstr(t, "route=\"other\",model="),
        "latency also by route and model, for requests that ran on one");
  CHECK(t && strstr(t, "\nprocess_cpu_seconds_total ") && strstr(t, "\nprocess_resident_memory_bytes ") &&
            strstr(t, "\nprocess_virtual_memory_bytes ") && strstr(t, "\nprocess_open_fds ") &&
            strstr(t, "\nprocess_max_fds ") && strstr(t, "\nprocess_start_time_seconds ") &&
            strstr(t, "# TYPE process_cpu_seconds_total counter\n"),
        "process metrics");
  if (t) {
    double start = 0, rss = 0;
    const char *p = strstr(t, "\nprocess_start_time_seconds ");
    const char *q = strstr(t, "\nprocess_resident_memory_bytes ");
    if (p) start = atof(p + 28);
    if (q) rss = atof(q + 31);
    CHECK(start > 1.5e9 && start <= (double)time(NULL) + 1 && rss > 1e5,
          "process start time is a recent epoch time (%.0f), RSS plausible (%.0f bytes)", start, rss);
  }
  free(t);
}

int main(void) {
  test_prescan();
  test_error_bodies();
  test_sbuf();
  test_options();
  test_option_engine();
  test_metrics();
  return el_test_done();
}
