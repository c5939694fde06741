/* electra-train eval --task ged --m2 FILE (cmd_eval_m2.h): every system's
 * corrections of the M2 file's sentences become token edits in minimal
 * form, scored by exact match against annotator 0's edits; the systems'
 * figures are printed side by side and written to --out as JSON. */
#include "cmd_eval_m2.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "m2_score.h"
#include "m2_spell.h"

#define PROG "electra-train eval"
#define MAX_SYS 2

typedef struct m2_system {
  const char *name;
  el__m2_scores sc;
  el__check_cost cost; /* the model's: what its checker ran through the models */
} m2_system;

/* The spellchecker's edits for every sentence. */
static int propose_hunspell(const el__m2 *m, const char *dict_dir, el__dict_variant v,
                            el__m2_edits *prop, el_error *err) {
  el__dict *d = NULL;
  int rc = el__dict_load(dict_dir, &d, err);
  for (int i = 0; rc == EL_OK && i < m->n; i++)
    rc = el__m2_spell_propose(d, v, &m->s[i], &prop[i], err);
  el__dict_free(d);
  return rc;
}

/* The model's edits for every sentence, through the checker. */
static int propose_model(const el__m2 *m, const el__checker_args *ck, el__dict_variant v,
                         el__m2_edits *prop, el__check_cost *cost, el_error *err) {
  el__checker_set cs;
  int rc = el__checker_open(ck, &cs, err);
  if (rc == EL_OK) rc = el__eval_m2_check(cs.checker, v, m, prop, err);
  if (rc == EL_OK) *cost = *el__checker_cost(cs.checker);
  el__checker_close(&cs);
  return rc;
}

/* The edits to path as an M2 file. */
static int write_edits(const char *path, const el__m2 *m, const el__m2_edits *prop, el_error *err) {
  FILE *f = fopen(path, "w");
  int bad = !f || el__m2_write(f, m, prop) != 0;
  if (f && fclose(f)) bad = 1;
  return bad ? el_error_set(err, EL_EIO, "%s: %s", path, strerror(errno)) : EL_OK;
}

/* One system's edits (model: the checker's, else hunspell's), scored;
 * written to edits_path unless NULL. */
static int score_system(const el__m2 *m, const el__eval_m2_args *a, int model,
                        const char *edits_path, m2_system *sys, el_error *err) {
  el__m2_edits *prop = calloc((size_t)m->n + 1, sizeof *prop);
  int rc = !prop   ? el_error_set(err, EL_ENOMEM, "out of memory")
           : model ? propose_model(m, &a->ck, a->variant, prop, &sys->cost, err)
                   : propose_hunspell(m, a->ck.dict_dir, a->variant, prop, err);
  if (rc == EL_OK) rc = el__m2_score(m, prop, &sys->sc, err);
  if (rc == EL_OK && edits_path) rc = write_edits(edits_path, m, prop, err);
  for (int i = 0; prop && i < m->n; i++) el__m2_edits_free(&prop[i]);
  free(prop);
  return rc;
}

static void print_rows_head(const char *title, const m2_system *sys, int n) {
  printf("\n%-24s", title);
  for (int k = 0; k < n; k++) printf(" %10s", sys[k].name);
  printf("\n");
}

/* A gold-side table (recall by type or operation): every system has the
 * same rows (the gold's), in the first system's order. */
static void print_recall(const char *title, const m2_system *sys, int n, int by_op) {
  print_rows_head(title, sys, n);
  const el__m2_rows *rows = by_op ? &sys[0].sc.by_op : &sys[0].sc.by_type;
  for (int i = 0; i < rows->n; i++) {
    char label[64];
    snprintf(label, sizeof label, "%s (%ld)", rows->r[i].name, rows->r[i].total);
    printf("  %-22s", label);
    for (int k = 0; k < n; k++) {
      const el__m2_row *r = el__m2_row_find(by_op ? &sys[k].sc.by_op : &sys[k].sc.by_type,
                                            rows->r[i].name);
      printf(" %10.3f", r && r->total ? (double)r->matched / (double)r->total : 0.0);
    }
    printf("\n");
  }
}

static void print_table(const char *path, int n_sent, const m2_system *sys, int n) {
  const el__m2_scores *g = &sys[0].sc;
  printf("corrections on %s: %d sentences, %ld gold edits (%ld UNK left out)\n", path, n_sent,
         g->gold, g->unk);
  print_rows_head("", sys, n);
  const char *lab[5] = {"precision", "recall", "F0.5", "proposed", "matched"};
  for (int l = 0; l < 5; l++) {
    printf("%-24s", lab[l]);
    for (int k = 0; k < n; k++) {
      const el__m2_scores *s = &sys[k].sc;
      if (l < 3) printf(" %10.3f", l == 0 ? s->p : l == 1 ? s->r : s->f05);
      else printf(" %10ld", l == 3 ? s->proposed : s->matched);
    }
    printf("\n");
  }
  print_recall("recall by type", sys, n, 0);
  print_recall("recall by operation", sys, n, 1);
  for (int k = 0; k < n; k++) {
    printf("\nprecision of %s by its type\n", sys[k].name);
    const el__m2_rows *rows = &sys[k].sc.by_proposed_type;
    for (int i = 0; i < rows->n; i++)
      printf("  %-22s %10.3f  (%ld of %ld)\n", rows->r[i].name,
             rows->r[i].total ? (double)rows->r[i].matched / (double)rows->r[i].total : 0.0,
             rows->r[i].matched, rows->r[i].total);
  }
}

/* The model's passes beside detection's one: what a check costs over
 * what /score does on the same text. */
static void print_cost(const el__check_cost *k) {
  printf("\nthe model's passes: detection %ld tokens; generator %ld sentences (%ld tokens); "
         "verification %ld sentences (%ld tokens) in %ld rounds\n",
         k->detect_ids, k->gen_seqs, k->gen_ids, k->verify_seqs, k->verify_ids, k->verify_rounds);
}

/* {"m2": path, "sentences": n, NAME: scores...} to path. */
static int write_json(const char *out, const char *m2, int n_sent, const m2_system *sys, int n) {
  cJSON *o = cJSON_CreateObject();
  int ok = o && cJSON_AddStringToObject(o, "m2", m2) && cJSON_AddNumberToObject(o, "sentences", n_sent);
  for (int k = 0; ok && k < n; k++) {
    cJSON *s = el__m2_scores_json(&sys[k].sc);
    ok = s != NULL;
    if (ok) cJSON_AddItemToObject(o, sys[k].name, s);
  }
  char *text = ok ? cJSON_Print(o) : NULL;
  cJSON_Delete(o);
  if (!text) {
    fprintf(stderr, PROG ": out of memory\n");
    return 1;
  }
  FILE *f = fopen(out, "w");
  int bad = !f || fprintf(f, "%s\n", text) < 0;
  if (f && fclose(f)) bad = 1;
  free(text);
  if (bad) perror(out);
  return bad;
}

int el__eval_m2(const el__eval_m2_args *a) {
  el__m2 m;
  el_error err = {0};
  m2_system sys[MAX_SYS] = {{0}};
  int n_sys = 0, status = 1, all = -1;
  if (el__m2_read(a->m2, &m, &err)) goto fail;
  all = m.n;
  if (a->max_sents > 0 && a->max_sents < m.n) m.n = (int)a->max_sents; /* all freed at the end */
  for (int model = a->ck.model ? 1 : 0; model >= 0; model--) {
    sys[n_sys].name = model ? "model" : "hunspell";
    if (score_system(&m, a, model, n_sys ? NULL : a->edits, &sys[n_sys], &err)) goto fail;
    n_sys++;
  }
  print_table(a->m2, m.n, sys, n_sys);
  if (a->ck.model) print_cost(&sys[0].cost);
  status = a->outp ? write_json(a->outp, a->m2, m.n, sys, n_sys) : 0;
  goto out;
fail:
  fprintf(stderr, PROG ": %s\n", err.msg);
out:
  for (int k = 0; k < n_sys; k++) el__m2_scores_free(&sys[k].sc);
  if (all >= 0) m.n = all;
  el__m2_free(&m);
  return status;
}
