/* Model sets (srv_models.h). */
#include "srv_models.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "srv_checker.h"
#include "srv_lang.h"
#include "srv_jsonscan.h"
#include "srv_sbuf.h"

/* Sets e->correct_label by the engine's rule (el_correct_label); -1 with err. */
static int pick_correct_label(el__model_entry *e, const char *option, char *err, size_t cap) {
  const el_config *c = e->cfg;
  e->correct_label = -1;
  e->correct_from_option = 0;
  if (!el__srv_head_of(c->arch)->correct_label) {
    if (!option[0]) return 0;
    snprintf(err, cap, "model \"%s\": --correct-label applies to ElectraForTokenClassification "
             "models; this one is %s", e->name, el_arch_name(c->arch));
    return -1;
  }
  el_error er = {0};
  if (el_correct_label(c->id2label, c->num_labels, option, &e->correct_label, &er)) {
    if (option[0])
      snprintf(err, cap, "model \"%s\" (%s): --correct-label %s=%s: %s", e->name, e->dir,
               e->name, option, er.msg);
    else
      snprintf(err, cap, "model \"%s\" (%s): ElectraForTokenClassification: %s; give "
               "--correct-label %s=LABEL", e->name, e->dir, er.msg, e->name);
    return -1;
  }
  e->correct_from_option = option[0] != 0;
  return 0;
}

static void set_free(el__model_set *s) {
  for (int i = 0; i < s->n; i++) {
    el__srv_checker_detach(&s->e[i]);
    el_workspace_free(s->e[i].ws);
    el_model_free(s->e[i].model);
  }
  free(s);
}

/* What a recipe-made model says it is (quality.json's summary, for /info);
 * none, unreadable or without a summary: "" (a model need not have one). */
static void read_quality(el__model_entry *e) {
  char path[1100];
  e->quality[0] = 0;
  snprintf(path, sizeof path, "%s/quality.json", e->dir);
  FILE *f = fopen(path, "rb");
  if (!f) return;
  char buf[4096];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  cJSON *j = cJSON_Parse(buf);
  const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "summary"));
  if (s) snprintf(e->quality, sizeof e->quality, "%s", s);
  cJSON_Delete(j);
}

/* A per-token model calibrated with the dictionary (config.json) is read
 * beside it, at the threshold chosen for the two, unless --no-dictionary.
 * Hunspell's files missing refuse the load: silently serving the model
 * alone would flag less than the model promises. */
static int use_dictionary(el__model_set *s, el__model_entry *e, const el__model_spec *spec,
                          char *err, size_t cap) {
  if (!e->cfg->has_score_dictionary || spec->no_dictionary || e->task != EL_TASK_SCORE) return 0;
  el_error er = {0};
  if (!s->dict && el__srv_lang_dict(&s->dict, &er)) {
    snprintf(err, cap, "model \"%s\" is calibrated with a spelling dictionary: %s (or start "
             "with --no-dictionary)", e->name, er.msg);
    return -1;
  }
  e->dict = s->dict;
  e->threshold = el_score_threshold(e->cfg, 1);
  if (e->cfg->score_dictionary_ngram &&
      (el__srv_lang_ngram(&e->ngram, &er) || el__srv_lang_learner(&e->learner, &er))) {
    snprintf(err, cap, "model \"%s\" is calibrated with the English n-gram model: %s (or start "
             "with --no-dictionary)", e->name, er.msg);
    return -1;
  }
  return 0;
}

int el__model_set_load(const el__model_spec *specs, int n, int ws_tokens, int ws_seqs,
                       el__model_set **out, char *err, size_t cap) {
  el__model_set *s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(err, cap, "out of memory");
    return -1;
  }
  atomic_init(&s->refs, 1);
  for (int t = 0; t < EL_TASK_COUNT; t++) s->task_default[t] = -1;
  for (int i = 0; i < n; i++) {
    el__model_entry *e = &s->e[i];
    el_error er = {0};
    snprintf(e->name, sizeof e->name, "%s", specs[i].name);
    snprintf(e->dir, sizeof e->dir, "%s", specs[i].dir);
    e->set = s;
    el_load_options lo = {.dtype = (el_dtype)specs[i].dtype};
    if (el_model_load_opts(e->dir, &lo, &e->model, &er)) {
      snprintf(err, cap, "model \"%s\" (%s): %s", e->name, e->dir, er.msg);
      set_free(s);
      return -1;
    }
    s->n = i + 1;
    e->cfg = el_model_config(e->model);
    e->tok = el_model_tokenizer(e->model);
    e->task = el__srv_head_of(e->cfg->arch)->task;
    e->max_len = e->cfg->max_position_embeddings;
    e->threshold = el_score_threshold(e->cfg, 0);
    read_quality(e);
    if (use_dictionary(s, e, &specs[i], err, cap)) {
      set_free(s);
      return -1;
    }
    if (pick_correct_label(e, specs[i].correct_label, err, cap)) {
      set_free(s);
      return -1;
    }
    int toks = ws_tokens > e->max_len ? ws_tokens : e->max_len;
    if (el_workspace_new(e->model, toks, ws_seqs, &e->ws, &er)) {
      snprintf(err, cap, "model \"%s\": workspace for %d tokens: %s", e->name, toks, er.msg);
      set_free(s);
      return -1;
    }
    if (specs[i].no_checker)
      snprintf(e->check_err, sizeof e->check_err, "the server runs with --no-checker");
    else
      el__srv_checker_attach(e, specs[i].generator, specs[i].verify_dtype);
    if (e->task >= 0 && s->task_default[e->task] < 0) s->task_default[e->task] = i;
  }
  *out = s;
  return 0;
}

void el__model_set_ref(el__model_set *s) { atomic_fetch_add(&s->refs, 1); }

void el__model_set_unref(el__model_set *s) {
  if (s && atomic_fetch_sub(&s->refs, 1) == 1) set_free(s);
}

el__model_entry *el__model_set_find(el__model_set *s, const char *name) {
  for (int i = 0; i < s->n; i++)
    if (!strcmp(s->e[i].name, name)) return &s->e[i];
  return NULL;
}

/* ---- reload status (GET /info) ---- */

static struct {
  pthread_mutex_t mu;
  int in_progress, queued, have_last, last_ok;
  unsigned long long n_ok, n_failed;
  struct timespec started; /* CLOCK_MONOTONIC */
  struct timespec last_time; /* CLOCK_REALTIME, when the last reload ended */
  double last_seconds;
  char last_reason[1024];
} R = {.mu = PTHREAD_MUTEX_INITIALIZER};

void el__reload_started(void) {
  pthread_mutex_lock(&R.mu);
  R.in_progress = 1;
  R.queued = 0;
  clock_gettime(CLOCK_MONOTONIC, &R.started);
  pthread_mutex_unlock(&R.mu);
}

void el__reload_queued(void) {
  pthread_mutex_lock(&R.mu);
  R.queued = 1;
  pthread_mutex_unlock(&R.mu);
}

/* reason with every byte that is not part of valid UTF-8, and every control
 * character, replaced by '?' (a path in a message may hold any bytes). */
static void clean_copy(char *dst, size_t cap, const char *src) {
  size_t i = 0, k = 0, n = strlen(src);
  while (i < n && k + 5 < cap) {
    int l = el__utf8_seq_len((const unsigned char *)src + i, n - i);
    if (l <= 0 || (l == 1 && (unsigned char)src[i] < 0x20)) {
      dst[k++] = '?';
      i++;
      continue;
    }
    memcpy(dst + k, src + i, (size_t)l);
    k += (size_t)l;
    i += (size_t)l;
  }
  dst[k] = 0;
}

void el__reload_finished(int ok, const char *reason, int queued_next) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  pthread_mutex_lock(&R.mu);
  R.in_progress = 0;
  R.queued = queued_next;
  R.have_last = 1;
  R.last_ok = ok;
  if (ok) R.n_ok++;
  else R.n_failed++;
  clock_gettime(CLOCK_REALTIME, &R.last_time);
  R.last_seconds = (double)(now.tv_sec - R.started.tv_sec) +
                   (double)(now.tv_nsec - R.started.tv_nsec) * 1e-9;
  clean_copy(R.last_reason, sizeof R.last_reason, ok || !reason ? "" : reason);
  pthread_mutex_unlock(&R.mu);
}

void el__reload_render(el__sb *b) {
  pthread_mutex_lock(&R.mu);
  el__sb_printf(b, ",\"reload\":{\"in_progress\":%s,\"queued\":%s,\"ok\":%llu,\"failed\":%llu,"
                "\"last\":", R.in_progress ? "true" : "false", R.queued ? "true" : "false",
                R.n_ok, R.n_failed);
  if (!R.have_last) {
    el__sb_puts(b, "null}");
  } else {
    struct tm tm;
    char when[40];
    gmtime_r(&R.last_time.tv_sec, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    el__sb_printf(b, "{\"time\":\"%s.%03dZ\",\"result\":\"%s\",\"reason\":", when,
                  (int)(R.last_time.tv_nsec / 1000000), R.last_ok ? "ok" : "failed");
    if (R.last_ok)
      el__sb_puts(b, "null");
    else
      el__sb_json_str(b, R.last_reason, strlen(R.last_reason));
    el__sb_puts(b, ",\"seconds\":");
    el__sb_json_num(b, R.last_seconds);
    el__sb_puts(b, "}}");
  }
  pthread_mutex_unlock(&R.mu);
}
