/* The accessors of electra-server's shared state (srv_state.h). */
#include "srv_state.h"

el__model_set *el__server_models(el__server *s) {
  pthread_mutex_lock(&s->set_mu);
  el__model_set *m = s->set;
  if (m) el__model_set_ref(m);
  pthread_mutex_unlock(&s->set_mu);
  return m;
}

int el__server_hold(el__server *s, long n) {
  long cur = atomic_load(&s->bytes_held);
  do {
    if (cur + n > s->opt.max_bytes_in_flight) return 0;
  } while (!atomic_compare_exchange_weak(&s->bytes_held, &cur, cur + n));
  return 1;
}

void el__server_release(el__server *s, long n) {
  if (n) atomic_fetch_sub(&s->bytes_held, n);
}
