/* Scoring corrections against an M2 file's gold edits, the M2/ERRANT way
 * (docs/GED.md §6): a proposed edit counts when an edit of annotator 0 has
 * the same span and the same replacement tokens; P = matches / proposed,
 * R = matches / gold, F0.5 = 1.25 P R / (0.25 P + R).
 *
 * Gold edits typed UNK (the annotator marked the words but wrote no
 * correction: their "correction" is the original text) can be matched by
 * no correction, so they are left out of the gold count (they would only
 * lower every system's recall alike); el__m2_scores.unk says how many.
 *
 * Recall per type: the gold type's coarse family, ERRANT's type with the
 * operation dropped (R:VERB:SVA, M:VERB:SVA -> VERB:SVA; M:DET, U:DET,
 * R:DET -> DET), as scripts/ged_types.py counts detection, so one row says
 * how well a kind of error is corrected whichever way it was made; recall
 * per operation (M missing, U unnecessary, R replacement) separately. The
 * proposed edits' precision is per the system's own type. */
#ifndef EL_TRAIN_M2_SCORE_H
#define EL_TRAIN_M2_SCORE_H

#include <cJSON.h>

#include "m2.h"

/* One row: gold edits and those matched (recall), or proposed edits and
 * those matched (precision). */
typedef struct el__m2_row {
  char name[EL__M2_TYPE_MAX];
  long total, matched;
} el__m2_row;

typedef struct el__m2_rows {
  int n, cap;
  el__m2_row *r; /* sorted by total, largest first, then by name */
} el__m2_rows;

typedef struct el__m2_scores {
  long gold, proposed, matched, unk;
  double p, r, f05; /* 0 when the denominator is 0 */
  el__m2_rows by_type, by_op, by_proposed_type;
} el__m2_scores;

/* Scores prop[i], the edits proposed for sentence i of m (m->n of them, in
 * minimal form: el__m2_add_edit), against m's gold. *out zeroed first;
 * el__m2_scores_free releases it. EL_ENOMEM. */
int el__m2_score(const el__m2 *m, const el__m2_edits *prop, el__m2_scores *out, el_error *err);
void el__m2_scores_free(el__m2_scores *s);

/* The row named name in rows, or NULL. */
const el__m2_row *el__m2_row_find(const el__m2_rows *rows, const char *name);

/* {"gold", "proposed", "matched", "unk_gold", "precision", "recall", "f0.5",
 * "recall_by_type": {TYPE: {"gold", "matched", "recall"}}, "recall_by_operation":
 * {...}, "precision_by_type": {TYPE: {"proposed", "matched", "precision"}}};
 * NULL when out of memory. */
cJSON *el__m2_scores_json(const el__m2_scores *s);

#endif
