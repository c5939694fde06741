/* A verb that does not agree with its subject pronoun, and the tense a
 * sentence is written in (learner.h: el__learner_agreement,
 * el__learner_sentence_tense): the commonest errors learners make where the
 * pattern alone decides, for the checker and the n-gram reading beside the
 * model ("she go" -> "goes", which the trigrams find only 2.1 nats likelier
 * in "she goes to school every day"). */
#include <string.h>

#include "learner_internal.h"

#define MAXV 6

/* be/have/do after he/she/it, and after I or we/you/they: the form each wants. */
static const char *const AUX_FIX_3SG[][2] = {
    {"have", "has"}, {"do", "does"}, {"are", "is"}, {"am", "is"},
    {"don't", "doesn't"}, {"haven't", "hasn't"}, {"aren't", "isn't"}};
static const char *const AUX_FIX_I[][2] = {
    {"is", "am"}, {"are", "am"}, {"has", "have"}, {"does", "do"},
    {"doesn't", "don't"}, {"hasn't", "haven't"}};
static const char *const AUX_FIX_PLURAL[][2] = {
    {"is", "are"}, {"am", "are"}, {"was", "were"}, {"has", "have"}, {"does", "do"},
    {"doesn't", "don't"}, {"hasn't", "haven't"}, {"isn't", "aren't"}, {"wasn't", "weren't"}};
/* adverbs a learner puts between subject and verb ("he always go") */
static const char *const BETWEEN[] = {"always", "often", "never", "usually", "sometimes", "also",
                                      "really", "only", "just", "still", "even", "already"};

/* a subject joined to another: the verb agrees with both */
static const char *const JOINING[] = {"and", "or", "nor"};
/* verbs that are also modals ("she need not") */
static const char *const SEMI_MODAL[] = {"need", "dare"};

static const char *aux_fix(const char *const (*table)[2], size_t n, const char *w) {
  for (size_t k = 0; k < n; k++)
    if (!strcmp(w, table[k][0])) return table[k][1];
  return NULL;
}
#define AUX_FIX(table, w) aux_fix(table, sizeof table / sizeof *table, w)

/* ---- the tense of a sentence ---------------------------------------------- */

static const char *const PRESENT_AUX[] = {"am",   "is",   "are",   "does",  "has",
                                          "can",  "will", "must",  "shall", "may"};
static const char *const PAST_AUX[] = {"was", "were", "did", "had", "could"};
static const char *const PRESENT_TIME[] = {"usually",   "nowadays", "every", "normally",
                                           "generally", "today",    "now"};
static const char *const PAST_TIME[] = {"yesterday", "ago", "previously"};
/* "last" tells the past before these ("last week"), not in "at last" */
static const char *const LAST_WHAT[] = {
    "week",    "month",   "year",     "night",   "summer",  "winter",    "weekend",
    "time",    "holiday", "holidays", "spring",  "autumn",  "monday",    "tuesday",
    "wednesday", "thursday", "friday", "saturday", "sunday"};

/* 1 present ("goes", "is", "can"), -1 past ("went", "was"), 0 neither. */
static int word_tense(const el__learner *l, const char *w) {
  if (LISTED(w, PRESENT_AUX)) return 1;
  if (LISTED(w, PAST_AUX)) return -1;
  char lemma[EL__LWORD_MAX];
  int form = el__lm_verb(l, w, lemma);
  return form == EL__VF_S3 ? 1 : form == EL__VF_PAST ? -1 : 0;
}

/* The tense word i of a sentence tells, as a verb in its place or a time
 * word: a past form after be/have is a participle and tells nothing. */
static int tells(const el__learner *l, const char *const *words, int n, int i) {
  const char *w = words[i];
  if (LISTED(w, PRESENT_TIME)) return 1;
  if (LISTED(w, PAST_TIME)) return -1;
  if (!strcmp(w, "last") && i + 1 < n && words[i + 1] && LISTED(words[i + 1], LAST_WHAT)) return -1;
  int t = word_tense(l, w);
  if (t < 0 && i > 0 && !LISTED(w, PAST_AUX) && words[i - 1] &&
      (el__learner_word_class(l, words[i - 1]) & EL__LC_AUX))
    return 0;
  return t;
}

int el__learner_sentence_tense(const el__learner *l, const char *const *words, int n, int skip) {
  int sum = 0;
  for (int i = 0; i < n; i++)
    if (i != skip && words[i]) sum += tells(l, words, n, i);
  return (sum > 0) - (sum < 0);
}

/* ---- agreement --------------------------------------------------------------- */

/* An open verb's form `to` (S3 or BASE) for the word w in form
 * `from`; 0 when w is not that form or its tense is unclear ("put", "read":
 * a base form that is also its past). */
static int open_verb_fix(const el__learner *l, const char *w, int from, int to, char *fix) {
  char lemma[EL__LWORD_MAX], forms[MAXV][EL__LWORD_MAX];
  if (el__lv_ends_same_past(w) || el__lm_verb(l, w, lemma) != from) return 0;
  int k = el__lm_verb_make(l, lemma, EL__VF_PAST, forms, MAXV);
  for (int j = 0; j < k; j++)
    if (!strcmp(forms[j], w)) return 0;
  if (el__lm_verb_make(l, lemma, to, forms, 1) != 1) return 0;
  strcpy(fix, forms[0]);
  return 1;
}

/* Whether "it" or "you" at i may be a subject: it opens the text, or
 * follows punctuation or a conjunction ("because it rain"; not "I want it
 * back", "to you is"). */
static const char *const CONJUNCTIONS[] = {"but", "so", "because", "when", "if", "that", "while",
                                           "although", "though", "since", "until", "where", "then"};
static int clause_start(const char *const *low, int i) {
  return i == 0 || !low[i - 1] || el__learner_token_kind(low[i - 1]) == EL__LK_PUNCT ||
         LISTED(low[i - 1], CONJUNCTIONS);
}

/* "there is many people" -> "are": the word after the verb decides where
 * it is a number or a quantifier of many. (Not "there are a" -> "is":
 * "there are a lot of", "a few", "a million".) */
static const char *const MANY[] = {"many", "several", "few", "two", "three", "four", "five",
                                   "six", "seven", "eight", "nine", "ten", "lots", "both"};
static const char *const THERE_FIX[][2] = {{"is", "are"}, {"was", "were"}, {"isn't", "aren't"},
                                           {"wasn't", "weren't"}};

static int there_fix(const char *const *low, int n, int i, char *fix) {
  const char *to = AUX_FIX(THERE_FIX, low[i]);
  if (!to || i + 1 >= n || !low[i + 1] || !LISTED(low[i + 1], MANY))
    return 0;
  strcpy(fix, to);
  return 1;
}

/* The pronoun verb i follows (one adverb between at most), or -1 when no
 * subject stands there: an object or an inverted question ("let it go",
 * "does she go", "I want it back"), a subject joined to another ("my father
 * and I are"), a pronoun after "dare" or "need" ("dare he laugh"). */
static int subject_of(const el__learner *l, const char *const *low, int i) {
  int subj = i - 1;
  if (low[subj] && LISTED(low[subj], BETWEEN)) subj--;
  if (subj < 0 || !low[subj]) return -1;
  const char *before = subj > 0 ? low[subj - 1] : NULL;
  if (before && (!el__lv_subject_after(l, before) || LISTED(before, JOINING) ||
                 LISTED(before, SEMI_MODAL)))
    return -1;
  if ((!strcmp(low[subj], "it") || !strcmp(low[subj], "you")) && !clause_start(low, subj))
    return -1;
  return subj;
}

int el__learner_agreement(const el__learner *l, const char *const *low, int n, int i, char *fix) {
  /* "she still my friend": "still" is a verb too; "she need not" */
  if (i < 1 || i >= n || !low[i] || LISTED(low[i], BETWEEN) || LISTED(low[i], SEMI_MODAL))
    return 0;
  if (low[i - 1] && !strcmp(low[i - 1], "there") &&
      (i < 2 || !low[i - 2] || el__lv_subject_after(l, low[i - 2])))
    return there_fix(low, n, i, fix);
  int subj = subject_of(l, low, i);
  if (subj < 0) return 0;
  const char *p = low[subj], *w = low[i], *to = NULL;
  if (el__lv_3sg_subject(p)) {
    if ((to = AUX_FIX(AUX_FIX_3SG, w))) return strcpy(fix, to), 1;
    /* "she go to school yesterday" wants the past, which of an irregular
     * verb's two the tables cannot tell ("went", "gone"): left to the model */
    if (el__learner_sentence_tense(l, low, n, i) < 0) return 0;
    return open_verb_fix(l, w, EL__VF_BASE, EL__VF_S3, fix);
  }
  if (!strcmp(p, "i")) {
    if ((to = AUX_FIX(AUX_FIX_I, w))) return strcpy(fix, to), 1;
    return open_verb_fix(l, w, EL__VF_S3, EL__VF_BASE, fix);
  }
  if (el__lv_plain_subject(p)) {
    if ((to = AUX_FIX(AUX_FIX_PLURAL, w))) return strcpy(fix, to), 1;
    /* not after "you" ("thank you guys", "I tell you stories"), nor a noun's
     * plural after "we" ("we kids rode"; "they goes" is a plural noun too) */
    char sg[EL__LWORD_MAX];
    if (!strcmp(p, "you") || (!strcmp(p, "we") && el__lm_noun(l, w, sg) == 2)) return 0;
    return open_verb_fix(l, w, EL__VF_S3, EL__VF_BASE, fix);
  }
  return 0;
}

/* ---- a noun subject --------------------------------------------------------- */

/* Nouns for people and pets, the subjects learners write of themselves and
 * their families ("my sister go"), singular and plural; after a possessive
 * at the start of a clause they are the subject (not "I saw my sister go",
 * "let my friends come"), and not a noun before another noun ("my mother
 * tongue"), which the n-gram model's reading rules out (ngram_read.c). */
static const char *const PERSON[] = {
    "sister",  "brother",  "mother",  "father",      "mum",         "mom",        "dad",
    "friend",  "teacher",  "boss",        "husband",     "wife",       "son",
    "daughter", "uncle",   "aunt",    "cousin",      "grandmother", "grandfather", "grandma",
    "grandpa", "girlfriend", "boyfriend", "neighbour", "neighbor",  "partner",    "colleague",
    "classmate", "baby",   "dog",     "cat"};
static const char *const PERSONS[] = {
    "sisters", "brothers", "parents", "friends", "teachers", "children", "kids", "cousins",
    "grandparents", "neighbours", "neighbors", "colleagues", "classmates", "dogs", "cats"};
static const char *const POSSESSIVE[] = {"my", "your", "his", "her", "our", "their"};

/* "people" opening a clause, or after one of these that opens it: a plural
 * subject ("The people is friendly", "most people thinks") */
static const char *const PEOPLE_BEFORE[] = {"the", "most", "many", "some", "these", "those",
                                            "other", "young", "old", "all"};
static int people_subject(const char *const *low, int noun) {
  if (noun < 0 || !low[noun] || strcmp(low[noun], "people")) return 0;
  if (clause_start(low, noun)) return 1;
  return noun >= 1 && low[noun - 1] && LISTED(low[noun - 1], PEOPLE_BEFORE) &&
         clause_start(low, noun - 1);
}

int el__learner_noun_agreement(const el__learner *l, const char *const *low, int n, int i,
                               char *fix) {
  if (i < 1 || i >= n || !low[i] || LISTED(low[i], BETWEEN) || LISTED(low[i], SEMI_MODAL))
    return 0;
  int noun = low[i - 1] && LISTED(low[i - 1], BETWEEN) ? i - 2 : i - 1;
  const char *to;
  if (people_subject(low, noun)) {
    if ((to = AUX_FIX(AUX_FIX_PLURAL, low[i]))) return strcpy(fix, to), 1;
    return open_verb_fix(l, low[i], EL__VF_S3, EL__VF_BASE, fix);
  }
  if (i < 2) return 0;
  if (noun < 1 || !low[noun] || !low[noun - 1] || !LISTED(low[noun - 1], POSSESSIVE) ||
      !clause_start(low, noun - 1))
    return 0;
  const char *w = low[i];
  if (LISTED(low[noun], PERSON)) {
    if ((to = AUX_FIX(AUX_FIX_3SG, w))) return strcpy(fix, to), 1;
    if (el__learner_sentence_tense(l, low, n, i) < 0) return 0; /* as for she/he above */
    return open_verb_fix(l, w, EL__VF_BASE, EL__VF_S3, fix);
  }
  if (LISTED(low[noun], PERSONS)) {
    if ((to = AUX_FIX(AUX_FIX_PLURAL, w))) return strcpy(fix, to), 1;
    return open_verb_fix(l, w, EL__VF_S3, EL__VF_BASE, fix);
  }
  return 0;
}

/* ---- a present verb in a sentence a time word puts in the past --------------- */

/* be/have/do's past after any subject */
static const char *const AUX_PAST[][2] = {
    {"am", "was"}, {"is", "was"}, {"are", "were"}, {"have", "had"}, {"has", "had"},
    {"do", "did"}, {"does", "did"}, {"don't", "didn't"}, {"doesn't", "didn't"},
    {"isn't", "wasn't"}, {"aren't", "weren't"}, {"haven't", "hadn't"}, {"hasn't", "hadn't"}};

/* The sentence around word i: [*from, *to) between ". ! ?" (low may hold a
 * whole text). */
static int ends_sentence(const char *w) { return w && el__learner_ends_sentence(w); }
static void sentence_around(const char *const *low, int n, int i, int *from, int *to) {
  *from = i;
  while (*from > 0 && !ends_sentence(low[*from - 1])) --*from;
  *to = i + 1;
  while (*to < n && !ends_sentence(low[*to - 1])) ++*to;
}

/* Whether words [from, to) are a past time phrase: "yesterday" (and
 * "morning" ... after it), "last" and a time ("last week"), or up to three
 * words ending in "ago" ("two years ago"). */
static const char *const DAY_PART[] = {"morning", "afternoon", "evening", "night"};
static int past_time_phrase(const char *const *low, int from, int to) {
  int n = to - from;
  if (n < 1 || !low[from]) return 0;
  if (!strcmp(low[from], "yesterday"))
    return n == 1 || (n == 2 && low[from + 1] && LISTED(low[from + 1], DAY_PART));
  if (!strcmp(low[from], "last")) return n == 2 && low[from + 1] && LISTED(low[from + 1], LAST_WHAT);
  return n <= 3 && low[to - 1] && !strcmp(low[to - 1], "ago");
}

/* Words that start another clause or join a second verb to the first: a
 * time word after one of them may be that clause's ("I hear that you were
 * attacked last night", "we stay and they left yesterday"). */
static const char *const CLAUSE_WORDS[] = {
    "that", "who", "which", "when", "where", "while", "because", "if", "since", "until",
    "and", "but", "or", "so", "as", "before", "after", ",", ";", ":", "-"};
/* "two years ago", not a predicate's "(it is) long ago" */
static const char *const TIME_UNITS[] = {"minute", "minutes", "hour", "hours", "day", "days",
                                         "week", "weeks", "month", "months", "year", "years",
                                         "time", "while", "decade", "decades"};
static int time_unit(const char *w) { return w && LISTED(w, TIME_UNITS); }

/* pronouns that are only subjects: a clause of their own starts there */
static const char *const NEW_SUBJECT[] = {"i", "he", "she", "we", "they"};

/* Whether a past time phrase ends the one clause subj ... i ... starts: the
 * sentence opens with the subject, the phrase comes last (its final mark
 * aside), and nothing between the verb and it is another verb or opens
 * another clause ("I go to the cinema yesterday", "we visit London last
 * year"; not "I know you went there yesterday"). */
static int past_phrase_at_end(const el__learner *l, const char *const *low, int from, int to,
                              int subj, int i) {
  int end = to;
  if (end > from && ends_sentence(low[end - 1])) end--;
  if (subj != from || end <= i + 1) return 0;
  for (int len = 1; len <= 3 && end - len > i; len++) {
    if (!past_time_phrase(low, end - len, end) || (!strcmp(low[end - 1], "ago") && !time_unit(low[end - 2])))
      continue;
    /* nor an -ing form: "I am writing to tell you about a concert last month" */
    char lemma[EL__LWORD_MAX];
    for (int k = i + 1; k < end - len; k++)
      if (!low[k] || LISTED(low[k], CLAUSE_WORDS) || LISTED(low[k], NEW_SUBJECT) ||
          word_tense(l, low[k]) || (el__learner_word_class(l, low[k]) & (EL__LC_AUX | EL__LC_MODAL)) ||
          (el__lm_verb(l, low[k], lemma) & EL__VF_ING))
        return 0;
    return 1;
  }
  return 0;
}

/* Whether the sentence [from, to) opens with a past time phrase, a comma
 * after it or not, right before the subject at subj ("Yesterday I go",
 * "Two years ago, I live", "Last week we visit"), or ends the verb's one
 * clause with one (past_phrase_at_end), and no word of it tells the
 * present; the verb at i and the word at aux (a perfect's "have"; -1 none)
 * aside. A time word elsewhere is as often another clause's ("I hear that
 * you were attacked last night", "it is long ago"). */
static int past_by_time_word(const el__learner *l, const char *const *low, int from, int to,
                             int subj, int i, int aux, int *last) {
  int end = subj > from && low[subj - 1] && !strcmp(low[subj - 1], ",") ? subj - 1 : subj;
  *last = 0;
  if (!past_time_phrase(low, from, end) && !(*last = past_phrase_at_end(l, low, from, to, subj, i)))
    return 0;
  for (int k = from; k < to; k++)
    if (k != i && k != aux && low[k] && tells(l, low, to, k) > 0) return 0;
  return 1;
}

/* Whether a verb or auxiliary comes before i in its sentence: then i may be
 * in a clause of its own ("yesterday I learned that they live here"). */
static int verb_before(const el__learner *l, const char *const *low, int from, int i) {
  char lemma[EL__LWORD_MAX];
  for (int k = from; k < i; k++)
    if (low[k] && ((el__learner_word_class(l, low[k]) & EL__LC_AUX) ||
                   (el__lm_verb(l, low[k], lemma) & (EL__VF_S3 | EL__VF_PAST))))
      return 1;
  return 0;
}

static int subject_pronoun(const char *w) {
  return el__lv_3sg_subject(w) || !strcmp(w, "i") || el__lv_plain_subject(w);
}

int el__learner_past_fixes(const el__learner *l, const char *const *low, int n, int i,
                           char out[][EL__LWORD_MAX], int max, int *phrase_last) {
  int last_dummy;
  if (!phrase_last) phrase_last = &last_dummy;
  *phrase_last = 0;
  if (i < 1 || i >= n || !low[i] || max < 1 || LISTED(low[i], BETWEEN) || LISTED(low[i], SEMI_MODAL))
    return 0;
  int subj = subject_of(l, low, i), from, end;
  sentence_around(low, n, i, &from, &end);
  if (subj < 0 || !subject_pronoun(low[subj]) || verb_before(l, low, from, i) ||
      !past_by_time_word(l, low, from, end, subj, i, -1, phrase_last))
    return 0;
  char lemma[EL__LWORD_MAX];
  /* "have seen" wants "saw", not "had seen" */
  if ((!strcmp(low[i], "have") || !strcmp(low[i], "has")) && i + 1 < n && low[i + 1] &&
      (!strcmp(low[i + 1], "been") || el__lm_verb(l, low[i + 1], lemma) == EL__VF_PAST))
    return 0;
  const char *to = AUX_FIX(AUX_PAST, low[i]);
  if (to) return strcpy(out[0], to), 1;
  int form = el__lm_verb(l, low[i], lemma);
  if ((form != EL__VF_BASE && form != EL__VF_S3) || el__lv_ends_same_past(low[i])) return 0;
  return el__lm_verb_make(l, lemma, EL__VF_PAST, out, max);
}

int el__learner_perfect_in_past(const el__learner *l, const char *const *low, int n, int i) {
  if (i < 1 || i + 1 >= n || !low[i] || !low[i + 1] || (strcmp(low[i], "have") && strcmp(low[i], "has")))
    return 0;
  /* a participle that is the simple past too ("visited", "bought": the verb's
   * one past form), so that dropping "have" leaves the past: not "seen",
   * "gone" (WordNet lists "saw" and "seen" alike) */
  char lemma[EL__LWORD_MAX], past[4][EL__LWORD_MAX];
  if (!(el__lm_verb(l, low[i + 1], lemma) & EL__VF_PAST)) return 0;
  int k = el__lm_verb_make(l, lemma, EL__VF_PAST, past, 4), simple = 0;
  for (int j = 0; j < k; j++) simple |= !strcmp(past[j], low[i + 1]);
  int subj = subject_of(l, low, i), from, end, last;
  if (!simple || k != 1 || subj < 0 || !subject_pronoun(low[subj])) return 0;
  sentence_around(low, n, i, &from, &end);
  if (verb_before(l, low, from, i)) return 0;
  /* the time phrase read as for a present verb at the participle, "have"
   * itself (which tells the present) aside */
  return past_by_time_word(l, low, from, end, subj, i + 1, i, &last);
}
