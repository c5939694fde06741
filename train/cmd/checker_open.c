/* Opening a checker over model directories (checker_open.h). */
#include "checker_open.h"

#include <stdio.h>
#include <string.h>

int el__checker_open(const el__checker_args *a, el__checker_set *out, el_error *err) {
  memset(out, 0, sizeof *out);
  char buf[4096], counts[4200];
  const char *gdir = a->generator ? a->generator : el__checker_generator_dir(a->model, buf, sizeof buf);
  el_load_options lo = {.dtype = (el_dtype)a->dtype};
  int rc = el_model_load_opts(a->model, &lo, &out->det, err);
  if (!rc && gdir) rc = el_model_load(gdir, &out->gen, err);
  if (!rc) rc = el__check_verifier_load(a->model, out->det, a->verify_dtype, &out->ver, err);
  if (rc) return rc;
  const el_config *cfg = el_model_config(out->det);
  el__checker_opts o = {.detector = out->det, .generator = out->gen, .verifier = out->ver, .rule = cfg->score_rule,
                        .correct_label = -1, .dict_dir = a->dict_dir,
                        .word_counts = el__checker_word_counts(a->model, gdir, counts, sizeof counts)};
  /* the threshold /score flags at: the combination's for a model read beside
   * hunspell (the checker adds the dictionary's rejections itself) */
  o.threshold = a->threshold >= 0 ? (float)a->threshold : el_score_threshold(cfg, 1);
  o.suggest_threshold = a->suggest_threshold >= 0 ? (float)a->suggest_threshold : 0.0f;
  if (cfg->arch == EL_ARCH_TOKEN_CLS &&
      (rc = el_correct_label(cfg->id2label, cfg->num_labels, a->correct, &o.correct_label, err)))
    return rc;
  if (cfg->score_dictionary_ngram && (rc = el__ngram_load(NULL, &out->ngram, err))) return rc;
  o.ngram = out->ngram;
  return el__checker_new(&o, &out->checker, err);
}

void el__checker_close(el__checker_set *s) {
  el__checker_free(s->checker);
  el_model_free(s->gen);
  el_model_free(s->det);
  el_model_free(s->ver);
  el__ngram_free(s->ngram);
  memset(s, 0, sizeof *s);
}
