/* Fixed phrases learners break in ways the pattern alone decides
 * (learner.h: el__learner_missing_word, el__learner_phrase_prep): a subject
 * "it" dropped after a conjunction ("because is cheap") or after
 * "appreciate" ("I would appreciate if you"), "to" dropped or replaced in
 * "look forward to" ("forward hearing", "forward for your answer"), "the
 * reason of" for "the reason for". Each is a place the trigrams judge
 * weakly: a word added or another preposition changes little of a short
 * window. */
#include <stdio.h>
#include <string.h>

#include "learner_internal.h"

/* Conjunctions after which "is"/"was" has lost its subject "it" ("because
 * is cheap"); not "as is", "so is he", "than is needed", "when is the show",
 * nor "while", a noun as often ("for a while was merry"). */
static const char *const CONJ_IT[] = {"because", "if", "although", "though"};
static const char *const BE_3SG[] = {"is", "was", "isn't", "wasn't"};

int el__learner_missing_word(const el__learner *l, const char *const *low, int n, int i, char *word) {
  if (i < 1 || i >= n || !low[i] || !low[i - 1]) return 0;
  /* "because is cheap" -> "because it is"; "if is possible" */
  if (LISTED(low[i], BE_3SG) && LISTED(low[i - 1], CONJ_IT)) return strcpy(word, "it"), 1;
  /* "I would appreciate if you" -> "appreciate it if" */
  if (!strcmp(low[i], "if") && !strcmp(low[i - 1], "appreciate")) return strcpy(word, "it"), 1;
  /* "looking forward hearing from you" -> "forward to hearing"; an -ing form
   * only: "he looked forward and saw" is the other "look forward" */
  char lemma[EL__LWORD_MAX];
  if (!strcmp(low[i - 1], "forward") && i >= 2 && low[i - 2] && !strncmp(low[i - 2], "look", 4) &&
      (el__lm_verb(l, low[i], lemma) & EL__VF_ING))
    return strcpy(word, "to"), 1;
  return 0;
}

/* Prepositions learners put after "look forward" instead of "to"; not
 * "with", "on", "at", which the other "look forward" takes ("looked forward
 * with hope", "looking forward at the road"). */
static const char *const NOT_TO[] = {"for", "of", "about"};

int el__learner_phrase_prep(const char *const *low, int n, int i, char *fix) {
  if (i < 2 || i + 1 >= n || !low[i] || !low[i - 1] || !low[i - 2] || !low[i + 1]) return 0;
  /* "I look forward for your answer" -> "to" */
  if (!strcmp(low[i - 1], "forward") && !strncmp(low[i - 2], "look", 4) && LISTED(low[i], NOT_TO))
    return strcpy(fix, "to"), 1;
  /* "the reason of my letter" -> "for" (not "by reason of") */
  if (!strcmp(low[i], "of") && (!strcmp(low[i - 1], "reason") || !strcmp(low[i - 1], "reasons")) &&
      (!strcmp(low[i - 2], "the") || !strcmp(low[i - 2], "main") || !strcmp(low[i - 2], "a")))
    return strcpy(fix, "for"), 1;
  return 0;
}
