/* The engine's own throughput on /score's work, for bench_server.sh to set
 * the server against: tokenize + encode TEXT like the server does, then run
 * el_run_replaced on batches of B copies for SECONDS (after one warm-up
 * batch). Prints one JSON line: tokens per sequence, sequences/s and the
 * median batch latency.
 *
 *   bench_server_engine --model DIR --text TEXT --batch B [--seconds S] [--threads N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "electra/electra.h"
#include "bench_util.h" /* bench_now */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  const char *dir = NULL, *text = NULL;
  int batch = 1, threads = 0;
  double seconds = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--model")) dir = argv[i + 1];
    else if (!strcmp(argv[i], "--text")) text = argv[i + 1];
    else if (!strcmp(argv[i], "--batch")) batch = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--seconds")) seconds = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--threads")) threads = atoi(argv[i + 1]);
  }
  if (!dir || !text || batch < 1) {
    fprintf(stderr, "usage: %s --model DIR --text TEXT --batch B [--seconds S] [--threads N]\n",
            argv[0]);
    return 2;
  }
  el_error err = {0};
  el_model *m = NULL;
  if (el_model_load(dir, &m, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  el_set_threads(threads);
  const el_tokenizer *tok = el_model_tokenizer(m);
  el_tokens t = {0};
  el_encoding e = {0};
  if (el_tokenize(tok, text, strlen(text), &t, &err) ||
      el_encode(tok, &t, NULL, el_model_config(m)->max_position_embeddings, 1, &e, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  int L = e.n, T = L * batch;
  int *ids = malloc(sizeof(int) * T), *types = calloc((size_t)T, sizeof(int));
  int *lens = malloc(sizeof(int) * batch);
  float *prob = malloc(sizeof(float) * T);
  for (int b = 0; b < batch; b++) {
    memcpy(ids + b * L, e.ids, sizeof(int) * L);
    lens[b] = L;
  }
  el_workspace *ws = NULL;
  if (el_workspace_new(m, T, batch, &ws, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  el_batch bt = {batch, lens, ids, types};
  if (el_run_replaced(m, ws, &bt, prob, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  size_t cap = 4096, n = 0;
  double *lat = malloc(sizeof(double) * cap);
  double t0 = bench_now();
  while (bench_now() - t0 < seconds && n < cap) {
    double a = bench_now();
    el_run_replaced(m, ws, &bt, prob, &err);
    lat[n++] = bench_now() - a;
  }
  double dt = bench_now() - t0;
  qsort(lat, n, sizeof *lat, cmp_double);
  printf("{\"tokens_per_seq\":%d,\"batch\":%d,\"threads\":%d,\"seq_per_s\":%.1f,"
         "\"batch_p50_ms\":%.3f}\n",
         L, batch, el_get_threads(), n * batch / dt, lat[n / 2] * 1e3);
  free(lat);
  free(ids);
  free(types);
  free(lens);
  free(prob);
  el_workspace_free(ws);
  el_encoding_free(&e);
  el_tokens_free(&t);
  el_model_free(m);
  return 0;
}
