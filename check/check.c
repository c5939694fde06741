/* The checker's life and one check (check.h): detection, the generator's
 * masked pass, candidates, the verification pass, matches. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "check_internal.h"
#include "support_api.h"

#define DEFAULT_MAX_TOKENS 4096
/* The default suggest_threshold (check.h): replacements for the words the
 * detector is fairly sure of, a misspelling always. On FCE dev (BEA-2019,
 * 2,191 sentences) with the one-hour FCE recipe's model, replaying its
 * verified candidates: corrections F0.5 0.267 at 0.6 and 0.7, 0.261 at 0.8,
 * 0.259 at 0.9 (measured: 0.267 / 0.259; the two-hour recipe's model 0.316
 * / 0.298). Every flag that gets replacements costs the generator's rows
 * and its candidates' sentences: /v2/check on bench_check's paragraph took
 * 3.2x /score's time at 0.7, 2.0-2.2x at 0.8 and 2.05x at 0.9 with the
 * one-hour model, 4.4x and 2.4x at 0.7 and 0.9 with the two-hour one (a few
 * ms a paragraph either way), when every candidate was verified; best-first
 * verification (check_verify.c) now gives 2.2-2.5x and 3.1-3.6x at 0.7.
 * Quality first: 0.7; `--suggest-threshold 0.9` (check, eval) buys the
 * time back. Dev-tuned: expect less on other text. */
#define DEFAULT_SUGGEST 0.7f
/* flagged words corrected together (check_text) */
#define FLAGS_PER_ROUND 64

static int check_models(const el__checker_opts *o, el_error *err) {
  if (!o || !o->detector) return el_error_set(err, EL_EINVAL, "check: no detector model");
  const el_config *d = el_model_config(o->detector);
  if (d->arch != EL_ARCH_PRETRAINING && d->arch != EL_ARCH_TOKEN_CLS)
    return el_error_set(err, EL_EUNSUPPORTED,
                        "check: the detector is %s; it must be ElectraForPreTraining or "
                        "ElectraForTokenClassification", el_arch_name(d->arch));
  if (d->arch == EL_ARCH_TOKEN_CLS && (o->correct_label < 0 || o->correct_label >= d->num_labels))
    return el_error_set(err, EL_EINVAL, "check: correct_label %d is not one of the detector's %d labels",
                        o->correct_label, d->num_labels);
  if (!(o->threshold > 0.0f && o->threshold <= 1.0f))
    return el_error_set(err, EL_EINVAL, "check: threshold %g is not in (0, 1]", (double)o->threshold);
  if (!(o->suggest_threshold >= 0.0f && o->suggest_threshold <= 1.0f))
    return el_error_set(err, EL_EINVAL, "check: suggest_threshold %g is not in [0, 1]",
                        (double)o->suggest_threshold);
  if (o->verifier && o->verifier != o->detector) {
    const el_config *v = el_model_config(o->verifier);
    if (v->arch != d->arch || v->vocab_size != d->vocab_size || v->num_labels != d->num_labels ||
        v->hidden_size != d->hidden_size || v->num_layers != d->num_layers)
      return el_error_set(err, EL_ESHAPE,
                          "check: the verifier (%s, %d layers of %d) is not the detector's checkpoint "
                          "(%s, %d layers of %d): it must be the same model in another dtype",
                          el_arch_name(v->arch), v->num_layers, v->hidden_size,
                          el_arch_name(d->arch), d->num_layers, d->hidden_size);
  }
  if (!o->generator) return 0;
  const el_config *g = el_model_config(o->generator);
  if (g->arch != EL_ARCH_MASKED_LM)
    return el_error_set(err, EL_EUNSUPPORTED, "check: the generator is %s, not ElectraForMaskedLM",
                        el_arch_name(g->arch));
  const el_tokenizer *a = el_model_tokenizer(o->detector), *b = el_model_tokenizer(o->generator);
  int na = el_tokenizer_vocab_size(a), nb = el_tokenizer_vocab_size(b);
  int same = na == nb && g->vocab_size == d->vocab_size;
  for (int i = 0; same && i < na; i += 97) same = !strcmp(el_tokenizer_token(a, i), el_tokenizer_token(b, i));
  if (!same)
    return el_error_set(err, EL_ESHAPE,
                        "check: the generator's vocabulary (%d entries) is not the detector's (%d): "
                        "a generator must share the detector's vocab.txt", nb, na);
  return 0;
}

static int make_workspaces(el__checker *c, el_error *err) {
  const el_config *d = el_model_config(c->o.detector);
  c->max_pos = d->max_position_embeddings;
  if (c->o.generator && el_model_config(c->o.generator)->max_position_embeddings < c->max_pos)
    c->max_pos = el_model_config(c->o.generator)->max_position_embeddings;
  c->max_tokens = c->o.max_tokens > 0 ? c->o.max_tokens : DEFAULT_MAX_TOKENS;
  if (c->max_tokens < c->max_pos) c->max_tokens = c->max_pos;
  c->max_seqs = c->max_tokens / 3 + 1;
  int rc = el_workspace_new(c->o.detector, c->max_tokens, c->max_seqs, &c->ws_det, err);
  if (!rc && c->o.verifier != c->o.detector)
    rc = el_workspace_new(c->o.verifier, c->max_tokens, c->max_seqs, &c->ws_ver, err);
  if (!rc && c->o.generator) rc = el_workspace_new(c->o.generator, c->max_tokens, c->max_seqs, &c->ws_gen, err);
  return rc;
}

int el__checker_new(const el__checker_opts *o, el__checker **out, el_error *err) {
  *out = NULL;
  int rc = check_models(o, err);
  if (rc) return rc;
  el__checker *c = calloc(1, sizeof *c);
  if (!c) return el_error_set(err, EL_ENOMEM, "check: out of memory");
  c->o = *o;
  if (!c->o.verifier) c->o.verifier = o->detector;
  if (!(c->o.suggest_threshold > 0))
    c->o.suggest_threshold = o->threshold > DEFAULT_SUGGEST ? o->threshold : DEFAULT_SUGGEST;
  const el_config *d = el_model_config(o->detector);
  if (d->arch == EL_ARCH_PRETRAINING) c->o.correct_label = -1;
  c->num_labels = d->num_labels;
  c->tok = el_model_tokenizer(o->detector);
  c->vocab = el_tokenizer_vocab_size(c->tok);
  c->lower = el_tokenizer_lower_case(c->tok);
  rc = make_workspaces(c, err);
  c->lang = o->learner, c->dict = o->dict;
  c->owns_lang = !c->lang, c->owns_dict = !c->dict;
  if (!rc && c->owns_lang) rc = el__learner_load(o->wordnet_dir, &c->lang, err);
  if (!rc && c->owns_dict) rc = el__dict_load(o->dict_dir, &c->dict, err);
  if (!rc && o->word_counts) rc = el__word_freq_load(o->word_counts, &c->freq, err);
  if (rc) {
    el__checker_free(c);
    return rc;
  }
  *out = c;
  return 0;
}

const el__check_cost *el__checker_cost(const el__checker *c) {
  return &c->cost;
}

void el__checker_set_picky(el__checker *c, int picky) {
  c->picky = picky != 0;
}

void el__checker_free(el__checker *c) {
  if (!c) return;
  el_workspace_free(c->ws_det);
  el_workspace_free(c->ws_ver);
  el_workspace_free(c->ws_gen);
  if (c->owns_lang) el__learner_free(c->lang);
  if (c->owns_dict) el__dict_free(c->dict);
  el__word_freq_free(c->freq);
  el__strmap_free(&c->accept);
  el_tokens_free(&c->tk);
  el_tokens_free(&c->scratch);
  el__text_words_free(&c->words);
  el__seqs_free(&c->seqs);
  free(c->sents);
  free(c->word_sent);
  free(c->word_p);
  free(c->lm_kind);
  free(c->lm_alt);
  free(c->flags);
  free(c->all_flags);
  free(c->cands);
  free(c->pool);
  free(c->lp);
  free(c->where);
  free(c->prob);
  free(c->logits);
  free(c);
}

/* Tokens, words, sentences and the detection pass: every flag of the
 * text into c->flags. */
static int detect(el__checker *c, const char *text, size_t len, el__dict_variant v,
                  el_error *err) {
  c->text = text;
  c->len = len;
  c->variant = v;
  c->n_flags = 0;
  int rc = el_tokenize_opts(c->tok, text, len, EL_TOKENIZE_SPECIALS_AS_TEXT, &c->tk, err);
  if (!rc) rc = el__text_words_group(text, len, &c->tk, &c->words, err);
  if (!rc) rc = el__check_sentences(c, err);
  if (!rc && c->n_sents) rc = el__check_detect(c, err);
  return rc;
}

int el__check_propose(el__checker *c, const char *text, size_t len, el__dict_variant v,
                      el_error *err) {
  int rc = detect(c, text, len, v, err);
  if (rc || !c->n_flags) return rc;
  if (c->n_flags > FLAGS_PER_ROUND) c->n_flags = FLAGS_PER_ROUND;
  rc = el__check_generate(c, err);
  return rc ? rc : el__check_candidates(c, err);
}

/* The flags go through the generator, candidates, verification and
 * matches FLAGS_PER_ROUND at a time: the generator's rows take
 * 2 x vocabulary floats per flag, which a whole book would not fit. */
static int check_text(el__checker *c, const char *text, size_t len, el__dict_variant v,
                      el__matches *out, el_error *err) {
  int rc = detect(c, text, len, v, err);
  int all = c->n_flags;
  if (rc || !all) return rc;
  if (el__grow((void **)&c->all_flags, &c->all_flags_cap, (size_t)all, sizeof *c->flags))
    return el_error_set(err, EL_ENOMEM, "check: out of memory");
  memcpy(c->all_flags, c->flags, (size_t)all * sizeof *c->flags);
  for (int r = 0; !rc && r < all; r += FLAGS_PER_ROUND) {
    c->n_flags = all - r < FLAGS_PER_ROUND ? all - r : FLAGS_PER_ROUND;
    memcpy(c->flags, c->all_flags + r, (size_t)c->n_flags * sizeof *c->flags);
    rc = el__check_generate(c, err);
    if (!rc) rc = el__check_candidates(c, err);
    if (!rc) rc = el__check_verify(c, err);
    if (!rc) rc = el__check_matches(c, out, err);
  }
  return rc;
}

int el__check_text(el__checker *c, const char *text, size_t len, el__dict_variant v,
                   el__matches *out, el_error *err) {
  el_error local;
  int rc = check_text(c, text, len, v, out, err ? err : &local);
  c->picky = 0; /* el__checker_set_picky holds for one check */
  return rc;
}
