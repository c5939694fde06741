/* Discriminator forward throughput of the engine (driven by bench_forward.sh).
 *
 *   bench_forward --model DIR [--threads 2] [--seconds 3] [--len 128]
 *                 [--batches 1,8,32] [--mixed 17,128,45,...] [--dtype fp32|int8|fp32,int8]
 *                 [--ids FILE] [--dump DIR]
 *   bench_forward --load-only DIR [--dtype fp32|int8]
 *                                     peak RSS of a process that only loads DIR
 * With --dtype fp32,int8 the model is loaded both ways and every case runs
 * both, taking turns in --rounds slices (default 1) of the case's seconds, so
 * the ratio comes from one stretch of time.
 *   bench_forward --sgemm [--threads 2] [--seconds 3]
 *
 * Prints one line per measurement, for the script to tabulate:
 *   sgemm M N K GFLOPS                    (best of the timed calls)
 *   case NAME SEQS TOKENS MS_BEST MS_MEDIAN TOKENS_PER_S GFLOPS PEAK_RSS_KB DTYPE CPU_MS_BEST
 * (CPU_MS_BEST: the least process CPU time of a run, all threads summed)
 *   load RSS_KB PEAK_RSS_KB FILE_BYTES DTYPE RSS_BEFORE_LOAD_KB
 * --ids FILE: packed int32 token ids (a case takes its first T), so that
 * bench_ort.sh gives the engine, PyTorch and ONNX Runtime the same inputs
 * (without it the ids come from a fixed LCG). --dump DIR: writes DIR/NAME.f32,
 * the case's replaced-token probabilities (T float32) for the output check
 * (the first model's, with several dtypes).
 * Throughput uses the best run: on a shared machine other processes only ever
 * make a run slower, so the fastest run is the least disturbed one.
 * GFLOP counts multiply-adds of every matrix product as 2 FLOPs (projection,
 * Q/K/V/output, FFN, attention scores and context per sequence, discriminator
 * head), on real tokens only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "electra/engine.h"
#include "electra/model.h"
#include "bench_util.h"

static long status_kb(const char *key) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long v = -1;
  size_t n = strlen(key);
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, key, n)) v = atol(line + n);
  if (f) fclose(f);
  return v;
}

/* CPU time of the whole process (every thread): unlike wall time it does not
 * grow while other processes hold the cores, so on a shared machine it shows
 * the work a run needs (spin-waiting threads count too). */
static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The encoder's and the discriminator head's (dense H x H, then H -> 1). */
static double flops(const el_config *c, const int *len, int n) {
  double T = 0;
  for (int s = 0; s < n; s++) T += len[s];
  const double H = c->hidden_size;
  return bench_encoder_flops(c, len, n) + T * (2.0 * H * H + 2.0 * H);
}

static void bench_sgemm(int M, int N, int K, double seconds) {
  printf("sgemm %d %d %d %.1f\n", M, N, K, bench_sgemm_gflops(M, N, K, seconds));
}

/* The inputs of one case: --ids (int32 file) when given, else the LCG ids. */
typedef struct {
  const int *ids; /* NULL: LCG */
  long n_ids;
  const char *dump; /* NULL: no dump */
} bench_io;

static int fill_ids(const el_config *c, const bench_io *io, int *ids, int T) {
  if (io->ids) {
    if (T > io->n_ids) {
      fprintf(stderr, "bench_forward: the ids file holds %ld tokens, a case needs %d\n",
              io->n_ids, T);
      return 1;
    }
    memcpy(ids, io->ids, sizeof(int) * (size_t)T);
    return 0;
  }
  unsigned r = 12345;
  for (int t = 0; t < T; t++)
    r = r * 1103515245u + 12345u, ids[t] = 5 + (int)(r >> 8) % (c->vocab_size - 5);
  return 0;
}

static void dump_probs(const bench_io *io, const char *name, const float *prob, int T) {
  if (!io->dump) return;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.f32", io->dump, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(prob, sizeof(float), (size_t)T, f) != (size_t)T)
    fprintf(stderr, "bench_forward: cannot write %s\n", path);
  if (f) fclose(f);
}

/* Times el_run_replaced on one batch for each model of m[0..n_m), the
 * models taking turns in `rounds` slices of seconds / rounds each, so a
 * burst of load on the shared machine hits every dtype alike; prints one
 * line per model (best and median over all its runs). */
static int bench_case(el_model *const *m, int n_m, const bench_io *io, const char *name,
                      const int *len, int n, double seconds, int rounds) {
  const el_config *c = el_model_config(m[0]);
  int T = 0;
  for (int s = 0; s < n; s++) T += len[s];
  int *ids = malloc(sizeof(int) * (size_t)T), *types = calloc((size_t)T, sizeof(int));
  float *prob = malloc(sizeof(float) * (size_t)T);
  if (fill_ids(c, io, ids, T)) return 1;
  el_workspace *ws[2] = {NULL, NULL};
  el_error err = {0};
  el_batch b = {n, len, ids, types};
  enum { MAXT = 1000 };
  double *times = malloc(sizeof(double) * MAXT * 2), cpu_best[2] = {1e30, 1e30};
  int it[2] = {0, 0}, rc = 0;
  for (int d = 0; d < n_m && !rc; d++)
    if (el_workspace_new(m[d], T, n, &ws[d], &err) ||
        el_run_replaced(m[d], ws[d], &b, prob, &err)) /* warm-up */
      rc = 1;
    else if (d == 0)
      dump_probs(io, name, prob, T);
  for (int round = 0; round < rounds && !rc; round++)
    for (int d = 0; d < n_m; d++) {
      double t_start = bench_now();
      int k = 0;
      do {
        double t0 = bench_now(), c0 = cpu_now();
        el_run_replaced(m[d], ws[d], &b, prob, &err);
        double used = cpu_now() - c0;
        if (it[d] < MAXT) times[d * MAXT + it[d]++] = bench_now() - t0;
        cpu_best[d] = used < cpu_best[d] ? used : cpu_best[d];
        k++;
      } while (bench_now() - t_start < seconds / rounds || k < 2);
    }
  for (int d = 0; d < n_m && !rc; d++) {
    double *td = times + d * MAXT;
    qsort(td, (size_t)it[d], sizeof td[0], cmp_double);
    double best = td[0], med = td[it[d] / 2];
    printf("case %s %d %d %.3f %.3f %.1f %.1f %ld %s %.3f\n", name, n, T, best * 1e3, med * 1e3,
           T / best, flops(c, len, n) / best / 1e9, status_kb("VmHWM:"),
           el_dtype_name(el_model_dtype(m[d])), cpu_best[d] * 1e3);
  }
  if (rc) fprintf(stderr, "bench_forward: %s\n", err.msg);
  fflush(stdout);
  for (int d = 0; d < n_m; d++) el_workspace_free(ws[d]);
  free(times), free(ids), free(types), free(prob);
  return rc;
}

static int parse_list(const char *s, int *out, int max) {
  int n = 0;
  while (*s && n < max) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 1) return -1;
    out[n++] = (int)v;
    s = *end == ',' ? end + 1 : end;
  }
  return n;
}

/* The whole --ids file as int32s (NULL and a message on failure). */
static int *read_ids(const char *path, long *n) {
  FILE *f = fopen(path, "rb");
  int *ids = NULL;
  long bytes = -1;
  if (f && !fseek(f, 0, SEEK_END)) bytes = ftell(f);
  if (bytes > 0 && !fseek(f, 0, SEEK_SET) && (ids = malloc((size_t)bytes)) &&
      fread(ids, 1, (size_t)bytes, f) == (size_t)bytes) {
    *n = bytes / (long)sizeof(int);
  } else {
    fprintf(stderr, "bench_forward: cannot read the ids file %s\n", path);
    free(ids);
    ids = NULL;
  }
  if (f) fclose(f);
  return ids;
}

int main(int argc, char **argv) {
  const char *model = NULL, *load_only = NULL, *batches = "1,8,32", *mixed = NULL;
  const char *dtypes = "fp32", *ids_path = NULL;
  bench_io io = {NULL, 0, NULL};
  int threads = 2, len = 128, sgemm = 0, rounds = 1;
  double seconds = 3;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--sgemm"))
      sgemm = 1;
    else if (v && !strcmp(a, "--model"))
      model = v, i++;
    else if (v && !strcmp(a, "--load-only"))
      load_only = v, i++;
    else if (v && !strcmp(a, "--threads"))
      threads = atoi(v), i++;
    else if (v && !strcmp(a, "--seconds"))
      seconds = atof(v), i++;
    else if (v && !strcmp(a, "--len"))
      len = atoi(v), i++;
    else if (v && !strcmp(a, "--batches"))
      batches = v, i++;
    else if (v && !strcmp(a, "--mixed"))
      mixed = v, i++;
    else if (v && !strcmp(a, "--ids"))
      ids_path = v, i++;
    else if (v && !strcmp(a, "--dump"))
      io.dump = v, i++;
    else if (v && !strcmp(a, "--rounds"))
      rounds = atoi(v) > 0 ? atoi(v) : 1, i++;
    else if (v && !strcmp(a, "--dtype"))
      dtypes = v, i++;
    else {
      fprintf(stderr, "bench_forward: unknown or incomplete option %s\n", a);
      return 2;
    }
  }
  el_error err = {0};
  /* the dtypes to run: "fp32", "int8" or both, comma-separated */
  el_load_options opt[2];
  int n_dt = 0;
  for (const char *p = dtypes; *p && n_dt < 2;) {
    size_t k = strcspn(p, ",");
    char name[16];
    snprintf(name, sizeof name, "%.*s", (int)(k < 15 ? k : 15), p);
    int d = el_dtype_from_name(name);
    if (d < 0) {
      fprintf(stderr, "bench_forward: --dtype %s: expected fp32, int8 or fp32,int8\n", dtypes);
      return 2;
    }
    opt[n_dt++].dtype = (el_dtype)d;
    p += k + (p[k] == ',');
  }
  if (load_only) {
    const long before_kb = status_kb("VmRSS:");
    el_model *m = NULL;
    if (el_model_load_opts(load_only, &opt[0], &m, &err)) {
      fprintf(stderr, "bench_forward: %s\n", err.msg);
      return 1;
    }
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/model.safetensors", load_only);
    long long bytes = stat(path, &st) ? -1 : (long long)st.st_size;
    printf("load %ld %ld %lld %s %ld\n", status_kb("VmRSS:"), status_kb("VmHWM:"), bytes,
           el_dtype_name(opt[0].dtype), before_kb);
    el_model_free(m);
    return 0;
  }
  el_set_threads(threads);
  if (sgemm) {
    bench_sgemm(512, 1024, 256, seconds);
    bench_sgemm(4096, 1024, 256, seconds);
    return 0;
  }
  if (!model) {
    fprintf(stderr, "usage: bench_forward --model DIR | --load-only DIR | --sgemm\n");
    return 2;
  }
  el_model *m[2] = {NULL, NULL};
  for (int d = 0; d < n_dt; d++)
    if (el_model_load_opts(model, &opt[d], &m[d], &err)) {
      fprintf(stderr, "bench_forward: %s\n", err.msg);
      return 1;
    }
  int *file_ids = NULL;
  if (ids_path && !(file_ids = read_ids(ids_path, &io.n_ids))) return 1;
  io.ids = file_ids;
  int bl[64], nb = parse_list(batches, bl, 64), rc = 0;
  for (int i = 0; i < nb && !rc; i++) {
    int *lens = malloc(sizeof(int) * (size_t)bl[i]);
    for (int s = 0; s < bl[i]; s++) lens[s] = len;
    char name[32];
    snprintf(name, sizeof name, "b%dx%d", bl[i], len);
    rc = bench_case(m, n_dt, &io, name, lens, bl[i], seconds, rounds);
    free(lens);
  }
  if (mixed && !rc) {
    int ml[4096], n = parse_list(mixed, ml, 4096);
    if (n > 0) rc = bench_case(m, n_dt, &io, "mixed", ml, n, seconds, rounds);
  }
  for (int d = 0; d < n_dt; d++) el_model_free(m[d]);
  free(file_ids);
  return rc;
}
