/* Internal: the layout of a loaded model (include/electra/model.h keeps it
 * opaque). Shared by the loader (model.c), the forward pass and the trainer.
 *
 * Memory: `map` is a read-only mmap of model.safetensors (map_len bytes).
 * Aligned F32 tensors point straight into it. Every tensor that had to be
 * converted (F16, BF16, or F32 at an offset not aligned to 4 bytes) lives in
 * `owned`, one allocation of owned_floats floats. A tied generator_lm_head
 * weight points at w.word. Everything here is released by el_model_free;
 * after loading, the model is read-only and safe to share between threads. */
#ifndef EL_MODEL_INTERNAL_H
#define EL_MODEL_INTERNAL_H

#include <stddef.h>
#include "electra/model.h"
#include "electra/tokenizer.h"
#include "weights.h"

struct el_model {
  el_config cfg;     /* owns its strings (id2label) */
  el_weights w;      /* pointers into map or owned */
  el_tokenizer *tok; /* owned */
  void *map;         /* mmap of model.safetensors, or NULL */
  size_t map_len;
  float *owned;      /* converted tensors, or NULL */
  size_t owned_floats;
  size_t n_params;   /* floats of all tensors (tied lm weight counted once) */
  char *dir;         /* owned copy of the directory path */
};

#endif
