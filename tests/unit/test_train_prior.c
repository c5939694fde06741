/* pretrain --bias-init prior (train/pretrain/prior_init.h): the generator's softmax
 * bias holds the smoothed log unigram frequencies of the TRAINING examples
 * (held-out ones and [CLS]/[SEP]/[PAD] not counted), the discriminator's
 * logit bias the log-odds of the mask rate; a single MLM model gets the same
 * softmax bias. Expected values are computed here from the examples
 * themselves, independently of the counting code. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "checkpoint.h"
#include "data_cache.h"
#include "data_loader.h"
#include "params.h"
#include "prior_init.h"
#include "../test.h"

enum { V = 64, PAD = 0, UNK = 1, CLS = 2, SEP = 3, MASK = 4, N_EX = 200 };

static el_config make_cfg(el_arch arch, int H) {
  el_config c;
  memset(&c, 0, sizeof c);
  c.arch = arch;
  c.vocab_size = V;
  c.embedding_size = 8;
  c.hidden_size = H;
  c.num_layers = 1;
  c.num_heads = 1;
  c.intermediate_size = 2 * H;
  c.max_position_embeddings = 32;
  c.type_vocab_size = 2;
  c.layer_norm_eps = 1e-12f;
  c.initializer_range = 0.02f;
  c.do_lower_case = 1;
  return c;
}

static int example(int i, int *e) {
  int n = 0;
  e[n++] = CLS;
  const int len = 2 + i % 5;
  for (int k = 0; k < len; k++) e[n++] = 5 + (i * 7 + k * k) % 40; /* tokens 5..44 */
  e[n++] = SEP;
  if (i % 3 == 0) e[n++] = 50 + i % 4, e[n++] = SEP;                /* a segment B: 50..53 */
  return n;
}

int main(void) {
  char dir[] = "/tmp/el_test_prior_XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char path[600];
  snprintf(path, sizeof path, "%s/tokens.bin", dir);
  el_error err = {0};
  el__cache_key key = {11, 22, 33, V, 16, 1};
  el__cache_writer *w;
  CHECK(el__cache_writer_open(&w, path, &key, &err) == EL_OK, "cache writer opens: %s", err.msg);
  int e[16];
  for (int i = 0; i < N_EX; i++) {
    int n = example(i, e);
    el__cache_writer_add(w, e, n, n, &err);
  }
  CHECK(el__cache_writer_finish(&w, 1, &err) == EL_OK, "cache written: %s", err.msg);
  el__dataset d;
  CHECK(el__dataset_open(&d, path, &key, 0.1, 1000, 5, &err) == EL_OK && d.n_val > 0,
        "dataset opens with %llu held-out examples", (unsigned long long)d.n_val);

  /* expected counts from the training examples only */
  double count[V] = {0}, total = 0;
  for (uint64_t t = 0; t < d.n_train; t++) {
    int n = example((int)d.train[t], e);
    for (int k = 0; k < n; k++)
      if (e[k] != CLS && e[k] != SEP) count[e[k]] += 1, total += 1;
  }
  el__mask_cfg mc = {0.15f, 3, V, PAD, UNK, CLS, SEP, MASK};

  el_config dc = make_cfg(EL_ARCH_PRETRAINING, 16), gc;
  CHECK(el__generator_config(&dc, 0.5f, &gc, &err) == EL_OK, "generator config");
  el__params p;
  CHECK(el__params_new_pair(&p, &dc, &gc, &err) == EL_OK, "pair: %s", err.msg);
  CHECK(el__prior_init(&p, &d, &mc, 0, &err) == EL_OK, "prior init of a pair: %s", err.msg);
  double worst = 0;
  for (int v = 0; v < V; v++) {
    double want = log((count[v] + 0.5) / (total + 0.5 * V));
    double diff = fabs(p.w[1].lm_b[v] - want);
    if (diff > worst) worst = diff;
  }
  CHECK(worst < 1e-5, "generator bias = log((c_v + 0.5) / (N + 0.5 V)) for every token (max diff %.2g)",
        worst);
  CHECK(p.w[1].lm_b[CLS] == p.w[1].lm_b[PAD] && p.w[1].lm_b[SEP] == p.w[1].lm_b[MASK],
        "[CLS]/[SEP] are not counted: their bias is the unseen-token bias");
  CHECK(p.w[1].lm_b[5] > p.w[1].lm_b[60] + 3, "a frequent token outranks an unseen one");
  CHECK_NEAR(p.w[0].disc_pred.b[0], log(0.15 / 0.85), 1e-6, 0,
             "discriminator bias = log-odds of the mask rate");
  CHECK(el__prior_init(&p, &d, &mc, 0.1, &err) == EL_OK, "prior init with learner errors");
  CHECK_NEAR(p.w[0].disc_pred.b[0], log(0.25 / 0.75), 1e-6, 0,
             "with 10%% extra replaced tokens: log-odds of 0.15 + 0.10");
  /* held-out examples do not leak: a token only in validation examples keeps the unseen bias */
  int only_val = -1;
  for (int v = 5; v < V && only_val < 0; v++) {
    if (count[v] > 0) continue;
    for (uint64_t t = 0; t < d.n_val && only_val < 0; t++) {
      int n = example((int)d.val[t], e);
      for (int k = 0; k < n; k++)
        if (e[k] == v) only_val = v;
    }
  }
  if (only_val >= 0)
    CHECK(p.w[1].lm_b[only_val] == p.w[1].lm_b[PAD], "token %d, only in held-out examples, is not counted",
          only_val);
  el__params_free(&p);
  el__config_free(&gc);

  el_config mc_cfg = make_cfg(EL_ARCH_MASKED_LM, 16);
  el__params s;
  CHECK(el__params_new_single(&s, &mc_cfg, &err) == EL_OK, "single MLM model");
  CHECK(el__prior_init(&s, &d, &mc, 0, &err) == EL_OK, "prior init of an MLM model: %s", err.msg);
  CHECK_NEAR(s.w[0].lm_b[5], log((count[5] + 0.5) / (total + 0.5 * V)), 1e-5, 0,
             "the MLM model's softmax bias gets the same prior");
  el__params_free(&s);

  el_config cls_cfg = make_cfg(EL_ARCH_SEQ_CLS, 16);
  cls_cfg.num_labels = 2;
  el__params c;
  el__params_new_single(&c, &cls_cfg, &err);
  CHECK(el__prior_init(&c, &d, &mc, 0, &err) == EL_EINVAL, "a model without an MLM head is refused: %s",
        err.msg);
  el__params_free(&c);

  el__dataset_close(&d);
  unlink(path);
  rmdir(dir);
  return el_test_done();
}
