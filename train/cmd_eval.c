/* electra-train eval (see --help): loads a fine-tuned checkpoint, scores
 * a labelled file and prints the metrics as one JSON object on stdout;
 * --out FILE writes the predictions (TSV for classification/regression/GED,
 * a SQuAD-style {id: answer} JSON for QA). Inference is the engine's
 * (el_run_*, include/electra/qa.h windows and span decoding), the same path
 * as the server's /classify, /score and /qa. */
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"
#include "finetune_run.h"

#define PROG "electra-train eval"

static el_opt *g_opts;
static int g_nopts;

static void usage(FILE *f) {
  fprintf(f,
          "usage: " PROG " --task TASK --data FILE --model DIR [--out FILE] [options]\n\n"
          "Prints metrics JSON: MCC/accuracy/F1 (classification), Pearson/Spearman (stsb),\n"
          "token precision/recall/F0.5 of the error class (ged), EM/F1 (squad, squad2).\n"
          "TASK: %s\n\noptions:\n",
          el__task_names());
  el__cli_print_options(f, g_opts, g_nopts);
}

static int arch_ok(const el__task *t, const el_config *c) {
  switch (t->kind) {
    case EL__TASK_CLS: return c->arch == EL_ARCH_SEQ_CLS && !c->regression;
    case EL__TASK_REG: return c->arch == EL_ARCH_SEQ_CLS && c->regression;
    case EL__TASK_GED: return c->arch == EL_ARCH_PRETRAINING;
    default: return c->arch == EL_ARCH_QA;
  }
}

/* The threshold /score would apply to a request without one. */
static float ged_threshold(const el_config *c, double given) {
  if (given >= 0) return (float)given;
  return c->has_score_threshold ? c->score_threshold : 0.5f;
}

int el__cmd_eval(int argc, char **argv) {
  const char *task = NULL, *data = NULL, *model = NULL, *outp = NULL;
  const char *tcol = NULL, *pcol = NULL, *lcol = NULL;
  long batch = 32, max_len = 128, stride = 128, max_query = 64, threads = 0, max_ex = 0;
  double threshold = -1;
  el_opt opts[] = {
      {"--task", EL_OPT_STR, &task, 0, 0, "TASK", "task; required", 0},
      {"--data", EL_OPT_STR, &data, 0, 0, "FILE", "labelled file to score; required", 0},
      {"--model", EL_OPT_STR, &model, 0, 0, "DIR", "fine-tuned checkpoint directory; required", 0},
      {"--out", EL_OPT_STR, &outp, 0, 0, "FILE", "write predictions here", 0},
      {"--batch-size", EL_OPT_INT, &batch, 1, 4096, "N", "sequences per forward (32)", 0},
      {"--max-seq-len", EL_OPT_INT, &max_len, 8, 4096, "N", "tokens per sequence (128; 384 squad)", 0},
      {"--doc-stride", EL_OPT_INT, &stride, 1, 4096, "N", "QA: context pieces between windows (128)", 0},
      {"--max-query-len", EL_OPT_INT, &max_query, 1, 4096, "N", "QA: question pieces kept (64)", 0},
      {"--threads", EL_OPT_INT, &threads, 0, 4096, "N", "threads (0 = CPU quota)", 0},
      {"--max-examples", EL_OPT_INT, &max_ex, 0, 1e9, "N", "score the first N only (all)", 0},
      {"--threshold", EL_OPT_FLOAT, &threshold, 0, 1, "X",
       "ged: flag words with P(error) >= X (the model's score_threshold, else 0.5, as /score)", 0},
      {"--text-column", EL_OPT_STR, &tcol, 0, 0, "NAME|N", "tsv: text column (text)", 0},
      {"--pair-column", EL_OPT_STR, &pcol, 0, 0, "NAME|N", "tsv: second text column", 0},
      {"--label-column", EL_OPT_STR, &lcol, 0, 0, "NAME|N", "tsv: label column (label)", 0},
  };
  g_opts = opts;
  g_nopts = (int)(sizeof opts / sizeof opts[0]);
  int rc = el__cli_parse(PROG, opts, g_nopts, argc, argv, usage);
  if (rc != EL_CLI_OK) return rc == EL_CLI_HELP ? 0 : 2;
  const char *miss = !task ? "--task" : !data ? "--data" : !model ? "--model" : NULL;
  if (miss) {
    fprintf(stderr, PROG ": %s is required (see --help)\n", miss);
    return 2;
  }
  const el__task *t = el__task_find(task);
  if (!t) {
    fprintf(stderr, PROG ": unknown --task '%s' (one of: %s)\n", task, el__task_names());
    return 2;
  }
  if (!el__cli_find(opts, g_nopts, "--max-seq-len")->seen) max_len = t->max_seq_len;
  if (threads > 0) el_set_threads((int)threads);

  el_error err = {0};
  el_model *m = NULL;
  el_workspace *ws = NULL;
  el__ft_examples ex = {0};
  el__ft_data d = {0};
  FILE *pf = NULL;
  int status = 1;
  char note[700], js[1024];
  if ((rc = el_model_load(model, &m, &err))) goto fail;
  const el_config *cfg = el_model_config(m);
  if (!arch_ok(t, cfg)) {
    fprintf(stderr,
            PROG ": %s is %s%s, task %s needs %s\n", model, el_arch_name(cfg->arch),
            cfg->regression ? " (regression)" : "", t->name,
            t->kind == EL__TASK_GED ? "ElectraForPreTraining"
            : t->kind == EL__TASK_QA ? "ElectraForQuestionAnswering"
            : t->kind == EL__TASK_REG ? "ElectraForSequenceClassification with problem_type regression"
                                      : "ElectraForSequenceClassification");
    goto out;
  }
  if (max_len > cfg->max_position_embeddings) max_len = cfg->max_position_embeddings;
  el__tsv_columns cols = {tcol, pcol, lcol};
  /* the file's labels: the task's fixed ones (a GLUE model's id2label holds
   * display names such as "negative"), else the model's (tsv) */
  int own = t->kind == EL__TASK_CLS && !t->labels;
  if (t->kind == EL__TASK_CLS && t->labels && cfg->num_labels != t->n_labels) {
    fprintf(stderr, PROG ": %s has %d labels, task %s has %d\n", model, cfg->num_labels, t->name,
            t->n_labels);
    goto out;
  }
  if ((rc = el__ft_read(t, data, &cols, own ? cfg->id2label : NULL, own ? cfg->num_labels : 0,
                        (int)max_ex, &ex, &err)))
    goto fail;
  el__ft_skip_note(&ex, note, sizeof note);
  if (note[0]) fprintf(stderr, PROG ": %s\n", note);
  el__ft_shape shape = {(int)max_len, el_qa_default_params(), EL_SCORE_MAX};
  shape.qa.max_seq_len = (int)max_len;
  shape.qa.doc_stride = (int)stride;
  shape.qa.max_query_len = (int)max_query;
  shape.ged_rule = cfg->score_rule;
  const el_tokenizer *tok = el_model_tokenizer(m);
  if ((rc = el__ft_features(&ex, tok, &shape, &d, &err))) goto fail;
  if ((rc = el_workspace_new(m, (int)batch * d.max_len, (int)batch, &ws, &err))) goto fail;
  el__ft_engine_ctx ectx = {m, ws, t->kind};
  el__ft_runner runner = {el__ft_engine_run, &ectx};
  if (outp && !(pf = fopen(outp, "w"))) {
    perror(outp);
    goto out;
  }
  el__ft_metrics mt;
  float thr = t->kind == EL__TASK_GED ? ged_threshold(cfg, threshold)
              : cfg->has_null_threshold ? cfg->null_threshold : 0.0f;
  if ((rc = el__ft_evaluate(&runner, &ex, &d, &shape, (int)batch, 0, thr, pf, &mt, &err)))
    goto fail;
  if (t->squad2 && !cfg->has_null_threshold)
    fprintf(stderr, PROG ": %s has no electra_null_threshold: using 0\n", model);
  if (pf && fclose(pf) != 0) {
    pf = NULL;
    perror(outp);
    goto out;
  }
  pf = NULL;
  el__ft_metrics_json(t, &mt, js, sizeof js);
  printf("%s\n", js);
  status = 0;
  goto out;
fail:
  fprintf(stderr, PROG ": %s\n", err.msg);
out:
  if (pf) fclose(pf);
  el_workspace_free(ws);
  el__ft_data_free(&d);
  el__ft_examples_free(&ex);
  el_model_free(m);
  return status;
}
