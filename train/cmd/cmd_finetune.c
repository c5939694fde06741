/* electra-train finetune (see --help): option parsing and defaults; the
 * run itself is train/finetune/finetune_run.c.
 *
 * Defaults (docs/MODEL.md §8): layer decay 0.8, warmup 0.1, batch 32, epochs 3
 * (10 for RTE and STS-B, 2 for SQuAD), max_seq_len 128 (384 for QA, doc
 * stride 128, max query 64), weight decay 0.01 (GR code). The learning rate
 * depends on the encoder's width when --lr is not given: 3e-4 up to hidden
 * 256 (ELECTRA-Small and smaller: the paper's Table 7 value for Small, the
 * one behind its published scores; GR's code default 1e-4 is the Base value
 * and trains a small model more slowly), 1e-4 up to 768 (Base), 5e-5 above
 * (Large, which also gets layer decay 0.9). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "el_cli.h"
#include "commands.h"
#include "dist.h"
#include "finetune_run.h"
#include "precision.h"

#define PROG "electra-train finetune"

static void usage(FILE *f) {
  fprintf(f,
          "usage: " PROG " --task TASK --train FILE --dev FILE --init DIR --out DIR [options]\n"
          "       " PROG " --task ged --synthetic-from TEXT... [--dev FILE] --init DIR --out DIR\n\n"
          "Fine-tunes a pretrained ELECTRA encoder (a discriminator directory, a pretrain RUN\n"
          "directory: its discriminator/, or mlm/ for --objective mlm, or any ELECTRA checkpoint:\n"
          "its encoder is loaded, a new head initialised)\n"
          "and writes the best-on-dev checkpoint to DIR plus DIR/eval.json.\n\n"
          "TASK: %s\n"
          "  cola..wnli: GLUE TSV files as distributed; tsv: generic (--text-column ...);\n"
          "  ged: token<TAB|SPACE>c|i per line (-> ElectraForPreTraining: P(replaced) = P(error));\n"
          "       the threshold saved as score_threshold in config.json (applied by /score\n"
          "       when a request gives none) is, with --dev, the one with the best F0.5 there;\n"
          "       on generated dev data (--synthetic-from without --dev), the lowest whose F0.5\n"
          "       is within 2 %% of the best (real errors score lower than generated ones)\n"
          "  squad, squad2: SQuAD JSON (-> ElectraForQuestionAnswering)\n\noptions:\n",
          el__task_names());
  el__ft_args unused;
  el_opt t[EL_FT_N_OPTS];
  el__ft_table(&unused, t);
  el__cli_print_options(f, t, EL_FT_N_OPTS);
  fprintf(f,
          "\nData parallelism: under mpirun -np N (or srun), when built with MPI (make MPI=1),\n"
          "each rank computes batch/N sequences of every batch (--accumulate splits them\n"
          "further), the loss divided by the whole batch's count and dropout keyed by the\n"
          "step and the sequence's place in the batch; the gradients are summed with\n"
          "MPI_Allreduce before the one AdamW step, so the result is one process's up to\n"
          "the order of float additions. Every rank evaluates dev; rank 0 alone writes DIR.\n"
          "Inside one process, --threads N shares the batch out further, over model\n"
          "copies, one per thread (at most 8; the most that divide its sequences evenly),\n"
          "each computing its sequences alone, the copies' gradients summed in order: the\n"
          "same result up to the order of float additions, bit for bit for a given --threads.\n");
}

/* --labels A,B,...: split into v (pointers into a copy in *buf); at least
 * two, none empty, none twice. Prints the error and returns 1 on a bad list. */
static int parse_labels(const char *arg, char **buf, char **v, int max, int *n) {
  *n = 0;
  *buf = strdup(arg);
  if (!*buf) {
    fprintf(stderr, PROG ": out of memory\n");
    return 1;
  }
  for (char *s = *buf;;) {
    char *comma = strchr(s, ',');
    if (comma) *comma = 0;
    if (!*s) {
      fprintf(stderr, PROG ": --labels '%s': an empty label (A,B,...)\n", arg);
      return 1;
    }
    for (int i = 0; i < *n; i++)
      if (!strcmp(v[i], s)) {
        fprintf(stderr, PROG ": --labels '%s': '%s' given twice\n", arg, s);
        return 1;
      }
    if (*n == max) {
      fprintf(stderr, PROG ": --labels: at most %d labels\n", max);
      return 1;
    }
    v[(*n)++] = s;
    if (!comma) break;
    s = comma + 1;
  }
  if (*n < 2) {
    fprintf(stderr, PROG ": --labels '%s': at least two labels (A,B,...)\n", arg);
    return 1;
  }
  return 0;
}

/* The required options, the task and the options that go with it. Prints
 * the error and returns 1 when they do not make a run. */
static int check_args(const el__ft_args *a, const el__task **task, int *rule_id) {
  const char *miss = !a->task                     ? "--task"
                     : !a->train && !a->synth.n ? "--train"
                     : !a->dev && !a->synth.n   ? "--dev"
                     : !a->init                 ? "--init"
                     : !a->out                  ? "--out"
                                                : NULL;
  if (miss) {
    fprintf(stderr, PROG ": %s is required (see --help)\n", miss);
    return 1;
  }
  const el__task *t = *task = el__task_find(a->task);
  if (!t) {
    char msg[256];
    fprintf(stderr, PROG ": %s\n", el__task_unknown(a->task, msg, sizeof msg));
    return 1;
  }
  if (a->synth.n && t->kind != EL__TASK_GED) {
    fprintf(stderr, PROG ": --synthetic-from makes GED data: it needs --task ged\n");
    return 1;
  }
  if (a->synth.n && a->train) {
    fprintf(stderr, PROG ": --synthetic-from and --train are two stages: fine-tune on synthetic data "
                    "first, then --init from that model with --train (electra-train recipe ged does both)\n");
    return 1;
  }
  if (a->joined > 0 && (t->kind != EL__TASK_GED || !a->train)) {
    fprintf(stderr, PROG ": --joined joins the sentences of a GED --train file: it needs --task ged "
                    "and --train (--synthetic-joined is the synthetic data's)\n");
    return 1;
  }
  if ((a->tcol || a->pcol || a->lcol) && (t->kind == EL__TASK_GED || t->kind == EL__TASK_QA)) {
    fprintf(stderr, PROG ": --text/pair/label-column apply to TSV tasks, not %s\n", t->name);
    return 1;
  }
  *rule_id = el_score_rule_from_name(a->rule);
  if (*rule_id < 0) {
    fprintf(stderr, PROG ": --score-aggregation '%s': expected max, first or mean\n", a->rule);
    return 1;
  }
  if (a->labels && strcmp(t->name, "tsv")) {
    fprintf(stderr, PROG ": --labels names the labels of --task tsv; %s has its own\n", t->name);
    return 1;
  }
  return 0;
}

/* The run's options: the command line's, the task's defaults for what it
 * did not give. */
static void fill_opts(el__ft_opts *o, const el__ft_args *a, const el__task *t, int rule_id,
                      char **labels, int n_labels) {
  memset(o, 0, sizeof *o);
  o->ged_rule = (el_score_rule)rule_id;
  o->synth = (el__synth_opts){a->synth.v, a->synth.n, a->synth_n, a->dev ? 0 : a->synth_dev,
                              a->synth_rate, 0, NULL, 0, a->synth_mix, a->synth_coverage, NULL,
                              a->synth_word_share, a->synth_third, a->synth_pairs,
                              a->synth_joined};
  o->task = t;
  o->train = a->train;
  o->dev = a->dev;
  o->init = a->init;
  o->out = a->out;
  o->cols = (el__tsv_columns){a->tcol, a->pcol, a->lcol};
  o->labels = n_labels ? labels : NULL;
  o->n_labels = n_labels;
  o->epochs = a->epochs ? a->epochs : t->epochs;
  o->max_seq_len = a->max_len ? a->max_len : t->max_seq_len;
  o->batch = a->batch;
  o->seed = a->seed;
  o->doc_stride = a->stride;
  o->max_query_len = a->max_query;
  o->threads = a->threads;
  o->max_train = a->max_train;
  o->ged_joined = a->joined;
  o->max_dev = a->max_dev;
  o->log_every = a->log_every;
  o->accumulate = a->accumulate;
  o->lr = a->lr ? a->lr : 3e-4; /* width_defaults() decides when it can read the config */
  o->layer_decay = a->decay ? a->decay : 0.8;
  o->warmup = a->warmup;
  o->weight_decay = a->wd;
  o->average_weights = a->average;
  o->random_init = a->random_init;
  o->overwrite = a->overwrite;
  o->dictionary = a->dictionary;
  o->ngram = a->ngram;
  o->time_limit = a->time_limit;
}

/* Width-dependent defaults (the file's comment) need the encoder's config:
 * read it cheaply when --lr, --layer-decay or --max-seq-len is not given.
 * A load failure is reported by the run itself. */
static void width_defaults(el__ft_opts *o, const el__ft_args *a) {
  const int lr_given = a->lr > 0, decay_given = a->decay > 0, len_given = a->max_len > 0;
  if (lr_given && decay_given && len_given) return;
  char dir[4096];
  el__ft_resolve_model_dir(a->init, dir, sizeof dir);
  el_config c;
  el_error e = {0};
  if (el__config_load(dir, &c, &e) != 0) return; /* config.json alone: no weights read */
  const int h = c.hidden_size, maxpos = c.max_position_embeddings;
  el__config_free(&c);
  if (!lr_given) o->lr = h <= 256 ? 3e-4 : h <= 768 ? 1e-4 : 5e-5;
  if (!decay_given && h > 768) o->layer_decay = 0.9;
  if (!len_given && o->max_seq_len > maxpos) {
    fprintf(stderr, PROG ": max_seq_len %ld capped to the model's %d positions\n", o->max_seq_len,
            maxpos);
    o->max_seq_len = maxpos;
  }
}

/* The run on this rank (dist.h): the batch split checked, the other ranks'
 * log discarded (rank 0's says it all), a failure on one rank ends all. */
static int run_ranks(const el__ft_opts *o, el__ft_result *res) {
  el_error err = {0};
  if (el__dist_init(&err)) {
    fprintf(stderr, PROG ": %s\n", err.msg);
    return 1;
  }
  const int rank = el__dist_rank(), ranks = el__dist_size();
  const long parts = (long)ranks * o->accumulate;
  int rc = 0;
  if (o->batch % parts) {
    if (!rank)
      fprintf(stderr,
              PROG ": --batch-size %ld (the global batch) must divide evenly into %d rank(s) x "
              "--accumulate %ld = %ld micro-batches\n",
              o->batch, ranks, o->accumulate, parts);
    rc = 1;
  } else {
    FILE *quiet = rank ? fopen("/dev/null", "w") : NULL;
    if (!rank && parts > 1)
      fprintf(stderr, "finetune: data parallel: %d rank(s) x %ld accumulation step(s) x %ld sequences\n",
              ranks, o->accumulate, o->batch / parts);
    if (el__ft_run(o, quiet ? quiet : stderr, res, &err)) {
      if (ranks > 1) {
        fprintf(stderr, PROG " (rank %d of %d): %s; stopping every rank\n", rank, ranks, err.msg);
        el__dist_abort(1);
      }
      fprintf(stderr, PROG ": %s\n", err.msg);
      rc = 1;
    }
    if (quiet) fclose(quiet);
  }
  el__dist_finalize();
  return rc;
}

/* The option table, on the struct being filled (el_opt destinations are
 * pointers). Long because it is the table: one entry per option, read as
 * data (--help prints it in this order). */
void el__ft_table(el__ft_args *a, el_opt t[EL_FT_N_OPTS]) {
  const el_opt d[EL_FT_N_OPTS] = {
      {"--task", EL_OPT_STR, &a->task, 0, 0, "TASK", "task (see above); required", 0},
      {"--train", EL_OPT_STR, &a->train, 0, 0, "FILE", "training file; required", 0},
      {"--dev", EL_OPT_STR, &a->dev, 0, 0, "FILE", "dev file, evaluated after each epoch; required", 0},
      {"--init", EL_OPT_STR, &a->init, 0, 0, "DIR", "pretrained model directory; required", 0},
      {"--out", EL_OPT_STR, &a->out, 0, 0, "DIR",
       "output checkpoint directory (not one holding a model); required", 0},
      {"--overwrite", EL_OPT_FLAG, &a->overwrite, 0, 0, NULL,
       "replace a model already in --out", 0},
      {"--epochs", EL_OPT_INT, &a->epochs, 1, 1000, "N", "epochs (3; 10 rte/stsb; 2 squad)", 0},
      {"--lr", EL_OPT_FLOAT, &a->lr, 1e-9, 1, "X", "peak LR (3e-4 hidden<=256, 1e-4 base, 5e-5 large)", 0},
      {"--batch-size", EL_OPT_INT, &a->batch, 1, 4096, "N", "sequences per step, the global batch of all ranks and accumulation steps (32)", 0},
      {"--accumulate", EL_OPT_INT, &a->accumulate, 1, 4096, "N",
       "gradient accumulation: each rank computes its share of a batch in N micro-batches before "
       "the one optimizer step; the same result up to float rounding (1)", 0},
      {"--max-seq-len", EL_OPT_INT, &a->max_len, 8, 4096, "N", "tokens per sequence (128; 384 squad)", 0},
      {"--layer-decay", EL_OPT_FLOAT, &a->decay, 0.01, 1, "X", "layer-wise LR decay (0.8; 0.9 large)", 0},
      {"--warmup-proportion", EL_OPT_FLOAT, &a->warmup, 0, 1, "X", "warmup share of the steps (0.1)", 0},
      {"--weight-decay", EL_OPT_FLOAT, &a->wd, 0, 1, "X", "decoupled weight decay (0.01)", 0},
      {"--average-weights", EL_OPT_FLOAT, &a->average, 0, 0.99999, "D",
       "dev and the saved checkpoint read an exponential moving average of the weights with "
       "decay D (0.999: about the last thousand steps; 0 = the last step's weights) (0)", 0},
      {"--seed", EL_OPT_INT, &a->seed, 0, 1e15, "N", "seed of init, shuffle, dropout (0)", 0},
      {"--doc-stride", EL_OPT_INT, &a->stride, 1, 4096, "N", "QA: context pieces between windows (128)", 0},
      {"--max-query-len", EL_OPT_INT, &a->max_query, 1, 4096, "N", "QA: question pieces kept (64)", 0},
      {"--threads", EL_OPT_INT, &a->threads, 0, 4096, "N", "threads (0 = CPU quota); each batch is shared out over model copies, one per thread (see below)", 0},
      {"--precision", EL_OPT_CHOICE, &a->precision, 0, 0, EL_PRECISION_CHOICES, EL_PRECISION_HELP "; dev is evaluated in fp32 as the server reads it", 0},
      {"--random-init", EL_OPT_FLAG, &a->random_init, 0, 0, NULL,
       "keep a random encoder of the --init shape (baseline)", 0},
      {"--dictionary", EL_OPT_FLAG, &a->dictionary, 0, 0, NULL,
       "ged: combine hunspell's verdicts with the model as /score does; dev calibrates the "
       "dictionary's weight and the combination's threshold, saved in config.json", 0},
      {"--ngram", EL_OPT_FLAG, &a->ngram, 0, 0, NULL,
       "ged with --dictionary: an English trigram model (Debian's pocketsphinx-en-us) reads beside\n"
       "      hunspell: a word for which another preposition, form or an added article is far\n"
       "      likelier counts as one the dictionary rejects (docs/GED.md)", 0},
      {"--text-column", EL_OPT_STR, &a->tcol, 0, 0, "NAME|N", "tsv: text column (text)", 0},
      {"--pair-column", EL_OPT_STR, &a->pcol, 0, 0, "NAME|N", "tsv: second text column (none)", 0},
      {"--label-column", EL_OPT_STR, &a->lcol, 0, 0, "NAME|N", "tsv: label column (label)", 0},
      {"--labels", EL_OPT_STR, &a->labels, 0, 0, "A,B,...",
       "tsv: the labels in this order (ids 0, 1, ...; the model's id2label names); a row with "
       "another label is an error (default: the training file's labels, sorted)", 0},
      {"--max-train-examples", EL_OPT_INT, &a->max_train, 0, 1e9, "N", "use the first N only (all)", 0},
      {"--max-dev-examples", EL_OPT_INT, &a->max_dev, 0, 1e9, "N", "use the first N only (all)", 0},
      {"--log-every", EL_OPT_INT, &a->log_every, 0, 1e9, "N", "progress line every N steps (50)", 0},
      {"--time-limit", EL_OPT_DURATION, &a->time_limit, 0, 1e9, "T",
       "plan the LR schedule (warmup share, decay to 0) so that the run ends by T: 90s, 10m; "
       "T counts from the start, loading the data and the final dev evaluation and save "
       "included (a trial save before training times the last); the epochs still bound it "
       "(give more --epochs to let T decide); the last epoch may be partial and is evaluated "
       "on dev (none)", 0},
      {"--score-aggregation", EL_OPT_STR, &a->rule, 0, 0, "RULE",
       "ged: a word's P(error) from its pieces, in training, eval and /score: max (every piece "
       "labelled, the word flagged if any piece is; default), first (first piece only), mean", 0},
      {"--synthetic-from", EL_OPT_STRS, &a->synth, 0, 0, "PATH...",
       "ged: train on clean text from these files with generated learner errors instead of --train", 0},
      {"--synthetic-sentences", EL_OPT_INT, &a->synth_n, 1, 1e8, "N",
       "ged: synthetic training sentences, a uniform sample of the files (200000)", 0},
      {"--synthetic-rate", EL_OPT_FLOAT, &a->synth_rate, 0.001, 1, "X",
       "ged: expected learner errors per word (0.12; FCE has ~0.10)", 0},
      {"--synthetic-mix", EL_OPT_STR, &a->synth_mix, 0, 0, "TYPE=X,...",
       "ged: scale error types' shares: R:SPELL=0.5,M:DET=2 (0 turns a type off; "
       "electra-train corrupt --help lists the types)", 0},
      {"--synthetic-dev", EL_OPT_INT, &a->synth_dev, 1, 1e7, "N",
       "ged: held-out synthetic sentences for dev when --dev is not given (5000)", 0},
      {"--synthetic-coverage", EL_OPT_FLOAT, &a->synth_coverage, 0.01, 1, "X",
       "ged: the share of real learner errors the generated types stand for; calibration on "
       "synthetic dev counts the rest as missed, as real text would (0.60 uncased, 0.63 cased: "
       "the generated types' share of FCE's edits; 1 = the generated errors alone)", 0},
      {"--synthetic-max-word-share", EL_OPT_FLOAT, &a->synth_word_share, 0.01, 1, "X",
       "ged: at most this share of a word's occurrences are made errors, so no word is suspect "
       "by itself (0.08; FCE: 6 % of \"was\", 10 % of commas)", 0},
      {"--synthetic-third-person", EL_OPT_FLOAT, &a->synth_third, 0, 1, "X",
       "ged: share of sentence copies whose \"I/you/we/they + verb\" becomes \"he/she/it + verb-s\" "
       "before errors are added, so agreement errors go both ways (0.5; 0 = none)", 0},
      {"--synthetic-agreement-pairs", EL_OPT_FLOAT, &a->synth_pairs, 0, 1, "X",
       "ged: share of sentence copies with a verb after he/she/it given as a pair, one "
       "agreement error there (\"she go\") and the same sentence correct, so the verb's form is "
       "learnt rather than its place (0.4; 0 = none)", 0},
      {"--joined", EL_OPT_FLOAT, &a->joined, 0, 1, "X",
       "ged with --train: share of its sentences also trained on joined to the sentence before "
       "them in the file, one unit of two, as /score reads a text of several (0 = single "
       "sentences only; recipe ged gives 0.15)", 0},
      {"--synthetic-joined", EL_OPT_FLOAT, &a->synth_joined, 0, 1, "X",
       "ged: share of sentences also kept joined to the sentence before them in their file, "
       "one unit of two, so a full stop between sentences is not read as an error (0.15; "
       "0 = single sentences only)", 0},
  };
  memcpy(t, d, sizeof d);
}

void el__ft_args_init(el__ft_args *a) {
  *a = (el__ft_args){.batch = 32, .accumulate = 1, .stride = 128, .max_query = 64, .log_every = 50,
                     .warmup = 0.1, .wd = 0.01, .rule = "max", .synth_n = 200000, .synth_dev = 5000,
                     .synth_rate = 0.12, .synth_third = EL__SYNTH_THIRD_PERSON,
                     .synth_pairs = EL__SYNTH_AGREEMENT_PAIRS, .synth_joined = EL__SYNTH_JOINED};
}

int el__finetune_parse(int argc, char **argv, el__ft_args *a) {
  el__ft_args_init(a);
  el_opt t[EL_FT_N_OPTS];
  el__ft_table(a, t);
  return el__cli_parse(PROG, t, EL_FT_N_OPTS, argc, argv, usage);
}

/* Check, fill the run's options, run. */
int el__finetune_run(const el__ft_args *a, el__ft_result *res) {
  const el__task *t = NULL;
  int rule_id = 0, n_labels = 0;
  char *label_buf = NULL, *label_v[256];
  if (check_args(a, &t, &rule_id) ||
      (a->labels && parse_labels(a->labels, &label_buf, label_v, 256, &n_labels))) {
    free(label_buf);
    return 2;
  }
  el_error err = {0};
  if (el__precision_apply(a->precision, &err)) {
    fprintf(stderr, PROG ": %s\n", err.msg);
    free(label_buf);
    return 2;
  }
  el__ft_opts o;
  fill_opts(&o, a, t, rule_id, label_v, n_labels);
  width_defaults(&o, a);
  int rc = run_ranks(&o, res);
  free(label_buf);
  return rc;
}

int el__cmd_finetune(int argc, char **argv) {
  el__ft_args a;
  int rc = el__finetune_parse(argc, argv, &a);
  if (rc != EL_CLI_OK) return rc == EL_CLI_HELP ? 0 : 2;
  el__ft_result res;
  return el__finetune_run(&a, &res);
}
