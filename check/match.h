/* A grammar checker's finding: where, what kind, a message and replacements.
 * The one type that the corrections (check/check.h), LanguageTool's wire
 * format (check/lt_*.c), `/score`'s suggestions, the `check` command and
 * the M2 scorer share. Offsets are bytes of the UTF-8 text that was
 * checked; the LanguageTool layer converts them to UTF-16 code units. */
#ifndef EL_CHECK_MATCH_H
#define EL_CHECK_MATCH_H

#include <stddef.h>

/* ERRANT's coarse types (docs/GED.md). Stable order: it is a bit index in
 * el__etype_mask and in the rule ids. */
typedef enum el__etype {
  EL__ET_SPELL,       /* R:SPELL        "becouse" -> "because" */
  EL__ET_VERB_SVA,    /* R:VERB:SVA     "she go" -> "she goes" */
  EL__ET_VERB_TENSE,  /* R:VERB:TENSE   "yesterday I go" -> "went" */
  EL__ET_VERB_FORM,   /* R:VERB:FORM    "to going" -> "to go" */
  EL__ET_NOUN_NUM,    /* R:NOUN:NUM     "many child" -> "children" */
  EL__ET_DET,         /* R:DET          "a apple" -> "an apple" */
  EL__ET_PREP,        /* R:PREP         "interested on" -> "in" */
  EL__ET_PUNCT,       /* R:PUNCT        */
  EL__ET_ORTH,        /* R:ORTH         case, spacing: "london" -> "London" */
  EL__ET_WO,          /* R:WO           two words swapped */
  EL__ET_MISSING,     /* M:*            a word is missing before this one */
  EL__ET_UNNECESSARY, /* U:*            this word should go */
  EL__ET_OTHER,       /* anything else the detector flags */
  EL__ET_COUNT
} el__etype;

/* "SPELL", "VERB:SVA", ... (ERRANT's spelling); NULL out of range. */
const char *el__etype_name(int type);
/* The type named "SPELL", "VERB:SVA" (also "VERB_SVA", any case); -1 if none. */
int el__etype_by_name(const char *name);

#define EL__MATCH_MAX_REPL 5

typedef struct el__match {
  size_t offset, length; /* bytes of the checked text; length 0: an insertion point */
  int type;              /* el__etype */
  float prob;            /* the detector's P(error) for the flagged word */
  int n_repl;            /* 0..EL__MATCH_MAX_REPL, best first */
  char *repl[EL__MATCH_MAX_REPL]; /* text replacing [offset, offset+length); "" deletes */
  char message[192];     /* "Possible agreement error: \"goes\"?" */
  char short_message[48];/* "Agreement" */
} el__match;

/* A checked text's matches, in text order. Owned by the caller: zero it,
 * fill it (the checker), release with el__matches_free. */
typedef struct el__matches {
  int n, cap;
  el__match *m;
} el__matches;
void el__matches_free(el__matches *ms);

#endif
