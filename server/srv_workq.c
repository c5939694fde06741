/* The work queue of srv_workq.h: a mutex, a condition and a linked FIFO. */
#include <pthread.h>
#include <stdlib.h>

#include "srv_workq.h"

struct el__workq {
  pthread_mutex_t mu;
  pthread_cond_t cond;
  el__workq_node *head, *tail;
  void (*fn)(el__workq_node *);
  pthread_t th[16];
  int n, quit;
};

static void *worker(void *arg) {
  el__workq *q = arg;
  pthread_mutex_lock(&q->mu);
  for (;;) {
    while (!q->head && !q->quit) pthread_cond_wait(&q->cond, &q->mu);
    if (!q->head) break;
    el__workq_node *node = q->head;
    q->head = node->next;
    if (!q->head) q->tail = NULL;
    pthread_mutex_unlock(&q->mu);
    q->fn(node);
    pthread_mutex_lock(&q->mu);
  }
  pthread_mutex_unlock(&q->mu);
  return NULL;
}

el__workq *el__workq_start(int n, void (*fn)(el__workq_node *)) {
  el__workq *q = calloc(1, sizeof *q);
  if (!q) return NULL;
  pthread_mutex_init(&q->mu, NULL);
  pthread_cond_init(&q->cond, NULL);
  q->fn = fn;
  if (n > 16) n = 16;
  for (q->n = 0; q->n < n; q->n++)
    if (pthread_create(&q->th[q->n], NULL, worker, q)) break;
  return q;
}

int el__workq_threads(const el__workq *q) { return q ? q->n : 0; }

void el__workq_push(el__workq *q, el__workq_node *node) {
  node->next = NULL;
  pthread_mutex_lock(&q->mu);
  if (q->tail)
    q->tail->next = node;
  else
    q->head = node;
  q->tail = node;
  pthread_cond_signal(&q->cond);
  pthread_mutex_unlock(&q->mu);
}

void el__workq_stop(el__workq *q) {
  if (!q) return;
  pthread_mutex_lock(&q->mu);
  q->quit = 1;
  pthread_cond_broadcast(&q->cond);
  pthread_mutex_unlock(&q->mu);
  for (int i = 0; i < q->n; i++) pthread_join(q->th[i], NULL);
  pthread_cond_destroy(&q->cond);
  pthread_mutex_destroy(&q->mu);
  free(q);
}
