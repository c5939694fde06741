/* Fixed phrases learners break in ways the pattern alone decides
 * (learner.h: el__learner_missing_word, el__learner_phrase_prep,
 * el__learner_phrase_noun): a subject "it" dropped after a conjunction
 * ("because is cheap"), after "I think" ("I think is a good idea") or after
 * "appreciate" ("I would appreciate if you"), "to" dropped or replaced in
 * "look forward to" ("forward hearing", "forward for your answer"), "you" in
 * "thank you for", "to" in "explain to me", "from" in "hearing from you",
 * "to" in "writing to you" and "reply to your" ("reply for your letter"),
 * "the reason of" for "the reason for", "on July" for "in July", "the
 * advertisement of" for "for", "good in tennis" for "good at", "all kind of"
 * for "all kinds of", "on holidays" for "on holiday". Each is a place the
 * trigrams judge weakly: a word added or another preposition changes little
 * of a short window. */
#include <stdio.h>
#include <string.h>

#include "learner_internal.h"

/* Conjunctions after which "is"/"was" has lost its subject "it" ("because
 * is cheap"); not "as is", "so is he", "than is needed", "when is the show",
 * nor "while", a noun as often ("for a while was merry"). */
static const char *const CONJ_IT[] = {"because", "if", "although", "though"};
static const char *const BE_3SG[] = {"is", "was", "isn't", "wasn't"};
/* people a thing is explained to: not "her" (a possessive too: "explain her
 * ideas"), "them", "him" (the thing explained as often: "I cannot explain them") */
static const char *const OBJECT[] = {"me", "you", "us"};

/* "I am writing you to complain" -> "writing to you": British English (FCE's)
 * writes "to" before the person written to, unless a thing written follows
 * ("write me a letter", "I write you this"). */
static int write_to(const el__learner *l, const char *const *low, int n, int i) {
  static const char *const WRITE[] = {"write", "writes", "writing", "wrote", "written", "writting"};
  static const char *const THING[] = {"this", "that", "these", "those", "back", "a", "an", "some"};
  if (!LISTED(low[i - 1], WRITE) || !LISTED(low[i], OBJECT)) return 0;
  return i + 1 >= n || !low[i + 1] ||
         (!LISTED(low[i + 1], THING) && !(el__learner_word_class(l, low[i + 1]) & EL__LC_DET));
}

/* "is" right after "I/we think" that opens a sentence or follows "because",
 * "so" or "but": no object of "think" before it, as in "what I think is
 * right", "who do you think is here", "the best way I think is". */
static int think_is(const char *const *low, int i) {
  static const char *const SUBJ[] = {"i", "we"};
  static const char *const OPENS[] = {"because", "so", "but"};
  if (i < 2 || strcmp(low[i], "is") || strcmp(low[i - 1], "think") || !low[i - 2] ||
      !LISTED(low[i - 2], SUBJ))
    return 0;
  return i == 2 || !low[i - 3] || el__learner_ends_sentence(low[i - 3]) || LISTED(low[i - 3], OPENS);
}

/* "reply", "replying" (not "replied", which opens an inverted quotation:
 * "replied the master"). */
static int reply_verb(const char *w) { return !strcmp(w, "reply") || !strcmp(w, "replying"); }

int el__learner_missing_word(const el__learner *l, const char *const *low, int n, int i, char *word) {
  if (i < 1 || i >= n || !low[i] || !low[i - 1]) return 0;
  /* "I am writing you" -> "writing to you"; "reply your letter" -> "reply to" */
  if (write_to(l, low, n, i)) return strcpy(word, "to"), 1;
  static const char *const POSSESSIVE[] = {"your", "my", "his", "her", "our", "their"};
  if (reply_verb(low[i - 1]) && LISTED(low[i], POSSESSIVE))
    return strcpy(word, "to"), 1;
  /* "because is cheap" -> "because it is"; "if is possible" */
  if (LISTED(low[i], BE_3SG) && LISTED(low[i - 1], CONJ_IT)) return strcpy(word, "it"), 1;
  /* "I think is a good idea" -> "I think it is"; not "what I think is right" */
  if (think_is(low, i)) return strcpy(word, "it"), 1;
  /* "I would appreciate if you" -> "appreciate it if" */
  if (!strcmp(low[i], "if") && !strcmp(low[i - 1], "appreciate")) return strcpy(word, "it"), 1;
  /* "looking forward hearing from you" -> "forward to hearing"; an -ing form
   * only: "he looked forward and saw" is the other "look forward" */
  char lemma[EL__LWORD_MAX];
  if (!strcmp(low[i - 1], "forward") && i >= 2 && low[i - 2] && !strncmp(low[i - 2], "look", 4) &&
      (el__lm_verb(l, low[i], lemma) & EL__VF_ING))
    return strcpy(word, "to"), 1;
  /* "Thank for your letter" -> "Thank you for"; not "nobody to thank for it" */
  if (!strcmp(low[i], "for") && !strcmp(low[i - 1], "thank") &&
      (i == 1 || !low[i - 2] || el__learner_token_kind(low[i - 2]) == EL__LK_PUNCT ||
       !strcmp(low[i - 2], "i") || !strcmp(low[i - 2], "we")))
    return strcpy(word, "you"), 1;
  /* "Can you explain me" -> "explain to me" */
  if (LISTED(low[i], OBJECT) && !strncmp(low[i - 1], "explain", 7) &&
      (!low[i - 1][7] || !strcmp(low[i - 1] + 7, "s") || !strcmp(low[i - 1] + 7, "ed")))
    return strcpy(word, "to"), 1;
  /* "I look forward to hearing you" -> "hearing from you" */
  if (!strcmp(low[i], "you") && !strcmp(low[i - 1], "hearing") && i >= 3 && low[i - 2] &&
      low[i - 3] && !strcmp(low[i - 2], "to") && !strcmp(low[i - 3], "forward"))
    return strcpy(word, "from"), 1;
  return 0;
}

/* Prepositions learners put after "look forward" instead of "to"; not
 * "with", "on", "at", which the other "look forward" takes ("looked forward
 * with hope", "looking forward at the road"). */
static const char *const NOT_TO[] = {"for", "of", "about"};

/* Months ("in July"; "on July 4th" names a day). Not "may", a verb as often. */
static const char *const MONTHS[] = {"january", "february", "march",     "april",   "june",
                                     "july",    "august",   "september", "october", "november",
                                     "december"};

/* "on July" -> "in July": "on" or "at" before a month no day follows. */
static int month_prep(const char *const *low, int n, int i) {
  if (i + 1 >= n || !low[i + 1] || (strcmp(low[i], "on") && strcmp(low[i], "at")) ||
      !LISTED(low[i + 1], MONTHS))
    return 0;
  const char *after = i + 2 < n && low[i + 2] ? low[i + 2] : "";
  return !(after[0] >= '0' && after[0] <= '9') && strcmp(after, "the");
}

/* "I am very good in tennis" -> "good at": a person is good at a skill. "in"
 * or "on" after "good" after a form of "be" (adverbs between) whose subject
 * is a person pronoun, not before a determiner or possessive ("good in his
 * role", "good in one way", "good in the kitchen"): 33 of FCE train's 37
 * "good in" are marked, the 4 others all such; "good on" 7 of 7. */
static int good_at(const char *const *low, int i) {
  static const char *const BE_FORMS[] = {"am", "'m", "is", "'s", "are", "'re", "was", "were",
                                         "i'm", "he's", "she's", "we're", "you're", "they're"};
  static const char *const ADVERB[] = {"very", "quite", "really", "so", "rather", "not", "n't",
                                       "pretty", "reasonably", "extremely", "too", "also"};
  static const char *const NOT_SKILL[] = {"the", "a", "an", "his", "her", "my", "your", "our",
                                          "their", "its", "one", "that", "some", "every", "any"};
  if ((strcmp(low[i], "in") && strcmp(low[i], "on")) || strcmp(low[i - 1], "good") ||
      LISTED(low[i + 1], NOT_SKILL) ||
      el__learner_token_kind(low[i + 1]) != EL__LK_WORD)
    return 0;
  int j = i - 2;
  while (j >= 0 && low[j] && LISTED(low[j], ADVERB) && j > i - 5) j--;
  if (j < 0 || !low[j] || !LISTED(low[j], BE_FORMS)) return 0;
  if (strchr(low[j], '\'') && low[j][0] != '\'') return 1; /* "I'm", "she's": subject inside */
  /* a person: not "it" ("it is good in winter") */
  const char *subject = j >= 1 ? low[j - 1] : NULL;
  return subject && (el__lv_plain_subject(subject) || el__lv_3sg_subject(subject)) &&
         strcmp(subject, "it");
}

int el__learner_phrase_prep(const char *const *low, int n, int i, char *fix) {
  if (i < 1 || i + 1 >= n || !low[i] || !low[i - 1] || !low[i + 1]) return 0;
  if (month_prep(low, n, i)) return strcpy(fix, "in"), 1;
  if (good_at(low, i)) return strcpy(fix, "at"), 1;
  if (i < 2 || !low[i - 2]) return 0;
  /* "the advertisement of the show" -> "for" */
  if (!strcmp(low[i], "of") && (!strcmp(low[i - 1], "advertisement") || !strcmp(low[i - 1], "advert")) &&
      (!strcmp(low[i - 2], "the") || !strcmp(low[i - 2], "your") || !strcmp(low[i - 2], "an")))
    return strcpy(fix, "for"), 1;
  /* "to reply for your letter", "a reply for my questions" -> "to" */
  static const char *const REPLIED_TO[] = {"your", "my", "his", "her", "our", "their", "you",
                                           "me", "it", "this", "that", "the"};
  /* (not "made no reply for a while") */
  if (!strcmp(low[i], "for") && reply_verb(low[i - 1]) && LISTED(low[i + 1], REPLIED_TO))
    return strcpy(fix, "to"), 1;
  /* "I look forward for your answer" -> "to" */
  if (!strcmp(low[i - 1], "forward") && !strncmp(low[i - 2], "look", 4) && LISTED(low[i], NOT_TO))
    return strcpy(fix, "to"), 1;
  /* "the reason of my letter" -> "for" (not "by reason of") */
  if (!strcmp(low[i], "of") && (!strcmp(low[i - 1], "reason") || !strcmp(low[i - 1], "reasons")) &&
      (!strcmp(low[i - 2], "the") || !strcmp(low[i - 2], "main") || !strcmp(low[i - 2], "a")))
    return strcpy(fix, "for"), 1;
  return 0;
}

/* "all kind of" -> "all kinds of": a plural after "all" that "of" follows;
 * "on holidays" -> "on holiday". */
int el__learner_phrase_noun(const char *const *low, int n, int i, char *fix) {
  if (i >= 1 && i < n && low[i] && low[i - 1] && !strcmp(low[i], "holidays") && !strcmp(low[i - 1], "on"))
    return strcpy(fix, "holiday"), 1;
  if (i < 1 || i + 1 >= n || !low[i] || !low[i - 1] || !low[i + 1] || strcmp(low[i - 1], "all") ||
      strcmp(low[i + 1], "of"))
    return 0;
  if (!strcmp(low[i], "kind")) return strcpy(fix, "kinds"), 1;
  if (!strcmp(low[i], "sort")) return strcpy(fix, "sorts"), 1;
  if (!strcmp(low[i], "type")) return strcpy(fix, "types"), 1;
  return 0;
}
