/* A word a learner adds where the pattern alone says it is unnecessary
 * (learner.h: el__learner_extra_word): "be" before a verb of thinking or
 * wanting ("I am agree"), a preposition after a verb that takes its object
 * directly ("we discussed about the plan"), "more" before a comparative
 * ("more taller than"), a comma after an opening "I think" ("I think, it
 * is"). The trigrams see such a word only weakly (deleting
 * any word makes a sentence likelier), so these places are read by rule. */
#include <string.h>

#include "learner_internal.h"

/* Verbs a learner puts after "am"/"are" as if they were adjectives; none of
 * them is also an adjective or a participle, so "be" before them is always
 * wrong ("like", "live", "interest" are left out: "they are like air"). */
static const char *const STATIVE[] = {"agree", "disagree", "believe", "know", "want", "prefer",
                                      "enjoy", "hope", "suggest", "remember", "understand",
                                      "think", "need", "wish", "recommend", "regret"};
static const char *const BE_PLAIN[] = {"am", "are"};
/* words after which a pronoun opens a clause (not "do you", "let them") */
static const char *const OPENS_CLAUSE[] = {"and", "but", "so", "because", "that", "if", "when",
                                           "as", "think", "hope", "sure", "although", "or"};

/* A verb and the preposition learners add before its direct object; not
 * verbs whose noun takes one ("lack of", "request for", "attend at five"). */
static const struct {
  const char *lemma, *prep;
} VERB_PREP[] = {{"discuss", "about"}, {"mention", "about"},   {"emphasize", "on"},
                 {"emphasise", "on"},  {"describe", "about"},  {"comprise", "of"}};

/* Comparatives by "-er" that learners also mark with "more" ("more taller
 * than"); "better" and "worse" are the irregular ones. An adjective that
 * ends in "-er" itself ("clever", "bitter") takes "more", so only these. */
static const char *const COMPARATIVE[] = {
    "better",  "worse",   "taller",  "bigger",  "smaller", "older",   "younger", "cheaper",
    "faster",  "easier",  "happier", "larger",  "longer",  "shorter", "higher",  "nicer",
    "stronger", "richer", "harder",  "warmer",  "colder",  "busier",  "prettier", "heavier",
    "closer",  "greater", "safer",   "wider",   "deeper",  "quicker", "slower",  "louder",
    "cleaner", "newer",   "lower",   "funnier", "healthier", "hotter"};

/* "I am agree", "we are believe": am/are between a base-form subject that
 * opens a clause and a verb of STATIVE. */
static int extra_be(const char *const *low, int n, int i) {
  if (i < 1 || i + 1 >= n || !low[i - 1] || !low[i + 1] || !LISTED(low[i], BE_PLAIN)) return 0;
  /* after I/you/we/they deleting "am"/"are" leaves a correct verb ("I agree";
   * after he/she "is agree" wants "agrees") */
  if (!el__lv_plain_subject(low[i - 1]) || !LISTED(low[i + 1], STATIVE)) return 0;
  return i == 1 || !low[i - 2] || el__learner_token_kind(low[i - 2]) == EL__LK_PUNCT ||
         LISTED(low[i - 2], OPENS_CLAUSE);
}

/* "discussed about the plan": a preposition of VERB_PREP right after a form
 * of its verb, with a word after it (the object). */
static int extra_prep(const el__learner *l, const char *const *low, int n, int i) {
  if (i < 1 || i + 1 >= n || !low[i - 1] || !low[i + 1] ||
      el__learner_token_kind(low[i + 1]) != EL__LK_WORD)
    return 0;
  char lemma[EL__LWORD_MAX];
  if (!el__lm_verb(l, low[i - 1], lemma)) return 0;
  for (size_t k = 0; k < sizeof VERB_PREP / sizeof *VERB_PREP; k++)
    if (!strcmp(lemma, VERB_PREP[k].lemma) && !strcmp(low[i], VERB_PREP[k].prep)) return 1;
  return 0;
}

/* "more taller than", "more better": "more" right before a comparative of
 * COMPARATIVE ("than" after it, or "better"/"worse" alone). */
static int extra_more(const char *const *low, int n, int i) {
  if (i + 1 >= n || !low[i + 1] || strcmp(low[i], "more") || !LISTED(low[i + 1], COMPARATIVE))
    return 0;
  if (!strcmp(low[i + 1], "better") || !strcmp(low[i + 1], "worse")) return 1;
  return i + 2 < n && low[i + 2] && !strcmp(low[i + 2], "than");
}

/* "despite of the rain"; "told to her"; "because, I"; "you must to go":
 * "to" after "must" or "should" after a subject pronoun ("could" and
 * "would" leave "do" out as often: "all I could to help"; "will" and "can"
 * are nouns too). */
static const char *const MODAL_NO_TO[] = {"must", "should"};
/* Whom something is told: "told to her" -> "told her" (not "told to go"). */
static const char *const TOLD_WHOM[] = {"me", "him", "her", "us", "them", "his", "my", "our",
                                        "their", "your"};
/* An aside closes with a comma within a few words ("because, you see, it
 * was"; "because, he said, there was"): its opening comma stays. */
static int aside(const char *const *low, int n, int from) {
  for (int k = from; k < n && k < from + 4; k++)
    if (low[k] && !strcmp(low[k], ",")) return 1;
  return 0;
}

/* "told to" before whom and then what was told ("told to her that", "told to
 * his sister Sally"): not the passive, where what was told is the subject
 * ("it was told to me", "as 'twas told to me"), nor "told to me." ending a
 * clause ("everything he told to her."). */
static int told_to(const char *const *low, int n, int i) {
  if (i >= 2 && low[i - 2] &&
      (el__lv_be(low[i - 2]) || !strcmp(low[i - 2], "'twas") || !strcmp(low[i - 2], "twas")))
    return 0;
  return i + 2 < n && low[i + 2] && el__learner_token_kind(low[i + 2]) == EL__LK_WORD;
}

static int extra_fixed(const char *const *low, int n, int i) {
  if (i < 1 || i + 1 >= n || !low[i - 1] || !low[i + 1]) return 0;
  if (!strcmp(low[i], "of") && !strcmp(low[i - 1], "despite")) return 1;
  if (!strcmp(low[i], "to") && !strcmp(low[i - 1], "told") && LISTED(low[i + 1], TOLD_WHOM))
    return told_to(low, n, i);
  /* the comma between "because" and its clause's subject ("because, I have"),
   * unless it opens an aside */
  if (!strcmp(low[i], ",") && !strcmp(low[i - 1], "because") &&
      (el__lv_plain_subject(low[i + 1]) || el__lv_3sg_subject(low[i + 1]) || !strcmp(low[i + 1], "the")))
    return !aside(low, n, i + 2);
  return i >= 2 && low[i - 2] && (el__lv_3sg_subject(low[i - 2]) || el__lv_plain_subject(low[i - 2])) &&
         !strcmp(low[i], "to") &&
         LISTED(low[i - 1], MODAL_NO_TO) && el__learner_token_kind(low[i + 1]) == EL__LK_WORD;
}

/* "I think, it is": a comma between a sentence's opening "I/we/they think"
 * and the clause it introduces (its subject or "that"); not "I think,
 * however, ...", nor the aside "It was the first time, I think, I ...". */
static int extra_comma(const char *const *low, int n, int i) {
  if (i < 2 || i + 1 >= n || !low[i - 1] || !low[i - 2] || !low[i + 1] || strcmp(low[i], ",") ||
      strcmp(low[i - 1], "think") || !el__lv_plain_subject(low[i - 2]))
    return 0;
  if (i > 2 && (!low[i - 3] || !el__learner_ends_sentence(low[i - 3]))) return 0;
  return el__lv_plain_subject(low[i + 1]) || el__lv_3sg_subject(low[i + 1]) ||
         !strcmp(low[i + 1], "that") || !strcmp(low[i + 1], "this") || !strcmp(low[i + 1], "there");
}

int el__learner_extra_word(const el__learner *l, const char *const *low, int n, int i) {
  if (i < 0 || i >= n || !low[i]) return 0;
  return extra_be(low, n, i) || extra_prep(l, low, n, i) || extra_more(low, n, i) ||
         extra_fixed(low, n, i) || extra_comma(low, n, i);
}
