/* Task metrics; see metrics.h. */
#include "metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

double el__metric_accuracy(const int *pred, const int *gold, int n) {
  if (n <= 0) return 0.0;
  long ok = 0;
  for (int i = 0; i < n; i++) ok += pred[i] == gold[i];
  return (double)ok / n;
}

double el__metric_mcc(const int *pred, const int *gold, int n, int n_classes) {
  if (n_classes < 2 || n <= 0) return 0.0;
  /* Gorodkin: with confusion matrix C (rows gold, cols pred), s = total,
   * c = correct, t_k = gold count of k, p_k = predicted count of k:
   * MCC = (c*s - sum t_k p_k) / sqrt((s^2 - sum p_k^2)(s^2 - sum t_k^2)). */
  double *t = calloc((size_t)n_classes * 2, sizeof *t);
  if (!t) return 0.0;
  double *p = t + n_classes, s = 0, c = 0;
  for (int i = 0; i < n; i++) {
    int g = gold[i], q = pred[i];
    if (g < 0 || g >= n_classes || q < 0 || q >= n_classes) continue;
    t[g] += 1;
    p[q] += 1;
    s += 1;
    c += g == q;
  }
  double tp = 0, pp = 0, tt = 0;
  for (int k = 0; k < n_classes; k++) {
    tp += t[k] * p[k];
    pp += p[k] * p[k];
    tt += t[k] * t[k];
  }
  free(t);
  double den = (s * s - pp) * (s * s - tt);
  if (den <= 0) return 0.0;
  return (c * s - tp) / sqrt(den);
}

double el__metric_f1(const int *pred, const int *gold, int n, int positive) {
  long tp = 0, fp = 0, fn = 0;
  for (int i = 0; i < n; i++) {
    int pp = pred[i] == positive, gp = gold[i] == positive;
    tp += pp && gp;
    fp += pp && !gp;
    fn += !pp && gp;
  }
  if (tp == 0) return 0.0;
  return 2.0 * tp / (2.0 * tp + fp + fn);
}

double el__metric_pearson(const double *x, const double *y, int n) {
  if (n < 2) return 0.0;
  double mx = 0, my = 0;
  for (int i = 0; i < n; i++) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  double sxy = 0, sxx = 0, syy = 0;
  for (int i = 0; i < n; i++) {
    double dx = x[i] - mx, dy = y[i] - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx <= 0 || syy <= 0) return 0.0;
  return sxy / sqrt(sxx * syy);
}

static const double *rank_key_;
static int rank_cmp(const void *a, const void *b) {
  double x = rank_key_[*(const int *)a], y = rank_key_[*(const int *)b];
  if (x < y) return -1;
  if (x > y) return 1;
  /* index order keeps qsort's result independent of its implementation */
  return *(const int *)a - *(const int *)b;
}

/* 1-based ranks with ties averaged (scipy.stats.rankdata "average"). */
static int average_ranks(const double *v, int n, double *rank) {
  int *idx = malloc((size_t)n * sizeof *idx);
  if (!idx) return -1;
  for (int i = 0; i < n; i++) idx[i] = i;
  rank_key_ = v;
  qsort(idx, (size_t)n, sizeof *idx, rank_cmp);
  for (int i = 0; i < n;) {
    int j = i;
    while (j + 1 < n && v[idx[j + 1]] == v[idx[i]]) j++;
    double r = (i + j) / 2.0 + 1.0;
    for (int k = i; k <= j; k++) rank[idx[k]] = r;
    i = j + 1;
  }
  free(idx);
  return 0;
}

double el__metric_spearman(const double *x, const double *y, int n) {
  if (n < 2) return 0.0;
  double *r = malloc((size_t)n * 2 * sizeof *r);
  if (!r) return -2.0;
  double res = -2.0;
  if (average_ranks(x, n, r) == 0 && average_ranks(y, n, r + n) == 0)
    res = el__metric_pearson(r, r + n, n);
  free(r);
  return res;
}

void el__metric_ged(const int *pred, const int *gold, int n, el__ged_scores *o) {
  memset(o, 0, sizeof *o);
  for (int i = 0; i < n; i++) {
    int pp = pred[i] == 1, gp = gold[i] == 1;
    o->tp += pp && gp;
    o->fp += pp && !gp;
    o->fn += !pp && gp;
    o->tn += !pp && !gp;
  }
  o->precision = o->tp + o->fp ? (double)o->tp / (o->tp + o->fp) : 0.0;
  o->recall = o->tp + o->fn ? (double)o->tp / (o->tp + o->fn) : 0.0;
  double b2 = 0.25, den = b2 * o->precision + o->recall;
  o->f05 = den > 0 ? (1 + b2) * o->precision * o->recall / den : 0.0;
}

void el__metric_ged_at(const float *prob, const int *gold, int n, double threshold,
                       el__ged_scores *o) {
  int *pred = malloc((size_t)(n > 0 ? n : 1) * sizeof *pred);
  if (!pred) { /* keeps the contract of a filled struct: nothing flagged */
    memset(o, 0, sizeof *o);
    return;
  }
  float t = (float)threshold; /* /score compares in float */
  for (int i = 0; i < n; i++) pred[i] = prob[i] >= t;
  el__metric_ged(pred, gold, n, o);
  free(pred);
}

static int cmp_prob_desc(const void *a, const void *b, void *ctx) {
  const float *p = ctx;
  float x = p[*(const int *)a], y = p[*(const int *)b];
  return x > y ? -1 : x < y ? 1 : 0;
}

static double f05_of(long tp, long fp, double fn) {
  double pr = tp + fp ? (double)tp / (double)(tp + fp) : 0, rc = tp + fn > 0 ? (double)tp / ((double)tp + fn) : 0;
  double den = 0.25 * pr + rc;
  return den > 0 ? 1.25 * pr * rc / den : 0;
}

/* F0.5 of the k most probable words for every k at a change of probability
 * (f[k-1]; -1 where the next word ties), and the best of them. */
static double f05_by_rank(const float *prob, const int *gold, const int *ord, int n,
                          double unseen_errors, double *f) {
  long pos = 0, tp = 0;
  for (int i = 0; i < n; i++) pos += gold[i] == 1;
  double best = 0;
  for (int k = 1; k <= n; k++) {
    tp += gold[ord[k - 1]] == 1;
    f[k - 1] = -1;
    if (k < n && prob[ord[k]] == prob[ord[k - 1]]) continue;
    f[k - 1] = f05_of(tp, k - tp, (double)(pos - tp) + unseen_errors);
    best = f[k - 1] > best ? f[k - 1] : best;
  }
  return best;
}

double el__ged_best_threshold(const float *prob, const int *gold, int n, double unseen_errors,
                              double near_best) {
  int *ord = malloc((size_t)(n > 0 ? n : 1) * sizeof *ord);
  double *f = malloc((size_t)(n > 0 ? n : 1) * sizeof *f);
  if (!ord || !f) {
    free(ord);
    free(f);
    return -1;
  }
  for (int i = 0; i < n; i++) ord[i] = i;
  qsort_r(ord, (size_t)n, sizeof *ord, cmp_prob_desc, (void *)prob);
  double best = f05_by_rank(prob, gold, ord, n, unseen_errors, f);
  /* the first k reaching the best (the highest threshold), or with near_best
   * the last k within that fraction of it (the lowest threshold) */
  int pick = 0;
  for (int k = 1; k <= n && best > 0; k++) {
    if (f[k - 1] < 0) continue;
    if (near_best > 0 ? f[k - 1] >= (1 - near_best) * best : f[k - 1] == best) {
      pick = k;
      if (near_best <= 0) break;
    }
  }
  double t = 1.0;
  if (pick) {
    float lo = prob[ord[pick - 1]];
    t = pick < n ? 0.5 * ((double)lo + prob[ord[pick]]) : 0.5 * lo;
  }
  free(ord);
  free(f);
  return t;
}

/* ---- SQuAD normalization ---- */

static int is_py_space(utf8proc_int32_t c) {
  if (c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f) || c == 0x85) return 1;
  utf8proc_category_t k = utf8proc_category(c);
  return k == UTF8PROC_CATEGORY_ZS || k == UTF8PROC_CATEGORY_ZL || k == UTF8PROC_CATEGORY_ZP;
}

/* Python's \w for str patterns: alphanumeric (letters, any number) or '_'. */
static int is_py_word(utf8proc_int32_t c) {
  if (c == '_') return 1;
  utf8proc_category_t k = utf8proc_category(c);
  return (k >= UTF8PROC_CATEGORY_LU && k <= UTF8PROC_CATEGORY_LO) ||
         (k >= UTF8PROC_CATEGORY_ND && k <= UTF8PROC_CATEGORY_NO);
}

static int is_ascii_punct(utf8proc_int32_t c) {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
         (c >= 123 && c <= 126);
}

char *el__squad_normalize(const char *text) {
  size_t len = strlen(text);
  utf8proc_int32_t *cp = malloc((len + 1) * sizeof *cp);
  char *out = malloc(len * 4 + 1);
  if (!cp || !out) {
    free(cp);
    free(out);
    return NULL;
  }
  /* 1-2: decode (invalid bytes become U+FFFD), lower-case, drop punctuation */
  size_t n = 0;
  const utf8proc_uint8_t *s = (const utf8proc_uint8_t *)text;
  for (size_t i = 0; i < len;) {
    utf8proc_int32_t c;
    utf8proc_ssize_t k = utf8proc_iterate(s + i, (utf8proc_ssize_t)(len - i), &c);
    if (k <= 0) {
      c = 0xfffd;
      k = 1;
    }
    i += (size_t)k;
    c = utf8proc_tolower(c);
    if (!is_ascii_punct(c)) cp[n++] = c;
  }
  /* 3: articles as whole \w-runs become a space */
  for (size_t i = 0; i < n;) {
    if (!is_py_word(cp[i])) {
      i++;
      continue;
    }
    size_t j = i;
    while (j < n && is_py_word(cp[j])) j++;
    size_t w = j - i;
    if ((w == 1 && cp[i] == 'a') || (w == 2 && cp[i] == 'a' && cp[i + 1] == 'n') ||
        (w == 3 && cp[i] == 't' && cp[i + 1] == 'h' && cp[i + 2] == 'e'))
      for (size_t k = i; k < j; k++) cp[k] = ' ';
    i = j;
  }
  /* 4: ' '.join(text.split()) */
  size_t o = 0;
  int pending = 0;
  for (size_t i = 0; i < n; i++) {
    if (is_py_space(cp[i])) {
      pending = o > 0;
      continue;
    }
    if (pending) out[o++] = ' ';
    pending = 0;
    o += (size_t)utf8proc_encode_char(cp[i], (utf8proc_uint8_t *)out + o);
  }
  out[o] = 0;
  free(cp);
  return out;
}

double el__squad_em(const char *pred, const char *gold) {
  char *a = el__squad_normalize(pred), *b = el__squad_normalize(gold);
  double r = (a && b) ? (strcmp(a, b) == 0) : -1.0;
  free(a);
  free(b);
  return r;
}

/* Splits a normalized string in place at single spaces. */
static int split_tokens(char *s, char ***out) {
  int n = 0, cap = 8;
  char **t = malloc((size_t)cap * sizeof *t);
  if (!t) return -1;
  for (char *p = s; *p;) {
    char *q = strchr(p, ' ');
    if (q) *q = 0;
    if (n == cap) {
      char **nt = realloc(t, (size_t)(cap *= 2) * sizeof *t);
      if (!nt) {
        free(t);
        return -1;
      }
      t = nt;
    }
    t[n++] = p;
    if (!q) break;
    p = q + 1;
  }
  *out = t;
  return n;
}

double el__squad_f1(const char *pred, const char *gold) {
  char *a = el__squad_normalize(pred), *b = el__squad_normalize(gold);
  char **ta = NULL, **tb = NULL;
  double r = -1.0;
  int na = -1, nb = -1;
  if (!a || !b) goto done;
  na = split_tokens(a, &ta);
  nb = split_tokens(b, &tb);
  if (na < 0 || nb < 0) goto done;
  if (na == 0 || nb == 0) {
    r = na == nb; /* both empty: 1, else 0 */
    goto done;
  }
  /* Counter(pred) & Counter(gold): each gold token matches at most once */
  char *used = calloc((size_t)nb, 1);
  if (!used) goto done;
  int common = 0;
  for (int i = 0; i < na; i++)
    for (int j = 0; j < nb; j++)
      if (!used[j] && strcmp(ta[i], tb[j]) == 0) {
        used[j] = 1;
        common++;
        break;
      }
  free(used);
  if (common == 0) {
    r = 0.0;
  } else {
    double p = (double)common / na, q = (double)common / nb;
    r = 2 * p * q / (p + q);
  }
done:
  free(ta);
  free(tb);
  free(a);
  free(b);
  return r;
}

static double max_over(double (*f)(const char *, const char *), const char *pred,
                       const char *const *golds, int n_gold) {
  /* the v2.0 script keeps only golds that normalize to something non-empty,
   * and scores against "" when none is left */
  double best = 0;
  int used = 0;
  for (int i = 0; i < n_gold; i++) {
    char *g = el__squad_normalize(golds[i]);
    if (!g) return -1.0;
    int empty = g[0] == 0;
    free(g);
    if (empty) continue;
    used++;
    double v = f(pred, golds[i]);
    if (v < 0) return v;
    if (v > best) best = v;
  }
  return used ? best : f(pred, "");
}

double el__squad_max_em(const char *pred, const char *const *golds, int n_gold) {
  return max_over(el__squad_em, pred, golds, n_gold);
}
double el__squad_max_f1(const char *pred, const char *const *golds, int n_gold) {
  return max_over(el__squad_f1, pred, golds, n_gold);
}
