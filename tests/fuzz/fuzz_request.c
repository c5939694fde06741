/* libFuzzer: a POST body -> the request struct of every route (server/
 * srv_request.c: prescan, cJSON, field checks; srv_api.c: tokenizing,
 * encoding, QA windows)
 * and, when accepted, the answer rendered from made-up model outputs, which
 * must be valid JSON. The first byte picks the route; the rest is the body.
 * The models are built by hand around the fixture vocabulary (no weights: no
 * forward pass runs). */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "electra/electra.h"
#include "fuzz_util.h"
#include "srv_api.h"
#include "srv_metrics.h"
#include "srv_models.h"

static el__model_set set;
static el_config cfg[4];
static char *labels3[] = {"negative", "neutral", "positive"};
static char *labels_ged[] = {"C", "I"};

static void add(int i, const char *name, el_arch arch, int task, el_tokenizer *tok) {
  el__model_entry *e = &set.e[i];
  snprintf(e->name, sizeof e->name, "%s", name);
  cfg[i].arch = arch;
  cfg[i].max_position_embeddings = 64;
  cfg[i].vocab_size = el_tokenizer_vocab_size(tok);
  cfg[i].do_lower_case = 1;
  e->cfg = &cfg[i];
  e->tok = tok;
  e->task = task;
  e->max_len = 64;
  e->threshold = 0.5;
  e->correct_label = -1;
  e->set = &set;
}

static void setup(void) {
  el_tokenizer *tok;
  el_error err = {0};
  if (el_tokenizer_load(fuzz_fixture("vocab.txt"), 1, &tok, &err)) abort();
  add(0, "disc", EL_ARCH_PRETRAINING, EL_TASK_SCORE, tok);
  add(1, "sst", EL_ARCH_SEQ_CLS, EL_TASK_CLASSIFY, tok);
  cfg[1].num_labels = 3;
  cfg[1].id2label = labels3;
  add(2, "squad", EL_ARCH_QA, EL_TASK_QA, tok);
  cfg[2].has_null_threshold = 1;
  add(3, "ged", EL_ARCH_TOKEN_CLS, EL_TASK_SCORE, tok);
  cfg[3].num_labels = 2;
  cfg[3].id2label = labels_ged;
  set.e[3].correct_label = 0;
  set.n = 4;
  set.task_default[EL_TASK_SCORE] = 0;
  set.task_default[EL_TASK_CLASSIFY] = 1;
  set.task_default[EL_TASK_QA] = 2;
  atomic_store(&set.refs, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int ready;
  if (!ready) {
    setup();
    ready = 1;
  }
  if (size == 0) return 0;
  static const int routes[4] = {EL_ROUTE_TOKENIZE, EL_ROUTE_SCORE, EL_ROUTE_CLASSIFY,
                                EL_ROUTE_QA};
  int route = routes[data[0] & 3];
  el__api_limits lim = {.max_inputs = 8, .max_qa_windows = 16, .max_depth = 32,
                        .specials_as_text = (data[0] >> 2) & 1};
  el__api_req *r = NULL;
  el__fail f = {0};
  el__http_err e = el__api_prepare(route, (const char *)data + 1, size - 1, &set, &lim, &r, &f);
  if (e) {
    if (r) abort(); /* an error leaves no request */
    if (!memchr(f.msg, 0, sizeof f.msg)) abort();
    return 0;
  }
  int n;
  el__seq *seqs = el__api_seqs(r, &n);
  const el__model_entry *en = el__api_entry(r);
  unsigned h = 2166136261u;
  for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 16777619u;
  for (int i = 0; i < n; i++) {
    if (seqs[i].len <= 0 || seqs[i].len > en->max_len) abort();
    size_t outs = en->cfg->arch == EL_ARCH_QA        ? 2 * (size_t)seqs[i].len
                  : en->cfg->arch == EL_ARCH_SEQ_CLS ? (size_t)en->cfg->num_labels
                                                     : (size_t)seqs[i].len;
    for (size_t k = 0; k < outs; k++) {
      h = h * 1103515245u + 12345u;
      /* probabilities for /score, logits for the others */
      seqs[i].out[k] = en->task == EL_TASK_SCORE ? (float)(h >> 8) / 16777216.0f
                                                 : ((float)(h >> 8) / 16777216.0f - 0.5f) * 20;
    }
    for (int k = 0; k < seqs[i].len; k++)
      if (seqs[i].ids[k] < 0 || seqs[i].ids[k] >= en->cfg->vocab_size) abort();
  }
  el__sb b = {0};
  e = el__api_render(r, &b, &f);
  if (!e) {
    cJSON *j = cJSON_ParseWithLength(b.data, b.len);
    if (!j) abort(); /* the answer is always JSON */
    cJSON_Delete(j);
  }
  el__sb_free(&b);
  el__api_free(r);
  return 0;
}
