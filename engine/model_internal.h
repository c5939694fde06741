/* Internal: the layout of a loaded model (include/electra/model.h keeps it
 * opaque). Shared by the loader (model.c), the forward pass and the trainer.
 *
 * Memory: every parameter lives in `owned`, one block of owned_floats floats
 * that the model owns (read from model.safetensors, F16/BF16 converted; the
 * file is neither mapped nor kept open, so changing it cannot change or
 * crash a loaded model). The loader maps the block as anonymous pages
 * (owned_map_len bytes, munmap'd); a block built another way (tests) has
 * owned_map_len 0 and is free()d. A tied generator_lm_head weight points at
 * w.word. Everything here is released by el_model_free; after loading, the
 * model is read-only and safe to share between threads. */
#ifndef EL_MODEL_INTERNAL_H
#define EL_MODEL_INTERNAL_H

#include <stddef.h>
#include "electra/model.h"
#include "electra/tokenizer.h"
#include "weights.h"

struct el_model {
  el_config cfg;     /* owns its strings (id2label) */
  el__weights w;      /* pointers into owned */
  el_tokenizer *tok; /* owned */
  float *owned;      /* every parameter, or NULL */
  size_t owned_floats;
  size_t owned_map_len; /* bytes mapped for owned; 0: owned came from malloc */
  size_t n_params;   /* floats of all tensors (tied lm weight counted once) */
  char *dir;         /* owned copy of the directory path */
  el_dtype dtype;    /* EL_DTYPE_INT8: q holds the dense layers (quant.h) */
  struct el__qmodel *q; /* owned; NULL for fp32 */
  size_t released_floats; /* fp32 dense weights released after quantizing */
  float *lm_packed;  /* owned: a MASKED_LM's lm_w [V,E] in packed panels (infer_layout.c), or NULL */
};

/* Puts the dense weights in place into the inference layout
 * (el__dense_w.layout), once, at load (infer_layout.c): the heads' and the
 * embeddings' projection always, the encoder layers' too when layers is
 * set (an int8 model's layers are quantized instead, quant.h). */
int el__infer_layout(el_model *m, int layers, el_error *err);

/* el_model_load for code that reads the weights themselves (the trainer's
 * --init, the loader's tests): an fp32 model with every tensor in the file's
 * (HF) layout, which inference also accepts, only slower. */
int el__model_load_hf(const char *dir, el_model **out, el_error *err);

#endif
