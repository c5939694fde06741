/* The bodies of GET /info and the server's own lines of GET /metrics
 * (counters of the HTTP layer and the models served), rendered from the
 * server's state; the HTTP layer (http.c) sends them. */
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "electra/electra.h"
#include "srv_conns.h"
#include "srv_info.h"

char *el__info_render(el__server *s, size_t *len) {
  el__sb b = {0};
  el__model_set *set = el__server_models(s);
  const el__srv_options *o = &s->opt;
  el__sb_printf(&b,
                "{\"version\":\"%s\",\"pid\":%ld,\"ready\":%s,\"limits\":{\"max_batch_tokens\":%d,"
                "\"max_batch_size\":%d,\"max_wait_us\":%d,\"max_queue\":%d,\"max_inputs\":%d,"
                "\"max_qa_windows\":%d,\"max_body_bytes\":%ld,\"max_bytes_in_flight\":%ld,"
                "\"request_timeout\":%g,"
                "\"max_queue_tokens\":%ld,\"max_response_bytes\":%ld,\"max_connections\":%d,"
                "\"max_connections_per_client\":%d,\"header_timeout\":%g,\"body_timeout\":%g},"
                "\"models\":[",
                EL_VERSION, (long)getpid(), atomic_load(&s->ready) ? "true" : "false", o->max_batch_tokens,
                o->max_batch_size, o->max_wait_us, o->max_queue, o->max_inputs,
                o->max_qa_windows, o->max_body_bytes, o->max_bytes_in_flight, o->request_timeout, o->max_queue_tokens,
                o->max_response_bytes, o->max_connections, o->max_connections_per_client,
                o->header_timeout, o->body_timeout);
  for (int i = 0; set && i < set->n; i++) {
    const el__model_entry *e = &set->e[i];
    const el_config *c = e->cfg;
    el__sb_puts(&b, i ? ",{\"name\":" : "{\"name\":");
    el__sb_json_str(&b, e->name, strlen(e->name));
    el__sb_printf(&b,
                  ",\"task\":\"%s\",\"route\":\"%s\",\"architecture\":\"%s\",\"default\":%s,"
                  "\"max_seq_len\":%d,\"num_parameters\":%zu,\"vocab_size\":%d,"
                  "\"hidden_size\":%d,\"num_layers\":%d,\"do_lower_case\":%s,\"dtype\":\"%s\","
                  "\"weight_bytes\":%zu",
                  el__task_name(e->task), el__task_route(e->task), el_arch_name(c->arch),
                  e->task >= 0 && set->task_default[e->task] == i ? "true" : "false", e->max_len,
                  el_model_num_parameters(e->model), c->vocab_size, c->hidden_size,
                  c->num_layers, c->do_lower_case ? "true" : "false",
                  el_dtype_name(el_model_dtype(e->model)), el_model_weight_bytes(e->model));
    el__srv_head_of(c->arch)->info(&b, e); /* labels and the head's own fields */
    el__sb_puts(&b, "}");
  }
  el__sb_puts(&b, "]");
  el__reload_render(&b); /* the last SIGHUP reload: time, result, reason */
  el__sb_puts(&b, "}");
  if (set) el__model_set_unref(set);
  return el__sb_take(&b, len);
}

char *el__info_model_metrics(el__server *s) {
  el__model_set *set = el__server_models(s);
  if (!set) return NULL;
  el__sb b = {0};
  el__sb_printf(&b,
                "# HELP electra_requests_cancelled_total Requests dropped unanswered while "
                "queued: their client closed the connection.\n"
                "# TYPE electra_requests_cancelled_total counter\n"
                "electra_requests_cancelled_total %ld\n"
                "# HELP electra_connections_refused_total Connections closed on accept: "
                "--max-connections were open.\n"
                "# TYPE electra_connections_refused_total counter\n"
                "electra_connections_refused_total %ld\n"
                "# HELP electra_connections_timed_out_total Connections closed by "
                "--header-timeout or --body-timeout.\n"
                "# TYPE electra_connections_timed_out_total counter\n"
                "electra_connections_timed_out_total %ld\n"
                "# HELP electra_bytes_in_flight Bytes of request bodies and answers held "
                "now (at most --max-bytes-in-flight).\n"
                "# TYPE electra_bytes_in_flight gauge\n"
                "electra_bytes_in_flight %ld\n"
                "# HELP electra_requests_refused_memory_total Requests answered 503: their "
                "body or answer would pass --max-bytes-in-flight.\n"
                "# TYPE electra_requests_refused_memory_total counter\n"
                "electra_requests_refused_memory_total %ld\n",
                el__sched_cancelled(s->sched), (long)atomic_load(&s->refused),
                s->api.conns ? el__conns_timed_out(s->api.conns) : 0L,
                (long)atomic_load(&s->bytes_held), (long)atomic_load(&s->budget_refused));
  el__sb_puts(&b, "# HELP electra_model_info Models served (value 1).\n"
                  "# TYPE electra_model_info gauge\n");
  for (int i = 0; i < set->n; i++)
    el__sb_printf(&b, "electra_model_info{name=\"%s\",architecture=\"%s\",dtype=\"%s\"} 1\n",
                  set->e[i].name, el_arch_name(set->e[i].cfg->arch),
                  el_dtype_name(el_model_dtype(set->e[i].model)));
  el__model_set_unref(set);
  return el__sb_take(&b, NULL);
}
