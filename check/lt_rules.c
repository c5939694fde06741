/* ERRANT types -> LanguageTool rules and categories, and the filters
 * (lt_rules.h). */
#include "lt_rules.h"

#include <ctype.h>
#include <string.h>

/* Categories as LanguageTool names its own (TYPOS, GRAMMAR, PUNCTUATION,
 * STYLE, MISC), so a client's per-category settings carry over. */
static const el__lt_rule RULES[EL__ET_COUNT] = {
    [EL__ET_SPELL] = {"ELECTRA_SPELL", "Possible spelling mistake", "TYPOS", "Possible Typo",
                      "misspelling", "UnknownWord"},
    [EL__ET_VERB_SVA] = {"ELECTRA_VERB_SVA", "Subject-verb agreement", "GRAMMAR", "Grammar",
                         "grammar", "Other"},
    [EL__ET_VERB_TENSE] = {"ELECTRA_VERB_TENSE", "Verb tense", "GRAMMAR", "Grammar", "grammar",
                           "Other"},
    [EL__ET_VERB_FORM] = {"ELECTRA_VERB_FORM", "Verb form", "GRAMMAR", "Grammar", "grammar",
                          "Other"},
    [EL__ET_NOUN_NUM] = {"ELECTRA_NOUN_NUM", "Noun number (singular or plural)", "GRAMMAR",
                         "Grammar", "grammar", "Other"},
    [EL__ET_DET] = {"ELECTRA_DET", "Article or determiner", "GRAMMAR", "Grammar", "grammar",
                    "Other"},
    [EL__ET_PREP] = {"ELECTRA_PREP", "Preposition", "GRAMMAR", "Grammar", "grammar", "Other"},
    [EL__ET_PUNCT] = {"ELECTRA_PUNCT", "Punctuation", "PUNCTUATION", "Punctuation",
                      "typographical", "Other"},
    [EL__ET_ORTH] = {"ELECTRA_ORTH", "Capitalisation or spacing", "TYPOS", "Possible Typo",
                     "typographical", "Other"},
    [EL__ET_WO] = {"ELECTRA_WO", "Word order", "STYLE", "Style", "style", "Other"},
    [EL__ET_MISSING] = {"ELECTRA_MISSING", "Missing word", "GRAMMAR", "Grammar", "grammar",
                        "Other"},
    [EL__ET_UNNECESSARY] = {"ELECTRA_UNNECESSARY", "Unnecessary word", "GRAMMAR", "Grammar",
                            "grammar", "Other"},
    [EL__ET_OTHER] = {"ELECTRA_OTHER", "Possible error", "MISC", "Miscellaneous",
                      "uncategorized", "Other"},
};

const el__lt_rule *el__lt_rule_of(int type) {
  return &RULES[type >= 0 && type < EL__ET_COUNT ? type : EL__ET_OTHER];
}

/* Clients that speak to LanguageTool disable spelling by its rule ids
 * (LTeX's "disable rule" on a misspelling sends these). */
static const char *const SPELL_ALIASES[] = {"MORFOLOGIK_RULE_EN", "MORFOLOGIK_RULE_EN_US",
                                            "MORFOLOGIK_RULE_EN_GB", "HUNSPELL_RULE"};

int el__lt_type_of_rule(const char *id) {
  if (!id) return -1;
  for (size_t i = 0; i < sizeof SPELL_ALIASES / sizeof *SPELL_ALIASES; i++)
    if (!strcmp(id, SPELL_ALIASES[i])) return EL__ET_SPELL;
  if (strncmp(id, "ELECTRA_", 8)) return -1;
  return el__etype_by_name(id + 8);
}

/* The types a comma-separated list names, as rules or as categories. */
static unsigned types_named(const char *list, int categories) {
  unsigned mask = 0;
  while (list && *list) {
    const char *end = strchr(list, ',');
    size_t n = end ? (size_t)(end - list) : strlen(list);
    while (n && isspace((unsigned char)*list)) list++, n--;
    while (n && isspace((unsigned char)list[n - 1])) n--;
    char id[64];
    if (n && n < sizeof id) {
      memcpy(id, list, n);
      id[n] = 0;
      for (int t = 0; t < EL__ET_COUNT; t++)
        if (categories ? !strcmp(id, RULES[t].category_id) : el__lt_type_of_rule(id) == t)
          mask |= 1u << t;
    }
    list = end ? end + 1 : NULL;
  }
  return mask;
}

unsigned el__lt_filter_types(const char *enabled_rules, const char *disabled_rules,
                             const char *enabled_cats, const char *disabled_cats,
                             int enabled_only) {
  unsigned on_rules = types_named(enabled_rules, 0), off_rules = types_named(disabled_rules, 0);
  unsigned on_cats = types_named(enabled_cats, 1), off_cats = types_named(disabled_cats, 1);
  unsigned base = enabled_only ? on_cats : EL__LT_ALL_TYPES & ~off_cats;
  /* a rule named beats its category; a rule both enabled and disabled is off */
  return (base | on_rules) & ~off_rules;
}
