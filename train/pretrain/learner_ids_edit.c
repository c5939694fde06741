/* Learner errors applied to packed id batches (learner_ids.h): the segment
 * split into words, the families on words of ids, the batch driver. */
#include <stdlib.h>
#include <string.h>
#include "learner_ids.h"
#include "learner_internal.h"
#include "op_fastmath.h"

/* Family draws for one error before giving up, as in el__learner_corrupt. */
#define MAX_DRAWS 24

/* A word of the segment: pieces pool[off .. off + len). */
typedef struct iword {
  int off, len;
  uint8_t mark, lock; /* forced (an error token); no further edit */
} iword;

typedef struct scratch {
  iword *w;
  int *pool, *sites;
  int cap_w, cap_pool;
} scratch;

typedef struct iseg {
  const el__lids *t;
  iword *w;
  int n;
  int *pool, n_pool;
  int *sites;
} iseg;

/* ---- words ----------------------------------------------------------------- */

static int first(const iseg *s, int i) { return s->pool[s->w[i].off]; }
static uint32_t fl(const iseg *s, int i) {
  return i >= 0 && i < s->n ? s->t->flags[first(s, i)] : 0;
}
static int single(const iseg *s, int i) { return s->w[i].len == 1; }
static int is_free(const iseg *s, int i) { return i >= 0 && i < s->n && !s->w[i].lock; }
static void mark(iword *w) { w->mark = w->lock = 1; }

static int pick(const int *sites, int n, uint64_t *rng) {
  return n > 0 ? sites[el__lr_below(rng, n)] : -1;
}

static void set_ids(iseg *s, int i, const int *ids, int k) {
  memcpy(s->pool + s->n_pool, ids, (size_t)k * sizeof *ids);
  s->w[i].off = s->n_pool;
  s->w[i].len = k;
  s->n_pool += k;
  mark(&s->w[i]);
}

static void insert(iseg *s, int i, int id) {
  memmove(s->w + i + 1, s->w + i, (size_t)(s->n - i) * sizeof *s->w);
  s->n++;
  s->pool[s->n_pool] = id;
  s->w[i] = (iword){s->n_pool++, 1, 1, 1};
}

/* FCE: the word after the gap is marked; at the end, nothing (no word
 * follows; FCE's files mark none there). */
static void del_word(iseg *s, int i) {
  memmove(s->w + i, s->w + i + 1, (size_t)(s->n - i - 1) * sizeof *s->w);
  s->n--;
  if (i < s->n) mark(&s->w[i]);
}

static int can_delete(const iseg *s, int i) {
  return s->n >= 2 && is_free(s, i) && single(s, i) && (i + 1 >= s->n || is_free(s, i + 1));
}

/* ---- replacements ---------------------------------------------------------- */

/* A capitalised word after the segment's first is taken for a name. */
static int name_like(const iseg *s, int i) { return i > 0 && (fl(s, i) & EL__LI_UPPER); }

/* The word-level families' context rules, on flags (learner_verbs.c). */
static int verb_context(const iseg *s, int i, int family) {
  uint32_t f = fl(s, i), p = fl(s, i - 1);
  if (f & (EL__LC_AUX | EL__LC_MODAL)) return 1;
  if (name_like(s, i)) return 0;
  int subj3 = (p & EL__LI_SUBJ3) != 0, subj = (p & EL__LC_PRON_SUBJ) && !subj3;
  switch (family) {
    case EL__LF_VERB_SVA: return ((f & EL__LI_VS3) && subj3) || ((f & EL__LI_VBASE) && subj);
    case EL__LF_VERB_TENSE:
      return ((f & EL__LI_VPAST) && !(p & EL__LC_AUX)) || ((f & EL__LI_VS3) && subj3) ||
             ((f & EL__LI_VBASE) && subj);
    default: /* VERB_FORM */
      return (f & EL__LI_VING) || ((f & EL__LI_VBASE) && (p & (EL__LI_TO | EL__LC_MODAL))) ||
             ((f & EL__LI_VPAST) && (p & EL__LC_AUX));
  }
}

static int replace_context(const iseg *s, int i, int family) {
  uint32_t p = fl(s, i - 1);
  switch (family) {
    case EL__LF_PREP_WRONG: /* "to" before a verb is no preposition */
      return !((fl(s, i) & EL__LI_TO) && i + 1 < s->n && single(s, i + 1) &&
               (fl(s, i + 1) & EL__LI_VBASE));
    case EL__LF_NOUN_NUM:
      return !name_like(s, i) && !(p & (EL__LC_PRON_SUBJ | EL__LC_MODAL | EL__LI_TO));
    case EL__LF_VERB_SVA:
    case EL__LF_VERB_TENSE:
    case EL__LF_VERB_FORM: return verb_context(s, i, family);
    default: return 1;
  }
}

static int replace(iseg *s, int family, uint64_t *rng) {
  int alt[16], m = 0;
  for (int i = 0; i < s->n; i++)
    if (is_free(s, i) && single(s, i) && el__lids_confusions(s->t, first(s, i), family, alt, 16) &&
        replace_context(s, i, family))
      s->sites[m++] = i;
  int i = pick(s->sites, m, rng);
  if (i < 0) return 0;
  int k = el__lids_confusions(s->t, first(s, i), family, alt, 16);
  /* "the" becomes the indefinite article the next word takes */
  if (family == EL__LF_DET_WRONG && (fl(s, i) & EL__LI_THE) && i + 1 < s->n) {
    int want_an = (fl(s, i + 1) & EL__LI_VOWEL) != 0, kk = 0;
    for (int j = 0; j < k; j++)
      if (((s->t->flags[alt[j]] & EL__LI_AN) != 0) == want_an) alt[kk++] = alt[j];
    if (kk) k = kk;
  }
  set_ids(s, i, &alt[el__lr_below(rng, k)], 1);
  return 1;
}

static int spell(iseg *s, uint64_t *rng) {
  const el__lids *t = s->t;
  int m = 0;
  for (int i = 0; i < s->n; i++) {
    int id = first(s, i);
    if (is_free(s, i) && single(s, i) && t->sp_off[id + 1] > t->sp_off[id] && !name_like(s, i))
      s->sites[m++] = i;
  }
  int i = pick(s->sites, m, rng);
  if (i < 0) return 0;
  int id = first(s, i), nv = t->sp_off[id + 1] - t->sp_off[id];
  int v = t->sp_off[id] + el__lr_below(rng, nv);
  set_ids(s, i, t->sp_piece + t->sp_voff[v], t->sp_voff[v + 1] - t->sp_voff[v]);
  return 1;
}

/* ---- deletions ------------------------------------------------------------- */

static int remove_word(iseg *s, int family, uint64_t *rng) {
  static const uint32_t BITS[EL__LF_COUNT] = {
      [EL__LF_DET_MISSING] = EL__LC_ARTICLE, [EL__LF_PREP_MISSING] = EL__LC_PREP,
      [EL__LF_PUNCT_MISSING] = EL__LI_PUNCT, [EL__LF_PRON_MISSING] = EL__LC_PRON,
      [EL__LF_AUX_MISSING] = EL__LC_AUX | EL__LC_MODAL};
  int m = 0;
  for (int i = 0; i < s->n; i++) {
    if (!(fl(s, i) & BITS[family]) || !can_delete(s, i)) continue;
    /* an auxiliary only before a verb form: "I am going" -> "I going" */
    if (family == EL__LF_AUX_MISSING && !(fl(s, i + 1) & EL__LI_VERB)) continue;
    s->sites[m++] = i;
  }
  int i = pick(s->sites, m, rng);
  if (i < 0) return 0;
  del_word(s, i);
  return 1;
}

/* ---- insertions ------------------------------------------------------------ */

static int insert_context(const iseg *s, int i, int family) {
  uint32_t p = fl(s, i - 1), c = fl(s, i);
  if (!(p & EL__LI_WORD)) return 0;
  switch (family) {
    case EL__LF_DET_EXTRA:
      return !(p & (EL__LC_DET | EL__LC_PRON_SUBJ | EL__LC_MODAL | EL__LI_TO)) && single(s, i) &&
             (c & EL__LI_NOUN) && (c & EL__LI_WORD) && !(c & EL__LI_UPPER);
    case EL__LF_PREP_EXTRA:
      return !(p & (EL__LC_PREP | EL__LC_DET | EL__LC_PRON_SUBJ)) && single(s, i) &&
             (c & (EL__LC_DET | EL__LC_PRON)) && !(c & EL__LC_PRON_SUBJ);
    default: return (c & EL__LI_WORD) != 0;
  }
}

/* The article to insert: "the" mostly, else the a/an the noun takes. */
static int article(const el__lids *t, uint32_t noun, uint64_t *rng) {
  int want_the = el__lr_unif(rng) < 0.6, want_an = (noun & EL__LI_VOWEL) != 0;
  for (int k = 0; k < t->n_ins[EL__LF_DET_EXTRA]; k++) {
    uint32_t f = t->flags[t->ins[EL__LF_DET_EXTRA][k]];
    if (want_the ? (f & EL__LI_THE) != 0 : !(f & EL__LI_THE) && ((f & EL__LI_AN) != 0) == want_an)
      return t->ins[EL__LF_DET_EXTRA][k];
  }
  return -1;
}

static int add_word(iseg *s, int family, uint64_t *rng) {
  const el__lids *t = s->t;
  if (!t->n_ins[family]) return 0;
  int m = 0;
  for (int i = 1; i < s->n; i++)
    if (is_free(s, i - 1) && is_free(s, i) && insert_context(s, i, family)) s->sites[m++] = i;
  int i = pick(s->sites, m, rng);
  if (i < 0) return 0;
  int id = family == EL__LF_DET_EXTRA ? article(t, fl(s, i), rng)
                                      : t->ins[family][el__lr_below(rng, t->n_ins[family])];
  /* never the same word twice in a row ("to to") */
  if (id < 0 || id == first(s, i - 1) || id == first(s, i)) return 0;
  insert(s, i, id);
  return 1;
}

/* ---- word order ------------------------------------------------------------ */

static int swap_words(iseg *s, uint64_t *rng) {
  int m = 0;
  for (int i = 0; i + 1 < s->n; i++)
    if (is_free(s, i) && is_free(s, i + 1) && (fl(s, i) & EL__LI_WORD) &&
        (fl(s, i + 1) & EL__LI_WORD) && first(s, i) != first(s, i + 1))
      s->sites[m++] = i;
  int i = pick(s->sites, m, rng);
  if (i < 0) return 0;
  iword a = s->w[i];
  s->w[i] = s->w[i + 1];
  s->w[i + 1] = a;
  mark(&s->w[i]);
  mark(&s->w[i + 1]);
  return 1;
}

static int apply(iseg *s, int family, uint64_t *rng) {
  switch (family) {
    case EL__LF_DET_MISSING:
    case EL__LF_PREP_MISSING:
    case EL__LF_PUNCT_MISSING:
    case EL__LF_PRON_MISSING:
    case EL__LF_AUX_MISSING: return remove_word(s, family, rng);
    case EL__LF_DET_EXTRA:
    case EL__LF_PREP_EXTRA:
    case EL__LF_PUNCT_EXTRA:
    case EL__LF_WORD_EXTRA: return add_word(s, family, rng);
    case EL__LF_SPELL: return spell(s, rng);
    case EL__LF_WORD_ORDER: return swap_words(s, rng);
    default: return replace(s, family, rng);
  }
}

/* ---- segments and batches -------------------------------------------------- */

typedef struct job {
  const el__lids *t;
  int family;     /* >= 0: exactly one error of it; < 0: rate */
  double rate;
  double cum[EL__LF_COUNT]; /* cumulative family weights */
  uint64_t *rng;
  /* keyed: sequence s draws from its own state, a hash of (key, seq0 + s) */
  int keyed;
  uint64_t key, seq0, seq_state;
  scratch *sc;
  el__lids_batch *out;
} job;

static int draw_family(const job *j) {
  double u = el__lr_unif(j->rng) * j->cum[EL__LF_COUNT - 1];
  for (int f = 0; f < EL__LF_COUNT; f++)
    if (u < j->cum[f]) return f;
  return EL__LF_COUNT - 1;
}

/* One error: the job's family, or drawn families until one finds a place. */
static void one_error(job *j, iseg *s) {
  for (int d = 0; d < (j->family >= 0 ? 1 : MAX_DRAWS); d++) {
    int f = j->family >= 0 ? j->family : draw_family(j);
    if (apply(s, f, j->rng)) {
      j->out->n_edits++;
      j->out->family_edits[f]++;
      return;
    }
  }
}

static int reserve(scratch *sc, int words, int pool) {
  if (words > sc->cap_w) {
    iword *w = realloc(sc->w, (size_t)words * sizeof *w);
    if (!w) return -1;
    sc->w = w;
    int *st = realloc(sc->sites, (size_t)words * sizeof *st);
    if (!st) return -1;
    sc->sites = st;
    sc->cap_w = words;
  }
  if (pool > sc->cap_pool) {
    int *p = realloc(sc->pool, (size_t)pool * sizeof *p);
    if (!p) return -1;
    sc->pool = p;
    sc->cap_pool = pool;
  }
  return 0;
}

/* Corrupts the content tokens ids[0..len) into dst / forced (at most len
 * tokens written); returns how many, or -1 when out of memory. */
static int segment(job *j, const int *ids, int len, int *dst, uint8_t *forced) {
  const el__lids *t = j->t;
  int words = 0;
  for (int i = 0; i < len; i++) words += i == 0 || !(t->flags[ids[i]] & EL__LI_CONT);
  int k = 0;
  if (j->family >= 0) k = 1;
  else
    for (int w = 0; w < words; w++) k += el__lr_unif(j->rng) < j->rate;
  if (reserve(j->sc, words + k + 1, len + k * EL__LIDS_MAX_PIECES + 1)) return -1;
  iseg s = {t, j->sc->w, 0, j->sc->pool, len, j->sc->sites};
  memcpy(s.pool, ids, (size_t)len * sizeof *ids);
  for (int i = 0; i < len; i++) {
    if (i == 0 || !(t->flags[ids[i]] & EL__LI_CONT)) s.w[s.n++] = (iword){i, 0, 0, 0};
    s.w[s.n - 1].len++;
  }
  j->out->n_words += words;
  for (int e = 0; e < k; e++) one_error(j, &s);
  int n = 0; /* the segment never grows: what an insertion pushes past its end is dropped */
  for (int w = 0; w < s.n && n < len; w++)
    for (int p = 0; p < s.w[w].len && n < len; p++) {
      dst[n] = s.pool[s.w[w].off + p];
      forced[n++] = s.w[w].mark;
    }
  return n;
}

static int out_reserve(el__lids_batch *o, int n_seqs, int T) {
  if (!o->scratch && !(o->scratch = calloc(1, sizeof(scratch)))) return -1;
  if (n_seqs > o->cap_seqs) {
    int *sl = realloc(o->seq_len, (size_t)n_seqs * sizeof *sl);
    if (!sl) return -1;
    o->seq_len = sl;
    o->cap_seqs = n_seqs;
  }
  if (T > o->cap_tokens) {
    int *a = realloc(o->ids, (size_t)T * sizeof *a);
    if (!a) return -1;
    o->ids = a;
    int *b = realloc(o->type_ids, (size_t)T * sizeof *b);
    if (!b) return -1;
    o->type_ids = b;
    uint8_t *f = realloc(o->forced, (size_t)T);
    if (!f) return -1;
    o->forced = f;
    o->cap_tokens = T;
  }
  return 0;
}

static int check_batch(const el__lids *t, const el_batch *in, long *T, el_error *err) {
  if (!in || in->n_seqs < 1 || !in->seq_len || !in->ids)
    return el_error_set(err, EL_EINVAL, "learner ids: empty batch");
  *T = 0;
  for (int s = 0; s < in->n_seqs; s++) {
    if (in->seq_len[s] < 1)
      return el_error_set(err, EL_EINVAL, "learner ids: sequence %d has length %d", s, in->seq_len[s]);
    *T += in->seq_len[s];
  }
  if (*T > (1L << 30)) return el_error_set(err, EL_ETOOLONG, "learner ids: batch of %ld tokens", *T);
  for (long i = 0; i < *T; i++)
    if (in->ids[i] < 0 || in->ids[i] >= t->V)
      return el_error_set(err, EL_EINVAL, "learner ids: token %ld is id %d, outside [0, %d)", i,
                          in->ids[i], t->V);
  return EL_OK;
}

static int run(job *j, const el_batch *in, el_error *err) {
  const el__lids *t = j->t;
  el__lids_batch *o = j->out;
  long T = 0;
  int rc = check_batch(t, in, &T, err);
  if (rc) return rc;
  if (out_reserve(o, in->n_seqs, (int)T))
    return el_error_set(err, EL_ENOMEM, "learner ids: out of memory");
  j->sc = o->scratch;
  o->n_seqs = in->n_seqs;
  o->n_tokens = 0;
  o->n_words = o->n_edits = 0;
  memset(o->family_edits, 0, sizeof o->family_edits);
  int base = 0;
  for (int s = 0; s < in->n_seqs; s++) {
    const int *src = in->ids + base, len = in->seq_len[s];
    int start = o->n_tokens;
    if (j->keyed) {
      j->seq_state = el__mix64(j->key, j->seq0 + (uint64_t)s); /* counter-based */
      j->rng = &j->seq_state;
    }
    for (int i = 0; i < len;) {
      int type = in->type_ids ? in->type_ids[base + i] : 0, e = i + 1, k = 1;
      if (t->flags[src[i]] & EL__LI_SPECIAL) {
        o->ids[o->n_tokens] = src[i];
        o->forced[o->n_tokens] = 0;
      } else {
        while (e < len && !(t->flags[src[e]] & EL__LI_SPECIAL)) e++;
        k = segment(j, src + i, e - i, o->ids + o->n_tokens, o->forced + o->n_tokens);
        if (k < 0) return el_error_set(err, EL_ENOMEM, "learner ids: out of memory");
      }
      for (int q = 0; q < k; q++) o->type_ids[o->n_tokens + q] = type; /* the segment's type */
      o->n_tokens += k;
      i = e;
    }
    o->seq_len[s] = o->n_tokens - start;
    base += len;
  }
  return EL_OK;
}

static void init_job(job *j, const el__lids *t, int family, double rate, uint64_t *rng,
                     el__lids_batch *out) {
  memset(j, 0, sizeof *j);
  j->t = t;
  j->family = family;
  j->rate = rate;
  j->rng = rng;
  j->out = out;
  double c = 0;
  for (int f = 0; f < EL__LF_COUNT; f++) j->cum[f] = c += el__lfam_weight(f);
}

int el__lids_corrupt(const el__lids *t, const el_batch *in, double rate, uint64_t *rng,
                     el__lids_batch *out, el_error *err) {
  if (!(rate >= 0.0 && rate <= 1.0))
    return el_error_set(err, EL_EINVAL, "learner ids: error rate %g outside [0, 1]", rate);
  job j;
  init_job(&j, t, -1, rate, rng, out);
  return run(&j, in, err);
}

int el__lids_corrupt_keyed(const el__lids *t, const el_batch *in, double rate, uint64_t key,
                           uint64_t seq0, el__lids_batch *out, el_error *err) {
  if (!(rate >= 0.0 && rate <= 1.0))
    return el_error_set(err, EL_EINVAL, "learner ids: error rate %g outside [0, 1]", rate);
  job j;
  init_job(&j, t, -1, rate, NULL, out);
  j.keyed = 1;
  j.key = key;
  j.seq0 = seq0;
  return run(&j, in, err);
}

int el__lids_corrupt_family(const el__lids *t, const el_batch *in, int family, uint64_t *rng,
                            el__lids_batch *out, el_error *err) {
  if (family < 0 || family >= EL__LF_COUNT)
    return el_error_set(err, EL_EINVAL, "learner ids: no error family %d", family);
  job j;
  init_job(&j, t, family, 0.0, rng, out);
  return run(&j, in, err);
}

el_batch el__lids_batch_view(const el__lids_batch *b) {
  el_batch v = {b->n_seqs, b->seq_len, b->ids, b->type_ids};
  return v;
}

void el__lids_batch_free(el__lids_batch *b) {
  scratch *sc = b->scratch;
  if (sc) {
    free(sc->w);
    free(sc->pool);
    free(sc->sites);
    free(sc);
  }
  free(b->seq_len);
  free(b->ids);
  free(b->type_ids);
  free(b->forced);
  memset(b, 0, sizeof *b);
}
