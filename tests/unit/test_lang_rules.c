/* The learner library's rules for the checker and the n-gram reading
 * (lang/learner.h): agreement with a pronoun or a noun subject, verb forms
 * the words before decide, a present verb a past time phrase puts in the
 * past, words a rule shows unnecessary, fixed phrases, confusable words,
 * the -ing object, "your", an opening phrase's comma. On
 * hand-written sentences, each with the places it must leave alone. Needs
 * WordNet (Debian wordnet-base); skips without. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "../test.h"
#include "learner.h"
#include "learner_fixture.h"

static el__learner *L;

/* Splits s at spaces into lower-case words (NULL-free) in buf. */
static int low_words(const char *s, char *buf, size_t cap, const char **w, int max) {
  snprintf(buf, cap, "%s", s);
  for (char *p = buf; *p; p++) *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
  int n = 0;
  for (char *t = strtok(buf, " "); t && n < max; t = strtok(NULL, " ")) w[n++] = t;
  return n;
}

typedef int (*verb_rule)(const el__learner *, const char *const *, int, int, char *);
#define AGREE el__learner_agreement
#define FORM el__learner_verb_form_fix
#define NOUN el__learner_noun_agreement

/* A verb that does not agree with its pronoun, and a verb form the words
 * before it decide: the fix where the pattern decides, nothing in correct
 * English, objects, questions, compound subjects and sentences in the past. */
static void test_agreement(void) {
  static const struct {
    verb_rule rule;
    const char *s;
    int at;
    const char *fix; /* NULL: none */
  } A[] = {{AGREE, "She go to school every day .", 1, "goes"},
           {AGREE, "He have two brothers .", 1, "has"},
           {AGREE, "He don't like apples .", 1, "doesn't"},
           {AGREE, "he do n't like apples .", 1, "does"},
           {AGREE, "He always go home late .", 2, "goes"},
           {AGREE, "They goes home .", 1, "go"},
           {AGREE, "I thinks so .", 1, "think"},
           {AGREE, "We was very happy .", 1, "were"},
           {AGREE, "I is here .", 1, "am"},
           {AGREE, "There is many people here .", 1, "are"},
           {AGREE, "because it rain every day .", 2, "rains"},
           {AGREE, "John and he go there .", 3, NULL}, /* a compound subject, or a clause */
           {AGREE, "She goes to school every day .", 1, NULL},
           {AGREE, "She go to school yesterday .", 1, NULL}, /* the past: "went" or "gone" */
           {AGREE, "She put it there .", 1, NULL},              /* "put" may be the past */
           {AGREE, "He misread the data .", 1, NULL},
           {AGREE, "My father and I are alike .", 4, NULL},
           {AGREE, "Does she go there ?", 2, NULL},
           {AGREE, "Doesn't he look fine ?", 2, NULL},
           {AGREE, "Let it go .", 2, NULL},
           {AGREE, "I want it back .", 3, NULL},
           {AGREE, "What I said to you is true .", 5, NULL},
           {AGREE, "We kids rode in the back .", 1, NULL},
           {AGREE, "She still my best friend .", 1, NULL},
           {AGREE, "She need not come .", 1, NULL},
           {AGREE, "There are a lot of people .", 1, NULL},
           {AGREE, "Thank you guys .", 2, NULL},
           {FORM, "He didn't went there .", 2, "go"},
           {FORM, "He did n't went there .", 3, "go"},
           {FORM, "Did you went there ?", 2, "go"},
           {FORM, "She can goes .", 2, "go"},
           {FORM, "We will spent a lot .", 2, "spend"},
           {FORM, "I look forward to hear from you .", 4, "hearing"},
           {FORM, "You would interested in it .", 2, NULL}, /* wants "be" */
           {FORM, "He didn't go there .", 2, NULL},
           {FORM, "I do exercises every day .", 2, NULL},   /* "do" a main verb */
           {FORM, "He did complicated drawings .", 2, NULL},
           {FORM, "Why won't sharks eat lawyers ?", 3, NULL}, /* a noun's plural */
           {FORM, "She could lay her hands on it .", 2, NULL}, /* "lay" is a base form too */
           {FORM, "He came forward to serve him .", 4, NULL},
           {FORM, "Free will makes us human .", 2, NULL},
           {FORM, "I am interesting in music .", 2, "interested"},
           {FORM, "She was very disappointing with the show .", 3, "disappointed"},
           {FORM, "I 'm really boring with it .", 3, "bored"},
           {FORM, "It is interesting in many ways .", 2, NULL},   /* a thing */
           {FORM, "They were interesting in their way .", 2, NULL}, /* things as often */
           {FORM, "I am interesting .", 2, NULL},                 /* no preposition */
           {FORM, "I am interested in music .", 2, NULL},
           {NOUN, "My sister go to school every day .", 2, "goes"},
           {NOUN, "my friend have a dog .", 2, "has"},
           {NOUN, "My brother always play football .", 3, "plays"},
           {NOUN, "because my parents is kind .", 3, "are"},
           {NOUN, "My friends likes it .", 2, "like"},
           {NOUN, "The people is very friendly .", 2, "are"},   /* "people" a plural subject */
           {NOUN, "Most people thinks so .", 2, "think"},
           {NOUN, "People was happy .", 1, "were"},
           {NOUN, "I saw the people go .", 3, NULL},             /* an object, not a subject */
           {NOUN, "My sister goes to school .", 2, NULL},
           {NOUN, "I saw my sister go home .", 4, NULL}, /* an object: "see her go" */
           {NOUN, "My family are here .", 2, NULL},     /* a collective noun takes either */
           {NOUN, "My sister went home yesterday .", 2, NULL},
           {NOUN, "The sister go home .", 2, NULL}, /* a possessive only */
           {NOUN, "My mother tongue is French .", 2, "tongues"}}; /* the n-gram reading rules it out */
  for (size_t a = 0; a < sizeof A / sizeof A[0]; a++) {
    char buf[256], fix[EL__LWORD_MAX] = "";
    const char *w[32];
    int n = low_words(A[a].s, buf, sizeof buf, w, 32);
    int got = A[a].rule(L, w, n, A[a].at, fix);
    CHECK(A[a].fix ? got && !strcmp(fix, A[a].fix) : !got, "%s \"%s\" word %d: %s (got %s)",
          A[a].rule == AGREE ? "agreement" : A[a].rule == NOUN ? "noun agreement" : "verb form", A[a].s, A[a].at,
          A[a].fix ? A[a].fix : "no fix", got ? fix : "none");
  }
  /* a present verb in a clause a past time phrase opens or ends: its past forms */
  static const struct {
    const char *s;
    int at;
    const char *first; /* NULL: none */
  } P[] = {{"Yesterday I go to the cinema .", 2, "went"},
           {"Two years ago , I live in London .", 5, "lived"},
           {"Yesterday morning she buy a dress .", 3, "bought"},
           {"Last week we are in Paris .", 3, "were"},
           {"Yesterday I went to the cinema .", 2, NULL},
           {"I go to the cinema yesterday .", 1, "went"},     /* or end the one clause */
           {"We visit our grandparents two years ago .", 1, "visited"},
           {"I want to see him yesterday .", 1, "wanted"},
           {"I know you went there yesterday .", 1, NULL},    /* another verb before it */
           {"I hear that you were attacked last night .", 1, NULL}, /* another clause's */
           {"I stay at home and they leave yesterday .", 1, NULL},
           {"I go there every day last year .", 1, NULL},     /* "every" tells the present */
           {"Then I go to the cinema yesterday .", 2, NULL},  /* the clause must open it */
           {"I am writing to tell you about the concert last month .", 1, NULL},
           {"It is too long ago .", 1, NULL},                 /* a predicate, not a time */
           {"Yesterday I learned that they live here .", 5, NULL}, /* not the first verb */
           {"Yesterday I go there , and now I like it .", 2, NULL}, /* "now" tells the present */
           {"Last weekend I have been in London .", 3, NULL},   /* "was", not "had been" */
           {"At last I go home .", 3, NULL},
           {"Yesterday the man go home .", 3, NULL}};          /* a pronoun subject only */
  for (size_t p = 0; p < sizeof P / sizeof P[0]; p++) {
    char buf[256], out[4][EL__LWORD_MAX];
    const char *w[32];
    int n = low_words(P[p].s, buf, sizeof buf, w, 32);
    int k = el__learner_past_fixes(L, w, n, P[p].at, out, 4, NULL);
    int has = 0;
    for (int j = 0; j < k; j++) has |= P[p].first && !strcmp(out[j], P[p].first);
    CHECK(P[p].first ? has : k == 0, "past by a time word: \"%s\" word %d: %s (%d forms, first %s)",
          P[p].s, P[p].at, P[p].first ? P[p].first : "none", k, k ? out[0] : "-");
  }
  const char *holes[] = {NULL, "is", "there", NULL, "many", NULL, "go", NULL};
  char fix[EL__LWORD_MAX];
  int any = 0;
  for (int i = 0; i < 8; i++)
    any |= el__learner_agreement(L, holes, 8, i, fix) | el__learner_verb_form_fix(L, holes, 8, i, fix);
  CHECK(!any, "words that are none (too long, not text) are no subject, verb or \"there\"");
  static const struct {
    const char *s;
    int tense;
  } T[] = {{"She went there yesterday", -1}, {"I go there every day", 1},
           {"Last week we visit London", -1}, {"At last we visit London", 0},
           {"He has gone home", 1},            {"I have eaten", 0}};
  for (size_t t = 0; t < sizeof T / sizeof T[0]; t++) {
    char buf[256];
    const char *w[32];
    int n = low_words(T[t].s, buf, sizeof buf, w, 32);
    CHECK(el__learner_sentence_tense(L, w, n, -1) == T[t].tense, "\"%s\": tense %d (got %d)",
          T[t].s, T[t].tense, el__learner_sentence_tense(L, w, n, -1));
  }
}

/* Words a pattern shows unnecessary: the word at `at` of each sentence, 1
 * when el__learner_extra_word (perfect 0) or el__learner_perfect_in_past
 * (perfect 1: a present perfect a past time phrase rules out) says so. */
static void test_extra_word(void) {
  static const struct {
    const char *s;
    int at, extra, perfect;
  } X[] = {{"I am agree with you .", 1, 1, 0},
           {"I think , it is good .", 2, 1, 0},            /* the comma before the clause */
           {"I think , however , that", 2, 0, 0},
           {"the first time , I think , I heard", 5, 0, 0}, /* an aside */
           {"We hope you are agree with us .", 3, 1, 0},
           {"they are believe it", 1, 1, 0},
           {"I am sure .", 1, 0, 0},                     /* no verb after it */
           {"She is agree .", 1, 0, 0},                  /* "agrees": more than a deletion */
           {"Do you are agree", 2, 0, 0},                /* "you" no subject after "do" */
           {"They are like air .", 1, 0, 0},             /* "like" is also a preposition */
           {"We discussed about the plan .", 2, 1, 0},
           {"You mention about discounts .", 2, 1, 0},
           {"I would like to emphasise on the fact", 5, 1, 0},
           {"We talked about the plan .", 2, 0, 0},
           {"for lack of food", 2, 0, 0},                /* a noun's preposition */
           {"what we discussed about .", 3, 0, 0},       /* no object after it */
           {"He is more taller than me .", 2, 1, 0},
           {"It feels much more better .", 3, 1, 0},
           {"He is more clever than me .", 2, 0, 0},     /* an adjective in -er itself */
           {"more water than", 0, 0, 0},
           {"He is taller than me .", 2, 0, 0},
           {"despite of the rain", 1, 1, 0},
           {"she told to her friends what happened", 2, 1, 0},
           {"I was told to go home", 3, 0, 0},           /* "told to" and a verb */
           {"it was told to me by my son", 3, 0, 0},     /* the passive */
           {"everything he told to her .", 3, 0, 0},     /* what was told before it */
           {"because , I have two tickets", 1, 1, 0},
           {"because , you see , it was late", 1, 0, 0}, /* an aside */
           {"because , in the end , we left", 1, 0, 0},  /* no subject after it */
           {"you must to go", 2, 1, 0},
           {"all I could to help", 3, 0, 0},             /* "could (do) to" */
           {"the will to live", 2, 0, 0},
           {"I have visited London last year .", 1, 1, 1},
           {"Last week we have bought a car .", 3, 1, 1},
           {"He has finished it two days ago .", 1, 1, 1},
           {"I have seen him yesterday .", 1, 0, 1},      /* wants "saw", not a deletion */
           {"I have visited London many times .", 1, 0, 1},
           {"I know that you have visited it last year .", 4, 0, 1}};
  for (size_t x = 0; x < sizeof X / sizeof X[0]; x++) {
    char buf[256];
    const char *w[32];
    int n = low_words(X[x].s, buf, sizeof buf, w, 32);
    int got = X[x].perfect ? el__learner_perfect_in_past(L, w, n, X[x].at)
                           : el__learner_extra_word(L, w, n, X[x].at);
    CHECK(got == X[x].extra, "\"%s\" word %d: %s", X[x].s, X[x].at,
          X[x].extra ? "unnecessary" : "not unnecessary");
  }
}

/* Fixed phrases (el__learner_missing_word, el__learner_phrase_prep): the word
 * a phrase wants at `at`, "" for none. */
static void test_phrases(void) {
  static const struct {
    const char *s;
    int at;
    const char *missing, *prep;
  } P[] = {{"because is cheap", 1, "it", ""},
           {"if was boring", 1, "it", ""},
           {"as is", 1, "", ""},                       /* "sold as is" */
           {"for a while was merry", 3, "", ""},      /* "while" a noun */
           {"I would appreciate if you", 3, "it", ""},
           {"I look forward hearing from you", 3, "to", ""},
           {"I am looking forward to hearing", 4, "", ""},
           {"he looked forward and saw", 3, "", ""},
           {"I look forward for your answer", 3, "", "to"},
           {"we look forward with hope", 3, "", ""},  /* the other "look forward" */
           {"the reason of my letter", 2, "", "for"},
           {"by reason of his age", 2, "", ""},
           {"the reason for my letter", 2, "", ""},
           {"I will travel on july because", 3, "", "in"},
           {"the festival is on july 4th", 3, "", ""},      /* a day: "on" */
           {"the advertisement of the show", 2, "", "for"},
           {"I am writing you to complain", 3, "to", ""},
           {"please write me a letter", 2, "", ""},         /* the thing written follows */
           {"please reply my letter", 2, "to", ""},
           {"thank for your letter", 1, "you", ""},
           {"nobody to thank for it", 3, "", ""},
           {"can you explain me the rules", 3, "to", ""},
           {"she explained her ideas", 2, "", ""},      /* a possessive */
           {"I cannot explain them", 3, "", ""},         /* the thing explained */
           {"look forward to hearing you soon", 4, "from", ""},
           {"I am very good in tennis", 4, "", "at"},
           {"I 'm good on it", 3, "", "at"},
           {"I am writing to reply for your letter", 5, "", "to"},
           {"he made no reply for a while", 4, "", ""},
           {"because I think is a great fun", 3, "it", ""},
           {"what I think is right", 3, "", ""},
           {"who do you think is here", 4, "", ""},
           {"I 'm not so good in swimming", 5, "", "at"},
           {"she was good in it", 3, "", "at"},
           {"he was good in his role", 3, "", ""},          /* a possessive after it */
           {"the food is good in Italy", 4, "", ""},        /* no person as the subject */
           {"everything is good in moderation", 3, "", ""}};
  for (size_t p = 0; p < sizeof P / sizeof P[0]; p++) {
    char buf[256], got[EL__LWORD_MAX] = "", prep[EL__LWORD_MAX] = "";
    const char *w[32];
    int n = low_words(P[p].s, buf, sizeof buf, w, 32);
    if (!el__learner_missing_word(L, w, n, P[p].at, got)) got[0] = 0;
    if (!el__learner_phrase_prep(w, n, P[p].at, prep)) prep[0] = 0;
    CHECK(!strcmp(got, P[p].missing) && !strcmp(prep, P[p].prep),
          "\"%s\" word %d: missing \"%s\", preposition \"%s\" (got \"%s\", \"%s\")", P[p].s,
          P[p].at, P[p].missing, P[p].prep, got, prep);
  }
}

/* Real words learners confuse: each set's other members, none for a word
 * outside every set. */
static void test_confusables(void) {
  char out[4][EL__LWORD_MAX];
  int k = el__learner_confusables("then", out, 4);
  CHECK(k == 1 && !strcmp(out[0], "than"), "then -> than (%d)", k);
  k = el__learner_confusables("though", out, 4);
  CHECK(k == 2 && !strcmp(out[0], "thought") && !strcmp(out[1], "through"),
        "though -> thought, through (%d)", k);
  k = el__learner_confusables("lose", out, 4);
  CHECK(k == 2 && !strcmp(out[0], "loose") && !strcmp(out[1], "loss"), "lose in two sets (%d)", k);
  CHECK(el__learner_confusables("lose", out, 1) == 1, "at most max");
  CHECK(el__learner_confusables("cat", out, 4) == 0, "a word of no set: none");
  const char *kinds[] = {"all", "kind", "of", "music"}, *kind1[] = {"a", "kind", "of", "music"};
  char fix[EL__LWORD_MAX] = "";
  CHECK(el__learner_phrase_noun(kinds, 4, 1, fix) && !strcmp(fix, "kinds") &&
            !el__learner_phrase_noun(kind1, 4, 1, fix),
        "\"all kind of\" -> \"kinds\", not \"a kind of\" (%s)", fix);
}

/* The patterns of learner_patterns.c: "to" + a verb after a verb taking an
 * -ing object, "you" for "your" after a preposition, an opening phrase's
 * comma; each with the uses they must leave alone. */
static void test_patterns(void) {
  static const struct {
    const char *s;
    int at;
    const char *ing; /* el__learner_gerund_object's fix, "" none */
    int your, comma;
  } P[] = {{"I suggest to go to the cinema", 2, "going", 0, 0},
           {"she enjoys to swim", 2, "swimming", 0, 0},
           {"I avoided to answer", 2, "answering", 0, 0},
           {"it was suggested to them", 3, "", 0, 0},       /* the passive; no verb */
           {"it is considered to be rude", 3, "", 0, 0},    /* the passive */
           {"he had in mind to see her", 4, "", 0, 0},      /* "mind" the noun */
           {"I want to go", 2, "", 0, 0},                   /* "want" takes "to" */
           {"I suggest to the board", 2, "", 0, 0},         /* no verb after "to" */
           {"thank you for you letter", 3, "", 1, 0},
           {"about you advertisement", 1, "", 1, 0},
           {"this is for you guys", 3, "", 0, 0},
           {"I will write to you tomorrow", 4, "", 0, 0},
           {"I bought it from you last year", 4, "", 0, 0},
           {"I sent you letters", 2, "", 0, 0},             /* no preposition before */
           {"like you said", 1, "", 0, 0},                  /* "like" opens a clause */
           {"however I think so", 1, "", 0, 1},
           {"first of all I want", 3, "", 0, 1},
           {"for example the food", 2, "", 0, 1},
           {"however much he tried", 1, "", 0, 0},          /* "however much": no opening */
           {"however , I think so", 2, "", 0, 0},           /* the comma is there */
           {"I think however I am right", 3, "", 0, 0},     /* not the sentence's opening */
           {"it ended . however I stayed", 4, "", 0, 1}};   /* a new sentence */
  for (size_t p = 0; p < sizeof P / sizeof P[0]; p++) {
    char buf[256], ing[EL__LWORD_MAX] = "";
    const char *w[32];
    int n = low_words(P[p].s, buf, sizeof buf, w, 32);
    if (!el__learner_gerund_object(L, w, n, P[p].at, ing)) ing[0] = 0;
    int your = el__learner_you_your(L, w, n, P[p].at), comma = el__learner_opening_comma(L, w, n, P[p].at);
    CHECK(!strcmp(ing, P[p].ing) && your == P[p].your && comma == P[p].comma,
          "\"%s\" word %d: -ing \"%s\", your %d, comma %d (got \"%s\", %d, %d)", P[p].s, P[p].at,
          P[p].ing, P[p].your, P[p].comma, ing, your, comma);
  }
}

/* Two words that are one ("May be I", "forty five", "the make up"), and a
 * letter's "Your sincerely"; the verbs and letters they must leave alone. */
static void test_joined_words(void) {
  static const struct {
    const char *s;
    int at;
    const char *joined, *letter; /* el__learner_joined_words's, el__learner_letter_close's; "" none */
  } J[] = {{"there were forty five people", 2, "forty-five", ""},
           {"may be I will come", 0, "maybe", ""},
           {"it is late , may be you know", 4, "maybe", ""},
           {"it may be late", 1, "", ""},                  /* the verb */
           {"the costumes , make up and lights", 3, "make-up", ""},
           {"they kiss and make up .", 3, "", ""},         /* the verb */
           {"we have to make up and go", 3, "", ""},
           {"your sincerely ,", 0, "", "yours"},
           {"your letter", 0, "", ""},
           {"your truly loving parents", 0, "", ""},   /* no letter's close */
           {"your faithfully", 0, "", "yours"}};       /* the letter ends */
  for (size_t j = 0; j < sizeof J / sizeof J[0]; j++) {
    char buf[256], joined[EL__LWORD_MAX] = "", letter[EL__LWORD_MAX] = "";
    const char *w[32];
    int n = low_words(J[j].s, buf, sizeof buf, w, 32);
    if (!el__learner_joined_words(w, n, J[j].at, joined)) joined[0] = 0;
    if (!el__learner_letter_close(L, w, n, J[j].at, letter)) letter[0] = 0;
    CHECK(!strcmp(joined, J[j].joined) && !strcmp(letter, J[j].letter),
          "\"%s\" word %d: joined \"%s\", letter \"%s\" (got \"%s\", \"%s\")", J[j].s, J[j].at,
          J[j].joined, J[j].letter, joined, letter);
  }
}

int main(void) {
  if (!(L = el_test_learner_load())) return el_test_done();
  test_agreement();
  test_extra_word();
  test_phrases();
  test_confusables();
  test_patterns();
  test_joined_words();
  el__learner_free(L);
  return el_test_done();
}
