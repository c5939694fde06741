/* Exact-match scoring of token edits against M2 gold (m2_score.h). */
#include "m2_score.h"

#include <stdlib.h>
#include <string.h>

#include "trainer_api.h"

static int same_edit(const el__m2_edit *a, const el__m2_edit *b) {
  return a->start == b->start && a->end == b->end && !strcmp(a->repl, b->repl);
}

static int is_unk(const el__m2_edit *g) { return !strcmp(g->type, "UNK"); }

/* Adds one edit (matched or not) to the row named name. */
static int count(el__m2_rows *rows, const char *name, int matched) {
  for (int i = 0; i < rows->n; i++)
    if (!strcmp(rows->r[i].name, name)) {
      rows->r[i].total++;
      rows->r[i].matched += matched;
      return 0;
    }
  size_t cap = (size_t)rows->cap;
  if (el__grow((void **)&rows->r, &cap, (size_t)rows->n + 1, sizeof *rows->r)) return -1;
  rows->cap = (int)cap;
  el__m2_row *r = &rows->r[rows->n++];
  snprintf(r->name, sizeof r->name, "%s", name);
  r->total = 1;
  r->matched = matched;
  return 0;
}

/* "R:VERB:SVA" -> "VERB:SVA" (family), "R" (operation). A type without an
 * operation prefix ("OTHER") is its own family, operation "?". */
static void split_type(const char *type, char *family, char *op) {
  int has_op = (type[0] == 'M' || type[0] == 'R' || type[0] == 'U') && type[1] == ':';
  snprintf(family, EL__M2_TYPE_MAX, "%s", has_op ? type + 2 : type);
  snprintf(op, EL__M2_TYPE_MAX, "%s",
           !has_op ? "?" : type[0] == 'M' ? "MISSING" : type[0] == 'U' ? "UNNECESSARY" : "REPLACEMENT");
}

/* One sentence's gold edits and proposals into s. */
static int score_sentence(const el__m2_edits *gold, const el__m2_edits *prop, el__m2_scores *s) {
  char fam[EL__M2_TYPE_MAX], op[EL__M2_TYPE_MAX];
  for (int g = 0; g < gold->n; g++) {
    const el__m2_edit *ge = &gold->e[g];
    if (is_unk(ge)) {
      s->unk++;
      continue;
    }
    int hit = 0;
    for (int p = 0; p < prop->n && !hit; p++) hit = same_edit(ge, &prop->e[p]);
    s->gold++;
    s->matched += hit;
    split_type(ge->type, fam, op);
    if (count(&s->by_type, fam, hit) || count(&s->by_op, op, hit)) return -1;
  }
  for (int p = 0; p < prop->n; p++) {
    int hit = 0;
    for (int g = 0; g < gold->n && !hit; g++) hit = !is_unk(&gold->e[g]) && same_edit(&gold->e[g], &prop->e[p]);
    s->proposed++;
    if (count(&s->by_proposed_type, prop->e[p].type[0] ? prop->e[p].type : "?", hit)) return -1;
  }
  return 0;
}

static int by_total(const void *a, const void *b) {
  const el__m2_row *x = a, *y = b;
  if (x->total != y->total) return x->total > y->total ? -1 : 1;
  return strcmp(x->name, y->name);
}

int el__m2_score(const el__m2 *m, const el__m2_edits *prop, el__m2_scores *out, el_error *err) {
  memset(out, 0, sizeof *out);
  for (int i = 0; i < m->n; i++)
    if (score_sentence(&m->s[i].gold, &prop[i], out)) {
      el__m2_scores_free(out);
      return el_error_set(err, EL_ENOMEM, "M2 scores: out of memory");
    }
  el__m2_rows *all[3] = {&out->by_type, &out->by_op, &out->by_proposed_type};
  for (int k = 0; k < 3; k++)
    if (all[k]->n) qsort(all[k]->r, (size_t)all[k]->n, sizeof *all[k]->r, by_total);
  out->p = out->proposed ? (double)out->matched / (double)out->proposed : 0;
  out->r = out->gold ? (double)out->matched / (double)out->gold : 0;
  double d = 0.25 * out->p + out->r;
  out->f05 = d > 0 ? 1.25 * out->p * out->r / d : 0;
  return EL_OK;
}

void el__m2_scores_free(el__m2_scores *s) {
  if (!s) return;
  free(s->by_type.r);
  free(s->by_op.r);
  free(s->by_proposed_type.r);
  memset(s, 0, sizeof *s);
}

const el__m2_row *el__m2_row_find(const el__m2_rows *rows, const char *name) {
  for (int i = 0; i < rows->n; i++)
    if (!strcmp(rows->r[i].name, name)) return &rows->r[i];
  return NULL;
}
