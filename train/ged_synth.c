/* Synthetic GED data; see ged_synth.h. */
#include <stdlib.h>
#include <string.h>

#include "data_sentences.h"
#include "ged_synth.h"
#include "learner.h"

/* Copies a corrupted sentence into the GED data (words owned by d). */
static int append(el__ged_data *d, const el__learner_out *c, int line) {
  el__ged_sentence s = {0};
  s.line = line;
  s.words = calloc((size_t)(c->n ? c->n : 1), sizeof *s.words);
  s.err = malloc((size_t)(c->n ? c->n : 1));
  if (!s.words || !s.err) goto oom;
  for (int j = 0; j < c->n; j++) {
    if (!(s.words[j] = strdup(c->words[j]))) goto oom;
    s.err[j] = c->labels[j];
    s.n++;
    d->n_errors += c->labels[j];
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

int el__ged_synthesize(const el__synth_opts *o, el__ged_data *train, el__ged_data *dev,
                       el_error *err) {
  memset(train, 0, sizeof *train);
  if (dev) memset(dev, 0, sizeof *dev);
  long n_dev = dev ? o->dev_sentences : 0;
  el__ged_data clean = {0};
  el__learner *l = NULL;
  el__learner_out c = {0};
  int rc = el__sentences_read((const char *const *)o->paths, o->n_paths, o->sentences + n_dev,
                              o->seed, &clean, err);
  if (!rc) rc = el__learner_load(o->wordnet_dir, &l, err);
  if (rc) goto done;
  train->s = calloc((size_t)clean.n, sizeof *train->s);
  if (dev) dev->s = calloc((size_t)(n_dev > 0 ? n_dev : 1), sizeof *dev->s);
  if (!train->s || (dev && !dev->s)) goto oom;
  train->cap = clean.n;
  if (dev) dev->cap = (int)(n_dev > 0 ? n_dev : 1);
  /* one rng stream per sentence: the errors of a sentence do not depend on
   * how many other sentences were drawn */
  for (int i = 0; i < clean.n; i++) {
    uint64_t rng = o->seed * 0x9E3779B97F4A7C15ull + (uint64_t)i * 0xD1B54A32D192ED03ull + 1;
    const el__ged_sentence *s = &clean.s[i];
    if ((rc = el__learner_corrupt(l, (const char *const *)s->words, s->n, o->rate, &rng, &c, err)))
      goto done;
    int to_dev = goes_to_dev(i, clean.n, n_dev) && dev->n < dev->cap;
    if (append(to_dev ? dev : train, &c, i + 1)) goto oom;
  }
  if (train->n == 0) rc = el_error_set(err, EL_EFORMAT, "synthetic GED data: no training sentence");
  goto done;
oom:
  rc = el_error_set(err, EL_ENOMEM, "synthetic GED data: out of memory");
done:
  el__learner_sentence_free(&c);
  el__learner_free(l);
  el__ged_free(&clean);
  if (rc) {
    el__ged_free(train);
    if (dev) el__ged_free(dev);
  }
  return rc;
}
