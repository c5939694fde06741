/* Candidates for each flagged word from rules: the inverse of lang/'s
 * learner-error families (their variants are the corrections of the errors
 * they imitate), the dictionaries' suggestions, case, deletion of a
 * function word, punctuation or a repeated word, and insertion before the
 * word of what the insertion families add (FCE flags the word after a gap).
 * The generator's proposals join them (check_gencands.c). */
#include <math.h>
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
/* Rank added per place in hunspell's list: its order carries information
 * (its first suggestion is right ~57 % of the time on FCE's spelling edits,
 * one of its first five ~78 %). */
#define DICT_ORDER 0.15f

static const int INSERT_FAMILIES[] = {EL__LF_DET_EXTRA, EL__LF_PREP_EXTRA, EL__LF_WORD_EXTRA,
                                      EL__LF_PUNCT_EXTRA};

/* The word's text as written, NUL-terminated, into out[cap]; 0 if too long. */
static int word_text(const el__checker *c, int w, char *out, size_t cap) {
  const el__word *x = &c->words.w[w];
  size_t n = x->end - x->start;
  if (n >= cap) return 0;
  memcpy(out, c->text + x->start, n);
  out[n] = 0;
  return 1;
}

static int same_ids(const el__checker *c, const el__flag *f, const int *ids, int n) {
  const el__word *x = &c->words.w[f->word];
  if (n != x->n_pieces) return 0;
  for (int i = 0; i < n; i++)
    if (ids[i] != c->tk.tok[x->piece + i].id) return 0;
  return 1;
}

/* Long because: dedupe, tokenize, the uncased-case rule and the generator's
 * likelihood each need a few lines, and splitting would pass them all. */
int el__cand_add(el__checker *c, el__flag *f, int kind, int type, const char *text,
                 el_error *err) {
  size_t n = strlen(text);
  if (n >= EL__CAND_TEXT || (kind != EL__EDIT_DELETE && n == 0)) return 0;
  for (int i = f->cand0; i < c->n_cands; i++)
    if (c->cands[i].kind == kind && !strcmp(c->cands[i].text, text)) return 0;
  const el__word *x = &c->words.w[f->word];
  if (kind == EL__EDIT_REPLACE && n == x->end - x->start && !memcmp(text, c->text + x->start, n))
    return 0;
  int n_ids = 0;
  if (kind != EL__EDIT_DELETE) {
    int rc = el_tokenize_opts(c->tok, text, n, EL_TOKENIZE_SPECIALS_AS_TEXT, &c->scratch, err);
    if (rc) return rc;
    n_ids = c->scratch.n;
    if (n_ids == 0 || n_ids > 8) return 0;
  }
  if (el__grow((void **)&c->pool, &c->pool_cap, c->n_pool + (size_t)n_ids, sizeof(int)) ||
      el__grow((void **)&c->cands, &c->cands_cap, (size_t)c->n_cands + 1, sizeof *c->cands))
    return el_error_set(err, EL_ENOMEM, "check: out of memory");
  int *ids = c->pool + c->n_pool;
  for (int i = 0; i < n_ids; i++) ids[i] = c->scratch.tok[i].id;
  int by_rule = 0;
  if (kind == EL__EDIT_REPLACE && same_ids(c, f, ids, n_ids)) {
    if (type != EL__ET_ORTH) return 0; /* the detector cannot tell them apart */
    by_rule = 1;
  }
  el__cand *e = &c->cands[c->n_cands++];
  memset(e, 0, sizeof *e);
  e->kind = kind;
  e->type = type;
  memcpy(e->text, text, n + 1);
  e->ids = (int)c->n_pool;
  e->n_ids = n_ids;
  c->n_pool += (size_t)n_ids;
  e->by_rule = by_rule;
  e->gen_lp = NAN;
  if (f->gen_row >= 0 && n_ids == 1 && kind != EL__EDIT_DELETE) {
    int row = f->gen_row + (kind == EL__EDIT_INSERT);
    e->gen_lp = c->lp[(size_t)row * (size_t)c->vocab + (size_t)ids[0]];
  }
  f->n_cand++;
  return 1;
}

static int add_variants(el__checker *c, el__flag *f, const char *word, const char *low,
                        el_error *err) {
  char alt[8][EL__LWORD_MAX], cased[EL__LWORD_MAX];
  for (size_t v = 0; v < sizeof VARIANT_FAMILIES / sizeof *VARIANT_FAMILIES; v++) {
    int k = el__learner_variants(c->lang, low, VARIANT_FAMILIES[v].family, alt, 8);
    for (int i = 0; i < k; i++) {
      el__learner_recase(word, alt[i], cased);
      if (el__cand_add(c, f, EL__EDIT_REPLACE, VARIANT_FAMILIES[v].type, cased, err) < 0)
        return err->code;
    }
  }
  return 0;
}

static int add_spelling(el__checker *c, el__flag *f, const char *word, int start, el_error *err) {
  if (!c->dict || !(f->rejected = el__dict_rejects(c->dict, word, start))) return 0;
  char sug[5][EL__DICT_WORD_MAX];
  int k = el__dict_suggest(c->dict, word, sug, 5);
  for (int i = 0; i < k; i++) {
    int type = strcasecmp(sug[i], word) ? EL__ET_SPELL : EL__ET_ORTH;
    int rc = el__cand_add(c, f, EL__EDIT_REPLACE, type, sug[i], err);
    if (rc < 0) return rc;
    if (rc) c->cands[c->n_cands - 1].prior = DICT_ORDER * (float)i; /* hunspell's order */
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

static int add_insertions(el__checker *c, el__flag *f, el_error *err) {
  const el__csent *s = &c->sents[f->sent];
  int punct_ok = f->word > s->w0 && !el__is_punct_word(c, f->word) && !el__is_punct_word(c, f->word - 1);
  for (size_t k = 0; k < sizeof INSERT_FAMILIES / sizeof *INSERT_FAMILIES; k++) {
    if (INSERT_FAMILIES[k] == EL__LF_PUNCT_EXTRA && !punct_ok) continue;
    int n = 0;
    const char *const *ins = el__learner_insertions(INSERT_FAMILIES[k], &n);
    for (int i = 0; i < n; i++)
      if (el__cand_add(c, f, EL__EDIT_INSERT, EL__ET_MISSING, ins[i], err) < 0) return err->code;
  }
  return 0;
}

static int flag_candidates(el__checker *c, el__flag *f, el_error *err) {
  char word[EL__DICT_WORD_MAX], low[EL__LWORD_MAX];
  int start = f->word == c->sents[f->sent].w0;
  f->cand0 = c->n_cands;
  f->n_cand = 0;
  int has_low = el__word_low(c, f->word, low);
  if (word_text(c, f->word, word, sizeof word)) {
    if (has_low && add_variants(c, f, word, low, err)) return err->code;
    if (add_spelling(c, f, word, start, err) || add_case(c, f, word, start, err)) return err->code;
  }
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
