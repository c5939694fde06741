/* Verb forms, noun number and case for the learner errors: WordNet's
 * exception lists first (irregular and spelling-changing forms: went/go,
 * stopped/stop, children/child), then the regular English suffix rules, a
 * candidate lemma counting only when WordNet knows it (as its morphy does). */
#include <string.h>
#include "learner_internal.h"

static int ends(const char *w, size_t n, const char *suf) {
  size_t k = strlen(suf);
  return n >= k && !memcmp(w + n - k, suf, k);
}

static int is_vowel(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

/* Only plain lower-case ASCII words (and hyphens) take part. */
static int plain(const char *w) {
  if (!w[0]) return 0;
  for (const char *p = w; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || *p == '-')) return 0;
  return 1;
}

/* w without its last `cut` bytes plus add, if it fits. */
static int respell(const char *w, size_t cut, const char *add, char *out) {
  size_t n = strlen(w), k = strlen(add);
  if (cut > n || n - cut + k + 1 > EL__LWORD_MAX || n - cut < 2) return 0;
  memcpy(out, w, n - cut);
  memcpy(out + n - cut, add, k + 1);
  return 1;
}

static int verb_excluded(const el__learner *l, const char *w) {
  return (el__learner_word_class(l, w) & (EL__LC_AUX | EL__LC_MODAL | EL__LC_CLOSED)) != 0;
}

/* ---- verbs ---------------------------------------------------------------- */

typedef struct rule {
  const char *suf, *add;
  int form;
} rule;

/* Suffix rules, tried in order; the doubled-consonant forms (stopped) are in
 * verb.exc. */
static const rule VERB_RULES[] = {
    {"ies", "y", EL__VF_S3},  {"es", "", EL__VF_S3},    {"s", "", EL__VF_S3},
    {"ied", "y", EL__VF_PAST}, {"ed", "", EL__VF_PAST}, {"ed", "e", EL__VF_PAST},
    {"ing", "", EL__VF_ING},  {"ing", "e", EL__VF_ING},
};

int el__lm_verb(const el__learner *l, const char *w, char *lemma) {
  if (!plain(w) || verb_excluded(l, w)) return 0;
  int id = el__lword(l, w);
  for (int p = id < 0 ? -1 : l->vexc.head_form[id]; p >= 0; p = l->vexc.next_by_form[p]) {
    const char *lem = el__strmap_key(&l->words, l->vexc.lemma[p]);
    if (verb_excluded(l, lem)) continue;
    strcpy(lemma, lem);
    return ends(w, strlen(w), "ing") ? EL__VF_ING : EL__VF_PAST;
  }
  if (id >= 0 && (l->words.value[id] & EL__LW_VERB)) {
    strcpy(lemma, w);
    return EL__VF_BASE;
  }
  size_t n = strlen(w);
  for (size_t r = 0; r < sizeof VERB_RULES / sizeof VERB_RULES[0]; r++) {
    const rule *ru = &VERB_RULES[r];
    if (!ends(w, n, ru->suf)) continue;
    if (ru->form == EL__VF_S3 && ends(w, n, "ss")) continue;
    if (!respell(w, strlen(ru->suf), ru->add, lemma)) continue;
    /* "-es" only after a sibilant or o: "goes", "boxes", not "likes" -> "lik" */
    if (!strcmp(ru->suf, "es")) {
      size_t m = strlen(lemma);
      if (!(ends(lemma, m, "s") || ends(lemma, m, "x") || ends(lemma, m, "z") ||
            ends(lemma, m, "ch") || ends(lemma, m, "sh") || ends(lemma, m, "o")))
        continue;
    }
    if ((el__lword_flags(l, lemma) & EL__LW_VERB) && !verb_excluded(l, lemma)) return ru->form;
  }
  return 0;
}

static void regular_s3(const char *lem, char *out) {
  size_t n = strlen(lem);
  if (ends(lem, n, "s") || ends(lem, n, "x") || ends(lem, n, "z") || ends(lem, n, "ch") ||
      ends(lem, n, "sh") || ends(lem, n, "o"))
    respell(lem, 0, "es", out);
  else if (n >= 2 && lem[n - 1] == 'y' && !is_vowel(lem[n - 2]))
    respell(lem, 1, "ies", out);
  else
    respell(lem, 0, "s", out);
}

static void regular_ing(const char *lem, char *out) {
  size_t n = strlen(lem);
  if (ends(lem, n, "ie")) respell(lem, 2, "ying", out);
  else if (n > 2 && lem[n - 1] == 'e' && !ends(lem, n, "ee") && !ends(lem, n, "ye") &&
           !ends(lem, n, "oe"))
    respell(lem, 1, "ing", out);
  else respell(lem, 0, "ing", out);
}

static void regular_past(const char *lem, char *out) {
  size_t n = strlen(lem);
  if (lem[n - 1] == 'e') respell(lem, 0, "d", out);
  else if (n >= 2 && lem[n - 1] == 'y' && !is_vowel(lem[n - 2])) respell(lem, 1, "ied", out);
  else respell(lem, 0, "ed", out);
}

int el__lm_verb_make(const el__learner *l, const char *lemma, int form,
                     char out[][EL__LWORD_MAX], int max) {
  size_t n = strlen(lemma);
  if (max < 1 || n < 2 || n + 5 > EL__LWORD_MAX) return 0;
  out[0][0] = 0;
  if (form == EL__VF_BASE) strcpy(out[0], lemma);
  if (form == EL__VF_S3) regular_s3(lemma, out[0]);
  if (form == EL__VF_BASE || form == EL__VF_S3) return out[0][0] != 0;
  /* PAST and ING: the exception list's forms of this lemma, else the rule */
  int k = 0, id = el__lword(l, lemma);
  for (int p = id < 0 ? -1 : l->vexc.head_lemma[id]; p >= 0 && k < max;
       p = l->vexc.next_by_lemma[p]) {
    const char *f = el__strmap_key(&l->words, l->vexc.form[p]);
    int ing = ends(f, strlen(f), "ing");
    if ((form == EL__VF_ING) == ing && strlen(f) < EL__LWORD_MAX) strcpy(out[k++], f);
  }
  if (k) return k;
  if (form == EL__VF_ING) regular_ing(lemma, out[0]);
  else regular_past(lemma, out[0]);
  return out[0][0] != 0;
}

/* ---- nouns ---------------------------------------------------------------- */

static int noun_singular_by_rule(const el__learner *l, const char *w, char *sg) {
  size_t n = strlen(w);
  if (n < 3 || w[n - 1] != 's' || ends(w, n, "ss") || ends(w, n, "us") || ends(w, n, "is"))
    return 0;
  if (ends(w, n, "ies") && respell(w, 3, "y", sg) && (el__lword_flags(l, sg) & EL__LW_NOUN))
    return 1;
  if ((ends(w, n, "ses") || ends(w, n, "xes") || ends(w, n, "zes") || ends(w, n, "ches") ||
       ends(w, n, "shes")) &&
      respell(w, 2, "", sg) && (el__lword_flags(l, sg) & EL__LW_NOUN))
    return 1;
  return respell(w, 1, "", sg) && (el__lword_flags(l, sg) & EL__LW_NOUN);
}

static void regular_plural(const char *sg, char *out) {
  size_t n = strlen(sg);
  if (ends(sg, n, "s") || ends(sg, n, "x") || ends(sg, n, "z") || ends(sg, n, "ch") ||
      ends(sg, n, "sh"))
    respell(sg, 0, "es", out);
  else if (n >= 2 && sg[n - 1] == 'y' && !is_vowel(sg[n - 2])) respell(sg, 1, "ies", out);
  else respell(sg, 0, "s", out);
}

int el__lm_noun(const el__learner *l, const char *w, char *other) {
  if (!plain(w) || el__learner_word_class(l, w)) return 0;
  int id = el__lword(l, w);
  if (id >= 0 && l->nexc.head_form[id] >= 0) {
    const char *sg = el__strmap_key(&l->words, l->nexc.lemma[l->nexc.head_form[id]]);
    if (strlen(sg) >= EL__LWORD_MAX || !strcmp(sg, w)) return 0;
    strcpy(other, sg);
    return 2;
  }
  if (noun_singular_by_rule(l, w, other)) return 2;
  if (id < 0 || !(l->words.value[id] & EL__LW_NOUN) || strlen(w) < 2) return 0;
  int p = l->nexc.head_lemma[id];
  other[0] = 0;
  if (p >= 0) {
    const char *pl = el__strmap_key(&l->words, l->nexc.form[p]);
    if (strlen(pl) < EL__LWORD_MAX) strcpy(other, pl);
  } else if (strlen(w) + 4 < EL__LWORD_MAX) {
    regular_plural(w, other);
  }
  return other[0] && strcmp(other, w) ? 1 : 0;
}

int el__lm_noun_forms(const el__learner *l, const char *w, char out[][EL__LWORD_MAX], int max) {
  int number = max < 1 ? 0 : el__lm_noun(l, w, out[0]);
  if (number != 1 || max < 2 || strlen(w) + 4 >= EL__LWORD_MAX) return number != 0;
  int id = el__lword(l, w);
  if (id < 0 || l->nexc.head_lemma[id] < 0) return 1;
  regular_plural(w, out[1]); /* beside WordNet's "brethren", "brothers" */
  return strcmp(out[1], out[0]) && strcmp(out[1], w) ? 2 : 1;
}

/* ---- a regular ending on an irregular word ----------------------------------- */

int el__learner_irregular(const el__learner *l, const char *w, char out[][EL__LWORD_MAX], int max) {
  char base[EL__LWORD_MAX], reg[EL__LWORD_MAX];
  if (max < 1 || !plain(w) || el__lword(l, w) >= 0) return 0; /* a word WordNet knows is itself */
  int k = 0;
  if (el__lm_verb(l, w, base) == EL__VF_PAST) { /* "buyed": buy's past */
    regular_past(base, reg);
    char forms[4][EL__LWORD_MAX];
    int n = el__lm_verb_make(l, base, EL__VF_PAST, forms, 4);
    for (int i = 0; i < n && k < max; i++)
      if (strcmp(forms[i], w) && strcmp(forms[i], reg)) strcpy(out[k++], forms[i]);
  }
  if (k == 0 && el__lm_noun(l, w, base) == 2 && el__lm_noun(l, base, reg) == 1 && strcmp(reg, w))
    strcpy(out[k++], reg); /* "childs": child's plural */
  return k;
}

/* ---- be / have / do / modals ---------------------------------------------- */

typedef struct aux_map {
  const char *from, *to; /* space-separated alternatives */
} aux_map;

static const aux_map AUX_SVA[] = {
    {"is", "are"}, {"are", "is"}, {"am", "is are"}, {"was", "were"}, {"were", "was"},
    {"has", "have"}, {"have", "has"}, {"does", "do"}, {"do", "does"},
    {"doesn't", "don't"}, {"don't", "doesn't"}, {"hasn't", "haven't"}, {"haven't", "hasn't"},
    {"isn't", "aren't"}, {"aren't", "isn't"}, {"wasn't", "weren't"}, {"weren't", "wasn't"},
};
static const aux_map AUX_TENSE[] = {
    {"is", "was"}, {"are", "were"}, {"am", "was"}, {"was", "is"}, {"were", "are"},
    {"has", "had"}, {"have", "had"}, {"had", "has have"}, {"do", "did"}, {"does", "did"},
    {"did", "do does"}, {"will", "would"}, {"would", "will"}, {"can", "could"},
    {"could", "can"}, {"may", "might"},
};
static const aux_map AUX_FORM[] = {
    {"be", "being been"}, {"been", "be being"}, {"being", "be been"},
    {"have", "having"}, {"having", "have"},
};

static int aux_lookup(const aux_map *m, size_t nm, const char *w, char out[][EL__LWORD_MAX],
                      int max) {
  for (size_t i = 0; i < nm; i++) {
    if (strcmp(m[i].from, w)) continue;
    int k = 0;
    for (const char *p = m[i].to; *p && k < max;) {
      size_t len = strcspn(p, " ");
      memcpy(out[k], p, len);
      out[k++][len] = 0;
      p += len + (p[len] ? 1 : 0);
    }
    return k;
  }
  return 0;
}

int el__lm_aux_variants(const char *w, int family, char out[][EL__LWORD_MAX], int max) {
  if (family == EL__LF_VERB_SVA) return aux_lookup(AUX_SVA, sizeof AUX_SVA / sizeof *AUX_SVA, w, out, max);
  if (family == EL__LF_VERB_TENSE)
    return aux_lookup(AUX_TENSE, sizeof AUX_TENSE / sizeof *AUX_TENSE, w, out, max);
  if (family == EL__LF_VERB_FORM)
    return aux_lookup(AUX_FORM, sizeof AUX_FORM / sizeof *AUX_FORM, w, out, max);
  return 0;
}

/* ---- case ------------------------------------------------------------------ */

void el__lm_recase(const char *pattern, const char *low, char *out) {
  int letters = 0, upper = 0;
  for (const char *p = pattern; *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) letters++;
    if (*p >= 'A' && *p <= 'Z') upper++;
  }
  size_t n = strlen(low);
  if (n >= EL__LWORD_MAX) n = EL__LWORD_MAX - 1;
  memcpy(out, low, n);
  out[n] = 0;
  if (letters >= 2 && upper == letters) {
    for (size_t i = 0; i < n; i++)
      if (out[i] >= 'a' && out[i] <= 'z') out[i] = (char)(out[i] - 32);
  } else if (el__lm_is_upper(pattern[0]) && out[0] >= 'a' && out[0] <= 'z') {
    out[0] = (char)(out[0] - 32);
  }
}

void el__learner_recase(const char *pattern, const char *low, char *out) {
  el__lm_recase(pattern, low, out);
}
