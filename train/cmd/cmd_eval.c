/* electra-train eval (see --help): loads a fine-tuned checkpoint, scores
 * a labelled file and prints the metrics as one JSON object on stdout;
 * --out FILE writes the predictions (TSV for classification/regression/GED,
 * a SQuAD-style {id: answer} JSON for QA). Inference is the engine's
 * (el_run_*, include/electra/qa.h windows and span decoding), the same path
 * as the server's /classify, /score and /qa. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "el_cli.h"
#include "cmd_eval_m2.h"
#include "lt_lang.h"
#include "commands.h"
#include "finetune_run.h"

#define PROG "electra-train eval"

static void usage(FILE *f) {
  fprintf(f,
          "usage: " PROG " --task TASK --data FILE --model DIR [--out FILE] [options]\n"
          "       " PROG " --task ged --m2 FILE [--model DIR [--generator DIR]] [--language L]\n"
          "         [--out FILE] [--edits FILE]\n\n"
          "Prints metrics JSON: MCC/accuracy/F1 (classification), Pearson/Spearman (stsb),\n"
          "token precision/recall/F0.5 of the error class (ged), EM/F1 (squad, squad2).\n"
          "--m2: corrections scored as GEC is (M2/ERRANT convention: minimal token edits,\n"
          "exact match against annotator 0), P/R/F0.5 and recall per ERRANT type, for the\n"
          "checker over --model (each match's first replacement, if --model is given) and\n"
          "for hunspell's first suggestions side by side (--language's dictionaries: en_GB +\n"
          "en_US for en, en_GB alone for en-GB, en_US for en-US), then the tokens the checker\n"
          "ran through the models (its cost beside /score's one pass); --out: JSON; --edits: M2.\n"
          "TASK: %s\n\noptions:\n",
          el__task_names());
  el__eval_args unused;
  el_opt t[EL_EVAL_N_OPTS];
  el__eval_args_init(&unused);
  el__eval_table(&unused, t);
  el__cli_print_options(f, t, EL_EVAL_N_OPTS);
}

static int arch_ok(const el__task *t, const el_config *c) {
  switch (t->kind) {
    case EL__TASK_CLS: return c->arch == EL_ARCH_SEQ_CLS && !c->regression;
    case EL__TASK_REG: return c->arch == EL_ARCH_SEQ_CLS && c->regression;
    case EL__TASK_GED: return c->arch == EL_ARCH_PRETRAINING || c->arch == EL_ARCH_TOKEN_CLS;
    default: return c->arch == EL_ARCH_QA;
  }
}

/* The threshold /score would apply to a request without one. */
static float ged_threshold(const el_config *c, double given) {
  if (given >= 0) return (float)given;
  return el_score_threshold(c, 0);
}


/* --dictionary: the spelling dictionary beside a GED model as /score combines
 * them (on when the model's config.json carries its weight; --dictionary-weight
 * turns it on for any model). Loads it into s->dict; 0, or 1 after a message. */
static int ged_dictionary(const el__eval_args *a, const el_config *c, el__ft_shape *s) {
  int on = a->dict ? !strcmp(a->dict, "on") : c->has_score_dictionary || a->dict_weight >= 0;
  if (!on) return 0;
  if (!c->has_score_dictionary && a->dict_weight < 0) {
    fprintf(stderr, PROG ": --dictionary on: %s has no score_dictionary_weight in its config.json "
            "(give --dictionary-weight Q)\n", a->model);
    return 1;
  }
  s->dict_weight = a->dict_weight >= 0 ? a->dict_weight : c->score_dictionary_weight;
  /* a weight given without the model's: names read as the model reads them */
  s->dict_name_weight = c->has_score_dictionary ? c->score_dictionary_name_weight : 1.0;
  s->dict_threshold = a->dict_threshold >= 0   ? a->dict_threshold
                      : c->has_score_dictionary ? el_score_threshold(c, 1)
                                                : ged_threshold(c, a->threshold);
  el_error err = {0};
  int ngram = a->ngram ? !strcmp(a->ngram, "on") : c->score_dictionary_ngram;
  if (el__dict_load(NULL, &s->dict, &err) ||
      (ngram && el__ged_readers_open_ngram(&s->ngram, &err))) {
    fprintf(stderr, PROG ": %s\n", err.msg);
    return 1;
  }
  return 0;
}

/* The model fits the task: its architecture, and a GLUE task's label count.
 * Prints why not. */
static int model_fits(const el__task *t, const el_config *cfg, const char *model) {
  if (!arch_ok(t, cfg)) {
    fprintf(stderr,
            PROG ": %s is %s%s, task %s needs %s\n", model, el_arch_name(cfg->arch),
            cfg->regression ? " (regression)" : "", t->name,
            t->kind == EL__TASK_GED ? "ElectraForPreTraining or ElectraForTokenClassification"
            : t->kind == EL__TASK_QA ? "ElectraForQuestionAnswering"
            : t->kind == EL__TASK_REG ? "ElectraForSequenceClassification with problem_type regression"
                                      : "ElectraForSequenceClassification");
    return 0;
  }
  if (t->kind == EL__TASK_CLS && t->labels && cfg->num_labels != t->n_labels) {
    fprintf(stderr, PROG ": %s has %d labels, task %s has %d\n", model, cfg->num_labels, t->name,
            t->n_labels);
    return 0;
  }
  return 1;
}

/* Loads the model, reads and featurizes the data, runs the engine over it and
 * prints the metrics as JSON (predictions to --out). Returns the exit status. */
static int run_eval(const el__eval_args *a, const el__task *t) {
  long max_len = a->max_len;
  el_error err = {0};
  el_model *m = NULL;
  el_workspace *ws = NULL;
  el__ft_examples ex = {0};
  el__ft_data d = {0};
  FILE *pf = NULL;
  el__ft_engine_ctx ectx = {0};
  el__ft_shape shape = {0}; /* here: `out` frees its dictionary */
  int status = 1, rc;
  char note[700], js[1024];
  el_load_options lo = {.dtype = (el_dtype)el_dtype_from_name(a->dtype)}; /* checked */
  if ((rc = el_model_load_opts(a->model, &lo, &m, &err))) goto fail;
  const el_config *cfg = el_model_config(m);
  if (!model_fits(t, cfg, a->model)) goto out;
  if (a->correct && (t->kind != EL__TASK_GED || cfg->arch != EL_ARCH_TOKEN_CLS)) {
    fprintf(stderr, PROG ": --correct-label applies to --task ged with an "
            "ElectraForTokenClassification model; %s is %s\n", a->model, el_arch_name(cfg->arch));
    goto out;
  }
  if (max_len > cfg->max_position_embeddings) max_len = cfg->max_position_embeddings;
  el__tsv_columns cols = {a->tcol, a->pcol, a->lcol};
  /* the file's labels: the task's fixed ones (a GLUE model's id2label holds
   * display names such as "negative"), else the model's (tsv) */
  int own = t->kind == EL__TASK_CLS && !t->labels;
  if ((rc = el__ft_read(t, a->data, &cols, own ? cfg->id2label : NULL, own ? cfg->num_labels : 0,
                        (int)a->max_ex, &ex, &err)))
    goto fail;
  el__ft_skip_note(&ex, note, sizeof note);
  if (note[0]) fprintf(stderr, PROG ": %s\n", note);
  shape.max_seq_len = (int)max_len;
  shape.qa = el_qa_default_params();
  shape.qa.max_seq_len = (int)max_len;
  shape.qa.doc_stride = (int)a->stride;
  shape.qa.max_query_len = (int)a->max_query;
  shape.ged_rule = cfg->score_rule;
  if (t->kind == EL__TASK_GED && ged_dictionary(a, cfg, &shape)) goto out;
  const el_tokenizer *tok = el_model_tokenizer(m);
  if ((rc = el__ft_features(&ex, tok, &shape, &d, &err))) goto fail;
  if ((rc = el_workspace_new(m, (int)a->batch * d.max_len, (int)a->batch, &ws, &err))) goto fail;
  ectx = (el__ft_engine_ctx){m, ws, t->kind, -1, NULL, 0};
  if (t->kind == EL__TASK_GED && cfg->arch == EL_ARCH_TOKEN_CLS &&
      (rc = el_correct_label(cfg->id2label, cfg->num_labels, a->correct, &ectx.correct_label, &err)))
    goto fail;
  el__ft_runner runner = {el__ft_engine_run, &ectx};
  if (a->outp && !(pf = fopen(a->outp, "w"))) {
    perror(a->outp);
    goto out;
  }
  el__ft_metrics mt;
  float thr = t->kind == EL__TASK_GED ? ged_threshold(cfg, a->threshold)
              : cfg->has_null_threshold ? cfg->null_threshold : 0.0f;
  if ((rc = el__ft_evaluate(&runner, &ex, &d, &shape, (int)a->batch, 0, thr, pf, &mt, &err)))
    goto fail;
  if (t->squad2 && !cfg->has_null_threshold)
    fprintf(stderr, PROG ": %s has no electra_null_threshold: using 0\n", a->model);
  if (pf && fclose(pf) != 0) {
    pf = NULL;
    perror(a->outp);
    goto out;
  }
  pf = NULL;
  el__ft_metrics_json(t, &mt, 0, js, sizeof js);
  printf("%s\n", js);
  status = 0;
  goto out;
fail:
  fprintf(stderr, PROG ": %s\n", err.msg);
out:
  if (pf) fclose(pf);
  el__ft_engine_ctx_free(&ectx);
  el__dict_free(shape.dict);
  el__ged_readers_close_ngram(&shape.ngram);
  el_workspace_free(ws);
  el__ft_data_free(&d);
  el__ft_examples_free(&ex);
  el_model_free(m);
  return status;
}

/* --m2: corrections against an M2 file (cmd_eval_m2.c). */
static int eval_m2(const el__eval_args *a) {
  if (!a->task || strcmp(a->task, "ged") || a->data) {
    fprintf(stderr, PROG ": --m2 goes with --task ged and without --data (see --help)\n");
    return 2;
  }
  el__eval_m2_args m = {a->m2, a->outp, a->edits, a->max_ex,
                        {a->model, a->generator, a->correct, a->threshold, a->suggest, a->dict_dir,
                         el_dtype_from_name(a->dtype), -1},
                        el__lt_lang_find(a->language ? a->language : "en")->variant};
  el_error err = {0};
  if (el__check_verify_dtype_parse(a->verify_dtype, "--verify-dtype", &m.ck.verify_dtype, &err)) {
    fprintf(stderr, PROG ": %s\n", err.msg);
    return 2;
  }
  return el__eval_m2(&m);
}

void el__eval_args_init(el__eval_args *a) {
  *a = (el__eval_args){.batch = 32, .stride = 128, .max_query = 64, .threshold = -1, .dtype = "fp32",
                       .verify_dtype = "auto",
                       .dict_weight = -1, .dict_threshold = -1, .suggest = -1};
}

/* The option table, on the struct being filled. Long because it is the
 * table: one entry per option, read as data (--help prints it in this order). */
void el__eval_table(el__eval_args *a, el_opt t[EL_EVAL_N_OPTS]) {
  const el_opt d[EL_EVAL_N_OPTS] = {
      {"--task", EL_OPT_STR, &a->task, 0, 0, "TASK", "task; required", 0},
      {"--data", EL_OPT_STR, &a->data, 0, 0, "FILE", "labelled file to score; required", 0},
      {"--model", EL_OPT_STR, &a->model, 0, 0, "DIR", "fine-tuned checkpoint directory; required", 0},
      {"--out", EL_OPT_STR, &a->outp, 0, 0, "FILE", "write predictions here (--m2: the scores, JSON)", 0},
      {"--m2", EL_OPT_STR, &a->m2, 0, 0, "FILE",
       "ged: score corrections against this M2 file's edits instead (no --data)", 0},
      {"--edits", EL_OPT_STR, &a->edits, 0, 0, "FILE",
       "--m2: write the checker's corrections (hunspell's without --model) here as an\n"
       "      M2 file, the hypothesis ERRANT's and the M2 scorer's tools read", 0},
      {"--generator", EL_OPT_STR, &a->generator, 0, 0, "DIR",
       "--m2: the checker's generator (ElectraForMaskedLM, the model's vocabulary;\n"
       "      default: DIR/generator when there is one, else none)", 0},
      {"--dict-dir", EL_OPT_STR, &a->dict_dir, 0, 0, "DIR",
       "--m2: hunspell's en_GB/en_US dictionaries (/usr/share/hunspell)", 0},
      {"--language", EL_OPT_CHOICE, &a->language, 0, 0, "en|en-GB|en-US",
       "--m2: the English checked, by the checker and hunspell alike: en-GB British\n"
       "      spelling (\"favorite\" misspelt, en_GB's suggestions), en-US American, en\n"
       "      either (default: a word en_GB or en_US knows is correct)", 0},
      {"--batch-size", EL_OPT_INT, &a->batch, 1, 4096, "N", "sequences per forward (32)", 0},
      {"--max-seq-len", EL_OPT_INT, &a->max_len, 8, 4096, "N", "tokens per sequence (the task's: 128; 384 squad)", 0},
      {"--doc-stride", EL_OPT_INT, &a->stride, 1, 4096, "N", "QA: context pieces between windows (128)", 0},
      {"--max-query-len", EL_OPT_INT, &a->max_query, 1, 4096, "N", "QA: question pieces kept (64)", 0},
      {"--threads", EL_OPT_INT, &a->threads, 0, 4096, "N", "threads (0 = CPU quota)", 0},
      {"--dtype", EL_OPT_STR, &a->dtype, 0, 0, "fp32|int8",
       "dense-layer arithmetic, as electra-server --dtype (fp32): see the metric an int8\n"
       "      server would give (needs a build with oneDNN)", 0},
      {"--max-examples", EL_OPT_INT, &a->max_ex, 0, 1e9, "N", "score the first N only (all; --m2: sentences)", 0},
      {"--threshold", EL_OPT_FLOAT, &a->threshold, 0, 1, "X",
       "ged: flag words with P(error) >= X (the model's score_threshold, else 0.5, as /score)", 0},
      {"--dictionary", EL_OPT_STR, &a->dict, 0, 0, "on|off",
       "ged: combine the model with hunspell's verdicts as /score does (on when config.json\n"
       "      has score_dictionary_weight); scores under \"dictionary\" in the JSON, beside\n"
       "      the model's own and hunspell's alone", 0},
      {"--ngram", EL_OPT_CHOICE, &a->ngram, 0, 0, "on|off",
       "ged with the dictionary: the English n-gram model's verdicts join hunspell's, as /score\n"
       "      reads them (on when config.json has score_dictionary_ngram)", 0},
      {"--dictionary-weight", EL_OPT_FLOAT, &a->dict_weight, 0, 1, "Q",
       "ged: the dictionary's weight (the model's score_dictionary_weight)", 0},
      {"--verify-dtype", EL_OPT_CHOICE, &a->verify_dtype, 0, 0, "auto|fp32|int8",
       "ged --m2: the checker's verification pass, as electra-train check --verify-dtype:\n"
       "      auto (default) int8 on the engine's own int8 kernels, fp32 on the detector itself", 0},
      {"--suggest-threshold", EL_OPT_FLOAT, &a->suggest, 0, 1, "X",
       "ged --m2: the checker offers replacements only for words with P(error) >= X (as\n"
       "      electra-train check --suggest-threshold: 0.7, or the threshold when higher)", 0},
      {"--dictionary-threshold", EL_OPT_FLOAT, &a->dict_threshold, 0, 1, "X",
       "ged: the combination's threshold (the model's score_dictionary_threshold)", 0},
      {"--correct-label", EL_OPT_STR, &a->correct, 0, 0, "LABEL",
       "ged with an ElectraForTokenClassification model: its \"no error\" label (found by name: "
       "CORRECT, C, O, OK or KEEP); P(error) = 1 - P(LABEL), as /score", 0},
      {"--text-column", EL_OPT_STR, &a->tcol, 0, 0, "NAME|N", "tsv: text column (text)", 0},
      {"--pair-column", EL_OPT_STR, &a->pcol, 0, 0, "NAME|N", "tsv: second text column", 0},
      {"--label-column", EL_OPT_STR, &a->lcol, 0, 0, "NAME|N", "tsv: label column (label)", 0},
  };
  memcpy(t, d, sizeof d);
}

int el__eval_parse(int argc, char **argv, el__eval_args *a) {
  el__eval_args_init(a);
  el_opt t[EL_EVAL_N_OPTS];
  el__eval_table(a, t);
  return el__cli_parse(PROG, t, EL_EVAL_N_OPTS, argc, argv, usage);
}

int el__cmd_eval(int argc, char **argv) {
  el__eval_args a;
  int rc = el__eval_parse(argc, argv, &a);
  if (rc != EL_CLI_OK) return rc == EL_CLI_HELP ? 0 : 2;
  return el__eval_run(&a);
}

/* --dtype: known, and runnable by this build. */
static int dtype_ok(const char *name) {
  int dt = el_dtype_from_name(name);
  if (dt < 0) {
    fprintf(stderr, PROG ": --dtype must be one of fp32|int8, got '%s'\n", name);
    return 0;
  }
  if (!el_dtype_available((el_dtype)dt)) {
    fprintf(stderr, PROG ": --dtype %s: this build has no int8 path (it needs oneDNN: install "
            "libdnnl-dev and rebuild)\n", name);
    return 0;
  }
  return 1;
}

int el__eval_run(const el__eval_args *a) {
  if (!dtype_ok(a->dtype)) return 2;
  if (a->threads > 0) el_set_threads((int)a->threads);
  if (a->m2) return eval_m2(a);
  if (a->language || a->edits) {
    fprintf(stderr, PROG ": %s goes with --m2 (see --help)\n", a->language ? "--language" : "--edits");
    return 2;
  }
  const char *miss = !a->task ? "--task" : !a->data ? "--data" : !a->model ? "--model" : NULL;
  if (miss) {
    fprintf(stderr, PROG ": %s is required (see --help)\n", miss);
    return 2;
  }
  const el__task *t = el__task_find(a->task);
  if (!t) {
    char msg[256];
    fprintf(stderr, PROG ": %s\n", el__task_unknown(a->task, msg, sizeof msg));
    return 2;
  }
  if (a->dict && strcmp(a->dict, "on") && strcmp(a->dict, "off")) {
    fprintf(stderr, PROG ": --dictionary must be on or off, got '%s'\n", a->dict);
    return 2;
  }
  el__eval_args r = *a;
  if (!r.max_len) r.max_len = t->max_seq_len; /* not given: the task's */
  return run_eval(&r, t);
}
