/* CMU Sphinx's English trigram model behind one lock (ngram.h). */
#include "ngram.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <sphinxbase/err.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/ngram_model.h>

#include "ngram_internal.h"

struct el__ngram {
  ngram_model_t *lm;
  logmath_t *lmath; /* logmath_init's reference; lm holds one of its own */
  int32 unk, start, end;
  pthread_mutex_t lock;
};

int el__ngram_load(const char *path, el__ngram **out, el_error *err) {
  *out = NULL;
  if (!path) path = EL__NGRAM_DEFAULT_PATH;
  if (access(path, R_OK))
    return el_error_set(err, EL_EIO, "n-gram model: %s is not readable: install the Debian "
                        "package pocketsphinx-en-us", path);
  el__ngram *m = calloc(1, sizeof *m);
  if (!m) return el_error_set(err, EL_ENOMEM, "n-gram model: out of memory");
  err_set_logfp(NULL); /* libsphinxbase logs every step of loading to stderr */
  m->lmath = logmath_init(1.0001, 0, 0);
  m->lm = m->lmath ? ngram_model_read(NULL, path, NGRAM_AUTO, m->lmath) : NULL;
  if (!m->lm) {
    logmath_free(m->lmath);
    free(m);
    return el_error_set(err, EL_EIO, "n-gram model: %s: not an ARPA or Sphinx binary language "
                        "model (or truncated)", path);
  }
  m->unk = ngram_unknown_wid(m->lm);
  m->start = ngram_wid(m->lm, "<s>");
  m->end = ngram_wid(m->lm, "</s>");
  pthread_mutex_init(&m->lock, NULL);
  *out = m;
  return EL_OK;
}

void el__ngram_free(el__ngram *m) {
  if (!m) return;
  ngram_model_free(m->lm);
  logmath_free(m->lmath); /* the model took a reference of its own; this is logmath_init's */
  pthread_mutex_destroy(&m->lock);
  free(m);
}

/* The model's words are lower case. */
static int32 word_id(const el__ngram *m, const char *w) {
  char low[64];
  size_t i = 0;
  for (; w[i] && i + 1 < sizeof low; i++) low[i] = (char)tolower((unsigned char)w[i]);
  if (w[i]) return m->unk; /* longer than any word of the model */
  low[i] = 0;
  return ngram_wid(m->lm, low);
}

int32_t el__ngram_id(el__ngram *m, const char *word) {
  pthread_mutex_lock(&m->lock);
  int32 id = word_id(m, word);
  pthread_mutex_unlock(&m->lock);
  return id == m->unk ? EL__NGRAM_NONE : id;
}

int32_t el__ngram_boundary(const el__ngram *m, int end) { return end ? m->end : m->start; }

int el__ngram_known(el__ngram *m, const char *word) { return el__ngram_id(m, word) != EL__NGRAM_NONE; }

/* The model's id for an id of ngram_internal.h: <UNK> for an unknown word. */
static int32 model_id(const el__ngram *m, int32_t id) { return id == EL__NGRAM_NONE ? m->unk : id; }

/* ln P(ids[p] | the two before it); ids[0] is <s>, and nothing predicts a
 * sentence's start (<s> after </s>): 0 there. Called under the lock. */
static double position_logp(const el__ngram *m, const int32_t *ids, int p) {
  if (ids[p] == m->start) return 0;
  int32 used, w = model_id(m, ids[p]), h1 = model_id(m, ids[p - 1]);
  int32 s = p >= 2 ? ngram_tg_score(m->lm, w, h1, model_id(m, ids[p - 2]), &used)
                   : ngram_bg_score(m->lm, w, h1, &used);
  return logmath_log_to_ln(m->lmath, s);
}

double el__ngram_span_logp(el__ngram *m, const int32_t *ids, int len, int from, int to) {
  if (from < 1) from = 1;
  if (to > len) to = len;
  double sum = 0;
  pthread_mutex_lock(&m->lock);
  for (int p = from; p < to; p++) sum += position_logp(m, ids, p);
  pthread_mutex_unlock(&m->lock);
  return sum;
}

int el__ngram_has_text(const char *w) {
  for (; *w; w++)
    if (isalnum((unsigned char)*w)) return 1;
  return 0;
}
