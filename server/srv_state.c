/* The one accessor of electra-server's shared state (srv_state.h). */
#include "srv_state.h"

el__model_set *el__server_models(el__server *s) {
  pthread_mutex_lock(&s->set_mu);
  el__model_set *m = s->set;
  if (m) el__model_set_ref(m);
  pthread_mutex_unlock(&s->set_mu);
  return m;
}
