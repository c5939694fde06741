/* The trainer's one way into the engine (internal, not installed).
 *
 * train/ is compiled with include/, nn/, common/, train/ and `-iquote
 * engine/internal` -- this folder holds only this header -- so a trainer file
 * cannot include any other engine header by name. What the trainer may use of
 * the engine beyond the public API in include/electra/:
 *
 *   weights view   el__weights / el__tensor_spec, el__tensor_specs,
 *                  el__weights_numel, el__weights_point    (weights.h)
 *                  struct el_model's fields: cfg, w, tok   (model_internal.h)
 *   config         el__config_load / copy / write / free / check (config.h)
 *   checkpoints    el__checkpoint_save, el__safetensors_save  (checkpoint.h)
 *   files          el__read_file, el__write_file, el__write_atomic,
 *                  el__atomic_begin / commit / abort,
 *                  el__mkdirs, el__prepare_output, ...       (fileio.h)
 *   memory         el__grow, the growable-array helper         (grow.h)
 *   text           the BasicTokenizer's word splitting (el__basic_text),
 *                  the special tokens' text, UTF-8 encoding (tok_basic.h,
 *                  tok_utf8.h), so the vocabulary builder splits words as
 *                  the engine does
 *
 * Adding to this list is a decision about the engine's boundary: prefer a
 * public function in include/electra/ when the server could use it too. */
#ifndef EL_TRAINER_API_H
#define EL_TRAINER_API_H

#include "../checkpoint.h"
#include "../config.h"
#include "../fileio.h"
#include "../grow.h"
#include "../model_internal.h"
#include "../tok_basic.h"
#include "../tok_utf8.h"
#include "../weights.h"

#endif
