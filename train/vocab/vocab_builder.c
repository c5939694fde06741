/* WordPiece vocabulary learning (algorithm in vocab_builder.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "data_pretok.h"
#include "strmap.h"
#include "text_variants.h"
#include "trainer_api.h"
#include "vocab_builder.h"

static const char *const SPECIALS[5] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};

struct el__word_counts {
  el__strmap map; /* word -> count */
  el__words words;
  uint64_t total;
};

int el__wc_new(el__word_counts **out, el_error *err) {
  *out = calloc(1, sizeof **out);
  if (!*out) return el_error_set(err, EL_ENOMEM, "vocab: out of memory");
  return EL_OK;
}

void el__wc_free(el__word_counts *wc) {
  if (!wc) return;
  el__strmap_free(&wc->map);
  el__words_free(&wc->words);
  free(wc);
}

size_t el__wc_distinct(const el__word_counts *wc) { return (size_t)wc->map.n; }
uint64_t el__wc_total(const el__word_counts *wc) { return wc->total; }

int el__wc_add_word(el__word_counts *wc, const char *word, size_t len, long count,
                    el_error *err) {
  int e = el__strmap_get(&wc->map, word, (int)len, NULL);
  if (e < 0) return el_error_set(err, EL_ENOMEM, "vocab: out of memory counting words");
  wc->map.value[e] += count;
  wc->total += (uint64_t)count;
  return EL_OK;
}

int el__wc_add_text(el__word_counts *wc, const char *text, size_t len, int lower,
                    el_error *err) {
  int rc = el__pretokenize(text, len, lower, &wc->words, err);
  if (rc) return rc;
  el__words *w = &wc->words;
  for (int i = 0; i < w->n; i++) {
    /* a special token is already in every vocabulary; a word over the
     * limit would be [UNK] */
    if (w->special[i] >= 0 || w->ncp[i] > EL__MAX_WORD_CHARS) continue;
    rc = el__wc_add_word(wc, w->buf + w->off[i], (size_t)w->len[i], 1, err);
    if (rc) return rc;
  }
  return EL_OK;
}

int el__wc_add_british(el__word_counts *wc, const el__variants *v, el_error *err) {
  char word[EL__VARIANT_WORD_MAX], uk[EL__VARIANT_WORD_MAX];
  int n = wc->map.n; /* the words counted so far, not the forms added here */
  for (int i = 0; i < n; i++) {
    if (wc->map.key_len[i] >= EL__VARIANT_WORD_MAX) continue;
    memcpy(word, el__strmap_key(&wc->map, i), (size_t)wc->map.key_len[i] + 1);
    if (!el__variants_british(v, word, uk)) continue;
    long half = (long)((wc->map.value[i] + 1) / 2);
    int rc = el__wc_add_word(wc, uk, strlen(uk), half, err);
    if (rc) return rc;
  }
  return EL_OK;
}

/* ------------------------------------------------------------------ */
/* Learner state                                                        */

typedef struct ivec { int *v; int n, cap; } ivec;

static int ivec_push(ivec *a, int x) {
  if (a->n == a->cap) {
    int cap = a->cap ? a->cap * 2 : 4;
    int *v = realloc(a->v, (size_t)cap * sizeof *v);
    if (!v) return -1;
    a->v = v;
    a->cap = cap;
  }
  a->v[a->n++] = x;
  return 0;
}

typedef struct pair {
  int a, b;
  int64_t count;
  ivec words;    /* words holding the pair (may hold stale entries) */
  int listed;    /* present in sym_pairs[a] and sym_pairs[b] */
  int stamp;     /* merge iteration that last touched it */
} pair;

typedef struct hentry {
  double score;
  int64_t count;
  int pair;
} hentry;

typedef struct learner {
  el__strmap syms; /* symbol string -> symbol id (value = symbol count) */
  int64_t *scount; /* alias into syms.value */
  ivec *sym_pairs;
  int sym_cap;
  /* words */
  int n_words;
  int64_t *wcount;
  int *wstart, *wlen, *wstamp;
  int *wsyms;
  /* pairs */
  pair *pairs;
  int n_pairs, pairs_cap;
  int *pslots;
  size_t n_pslots;
  int n_live;
  /* heap */
  hentry *heap;
  size_t heap_n, heap_cap;
  int *touched;
  int n_touched, touched_cap;
  int score_mode;
  long min_freq;
} learner;

static int grow_sym_pairs(learner *L) {
  if (L->syms.n <= L->sym_cap) return 0;
  int cap = L->sym_cap ? L->sym_cap : 256;
  while (cap < L->syms.n) cap *= 2;
  ivec *s = realloc(L->sym_pairs, (size_t)cap * sizeof *s);
  if (!s) return -1;
  memset(s + L->sym_cap, 0, (size_t)(cap - L->sym_cap) * sizeof *s);
  L->sym_pairs = s;
  L->sym_cap = cap;
  return 0;
}

static double score_of(const learner *L, const pair *p) {
  if (L->score_mode == EL_VOCAB_SCORE_FREQ) return (double)p->count;
  return (double)p->count / ((double)L->syms.value[p->a] * (double)L->syms.value[p->b]);
}

/* a before b in the heap order: higher score, then higher count, then older pair. */
static int hbefore(const hentry *x, const hentry *y) {
  if (x->score != y->score) return x->score > y->score;
  if (x->count != y->count) return x->count > y->count;
  return x->pair < y->pair;
}

static int heap_push(learner *L, int pid) {
  if (L->heap_n == L->heap_cap) {
    size_t cap = L->heap_cap ? L->heap_cap * 2 : 1 << 16;
    hentry *h = realloc(L->heap, cap * sizeof *h);
    if (!h) return -1;
    L->heap = h;
    L->heap_cap = cap;
  }
  hentry e = {score_of(L, &L->pairs[pid]), L->pairs[pid].count, pid};
  size_t i = L->heap_n++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!hbefore(&e, &L->heap[parent])) break;
    L->heap[i] = L->heap[parent];
    i = parent;
  }
  L->heap[i] = e;
  return 0;
}

static void heap_sift_down(learner *L, size_t i) {
  hentry e = L->heap[i];
  size_t n = L->heap_n;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && hbefore(&L->heap[c + 1], &L->heap[c])) c++;
    if (!hbefore(&L->heap[c], &e)) break;
    L->heap[i] = L->heap[c];
    i = c;
  }
  L->heap[i] = e;
}

static hentry heap_pop(learner *L) {
  hentry top = L->heap[0];
  L->heap[0] = L->heap[--L->heap_n];
  if (L->heap_n) heap_sift_down(L, 0);
  return top;
}

/* Rebuilds the heap from the live pairs when stale entries dominate. */
static int heap_compact(learner *L) {
  L->heap_n = 0;
  for (int i = 0; i < L->n_pairs; i++)
    if (L->pairs[i].count >= L->min_freq && heap_push(L, i)) return -1;
  return 0;
}

static int pair_index(learner *L, int a, int b) {
  if ((size_t)(L->n_pairs + 1) * 2 > L->n_pslots) {
    size_t ns = L->n_pslots ? L->n_pslots * 2 : 1 << 14;
    int *s = malloc(ns * sizeof *s);
    if (!s) return -1;
    memset(s, 0xff, ns * sizeof *s);
    for (int i = 0; i < L->n_pairs; i++) {
      uint64_t h = ((uint64_t)(uint32_t)L->pairs[i].a << 32 | (uint32_t)L->pairs[i].b) *
                   0x9E3779B97F4A7C15ULL;
      size_t j = (h >> 20) & (ns - 1);
      while (s[j] >= 0) j = (j + 1) & (ns - 1);
      s[j] = i;
    }
    free(L->pslots);
    L->pslots = s;
    L->n_pslots = ns;
  }
  uint64_t h = ((uint64_t)(uint32_t)a << 32 | (uint32_t)b) * 0x9E3779B97F4A7C15ULL;
  size_t j = (h >> 20) & (L->n_pslots - 1);
  for (;;) {
    int e = L->pslots[j];
    if (e < 0) break;
    if (L->pairs[e].a == a && L->pairs[e].b == b) return e;
    j = (j + 1) & (L->n_pslots - 1);
  }
  if (L->n_pairs == L->pairs_cap) {
    int cap = L->pairs_cap ? L->pairs_cap * 2 : 1 << 14;
    pair *p = realloc(L->pairs, (size_t)cap * sizeof *p);
    if (!p) return -1;
    L->pairs = p;
    L->pairs_cap = cap;
  }
  int e = L->n_pairs++;
  memset(&L->pairs[e], 0, sizeof(pair));
  L->pairs[e].a = a;
  L->pairs[e].b = b;
  L->pairs[e].stamp = -1;
  L->pslots[j] = e;
  return e;
}

static int touch(learner *L, int pid, int iter) {
  if (L->pairs[pid].stamp == iter) return 0;
  L->pairs[pid].stamp = iter;
  if (L->n_touched == L->touched_cap) {
    int cap = L->touched_cap ? L->touched_cap * 2 : 1024;
    int *t = realloc(L->touched, (size_t)cap * sizeof *t);
    if (!t) return -1;
    L->touched = t;
    L->touched_cap = cap;
  }
  L->touched[L->n_touched++] = pid;
  return 0;
}

/* count(a, b) += delta for word w. */
static int pair_add(learner *L, int a, int b, int64_t delta, int w, int iter) {
  int pid = pair_index(L, a, b);
  if (pid < 0) return -1;
  pair *p = &L->pairs[pid];
  p->count += delta;
  if (delta > 0) {
    if ((!p->words.n || p->words.v[p->words.n - 1] != w) && ivec_push(&p->words, w)) return -1;
    if (!p->listed) {
      p->listed = 1;
      if (ivec_push(&L->sym_pairs[a], pid)) return -1;
      if (b != a && ivec_push(&L->sym_pairs[b], pid)) return -1;
    }
  }
  return iter >= 0 ? touch(L, pid, iter) : 0;
}

static void learner_free(learner *L) {
  el__strmap_free(&L->syms);
  for (int i = 0; i < L->sym_cap; i++) free(L->sym_pairs[i].v);
  free(L->sym_pairs);
  free(L->wcount);
  free(L->wstart);
  free(L->wlen);
  free(L->wstamp);
  free(L->wsyms);
  for (int i = 0; i < L->n_pairs; i++) free(L->pairs[i].words.v);
  free(L->pairs);
  free(L->pslots);
  free(L->heap);
  free(L->touched);
}

/* ------------------------------------------------------------------ */
/* Alphabet                                                             */

static int utf8_len(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c >> 5) == 6) return 2;
  if ((c >> 4) == 14) return 3;
  if ((c >> 3) == 30) return 4;
  return 1;
}

/* Symbol text of the character at byte i of a word: "c" or "##c". */
static int char_symbol(const char *w, int i, int wlen, char *out) {
  int k = utf8_len((unsigned char)w[i]);
  if (i + k > wlen) k = wlen - i;
  int o = 0;
  if (i > 0) out[o++] = '#', out[o++] = '#';
  memcpy(out + o, w + i, (size_t)k);
  return o + k;
}

typedef struct sym_sort { const char *s; int len; int64_t count; } sym_sort;

static int cmp_bytes(const sym_sort *x, const sym_sort *y) {
  int cx = x->len >= 2 && x->s[0] == '#' && x->s[1] == '#' && x->len > 2;
  int cy = y->len >= 2 && y->s[0] == '#' && y->s[1] == '#' && y->len > 2;
  if (cx != cy) return cx - cy;
  int n = x->len < y->len ? x->len : y->len;
  int c = memcmp(x->s, y->s, (size_t)n);
  return c ? c : x->len - y->len;
}
static int cmp_alpha(const void *a, const void *b) { return cmp_bytes(a, b); }
static int cmp_by_count(const void *a, const void *b) {
  const sym_sort *x = a, *y = b;
  if (x->count != y->count) return x->count > y->count ? -1 : 1;
  return cmp_bytes(x, y);
}

/* Builds the alphabet (symbol ids 0..n-1 in output order) and the words. */
static int build_alphabet(learner *L, const el__word_counts *wc, int budget, el_error *err) {
  el__strmap chars = {0};
  char buf[16];
  const el__strmap *wm = &wc->map;
  for (int e = 0; e < wm->n; e++) {
    const char *w = el__strmap_key(wm, e);
    int wl = wm->key_len[e];
    for (int i = 0; i < wl;) {
      int n = char_symbol(w, i, wl, buf);
      int s = el__strmap_get(&chars, buf, n, NULL);
      if (s < 0) goto oom;
      chars.value[s] += wm->value[e];
      i += utf8_len((unsigned char)w[i]);
    }
  }
  sym_sort *ss = malloc((size_t)(chars.n ? chars.n : 1) * sizeof *ss);
  if (!ss) goto oom;
  int n = 0;
  for (int s = 0; s < chars.n; s++)
    if (chars.value[s] >= L->min_freq)
      ss[n++] = (sym_sort){el__strmap_key(&chars, s), chars.key_len[s], chars.value[s]};
  if (n > budget) {
    qsort(ss, (size_t)n, sizeof *ss, cmp_by_count);
    n = budget;
  }
  qsort(ss, (size_t)n, sizeof *ss, cmp_alpha);
  for (int i = 0; i < n; i++)
    if (el__strmap_get(&L->syms, ss[i].s, ss[i].len, NULL) < 0) {
      free(ss);
      goto oom;
    }
  free(ss);
  /* Words: symbol sequences; words with a symbol outside the alphabet go. */
  size_t total_chars = 0;
  for (int e = 0; e < wm->n; e++) total_chars += (size_t)wm->key_len[e];
  L->wsyms = malloc((total_chars ? total_chars : 1) * sizeof *L->wsyms);
  L->wcount = malloc((size_t)(wm->n ? wm->n : 1) * sizeof *L->wcount);
  L->wstart = malloc((size_t)(wm->n ? wm->n : 1) * sizeof *L->wstart);
  L->wlen = malloc((size_t)(wm->n ? wm->n : 1) * sizeof *L->wlen);
  L->wstamp = malloc((size_t)(wm->n ? wm->n : 1) * sizeof *L->wstamp);
  if (!L->wsyms || !L->wcount || !L->wstart || !L->wlen || !L->wstamp) goto oom;
  size_t used = 0;
  for (int e = 0; e < wm->n; e++) {
    const char *w = el__strmap_key(wm, e);
    int wl = wm->key_len[e], k = 0, ok = 1;
    for (int i = 0; i < wl && ok;) {
      int nb = char_symbol(w, i, wl, buf);
      int s = el__strmap_find(&L->syms, buf, nb);
      if (s < 0) ok = 0;
      else L->wsyms[used + (size_t)k++] = s;
      i += utf8_len((unsigned char)w[i]);
    }
    if (!ok || !k) continue;
    int wi = L->n_words++;
    L->wcount[wi] = wm->value[e];
    L->wstart[wi] = (int)used;
    L->wlen[wi] = k;
    L->wstamp[wi] = -1;
    used += (size_t)k;
  }
  el__strmap_free(&chars);
  /* Symbol counts as the words see them (dropped words no longer count). */
  for (int s = 0; s < L->syms.n; s++) L->syms.value[s] = 0;
  for (int wi = 0; wi < L->n_words; wi++)
    for (int i = 0; i < L->wlen[wi]; i++) L->syms.value[L->wsyms[L->wstart[wi] + i]] += L->wcount[wi];
  return EL_OK;
oom:
  el__strmap_free(&chars);
  return el_error_set(err, EL_ENOMEM, "vocab: out of memory building the alphabet");
}

/* ------------------------------------------------------------------ */
/* Merging                                                              */

static int merge(learner *L, int pid, int iter, int *new_sym, int *is_new) {
  int a = L->pairs[pid].a, b = L->pairs[pid].b;
  /* new symbol text: a + b without its "##" */
  const char *sa = el__strmap_key(&L->syms, a);
  int la = L->syms.key_len[a], lb = L->syms.key_len[b];
  char *txt = malloc((size_t)(la + lb + 1));
  if (!txt) return -1;
  memcpy(txt, sa, (size_t)la);
  memcpy(txt + la, el__strmap_key(&L->syms, b) + 2, (size_t)(lb - 2));
  int ins;
  int n = el__strmap_get(&L->syms, txt, la + lb - 2, &ins);
  free(txt);
  if (n < 0 || grow_sym_pairs(L)) return -1;
  *new_sym = n;
  *is_new = ins;
  L->n_touched = 0;
  ivec *ws = &L->pairs[pid].words;
  int nw = ws->n;
  int *wlist = ws->v; /* not appended to during this merge: (a, b) cannot re-form */
  for (int k = 0; k < nw; k++) {
    int w = wlist[k];
    if (L->wstamp[w] == iter) continue;
    L->wstamp[w] = iter;
    int *s = L->wsyms + L->wstart[w];
    int len = L->wlen[w], found = 0;
    for (int i = 0; i + 1 < len; i++)
      if (s[i] == a && s[i + 1] == b) {
        found = 1;
        break;
      }
    if (!found) continue;
    int64_t c = L->wcount[w];
    for (int i = 0; i + 1 < len; i++)
      if (pair_add(L, s[i], s[i + 1], -c, w, iter)) return -1;
    int j = 0, merges = 0;
    for (int i = 0; i < len;) {
      if (i + 1 < len && s[i] == a && s[i + 1] == b) {
        s[j++] = n;
        i += 2;
        merges++;
      } else {
        s[j++] = s[i++];
      }
    }
    L->wlen[w] = len = j;
    L->syms.value[a] -= merges * c;
    L->syms.value[b] -= merges * c;
    L->syms.value[n] += merges * c;
    for (int i = 0; i + 1 < len; i++)
      if (pair_add(L, s[i], s[i + 1], c, w, iter)) return -1;
  }
  /* Scores changed: pairs whose count moved, and (likelihood score) every
   * pair of a and b, whose symbol counts moved. */
  if (L->score_mode == EL_VOCAB_SCORE_LIKELIHOOD) {
    int sy[2] = {a, b};
    for (int t = 0; t < (a == b ? 1 : 2); t++) {
      ivec *sp = &L->sym_pairs[sy[t]];
      int keep = 0;
      for (int i = 0; i < sp->n; i++) {
        int q = sp->v[i];
        if (L->pairs[q].count <= 0) {
          L->pairs[q].listed = 0;
          continue;
        }
        sp->v[keep++] = q;
        if (touch(L, q, iter)) return -1;
      }
      sp->n = keep;
    }
  }
  for (int i = 0; i < L->n_touched; i++) {
    int q = L->touched[i];
    if (L->pairs[q].count >= L->min_freq && heap_push(L, q)) return -1;
  }
  return 0;
}

static int pop_best(learner *L) {
  while (L->heap_n) {
    hentry e = heap_pop(L);
    const pair *p = &L->pairs[e.pair];
    if (p->count < L->min_freq || p->count != e.count || score_of(L, p) != e.score) continue;
    return e.pair;
  }
  return -1;
}

int el__vb_learn(const el__word_counts *wc, const el__vb_opts *o, el__vb_vocab *out,
                    el_error *err) {
  memset(out, 0, sizeof *out);
  if (o->vocab_size < 6)
    return el_error_set(err, EL_EINVAL, "vocab: --vocab-size must be at least 6 (5 special tokens + 1), got %d",
                        o->vocab_size);
  if (o->min_frequency < 1)
    return el_error_set(err, EL_EINVAL, "vocab: --min-frequency must be at least 1");
  learner L;
  memset(&L, 0, sizeof L);
  L.score_mode = o->score;
  L.min_freq = o->min_frequency;
  int rc = build_alphabet(&L, wc, o->vocab_size - 5, err);
  if (rc) goto done;
  if (!L.n_words || !L.syms.n) {
    rc = el_error_set(err, EL_EINVAL,
                      "vocab: no word occurs often enough (%zu distinct words, --min-frequency %ld)",
                      el__wc_distinct(wc), o->min_frequency);
    goto done;
  }
  int n_alpha = L.syms.n;
  if (grow_sym_pairs(&L)) goto oom;
  for (int w = 0; w < L.n_words; w++) {
    const int *s = L.wsyms + L.wstart[w];
    for (int i = 0; i + 1 < L.wlen[w]; i++)
      if (pair_add(&L, s[i], s[i + 1], L.wcount[w], w, -1)) goto oom;
  }
  if (heap_compact(&L)) goto oom;
  int vocab_n = 5 + n_alpha, iter = 0;
  while (vocab_n < o->vocab_size) {
    int best = pop_best(&L);
    if (best < 0) break;
    int ns, is_new;
    if (merge(&L, best, iter++, &ns, &is_new)) goto oom;
    if (is_new) vocab_n++;
    if (L.heap_n > 8 * (size_t)L.n_pairs + (1u << 20) && heap_compact(&L)) goto oom;
  }
  /* output */
  out->cap = 5 + L.syms.n;
  out->tok = calloc((size_t)out->cap, sizeof *out->tok);
  if (!out->tok) goto oom;
  for (int i = 0; i < 5; i++)
    if (!(out->tok[out->n++] = strdup(SPECIALS[i]))) goto oom;
  for (int s = 0; s < L.syms.n; s++)
    if (!(out->tok[out->n++] = strdup(el__strmap_key(&L.syms, s)))) goto oom;
  out->n_alphabet = n_alpha;
  out->n_merges = iter;
  rc = EL_OK;
  goto done;
oom:
  rc = el_error_set(err, EL_ENOMEM, "vocab: out of memory while merging");
  el__vb_free(out);
done:
  learner_free(&L);
  return rc;
}

void el__vb_free(el__vb_vocab *v) {
  if (v->tok)
    for (int i = 0; i < v->n; i++) free(v->tok[i]);
  free(v->tok);
  memset(v, 0, sizeof *v);
}

/* ------------------------------------------------------------------ */
/* Files                                                                */

static int io_error(el_error *err, const char *what, const char *path) {
  int e = errno;
  return el_error_set(err, e == ENOSPC || e == EDQUOT ? EL_ENOSPC : EL_EIO, "%s %s: %s", what,
                      path, e == ENOSPC ? "no space left on device" : strerror(e));
}

int el__vb_write(const el__vb_vocab *v, const char *path, el_error *err) {
  el__atomic a;
  int rc = el__atomic_begin(&a, path, err);
  if (rc) return rc;
  for (int i = 0; i < v->n; i++)
    if (fputs(v->tok[i], a.f) == EOF || fputc('\n', a.f) == EOF) {
      rc = io_error(err, "cannot write", a.tmp);
      el__atomic_abort(&a);
      return rc;
    }
  return el__atomic_commit(&a, err);
}

int el__vb_check(const char *path, int *size, uint64_t *hash, int *cased, el_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return el_error_set(err, EL_EIO, "vocabulary %s: %s", path, strerror(errno));
  el__strmap seen = {0};
  uint64_t h = EL_FNV_OFFSET;
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  int n = 0, rc = EL_OK, upper = 0;
  while ((len = getline(&line, &cap, f)) > 0) {
    h = el__fnv1a(line, (size_t)len, h);
    n++;
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
    if (!upper && !(len > 2 && line[0] == '[' && line[len - 1] == ']'))
      for (ssize_t i = 0; i < len; i++)
        if (line[i] >= 'A' && line[i] <= 'Z') {
          upper = 1;
          break;
        }
    int ins;
    int e = el__strmap_get(&seen, line, (int)len, &ins);
    if (e < 0) {
      rc = el_error_set(err, EL_ENOMEM, "vocabulary %s: out of memory", path);
      break;
    }
    if (!ins && len > 0) {
      rc = el_error_set(err, EL_EFORMAT, "vocabulary %s: line %d repeats the token '%s' of line %d",
                        path, n, line, e + 1);
      break;
    }
  }
  if (!rc && ferror(f)) rc = el_error_set(err, EL_EIO, "vocabulary %s: read error", path);
  fclose(f);
  free(line);
  if (!rc && n == 0) rc = el_error_set(err, EL_EFORMAT, "vocabulary %s is empty", path);
  if (!rc) {
    char missing[128] = "";
    for (int i = 0; i < 5; i++)
      if (el__strmap_find(&seen, SPECIALS[i], (int)strlen(SPECIALS[i])) < 0) {
        strcat(missing, " ");
        strcat(missing, SPECIALS[i]);
      }
    if (missing[0])
      rc = el_error_set(err, EL_EFORMAT,
                        "vocabulary %s lacks the special token(s)%s (pretraining needs [PAD] [UNK] "
                        "[CLS] [SEP] [MASK])",
                        path, missing);
  }
  el__strmap_free(&seen);
  if (!rc) {
    if (size) *size = n;
    if (hash) *hash = h;
    if (cased) *cased = upper;
  }
  return rc;
}

/* Word counts, most frequent first (ties by bytes: the same text gives the
 * same file). */
static int by_count(const void *a, const void *b, void *arg) {
  const el__word_counts *wc = arg;
  int x = *(const int *)a, y = *(const int *)b;
  int64_t cx = wc->map.value[x], cy = wc->map.value[y];
  if (cx != cy) return cx > cy ? -1 : 1;
  return strcmp(el__strmap_key(&wc->map, x), el__strmap_key(&wc->map, y));
}

int el__wc_write(const el__word_counts *wc, const char *path, long min_count, el_error *err) {
  int *idx = malloc(((size_t)wc->map.n + 1) * sizeof *idx), n = 0;
  if (!idx) return el_error_set(err, EL_ENOMEM, "vocab: out of memory writing word counts");
  for (int i = 0; i < wc->map.n; i++)
    if (wc->map.value[i] >= min_count) idx[n++] = i;
  qsort_r(idx, (size_t)n, sizeof *idx, by_count, (void *)wc);
  el__atomic a;
  int rc = el__atomic_begin(&a, path, err);
  for (int i = 0; !rc && i < n; i++)
    if (fprintf(a.f, "%s\t%lld\n", el__strmap_key(&wc->map, idx[i]), (long long)wc->map.value[idx[i]]) < 0) {
      rc = io_error(err, "cannot write", a.tmp);
      el__atomic_abort(&a);
      free(idx);
      return rc;
    }
  free(idx);
  return rc ? rc : el__atomic_commit(&a, err);
}
