/* The int8 matrix product of quant.h. Where the CPU runs one of the
 * engine's own kernels (quant_gemm.h: AVX-512 VNNI or AVX2; el__qgemm_isa)
 * a dense layer holds its codes packed for it, and a product is one call
 * with nothing set up per call. Elsewhere, or with ELECTRA_QGEMM=onednn,
 * through oneDNN's matmul: one primitive per dense layer, created at load
 * with the token count M left to run time (so any batch reuses it) and the
 * weights reordered once into the layout the chosen kernel wants. oneDNN
 * picks its kernel for the CPU it runs on (AVX2, AVX-512, VNNI), so nothing
 * here depends on the build machine's ISA. A layer keeps one of the two
 * copies, never both. A primitive is shared by every thread; each workspace
 * has a stream and a scratchpad per worker thread (user scratchpad mode, so
 * concurrent runs never share a buffer). Without oneDNN (EL_HAVE_DNNL
 * unset) only the stubs at the end are built. */
#include <stdlib.h>
#include <string.h>
#include "infer_internal.h"
#include "infer_kernels.h"
#include "quant.h"
#include "quant_gemm.h"

#ifdef EL_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>
#include <omp.h>
#include <pthread.h>

struct el__qdense {
  int N, K;
  el__qgemm_isa_t isa; /* the engine's kernel, or EL__QGEMM_NONE: oneDNN's */
  int8_t *packed;      /* the codes packed for it (isa set) */
  dnnl_primitive_t prim; /* else oneDNN's primitive */
  dnnl_memory_t wmem; /* and the reordered int8 weights */
  float *scale;       /* [N] s_w */
  int32_t *colsum;    /* [N] */
  size_t scratch;     /* scratchpad bytes the primitive needs */
  size_t bytes;       /* weights as reordered + scales + sums */
};

struct el__qws {
  dnnl_stream_t stream[EL_QWS_WORKERS]; /* one per worker, made on its first run */
  void *wscratch[EL_QWS_WORKERS];       /* scratchpad per worker, likewise */
  uint8_t *a[2];   /* two slots of [max_tokens, max(H, I)] quantized activations */
  float *sa[2];    /* [max_tokens] each */
  int32_t *za[2];  /* [max_tokens] each */
  int32_t *acc;    /* [max_tokens, max(H, I)] */
  el__qready ready;
  size_t scratch_bytes;
};

static dnnl_engine_t g_engine;
static dnnl_status_t g_engine_status = dnnl_runtime_error;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void engine_init(void) { g_engine_status = dnnl_engine_create(&g_engine, dnnl_cpu, 0); }

static int get_engine(el_error *err) {
  pthread_once(&g_once, engine_init);
  if (g_engine_status != dnnl_success)
    return el_error_set(err, EL_EUNSUPPORTED, "int8: oneDNN could not create a CPU engine (%s)",
                        dnnl_status2str(g_engine_status));
  return EL_OK;
}

int el__quant_available(void) { return 1; }

#define DNNL_TRY(call, what)                                                                  \
  do {                                                                                        \
    dnnl_status_t st_ = (call);                                                               \
    if (st_ != dnnl_success) {                                                                \
      rc = el_error_set(err, EL_EUNSUPPORTED, "int8 %s (%d x %d): oneDNN: %s", what, N, K,    \
                        dnnl_status2str(st_));                                                \
      goto done;                                                                              \
    }                                                                                         \
  } while (0)

/* The matmul src [M,K] u8 x weights [K,N] s8 -> dst [M,N] s32, M at run time. */
static int make_primitive(el__qdense *d, const dnnl_memory_desc_t **wmd, dnnl_primitive_desc_t *pd,
                          el_error *err) {
  const int N = d->N, K = d->K;
  int rc = EL_OK;
  dnnl_memory_desc_t src, wei, dst;
  dnnl_matmul_desc_t md;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_dims_t sd = {DNNL_RUNTIME_DIM_VAL, K}, wd = {K, N}, dd = {DNNL_RUNTIME_DIM_VAL, N};
  DNNL_TRY(dnnl_memory_desc_init_by_tag(&src, 2, sd, dnnl_u8, dnnl_ab), "source");
  DNNL_TRY(dnnl_memory_desc_init_by_tag(&wei, 2, wd, dnnl_s8, dnnl_format_tag_any), "weights");
  DNNL_TRY(dnnl_memory_desc_init_by_tag(&dst, 2, dd, dnnl_s32, dnnl_ab), "destination");
  DNNL_TRY(dnnl_matmul_desc_init(&md, &src, &wei, NULL, &dst), "matmul");
  DNNL_TRY(dnnl_primitive_attr_create(&attr), "attributes");
  DNNL_TRY(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user), "scratchpad");
  DNNL_TRY(dnnl_primitive_desc_create(pd, &md, attr, g_engine, NULL), "matmul kernel");
  DNNL_TRY(dnnl_primitive_create(&d->prim, *pd), "matmul primitive");
  *wmd = dnnl_primitive_desc_query_md(*pd, dnnl_query_weights_md, 0);
  d->scratch = dnnl_memory_desc_get_size(dnnl_primitive_desc_query_md(*pd, dnnl_query_scratchpad_md, 0));
done:
  if (attr) dnnl_primitive_attr_destroy(attr);
  return rc;
}

/* q [N,K] (HF layout) is the weights' [K,N] in layout "ba"; reorder it into
 * the kernel's layout wmd. */
static int reorder_weights(el__qdense *d, const int8_t *q, const dnnl_memory_desc_t *wmd, el_error *err) {
  const int N = d->N, K = d->K;
  int rc = EL_OK;
  dnnl_memory_desc_t user;
  dnnl_memory_t umem = NULL;
  dnnl_primitive_desc_t rpd = NULL;
  dnnl_primitive_t rprim = NULL;
  dnnl_stream_t stream = NULL;
  dnnl_dims_t wd = {K, N};
  DNNL_TRY(dnnl_memory_desc_init_by_tag(&user, 2, wd, dnnl_s8, dnnl_ba), "weights layout");
  DNNL_TRY(dnnl_memory_create(&umem, &user, g_engine, (void *)q), "weights memory");
  DNNL_TRY(dnnl_memory_create(&d->wmem, wmd, g_engine, DNNL_MEMORY_ALLOCATE), "weights memory");
  DNNL_TRY(dnnl_reorder_primitive_desc_create(&rpd, &user, g_engine, wmd, g_engine, NULL),
           "weights reorder");
  DNNL_TRY(dnnl_primitive_create(&rprim, rpd), "weights reorder");
  DNNL_TRY(dnnl_stream_create(&stream, g_engine, dnnl_stream_default_flags), "stream");
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, umem}, {DNNL_ARG_TO, d->wmem}};
  DNNL_TRY(dnnl_primitive_execute(rprim, stream, 2, args), "weights reorder");
  DNNL_TRY(dnnl_stream_wait(stream), "weights reorder");
  d->bytes += dnnl_memory_desc_get_size(wmd);
done:
  if (stream) dnnl_stream_destroy(stream);
  if (rprim) dnnl_primitive_destroy(rprim);
  if (rpd) dnnl_primitive_desc_destroy(rpd);
  if (umem) dnnl_memory_destroy(umem);
  return rc;
}

void el__qdense_free(el__qdense *d) {
  if (!d) return;
  if (d->prim) dnnl_primitive_destroy(d->prim);
  if (d->wmem) dnnl_memory_destroy(d->wmem);
  free(d->packed);
  free(d->scale);
  free(d->colsum);
  free(d);
}

/* The codes q [N,K] as oneDNN's primitive and its reordered weights. */
static int onednn_weights(el__qdense *d, const int8_t *q, el_error *err) {
  const dnnl_memory_desc_t *wmd = NULL;
  dnnl_primitive_desc_t pd = NULL;
  int rc = make_primitive(d, &wmd, &pd, err);
  if (!rc) rc = reorder_weights(d, q, wmd, err);
  if (pd) dnnl_primitive_desc_destroy(pd); /* wmd pointed into it */
  return rc;
}

/* The codes packed for the engine's kernel d->isa. */
static int pack_weights(el__qdense *d, const int8_t *q, el_error *err) {
  const size_t bytes = el__qgemm_packed_bytes(d->N, d->K);
  if (!(d->packed = aligned_alloc(64, (bytes + 63) & ~(size_t)63)))
    return el_error_set(err, EL_ENOMEM, "int8: out of memory packing a %d x %d layer", d->N,
                        d->K);
  el__qgemm_pack(d->packed, q, d->N, d->K);
  d->bytes += bytes;
  return EL_OK;
}

int el__qdense_new(const float *w, int N, int K, el__qdense **out, el_error *err) {
  return el__qdense_new_isa(w, N, K, el__qgemm_isa(), out, err);
}

int el__qdense_new_isa(const float *w, int N, int K, el__qgemm_isa_t isa, el__qdense **out,
                       el_error *err) {
  *out = NULL;
  int rc = get_engine(err);
  if (rc) return rc;
  el__qdense *d = calloc(1, sizeof *d);
  int8_t *q = malloc((size_t)N * K);
  if (!d || !q || !(d->scale = malloc(sizeof(float) * N)) ||
      !(d->colsum = malloc(sizeof(int32_t) * N))) {
    rc = el_error_set(err, EL_ENOMEM, "int8: out of memory quantizing a %d x %d layer", N, K);
    goto done;
  }
  d->N = N, d->K = K, d->isa = isa;
  d->bytes = (sizeof(float) + sizeof(int32_t)) * (size_t)N;
  el__quant_weights(q, d->scale, d->colsum, w, N, K, EL_QUANT_WMAX);
  rc = isa != EL__QGEMM_NONE ? pack_weights(d, q, err) : onednn_weights(d, q, err);
  if (!rc) {
    *out = d;
    d = NULL;
  }
done:
  free(q);
  el__qdense_free(d);
  return rc;
}

size_t el__qdense_bytes(const el__qdense *d) { return d ? d->bytes : 0; }
size_t el__qdense_scratch(const el__qdense *d) { return d ? d->scratch : 0; }
const float *el__qdense_scale(const el__qdense *d) { return d->scale; }
const int32_t *el__qdense_colsum(const el__qdense *d) { return d->colsum; }

/* Tensors of one run wrap the caller's buffers; creating them costs a small
 * allocation inside oneDNN, negligible next to the product. */
static int wrap(dnnl_memory_t *mem, int M, int C, dnnl_data_type_t dt, void *p) {
  dnnl_memory_desc_t md;
  dnnl_dims_t dims = {M, C};
  if (dnnl_memory_desc_init_by_tag(&md, 2, dims, dt, dnnl_ab) != dnnl_success) return -1;
  return dnnl_memory_create(mem, &md, g_engine, p) == dnnl_success ? 0 : -1;
}

/* A worker's stream and scratchpad, made on its first use (each worker index
 * is used by one thread at a time). NULL stream: out of memory. */
static dnnl_stream_t worker_stream(el__qws *ws, int worker, void **scratch) {
  if (worker < 0 || worker >= EL_QWS_WORKERS) return NULL;
  if (!ws->stream[worker] &&
      dnnl_stream_create(&ws->stream[worker], g_engine, dnnl_stream_default_flags) != dnnl_success)
    ws->stream[worker] = NULL;
  if (ws->scratch_bytes && !ws->wscratch[worker])
    ws->wscratch[worker] = aligned_alloc(64, (ws->scratch_bytes + 63) & ~(size_t)63);
  *scratch = ws->wscratch[worker];
  return ws->scratch_bytes && !*scratch ? NULL : ws->stream[worker];
}

/* acc [M,N] = a [M,K] (u8) x W^T on the calling thread alone (oneDNN's
 * OpenMP count is 1 for the call). A failure here (out of memory inside
 * oneDNN) cannot be reported through the void forward pass: it aborts
 * rather than return a wrong answer. */
int el__qdense_by_columns(const el__qdense *d) { return d->packed != NULL; }

void el__qdense_run_cols(const el__qdense *d, const uint8_t *a, int32_t *acc, int M,
                         const el__qdeq *deq, int n0, int n1) {
  el__qgemm_cols(d->isa, M, d->N, d->K, a, d->packed, acc, deq, n0, n1);
}

void el__qdense_run(const el__qdense *d, el__qws *ws, int worker, const uint8_t *a, int32_t *acc,
                    int M, const el__qdeq *deq) {
  if (d->packed) {
    el__qgemm(d->isa, M, d->N, d->K, a, d->packed, acc, deq);
    return;
  }
  void *scratch = NULL;
  dnnl_stream_t stream = worker_stream(ws, worker, &scratch);
  dnnl_memory_t src = NULL, dst = NULL, scr = NULL;
  int bad = !stream || wrap(&src, M, d->K, dnnl_u8, (void *)a) ||
            wrap(&dst, M, d->N, dnnl_s32, acc);
  if (!bad && ws->scratch_bytes) {
    dnnl_memory_desc_t md;
    dnnl_dims_t dims = {(dnnl_dim_t)ws->scratch_bytes};
    bad = dnnl_memory_desc_init_by_tag(&md, 1, dims, dnnl_u8, dnnl_a) != dnnl_success ||
          dnnl_memory_create(&scr, &md, g_engine, scratch) != dnnl_success;
  }
  const int nthr = omp_get_max_threads();
  if (nthr != 1) omp_set_num_threads(1);
  if (!bad) {
    dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, d->wmem},
                               {DNNL_ARG_DST, dst}, {DNNL_ARG_SCRATCHPAD, scr}};
    bad = dnnl_primitive_execute(d->prim, stream, scr ? 4 : 3, args) != dnnl_success ||
          dnnl_stream_wait(stream) != dnnl_success;
  }
  if (nthr != 1) omp_set_num_threads(nthr);
  if (src) dnnl_memory_destroy(src);
  if (dst) dnnl_memory_destroy(dst);
  if (scr) dnnl_memory_destroy(scr);
  if (bad) abort();
  if (deq) el__qdeq_apart(deq, acc, M, d->N, 0, d->N);
}

int el__qws_alloc(el__qws **out, int max_tokens, int width, size_t scratch, el_error *err) {
  *out = NULL;
  int rc = get_engine(err);
  if (rc) return rc;
  el__qws *q = calloc(1, sizeof *q);
  const size_t T = (size_t)max_tokens, cells = T * (size_t)width;
  int ok = q != NULL;
  for (int i = 0; ok && i < 2; i++)
    ok = (q->a[i] = aligned_alloc(64, (cells + 63) & ~(size_t)63)) &&
         (q->sa[i] = malloc(sizeof(float) * T)) && (q->za[i] = malloc(sizeof(int32_t) * T));
  if (!ok || !(q->acc = aligned_alloc(64, sizeof(int32_t) * ((cells + 15) & ~(size_t)15)))) {
    el__qws_free(q);
    return el_error_set(err, EL_ENOMEM, "int8: cannot allocate the workspace for %d tokens",
                        max_tokens);
  }
  q->scratch_bytes = scratch;
  void *s0;
  if (!worker_stream(q, 0, &s0)) { /* the caller's, made now: the common case fails early */
    el__qws_free(q);
    return el_error_set(err, EL_ENOMEM, "int8: cannot create a oneDNN stream");
  }
  *out = q;
  return EL_OK;
}

void el__qws_free(el__qws *q) {
  if (!q) return;
  for (int w = 0; w < EL_QWS_WORKERS; w++) {
    if (q->stream[w]) dnnl_stream_destroy(q->stream[w]);
    free(q->wscratch[w]);
  }
  for (int i = 0; i < 2; i++) {
    free(q->a[i]);
    free(q->sa[i]);
    free(q->za[i]);
  }
  free(q->acc);
  free(q);
}

uint8_t *el__qws_act(el__qws *q, int slot, float **sa, int32_t **za, int32_t **acc) {
  *sa = q->sa[slot], *za = q->za[slot], *acc = q->acc;
  return q->a[slot];
}

el__qready *el__qws_ready(el__qws *q) { return &q->ready; }


#else /* no oneDNN: the int8 path is refused at load */

int el__quant_available(void) { return 0; }
int el__qdense_new(const float *w, int N, int K, el__qdense **out, el_error *err) {
  return el__qdense_new_isa(w, N, K, EL__QGEMM_NONE, out, err);
}
int el__qdense_new_isa(const float *w, int N, int K, el__qgemm_isa_t isa, el__qdense **out,
                       el_error *err) {
  (void)w, (void)isa;
  *out = NULL;
  return el_error_set(err, EL_EUNSUPPORTED,
                      "dtype int8 needs oneDNN, and this build has none (install libdnnl-dev and "
                      "rebuild; layer %d x %d)", N, K);
}
void el__qdense_free(el__qdense *d) { (void)d; }
size_t el__qdense_bytes(const el__qdense *d) { (void)d; return 0; }
size_t el__qdense_scratch(const el__qdense *d) { (void)d; return 0; }
const float *el__qdense_scale(const el__qdense *d) { (void)d; return NULL; }
const int32_t *el__qdense_colsum(const el__qdense *d) { (void)d; return NULL; }
void el__qdense_run(const el__qdense *d, el__qws *ws, int worker, const uint8_t *a, int32_t *acc,
                    int M, const el__qdeq *deq) {
  (void)d, (void)ws, (void)worker, (void)a, (void)acc, (void)M, (void)deq;
  abort(); /* unreachable: no el__qdense can exist */
}
int el__qws_alloc(el__qws **out, int max_tokens, int width, size_t scratch, el_error *err) {
  (void)max_tokens, (void)width, (void)scratch;
  *out = NULL;
  return el_error_set(err, EL_EUNSUPPORTED, "dtype int8 needs oneDNN, and this build has none");
}
void el__qws_free(el__qws *q) { (void)q; }
int el__qdense_by_columns(const el__qdense *d) { (void)d; return 0; }
void el__qdense_run_cols(const el__qdense *d, const uint8_t *a, int32_t *acc, int M,
                         const el__qdeq *deq, int n0, int n1) {
  (void)d, (void)a, (void)acc, (void)M, (void)deq, (void)n0, (void)n1;
}
uint8_t *el__qws_act(el__qws *q, int slot, float **sa, int32_t **za, int32_t **acc) {
  (void)q, (void)slot;
  *sa = NULL, *za = NULL, *acc = NULL;
  return NULL;
}
el__qready *el__qws_ready(el__qws *q) {
  (void)q;
  return NULL;
}
#endif
