/* The server's shared English resources (srv_lang.h). */
#include "srv_lang.h"

#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static el__dict *dict;
static el__learner *learner;
static el__ngram *ngram;

int el__srv_lang_dict(el__dict **out, el_error *err) {
  pthread_mutex_lock(&lock);
  int rc = dict ? EL_OK : el__dict_load(NULL, &dict, err);
  *out = dict;
  pthread_mutex_unlock(&lock);
  return rc;
}

int el__srv_lang_ngram(el__ngram **out, el_error *err) {
  pthread_mutex_lock(&lock);
  int rc = ngram ? EL_OK : el__ngram_load(NULL, &ngram, err);
  *out = ngram;
  pthread_mutex_unlock(&lock);
  return rc;
}

int el__srv_lang_learner(el__learner **out, el_error *err) {
  pthread_mutex_lock(&lock);
  int rc = learner ? EL_OK : el__learner_load(NULL, &learner, err);
  *out = learner;
  pthread_mutex_unlock(&lock);
  return rc;
}
