/* A model's checker and generator (srv_checker.h). */
#include "srv_checker.h"

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "srv_lang.h"

/* The generator's directory: the option's, else the model directory's own
 * (el__checker_generator_dir); "" for none. */
static void generator_dir_of(const el__model_entry *e, const char *option, char *out,
                             size_t cap) {
  out[0] = 0;
  if (option && option[0]) snprintf(out, cap, "%s", option);
  else if (!el__checker_generator_dir(e->dir, out, cap)) out[0] = 0;
}

static int load_generator(el__model_entry *e, const char *dir) {
  el_error er = {0};
  el_load_options lo = {.dtype = EL_DTYPE_FP32};
  if (el_model_load_opts(dir, &lo, &e->generator, &er)) {
    snprintf(e->check_err, sizeof e->check_err, "generator %s: %s", dir, er.msg);
    return -1;
  }
  if (el_model_config(e->generator)->arch != EL_ARCH_MASKED_LM) {
    snprintf(e->check_err, sizeof e->check_err, "generator %s is %s, not ElectraForMaskedLM",
             dir, el_arch_name(el_model_config(e->generator)->arch));
    return -1;
  }
  return 0;
}

/* The detector again in the verification pass's dtype, when it is not the
 * detector's own (el__check_verifier_load). */
static int load_verifier(el__model_entry *e, int verify_dtype) {
  el_error er = {0};
  if (el__check_verifier_load(e->dir, e->model, verify_dtype, &e->verifier, &er)) {
    snprintf(e->check_err, sizeof e->check_err, "the verifier of %s: %s", e->dir, er.msg);
    return -1;
  }
  return 0;
}

void el__srv_checker_attach(el__model_entry *e, const char *generator_option, int verify_dtype) {
  e->check_err[0] = 0;
  if (e->task != EL_TASK_SCORE) return;
  char gdir[1100], counts[1200];
  generator_dir_of(e, generator_option, gdir, sizeof gdir);
  if ((gdir[0] && load_generator(e, gdir) < 0) || load_verifier(e, verify_dtype) < 0) {
    el__srv_checker_detach(e);
    return;
  }
  el_error er = {0};
  el__checker_opts o = {
      .detector = e->model,
      .generator = e->generator,
      .verifier = e->verifier,
      .threshold = (float)e->threshold,
      .rule = e->cfg->score_rule,
      .correct_label = e->correct_label,
      .word_counts = el__checker_word_counts(e->dir, gdir[0] ? gdir : NULL, counts, sizeof counts),
      .ngram = e->ngram, /* a model read beside the n-gram model: its corrections too */
  };
  el__checker *c = NULL;
  if (el__srv_lang_learner(&o.learner, &er) || el__srv_lang_dict(&o.dict, &er) ||
      el__checker_new(&o, &c, &er)) {
    snprintf(e->check_err, sizeof e->check_err, "no grammar checker for model \"%s\": %s",
             e->name, er.msg);
    el__srv_checker_detach(e);
    return;
  }
  e->checker = c;
}

void el__srv_checker_detach(el__model_entry *e) {
  el__checker_free(e->checker);
  e->checker = NULL;
  el_model_free(e->generator);
  e->generator = NULL;
  el_model_free(e->verifier);
  e->verifier = NULL;
}
