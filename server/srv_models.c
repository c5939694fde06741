/* Model sets (srv_models.h). */
#include "srv_models.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *el__task_route(int task) {
  switch (task) {
    case EL_TASK_SCORE: return "/score";
    case EL_TASK_CLASSIFY: return "/classify";
    case EL_TASK_QA: return "/qa";
    default: return "/tokenize";
  }
}

static int task_of(el_arch a) {
  switch (a) {
    case EL_ARCH_PRETRAINING:
    case EL_ARCH_TOKEN_CLS: return EL_TASK_SCORE;
    case EL_ARCH_SEQ_CLS: return EL_TASK_CLASSIFY;
    case EL_ARCH_QA: return EL_TASK_QA;
    default: return -1;
  }
}

/* Names that mean "no error" in the GED and tagging conventions we know. */
static const char *const CORRECT_NAMES[] = {"correct", "c", "o", "ok", "keep"};

static int is_correct_name(const char *l) {
  for (size_t i = 0; i < sizeof CORRECT_NAMES / sizeof CORRECT_NAMES[0]; i++)
    if (!strcasecmp(l, CORRECT_NAMES[i])) return 1;
  return 0;
}

/* Appends the model's labels, quoted and comma-separated, for messages. */
static void label_list(const el_config *c, char *buf, size_t cap) {
  size_t k = 0;
  buf[0] = 0;
  for (int i = 0; i < c->num_labels && k + 8 < cap; i++) {
    int w = snprintf(buf + k, cap - k, "%s\"%.40s\"", i ? ", " : "", c->id2label[i]);
    if (w < 0 || (size_t)w >= cap - k) {
      snprintf(buf + k, cap - k, ", ...");
      return;
    }
    k += (size_t)w;
  }
}

/* Sets e->correct_label (see the header for the rule); -1 with err. */
static int pick_correct_label(el__model_entry *e, const char *option, char *err, size_t cap) {
  const el_config *c = e->cfg;
  char labels[512];
  e->correct_label = -1;
  e->correct_from_option = 0;
  if (c->arch != EL_ARCH_TOKEN_CLS) {
    if (!option[0]) return 0;
    snprintf(err, cap, "model \"%s\": --correct-label applies to ElectraForTokenClassification "
             "models; this one is %s", e->name, el_arch_name(c->arch));
    return -1;
  }
  label_list(c, labels, sizeof labels);
  if (c->num_labels < 2) {
    snprintf(err, cap, "model \"%s\" (%s): ElectraForTokenClassification with %d label; /score "
             "needs at least 2 (a correct one and an error one)", e->name, e->dir, c->num_labels);
    return -1;
  }
  int found = -1, n = 0;
  if (option[0]) {
    for (int i = 0; i < c->num_labels && found < 0; i++)
      if (!strcmp(c->id2label[i], option)) found = i, n = 1;
    if (found < 0) /* no exact name: one equal ignoring case */
      for (int i = 0; i < c->num_labels; i++)
        if (!strcasecmp(c->id2label[i], option) && !n++) found = i;
    if (n != 1) {
      snprintf(err, cap, "model \"%s\" (%s): --correct-label %s=%s %s its labels %s", e->name,
               e->dir, e->name, option, n ? "matches several of" : "is not one of", labels);
      return -1;
    }
    e->correct_label = found;
    e->correct_from_option = 1;
    return 0;
  }
  for (int i = 0; i < c->num_labels; i++)
    if (is_correct_name(c->id2label[i]) && !n++) found = i;
  if (n != 1) {
    snprintf(err, cap, "model \"%s\" (%s): cannot tell which of the labels %s means \"no "
             "error\" (%s named CORRECT, C, O, OK or KEEP); give --correct-label %s=LABEL",
             e->name, e->dir, labels, n ? "several are" : "none is", e->name);
    return -1;
  }
  e->correct_label = found;
  return 0;
}

static void set_free(el__model_set *s) {
  for (int i = 0; i < s->n; i++) {
    el_workspace_free(s->e[i].ws);
    el_model_free(s->e[i].model);
  }
  free(s);
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
    if (el_model_load(e->dir, &e->model, &er)) {
      snprintf(err, cap, "model \"%s\" (%s): %s", e->name, e->dir, er.msg);
      set_free(s);
      return -1;
    }
    s->n = i + 1;
    e->cfg = el_model_config(e->model);
    e->tok = el_model_tokenizer(e->model);
    e->task = task_of(e->cfg->arch);
    e->max_len = e->cfg->max_position_embeddings;
    e->threshold = e->cfg->has_score_threshold ? e->cfg->score_threshold : 0.5;
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
