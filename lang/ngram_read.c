/* The n-gram model's reading of a sentence (ngram.h): for each word, how much
 * likelier the likeliest of the learner-error library's alternatives makes
 * the sentence. Only the trigrams that see the changed place are scored:
 * a change at position p alters the probabilities of p, p + 1 and p + 2. */
#include <stdlib.h>
#include <string.h>

#include "learner.h"
#include "ngram_internal.h"

/* A deletion is read by rule alone (el__learner_extra_word, at
 * AGREEMENT_GAIN below): the trigrams find almost any sentence likelier
 * with a word fewer. */
#define DEL_LEVEL 50.0
/* Two words written as one ("suggest to go" -> "going"): the pattern decides
 * (el__learner_gerund_object), the trigrams only check the -ing form is no
 * less likely there (CHECKED_FIX_LEVEL, below). */
#define JOIN_LEVEL 50.0

/* 1 % of the places of each kind in correct English are flagged at these
 * gains, in el__ngram_edit's order (docs/GED.md, "The English n-gram model
 * beside hunspell"; tests/bench/ngram_levels measures them). An added word
 * makes a sentence less likely whatever it is, so adding needs least. */
const double EL__NGRAM_GAIN[EL__NGRAM_EDITS] = {6.07, 4.69, 3.57, 2.18, 1.28, DEL_LEVEL, 2.16,
                                                JOIN_LEVEL};

#define NO_GAIN (-1e30)
#define MAX_ALT 8

/* The families whose alternatives replace a word, and the kind each counts
 * as: the confusion set of prepositions and the other forms of a verb or
 * noun. Not articles (but "a" and "an" for each other, below), nor a dropped
 * word: the trigrams prefer "cooked a meal" and "cooked meal" to "cooked the
 * meal" by 5.6 and 10 nats, and which article is right depends on what the
 * text said before; both together added nothing on FCE dev (docs/RESULTS.md)
 * and flagged "the" in make run's example sentence. */
static const struct {
  int family;
  el__ngram_edit kind;
} REPLACING[] = {{EL__LF_PREP_WRONG, EL__NGRAM_PREP}, {EL__LF_VERB_SVA, EL__NGRAM_VERB},
                 {EL__LF_VERB_TENSE, EL__NGRAM_VERB}, {EL__LF_VERB_FORM, EL__NGRAM_VERB},
                 {EL__LF_NOUN_NUM, EL__NGRAM_NOUN}};
/* What an added article may be ("take exam" -> "take the exam"). */
static const char *const ADDED[] = {"the", "a", "an"};

typedef struct sentence {
  int32_t *ids;  /* <s>, the words the model reads, </s>; </s> <s> where a sentence ends
                    inside the text (". ! ?" before more words) */
  int *word_at;  /* position in ids -> index of the word (-1: a boundary) */
  int len;
  int32_t *alt;  /* scratch: ids with one change, len + 1 */
} sentence;

static void sentence_free(sentence *s) {
  free(s->ids);
  free(s->word_at);
  free(s->alt);
}

static void put(sentence *s, int32_t id, int word) {
  s->word_at[s->len] = word;
  s->ids[s->len++] = id;
}

static int sentence_read(el__ngram *m, const char *const *words, int n, sentence *s) {
  memset(s, 0, sizeof *s);
  size_t cap = 3 * (size_t)n + 3; /* each word may end a sentence: </s> <s> after it */
  s->ids = malloc(cap * sizeof *s->ids);
  s->word_at = malloc(cap * sizeof *s->word_at);
  s->alt = malloc((cap + 1) * sizeof *s->alt);
  if (!s->ids || !s->word_at || !s->alt) return -1;
  put(s, el__ngram_boundary(m, 0), -1);
  int ended = 0; /* a sentence ended: the next word starts another */
  for (int i = 0; i < n; i++) {
    if (!el__ngram_has_text(words[i])) {
      ended |= el__learner_ends_sentence(words[i]);
      continue;
    }
    if (ended && s->word_at[s->len - 1] >= 0) {
      put(s, el__ngram_boundary(m, 1), -1);
      put(s, el__ngram_boundary(m, 0), -1);
    }
    ended = 0;
    put(s, el__ngram_id(m, words[i]), i);
  }
  put(s, el__ngram_boundary(m, 1), -1);
  return 0;
}

/* ln P of the sentence with ids[p] replaced by id, less the sentence's. */
static double replace_gain(el__ngram *m, const sentence *s, int p, int32_t id) {
  memcpy(s->alt, s->ids, (size_t)s->len * sizeof *s->alt);
  s->alt[p] = id;
  return el__ngram_span_logp(m, s->alt, s->len, p, p + 3) -
         el__ngram_span_logp(m, s->ids, s->len, p, p + 3);
}

/* ... with id added before ids[p]. */
static double add_gain(el__ngram *m, const sentence *s, int p, int32_t id) {
  memcpy(s->alt, s->ids, (size_t)p * sizeof *s->alt);
  s->alt[p] = id;
  memcpy(s->alt + p + 1, s->ids + p, (size_t)(s->len - p) * sizeof *s->alt);
  return el__ngram_span_logp(m, s->alt, s->len + 1, p, p + 3) -
         el__ngram_span_logp(m, s->ids, s->len, p, p + 2);
}

/* ... with ids[p] and ids[p + 1] replaced by the one id. */
static double join_gain(el__ngram *m, const sentence *s, int p, int32_t id) {
  memcpy(s->alt, s->ids, (size_t)p * sizeof *s->alt);
  s->alt[p] = id;
  memcpy(s->alt + p + 1, s->ids + p + 2, (size_t)(s->len - p - 2) * sizeof *s->alt);
  return el__ngram_span_logp(m, s->alt, s->len - 1, p, p + 3) -
         el__ngram_span_logp(m, s->ids, s->len, p, p + 4);
}

/* A word the model may judge: known to it, and not a name (capitalised
 * where a sentence does not start) nor "I". */
static int judged(el__ngram *m, const sentence *s, int p, const char *w) {
  if (s->word_at[p] < 0 || s->ids[p] == EL__NGRAM_NONE) return 0;
  int capital = w[0] >= 'A' && w[0] <= 'Z';
  int first = s->ids[p - 1] == el__ngram_boundary(m, 0);
  return !(capital && !first) && strcmp(w, "I");
}

static void lower(const char *w, char *out) {
  size_t i = 0;
  for (; w[i] && i + 1 < EL__LWORD_MAX; i++)
    out[i] = (char)(w[i] >= 'A' && w[i] <= 'Z' ? w[i] - 'A' + 'a' : w[i]);
  out[i] = 0;
}

/* g[kind] = max(g[kind], gain); the alternative kept beside it (alt may be NULL). */
static void keep(double *g, char (*alt)[EL__LWORD_MAX], int kind, double gain, const char *text) {
  if (gain <= g[kind]) return;
  g[kind] = gain;
  if (!alt) return;
  size_t n = strnlen(text, EL__LWORD_MAX - 1);
  memcpy(alt[kind], text, n);
  alt[kind][n] = 0;
}

/* The gains of the alternatives to the word at position p, into
 * g[EL__NGRAM_EDITS], and the alternatives into alt (NULL: not kept).
 * A verb's gain is its best form's, but the alternative kept is the form
 * that agrees with its subject when that one reaches the verb level too:
 * "she have me" -> "has", not the trigrams' likelier "had", which would
 * change what the writer said rather than mend its grammar. */
static void word_gains(el__ngram *m, const el__learner *l, const sentence *s,
                       const char *const *words, int p, double *g, char (*alt_out)[EL__LWORD_MAX]) {
  char low[EL__LWORD_MAX], prev[EL__LWORD_MAX] = "", alt[MAX_ALT][EL__LWORD_MAX];
  double agree = NO_GAIN; /* the best agreeing form's gain, and the form */
  char agree_alt[EL__LWORD_MAX] = "";
  lower(words[s->word_at[p]], low);
  if (s->word_at[p - 1] >= 0) lower(words[s->word_at[p - 1]], prev);
  for (size_t f = 0; f < sizeof REPLACING / sizeof *REPLACING; f++) {
    int k = el__learner_variants(l, low, REPLACING[f].family, alt, MAX_ALT);
    for (int a = 0; a < k; a++) {
      int32_t id = el__ngram_id(m, alt[a]);
      if (id == EL__NGRAM_NONE) continue;
      const double gain = replace_gain(m, s, p, id);
      keep(g, alt_out, REPLACING[f].kind, gain, alt[a]);
      if (REPLACING[f].family == EL__LF_VERB_SVA && gain > agree) {
        agree = gain;
        memcpy(agree_alt, alt[a], EL__LWORD_MAX);
      }
    }
  }
  if (alt_out && agree >= EL__NGRAM_GAIN[EL__NGRAM_VERB])
    memcpy(alt_out[EL__NGRAM_VERB], agree_alt, EL__LWORD_MAX);
  /* "a" for "an" and back: the next word's sound decides, not what the text said before */
  const char *other = !strcmp(low, "a") ? "an" : !strcmp(low, "an") ? "a" : NULL;
  if (other) keep(g, alt_out, EL__NGRAM_AN, replace_gain(m, s, p, el__ngram_id(m, other)), other);
  /* a word often confused with it ("the hole day" -> "whole") */
  int k = el__learner_confusables(low, alt, MAX_ALT);
  for (int a = 0; a < k; a++) {
    int32_t id = el__ngram_id(m, alt[a]);
    if (id != EL__NGRAM_NONE) keep(g, alt_out, EL__NGRAM_CONF, replace_gain(m, s, p, id), alt[a]);
  }
  uint32_t cls = el__learner_word_class(l, low);
  /* an article before an open-class word, unless a determiner is already there */
  if (!cls && !(el__learner_word_class(l, prev) & EL__LC_DET))
    for (size_t a = 0; a < sizeof ADDED / sizeof *ADDED; a++)
      keep(g, alt_out, EL__NGRAM_ADD, add_gain(m, s, p, el__ngram_id(m, ADDED[a])), ADDED[a]);
}

/* What el__learner_agreement and el__learner_verb_form_fix find ("she go"
 * -> "goes", "didn't went" -> "go") as a verb edit past any level: the
 * pattern decides alone, where the trigrams gain too little for a level that
 * keeps correct English clean ("she goes to school every day" is only 2.1
 * nats likelier than "she go ..."). What el__learner_noun_agreement ("my
 * sister go") and el__learner_past_fixes ("Yesterday I go") propose counts
 * the same when the trigrams find the fix (the likeliest of the past forms)
 * at least CHECKED_FIX_LEVEL likelier: after a noun the pattern alone cannot
 * tell a verb from a second noun ("my mother tongue", "my brother name").
 * A time phrase that ends the clause ("I go to the cinema yesterday") is out
 * of the trigrams' reach from the verb: there they only choose the form.
 * "your" for "you" after a preposition and "going" for "to go" after
 * "suggest" count the same way; an opening phrase's comma by the pattern. */
#define AGREEMENT_GAIN 100.0
#define CHECKED_FIX_LEVEL 0.0
/* The rules the pattern decides alone, at every word i of w. */
static void pattern_rules(const el__learner *l, const char *const *w, int n, double *gain,
                          char (*alt)[EL__LWORD_MAX]) {
  char fix[EL__LWORD_MAX];
  for (int i = 0; i < n; i++) {
    double *g = gain + EL__NGRAM_EDITS * (size_t)i;
    char(*a)[EL__LWORD_MAX] = alt ? alt + EL__NGRAM_EDITS * (size_t)i : NULL;
    if (el__learner_agreement(l, w, n, i, fix) || el__learner_verb_form_fix(l, w, n, i, fix))
      keep(g, a, EL__NGRAM_VERB, AGREEMENT_GAIN, fix);
    if (el__learner_extra_word(l, w, n, i) || el__learner_perfect_in_past(l, w, n, i))
      keep(g, a, EL__NGRAM_DEL, AGREEMENT_GAIN, "");
    if (el__learner_missing_word(l, w, n, i, fix)) keep(g, a, EL__NGRAM_ADD, AGREEMENT_GAIN, fix);
    if (el__learner_phrase_prep(w, n, i, fix)) keep(g, a, EL__NGRAM_PREP, AGREEMENT_GAIN, fix);
    if (el__learner_phrase_noun(w, n, i, fix)) keep(g, a, EL__NGRAM_NOUN, AGREEMENT_GAIN, fix);
    if (el__learner_opening_comma(l, w, n, i)) keep(g, a, EL__NGRAM_ADD, AGREEMENT_GAIN, ",");
    if (el__learner_joined_words(w, n, i, fix)) keep(g, a, EL__NGRAM_JOIN, AGREEMENT_GAIN, fix);
    if (el__learner_letter_close(l, w, n, i, fix)) keep(g, a, EL__NGRAM_CONF, AGREEMENT_GAIN, fix);
  }
}

/* The rules whose fix the trigrams must find at least as likely, at every
 * position p of s (words: the writer's, w: lower-case). */
static void checked_rules(el__ngram *m, const el__learner *l, const sentence *s,
                          const char *const *words, const char *const *w, int n, double *gain,
                          char (*alt)[EL__LWORD_MAX]) {
  char fix[EL__LWORD_MAX];
  for (int p = 1; p + 1 < s->len; p++) {
    const int i = s->word_at[p];
    if (i < 0) continue;
    char past[MAX_ALT][EL__LWORD_MAX];
    int last = 0, k = el__learner_past_fixes(l, w, n, i, past, MAX_ALT, &last);
    if (el__learner_noun_agreement(l, w, n, i, fix)) memcpy(past[0], fix, EL__LWORD_MAX), k = 1, last = 0;
    /* the likeliest of the fixes ("went" rather than "gone"), if at least as likely */
    double best = NO_GAIN;
    for (int a = 0; a < k; a++) {
      const int32_t id = el__ngram_id(m, past[a]);
      const double g = id == EL__NGRAM_NONE ? NO_GAIN : replace_gain(m, s, p, id);
      if (g > best) best = g, memcpy(fix, past[a], EL__LWORD_MAX);
    }
    double *g = gain + EL__NGRAM_EDITS * (size_t)i;
    char(*a)[EL__LWORD_MAX] = alt ? alt + EL__NGRAM_EDITS * (size_t)i : NULL;
    if (k && (last ? best > NO_GAIN : best >= CHECKED_FIX_LEVEL))
      keep(g, a, EL__NGRAM_VERB, AGREEMENT_GAIN, fix);
    /* "for you letter" -> "your" (not before a name: "worthy of you Rose") */
    if (el__learner_you_your(l, w, n, i) && !(words[i + 1][0] >= 'A' && words[i + 1][0] <= 'Z') &&
        replace_gain(m, s, p, el__ngram_id(m, "your")) >= CHECKED_FIX_LEVEL)
      keep(g, a, EL__NGRAM_CONF, AGREEMENT_GAIN, "your");
    /* "suggest to go" -> "going" */
    if (s->word_at[p + 1] == i + 1 && el__learner_gerund_object(l, w, n, i, fix) &&
        el__ngram_id(m, fix) != EL__NGRAM_NONE &&
        join_gain(m, s, p, el__ngram_id(m, fix)) >= CHECKED_FIX_LEVEL)
      keep(g, a, EL__NGRAM_JOIN, AGREEMENT_GAIN, fix);
  }
}

static int agreement(el__ngram *m, const el__learner *l, const sentence *s, const char *const *words,
                     int n, double *gain, char (*alt)[EL__LWORD_MAX], el_error *err) {
  char(*low)[EL__LWORD_MAX] = malloc(((size_t)n + 1) * sizeof *low);
  const char **w = malloc(((size_t)n + 1) * sizeof *w);
  if (!low || !w) {
    free(low);
    free(w);
    return el_error_set(err, EL_ENOMEM, "n-gram model: out of memory");
  }
  for (int i = 0; i < n; i++) {
    lower(words[i], low[i]);
    w[i] = strlen(words[i]) < EL__LWORD_MAX - 1 ? low[i] : NULL;
  }
  pattern_rules(l, w, n, gain, alt);
  checked_rules(m, l, s, words, w, n, gain, alt);
  free(low);
  free(w);
  return EL_OK;
}

/* el__ngram_gains, keeping each gain's alternative in alt[EL__NGRAM_EDITS i + kind] when alt
 * is non-NULL. */
static int gains(el__ngram *m, const el__learner *l, const char *const *words, int n, double *gain,
                 char (*alt)[EL__LWORD_MAX], el_error *err) {
  for (int i = 0; i < EL__NGRAM_EDITS * n; i++) gain[i] = NO_GAIN;
  sentence s;
  if (sentence_read(m, words, n, &s)) {
    sentence_free(&s);
    return el_error_set(err, EL_ENOMEM, "n-gram model: out of memory");
  }
  for (int p = 1; p + 1 < s.len; p++)
    if (judged(m, &s, p, words[s.word_at[p] < 0 ? 0 : s.word_at[p]])) {
      size_t at = EL__NGRAM_EDITS * (size_t)s.word_at[p];
      word_gains(m, l, &s, words, p, gain + at, alt ? alt + at : NULL);
    }
  int rc = agreement(m, l, &s, words, n, gain, alt, err);
  sentence_free(&s);
  return rc;
}

double el__ngram_logp(el__ngram *m, const char *const *words, int n) {
  sentence s;
  double lp = sentence_read(m, words, n, &s) ? 0 : el__ngram_span_logp(m, s.ids, s.len, 1, s.len);
  sentence_free(&s);
  return lp;
}

int el__ngram_gains(el__ngram *m, const el__learner *l, const char *const *words, int n,
                    double *gain, el_error *err) {
  return gains(m, l, words, n, gain, NULL, err);
}

int el__ngram_best(el__ngram *m, const el__learner *l, const char *const *words, int n, int *kind,
                   char (*best)[EL__LWORD_MAX], el_error *err) {
  size_t k = EL__NGRAM_EDITS * (size_t)n + 1;
  double *g = malloc(k * sizeof *g);
  char(*alt)[EL__LWORD_MAX] = malloc(k * sizeof *alt);
  int rc = g && alt ? gains(m, l, words, n, g, alt, err)
                    : el_error_set(err, EL_ENOMEM, "n-gram model: out of memory");
  for (int i = 0; i < n; i++) {
    kind[i] = -1;
    best[i][0] = 0;
    double most = 0; /* by how much a gain passes its level */
    for (int e = 0; !rc && e < EL__NGRAM_EDITS; e++) {
      double over = g[EL__NGRAM_EDITS * i + e] - EL__NGRAM_GAIN[e];
      if (over >= 0 && (kind[i] < 0 || over > most)) {
        kind[i] = e, most = over;
        memcpy(best[i], alt[EL__NGRAM_EDITS * i + e], EL__LWORD_MAX);
      }
    }
  }
  free(g);
  free(alt);
  return rc;
}

int el__ngram_read_words(el__ngram *m, const el__learner *l, const char *const *words, int n,
                         unsigned char *out, el_error *err) {
  int *kind = malloc(((size_t)n + 1) * sizeof *kind);
  char(*best)[EL__LWORD_MAX] = malloc(((size_t)n + 1) * sizeof *best);
  int rc = kind && best ? el__ngram_best(m, l, words, n, kind, best, err)
                        : el_error_set(err, EL_ENOMEM, "n-gram model: out of memory");
  for (int i = 0; i < n; i++) out[i] = !rc && kind[i] >= 0;
  /* two words a hyphen joins ("forty five", "make up"): the second is the
   * one that changes, where FCE's annotators mark the error */
  for (int i = 0; !rc && i + 1 < n; i++)
    if (kind[i] == EL__NGRAM_JOIN && strchr(best[i], '-')) out[i] = 0, out[i + 1] = 1;
  free(kind);
  free(best);
  return rc;
}
