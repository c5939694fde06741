/* The server's head table: one entry per architecture (el_arch) saying what
 * the server does with a model of it -- the task and so the route that serves
 * it, how the inference thread runs a batch of it and what each sequence gets
 * back (el__seq.out), whether it reads its labels through a "correct" label,
 * and the fields its /info entry carries after the common ones.
 *
 *   ElectraForPreTraining             /score     len floats: P(replaced) per token
 *   ElectraForTokenClassification     /score     len floats: 1 - P(correct label)
 *   ElectraForSequenceClassification  /classify  num_labels floats: logits of [CLS]
 *   ElectraForQuestionAnswering       /qa        2*len floats: start, then end logits
 *   ElectraForMaskedLM                /tokenize only (warm-up runs the encoder)
 *
 * Adding a head the server serves: its engine entry (engine/heads.c), then
 * one entry here; a new task also needs its route's fields (srv_request.c),
 * preparation and answer (srv_api.c) and the spec (openapi.c). */
#ifndef EL_SERVER_HEADS_H
#define EL_SERVER_HEADS_H

#include <stddef.h>

#include "electra/electra.h"
#include "srv_batcher.h"
#include "srv_sbuf.h"
#include "support_api.h"

struct el__model_entry;

/* The tasks, each served by one route. */
typedef enum el__task { EL_TASK_SCORE = 0, EL_TASK_CLASSIFY, EL_TASK_QA, EL_TASK_COUNT } el__task;

/* The inference thread's output scratch: grows to the largest batch seen. */
typedef struct el__head_scratch {
  float *a, *b;
  size_t cap_a, cap_b;
} el__head_scratch;

typedef struct el__srv_head {
  int task;          /* el__task, or -1: /tokenize only */
  int correct_label; /* 1: per-token label logits read as 1 - P(correct label) (--correct-label) */
  /* Runs the packed batch b of the n sequences seqs (all of e's model) and
   * writes each one's out; EL_OK, or an error in er. */
  int (*run)(el__head_scratch *s, const struct el__model_entry *e, const el_batch *b,
             el__seq *const *seqs, int n, el_error *er);
  /* Appends the head's /info fields (from "labels" on) to b. */
  void (*info)(el__sb *b, const struct el__model_entry *e);
} el__srv_head;

/* The entry of arch a (a loaded model's architecture is always valid). */
const el__srv_head *el__srv_head_of(el_arch a);

/* A task's name in /info ("score", ...; "tokenize" for -1) and its route
 * ("/score", ...; "/tokenize" for -1). */
const char *el__task_name(int task);
const char *el__task_route(int task);


#endif
