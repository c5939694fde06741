/* Writing a system's corrections as an M2 file (m2.h), the form ERRANT's
 * and the M2 scorer's tools read as a hypothesis. */
#include <stdio.h>
#include <string.h>

#include "m2.h"

/* An operation prefix for a proposed edit: M (insertion), U (deletion), R. */
static char operation(const el__m2_edit *e) {
  return e->start == e->end ? 'M' : !e->repl[0] ? 'U' : 'R';
}

int el__m2_write(FILE *f, const el__m2 *m, const el__m2_edits *prop) {
  for (int i = 0; i < m->n; i++) {
    if (fprintf(f, "S %s\n", m->s[i].text) < 0) return -1;
    const el__m2_edits *es = &prop[i];
    if (!es->n && fprintf(f, "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n") < 0) return -1;
    for (int k = 0; k < es->n; k++) {
      const el__m2_edit *e = &es->e[k];
      /* MISSING and UNNECESSARY are operations in ERRANT's scheme, not types */
      const char *type = !e->type[0] || !strcmp(e->type, "MISSING") || !strcmp(e->type, "UNNECESSARY")
                             ? "OTHER" : e->type;
      if (fprintf(f, "A %d %d|||%c:%s|||%s|||REQUIRED|||-NONE-|||0\n", e->start, e->end,
                  operation(e), type, e->repl) < 0)
        return -1;
    }
    if (fputc('\n', f) == EOF) return -1;
  }
  return 0;
}
