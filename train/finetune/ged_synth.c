/* Synthetic GED data; see ged_synth.h. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "data_sentences.h"
#include "strmap.h"
#include "ged_synth.h"
#include "learner_internal.h" /* el__lr_unif: the draws of learner.h */
#include "text_variants.h"

#define TRIES 4 /* corruptions drawn per sentence before it stays clean */

/* Per lower-cased word: occurrences in the clean sample (natural) and
 * error tokens generated so far. */
typedef struct word_counts {
  el__strmap map; /* value: natural count << 32 | errors */
  double max_share; /* of a word's occurrences that may be errors (el__synth_opts) */
  int64_t passes; /* times each clean sentence is used: natural counts scale with it */
  char key[256];
} word_counts;

static int key_of(word_counts *c, const char *w) {
  int n = 0;
  for (; w[n] && n < (int)sizeof c->key - 1; n++) c->key[n] = (char)tolower((unsigned char)w[n]);
  c->key[n] = 0;
  return n;
}

static int count_natural(word_counts *c, const el__ged_data *clean) {
  for (int i = 0; i < clean->n; i++)
    for (int j = 0; j < clean->s[i].n; j++) {
      int n = key_of(c, clean->s[i].words[j]);
      int k = el__strmap_get(&c->map, c->key, n, &(int){0});
      if (k < 0) return -1;
      c->map.value[k] += (int64_t)1 << 32;
    }
  return 0;
}

/* Whether every error token of the corruption keeps its word under the cap. */
static int balanced(word_counts *c, const el__learner_out *o) {
  for (int j = 0; j < o->n; j++) {
    if (!o->labels[j]) continue;
    int k = el__strmap_find(&c->map, c->key, key_of(c, o->words[j]));
    if (k < 0) continue; /* a word the text never has: its own evidence */
    int64_t natural = (c->map.value[k] >> 32) * c->passes, errors = c->map.value[k] & 0xffffffff;
    if (natural == 0) continue;
    if ((double)(errors + 1) > c->max_share * (double)(natural + errors + 1)) return 0;
  }
  return 1;
}

static void add_errors(word_counts *c, const el__learner_out *o) {
  for (int j = 0; j < o->n; j++) {
    if (!o->labels[j]) continue;
    int k = el__strmap_find(&c->map, c->key, key_of(c, o->words[j]));
    if (k >= 0) c->map.value[k]++;
  }
}

/* Copy k of a clean sentence, written another way (text_variants.h) by a
 * draw of its own: *view's words point into s, buf or v's storage. */
static void variant_view(const el__variants *v, const el__ged_sentence *s, long k, uint64_t seed,
                         const char **words, char *buf, el__ged_sentence *view) {
  uint64_t rng = seed * 0xA24BAED4963EE407ull + (uint64_t)k * 0x9FB21C651E98DF25ull + 3;
  int flags = el__variants_draw(&rng);
  *view = *s;
  view->n = el__variants_apply(v, (const char *const *)s->words, s->n, flags, &rng, words, buf);
  view->words = (char **)words;
}

/* With probability o->third_person, *view made third person
 * (el__learner_third_person) in tp's storage. */
static int third_person_view(const el__learner *l, const el__synth_opts *o, long k,
                             el__learner_out *tp, el__ged_sentence *view, el_error *err) {
  if (o->third_person <= 0) return EL_OK;
  uint64_t rng = o->seed * 0x8CB92BA72F3D8DD7ull + (uint64_t)k * 0xC2B2AE3D27D4EB4Full + 5;
  if (el__lr_unif(&rng) >= o->third_person) return EL_OK;
  int changed = 0;
  int rc = el__learner_third_person(l, (const char *const *)view->words, view->n, &rng, tp,
                                    &changed, err);
  if (rc || !changed) return rc;
  view->words = tp->words;
  view->n = tp->n;
  return EL_OK;
}

/* With probability o->agreement_pairs, *out is the copy with one agreement
 * error after a subject pronoun (el__learner_subject_agreement) and *made =
 * 1; else (not drawn, or no such place) *made = 0. */
static int agreement_copy(const el__learner *l, const el__synth_opts *o, long k,
                          const el__ged_sentence *s, el__learner_out *out, int *made,
                          el_error *err) {
  *made = 0;
  if (o->agreement_pairs <= 0) return EL_OK;
  uint64_t rng = o->seed * 0x3C6EF372FE94F82Bull + (uint64_t)k * 0x6A09E667F3BCC909ull + 11;
  if (el__lr_unif(&rng) >= o->agreement_pairs) return EL_OK;
  int rc = el__learner_subject_agreement(l, (const char *const *)s->words, s->n, &rng, out, err);
  *made = !rc && out->n_edits == 1;
  return rc;
}

/* Copies a sentence into the GED data (words owned by d). */
static int append(el__ged_data *d, char *const *words, const uint8_t *labels, int n, int line) {
  el__ged_sentence s = {0};
  s.line = line;
  s.words = calloc((size_t)(n ? n : 1), sizeof *s.words);
  s.err = calloc((size_t)(n ? n : 1), 1);
  if (!s.words || !s.err) goto oom;
  for (int j = 0; j < n; j++) {
    if (!(s.words[j] = strdup(words[j]))) goto oom;
    s.err[j] = labels ? labels[j] : 0;
    s.n++;
    d->n_errors += s.err[j];
  }
  d->n_words += s.n;
  d->s[d->n++] = s;
  return 0;
oom:
  for (int j = 0; j < s.n; j++) free(s.words[j]);
  free(s.words);
  free(s.err);
  return -1;
}

/* Every k-th sentence of the sample goes to dev (k from the two sizes). */
static int goes_to_dev(long i, long total, long n_dev) {
  if (n_dev <= 0) return 0;
  long k = total / n_dev;
  if (k < 2) k = 2;
  return i % k == k - 1 && i / k < n_dev;
}

/* repeated[i] = 1 when sentence i occurs more than once in the sample (a
 * text that lists a sentence twice weights it twice). Such a sentence never
 * goes to dev: its twin would be trained on, and a dev of sentences the model
 * has seen scores generated errors too easily (measured: a calibrated
 * threshold of 0.30 where FCE's best was 0.16). */
static int mark_repeated(const el__ged_data *clean, unsigned char *repeated) {
  el__strmap seen = {0};
  int *idx = malloc((size_t)(clean->n > 0 ? clean->n : 1) * sizeof *idx);
  char *key = NULL;
  size_t cap = 0;
  int rc = idx ? 0 : -1;
  for (int i = 0; !rc && i < clean->n; i++) {
    size_t len = 0;
    for (int j = 0; j < clean->s[i].n; j++) len += strlen(clean->s[i].words[j]) + 1;
    if (len + 1 > cap) {
      char *k = realloc(key, cap = 2 * (len + 1));
      if (!k) {
        rc = -1;
        break;
      }
      key = k;
    }
    size_t at = 0;
    for (int j = 0; j < clean->s[i].n; j++) {
      size_t w = strlen(clean->s[i].words[j]);
      memcpy(key + at, clean->s[i].words[j], w);
      at += w;
      key[at++] = '\x1f'; /* a byte no word holds */
    }
    idx[i] = el__strmap_get(&seen, key, (int)at, &(int){0});
    if (idx[i] < 0) rc = -1;
    else seen.value[idx[i]]++;
  }
  for (int i = 0; !rc && i < clean->n; i++) repeated[i] = seen.value[idx[i]] > 1;
  el__strmap_free(&seen);
  free(idx);
  free(key);
  return rc;
}

/* The corruption of generated sentence i: the first of TRIES draws that
 * keeps every word under the cap, else none (*accepted = 0). One rng stream
 * per generated sentence, so its errors do not depend on the others', and
 * two copies of one clean sentence get different errors. */
static int corrupt_one(const el__learner *l, word_counts *c, const el__ged_sentence *s, long i,
                       const el__synth_opts *o, el__learner_out *out, int *accepted,
                       el_error *err) {
  uint64_t rng = o->seed * 0x9E3779B97F4A7C15ull + (uint64_t)i * 0xD1B54A32D192ED03ull + 1;
  *accepted = 0;
  for (int t = 0; t < TRIES; t++) {
    int rc = el__learner_corrupt(l, (const char *const *)s->words, s->n, o->rate, &rng, out, err);
    if (rc) return rc;
    if (balanced(c, out)) {
      add_errors(c, out);
      *accepted = 1;
      return EL_OK;
    }
  }
  return EL_OK;
}

/* What a synthesis run holds while it generates copies. */
typedef struct synth_run {
  const el__synth_opts *o;
  el__ged_data clean;        /* the sample of clean sentences */
  el__learner *l;
  el__variants *var;
  const char **vwords;       /* a written-another-way copy's words ... */
  char *vbuf;                /* ... and their storage */
  el__learner_out c, tp;     /* the corrupted copy; the third-person copy */
  word_counts wc;
  unsigned char *repeated;   /* mark_repeated */
  unsigned char *shared;     /* el__sentences_read's: a sentence in two units */
  unsigned char *to_dev;     /* held out: every k-th of the sentences neither repeated nor shared */
} synth_run;

static int oom(el_error *err) {
  return el_error_set(err, EL_ENOMEM, "synthetic GED data: out of memory");
}

/* Reads the sample, loads the word lists, counts the words. */
static int prepare(synth_run *r, long n_dev, el_error *err) {
  const el__synth_opts *o = r->o;
  int rc = el__sentences_read((const char *const *)o->paths, o->n_paths, o->sentences + n_dev,
                              o->seed, o->joined, &r->clean, &r->shared, err);
  if (!rc) rc = el__learner_load(o->wordnet_dir, &r->l, err);
  if (!rc) rc = el__variants_load(o->dict_dir, &r->var, err);
  if (rc) return rc;
  int max_words = 1;
  for (int i = 0; i < r->clean.n; i++) max_words = r->clean.s[i].n > max_words ? r->clean.s[i].n : max_words;
  r->vwords = malloc((size_t)max_words * sizeof *r->vwords);
  r->vbuf = malloc((size_t)max_words * EL__VARIANT_WORD_MAX);
  if (!r->vwords || !r->vbuf) return oom(err);
  if (o->lower_case) el__learner_set_share(r->l, EL__LF_ORTH, 0);
  if (o->mix && (rc = el__learner_apply_mix(r->l, o->mix, err))) return rc;
  r->wc.max_share = o->max_word_share > 0 ? o->max_word_share : EL__SYNTH_MAX_WORD_SHARE;
  if (count_natural(&r->wc, &r->clean)) return oom(err);
  r->repeated = calloc((size_t)(r->clean.n > 0 ? r->clean.n : 1), 1);
  if (!r->repeated || (n_dev > 0 && mark_repeated(&r->clean, r->repeated))) return oom(err);
  /* a unit joined to a sentence that is also trained on alone (or the other
   * way round) is not held out either */
  for (int i = 0; i < r->clean.n; i++) r->repeated[i] |= r->shared[i];
  /* dev: spread over the sentences that may be held out, so that those that
   * may not do not leave dev short */
  r->to_dev = calloc((size_t)(r->clean.n > 0 ? r->clean.n : 1), 1);
  if (!r->to_dev) return oom(err);
  long eligible = 0, j = 0;
  for (int i = 0; i < r->clean.n; i++) eligible += !r->repeated[i];
  for (int i = 0; i < r->clean.n; i++)
    if (!r->repeated[i]) r->to_dev[i] = (unsigned char)goes_to_dev(j++, eligible, n_dev);
  return EL_OK;
}

/* Generated copy k (of clean sentence k mod n): written another way, maybe
 * third person, then an agreement pair, a corrupted copy or a clean one,
 * into dev or train. */
static int add_copy(synth_run *r, long k, el__ged_data *train, el__ged_data *dev,
                    el_error *err) {
  const el__synth_opts *o = r->o;
  int i = (int)(k % r->clean.n);
  int is_dev = r->to_dev[i];
  if (is_dev && k >= r->clean.n) return EL_OK;
  int to_dev = is_dev && (size_t)dev->n < dev->cap;
  el__ged_sentence view, *s = &view;
  variant_view(r->var, &r->clean.s[i], k, o->seed, r->vwords, r->vbuf, &view);
  int rc = third_person_view(r->l, o, k, &r->tp, &view, err), ok = 0;
  if (!rc && !to_dev) rc = agreement_copy(r->l, o, k, s, &r->c, &ok, err);
  if (rc) return rc;
  if (ok) /* the pair: the error, then the same sentence correct */
    return append(train, r->c.words, r->c.labels, r->c.n, i + 1) ||
                   append(train, s->words, NULL, s->n, i + 1)
               ? oom(err)
               : EL_OK;
  if ((rc = corrupt_one(r->l, &r->wc, s, k, o, &r->c, &ok, err))) return rc;
  el__ged_data *to = to_dev ? dev : train;
  int bad = ok ? append(to, r->c.words, r->c.labels, r->c.n, i + 1)
               : append(to, s->words, NULL, s->n, i + 1);
  return bad ? oom(err) : EL_OK;
}

static void release(synth_run *r) {
  el__strmap_free(&r->wc.map);
  free(r->repeated);
  free(r->shared);
  free(r->to_dev);
  el__learner_sentence_free(&r->c);
  el__learner_sentence_free(&r->tp);
  el__learner_free(r->l);
  el__variants_free(r->var);
  free(r->vwords);
  free(r->vbuf);
  el__ged_free(&r->clean);
}

int el__ged_synthesize(const el__synth_opts *o, el__ged_data *train, el__ged_data *dev,
                       el_error *err) {
  memset(train, 0, sizeof *train);
  if (dev) memset(dev, 0, sizeof *dev);
  long n_dev = dev ? o->dev_sentences : 0;
  synth_run r = {.o = o};
  int rc = prepare(&r, n_dev, err);
  /* A corpus with fewer sentences than asked for is used several times over,
   * each copy with other errors; a dev sentence is used once, never trained on. */
  long total = o->sentences + n_dev > r.clean.n ? o->sentences + n_dev : r.clean.n;
  size_t cap = (size_t)total * (o->agreement_pairs > 0 ? 2 : 1); /* a pair is two sentences */
  if (!rc) {
    r.wc.passes = (total + r.clean.n - 1) / r.clean.n;
    train->s = calloc(cap, sizeof *train->s);
    train->cap = cap;
    if (dev) dev->s = calloc((size_t)(n_dev > 0 ? n_dev : 1), sizeof *dev->s);
    if (dev) dev->cap = (size_t)(n_dev > 0 ? n_dev : 1);
    if (!train->s || (dev && !dev->s)) rc = oom(err);
  }
  for (long k = 0; !rc && k < total; k++) rc = add_copy(&r, k, train, dev, err);
  if (!rc && train->n == 0) rc = el_error_set(err, EL_EFORMAT, "synthetic GED data: no training sentence");
  if (!rc && dev) {
    double cov = o->coverage > 0 ? o->coverage : el__learner_coverage(r.l);
    dev->unseen_errors = cov > 0 && cov < 1 ? (double)dev->n_errors * (1 / cov - 1) : 0;
    dev->near_best = EL__SYNTH_NEAR_BEST;
    dev->generated = 1;
  }
  release(&r);
  if (rc) {
    el__ged_free(train);
    if (dev) el__ged_free(dev);
  }
  return rc;
}
