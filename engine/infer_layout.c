/* The fp32 inference layout of the encoder's dense weights: each W is
 * transposed in place from HF's [out,in] to [in,out] once at load, so every
 * product is x W with both operands row-major (cblas NoTrans, NoTrans).
 * OpenBLAS packs such a W into its panels faster than a transposed one, and
 * with one sequence (128 rows) that packing is a large share of each product:
 * measured 2-14 % less time per product at 64-128 rows, no change at 2,048. */
#include <stdlib.h>
#include <string.h>
#include "model_internal.h"

/* w [rows,cols] -> [cols,rows] in place, through scratch of rows*cols floats. */
static void transpose(float *w, float *scratch, int rows, int cols) {
  memcpy(scratch, w, sizeof(float) * (size_t)rows * cols);
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) w[(size_t)c * rows + r] = scratch[(size_t)r * cols + c];
}

int el__infer_layout(el_model *m, el_error *err) {
  const int H = m->cfg.hidden_size, I = m->cfg.intermediate_size;
  float *scratch = malloc(sizeof(float) * (size_t)H * (H > I ? H : I));
  if (!scratch) return el_error_set(err, EL_ENOMEM, "%s: out of memory (weight layout)", m->dir);
  const el__dense_w *d[EL__LAYER_DENSE];
  int out[EL__LAYER_DENSE], in[EL__LAYER_DENSE];
  for (int l = 0; l < m->cfg.num_layers; l++) {
    el__layer_dense(&m->cfg, &m->w.layer[l], d, out, in);
    for (int k = 0; k < EL__LAYER_DENSE; k++) {
      el__dense_w *dw = (el__dense_w *)d[k]; /* m->w is ours to change */
      transpose(dw->w, scratch, out[k], in[k]);
      dw->in_out = 1;
    }
  }
  free(scratch);
  return EL_OK;
}
