/* An int8 model (quant.h): the quantized copy of every encoder dense layer,
 * built once at load, and the fp32 copies' pages given back to the system
 * (the parameter block is anonymous memory, model.c), so a loaded int8
 * model keeps only the int8 weights of those layers resident. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "infer_internal.h"
#include "quant.h"

/* The int32 accumulator holds K products of at most 255 * EL_QUANT_WMAX. */
#define EL_QUANT_MAX_K (1 << 16)

/* Gives the whole pages inside [p, p + floats) back to the system. The
 * range is never read again (its pointer is cleared), so the zero pages a
 * stray read would see cannot go unnoticed: the NULL pointer faults first. */
static size_t release(float *p, size_t floats) {
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1);
  uintptr_t hi = ((uintptr_t)(p + floats)) & ~(page - 1);
  if (hi <= lo) return 0;
  if (madvise((void *)lo, hi - lo, MADV_DONTNEED) != 0) return 0;
  return (hi - lo) / sizeof(float);
}

static int quant_dense(el_model *m, el__dense_w *dw, int N, int K, el__qdense **out,
                       el_error *err) {
  int rc = el__qdense_new(dw->w, N, K, out, err);
  if (rc) return rc;
  m->q->bytes += el__qdense_bytes(*out);
  if (m->owned_map_len) m->released_floats += release(dw->w, (size_t)N * K);
  dw->w = NULL;
  return EL_OK;
}

/* The word embeddings to int8 per row; their fp32 pages are released. */
static int quant_word(el_model *m, el_error *err) {
  const int V = m->cfg.vocab_size, E = m->cfg.embedding_size;
  el__qmodel *q = m->q;
  if (!(q->word = malloc((size_t)V * E)) || !(q->word_scale = malloc(sizeof(float) * V)))
    return el_error_set(err, EL_ENOMEM, "dtype int8: out of memory for the word embeddings");
  el__quant_weights(q->word, q->word_scale, NULL, m->w.word, V, E, 127);
  q->bytes += (size_t)V * E + sizeof(float) * V;
  if (m->owned_map_len) m->released_floats += release(m->w.word, (size_t)V * E);
  m->w.word = NULL;
  return EL_OK;
}

/* oneDNN writes its int8 kernels at run time into memory it then executes.
 * A process denied writable+executable mappings (systemd's
 * MemoryDenyWriteExecute=yes, a seccomp filter; the kernel's PR_SET_MDWE)
 * gets only oneDNN's "runtime_error" from the first reorder: asking for one
 * such page first gives the reason instead. The engine's own kernels
 * (quant_gemm.h, AVX2 or AVX-512 VNNI) are compiled ahead and need no such
 * page: only oneDNN's are asked about. */
static int jit_memory_allowed(el_error *err) {
  if (el__qgemm_isa() != EL__QGEMM_NONE) return EL_OK;
  void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p != MAP_FAILED) {
    munmap(p, 4096);
    return EL_OK;
  }
  return el_error_set(err, EL_EUNSUPPORTED,
                      "dtype int8: oneDNN builds its int8 kernels at run time, and this process "
                      "may not map writable and executable memory (systemd's "
                      "MemoryDenyWriteExecute=yes, or prctl PR_SET_MDWE), and the engine's own "
                      "int8 kernels are not in use (ELECTRA_QGEMM=onednn, or a CPU without "
                      "AVX2): allow it for int8 (deploy/electra-server-int8.conf is the systemd "
                      "drop-in) or serve fp32");
}

int el__quant_build(el_model *m, el_error *err) {
  const el_config *c = &m->cfg;
  const int H = c->hidden_size, I = c->intermediate_size;
  int jit = jit_memory_allowed(err);
  if (jit) return jit;
  if (H > EL_QUANT_MAX_K || I > EL_QUANT_MAX_K)
    return el_error_set(err, EL_EUNSUPPORTED,
                        "dtype int8: hidden_size %d / intermediate_size %d above %d would "
                        "overflow the int32 accumulator", H, I, EL_QUANT_MAX_K);
  if (!(m->q = calloc(1, sizeof *m->q)))
    return el_error_set(err, EL_ENOMEM, "dtype int8: out of memory");
  m->q->num_layers = c->num_layers;
  int rc = EL_OK;
  for (int l = 0; l < c->num_layers && !rc; l++) {
    el__layer_w *lw = &m->w.layer[l];
    el__qlayer *ql = &m->q->layer[l];
    if ((rc = quant_dense(m, &lw->q, H, H, &ql->q, err)) ||
        (rc = quant_dense(m, &lw->k, H, H, &ql->k, err)) ||
        (rc = quant_dense(m, &lw->v, H, H, &ql->v, err)) ||
        (rc = quant_dense(m, &lw->attn_out, H, H, &ql->attn_out, err)) ||
        (rc = quant_dense(m, &lw->inter, I, H, &ql->inter, err)) ||
        (rc = quant_dense(m, &lw->out, H, I, &ql->out, err)))
      break;
  }
  if (!rc && c->arch == EL_ARCH_PRETRAINING)
    rc = quant_dense(m, &m->w.disc_dense, H, H, &m->q->disc_dense, err);
  if (!rc && c->arch != EL_ARCH_MASKED_LM) rc = quant_word(m, err);
  m->dtype = EL_DTYPE_INT8;
  return rc; /* on failure the caller frees m, and with it m->q */
}

void el__quant_free(el__qmodel *q) {
  if (!q) return;
  for (int l = 0; l < q->num_layers; l++) {
    el__qlayer *ql = &q->layer[l];
    el__qdense *all[6] = {ql->q, ql->k, ql->v, ql->attn_out, ql->inter, ql->out};
    for (int i = 0; i < 6; i++) el__qdense_free(all[i]);
  }
  el__qdense_free(q->disc_dense);
  free(q->word);
  free(q->word_scale);
  free(q);
}

int el__qws_new(const el_model *m, int max_tokens, el__qws **out, el_error *err) {
  const el__qmodel *q = m->q;
  size_t scratch = 0;
  for (int l = 0; l < q->num_layers; l++) {
    const el__qlayer *ql = &q->layer[l];
    const el__qdense *all[6] = {ql->q, ql->k, ql->v, ql->attn_out, ql->inter, ql->out};
    for (int i = 0; i < 6; i++)
      if (el__qdense_scratch(all[i]) > scratch) scratch = el__qdense_scratch(all[i]);
  }
  if (q->disc_dense && el__qdense_scratch(q->disc_dense) > scratch)
    scratch = el__qdense_scratch(q->disc_dense);
  const int H = m->cfg.hidden_size, I = m->cfg.intermediate_size;
  return el__qws_alloc(out, max_tokens, H > I ? H : I, scratch, err);
}
