/* Evaluation of a (trainable) model on task features; see finetune.h. The
 * model runs in eval mode (no dropout), so the numbers equal those of the
 * engine on the saved checkpoint up to float rounding. */
#include <cJSON.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "finetune.h"
#include "metrics.h"

int el__ft_tmodel_run(void *ctx, const el_batch *b, float *out, float *out2, el_error *err) {
  el__ft_tmodel_ctx *c = ctx;
  const float *o;
  int rc = el__tmodel_forward(c->m, b, NULL, 0, 0, NULL, &o, err);
  if (rc) return rc;
  long T = 0;
  for (int i = 0; i < b->n_seqs; i++) T += b->seq_len[i];
  if (c->kind == EL__TASK_CLS || c->kind == EL__TASK_REG) {
    memcpy(out, o, (size_t)b->n_seqs * c->K * sizeof *out);
  } else if (c->kind == EL__TASK_GED) {
    for (long t = 0; t < T; t++) out[t] = 1.0f / (1.0f + expf(-o[t]));
  } else {
    for (long t = 0; t < T; t++) {
      out[t] = o[2 * t];
      out2[t] = o[2 * t + 1];
    }
  }
  return EL_OK;
}

/* P(error) per token from a token classifier: 1 - P(correct label), as /score. */
static int run_token_error_probs(el__ft_engine_ctx *c, const el_batch *b, float *prob,
                                 el_error *err) {
  int T = 0, L = el_model_config(c->m)->num_labels;
  for (int i = 0; i < b->n_seqs; i++) T += b->seq_len[i];
  size_t need = (size_t)T * (size_t)L;
  if (need > c->cap_logits) {
    float *p = realloc(c->logits, need * sizeof *p);
    if (!p) return el_error_set(err, EL_ENOMEM, "eval: out of memory");
    c->logits = p;
    c->cap_logits = need;
  }
  int rc = el_run_token_classify(c->m, c->ws, b, c->logits, err);
  if (!rc) el_error_probs(c->logits, T, L, c->correct_label, prob);
  return rc;
}

void el__ft_engine_ctx_free(el__ft_engine_ctx *c) {
  free(c->logits);
  c->logits = NULL;
  c->cap_logits = 0;
}

int el__ft_engine_run(void *ctx, const el_batch *b, float *out, float *out2, el_error *err) {
  el__ft_engine_ctx *c = ctx;
  switch (c->kind) {
    case EL__TASK_CLS:
    case EL__TASK_REG: return el_run_classify(c->m, c->ws, b, out, err);
    case EL__TASK_GED:
      if (el_model_config(c->m)->arch == EL_ARCH_TOKEN_CLS) return run_token_error_probs(c, b, out, err);
      return el_run_replaced(c->m, c->ws, b, out, err);
    default: return el_run_qa(c->m, c->ws, b, out, out2, err);
  }
}

/* Runs features [a, b) (consecutive, so their tokens are contiguous). */
static int run_range(const el__ft_runner *r, const el__ft_data *d, int a, int b, int *lens,
                     float *out, float *out2, el_error *err) {
  for (int i = a; i < b; i++) lens[i - a] = d->f[i].len;
  el_batch bt = {b - a, lens, d->ids + d->f[a].off, d->types + d->f[a].off};
  return r->run(r->ctx, &bt, out, out2, err);
}

typedef struct qa_pred {
  char *text;       /* best span, or "" */
  double diff;      /* null logit - best logit (+inf: no span) */
  double em_ans, f1_ans, em_null, f1_null;
} qa_pred;

static int cmp_diff_idx(const void *a, const void *b, void *ctx) {
  const qa_pred *p = ctx;
  double x = p[*(const int *)a].diff, y = p[*(const int *)b].diff;
  return x < y ? -1 : x > y ? 1 : *(const int *)a - *(const int *)b;
}

/* Question qi's best span (or "" when none) and its scores against the gold
 * answers, answered and unanswered. */
static int decode_question(const el__ft_examples *ex, const el__ft_data *d, const el__ft_shape *s,
                           int qi, const float *st, const float *en, qa_pred *out, el_error *err) {
  const el__squad_data *sq = &ex->squad;
  const el__squad_q *q = &sq->q[qi];
  const char *ctx = sq->contexts[q->ctx];
  long off = d->f[d->qa_first_feat[qi]].off;
  el_qa_span spans[4];
  int ns = 0;
  el_qa_null nul;
  int rc = el_qa_decode(&d->qa_w[qi], st + off, en + off, &s->qa, spans, 4, &ns, &nul, err);
  if (rc) return rc;
  if (ns > 0) {
    size_t n = strlen(ctx), b0 = el_utf8_byte_offset(ctx, n, (size_t)spans[0].start),
           b1 = el_utf8_byte_offset(ctx, n, (size_t)spans[0].end);
    out->text = strndup(ctx + b0, b1 - b0);
    out->diff = (double)nul.logit - (double)spans[0].score;
  } else {
    out->text = strdup("");
    out->diff = INFINITY;
  }
  if (!out->text) return el_error_set(err, EL_ENOMEM, "%s: out of memory", ex->path);
  const char *golds[64];
  int ng = 0;
  for (int k = 0; k < q->n_answers && ng < 64; k++) golds[ng++] = q->answers[k].text;
  out->em_ans = el__squad_max_em(out->text, golds, ng);
  out->f1_ans = el__squad_max_f1(out->text, golds, ng);
  out->em_null = el__squad_max_em("", golds, ng);
  out->f1_null = el__squad_max_f1("", golds, ng);
  return EL_OK;
}

/* The squad2 null threshold with the best F1: with diffs sorted ascending,
 * a threshold between the j-th and (j+1)-th makes questions j+1.. unanswered. */
static double best_null_threshold(const qa_pred *qp, int *order, int nq) {
  for (int i = 0; i < nq; i++) order[i] = i;
  qsort_r(order, (size_t)nq, sizeof *order, cmp_diff_idx, (void *)qp);
  double score = 0, best;
  for (int i = 0; i < nq; i++) score += qp[i].f1_null; /* j = 0: all null */
  best = score;
  int best_j = 0;
  for (int j = 1; j <= nq; j++) {
    const qa_pred *x = &qp[order[j - 1]];
    if (!isfinite(x->diff)) break;
    score += x->f1_ans - x->f1_null;
    if (score > best + 1e-12) {
      best = score;
      best_j = j;
    }
  }
  double t = best_j == 0 ? (isfinite(qp[order[0]].diff) ? qp[order[0]].diff - 1.0 : 0.0)
                         : qp[order[best_j - 1]].diff;
  return isfinite(t) ? t : 0.0;
}

/* EM/F1 over the questions at null threshold t (a question whose diff is
 * above t is answered ""), the predictions as JSON to pred. */
static void score_questions(const el__squad_data *sq, const qa_pred *qp, double t, FILE *pred,
                            el__ft_metrics *mt) {
  int nq = sq->n_q, nha = 0, nna = 0;
  double em = 0, f1 = 0, ha = 0, na = 0;
  cJSON *pj = pred ? cJSON_CreateObject() : NULL;
  for (int qi = 0; qi < nq; qi++) {
    int empty = !(qp[qi].diff <= t);
    double e = empty ? qp[qi].em_null : qp[qi].em_ans, f = empty ? qp[qi].f1_null : qp[qi].f1_ans;
    em += e;
    f1 += f;
    if (sq->q[qi].impossible || sq->q[qi].n_answers == 0) {
      na += f;
      nna++;
    } else {
      ha += f;
      nha++;
    }
    if (pj) cJSON_AddStringToObject(pj, sq->q[qi].id, empty ? "" : qp[qi].text);
  }
  if (pj) {
    char *txt = cJSON_Print(pj);
    if (txt) fprintf(pred, "%s\n", txt);
    free(txt);
    cJSON_Delete(pj);
  }
  mt->n = nq;
  mt->em = 100.0 * em / nq;
  mt->f1_qa = 100.0 * f1 / nq;
  mt->has_ans_f1 = nha ? 100.0 * ha / nha : 0;
  mt->no_ans_f1 = nna ? 100.0 * na / nna : 0;
  mt->primary = mt->f1_qa;
}

static int eval_qa(const el__ft_runner *r, const el__ft_examples *ex, const el__ft_data *d,
                   const el__ft_shape *s, int batch, int pick, float threshold, FILE *pred,
                   el__ft_metrics *mt, el_error *err) {
  int rc = EL_OK, nq = ex->squad.n_q;
  float *st = malloc((size_t)d->n_tok * sizeof *st), *en = malloc((size_t)d->n_tok * sizeof *en);
  int *lens = malloc((size_t)batch * sizeof *lens);
  qa_pred *qp = calloc((size_t)nq, sizeof *qp);
  int *order = malloc((size_t)nq * sizeof *order);
  if (!st || !en || !lens || !qp || !order) {
    rc = el_error_set(err, EL_ENOMEM, "%s: out of memory", ex->path);
    goto done;
  }
  for (int a = 0; a < d->n && !rc; a += batch) {
    int b = a + batch < d->n ? a + batch : d->n;
    long base = d->f[a].off;
    if ((rc = run_range(r, d, a, b, lens, st + base, en + base, err))) goto done;
  }
  for (int qi = 0; qi < nq; qi++)
    if ((rc = decode_question(ex, d, s, qi, st, en, &qp[qi], err))) goto done;
  double t = INFINITY; /* squad: never predict "no answer" unless no span */
  if (ex->task->squad2) {
    t = pick ? best_null_threshold(qp, order, nq) : threshold;
    mt->has_null_threshold = 1;
    mt->null_threshold = (float)t;
  }
  score_questions(&ex->squad, qp, t, pred, mt);
done:
  for (int i = 0; qp && i < nq; i++) free(qp[i].text);
  free(qp);
  free(order);
  free(st);
  free(en);
  free(lens);
  return rc;
}

static int eval_cls(const el__ft_runner *r, const el__ft_examples *ex, const el__ft_data *d,
                    int batch, FILE *pred, el__ft_metrics *mt, el_error *err) {
  const el__cls_data *c = &ex->cls;
  int reg = ex->task->kind == EL__TASK_REG, K = reg ? 1 : c->n_labels, rc = EL_OK;
  int *lens = malloc((size_t)batch * sizeof *lens);
  int *pi = malloc((size_t)d->n * sizeof *pi), *gi = malloc((size_t)d->n * sizeof *gi);
  double *pv = malloc((size_t)d->n * sizeof *pv), *gv = malloc((size_t)d->n * sizeof *gv);
  float *o = malloc((size_t)batch * K * sizeof *o);
  if (!lens || !pi || !gi || !pv || !gv || !o) {
    rc = el_error_set(err, EL_ENOMEM, "%s: out of memory", ex->path);
    goto done;
  }
  if (pred) fprintf(pred, "index\tprediction\n");
  for (int a = 0; a < d->n; a += batch) {
    int b = a + batch < d->n ? a + batch : d->n;
    if ((rc = run_range(r, d, a, b, lens, o, NULL, err))) goto done;
    for (int i = a; i < b; i++) {
      const float *l = o + (size_t)(i - a) * K;
      int best = 0;
      for (int k = 1; k < K; k++)
        if (l[k] > l[best]) best = k;
      pi[i] = best;
      gi[i] = d->f[i].label;
      pv[i] = l[0];
      gv[i] = d->f[i].value;
      if (pred) {
        if (reg)
          fprintf(pred, "%d\t%.6g\n", i, l[0]);
        else
          fprintf(pred, "%d\t%s\n", i, c->labels[best]);
      }
    }
  }
  mt->n = d->n;
  if (reg) {
    mt->pearson = el__metric_pearson(pv, gv, d->n);
    mt->spearman = el__metric_spearman(pv, gv, d->n);
    mt->primary = mt->spearman;
  } else {
    mt->accuracy = el__metric_accuracy(pi, gi, d->n);
    mt->mcc = el__metric_mcc(pi, gi, d->n, K);
    mt->f1 = K == 2 ? el__metric_f1(pi, gi, d->n, 1) : 0;
    const char *pm = ex->task->metric;
    mt->primary = !strcmp(pm, "mcc") ? mt->mcc : !strcmp(pm, "f1") ? mt->f1 : mt->accuracy;
  }
done:
  free(o);
  free(lens);
  free(pi);
  free(gi);
  free(pv);
  free(gv);
  return rc;
}

/* Word probabilities of every sentence (flat, sentence after sentence): the
 * pieces of a word are contiguous within a feature, so each run of equal
 * tword folds into one word by the model's rule, as /score folds them. */
static int ged_word_probs(const el__ft_runner *r, const el__ft_data *d, int batch,
                          el_score_rule rule, const long *first, float *prob, el_error *err) {
  long maxtok = 0;
  for (int a = 0; a < d->n; a += batch) {
    int b = a + batch < d->n ? a + batch : d->n;
    long T = d->f[b - 1].off + d->f[b - 1].len - d->f[a].off;
    if (T > maxtok) maxtok = T;
  }
  int *lens = malloc((size_t)batch * sizeof *lens);
  float *o = malloc((size_t)(maxtok + 1) * sizeof *o);
  int rc = !lens || !o ? el_error_set(err, EL_ENOMEM, "evaluation: out of memory") : EL_OK;
  for (int a = 0; a < d->n && !rc; a += batch) {
    int b = a + batch < d->n ? a + batch : d->n;
    if ((rc = run_range(r, d, a, b, lens, o, NULL, err))) break;
    long base = d->f[a].off;
    for (int i = a; i < b; i++) {
      const el__feat *f = &d->f[i];
      const int *tw = d->tword + f->off;
      const float *p = o + (f->off - base);
      for (int t = 0; t < f->len;) {
        int u = t + 1;
        if (tw[t] < 0) {
          t = u;
          continue;
        }
        while (u < f->len && tw[u] == tw[t]) u++;
        prob[first[f->example] + tw[t]] = el_word_prob(rule, p + t, u - t);
        t = u;
      }
    }
  }
  free(lens);
  free(o);
  return rc;
}

/* word, gold, flagged, P(error); with the dictionary (comb) the flag is the
 * combination's and two columns follow: the model's P and the dictionary's verdict. */
static void ged_predictions(const el__ged_data *g, const long *first, const float *prob,
                            const float *comb, double threshold, FILE *pred) {
  for (int i = 0; i < g->n; i++) {
    for (int j = 0; j < g->s[i].n; j++) {
      float p = prob[first[i] + j], c = comb ? comb[first[i] + j] : p;
      fprintf(pred, "%s\t%c\t%c\t%.4f", g->s[i].words[j], g->s[i].err[j] ? 'i' : 'c',
              c >= threshold ? 'i' : 'c', c);
      if (comb) fprintf(pred, "\t%.4f\t%d", p, c != p);
      fprintf(pred, "\n");
    }
    fprintf(pred, "\n");
  }
}

/* GED scores at the given threshold (or, when pick, at the F0.5-best one)
 * and at 0.5; a word is flagged when its prob >= the threshold, as /score
 * flags it. */
static int eval_ged(const el__ft_runner *r, const el__ft_examples *ex, const el__ft_data *d,
                    const el__ft_shape *s, int batch, int pick, float threshold, FILE *pred,
                    el__ft_metrics *mt, el_error *err) {
  const el__ged_data *g = &ex->ged;
  long *first = malloc((size_t)(g->n + 1) * sizeof *first);
  if (!first) return el_error_set(err, EL_ENOMEM, "%s: out of memory", ex->path);
  first[0] = 0;
  for (int i = 0; i < g->n; i++) first[i + 1] = first[i] + g->s[i].n;
  int n = (int)first[g->n];
  int *gold = calloc((size_t)n + 1, sizeof *gold);
  float *prob = calloc((size_t)n + 1, sizeof *prob);
  int rc = !gold || !prob ? el_error_set(err, EL_ENOMEM, "%s: out of memory", ex->path) : EL_OK;
  if (!rc) rc = ged_word_probs(r, d, batch, s->ged_rule, first, prob, err);
  if (!rc) {
    for (int i = 0; i < g->n; i++)
      for (int j = 0; j < g->s[i].n; j++) gold[first[i] + j] = g->s[i].err[j];
    double thr = pick ? el__ged_best_threshold(prob, gold, n, g->unseen_errors, g->near_best) : threshold;
    if (thr < 0) rc = el_error_set(err, EL_ENOMEM, "%s: out of memory", ex->path);
    /* a readable config value; the scores below are those at the rounded one */
    if (pick) thr = round(thr * 1e4) / 1e4;
    el__ged_scores at, at05;
    el__metric_ged_at(prob, gold, n, thr, &at);
    el__metric_ged_at(prob, gold, n, 0.5, &at05);
    mt->n = n;
    mt->ged_rule = s->ged_rule;
    mt->threshold = thr;
    mt->precision = at.precision;
    mt->recall = at.recall;
    mt->f05 = at.f05;
    mt->accuracy = n ? (double)(at.tp + at.tn) / n : 0;
    mt->precision05 = at05.precision;
    mt->recall05 = at05.recall;
    mt->f05_05 = at05.f05;
    mt->primary = at.f05;
    float *comb = s->dict && pred ? malloc(((size_t)n + 1) * sizeof *comb) : NULL;
    if (s->dict && pred && !comb) rc = el_error_set(err, EL_ENOMEM, "%s: out of memory", ex->path);
    if (s->dict && !rc)
      rc = el__ged_dict_score(&(el__ged_readers){s->dict, s->ngram.lm, s->ngram.learner}, g, first, prob, gold, s->dict_weight, s->dict_name_weight,
                              pick, s->dict_threshold, comb, &mt->dict, err);
    mt->has_dict = s->dict != NULL;
    if (pred && !rc) ged_predictions(g, first, prob, comb, comb ? mt->dict.threshold : thr, pred);
    free(comb);
  }
  free(first);
  free(gold);
  free(prob);
  return rc;
}

int el__ft_evaluate(const el__ft_runner *r, const el__ft_examples *ex, const el__ft_data *d,
                    const el__ft_shape *s, int batch, int pick_threshold, float threshold,
                    FILE *pred, el__ft_metrics *out, el_error *err) {
  memset(out, 0, sizeof *out);
  if (d->n == 0) return el_error_set(err, EL_EINVAL, "%s: nothing to evaluate", ex->path);
  switch (ex->task->kind) {
    case EL__TASK_CLS:
    case EL__TASK_REG: return eval_cls(r, ex, d, batch, pred, out, err);
    case EL__TASK_GED: return eval_ged(r, ex, d, s, batch, pick_threshold, threshold, pred, out, err);
    default: return eval_qa(r, ex, d, s, batch, pick_threshold, threshold, pred, out, err);
  }
}

/* "dictionary": the combination's threshold and scores (what /score flags
 * with it) and the dictionary's alone, beside the model's above. */
static void add_dict_scores(cJSON *j, const el__ged_dict_result *d) {
  cJSON *o = cJSON_AddObjectToObject(j, "dictionary");
  if (!o) return;
  cJSON_AddNumberToObject(o, "weight", round(d->weight * 1e4) / 1e4);
  cJSON_AddNumberToObject(o, "name_weight", round(d->name_weight * 1e4) / 1e4);
  char th[32]; /* a float read from config.json: print its shortest form */
  snprintf(th, sizeof th, "%.6g", d->threshold);
  cJSON_AddNumberToObject(o, "threshold", strtod(th, NULL));
  cJSON_AddNumberToObject(o, "precision", d->with.precision);
  cJSON_AddNumberToObject(o, "recall", d->with.recall);
  cJSON_AddNumberToObject(o, "f0.5", d->with.f05);
  cJSON_AddBoolToObject(o, "ngram", d->ngram);
  cJSON *a = cJSON_AddObjectToObject(o, "alone");
  if (!a) return;
  cJSON_AddNumberToObject(a, "precision", d->alone.precision);
  cJSON_AddNumberToObject(a, "recall", d->alone.recall);
  cJSON_AddNumberToObject(a, "f0.5", d->alone.f05);
  cJSON *h = cJSON_AddObjectToObject(o, "hunspell");
  if (!h) return;
  cJSON_AddNumberToObject(h, "precision", d->spell.precision);
  cJSON_AddNumberToObject(h, "recall", d->spell.recall);
  cJSON_AddNumberToObject(h, "f0.5", d->spell.f05);
}

cJSON *el__ft_metrics_object(const el__task *t, const el__ft_metrics *mt) {
  cJSON *j = cJSON_CreateObject();
  if (!j) return NULL;
  cJSON_AddStringToObject(j, "task", t->name);
  switch (t->kind) {
    case EL__TASK_REG:
      cJSON_AddNumberToObject(j, "n", mt->n);
      cJSON_AddNumberToObject(j, "pearson", mt->pearson);
      cJSON_AddNumberToObject(j, "spearman", mt->spearman);
      break;
    case EL__TASK_CLS:
      cJSON_AddNumberToObject(j, "n", mt->n);
      cJSON_AddNumberToObject(j, "accuracy", mt->accuracy);
      cJSON_AddNumberToObject(j, "mcc", mt->mcc);
      cJSON_AddNumberToObject(j, "f1", mt->f1);
      break;
    case EL__TASK_GED: {
      cJSON_AddNumberToObject(j, "n_tokens", mt->n);
      cJSON_AddStringToObject(j, "score_aggregation", el_score_rule_name(mt->ged_rule));
      char th[32]; /* a float read from config.json: print its shortest form */
      snprintf(th, sizeof th, "%.6g", mt->threshold);
      cJSON_AddNumberToObject(j, "threshold", strtod(th, NULL));
      cJSON_AddNumberToObject(j, "precision", mt->precision);
      cJSON_AddNumberToObject(j, "recall", mt->recall);
      cJSON_AddNumberToObject(j, "f0.5", mt->f05);
      cJSON_AddNumberToObject(j, "accuracy", mt->accuracy);
      cJSON *h = cJSON_AddObjectToObject(j, "at_0.5");
      cJSON_AddNumberToObject(h, "precision", mt->precision05);
      cJSON_AddNumberToObject(h, "recall", mt->recall05);
      cJSON_AddNumberToObject(h, "f0.5", mt->f05_05);
      if (mt->has_dict) add_dict_scores(j, &mt->dict);
      break;
    }
    default:
      cJSON_AddNumberToObject(j, "n", mt->n);
      cJSON_AddNumberToObject(j, "exact_match", mt->em);
      cJSON_AddNumberToObject(j, "f1", mt->f1_qa);
      if (mt->has_null_threshold) {
        cJSON_AddNumberToObject(j, "HasAns_f1", mt->has_ans_f1);
        cJSON_AddNumberToObject(j, "NoAns_f1", mt->no_ans_f1);
        cJSON_AddNumberToObject(j, "null_threshold", mt->null_threshold);
      }
  }
  /* every task names its primary metric (STS-B's dev JSON lacked them) */
  cJSON_AddStringToObject(j, "metric", t->metric);
  cJSON_AddNumberToObject(j, "score", mt->primary);
  return j;
}

/* Fractions to 4 decimals (counts stay whole): a log line does not need
 * 17 digits of an F1. */
static void round4(cJSON *j) {
  for (cJSON *c = j ? j->child : NULL; c; c = c->next) {
    if (cJSON_IsObject(c)) round4(c);
    else if (cJSON_IsNumber(c) && c->valuedouble != floor(c->valuedouble))
      cJSON_SetNumberValue(c, round(c->valuedouble * 1e4) / 1e4);
  }
}

void el__ft_metrics_json(const el__task *t, const el__ft_metrics *mt, int short_, char *buf,
                         int n) {
  cJSON *j = el__ft_metrics_object(t, mt);
  if (short_) round4(j);
  char *txt = j ? cJSON_PrintUnformatted(j) : NULL;
  snprintf(buf, (size_t)n, "%s", txt ? txt : "{}");
  cJSON_free(txt);
  cJSON_Delete(j);
}
