/* A small pool of threads draining one FIFO of work items (electra-server's
 * prepare step: parsing, tokenizing and encoding POST bodies off
 * libmicrohttpd's threads). Items are intrusive: the caller embeds an
 * el__workq_node in its own struct and gets that node back in fn, so a push
 * never allocates and cannot fail. */
#ifndef EL_SERVER_WORKQ_H
#define EL_SERVER_WORKQ_H

typedef struct el__workq_node {
  struct el__workq_node *next;
} el__workq_node;

typedef struct el__workq el__workq;

/* Starts up to n threads (at most 16) that call fn on each pushed node, in
 * push order. NULL when out of memory; el__workq_threads says how many
 * threads started (0: none could). */
el__workq *el__workq_start(int n, void (*fn)(el__workq_node *));
int el__workq_threads(const el__workq *q);
void el__workq_push(el__workq *q, el__workq_node *node);
/* Lets the threads finish what is queued, joins them and frees q (NULL ok). */
void el__workq_stop(el__workq *q);

#endif
