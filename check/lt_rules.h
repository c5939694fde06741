/* LanguageTool's names for the checker's ERRANT types (check/match.h): one
 * rule per type (id ELECTRA_<TYPE>), the category grouping it, the issue
 * type clients colour by, and the request's rule and category filters. */
#ifndef EL_CHECK_LT_RULES_H
#define EL_CHECK_LT_RULES_H

#include "match.h"

typedef struct el__lt_rule {
  const char *id;          /* "ELECTRA_VERB_SVA" */
  const char *description; /* "Subject-verb agreement" */
  const char *category_id; /* "GRAMMAR" */
  const char *category;    /* "Grammar" */
  const char *issue_type;  /* LanguageTool's: "misspelling", "grammar", ... */
  const char *type_name;   /* match.type.typeName: "UnknownWord" or "Other" */
} el__lt_rule;

/* The rule of an el__etype; type out of range gives OTHER's. */
const el__lt_rule *el__lt_rule_of(int type);

/* The el__etype a rule id names: "ELECTRA_VERB_SVA", also LanguageTool's
 * spelling rules (MORFOLOGIK_RULE_EN_US, ..) for SPELL; -1 if none. */
int el__lt_type_of_rule(const char *id);

/* Bit t set: el__etype t is reported. */
#define EL__LT_ALL_TYPES ((1u << EL__ET_COUNT) - 1u)

/* The types left by LanguageTool's filters, each a comma-separated list of
 * ids (NULL or "" for none): every type (with enabled_only, only the enabled
 * categories' types) less the disabled categories', plus the enabled rules',
 * less the disabled rules' (a rule named beats its category). Unknown ids
 * are ignored, as LanguageTool ignores rules it does not have. */
unsigned el__lt_filter_types(const char *enabled_rules, const char *disabled_rules,
                             const char *enabled_cats, const char *disabled_cats,
                             int enabled_only);

#endif
