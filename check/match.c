/* Type names and the match list's release (match.h). */
#include "match.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const NAMES[EL__ET_COUNT] = {
    "SPELL", "VERB:SVA", "VERB:TENSE", "VERB:FORM", "NOUN:NUM", "DET", "PREP",
    "PUNCT", "ORTH", "WO", "MISSING", "UNNECESSARY", "OTHER"};

const char *el__etype_name(int type) {
  return type >= 0 && type < EL__ET_COUNT ? NAMES[type] : NULL;
}

/* "VERB_SVA" and "verb:sva" name VERB:SVA: rule ids cannot hold ':'. */
static int same_name(const char *name, const char *want) {
  for (; *name && *want; name++, want++) {
    char a = (char)toupper((unsigned char)*name), b = *want;
    if (a == '_') a = ':';
    if (a != b) return 0;
  }
  return !*name && !*want;
}

int el__etype_by_name(const char *name) {
  if (!name) return -1;
  for (int t = 0; t < EL__ET_COUNT; t++)
    if (same_name(name, NAMES[t])) return t;
  return -1;
}

void el__matches_free(el__matches *ms) {
  if (!ms) return;
  for (int i = 0; i < ms->n; i++)
    for (int r = 0; r < ms->m[i].n_repl; r++) free(ms->m[i].repl[r]);
  free(ms->m);
  memset(ms, 0, sizeof *ms);
}
