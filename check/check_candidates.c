/* Candidates for each flagged word from rules: the inverse of lang/'s
 * learner-error families (their variants are the corrections of the errors
 * they imitate), the dictionaries' suggestions, case, deletion of a
 * function word, punctuation or a repeated word, and insertion before the
 * word of what the insertion families add (FCE flags the word after a gap).
 * The generator's proposals join them (check_gencands.c). */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "check_internal.h"
#include "support_api.h"

static const struct {
  int family, type;
} VARIANT_FAMILIES[] = {
    {EL__LF_VERB_SVA, EL__ET_VERB_SVA},   {EL__LF_VERB_TENSE, EL__ET_VERB_TENSE},
    {EL__LF_VERB_FORM, EL__ET_VERB_FORM}, {EL__LF_NOUN_NUM, EL__ET_NOUN_NUM},
    {EL__LF_DET_WRONG, EL__ET_DET},       {EL__LF_PREP_WRONG, EL__ET_PREP},
    {EL__LF_PUNCT_WRONG, EL__ET_PUNCT}};
/* Rank added per place in hunspell's list (half a threshold of P(error)):
 * its order carries information (its first suggestion is right ~57 % of
 * the time on FCE's spelling edits, one of its first five ~78 %), but the
 * detector's verdict and the generator's likelihood of the corrected
 * sentence carry more ("which" over hunspell's first "winch" for "wich").
 * Chosen on FCE dev between 1, 0.5, 0.3, 0.2 and 0.1 with both models'
 * corrections F0.5: 0.5 the best for the one-hour recipe model, level for
 * make run's; below 0.3 both lose. */
#define DICT_ORDER 0.5f
/* log(0.02): the generator's least probability for an inserted function word */
#define MIN_INSERT_LP (-3.9f)

static const int INSERT_FAMILIES[] = {EL__LF_DET_EXTRA, EL__LF_PREP_EXTRA, EL__LF_WORD_EXTRA,
                                      EL__LF_PUNCT_EXTRA};

static int add_variants(el__checker *c, el__flag *f, const char *word, const char *low,
                        el_error *err) {
  char alt[8][EL__LWORD_MAX], cased[EL__LWORD_MAX];
  for (size_t v = 0; v < sizeof VARIANT_FAMILIES / sizeof *VARIANT_FAMILIES; v++) {
    int k = el__learner_variants(c->lang, low, VARIANT_FAMILIES[v].family, alt, 8);
    for (int i = 0; i < k; i++) {
      /* a rule's form no dictionary knows ("childs", "putted") mends nothing */
      if (c->dict && el__dict_rejects(c->dict, c->variant, alt[i], 0)) continue;
      el__learner_recase(word, alt[i], cased);
      if (el__cand_add(c, f, EL__EDIT_REPLACE, VARIANT_FAMILIES[v].type, cased, err) < 0)
        return err->code;
    }
  }
  return 0;
}

static int add_spelling(el__checker *c, el__flag *f, const char *word, el_error *err) {
  if (!f->rejected) return 0;
  char sug[5][EL__DICT_WORD_MAX];
  int k = el__dict_suggest(c->dict, c->variant, word, sug, 5);
  for (int i = 0; i < k; i++) {
    int type = strcasecmp(sug[i], word) ? EL__ET_SPELL : EL__ET_ORTH;
    int rc = el__cand_add(c, f, EL__EDIT_REPLACE, type, sug[i], err);
    if (rc < 0) return rc;
    if (rc) c->cands[c->n_cands - 1].prior = DICT_ORDER * (float)i; /* hunspell's order */
  }
  return 0;
}

/* Priors of k irregular forms of f's word: each before hunspell's first
 * suggestion, and where the checker has the n-gram model, IRREGULAR_NAT
 * more per nat its sentence is less likely than the likeliest's ("I have
 * goed": "have went" is 3.6 nats less likely than "have gone"; half a
 * point a nat outweighs how much commoner "went" is and the detector's
 * verdict on the two, which ranked "went" first), else level. */
#define IRREGULAR_NAT 0.5f
static void irregular_priors(const el__checker *c, const el__flag *f, char (*alt)[EL__LWORD_MAX],
                             int k, float *prior) {
  for (int i = 0; i < k; i++) prior[i] = -DICT_ORDER;
  const el__csent *s = &c->sents[f->sent];
  const int n = s->w1 - s->w0;
  if (!c->o.ngram || k < 2 || n <= 0) return;
  char(*text)[EL__LWORD_MAX] = calloc((size_t)n, sizeof *text);
  const char **w = calloc((size_t)n, sizeof *w);
  double lp[4];
  if (text && w) {
    el__sent_texts(c, s, text, w);
    for (int i = 0; i < k; i++) {
      w[f->word - s->w0] = alt[i];
      lp[i] = el__ngram_logp(c->o.ngram, w, n);
    }
    double best = lp[0];
    for (int i = 1; i < k; i++) best = lp[i] > best ? lp[i] : best;
    for (int i = 0; i < k; i++) prior[i] += IRREGULAR_NAT * (float)(best - lp[i]);
  }
  free(text);
  free(w);
}

/* A misspelling that is a regular ending on an irregular word ("buyed",
 * "childs"): its irregular forms, before hunspell's suggestions ("bayed",
 * "buoyed") and as spelling fixes (ERRANT counts them as the word's
 * inflection; the verification treats them as a misspelling's), added
 * before the word's other forms, which would add them again as verb forms. */
static int add_irregular(el__checker *c, el__flag *f, const char *word, const char *low,
                         el_error *err) {
  if (!f->rejected) return 0;
  char alt[4][EL__LWORD_MAX], cased[EL__LWORD_MAX];
  float prior[4];
  int k = el__learner_irregular(c->lang, low, alt, 4);
  irregular_priors(c, f, alt, k, prior);
  for (int i = 0; i < k; i++) {
    el__learner_recase(word, alt[i], cased);
    int rc = el__cand_add(c, f, EL__EDIT_REPLACE, EL__ET_SPELL, cased, err);
    if (rc < 0) return err->code;
    if (rc) c->cands[c->n_cands - 1].prior = prior[i];
  }
  return 0;
}

/* A sentence's first word in lower case, "i"; for a cased detector (which
 * can see case) a capitalised word inside a sentence too. */
static int add_case(el__checker *c, el__flag *f, const char *word, int start, el_error *err) {
  char alt[EL__CAND_TEXT];
  size_t n = strlen(word);
  if (n >= sizeof alt) return 0;
  memcpy(alt, word, n + 1);
  int lower0 = word[0] >= 'a' && word[0] <= 'z', upper0 = word[0] >= 'A' && word[0] <= 'Z';
  if ((start && lower0) || !strcmp(word, "i"))
    alt[0] = (char)(alt[0] - 32);
  else if (!start && upper0 && !c->lower && strcmp(word, "I"))
    alt[0] = (char)(alt[0] + 32);
  else
    return 0;
  return el__cand_add(c, f, EL__EDIT_REPLACE, EL__ET_ORTH, alt, err) < 0 ? err->code : 0;
}

static int add_deletion(el__checker *c, el__flag *f, const char *low, el_error *err) {
  const el__csent *s = &c->sents[f->sent];
  char prev[EL__LWORD_MAX];
  int punct = el__is_punct_word(c, f->word);
  if (punct && f->word == s->w1 - 1) return 0; /* a sentence keeps its final mark */
  int repeated = f->word > s->w0 && el__word_low(c, f->word - 1, prev) && !strcmp(prev, low);
  if (!punct && !repeated && !el__learner_word_class(c->lang, low)) return 0;
  return el__cand_add(c, f, EL__EDIT_DELETE, EL__ET_UNNECESSARY, "", err) < 0 ? err->code : 0;
}

/* With a generator, a function word it finds unlikely in the gap is not
 * worth a verification sentence: insertions are most of the candidates,
 * and the verification pass costs a sentence per candidate. The candidate
 * just added (the flag's last) is taken back. */
static void drop_if_unlikely(el__checker *c, el__flag *f) {
  el__cand *e = &c->cands[c->n_cands - 1];
  if (isnan(e->gen_lp) || e->gen_lp >= MIN_INSERT_LP) return;
  c->n_pool -= (size_t)e->n_ids;
  c->n_cands--;
  f->n_cand--;
}

/* A missing comma is punctuation (ERRANT's M:PUNCT), a missing word MISSING. */
static int inserted_type(const char *text) {
  return el__learner_token_kind(text) == EL__LK_PUNCT ? EL__ET_PUNCT : EL__ET_MISSING;
}

static int add_insertions(el__checker *c, el__flag *f, el_error *err) {
  const el__csent *s = &c->sents[f->sent];
  int punct_ok = f->word > s->w0 && !el__is_punct_word(c, f->word) && !el__is_punct_word(c, f->word - 1);
  for (size_t k = 0; k < sizeof INSERT_FAMILIES / sizeof *INSERT_FAMILIES; k++) {
    if (INSERT_FAMILIES[k] == EL__LF_PUNCT_EXTRA && !punct_ok) continue;
    int n = 0;
    const char *const *ins = el__learner_insertions(INSERT_FAMILIES[k], &n);
    for (int i = 0; i < n; i++) {
      int rc = el__cand_add(c, f, EL__EDIT_INSERT, inserted_type(ins[i]), ins[i], err);
      if (rc < 0) return err->code;
      if (rc) drop_if_unlikely(c, f);
    }
  }
  return 0;
}

/* A JOIN's type: ORTH where the two words are written as one or hyphened
 * ("May be" -> "Maybe", "forty five" -> "forty-five"), else the verb form
 * ("to go" -> "going"). */
static int joined_type(const el__checker *c, const el__flag *f) {
  char a[EL__LWORD_MAX], b[EL__LWORD_MAX], both[2 * EL__LWORD_MAX], alt[EL__LWORD_MAX];
  if (!el__word_low(c, f->word, a) || !el__word_low(c, f->word + 1, b)) return EL__ET_VERB_FORM;
  snprintf(both, sizeof both, "%s%s", a, b);
  size_t k = 0;
  for (const char *p = f->ngram_alt; *p && k + 1 < sizeof alt; p++)
    if (*p != '-') alt[k++] = *p;
  alt[k] = 0;
  return strcmp(both, alt) ? EL__ET_VERB_FORM : EL__ET_ORTH;
}

/* The n-gram model's correction (check.h o.ngram), first and already
 * verified: the model found it far likelier than the writer's word there. */
static int add_ngram(el__checker *c, el__flag *f, const char *word, const char *low,
                     el_error *err) {
  if (f->ngram_kind < 0) return 0;
  char cased[EL__LWORD_MAX];
  int rc;
  if (f->ngram_kind == EL__NGRAM_ADD) {
    rc = el__cand_add(c, f, EL__EDIT_INSERT, inserted_type(f->ngram_alt), f->ngram_alt, err);
  } else if (f->ngram_kind == EL__NGRAM_DEL) {
    int punct = el__learner_token_kind(low) == EL__LK_PUNCT; /* "I think, it is" */
    rc = el__cand_add(c, f, EL__EDIT_DELETE, punct ? EL__ET_PUNCT : EL__ET_UNNECESSARY, "", err);
  } else if (f->ngram_kind == EL__NGRAM_JOIN) {
    if (f->word + 1 >= c->sents[f->sent].w1) return 0;
    el__learner_recase(word, f->ngram_alt, cased);
    rc = el__cand_add(c, f, EL__EDIT_JOIN, joined_type(c, f), cased, err);
  } else {
    el__learner_recase(word, f->ngram_alt, cased);
    /* the kind says what changed: "holidays" -> "holiday" is a noun's number, though a verb's
     * too; a confused word ("hole", "for you letter", "Your sincerely") is a spelling
     * mistake no dictionary sees, as LanguageTool files its confusion pairs */
    int type = f->ngram_kind == EL__NGRAM_NOUN   ? EL__ET_NOUN_NUM
               : f->ngram_kind == EL__NGRAM_PREP ? EL__ET_PREP
               : f->ngram_kind == EL__NGRAM_CONF ? EL__ET_SPELL
                                                 : el__type_of_replacement(c, low, f->ngram_alt);
    rc = el__cand_add(c, f, EL__EDIT_REPLACE, type, cased, err);
  }
  if (rc < 0) return err->code;
  if (rc) c->cands[c->n_cands - 1].by_rule = 1, c->cands[c->n_cands - 1].prior = -1.0f;
  return 0;
}

static int flag_candidates(el__checker *c, el__flag *f, el_error *err) {
  char word[EL__DICT_WORD_MAX], low[EL__LWORD_MAX];
  int start = el__sent_start(c, f->word);
  f->cand0 = c->n_cands;
  f->n_cand = 0;
  if (!el__flag_suggests(c, f)) return 0;
  int has_low = el__word_low(c, f->word, low);
  if (has_low && el__word_text(c, f->word, word, sizeof word) && add_ngram(c, f, word, low, err))
    return err->code;
  if (f->ngram_kind == EL__NGRAM_JOIN) return 0; /* "to go" -> "going": nothing else mends two words */
  if (el__word_text(c, f->word, word, sizeof word)) {
    if (has_low && (add_irregular(c, f, word, low, err) || add_variants(c, f, word, low, err)))
      return err->code;
    if (add_spelling(c, f, word, err) || add_case(c, f, word, start, err)) return err->code;
  }
  if (f->rejected) return el__gen_candidates(c, f, err); /* a misspelling stays one otherwise */
  if (has_low && add_deletion(c, f, low, err)) return err->code;
  if (add_insertions(c, f, err)) return err->code;
  return el__gen_candidates(c, f, err);
}

int el__check_candidates(el__checker *c, el_error *err) {
  c->n_cands = 0;
  c->n_pool = 0;
  for (int i = 0; i < c->n_flags; i++)
    if (flag_candidates(c, &c->flags[i], err)) return err->code;
  return 0;
}
