/* The fp32 inference layout of the encoder's and the heads' dense weights
 * (el__layer_dense, el__head_dense; an int8 model's heads alone), set once at load,
 * in place (the same floats, so a loaded model's memory does not grow):
 *  - packed panels (infer_gemm.h) when the CPU runs one of the engine's own
 *    kernels (AVX2 + FMA or AVX-512F): a product then copies nothing. On an
 *    AVX-512 EPYC, one thread, weights in cache: 1.7-2.1x OpenBLAS 0.3.21's
 *    product at 64-512 rows (OpenBLAS runs its AVX2 kernel there), the AVX2
 *    kernel 1.00-1.06x; a whole forward pass 1.6x and 1.0-1.05x (RESULTS.md);
 *  - else [in,out], each W transposed from HF's [out,in], so every OpenBLAS
 *    product is x W with both operands row-major (NoTrans, NoTrans), which
 *    OpenBLAS packs faster than a transposed W (2-14 % less time per
 *    product at 64-128 rows, no change at 2,048). */
#include <stdlib.h>
#include <string.h>
#include "infer_gemm.h"
#include "model_internal.h"

/* w [rows,cols] -> [cols,rows] in place, through scratch of rows*cols floats. */
static void transpose(float *w, float *scratch, int rows, int cols) {
  memcpy(scratch, w, sizeof(float) * (size_t)rows * cols);
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) w[(size_t)c * rows + r] = scratch[(size_t)r * cols + c];
}

/* w [rows,cols] (HF [out,in]) -> packed panels in place, through scratch. */
static void pack(float *w, float *scratch, int rows, int cols) {
  memcpy(scratch, w, sizeof(float) * (size_t)rows * cols);
  el__gemm_pack(w, scratch, rows, cols);
}

/* A generator's output layer (ElectraForMaskedLM): its dense layer packed in
 * place, and a packed copy of the vocabulary matrix (tied to the word
 * embeddings, which the lookup reads as they are). OpenBLAS packed that
 * matrix on every el_run_mlm call: ~16 % of a grammar check's time with the
 * recipe's generator (perf, /v2/check on a 228-word paragraph). The copy is
 * V x E floats (4 MB for the recipe's, 16 MB for a hub small generator);
 * past LM_PACK_MAX floats (a base or large generator) OpenBLAS keeps it. */
#define LM_PACK_MAX ((size_t)1 << 23)
static int pack_lm_head(el_model *m, el_error *err) {
  const int H = m->cfg.hidden_size, E = m->cfg.embedding_size, V = m->cfg.vocab_size;
  el__dense_w *g = &m->w.gen_dense;
  float *scratch = malloc(sizeof(float) * (size_t)E * H);
  if (!scratch) return el_error_set(err, EL_ENOMEM, "%s: out of memory (weight layout)", m->dir);
  pack(g->w, scratch, E, H);
  g->layout = EL__W_PACKED;
  free(scratch);
  if ((size_t)V * E > LM_PACK_MAX) return EL_OK;
  m->lm_packed = malloc(sizeof(float) * (size_t)V * E);
  if (!m->lm_packed) return el_error_set(err, EL_ENOMEM, "%s: out of memory (weight layout)", m->dir);
  el__gemm_pack(m->lm_packed, m->w.lm_w, V, E);
  return EL_OK;
}

/* The n weights d ([out, in] each) into layout to, in place. */
static void relayout(const el__dense_w *const *d, const int *out, const int *in, int n,
                     el__wlayout to, float *scratch) {
  for (int k = 0; k < n; k++) {
    el__dense_w *dw = (el__dense_w *)d[k]; /* m->w is ours to change */
    (to == EL__W_PACKED ? pack : transpose)(dw->w, scratch, out[k], in[k]);
    dw->layout = to;
  }
}

int el__infer_layout(el_model *m, int layers, el_error *err) {
  const int H = m->cfg.hidden_size, I = m->cfg.intermediate_size;
  const el__wlayout to = el__gemm_isa() != EL__GEMM_NONE ? EL__W_PACKED : EL__W_IN_OUT;
  int widest = H; /* every weight here is [H, x] or [x, H] */
  const int other[3] = {I, m->cfg.embedding_size, m->cfg.num_labels};
  for (int k = 0; k < 3; k++) widest = other[k] > widest ? other[k] : widest;
  float *scratch = malloc(sizeof(float) * (size_t)H * (size_t)widest);
  if (!scratch) return el_error_set(err, EL_ENOMEM, "%s: out of memory (weight layout)", m->dir);
  _Static_assert(EL__LAYER_DENSE >= EL__HEAD_DENSE, "d holds a layer's or the heads' weights");
  const el__dense_w *d[EL__LAYER_DENSE];
  int out[EL__LAYER_DENSE], in[EL__LAYER_DENSE];
  for (int l = 0; layers && l < m->cfg.num_layers; l++) {
    el__layer_dense(&m->cfg, &m->w.layer[l], d, out, in);
    relayout(d, out, in, EL__LAYER_DENSE, to, scratch);
  }
  relayout(d, out, in, el__head_dense(&m->cfg, &m->w, d, out, in), to, scratch);
  free(scratch);
  return m->cfg.arch == EL_ARCH_MASKED_LM && to == EL__W_PACKED ? pack_lm_head(m, err) : EL_OK;
}
