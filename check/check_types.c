/* The ERRANT type of a replacement the generator proposed, from the
 * relation of the two forms: another form of the same verb or noun (lang/'s
 * morphology, through the variants its families would make), a determiner
 * of the same confusion set, two prepositions, punctuation for
 * punctuation, case alone. (A misspelt word's spelling corrections come
 * from the dictionaries, typed SPELL there; another word the generator
 * offers for it is OTHER.) */
#include <string.h>

#include "check_internal.h"

static int is_variant(el__checker *c, const char *orig, const char *cand, int family) {
  char alt[8][EL__LWORD_MAX];
  int k = el__learner_variants(c->lang, orig, family, alt, 8);
  for (int i = 0; i < k; i++)
    if (!strcmp(alt[i], cand)) return 1;
  return 0;
}

/* Whether cand is a word orig is often confused with (both lower-case). */
static int confused(const char *orig, const char *cand) {
  char alt[4][EL__LWORD_MAX];
  int k = el__learner_confusables(orig, alt, 4);
  for (int j = 0; j < k; j++)
    if (!strcmp(alt[j], cand)) return 1;
  return 0;
}

int el__type_of_replacement(el__checker *c, const char *orig, const char *cand) {
  static const struct {
    int family, type;
  } FORMS[] = {{EL__LF_VERB_SVA, EL__ET_VERB_SVA},
               {EL__LF_VERB_TENSE, EL__ET_VERB_TENSE},
               {EL__LF_VERB_FORM, EL__ET_VERB_FORM},
               {EL__LF_NOUN_NUM, EL__ET_NOUN_NUM}};
  if (!strcmp(orig, cand)) return EL__ET_ORTH;
  for (size_t i = 0; i < sizeof FORMS / sizeof *FORMS; i++)
    if (is_variant(c, orig, cand, FORMS[i].family)) return FORMS[i].type;
  if (el__learner_token_kind(orig) == EL__LK_PUNCT && el__learner_token_kind(cand) == EL__LK_PUNCT)
    return EL__ET_PUNCT;
  uint32_t a = el__learner_word_class(c->lang, orig), b = el__learner_word_class(c->lang, cand);
  /* determiners by lang/'s confusion sets (articles, demonstratives) only:
   * the generator's possessive for a possessive ("his" -> "her") was never
   * the annotators' edit on FCE dev (0 of 50) */
  if ((a & EL__LC_DET) && is_variant(c, orig, cand, EL__LF_DET_WRONG)) return EL__ET_DET;
  if ((a & EL__LC_PREP) && (b & EL__LC_PREP)) return EL__ET_PREP;
  /* "hole" for "whole": a misspelling no dictionary can see, as LanguageTool files its confusion pairs */
  if (confused(orig, cand)) return EL__ET_SPELL;
  return EL__ET_OTHER;
}
