/* The sentence-level driver: how many errors, which families, the output
 * (learner.h). */
#include <stdlib.h>
#include <string.h>
#include "learner_internal.h"

/* Default mix. The numbers are the shares (%) of the ERRANT edit types among
 * the 3,529 edits of the FCE dev set (docs/MODEL.md §11) that these families
 * imitate; they are renormalised over the modelled types, which cover ~63 %
 * of FCE's edits. Lexical choice (R:OTHER, R:VERB, R:NOUN, ~20 %), R:MORPH
 * and the rarer types are left out: replaced-token detection with a
 * generator already produces wrong-word errors. WORD_EXTRA stands for the
 * unnecessary pronouns, verbs and other words below the table's 1.3 %
 * threshold (an estimate: 1.0). */
static const struct {
  const char *name;
  double share;
  el__lfam_fn fn;
} FAMILIES[EL__LF_COUNT] = {
    [EL__LF_DET_MISSING] = {"M:DET", 6.5, el__lf_det_missing},
    [EL__LF_DET_WRONG] = {"R:DET", 2.1, el__lf_det_wrong},
    [EL__LF_DET_EXTRA] = {"U:DET", 2.6, el__lf_det_extra},
    [EL__LF_PREP_WRONG] = {"R:PREP", 5.8, el__lf_prep_wrong},
    [EL__LF_PREP_MISSING] = {"M:PREP", 3.0, el__lf_prep_missing},
    [EL__LF_PREP_EXTRA] = {"U:PREP", 1.7, el__lf_prep_extra},
    [EL__LF_PUNCT_MISSING] = {"M:PUNCT", 5.8, el__lf_punct_missing},
    [EL__LF_PUNCT_WRONG] = {"R:PUNCT", 3.2, el__lf_punct_wrong},
    [EL__LF_PUNCT_EXTRA] = {"U:PUNCT", 1.4, el__lf_punct_extra},
    [EL__LF_VERB_TENSE] = {"R:VERB:TENSE", 3.9, el__lf_verb_tense},
    [EL__LF_VERB_FORM] = {"R:VERB:FORM", 2.3, el__lf_verb_form},
    [EL__LF_VERB_SVA] = {"R:VERB:SVA", 1.3, el__lf_verb_sva},
    [EL__LF_AUX_MISSING] = {"M:VERB:TENSE", 1.4, el__lf_aux_missing},
    [EL__LF_NOUN_NUM] = {"R:NOUN:NUM", 3.7, el__lf_noun_num},
    [EL__LF_SPELL] = {"R:SPELL", 9.9, el__lf_spell},
    [EL__LF_ORTH] = {"R:ORTH", 2.9, el__lf_orth},
    [EL__LF_WORD_ORDER] = {"R:WO", 2.2, el__lf_word_order},
    [EL__LF_PRON_MISSING] = {"M:PRON", 2.3, el__lf_pron_missing},
    [EL__LF_WORD_EXTRA] = {"U:OTHER", 1.0, el__lf_word_extra},
};

/* Draws of families for one error before giving up on the sentence: a
 * family with no place in it is replaced by another draw. */
#define MAX_DRAWS 24

const char *el__lfam_name(int f) { return f >= 0 && f < EL__LF_COUNT ? FAMILIES[f].name : NULL; }

static double share_of(const el__learner *l, int f) {
  return l && l->custom_share ? l->share[f] : FAMILIES[f].share;
}

static double total_share(const el__learner *l) {
  double t = 0;
  for (int f = 0; f < EL__LF_COUNT; f++) t += share_of(l, f);
  return t;
}

/* FAMILIES' shares are those of FCE's edit types, in %: the families in use
 * imitate this share of all learner errors. */
double el__learner_coverage(const el__learner *l) {
  double c = 0;
  for (int f = 0; f < EL__LF_COUNT; f++)
    if (share_of(l, f) > 0) c += FAMILIES[f].share;
  return c / 100.0;
}

double el__lfam_weight(int f) {
  return f >= 0 && f < EL__LF_COUNT ? FAMILIES[f].share / total_share(NULL) : 0.0;
}

void el__learner_set_share(el__learner *l, int family, double share) {
  if (family < 0 || family >= EL__LF_COUNT || !(share >= 0)) return;
  if (!l->custom_share)
    for (int f = 0; f < EL__LF_COUNT; f++) l->share[f] = FAMILIES[f].share;
  l->custom_share = 1;
  l->share[family] = share;
}

int el__lfam_by_name(const char *name) {
  for (int f = 0; f < EL__LF_COUNT; f++)
    if (!strcmp(FAMILIES[f].name, name)) return f;
  return -1;
}

/* One "NAME=FACTOR" item of a mix, [s, end). */
static int parse_mix_item(const char *s, const char *end, int *family, double *factor,
                          el_error *err) {
  const char *eq = memchr(s, '=', (size_t)(end - s));
  char name[32], num[32];
  if (!eq || eq == s || eq - s >= (long)sizeof name || end - eq - 1 <= 0 ||
      end - eq - 1 >= (long)sizeof num)
    return el_error_set(err, EL_EINVAL, "error mix: '%.*s' is not TYPE=FACTOR (e.g. R:SPELL=0.5)",
                        (int)(end - s), s);
  memcpy(name, s, (size_t)(eq - s));
  name[eq - s] = 0;
  memcpy(num, eq + 1, (size_t)(end - eq - 1));
  num[end - eq - 1] = 0;
  if ((*family = el__lfam_by_name(name)) < 0)
    return el_error_set(err, EL_EINVAL, "error mix: unknown error type '%s' (electra-train corrupt --help lists them)", name);
  char *rest;
  *factor = strtod(num, &rest);
  if (*rest || !(*factor >= 0) || *factor > 1e6)
    return el_error_set(err, EL_EINVAL, "error mix: factor '%s' of %s is not a number >= 0", num, name);
  return EL_OK;
}

int el__learner_apply_mix(el__learner *l, const char *mix, el_error *err) {
  double share[EL__LF_COUNT], total = 0;
  for (int f = 0; f < EL__LF_COUNT; f++) share[f] = share_of(l, f);
  for (const char *s = mix; s && *s;) {
    const char *end = strchr(s, ',');
    if (!end) end = s + strlen(s);
    int family = -1;
    double factor = 1;
    int rc = parse_mix_item(s, end, &family, &factor, err);
    if (rc) return rc;
    share[family] *= factor;
    s = *end ? end + 1 : end;
  }
  for (int f = 0; f < EL__LF_COUNT; f++) total += share[f];
  if (!(total > 0)) return el_error_set(err, EL_EINVAL, "error mix '%s' turns every error type off", mix);
  for (int f = 0; f < EL__LF_COUNT; f++) el__learner_set_share(l, f, share[f]);
  return EL_OK;
}

static int draw_family(const el__learner *l, uint64_t *rng) {
  double u = el__lr_unif(rng) * total_share(l);
  for (int f = 0; f < EL__LF_COUNT; f++) {
    if (u < share_of(l, f)) return f;
    u -= share_of(l, f);
  }
  return EL__LF_COUNT - 1;
}

/* Sizes out's scratch for n words plus `extra` insertions and loads the
 * words into it. */
static int start(const el__learner *l, const char *const *words, int n, int extra,
                 el__learner_out *out, el__lsent *s, el_error *err) {
  int cap = n + extra + 1;
  if (cap > out->cap_work) {
    el__lw *w = realloc(out->work, (size_t)cap * sizeof *w);
    if (!w) return el_error_set(err, EL_ENOMEM, "learner: out of memory");
    out->work = w;
    int *st = realloc(out->sites, (size_t)(2 * cap) * sizeof *st);
    if (!st) return el_error_set(err, EL_ENOMEM, "learner: out of memory");
    out->sites = st;
    out->cap_work = cap;
  }
  s->l = l;
  s->w = out->work;
  s->sites = out->sites;
  s->cap = cap;
  s->n = n;
  for (int i = 0; i < n; i++) el__lw_set(l, &s->w[i], words[i], NULL);
  out->n_edits = 0;
  memset(out->family_edits, 0, sizeof out->family_edits);
  return EL_OK;
}

/* Copies the edited words into out's storage. */
static int finish(const el__lsent *s, el__learner_out *out, el_error *err) {
  size_t bytes = 0;
  for (int i = 0; i < s->n; i++) bytes += strlen(el__lw_str(&s->w[i])) + 1;
  if (bytes > out->cap_text) {
    char *t = realloc(out->text, bytes);
    if (!t) return el_error_set(err, EL_ENOMEM, "learner: out of memory");
    out->text = t;
    out->cap_text = bytes;
  }
  if (s->n > out->cap_words) {
    char **w = realloc(out->words, (size_t)s->n * sizeof *w);
    if (!w) return el_error_set(err, EL_ENOMEM, "learner: out of memory");
    out->words = w;
    uint8_t *lab = realloc(out->labels, (size_t)s->n);
    if (!lab) return el_error_set(err, EL_ENOMEM, "learner: out of memory");
    out->labels = lab;
    out->cap_words = s->n;
  }
  size_t at = 0;
  for (int i = 0; i < s->n; i++) {
    const char *t = el__lw_str(&s->w[i]);
    size_t k = strlen(t) + 1;
    memcpy(out->text + at, t, k);
    out->words[i] = out->text + at;
    out->labels[i] = s->w[i].label;
    at += k;
  }
  out->n = s->n;
  return EL_OK;
}

static int check_args(const char *const *words, int n, el__learner_out *out, el_error *err) {
  if (n < 0 || (n > 0 && !words) || !out)
    return el_error_set(err, EL_EINVAL, "learner: bad sentence (%d words)", n);
  for (int i = 0; i < n; i++)
    if (!words[i] || !words[i][0])
      return el_error_set(err, EL_EINVAL, "learner: word %d is empty", i);
  return EL_OK;
}

static int apply(el__lsent *s, int f, uint64_t *rng, el__learner_out *out) {
  if (!FAMILIES[f].fn(s, rng)) return 0;
  out->n_edits++;
  out->family_edits[f]++;
  return 1;
}

/* One error of a drawn family, drawing again while the family finds no
 * place in the sentence. */
static void one_error(el__lsent *s, uint64_t *rng, el__learner_out *out) {
  for (int d = 0; d < MAX_DRAWS; d++)
    if (apply(s, draw_family(s->l, rng), rng, out)) return;
}

int el__learner_corrupt(const el__learner *l, const char *const *words, int n, double rate,
                        uint64_t *rng, el__learner_out *out, el_error *err) {
  int rc = check_args(words, n, out, err);
  if (rc) return rc;
  if (!(rate >= 0.0 && rate <= 1.0))
    return el_error_set(err, EL_EINVAL, "learner: error rate %g outside [0, 1]", rate);
  /* Binomial(n, rate): one chance of an error per token */
  int k = 0;
  for (int i = 0; i < n; i++) k += el__lr_unif(rng) < rate;
  el__lsent s;
  if ((rc = start(l, words, n, k, out, &s, err))) return rc;
  for (int e = 0; e < k; e++) one_error(&s, rng, out);
  return finish(&s, out, err);
}

int el__learner_corrupt_family(const el__learner *l, const char *const *words, int n,
                               int family, uint64_t *rng, el__learner_out *out, el_error *err) {
  int rc = check_args(words, n, out, err);
  if (rc) return rc;
  if (family < 0 || family >= EL__LF_COUNT)
    return el_error_set(err, EL_EINVAL, "learner: no error family %d", family);
  el__lsent s;
  if ((rc = start(l, words, n, 1, out, &s, err))) return rc;
  apply(&s, family, rng, out);
  return finish(&s, out, err);
}

int el__learner_third_person(const el__learner *l, const char *const *words, int n,
                             uint64_t *rng, el__learner_out *out, int *changed, el_error *err) {
  int rc = check_args(words, n, out, err);
  if (rc) return rc;
  el__lsent s;
  if ((rc = start(l, words, n, 0, out, &s, err))) return rc;
  *changed = el__lv_third_person(&s, rng);
  return finish(&s, out, err);
}

int el__learner_subject_agreement(const el__learner *l, const char *const *words, int n,
                                  uint64_t *rng, el__learner_out *out, el_error *err) {
  int rc = check_args(words, n, out, err);
  if (rc) return rc;
  el__lsent s;
  if ((rc = start(l, words, n, 1, out, &s, err))) return rc;
  if (el__lv_subject_sva(&s, rng)) {
    out->n_edits = 1;
    out->family_edits[EL__LF_VERB_SVA] = 1;
  }
  return finish(&s, out, err);
}

void el__learner_sentence_free(el__learner_out *out) {
  free(out->words);
  free(out->labels);
  free(out->work);
  free(out->sites);
  free(out->text);
  memset(out, 0, sizeof *out);
}
