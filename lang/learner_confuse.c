/* Words learners confuse with another real word (learner.h:
 * el__learner_confusables): a spellchecker passes "the hole day" and "bigger
 * then me", the trigrams see which of the pair the place wants. */
#include <stdio.h>
#include <string.h>

#include "learner_internal.h"

/* Each set: words confused with each other by sound or by one letter,
 * every one common (a rare member would only add false alarms). */
static const char *const SETS[][3] = {
    {"then", "than", NULL},        {"there", "their", NULL},     {"were", "where", NULL},
    {"whole", "hole", NULL},       {"though", "thought", "through"}, {"chose", "choose", NULL},
    {"lose", "loose", NULL},       {"quite", "quiet", NULL},     {"advice", "advise", NULL},
    {"affect", "effect", NULL},    {"weather", "whether", NULL}, {"piece", "peace", NULL},
    {"accept", "except", NULL},    {"hear", "here", NULL},       {"past", "passed", NULL},
    {"desert", "dessert", NULL},   {"breath", "breathe", NULL},  {"sometime", "sometimes", NULL},
    {"week", "weak", NULL},        {"meet", "meat", NULL},       {"wonder", "wander", NULL},
    {"lose", "loss", NULL},        {"form", "from", NULL},       {"new", "knew", NULL}};

int el__learner_confusables(const char *w, char out[][EL__LWORD_MAX], int max) {
  int n = 0;
  for (size_t s = 0; s < sizeof SETS / sizeof *SETS; s++) {
    int in = 0;
    for (int k = 0; k < 3 && SETS[s][k]; k++) in |= !strcmp(w, SETS[s][k]);
    for (int k = 0; in && k < 3 && SETS[s][k] && n < max; k++)
      if (strcmp(w, SETS[s][k])) snprintf(out[n++], EL__LWORD_MAX, "%s", SETS[s][k]);
  }
  return n;
}
