/* Model sets (srv_models.h). */
#include "srv_models.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    case EL_ARCH_PRETRAINING: return EL_TASK_SCORE;
    case EL_ARCH_SEQ_CLS: return EL_TASK_CLASSIFY;
    case EL_ARCH_QA: return EL_TASK_QA;
    default: return -1;
  }
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
