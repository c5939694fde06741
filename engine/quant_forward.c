/* One encoder layer with int8 dense layers: the steps of encoder.c's
 * encoder_layer (infer_internal.h has the layer's equations), each x W^T
 * becoming quantize rows -> int32 product -> dequantize into the same fp32
 * buffer the fp32 path fills, so attention and the fused epilogues of
 * infer_kernels.c are shared unchanged. */
#include <cblas.h>
#undef I /* complex.h (pulled in by cblas.h) defines I */
#include "infer_internal.h"
#include "infer_kernels.h"
#include "quant.h"

/* Quantized activations of one GEMM input, shared by the GEMMs that read it
 * (q, k and v all read x). */
typedef struct qin {
  el__qws *ws;
  uint8_t *a;
  float *sa;
  int32_t *za, *acc;
  int M;
} qin;

static qin quantize(el__qws *ws, const float *x, int M, int K) {
  qin in = {.ws = ws, .M = M};
  in.a = el__qws_act(ws, &in.sa, &in.za, &in.acc);
  el__quant_rows(in.a, in.sa, in.za, x, M, K);
  return in;
}

/* out (= or +=) in x W^T, dequantized. */
static void qgemm(float *out, const qin *in, const el__qdense *d, int N, int accumulate) {
  el__qdense_run(d, in->ws, in->a, in->acc, in->M);
  el__dequant(out, in->acc, in->sa, in->za, el__qdense_scale(d), el__qdense_colsum(d), in->M, N,
              accumulate);
}

void el__quant_layer(const el_model *m, int l, el_workspace *ws, float *x, const int *seq_len,
                     int n_seqs, int Tc) {
  const el__layer_w *lw = &m->w.layer[l];
  const el__qlayer *ql = &m->q->layer[l];
  const int H = ws->H, In = ws->inter;
  const float eps = m->cfg.layer_norm_eps;
  float *ctx = ws->ctx;
  float *q = ws->big, *k = q + (size_t)Tc * H, *v = k + (size_t)Tc * H;
  qin in = quantize(ws->q, x, Tc, H);
  qgemm(q, &in, ql->q, H, 0);
  qgemm(k, &in, ql->k, H, 0);
  qgemm(v, &in, ql->v, H, 0);
  el__attention(ctx, q, k, v, lw->q.b, lw->k.b, lw->v.b, seq_len, n_seqs, H, ws->nh, ws->att);
  in = quantize(ws->q, ctx, Tc, H);
  qgemm(x, &in, ql->attn_out, H, 1);
  el__bias_layernorm(x, lw->attn_out.b, lw->attn_ln.g, lw->attn_ln.b, Tc, H, eps);
  float *f = ws->big;
  in = quantize(ws->q, x, Tc, H);
  qgemm(f, &in, ql->inter, In, 0);
  el__bias_gelu(f, lw->inter.b, Tc, In);
  in = quantize(ws->q, f, Tc, In);
  qgemm(x, &in, ql->out, H, 1);
  el__bias_layernorm(x, lw->out.b, lw->out_ln.g, lw->out_ln.b, Tc, H, eps);
}

int el__quant_blas_single(void) {
  int prev = openblas_get_num_threads();
  if (prev != 1) openblas_set_num_threads(1);
  return prev;
}

void el__quant_blas_restore(int prev) {
  if (prev != 1) openblas_set_num_threads(prev);
}
