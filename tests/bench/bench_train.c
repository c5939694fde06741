/* Train-step throughput of the ELECTRA objective (tests/bench/bench_train.sh).
 *   bench_train PRESET [STEPS] [THREADS]     PRESET = tiny | small
 * One step = zero grads, generator forward on the masked input, MLM loss at
 * the selected positions, Gumbel-max sampling, discriminator forward on the
 * corrupted input, both backwards, global-norm clip + AdamW. Batch 32 x 128
 * (all sequences full length, vocab 30522), 19 selected positions per
 * sequence (mask_prob 0.15, 85 % [MASK]), dropout 0.1 on. Random ids: the
 * cost of a step does not depend on the text. Prints one JSON line with
 * tokens/s over the timed steps (after 2 untimed ones) and peak RSS, and the
 * step's floor: its matrix-product FLOPs (forward x 3: each product's
 * backward is two products of the same size) over OpenBLAS's SGEMM rate on
 * the step's largest shape at the same thread count -- no implementation
 * that multiplies through that SGEMM can take less time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "electra/engine.h"
#include "matmul.h"
#include "objective.h"
#include "optim.h"
#include "params.h"
#include "bench_util.h"

enum { B = 32, S = 128, NSEL = 19, V = 30522 };

static el_config preset(const char *name) {
  el_config c;
  memset(&c, 0, sizeof c);
  c.arch = EL_ARCH_PRETRAINING;
  c.vocab_size = V;
  c.max_position_embeddings = 512;
  c.type_vocab_size = 2;
  c.layer_norm_eps = 1e-12f;
  c.initializer_range = 0.02f;
  c.hidden_dropout_prob = 0.1f;
  c.attention_probs_dropout_prob = 0.1f;
  c.embedding_size = 128;
  if (!strcmp(name, "small")) {
    c.hidden_size = 256, c.num_layers = 12, c.num_heads = 4, c.intermediate_size = 1024;
  } else {
    c.hidden_size = 128, c.num_layers = 4, c.num_heads = 2, c.intermediate_size = 512;
  }
  return c;
}

/* Forward matrix-product FLOPs of one model over B x S tokens (its
 * encoder, bench_util.h) and its head: the generator's MLM head at the NSEL
 * selected positions per sequence, the discriminator's on every token. */
static double model_flops(const el_config *c) {
  static int len[B];
  for (int s = 0; s < B; s++) len[s] = S;
  const double H = c->hidden_size, E = c->embedding_size;
  double f = bench_encoder_flops(c, len, B);
  if (c->arch == EL_ARCH_MASKED_LM)
    f += (double)B * NSEL * (2.0 * H * E + 2.0 * E * V); /* head dense, tied output */
  else
    f += (double)B * S * (2.0 * H * H + 2.0 * H);
  return f;
}

int main(int argc, char **argv) {
  const char *name = argc > 1 ? argv[1] : "tiny";
  int steps = argc > 2 ? atoi(argv[2]) : 10;
  int threads = argc > 3 ? atoi(argv[3]) : 2;
  el_set_threads(threads);
  /* EL_BENCH_PRECISION=bf16: the products as --precision bf16 runs them */
  const char *precision = getenv("EL_BENCH_PRECISION");
  const int bf16 = precision && !strcmp(precision, "bf16");
  if (el__matmul_set_bf16(bf16)) {
    fprintf(stderr, "bench_train: bf16 products need AVX512_BF16, which this CPU lacks\n");
    return 1;
  }
  el_error err = {0};
  el_config d = preset(name), g;
  el__params p;
  el__electra *e;
  el__rng rng;
  el__rng_seed(&rng, 1);
  if (el__generator_config(&d, 0.25f, &g, &err) || el__params_new_pair(&p, &d, &g, &err) ||
      el__params_init_random(&p, 0.0f, 1, &rng, &err)) {
    fprintf(stderr, "bench_train: %s\n", err.msg);
    return 1;
  }
  el__tmodel_limits lim = {B * S, B, S, B * NSEL};
  if (el__electra_new(&p, &lim, &e, &err)) {
    fprintf(stderr, "bench_train: %s\n", err.msg);
    return 1;
  }
  static int ids[B * S], types[B * S], seq_len[B], pos[B * NSEL];
  static uint8_t use_mask[B * NSEL];
  for (int s = 0; s < B; s++) {
    seq_len[s] = S;
    for (int t = 0; t < S; t++) {
      ids[s * S + t] = t == 0 ? 101 : t == S - 1 ? 102 : 1000 + (int)el__rng_below(&rng, V - 1000);
      types[s * S + t] = t >= S / 2;
    }
  }
  el_batch b = {B, seq_len, ids, types};
  el__adamw opt = el__adamw_defaults();
  el__electra_opts o = el__electra_default_opts(103);
  const char *sampler = getenv("EL_BENCH_SAMPLER");
  if (sampler && !strcmp(sampler, "gumbel")) o.sampler = EL_SAMPLE_GUMBEL;
  double t0 = 0.0, loss0 = 0.0, loss = 0.0;
  for (int it = 0; it < steps + 2; it++) {
    if (it == 2) t0 = bench_now();
    /* a fresh masking decision each step: 19 distinct positions in 1..126 */
    for (int s = 0; s < B; s++) {
      int chosen[S] = {0};
      for (int i = 0; i < NSEL; i++) {
        int q;
        do q = 1 + (int)el__rng_below(&rng, S - 2);
        while (chosen[q]);
        chosen[q] = 1;
        pos[s * NSEL + i] = s * S + q;
        use_mask[s * NSEL + i] = el__rng_uniform(&rng) < 0.85f;
      }
    }
    el__mask_plan plan = {B * NSEL, pos, use_mask, NULL};
    el__electra_result res;
    el__params_zero_grads(&p);
    if (el__electra_step(e, &b, &plan, &o, &rng, &res, NULL, &err) ||
        el__adamw_step(&p, &opt, 5e-4, NULL, &err)) {
      fprintf(stderr, "bench_train: %s\n", err.msg);
      return 1;
    }
    if (it == 0) loss0 = res.loss;
    loss = res.loss;
  }
  double dt = bench_now() - t0;
  const double gflop = 3.0 * (model_flops(&d) + model_flops(&g)) / 1e9;
  const double rate = bench_sgemm_gflops(B * S, d.intermediate_size, d.hidden_size, 1.0);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("{\"impl\": \"electra.c%s\", \"preset\": \"%s\", \"threads\": %d, \"steps\": %d, "
         "\"ms_per_step\": %.1f, \"tokens_per_s\": %.0f, \"peak_rss_mb\": %.1f, "
         "\"params\": %zu, \"activation_mb\": %.1f, \"loss_first\": %.4f, \"loss_last\": %.4f, "
         "\"gflop_per_step\": %.1f, \"sgemm_gflops\": %.1f, \"floor_ms\": %.1f, "
         "\"gflops\": %.1f}\n",
         bf16 ? " bf16" : "", name, threads, steps, 1e3 * dt / steps, (double)B * S * steps / dt,
         ru.ru_maxrss / 1024.0, p.numel, el__electra_bytes(e) / 1048576.0, loss0, loss, gflop,
         rate, rate > 0 ? 1e3 * gflop / rate : 0.0, gflop * steps / dt);
  el__electra_free(e);
  el__params_free(&p);
  return 0;
}
