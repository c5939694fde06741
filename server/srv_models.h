/* The models being served: loaded as one reference-counted set, so a reload
 * (SIGHUP) swaps every model at once while requests still holding the old
 * set finish on it. Tasks come from the architecture (the server's head
 * table, srv_heads.h): ElectraForPreTraining and ElectraForTokenClassification
 * serve /score, ElectraForSequenceClassification /classify,
 * ElectraForQuestionAnswering /qa; ElectraForMaskedLM only /tokenize. The
 * first model of each task is its default.
 *
 * A token classifier's /score probability of a piece is 1 - P(correct label)
 * (softmax over its labels). The correct label is the spec's correct_label
 * (--correct-label; exact name, else the one name equal ignoring case), or
 * else the one id2label name that is CORRECT, C, O, OK or KEEP ignoring case
 * (the FCE data's "c", BIO's "O", ...). "LABEL_0" is never taken to mean
 * correct: no such name, several, a label the option names that the model
 * lacks, fewer than 2 labels, or the option on another architecture refuse
 * the load, saying what to give. */
#ifndef EL_SERVER_MODELS_H
#define EL_SERVER_MODELS_H

#include <stdatomic.h>

#include "dict.h"
#include "ngram.h"
#include "electra/electra.h"
#include "srv_heads.h"
#include "srv_options.h"

typedef struct el__model_set el__model_set;

typedef struct el__model_entry {
  char name[64];
  char dir[1024];
  el_model *model;
  const el_config *cfg;
  const el_tokenizer *tok;
  el_workspace *ws; /* used by the inference thread only */
  int task;         /* el__task, or -1 (masked LM: /tokenize only) */
  int max_len;      /* max_position_embeddings */
  double threshold; /* /score without "threshold": the model's score_threshold, else 0.5;
                       with the dictionary, its score_dictionary_threshold */
  char quality[640]; /* quality.json's "summary" beside config.json (recipe-made models), or "" */
  el__dict *dict;   /* the set's hunspell when this model is read beside it (config.json's
                       score_dictionary_weight, no --no-dictionary), else NULL */
  el__ngram *ngram; /* with dict, when config.json has score_dictionary_ngram: the process's
                       n-gram model and learner tables (srv_lang.h), else NULL; borrowed */
  el__learner *learner;
  int correct_label;       /* token classifier: index of the "no error" label, else -1 */
  int correct_from_option; /* 1: --correct-label named it; 0: found by its name */
  /* /score models: the grammar checker behind /v2/check (srv_checker.h),
   * used by the inference thread only; NULL with the reason in check_err */
  el_model *generator;
  el_model *verifier; /* the detector in the verification pass's dtype when it differs, else NULL */
  struct el__checker *checker;
  char check_err[1700]; /* room for a path and an el_error message */
  el__model_set *set;
} el__model_entry;

struct el__model_set {
  atomic_int refs;
  int n;
  el__model_entry e[EL_SRV_MAX_MODELS];
  int task_default[EL_TASK_COUNT]; /* index into e, or -1 */
  el__dict *dict; /* the process's hunspell (srv_lang.h) when a model uses it, else NULL; borrowed */
};

/* Loads every model (no BLAS call: safe off the inference thread) with a
 * workspace for batches of ws_tokens tokens (raised to each model's
 * max_position_embeddings) and ws_seqs sequences. The set starts with one
 * reference, owned by the caller. err names the model that failed. */
int el__model_set_load(const el__model_spec *specs, int n, int ws_tokens, int ws_seqs,
                       el__model_set **out, char *err, size_t cap);
void el__model_set_ref(el__model_set *s);
void el__model_set_unref(el__model_set *s);
/* By name; NULL when unknown. */
el__model_entry *el__model_set_find(el__model_set *s, const char *name);

/* What GET /info says about reloads (SIGHUP), kept here for the process
 * (thread-safe; the lifecycle writes, the HTTP threads read). The start-up
 * load is not a reload. */
struct el__sb;
/* A reload starts; a SIGHUP arriving during one is queued (reloads right
 * after it), so the files' last state is always what gets loaded. */
void el__reload_started(void);
void el__reload_queued(void);
/* A reload ended: ok, or failed for reason (the previous models still
 * serve). queued_next: another reload starts at once (a queued SIGHUP). */
void el__reload_finished(int ok, const char *reason, int queued_next);
/* Appends the "reload" member of /info, comma first:
 * ,"reload":{"in_progress":B,"queued":B,"ok":N,"failed":N,"last":null|
 *   {"time":"2026-11-25T10:00:00.123Z","result":"ok"|"failed","reason":null|S,"seconds":X}} */
void el__reload_render(struct el__sb *b);

#endif
