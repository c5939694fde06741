/* M2 scores as JSON (m2_score.h), for `eval --m2 ... --out FILE`. */
#include "m2_score.h"

/* {NAME: {total_key: n, "matched": m, ratio_key: m / n}} per row. */
static cJSON *rows_json(const el__m2_rows *rows, const char *total_key, const char *ratio_key) {
  cJSON *o = cJSON_CreateObject();
  for (int i = 0; o && i < rows->n; i++) {
    const el__m2_row *r = &rows->r[i];
    cJSON *row = cJSON_AddObjectToObject(o, r->name);
    if (!row || !cJSON_AddNumberToObject(row, total_key, (double)r->total) ||
        !cJSON_AddNumberToObject(row, "matched", (double)r->matched) ||
        !cJSON_AddNumberToObject(row, ratio_key,
                                 r->total ? (double)r->matched / (double)r->total : 0)) {
      cJSON_Delete(o);
      return NULL;
    }
  }
  return o;
}

cJSON *el__m2_scores_json(const el__m2_scores *s) {
  cJSON *o = cJSON_CreateObject();
  if (!o || !cJSON_AddNumberToObject(o, "gold", (double)s->gold) ||
      !cJSON_AddNumberToObject(o, "proposed", (double)s->proposed) ||
      !cJSON_AddNumberToObject(o, "matched", (double)s->matched) ||
      !cJSON_AddNumberToObject(o, "unk_gold", (double)s->unk) ||
      !cJSON_AddNumberToObject(o, "precision", s->p) ||
      !cJSON_AddNumberToObject(o, "recall", s->r) || !cJSON_AddNumberToObject(o, "f0.5", s->f05))
    goto fail;
  const struct {
    const char *key, *total, *ratio;
    const el__m2_rows *rows;
  } parts[3] = {{"recall_by_type", "gold", "recall", &s->by_type},
                {"recall_by_operation", "gold", "recall", &s->by_op},
                {"precision_by_type", "proposed", "precision", &s->by_proposed_type}};
  for (int k = 0; k < 3; k++) {
    cJSON *r = rows_json(parts[k].rows, parts[k].total, parts[k].ratio);
    if (!r) goto fail;
    cJSON_AddItemToObject(o, parts[k].key, r);
  }
  return o;
fail:
  cJSON_Delete(o);
  return NULL;
}
