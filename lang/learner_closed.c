/* Errors on function words: determiners, prepositions, punctuation,
 * pronouns and inserted extra words (learner.h). */
#include <string.h>
#include "learner_internal.h"

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Replacements and insertions draw from the prepositions learners confuse
 * most (the class table in learner_load.c lists a few more that are only
 * replaced or dropped). */
static const char *const CORE_PREPS[] = {"in", "on", "at", "to", "for", "of", "with",
                                         "by", "from", "about", "into"};
static const char *const EXTRA_PREPS[] = {"about", "to", "in", "on", "for", "of", "with", "at"};
static const char *const ARTICLES[] = {"the", "a", "an"};
static const char *const COMMA[] = {","};
/* Unnecessary pronouns, auxiliaries, "to", "that" (U:PRON, U:VERB, U:OTHER) */
static const char *const EXTRA_WORDS[] = {"it", "is", "to", "that", "be", "will", "have",
                                          "there", "them"};
/* Punctuation the punctuation families drop or swap, with the swaps. */
static const char *const PUNCT_SWAP[][2] = {
    {",", ". ;"}, {".", ", !"}, {";", ", ."}, {":", ", ."}, {"!", ". ?"}, {"?", ". !"},
    {"-", ","}};
static const char *const DEMONSTRATIVES[][2] = {
    {"this", "these that"}, {"these", "this those"}, {"that", "those this"},
    {"those", "that these"}};

const char *const *el__learner_insertions(int family, int *n) {
  switch (family) {
    case EL__LF_DET_EXTRA: *n = N_OF(ARTICLES); return ARTICLES;
    case EL__LF_PREP_EXTRA: *n = N_OF(EXTRA_PREPS); return EXTRA_PREPS;
    case EL__LF_PUNCT_EXTRA: *n = N_OF(COMMA); return COMMA;
    case EL__LF_WORD_EXTRA: *n = N_OF(EXTRA_WORDS); return EXTRA_WORDS;
    default: *n = 0; return NULL;
  }
}

/* Space-separated alternatives into out. */
static int split_alts(const char *alts, char out[][EL__LWORD_MAX], int max) {
  int k = 0;
  for (const char *p = alts; *p && k < max;) {
    size_t len = strcspn(p, " ");
    memcpy(out[k], p, len);
    out[k++][len] = 0;
    p += len + (p[len] ? 1 : 0);
  }
  return k;
}

static int from_list(const char *w, const char *const *list, int n, char out[][EL__LWORD_MAX],
                     int max) {
  int k = 0;
  for (int i = 0; i < n && k < max; i++)
    if (strcmp(list[i], w)) strcpy(out[k++], list[i]);
  return k;
}

int el__lc_variants(const el__learner *l, const char *w, int family, char out[][EL__LWORD_MAX],
                    int max) {
  if (family == EL__LF_DET_WRONG) {
    for (int i = 0; i < N_OF(DEMONSTRATIVES); i++)
      if (!strcmp(w, DEMONSTRATIVES[i][0])) return split_alts(DEMONSTRATIVES[i][1], out, max);
    if (el__learner_word_class(l, w) & EL__LC_ARTICLE)
      return from_list(w, ARTICLES, N_OF(ARTICLES), out, max);
  }
  if (family == EL__LF_PREP_WRONG && (el__learner_word_class(l, w) & EL__LC_PREP))
    return from_list(w, CORE_PREPS, N_OF(CORE_PREPS), out, max);
  if (family == EL__LF_PUNCT_WRONG)
    for (int i = 0; i < N_OF(PUNCT_SWAP); i++)
      if (!strcmp(w, PUNCT_SWAP[i][0])) return split_alts(PUNCT_SWAP[i][1], out, max);
  return 0;
}

/* ---- shared steps ---------------------------------------------------------- */

static int is_word(const el__lsent *s, int i) {
  return i >= 0 && i < s->n && s->w[i].kind == EL__LK_WORD;
}

/* Deletes a token whose closed class has any of `bits` (or, bits == 0, a
 * punctuation token the punctuation families know). */
static int delete_class(el__lsent *s, uint32_t bits, uint64_t *rng) {
  char tmp[4][EL__LWORD_MAX];
  int m = 0;
  for (int i = 0; i < s->n; i++) {
    const el__lw *w = &s->w[i];
    int hit = bits ? (w->cls & bits) != 0
                   : w->kind == EL__LK_PUNCT && el__lc_variants(s->l, w->low, EL__LF_PUNCT_WRONG, tmp, 4);
    if (hit && el__ls_can_delete(s, i)) s->sites[m++] = i;
  }
  int i = el__ls_pick(s->sites, m, rng);
  if (i < 0) return 0;
  el__ls_delete(s, i);
  return 1;
}

/* "to" before a verb is the infinitive marker, not a preposition: learners
 * rarely swap it for another preposition. */
static int infinitive_to(const el__lsent *s, int i) {
  char lemma[EL__LWORD_MAX];
  return !strcmp(s->w[i].low, "to") && i + 1 < s->n &&
         el__lm_verb(s->l, s->w[i + 1].low, lemma) == EL__VF_BASE;
}

/* Keeps the alternatives that close a sentence (. ! ?), in place; returns
 * their number. A sentence's last mark is only swapped for one of them:
 * learners end sentences with a full stop, and a comma at the end of a line
 * is a letter's salutation ("Dear Kim ,", "Yours sincerely ,"), not an
 * error (make run's model flagged ~80 such commas of FCE dev when "." -> ","
 * taught it that a final comma is one). */
static int closing_marks(char alt[][EL__LWORD_MAX], int k) {
  int m = 0;
  for (int j = 0; j < k; j++)
    if (el__learner_ends_sentence(alt[j])) memmove(alt[m++], alt[j], EL__LWORD_MAX);
  return m;
}

/* Replaces a token by one of its variants for `family`. */
static int replace_variant(el__lsent *s, int family, uint64_t *rng) {
  char alt[8][EL__LWORD_MAX];
  int m = 0;
  for (int i = 0; i < s->n; i++)
    if (el__ls_free(s, i) && el__lc_variants(s->l, s->w[i].low, family, alt, 8) &&
        !(family == EL__LF_PREP_WRONG && infinitive_to(s, i)))
      s->sites[m++] = i;
  int i = el__ls_pick(s->sites, m, rng);
  if (i < 0) return 0;
  int k = el__lc_variants(s->l, s->w[i].low, family, alt, 8);
  /* "the" -> the indefinite article the next word takes: one error, not two */
  if (family == EL__LF_DET_WRONG && !strcmp(s->w[i].low, "the") && is_word(s, i + 1)) {
    const char c = s->w[i + 1].low[0];
    int vowel = c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
    el__ls_replace(s, i, vowel ? "an" : "a");
    return 1;
  }
  if (family == EL__LF_PUNCT_WRONG && i == s->n - 1 && !(k = closing_marks(alt, k))) return 0;
  el__ls_replace(s, i, alt[el__lr_below(rng, k)]);
  return 1;
}

/* Inserts one of words[0..nw) before a position where ok(s, i) holds
 * (never before the first token: the new word would open the sentence). */
static int insert_where(el__lsent *s, int (*ok)(const el__lsent *, int), const char *const *words,
                        int nw, uint64_t *rng) {
  int m = 0;
  for (int i = 1; i < s->n; i++)
    if (el__ls_free(s, i - 1) && el__ls_free(s, i) && ok(s, i)) s->sites[m++] = i;
  int i = el__ls_pick(s->sites, m, rng);
  if (i < 0) return 0;
  const char *pick = words[el__lr_below(rng, nw)];
  /* never the same word twice in a row ("to to") */
  for (int tries = 0; tries < 4 && (!strcmp(pick, s->w[i - 1].low) || !strcmp(pick, s->w[i].low));
       tries++)
    pick = words[el__lr_below(rng, nw)];
  if (!strcmp(pick, s->w[i - 1].low) || !strcmp(pick, s->w[i].low)) return 0;
  el__ls_insert(s, i, pick);
  return 1;
}

/* ---- determiners ----------------------------------------------------------- */

int el__lf_det_missing(el__lsent *s, uint64_t *rng) {
  return delete_class(s, EL__LC_ARTICLE, rng);
}

int el__lf_det_wrong(el__lsent *s, uint64_t *rng) {
  return replace_variant(s, EL__LF_DET_WRONG, rng);
}

/* Before a lower-case noun that follows a word other than a determiner, a
 * subject pronoun or "to" (after those a noun form is most likely a verb:
 * "I walk", "to walk"). */
static int det_extra_ok(const el__lsent *s, int i) {
  const el__lw *p = &s->w[i - 1], *w = &s->w[i];
  char other[EL__LWORD_MAX];
  return p->kind == EL__LK_WORD && !(p->cls & (EL__LC_DET | EL__LC_PRON_SUBJ | EL__LC_MODAL)) &&
         strcmp(p->low, "to") && w->kind == EL__LK_WORD &&
         !el__lm_is_upper(el__lw_str(w)[0]) && el__lm_noun(s->l, w->low, other);
}

int el__lf_det_extra(el__lsent *s, uint64_t *rng) {
  int m = 0;
  for (int i = 1; i < s->n; i++)
    if (el__ls_free(s, i - 1) && el__ls_free(s, i) && det_extra_ok(s, i)) s->sites[m++] = i;
  int i = el__ls_pick(s->sites, m, rng);
  if (i < 0) return 0;
  /* "the" most often; otherwise the indefinite article the noun takes */
  const char c = s->w[i].low[0];
  int vowel = c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
  el__ls_insert(s, i, el__lr_unif(rng) < 0.6 ? "the" : vowel ? "an" : "a");
  return 1;
}

/* ---- prepositions ---------------------------------------------------------- */

int el__lf_prep_wrong(el__lsent *s, uint64_t *rng) {
  return replace_variant(s, EL__LF_PREP_WRONG, rng);
}

int el__lf_prep_missing(el__lsent *s, uint64_t *rng) {
  return delete_class(s, EL__LC_PREP, rng);
}

/* Before a noun phrase (a determiner or a pronoun) that follows a content
 * word: "discuss the plan" -> "discuss about the plan". */
static int prep_extra_ok(const el__lsent *s, int i) {
  const el__lw *p = &s->w[i - 1], *w = &s->w[i];
  return p->kind == EL__LK_WORD && !(p->cls & (EL__LC_PREP | EL__LC_DET | EL__LC_PRON_SUBJ)) &&
         (w->cls & (EL__LC_DET | EL__LC_PRON)) && !(w->cls & EL__LC_PRON_SUBJ);
}

int el__lf_prep_extra(el__lsent *s, uint64_t *rng) {
  return insert_where(s, prep_extra_ok, EXTRA_PREPS, N_OF(EXTRA_PREPS), rng);
}

/* ---- punctuation ----------------------------------------------------------- */

int el__lf_punct_missing(el__lsent *s, uint64_t *rng) { return delete_class(s, 0, rng); }

int el__lf_punct_wrong(el__lsent *s, uint64_t *rng) {
  return replace_variant(s, EL__LF_PUNCT_WRONG, rng);
}

static int between_words(const el__lsent *s, int i) { return is_word(s, i - 1) && is_word(s, i); }

int el__lf_punct_extra(el__lsent *s, uint64_t *rng) {
  return insert_where(s, between_words, COMMA, 1, rng);
}

/* ---- pronouns and other words ---------------------------------------------- */

int el__lf_pron_missing(el__lsent *s, uint64_t *rng) { return delete_class(s, EL__LC_PRON, rng); }

int el__lf_word_extra(el__lsent *s, uint64_t *rng) {
  return insert_where(s, between_words, EXTRA_WORDS, N_OF(EXTRA_WORDS), rng);
}
