/* A verb form that the word before it decides (learner.h,
 * el__learner_verb_form_fix): the base form after a modal or a form of "do"
 * ("can goes", "didn't went", "did he went" -> "go"), the -ing form after
 * "look forward to" ("I look forward to hear from you"), and a feeling's -ed
 * form after a person and "be" ("I am interesting in music"), errors
 * learners make often and correct English has almost never. */
#include <string.h>

#include "learner_internal.h"

/* Modals that are no nouns; "can", "will", "may", "must", "might" are also
 * nouns ("free will makes", "a must"), so they count only after a subject
 * pronoun. */
static const char *const MODAL[] = {"could",  "would",    "should",   "shall",     "cannot",
                                    "can't",  "won't",    "couldn't", "wouldn't",  "shouldn't",
                                    "mustn't", "mightn't"};
static const char *const MODAL_NOUN[] = {"can", "will", "may", "must", "might"};
static const char *const DO[] = {"do", "does", "did", "don't", "doesn't", "didn't"};
/* subject pronouns; not "it", an object as often ("how I do it took") */
static const char *const SUBJECT[] = {"i", "you", "he", "she", "we", "they"};

/* The base form of w when it is an open verb's -s or past form ("goes",
 * "went", "liked"); not one whose base is its past ("put"), nor a noun's
 * plural unless surely_verb. */
static int base_form(const el__learner *l, const char *w, int surely_verb, char *fix) {
  char lemma[EL__LWORD_MAX], sg[EL__LWORD_MAX];
  int form = el__lm_verb(l, w, lemma);
  if ((form != EL__VF_S3 && form != EL__VF_PAST) || el__lv_ends_same_past(w)) return 0;
  /* a verb's base form too ("lay", "found", "fell": "she could lay"), or a
   * noun's plural ("why won't sharks eat") */
  if ((el__lword_flags(l, w) & EL__LW_VERB) ||
      (form == EL__VF_S3 && !surely_verb && el__lm_noun(l, w, sg) == 2))
    return 0;
  /* a regular past is often an adjective that wants "be" or "have" before
   * it ("you would interested" -> "would be interested", "could blocked"
   * -> "could have blocked"), an irregular one seldom ("will spent" ->
   * "spend"): the regular ones are left to the model */
  size_t n = strlen(w);
  if (form == EL__VF_PAST && n > 2 && !strcmp(w + n - 2, "ed")) return 0;
  strcpy(fix, lemma);
  return strcmp(fix, w) != 0;
}

/* Whether the words before i put a bare infinitive there: a modal or a
 * negated "do" right before it or before a subject pronoun before it
 * ("can't goes", "didn't went", "can we went"), or "do", "does" or "did"
 * before a subject pronoun ("did you went"; right before a word they are
 * more often a main verb: "did complicated drawings", "do exercises").
 * FCE's "did n't" counts as "didn't". 2 when a subject pronoun opens it
 * ("she can goes"), where the word cannot be the subject of a question
 * ("why won't sharks eat"), else 1; 0 no such place. */
static int bare_infinitive_place(const char *const *low, int i) {
  int j = i - 1;
  int negated = j >= 0 && low[j] && !strcmp(low[j], "n't");
  j -= negated;
  int pronoun = j >= 0 && low[j] && LISTED(low[j], SUBJECT);
  j -= pronoun;
  if (j < 0 || !low[j]) return 0;
  const char *w = low[j];
  size_t n = strlen(w);
  negated |= n > 3 && !strcmp(w + n - 3, "n't");
  int after_subject = !pronoun && j > 0 && low[j - 1] && LISTED(low[j - 1], SUBJECT);
  if (LISTED(w, MODAL) || (LISTED(w, DO) && (negated || pronoun))) return 1 + after_subject;
  /* "can", "will" ... after a subject pronoun, the verb right after them */
  return LISTED(w, MODAL_NOUN) && after_subject ? 2 : 0;
}

/* A feeling's two adjectives: what causes it and who has it. */
static const char *const FEELING[][2] = {
    {"interesting", "interested"}, {"boring", "bored"},           {"exciting", "excited"},
    {"surprising", "surprised"},   {"confusing", "confused"},     {"frightening", "frightened"},
    {"amazing", "amazed"},         {"annoying", "annoyed"},       {"embarrassing", "embarrassed"},
    {"disappointing", "disappointed"}, {"worrying", "worried"},   {"satisfying", "satisfied"},
    {"shocking", "shocked"},       {"terrifying", "terrified"},   {"fascinating", "fascinated"},
    {"depressing", "depressed"},   {"frustrating", "frustrated"}, {"tiring", "tired"}};
static const char *const BE[] = {"am", "is", "are", "was", "were", "'m", "'re"};
static const char *const DEGREE[] = {"very", "so", "really", "quite", "too", "extremely", "not",
                                     "always", "never", "also", "still"};
/* pronouns for people only: "they" and "you" are things as often ("they were
 * interesting in their way") */
static const char *const PERSON_SUBJECT[] = {"i", "we", "he", "she"};
/* the prepositions that follow who has the feeling ("interested in", "bored with") */
static const char *const FEELING_PREP[] = {"in", "with", "about", "of", "by", "at"};

/* "I am interesting in music" -> "interested": the -ing adjective after a
 * person (I, we, he or she) and a form of "be", one or two degree
 * words between, and before a preposition: the one who feels, not what
 * causes it ("it is interesting in many ways" is left alone). */
static int feeling_fix(const char *const *low, int n, int i, char *fix) {
  const char *to = NULL;
  for (size_t k = 0; k < sizeof FEELING / sizeof *FEELING && !to; k++)
    if (!strcmp(low[i], FEELING[k][0])) to = FEELING[k][1];
  if (!to || i + 1 >= n || !low[i + 1] || !LISTED(low[i + 1], FEELING_PREP)) return 0;
  int j = i - 1;
  while (j >= 0 && j >= i - 2 && low[j] && LISTED(low[j], DEGREE)) j--;
  if (j < 1 || !low[j] || !low[j - 1] || !LISTED(low[j], BE) || !LISTED(low[j - 1], PERSON_SUBJECT))
    return 0;
  strcpy(fix, to);
  return 1;
}

int el__learner_verb_form_fix(const el__learner *l, const char *const *low, int n, int i,
                              char *fix) {
  if (i < 1 || i >= n || !low[i]) return 0;
  if (feeling_fix(low, n, i, fix)) return 1;
  int place = bare_infinitive_place(low, i);
  if (place) return base_form(l, low[i], place == 2, fix);
  char lemma[EL__LWORD_MAX], ing[1][EL__LWORD_MAX];
  /* "look forward to hear" -> "hearing" */
  int after_look_forward_to = i >= 3 && low[i - 1] && low[i - 2] && low[i - 3] &&
                              !strcmp(low[i - 1], "to") && !strcmp(low[i - 2], "forward") &&
                              !strncmp(low[i - 3], "look", 4);
  if (after_look_forward_to && el__lm_verb(l, low[i], lemma) == EL__VF_BASE &&
      el__lm_verb_make(l, lemma, EL__VF_ING, ing, 1) == 1) {
    strcpy(fix, ing[0]);
    return 1;
  }
  return 0;
}
