/* DIR/eval.json of a fine-tuning run (finetune_evaljson.h). */
#include "finetune_evaljson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainer_api.h"

void el__ft_add_epoch(cJSON *epochs, const el__task *t, long ep, double train_loss,
                      const el__ft_metrics *mt) {
  cJSON *e = cJSON_CreateObject();
  if (!e) return;
  cJSON_AddNumberToObject(e, "epoch", (double)ep);
  cJSON_AddNumberToObject(e, "train_loss", train_loss);
  cJSON *d = el__ft_metrics_object(t, mt);
  if (d) cJSON_AddItemToObject(e, "dev", d);
  cJSON_AddItemToArray(epochs, e);
}

/* DIR/eval.json: the best epoch's dev metrics, every epoch, and the
 * settings that produced them. */
int el__ft_write_eval_json(const el__ft_opts *o, const el__ft_run_summary *r, el_error *err) {
  const el__task *t = o->task;
  cJSON *j = cJSON_CreateObject();
  if (!j) return el_error_set(err, EL_ENOMEM, "eval.json: out of memory");
  cJSON_AddStringToObject(j, "task", t->name);
  cJSON_AddStringToObject(j, "metric", t->metric);
  cJSON_AddNumberToObject(j, "best_epoch", r->best_epoch);
  cJSON *d = el__ft_metrics_object(t, r->best);
  if (d) cJSON_AddItemToObject(j, "dev", d);
  cJSON_AddItemToObject(j, "epochs", cJSON_Duplicate(r->epochs, 1));
  if (o->synth.n_paths) {
    cJSON *sy = cJSON_AddObjectToObject(j, "synthetic");
    cJSON *files = cJSON_AddArrayToObject(sy, "from");
    for (int i = 0; i < o->synth.n_paths; i++)
      cJSON_AddItemToArray(files, cJSON_CreateString(o->synth.paths[i]));
    cJSON_AddNumberToObject(sy, "sentences", (double)o->synth.sentences);
    cJSON_AddNumberToObject(sy, "rate", o->synth.rate);
    if (o->synth.mix) cJSON_AddStringToObject(sy, "mix", o->synth.mix);
  } else {
    cJSON_AddStringToObject(j, "train", o->train);
  }
  if (o->dev) cJSON_AddStringToObject(j, "dev_file", o->dev);
  else cJSON_AddNullToObject(j, "dev_file");
  cJSON_AddStringToObject(j, "init", r->init_dir);
  cJSON_AddBoolToObject(j, "random_init", o->random_init);
  cJSON_AddNumberToObject(j, "train_examples", r->train_examples);
  cJSON_AddNumberToObject(j, "seed", (double)o->seed);
  cJSON_AddNumberToObject(j, "lr", o->lr);
  cJSON_AddNumberToObject(j, "batch_size", (double)o->batch);
  cJSON_AddNumberToObject(j, "epochs_run", (double)cJSON_GetArraySize(r->epochs));
  cJSON_AddNumberToObject(j, "layer_decay", o->layer_decay);
  cJSON_AddNumberToObject(j, "warmup_proportion", o->warmup);
  cJSON_AddNumberToObject(j, "weight_decay", o->weight_decay);
  cJSON_AddNumberToObject(j, "average_weights", o->average_weights);
  cJSON_AddNumberToObject(j, "max_seq_len", (double)o->max_seq_len);
  cJSON_AddNumberToObject(j, "steps", (double)r->steps);
  cJSON_AddNumberToObject(j, "steps_per_epoch", (double)r->steps_per_epoch);
  cJSON_AddNumberToObject(j, "train_seconds", r->train_s); /* with steps: the step time */
  if (o->time_limit > 0) { /* a time-planned run ends when its plan is complete */
    cJSON_AddNumberToObject(j, "time_limit_seconds", o->time_limit);
    cJSON_AddNumberToObject(j, "planned_steps", (double)r->steps);
  }
  cJSON_AddNumberToObject(j, "wall_seconds", r->wall_s);
  cJSON_AddNumberToObject(j, "cpu_seconds", r->cpu_s);
  char *txt = cJSON_Print(j);
  cJSON_Delete(j);
  if (!txt) return el_error_set(err, EL_ENOMEM, "eval.json: out of memory");
  size_t n = strlen(txt);
  char *nl = realloc(txt, n + 2);
  if (nl) {
    txt = nl;
    strcpy(txt + n, "\n");
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/eval.json", o->out);
  int rc = el__write_atomic(path, txt, strlen(txt), err);
  cJSON_free(txt);
  return rc;
}
