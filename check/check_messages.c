/* What a writer reads: a message and a short message per match, in the
 * words of the error's type, quoting the best replacement. */
#include <stdio.h>
#include <string.h>

#include "check_internal.h"

static const struct {
  const char *lead, *short_message;
} TYPES[EL__ET_COUNT] = {
    [EL__ET_SPELL] = {"Possible spelling mistake", "Spelling"},
    [EL__ET_VERB_SVA] = {"Possible agreement error", "Agreement"},
    [EL__ET_VERB_TENSE] = {"Possible verb tense error", "Verb tense"},
    [EL__ET_VERB_FORM] = {"Possible verb form error", "Verb form"},
    [EL__ET_NOUN_NUM] = {"Possible singular/plural error", "Noun number"},
    [EL__ET_DET] = {"Possible determiner error", "Determiner"},
    [EL__ET_PREP] = {"Possible preposition error", "Preposition"},
    [EL__ET_PUNCT] = {"Possible punctuation error", "Punctuation"},
    [EL__ET_ORTH] = {"Possible capitalisation error", "Capitalisation"},
    [EL__ET_WO] = {"Possible word order error", "Word order"},
    [EL__ET_MISSING] = {"A word may be missing", "Missing word"},
    [EL__ET_UNNECESSARY] = {"This word may be unnecessary", "Unnecessary word"},
    [EL__ET_OTHER] = {"Possible error", "Possible error"},
};

void el__match_describe(el__match *m, const el__cand *e, const char *word, const char *before,
                        el__dict_variant variant) {
  int t = m->type >= 0 && m->type < EL__ET_COUNT ? m->type : EL__ET_OTHER;
  /* "favorite" in a British check: the writer may not know it is American */
  char lead[96];
  if (t == EL__ET_SPELL && variant != EL__DICT_EN)
    snprintf(lead, sizeof lead, "%s (%s)", TYPES[t].lead, el__dict_variant_name(variant));
  else
    snprintf(lead, sizeof lead, "%s", TYPES[t].lead);
  snprintf(m->short_message, sizeof m->short_message, "%s", TYPES[t].short_message);
  if (!e) {
    snprintf(m->message, sizeof m->message, "%s: \"%s\" looks wrong here.", lead, word);
  } else if (e->kind == EL__EDIT_JOIN && t == EL__ET_ORTH) {
    snprintf(m->short_message, sizeof m->short_message, "Spacing");
    snprintf(m->message, sizeof m->message, "Possible spacing error: did you mean \"%s\"?", e->text);
  } else if (e->kind == EL__EDIT_DELETE && !strcmp(word, ",") && before[0]) {
    snprintf(m->short_message, sizeof m->short_message, "Unnecessary comma");
    snprintf(m->message, sizeof m->message, "The comma after \"%s\" may be unnecessary.", before);
  } else if (e->kind == EL__EDIT_DELETE) {
    snprintf(m->message, sizeof m->message, "\"%s\" may be unnecessary here.", word);
  } else if (e->kind == EL__EDIT_INSERT && !strcmp(e->text, ",") && before[0]) {
    snprintf(m->short_message, sizeof m->short_message, "Missing comma");
    snprintf(m->message, sizeof m->message, "A comma may be missing after \"%s\".", before);
  } else if (e->kind == EL__EDIT_INSERT) { /* a comma is never first: it goes after a word */
    snprintf(m->short_message, sizeof m->short_message, "Missing word");
    snprintf(m->message, sizeof m->message, "A word may be missing before \"%s\": \"%s\"?", word,
             e->text);
  } else {
    snprintf(m->message, sizeof m->message, "%s: did you mean \"%s\"?", lead, e->text);
  }
}
