/* Fused inference kernels (see infer_kernels.h). The element-wise loops are
 * written so that GCC vectorises them (`omp simd`, branch-free selects, exp
 * and GELU from op_fastmath.h, shared with the training ops); the matrix
 * products inside attention run on the packed-weight kernels of
 * infer_gemm.h (a head's keys and values packed once per task, a task a head
 * or a group of its rows), on bf16_gemm.h's bf16 kernel when the int8
 * forward pass asks for it and the CPU has AVX512_BF16, or on OpenBLAS
 * where those do not run (ELECTRA_GEMM=openblas, a CPU without AVX2). */
#include <cblas.h>
#undef I /* complex.h (pulled in by cblas.h) defines I */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "bf16_gemm.h"
#include "infer_gemm.h"
#include "infer_kernels.h"
#include "lanes.h"
#include "op_fastmath.h"
#include "op_fastmath_avx512.h"
#include "op_pool.h"

EL_SIMD_CLONES
void el__expf_vec(float *out, const float *in, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; i++) out[i] = el__expf(in[i]);
}

EL_SIMD_CLONES
static void gelu_loop(float *out, const float *in, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; i++) out[i] = el__geluf(in[i]);
}

/* The int8 kernels' epilogue computes GELU with el__gelu512 in registers;
 * here the same, so a product's GELU does not depend on which kernel made it */
__attribute__((target("avx512f,fma"))) static void gelu_avx512(float *out, const float *in,
                                                                size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, el__gelu512(_mm512_loadu_ps(in + i)));
  if (i < n) {
    const __mmask16 m = el__first_lanes((int)(n - i));
    _mm512_mask_storeu_ps(out + i, m, el__gelu512(_mm512_maskz_loadu_ps(m, in + i)));
  }
}

void el__gelu_vec(float *out, const float *in, size_t n) {
  if (el__gemm_isa() == EL__GEMM_AVX512) gelu_avx512(out, in, n);
  else gelu_loop(out, in, n);
}

/* Scores of one task: rows x L floats on the stack, at most this many. */
#define ATT_SCRATCH 8192

/* S holds scaled scores [rows,L]; replaces each row by exp(row - max) and
 * stores 1/sum in inv (the normalisation is applied to ctx, which has dh
 * columns instead of L). */
EL_SIMD_CLONES
static void softmax_unnormalised(float *S, float *inv, int rows, int L) {
  for (int i = 0; i < rows; i++) {
    float *row = S + (size_t)i * L;
    float mx = row[0];
#pragma omp simd reduction(max : mx)
    for (int j = 0; j < L; j++) mx = row[j] > mx ? row[j] : mx;
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (int j = 0; j < L; j++) {
      float e = el__expf(row[j] - mx);
      row[j] = e;
      sum += e;
    }
    inv[i] = 1.0f / sum;
  }
}

/* The bf16 path's softmax: as softmax_unnormalised, with the exponentials
 * written straight into bf16 rows P (ld elements apart, a zero after an odd
 * L, as el__bf16_rows pads) for the P V product instead of stored as floats
 * and rounded in a pass of their own; the sums are of the floats, as there. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) static void softmax_bf16(
    const float *S, float *inv, uint16_t *P, size_t ld, int rows, int L) {
  for (int i = 0; i < rows; i++) {
    const float *row = S + (size_t)i * L;
    uint16_t *p = P + (size_t)i * ld;
    __m512 mx = _mm512_set1_ps(row[0]);
    for (int j = 0; j < L; j += 16) {
      const __mmask16 m = el__first_lanes(L - j);
      mx = _mm512_mask_max_ps(mx, m, mx, _mm512_maskz_loadu_ps(m, row + j));
    }
    const __m512 top = _mm512_set1_ps(_mm512_reduce_max_ps(mx));
    __m512 sum = _mm512_setzero_ps();
    for (int j = 0; j < L; j += 16) {
      const __mmask16 m = el__first_lanes(L - j);
      const __m512 e = _mm512_maskz_mov_ps(m, el__exp512(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, row + j), top)));
      sum = _mm512_add_ps(sum, e);
      _mm256_mask_storeu_epi16(p + j, m, (__m256i)_mm512_cvtneps_pbh(e));
    }
    if (L % 2) p[L] = 0;
    inv[i] = 1.0f / _mm512_reduce_add_ps(sum);
  }
}

/* One sequence of L tokens from token t0 on. */
typedef struct att_job {
  float *ctx;
  const float *q, *k, *v;
  size_t t0;
  int L, rows, nb, groups, H, dh; /* a task: one group of a head's nb blocks of rows */
  int bf16;                       /* the two products in bf16 (bf16_gemm.h) */
  float scale;
  const el__relpos *rel; /* NULL: absolute positions */
  const float *dist;     /* rel's distance rows the sequence reaches, packed once per length
                            for all heads of a pool run (pack_dists), or NULL: OpenBLAS's */
} att_job;

/* Query rows of a block: rows x L scores fit the stack scratch; rows <= L and
 * rows * L <= ATT_SCRATCH keep rows <= sqrt(ATT_SCRATCH) < ATT_MAX_ROWS. */
#define ATT_MAX_ROWS 128
static int att_rows(int L) {
  int r = ATT_SCRATCH / L;
  return r < 1 ? 1 : r > L ? L : r;
}

/* A thread's packed buffers, kept between calls and freed when the thread
 * ends: PACK_HEAD a task's keys, values and a row of zeros, PACK_DIST the
 * distance rows of the pool run the thread starts (a task run inline on
 * the same thread uses both at once), PACK_ROWS a block's queries and
 * probabilities in bf16; NULL when out of memory (the product then takes
 * OpenBLAS's path, or for PACK_ROWS the fp32 kernels). */
enum { PACK_HEAD, PACK_DIST, PACK_ROWS, PACK_KEYS };
typedef struct pack_buf {
  float *f;
  size_t cap;
} pack_buf;
static pthread_key_t g_pack_key[PACK_KEYS];
static pthread_once_t g_pack_once = PTHREAD_ONCE_INIT;
static void pack_buf_free(void *p) {
  pack_buf *b = p;
  free(b->f);
  free(b);
}
static void pack_key_init(void) {
  for (int k = 0; k < PACK_KEYS; k++) pthread_key_create(&g_pack_key[k], pack_buf_free);
}

static float *pack_scratch(int key, size_t floats) {
  pthread_once(&g_pack_once, pack_key_init);
  pack_buf *b = pthread_getspecific(g_pack_key[key]);
  if (!b) {
    if (!(b = calloc(1, sizeof *b))) return NULL;
    if (pthread_setspecific(g_pack_key[key], b)) {
      free(b);
      return NULL;
    }
  }
  if (floats > b->cap) {
    float *p = realloc(b->f, sizeof(float) * floats);
    if (!p) return NULL;
    b->f = p, b->cap = floats;
  }
  return b->f;
}

/* The head's keys and values packed as the products' "weights": keys as
 * [L out, dh in] with the scale folded in (S = scale q K^T), values as
 * [dh out, L in] (ctx = S V), in fp32 (k, v) or, for j->bf16, in bf16 (bk,
 * bv; k and v NULL); zeros: a row the fp32 products start from, as wide as
 * the widest of them (with relative positions the 2L - 1 distances).
 * Fails where the packed kernels do not run; out of memory for bf16's
 * rows, the fp32 products are packed instead. */
typedef struct head_pack {
  float *k, *v, *zeros;
  uint16_t *bk, *bv, *rows; /* rows: a block's queries, then its probabilities, in bf16 */
} head_pack;

static int pack_head(const att_job *j, size_t off, head_pack *hp) {
  const int L = j->L, dh = j->dh, H = j->H, W = j->rel ? 2 * L - 1 : 0;
  size_t zn = (size_t)(L > dh ? L : dh);
  if ((size_t)W > zn) zn = (size_t)W;
  const int widest = (L > dh ? L : dh) + 1;
  uint16_t *rows = j->bf16 ? (uint16_t *)pack_scratch(PACK_ROWS, (size_t)j->rows * widest / 2 + 1)
                           : NULL;
  const int bf16 = rows != NULL;
  const size_t nk = bf16 ? el__bgemm_packed_elems(L, dh) : (size_t)L * dh;
  const size_t nv = bf16 ? el__bgemm_packed_elems(dh, L) : (size_t)L * dh;
  const size_t kv = bf16 ? (nk + nv + 1) / 2 : nk + nv; /* in floats */
  float *buf = el__gemm_isa() == EL__GEMM_NONE ? NULL : pack_scratch(PACK_HEAD, kv + zn);
  if (!buf) return -1;
  *hp = (head_pack){.zeros = buf + kv, .rows = rows};
  if (bf16) {
    hp->bk = (uint16_t *)buf, hp->bv = hp->bk + nk;
    el__bgemm_pack_strided(hp->bk, j->k + off, (size_t)H, 1, L, dh, j->scale);
    el__bgemm_pack_strided(hp->bv, j->v + off, 1, (size_t)H, dh, L, 1.0f);
  } else {
    hp->k = buf, hp->v = buf + nk;
    el__gemm_pack_strided(hp->k, j->k + off, (size_t)H, 1, L, dh, j->scale);
    el__gemm_pack_strided(hp->v, j->v + off, 1, (size_t)H, dh, L, 1.0f);
  }
  memset(hp->zeros, 0, sizeof(float) * zn);
  return 0;
}

/* With relative positions, the 2L - 1 rows of the layer's distance
 * embedding a sequence of L queries reaches, scaled, as [2L - 1 out, dh in]
 * (column c: distance c - (L - 1)), into d: once per length in a pool run,
 * as every head (and every sequence of that length) reads the same rows, so
 * their product does not go through OpenBLAS's packing on every block (4-6 %
 * of a grammar check's samples). */
static void pack_dist(const att_job *j, float *d) { /* D rows P - L ... P + L - 2 */
  const int L = j->L, dh = j->dh;
  el__gemm_pack_strided(d, j->rel->dist + (size_t)(j->rel->max_pos - L) * dh, (size_t)dh, 1,
                        2 * L - 1, dh, j->scale);
}

/* scale q_i.D[i - j + P - 1] added to S for the block's rows, on the packed
 * distances: the block's distances are columns i0 ... i0 + n + L - 2 of
 * j->dist; the product starts at the panel boundary before i0. */
static void relpos_packed(const att_job *j, const head_pack *hp, const float *qs, int i0, int n,
                          float *S, float *G) {
  const int L = j->L, c0 = i0 / EL_GEMM_NR * EL_GEMM_NR, nc = i0 + n + L - 1 - c0;
  el__gemm_packed(el__gemm_isa(), n, nc, j->dh, qs, (size_t)j->H, j->dist, 2 * L - 1, c0, hp->zeros, G,
                  (size_t)nc);
  el__relpos_gather(S, L, G, nc, i0 - c0, n, L);
}

/* Query rows [i0, i0 + n) of the head at off (packed: hp holds its keys
 * and values). */
static void att_block(const att_job *j, size_t off, const head_pack *hp, int packed, int i0, int n) {
  const int H = j->H, dh = j->dh, L = j->L;
  float S[ATT_SCRATCH], inv[ATT_MAX_ROWS];
  const float *qs = j->q + off + (size_t)i0 * H;
  float *cs = j->ctx + off + (size_t)i0 * H;
  const size_t lq = (size_t)(dh + 1) / 2 * 2, lp = (size_t)(L + 1) / 2 * 2;
  uint16_t *rows = packed ? hp->rows : NULL; /* bf16 */
  if (rows) {
    el__bf16_rows(rows, lq, qs, (size_t)H, n, dh);
    el__bgemm(n, L, dh, rows, lq, hp->bk, S, (size_t)L, 0);
  } else if (packed)
    el__gemm_packed(el__gemm_isa(), n, L, dh, qs, (size_t)H, hp->k, L, 0, hp->zeros, S, (size_t)L);
  else
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, L, dh, j->scale, qs, H, j->k + off, H,
                0.0f, S, L);
  if (j->rel) { /* n (n + L - 1) <= 2 ATT_SCRATCH (n <= L, n L <= ATT_SCRATCH), and the
                 * packed product starts up to EL_GEMM_NR - 1 columns earlier */
    float G[2 * ATT_SCRATCH + ATT_MAX_ROWS * EL_GEMM_NR];
    if (packed && j->dist) relpos_packed(j, hp, qs, i0, n, S, G);
    else el__relpos_scores(S, L, qs, H, i0, n, L, dh, j->rel, j->scale, G);
  }
  if (rows) {
    softmax_bf16(S, inv, rows, lp, n, L);
    el__bgemm(n, dh, L, rows, lp, hp->bv, cs, (size_t)H, 0);
  } else {
    softmax_unnormalised(S, inv, n, L);
    if (packed)
      el__gemm_packed(el__gemm_isa(), n, dh, L, S, (size_t)L, hp->v, dh, 0, hp->zeros, cs, (size_t)H);
    else
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, dh, L, 1.0f, S, L, j->v + off, H,
                  0.0f, cs, H);
  }
  for (int i = 0; i < n; i++) {
    float *row = cs + (size_t)i * H;
    const float w = inv[i];
#pragma omp simd
    for (int d = 0; d < dh; d++) row[d] *= w;
  }
}

/* Task (head h, group g): the g-th of the groups of blocks of query rows of
 * head h; the head's keys and values are packed once for the group. */
static void att_task(void *p, int task, int worker) {
  (void)worker;
  const att_job *j = p;
  const int h = task / j->groups, g = task % j->groups;
  const int b0 = g * j->nb / j->groups, b1 = (g + 1) * j->nb / j->groups;
  const size_t off = j->t0 * j->H + (size_t)h * j->dh;
  head_pack hp;
  const int packed = pack_head(j, off, &hp) == 0;
  for (int b = b0; b < b1; b++) {
    const int i0 = b * j->rows, n = j->L - i0 < j->rows ? j->L - i0 : j->rows;
    att_block(j, off, &hp, packed, i0, n);
  }
}

/* The sequences of one pool run: their tasks numbered one after another. */
#define ATT_SEQS 64
typedef struct att_run {
  att_job job[ATT_SEQS];
  int first[ATT_SEQS + 1]; /* first task of each sequence; first[n] = all tasks */
  int n;
} att_run;

static void att_run_task(void *p, int task, int worker) {
  const att_run *r = p;
  int lo = 0, hi = r->n - 1; /* the last sequence whose first task is <= task */
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (r->first[mid] <= task) lo = mid;
    else hi = mid - 1;
  }
  att_task((void *)&r->job[lo], task - r->first[lo], worker);
}

/* The distance rows of each length in the run, packed on the calling thread
 * (its PACK_DIST buffer, read by every task of the run); NULL for all where
 * the packed kernels do not run or memory is short (OpenBLAS's product). */
static void pack_dists(att_run *r) {
  const att_job *j0 = &r->job[0];
  for (int i = 0; i < r->n; i++) r->job[i].dist = NULL;
  if (!j0->rel || el__gemm_isa() == EL__GEMM_NONE) return;
  size_t total = 0;
  for (int i = 0; i < r->n; i++) {
    int seen = 0;
    for (int k = 0; k < i && !seen; k++) seen = r->job[k].L == r->job[i].L;
    if (!seen) total += (size_t)(2 * r->job[i].L - 1) * j0->dh;
  }
  float *buf = pack_scratch(PACK_DIST, total);
  if (!buf) return;
  for (int i = 0; i < r->n; i++) {
    for (int k = 0; k < i && !r->job[i].dist; k++)
      if (r->job[k].L == r->job[i].L) r->job[i].dist = r->job[k].dist;
    if (!r->job[i].dist) {
      pack_dist(&r->job[i], buf);
      r->job[i].dist = buf;
      buf += (size_t)(2 * r->job[i].L - 1) * j0->dh;
    }
  }
}

/* Up to ATT_SEQS sequences a pool run (one fork-join for a batch's 32
 * sequences, not 32); a batch of several chunks runs its chunks in parallel
 * already (encoder.c), where these runs are inline. */
void el__attention(float *ctx, const float *q, const float *k, const float *v, const int *seq_len,
                   int n_seqs, int H, int nh, const el__relpos *rel, int bf16) {
  const att_job base = {.ctx = ctx, .q = q, .k = k, .v = v, .H = H, .dh = H / nh,
                        .scale = 1.0f / sqrtf((float)(H / nh)), .rel = rel,
                        .bf16 = bf16 && el__bgemm_available() &&
                                el__gemm_isa() == EL__GEMM_AVX512};
  const int avail = el__pool_avail(); /* 1 inside a task: inline */
  att_run r;
  size_t t0 = 0;
  for (int s0 = 0; s0 < n_seqs; s0 += ATT_SEQS) {
    r.n = n_seqs - s0 < ATT_SEQS ? n_seqs - s0 : ATT_SEQS;
    /* as few groups a head as keep two tasks a thread: each group packs the
     * head's keys and values (ELECTRA-Small, one sequence of 128 on 2
     * threads: 4 heads of 2 blocks, one group each) */
    const int want = (2 * avail + nh * r.n - 1) / (nh * r.n);
    r.first[0] = 0;
    for (int i = 0; i < r.n; i++) {
      att_job *j = &r.job[i];
      *j = base;
      j->t0 = t0, j->L = seq_len[s0 + i];
      t0 += (size_t)j->L;
      j->rows = att_rows(j->L);
      j->nb = (j->L + j->rows - 1) / j->rows;
      j->groups = want < 1 ? 1 : want > j->nb ? j->nb : want;
      r.first[i + 1] = r.first[i] + nh * j->groups;
    }
    pack_dists(&r);
    el__pool_run(r.first[r.n], att_run_task, &r);
  }
}

const el__relpos *el__layer_relpos(const el__layer_w *lw, int max_pos, el__relpos *slot) {
  if (!lw->dist) return NULL;
  *slot = (el__relpos){.dist = lw->dist, .ddist = NULL, .max_pos = max_pos};
  return slot;
}
