/* electra-train recipe ged: one command from plain text (and, optionally, a
 * GED training set) to a model that /score serves.
 *
 * Stages, each an ordinary electra-train command: its options struct filled
 * here and its run function called in this process, after printing the
 * command line that gives the same options (from the command's option
 * table, so a user can re-run or change any one of them):
 *   1. vocab     a WordPiece vocabulary from the corpus (unless --vocab)
 *      speed     (only with --train) a 1-step pretraining and a few seconds of
 *                GED fine-tuning time an epoch of the GED file, which caps
 *                stage 4's share (stage_probe, cap_real_share)
 *   2. pretrain  ELECTRA with learner errors among the replaced tokens
 *   3. synthetic GED fine-tuning on the corpus with generated learner errors
 *   4. ged       fine-tuning on the given GED files (only with --train)
 * Each fine-tuning stage calibrates its threshold on its dev data (the
 * synthetic stage on held-out synthetic sentences unless --dev is given),
 * and the last stage writes DIR. The time budget is split between the
 * training stages (time_share below); each plans its learning-rate schedule
 * to end at its share. Intermediate runs stay in DIR.work/ for inspection. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <cJSON.h>

#include "el_cli.h"
#include "trainer_api.h"
#include "commands.h"
#include "data_learner_text.h"
#include "finetune.h"
#include "ged_quality.h"
#include "precision.h"
#include "progress.h"

#define PROG "electra-train recipe ged"
/* The GED stage's epochs at most: its time plan decides within them and dev
 * picks the best. The dev score had long flattened by then (13 epochs at 60
 * minutes chose epoch 6; 140 minutes chose 19 epochs), so a budget that
 * could pay for more goes to pretraining instead (cap_real_share). */
#define REAL_EPOCHS 20
/* The share of the GED file's sentences also trained on joined to the one
 * before them (finetune --joined): /score reads a text of several sentences
 * as one sequence. On FCE dev read 3 and 5 sentences at a time the one-hour
 * model alone gained 0.016-0.018 F0.5 (0.509 -> 0.525), sentence by sentence
 * it moved 0.002 (docs/RESULTS.md). */
#define REAL_JOINED 0.15
/* The speed measurement: pretraining text cut from the corpus, and seconds
 * of GED fine-tuning timed. */
#define PROBE_TEXT_BYTES (256 << 10)
#define PROBE_SECONDS 8
/* --pretrain-learner-text's default with --train: at one hour on two cores
 * the FCE model alone gained ~0.018 F0.5 on dev at every epoch of the GED
 * stage (docs/RESULTS.md) */
#define LEARNER_TEXT 0.08
#define SYNTH_PER_SECOND 2000 /* generated sentences per second of the synthetic stage */

/* The command line's values. */
typedef struct recipe_args {
  el_strlist corpus, synth_corpus;
  const char *out, *train, *dev, *vocab, *preset, *mix, *position, *precision;
  double time;
  long threads, vocab_size, seed, synth_sentences;
  double rate, pretrain_corruption, pretrain_share, pairs, joined; /* share, pairs, joined: -1 = not given */
  double learner_text; /* share of the pretraining text from --train's correct sentences (0: none;
                          < 0 until given: LEARNER_TEXT with --train, else 0) */
  int cased, plan_only, overwrite, dictionary, ngram;
} recipe_args;

/* relative_key by default: with FCE data 10 minutes gave 0.373 / 0.363 against 0.341 / 0.347
 * absolute, and without it agreement is learnt only at a sentence's start (docs/RESULTS.md §1b) */
static void recipe_defaults(recipe_args *a) {
  *a = (recipe_args){.preset = "tiny", .position = "relative_key", .time = 600, .vocab_size = 8192,
                     .seed = 1, .rate = 0.12, .pretrain_corruption = 0.1, .pretrain_share = -1,
                     .pairs = -1, .joined = -1, .learner_text = -1};
}

enum { N_OPTS = 26 };
/* One entry per option, read as data; --help lists them in this order. */
static void recipe_table(recipe_args *a, el_opt t[N_OPTS]) {
  const el_opt d[N_OPTS] = {
      {"--out", EL_OPT_STR, &a->out, 0, 0, "DIR", "the GED model to write (served by /score); required", 0},
      {"--corpus", EL_OPT_STRS, &a->corpus, 0, 0, "PATH...", "plain English text for pretraining and synthetic errors; required", 0},
      {"--train", EL_OPT_STR, &a->train, 0, 0, "FILE", "GED training file (token c|i per line); adds stage 4", 0},
      {"--dev", EL_OPT_STR, &a->dev, 0, 0, "FILE", "GED dev file: calibrates the threshold (needed with --train)", 0},
      {"--time-limit", EL_OPT_DURATION, &a->time, 10, 1e7, "T", "whole budget, split between the stages (10m)", 0},
      {"--threads", EL_OPT_INT, &a->threads, 0, 4096, "N", "threads (0 = CPU quota); the training stages share each batch out over model copies, one per thread", 0},
      {"--precision", EL_OPT_CHOICE, &a->precision, 0, 0, EL_PRECISION_CHOICES, "the training stages' matrix products (see electra-train pretrain --help; auto)", 0},
      {"--preset", EL_OPT_CHOICE, &a->preset, 0, 0, "tiny|mini|small|base|large", "model size (tiny)", 0},
      {"--position-embedding", EL_OPT_CHOICE, &a->position, 0, 0, "absolute|relative_key", "the model's positions (relative_key; absolute is the paper's; see electra-train pretrain --help)", 0},
      {"--vocab", EL_OPT_STR, &a->vocab, 0, 0, "FILE", "use this vocabulary instead of learning one", 0},
      {"--vocab-size", EL_OPT_INT, &a->vocab_size, 64, 1 << 20, "N", "entries of the learned vocabulary (8192)", 0},
      {"--synthetic-corpus", EL_OPT_STRS, &a->synth_corpus, 0, 0, "PATH...", "text for the synthetic stage (the --corpus files)", 0},
      {"--synthetic-sentences", EL_OPT_INT, &a->synth_sentences, 0, 1e8, "N", "synthetic sentences (0: 2000 per second of the stage, at least 200000)", 0},
      {"--synthetic-rate", EL_OPT_FLOAT, &a->rate, 0.001, 1, "X", "learner errors per word in the synthetic stage (0.12)", 0},
      {"--synthetic-agreement-pairs", EL_OPT_FLOAT, &a->pairs, 0, 1, "X", "share of synthetic copies shown as an agreement error and its correct twin (see electra-train finetune --help)", 0},
      {"--synthetic-joined", EL_OPT_FLOAT, &a->joined, 0, 1, "X", "share of synthetic sentences also kept joined to the one before them (see electra-train finetune --help)", 0},
      {"--synthetic-mix", EL_OPT_STR, &a->mix, 0, 0, "TYPE=X,...", "scale error types' shares in the synthetic stage: R:SPELL=0.5 (see electra-train corrupt --help)", 0},
      {"--pretrain-corruption", EL_OPT_FLOAT, &a->pretrain_corruption, 0, 1, "X", "learner errors per token in pretraining (0.1; 0 = plain ELECTRA)", 0},
      {"--pretrain-learner-text", EL_OPT_FLOAT, &a->learner_text, 0, 0.5, "X", "with --train: this share of the pretraining text is the training file's sentences without an error, repeated (the learners' own domain; 0 = none; 0.08 with --train, measured in docs/RESULTS.md, else 0); not in the synthetic stage", 0},
      {"--pretrain-share", EL_OPT_FLOAT, &a->pretrain_share, 0.05, 0.95, "X", "share of the budget for pretraining (0.45; 0.5 with --train)", 0},
      {"--dictionary", EL_OPT_FLAG, &a->dictionary, 0, 0, NULL, "combine hunspell's verdicts with the model (finetune --dictionary): weight and threshold calibrated on dev, in config.json", 0},
      {"--ngram", EL_OPT_FLAG, &a->ngram, 0, 0, NULL, "with --dictionary: an English n-gram model reads beside hunspell (finetune --ngram)", 0},
      {"--cased", EL_OPT_FLAG, &a->cased, 0, 0, NULL, "learn a cased vocabulary (case errors and names visible to the model)", 0},
      {"--seed", EL_OPT_INT, &a->seed, 0, 1e15, "N", "seed of every stage (1)", 0},
      {"--plan-only", EL_OPT_FLAG, &a->plan_only, 0, 0, NULL, "print how the budget will be split (after the vocabulary and, with --train, the speed measurement) and stop", 0},
      {"--overwrite", EL_OPT_FLAG, &a->overwrite, 0, 0, NULL, "replace the model in DIR and the stages in DIR.work (otherwise a DIR that holds a model, or an existing DIR.work, is refused before any work)", 0},
  };
  memcpy(t, d, sizeof d);
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: " PROG " --out DIR --corpus FILE... [--train GED_TRAIN --dev GED_DEV]\n"
          "                                [--time-limit T] [--threads N] [options]\n\n"
          "Builds a grammatical-error-detection model in one command: a vocabulary, ELECTRA\n"
          "pretraining (relative positions) with learner errors among the replaced tokens,\n"
          "fine-tuning on the corpus with generated learner errors (determiners, prepositions,\n"
          "verb forms, agreement, noun number, spelling, word order, missing and extra words),\n"
          "then, with --train, fine-tuning on real GED data. Every fine-tuning stage stores\n"
          "its F0.5-best threshold in config.json. DIR serves through /score unchanged:\n"
          "  electra-server --model ged=DIR\n"
          "Intermediate runs go to DIR.work/. The budget is split: without --train 45%%\n"
          "pretraining, 55%% synthetic; with it 50%% / 20%% / 30%%, the GED stage's share\n"
          "capped at what %d epochs of the training file take (measured before pretraining\n"
          "on a model of the same shape), the rest going to pretraining.\n\noptions:\n",
          REAL_EPOCHS);
  recipe_args unused;
  el_opt t[N_OPTS];
  recipe_table(&unused, t);
  el__cli_print_options(f, t, N_OPTS);
}


/* Paths, budget and progress shared by the stages. */
typedef struct recipe {
  const recipe_args *a;
  char work[4200], vocab[4300], run[4300], synth_dir[4300], words[4300], learner_text[4300];
  el_strlist pre_inputs; /* the vocabulary's and pretraining's text: the corpus (and learner_text) */
  double pre, syn, real; /* each stage's share of the budget, seconds */
  double deadline;       /* el__mono_s() by which the recipe must end */
  double ts[4];          /* time each stage took: vocabulary, pretraining, synthetic, real data */
  double t_probe, epoch_s; /* the speed measurement: its time, one GED epoch's (0: none) */
  double moved;          /* of the GED stage's share, what went to pretraining */
  el__ft_result syn_res, real_res; /* the fine-tuning stages' outcomes */
  int k, n_stages;       /* stages done, in all */
} recipe;

/* Announces the next stage and prints the command line of its options t
 * (the table over the stage's values; d: the same over the command's
 * defaults): what a user types to run the stage alone. */
static void announce(recipe *r, const char *what, double budget, const char *cmd, const el_opt *t,
                     const el_opt *d, int n) {
  char dur[32];
  fprintf(stderr, "\n" PROG ": stage %d/%d: %s", ++r->k, r->n_stages, what);
  if (budget > 0) fprintf(stderr, " (%s)", el__format_duration(budget, dur, sizeof dur));
  fprintf(stderr, "\n  electra-train %s", cmd);
  el__cli_print_command(stderr, t, d, n);
  fprintf(stderr, "\n");
}

static int run_pretrain(recipe *r, const char *what, double budget, el__pt_args *a) {
  el__pt_args dflt;
  el__pt_args_init(&dflt);
  el_opt t[EL_PT_N_OPTS], d[EL_PT_N_OPTS];
  el__pt_cli_table(a, t);
  el__pt_cli_table(&dflt, d);
  announce(r, what, budget, "pretrain", t, d, EL_PT_N_OPTS);
  return el__pretrain_run(a);
}

static int run_finetune(recipe *r, const char *what, double budget, el__ft_args *a,
                        el__ft_result *res) {
  el__ft_args dflt;
  el__ft_args_init(&dflt);
  el_opt t[EL_FT_N_OPTS], d[EL_FT_N_OPTS];
  el__ft_table(a, t);
  el__ft_table(&dflt, d);
  announce(r, what, budget, "finetune", t, d, EL_FT_N_OPTS);
  return el__finetune_run(a, res);
}

/* The options every stage shares; GED fine-tuning (task ged, init) for
 * the fine-tuning stages. */
static void pretrain_common(const recipe *r, el__pt_args *p) {
  el__pt_args_init(p);
  p->vocab = r->vocab;
  p->preset = r->a->preset;
  p->position = r->a->position;
  p->threads = r->a->threads;
  p->precision = r->a->precision;
  p->seed = r->a->seed;
}
static void ged_common(const recipe *r, el__ft_args *f, const char *init) {
  el__ft_args_init(f);
  f->task = "ged";
  f->init = init;
  f->threads = r->a->threads;
  f->precision = r->a->precision;
  f->seed = r->a->seed;
}

static void report_stage(const char *name, const char *dir, double seconds, const el__ft_result *res) {
  char d[32];
  const el__ft_metrics *m = &res->dev;
  fprintf(stderr, "  %-10s %-9s dev F0.5 %.3f (P %.3f R %.3f) at threshold %.4g  %s\n", name,
          el__format_duration(seconds, d, sizeof d), m->f05, m->precision, m->recall, m->threshold,
          dir);
}

static int check_args(const recipe_args *a) {
  const char *miss = !a->out ? "--out" : !a->corpus.n ? "--corpus" : NULL;
  if (miss) {
    fprintf(stderr, PROG ": %s is required (see --help)\n", miss);
    return 2;
  }
  if (a->train && !a->dev) {
    fprintf(stderr, PROG ": --train needs --dev (the threshold is calibrated on it)\n");
    return 2;
  }
  if (a->learner_text > 0 && !a->train) {
    fprintf(stderr, PROG ": --pretrain-learner-text needs --train (its sentences are the text)\n");
    return 2;
  }
  el_error err = {0}; /* before any work: the stages apply it again */
  if (el__precision_apply(a->precision, &err)) {
    fprintf(stderr, PROG ": %s\n", err.msg);
    return 2;
  }
  return 0;
}

/* Shares of the budget: pretraining, synthetic, real GED data. */
static void time_share(const recipe_args *a, double *pre, double *syn, double *real) {
  double p = a->pretrain_share > 0 ? a->pretrain_share : a->train ? 0.50 : 0.45;
  *pre = p * a->time;
  if (a->train) { /* the rest: 2/5 synthetic, 3/5 real data */
    *syn = 0.4 * (1 - p) * a->time;
    *real = 0.6 * (1 - p) * a->time;
  } else {
    *syn = (1 - p) * a->time;
    *real = 0;
  }
}

/* Stage 1 (unless --vocab): a WordPiece vocabulary from the corpus. */
static int stage_vocab(recipe *r) {
  snprintf(r->words, sizeof r->words, "%s/word_counts.txt", r->work);
  el__vocab_args v, dflt;
  el__vocab_args_init(&v);
  el__vocab_args_init(&dflt);
  v.inputs = r->pre_inputs;
  v.word_counts = r->words; /* the checker's word frequencies (keep_word_counts) */
  v.no_lower_case = r->a->cased;
  if (r->a->vocab) {
    snprintf(r->vocab, sizeof r->vocab, "%s", r->a->vocab);
    return el__vocab_run(&v); /* the counts alone */
  }
  snprintf(r->vocab, sizeof r->vocab, "%s/vocab.txt", r->work);
  v.vocab_size = r->a->vocab_size;
  v.out = r->vocab;
  v.british = 1; /* the synthetic stage writes half its sentences so (text_variants.h) */
  el_opt t[EL_VOCAB_N_OPTS], d[EL_VOCAB_N_OPTS];
  el__vocab_table(&v, t);
  el__vocab_table(&dflt, d);
  double s = el__mono_s();
  announce(r, "vocabulary", 0, "vocab", t, d, EL_VOCAB_N_OPTS);
  int rc = el__vocab_run(&v);
  r->ts[0] = el__mono_s() - s;
  r->pre -= r->ts[0]; /* the vocabulary's time comes out of pretraining's share */
  return rc;
}

/* What the recipe has after its last stage (quality.json, the report, the
 * process's exit): kept out of the last stage's time. */
#define END_RESERVE 0.3

/* Seconds until the recipe's deadline. Each training stage's time is
 * reckoned from it, so what a stage or the work between stages took beyond
 * plan (a cold disk, a slower final save) comes out of the stages after
 * it, not out of the budget. */
static double time_left(const recipe *r) { return r->deadline - el__mono_s(); }

/* A stage's time: its share, at least 5 s (the vocabulary and the speed
 * measurement may have taken a small budget's whole share). */
static double stage_seconds(double share) { return share > 5 ? share : 5; }

/* A stage's --time-limit: stage_seconds() in whole seconds, so that the
 * printed command line gives the stage exactly its limit; rounded down, so
 * that the stages end within the budget (the next stage gets the rest). */
static double stage_limit(double share) { return floor(stage_seconds(share)); }

/* The speed measurement's pretraining text: the corpus's first bytes. */
static int write_probe_text(const el_strlist *corpus, const char *path) {
  FILE *out = fopen(path, "wb");
  if (!out) return -1;
  static char buf[1 << 16];
  long left = PROBE_TEXT_BYTES;
  for (int i = 0; i < corpus->n && left > 0; i++) {
    FILE *in = fopen(corpus->v[i], "rb");
    size_t n;
    while (in && left > 0 && (n = fread(buf, 1, left < (long)sizeof buf ? (size_t)left : sizeof buf, in)) > 0) {
      fwrite(buf, 1, n, out);
      left -= (long)n;
    }
    if (in) fclose(in);
    fputc('\n', out);
  }
  return fclose(out) ? -1 : 0;
}

/* Seconds per epoch of the GED training file from a finetune run's outcome
 * (train_seconds / steps x steps_per_epoch), or 0. */
static double epoch_seconds(const el__ft_result *res) {
  return res->train_seconds > 0 && res->steps > 0 && res->steps_per_epoch > 0
             ? res->train_seconds / (double)res->steps * (double)res->steps_per_epoch
             : 0;
}

/* The most the GED stage can use: REAL_EPOCHS epochs and a tenth more (its dev
 * evaluations, the step time's drift); beyond that its time plan would end
 * the stage early. Unbounded when the epoch time was not measured. */
static double real_cap(const recipe *r) {
  return r->epoch_s > 0 ? REAL_EPOCHS * r->epoch_s * 1.1 : HUGE_VAL;
}

/* Caps the GED stage's share at real_cap(); the rest goes to pretraining,
 * which would otherwise have nothing after it to use it. */
static void cap_real_share(recipe *r) {
  const double need = real_cap(r);
  if (r->real <= need) return;
  r->moved = r->real - need;
  r->pre += r->moved;
  r->real = need;
}

/* The speed measurement's two runs: one pretraining step on text gives a
 * model of the shape (init), a few seconds of fine-tuning from it the step
 * time (into *res). */
static int probe_runs(recipe *r, char *text, const char *init, const char *ft, el__ft_result *res) {
  el__pt_args p;
  pretrain_common(r, &p);
  char *inputs[] = {text};
  p.inputs = (el_strlist){inputs, 1};
  p.out = init;
  p.max_steps = 1;
  el__ft_args f;
  ged_common(r, &f, init);
  f.train = r->a->train;
  f.joined = REAL_JOINED; /* the epoch the GED stage will run */
  f.dev = r->a->dev;
  f.max_dev = 64;
  f.random_init = 1;
  f.out = ft;
  f.overwrite = r->a->overwrite;
  f.epochs = 1;
  f.log_every = 0;
  f.time_limit = PROBE_SECONDS;
  int rc = run_pretrain(r, "a model of this shape, for the speed measurement", 0, &p);
  if (!rc) rc = run_finetune(r, "GED fine-tuning speed", PROBE_SECONDS, &f, res);
  return rc;
}

/* Stages 2-3 (with --train): how long a GED epoch takes on this shape and
 * thread count, measured before pretraining takes its share: one
 * pretraining step on a slice of the corpus gives a model of the shape, a
 * few seconds of fine-tuning from it (random init, as fast as pretrained)
 * the step time. */
static int stage_probe(recipe *r) {
  char dir[4400], text[4500], init[4500], ft[4500];
  snprintf(dir, sizeof dir, "%s/speed", r->work);
  snprintf(text, sizeof text, "%s/text.txt", dir);
  snprintf(init, sizeof init, "%s/model", dir);
  snprintf(ft, sizeof ft, "%s/ged", dir);
  el_error err = {0};
  double s = el__mono_s();
  el__remove_tree(dir); /* an earlier measurement (--plan-only, say): its runs would refuse --out */
  if (el__mkdirs(dir, &err) || write_probe_text(&r->a->corpus, text)) {
    fprintf(stderr, PROG ": cannot write %s: %s\n", text, err.msg[0] ? err.msg : "I/O error");
    return 1;
  }
  el__ft_result res;
  int rc = probe_runs(r, text, init, ft, &res);
  r->t_probe = el__mono_s() - s;
  r->pre -= r->t_probe; /* out of pretraining's share, like the vocabulary's time */
  if (rc) return rc;
  if ((r->epoch_s = epoch_seconds(&res)) <= 0)
    fprintf(stderr, PROG ": warning: no step time measured in %s; the shares stay as planned\n", ft);
  cap_real_share(r);
  return 0;
}

/* The budget as it will be spent (the synthetic and GED stages also get
 * what the stage before them leaves). */
static void print_plan(const recipe *r) {
  char d[3][32];
  double pre = stage_seconds(r->pre), syn = stage_seconds(r->syn), real = stage_seconds(r->real);
  fprintf(stderr, "\n" PROG ": plan: pretraining %.0f s (%s), synthetic GED %.0f s (%s)", pre,
          el__format_duration(pre, d[0], sizeof d[0]), syn, el__format_duration(syn, d[1], sizeof d[1]));
  if (r->a->train) fprintf(stderr, ", GED fine-tuning %.0f s (%s)", real, el__format_duration(real, d[2], sizeof d[2]));
  fprintf(stderr, "\n");
  if (r->epoch_s > 0)
    fprintf(stderr, "  a GED epoch takes %.1f s (measured): %d epochs at most, %.0f s of the GED share moved to pretraining\n",
            r->epoch_s, REAL_EPOCHS, r->moved);
}

/* Stage 2: ELECTRA pretraining with learner errors among the replaced tokens. */
static int stage_pretrain(recipe *r) {
  el__pt_args p;
  pretrain_common(r, &p);
  p.inputs = r->pre_inputs;
  p.out = r->run;
  r->pre = time_left(r) - END_RESERVE - r->syn - (r->a->train ? r->real : 0);
  p.time_limit = stage_limit(r->pre);
  char corruption[48]; /* learner:RATE, the rate as --corruption reads it */
  if (r->a->pretrain_corruption > 0) {
    snprintf(corruption, sizeof corruption, "learner:%g", r->a->pretrain_corruption);
    p.corruption = corruption;
  }
  double s = el__mono_s();
  int rc = run_pretrain(r, "pretraining", r->pre, &p);
  r->ts[1] = el__mono_s() - s;
  return rc;
}

/* The corpus's word counts beside the pretrained generator, so that every
 * model fine-tuned from it carries them in generator/ (keep_generator.h):
 * the checker ranks a misspelling's corrections by them (lang/word_freq.h). */
static int keep_word_counts(const recipe *r) {
  char dst[4400];
  struct stat st;
  snprintf(dst, sizeof dst, "%s/generator", r->run);
  if (stat(dst, &st) || !S_ISDIR(st.st_mode)) return 0; /* no generator (an MLM run) */
  snprintf(dst, sizeof dst, "%s/generator/word_counts.txt", r->run);
  el_error err = {0};
  int rc = el__copy_file(r->words, dst, (size_t)256 << 20, &err);
  if (rc) fprintf(stderr, PROG ": %s\n", err.msg);
  return rc ? 1 : 0;
}

/* Stage 3: GED on the corpus with generated learner errors. */
static int stage_synthetic(recipe *r) {
  const recipe_args *a = r->a;
  r->syn = time_left(r) - END_RESERVE - (a->train ? r->real : 0); /* with what pretraining left */
  el__ft_args f;
  ged_common(r, &f, r->run);
  f.synth = a->synth_corpus.n ? a->synth_corpus : a->corpus;
  /* enough sentences for the stage's time (a tiny model takes 800-900 a
   * second on 2 cores in fp32; with bf16 products 1,100-1,200 of the novels'
   * sentences and 1,500-1,700 of make run's shorter Debian ones: at 1,000 a
   * second a 720 s stage ran out of data after 640 s). Generating costs
   * ~15 us a sentence (749,000 in 11.6 s). A smaller corpus is used several
   * times over, and the plan stops at the time limit when there are more,
   * drawn at random from the shuffled sample. */
  double want = r->syn * SYNTH_PER_SECOND > 200000 ? r->syn * SYNTH_PER_SECOND : 200000;
  f.synth_n = a->synth_sentences > 0 ? a->synth_sentences : (long)rint(want);
  f.synth_rate = a->rate;
  if (a->pairs >= 0) f.synth_pairs = a->pairs;
  if (a->joined >= 0) f.synth_joined = a->joined;
  f.synth_mix = a->mix;
  if (!a->train) f.dev = a->dev;
  f.out = a->train ? r->synth_dir : a->out;
  f.overwrite = a->overwrite;
  f.dictionary = a->dictionary;
  f.ngram = a->ngram;
  f.epochs = 1;
  f.time_limit = stage_limit(r->syn);
  double s = el__mono_s();
  int rc = run_finetune(r, "synthetic GED", r->syn, &f, &r->syn_res);
  r->ts[2] = el__mono_s() - s;
  return rc;
}

/* Stage 4 (with --train): fine-tuning on the real GED data; the time decides
 * the epochs and dev picks the best one. */
static int stage_real(recipe *r) {
  /* what the synthetic stage left, up to the cap (beyond it the stage would
   * stop early anyway) */
  r->real = fmin(time_left(r) - END_RESERVE, real_cap(r));
  el__ft_args f;
  ged_common(r, &f, r->synth_dir);
  f.train = r->a->train;
  f.dev = r->a->dev;
  f.out = r->a->out;
  f.overwrite = r->a->overwrite;
  f.dictionary = r->a->dictionary;
  f.ngram = r->a->ngram;
  f.time_limit = stage_limit(r->real);
  f.epochs = REAL_EPOCHS;
  f.joined = REAL_JOINED;
  double s = el__mono_s();
  int rc = run_finetune(r, "GED fine-tuning", r->real, &f, &r->real_res);
  r->ts[3] = el__mono_s() - s;
  return rc;
}

/* quality.json beside the model: what it is, from the final stage's dev
 * scores. Prints and returns an exit status on failure. */
static int write_quality(const recipe *r) {
  const el__ft_result *last = r->a->train ? &r->real_res : &r->syn_res;
  cJSON *dev = el__ft_metrics_object(el__task_find("ged"), &last->dev);
  el_error err = {0};
  int rc = el__ged_quality_write(r->a->out, dev, r->a->time, r->a->dev, &err);
  cJSON_Delete(dev);
  if (rc) fprintf(stderr, PROG ": %s\n", err.msg);
  return rc ? 1 : 0;
}

static void final_report(const recipe *r, double t0) {
  const recipe_args *a = r->a;
  char d[32];
  fprintf(stderr, "\n" PROG ": done in %s\n", el__format_duration(el__mono_s() - t0, d, sizeof d));
  if (!a->vocab)
    fprintf(stderr, "  %-10s %-9s %s\n", "vocabulary", el__format_duration(r->ts[0], d, sizeof d), r->vocab);
  if (a->train)
    fprintf(stderr, "  %-10s %-9s a GED epoch in %.1f s  %s/speed\n", "speed", el__format_duration(r->t_probe, d, sizeof d),
            r->epoch_s, r->work);
  fprintf(stderr, "  %-10s %-9s %s (metrics.jsonl, loss.svg)\n", "pretrain",
          el__format_duration(r->ts[1], d, sizeof d), r->run);
  report_stage("synthetic", a->train ? r->synth_dir : a->out, r->ts[2], &r->syn_res);
  if (a->train) report_stage("ged", a->out, r->ts[3], &r->real_res);
  fprintf(stderr, "serve it: electra-server --model ged=%s\n", a->out);
}

/* A recipe's stages write fresh runs: an earlier model in DIR or stages in
 * DIR.work would be refused by the fine-tuning stage after the pretraining
 * time is spent, so they are refused here, before any work, unless
 * --overwrite. */
static int refuse_existing(const recipe_args *a, const char *work) {
  char cfg[4200];
  struct stat st;
  snprintf(cfg, sizeof cfg, "%s/config.json", a->out);
  const char *what = stat(cfg, &st) == 0 ? a->out : stat(work, &st) == 0 ? work : NULL;
  if (!what || a->overwrite) return 0;
  fprintf(stderr, PROG ": %s already exists (%s): remove it or pass --overwrite\n", what,
          what == a->out ? "a model" : "an earlier recipe's stages");
  return 1;
}

/* Work directory, budget split, output checks. Prints and returns an exit status on failure. */
static int plan(recipe *r) {
  const recipe_args *a = r->a;
  time_share(a, &r->pre, &r->syn, &r->real);
  snprintf(r->work, sizeof r->work, "%s.work", a->out);
  snprintf(r->run, sizeof r->run, "%s/pretrain", r->work);
  snprintf(r->synth_dir, sizeof r->synth_dir, "%s/synthetic", r->work);
  r->n_stages = 3 + 3 * (a->train != NULL) - (a->vocab != NULL);
  el_error err = {0};
  if (refuse_existing(a, r->work)) return 1;
  if (a->overwrite) el__remove_tree(r->work);
  if (el__prepare_output(a->out, 0, &err) || el__mkdirs(r->work, &err)) {
    fprintf(stderr, PROG ": %s\n", err.msg);
    return 1;
  }
  return 0;
}

/* The corpus's bytes (0 where a file cannot be read: the stages name it). */
static size_t corpus_bytes(const el_strlist *c) {
  size_t n = 0;
  struct stat st;
  for (int i = 0; i < c->n; i++)
    if (!stat(c->v[i], &st)) n += (size_t)st.st_size;
  return n;
}

/* r->pre_inputs: the corpus, and with --pretrain-learner-text the training
 * file's correct sentences written to DIR.work/learner_text.txt, repeated to
 * that share of the whole. Prints and returns an exit status on failure. */
static int learner_text(recipe *r, char **v) {
  const recipe_args *a = r->a;
  memcpy(v, a->corpus.v, (size_t)a->corpus.n * sizeof *v);
  r->pre_inputs = (el_strlist){.v = v, .n = a->corpus.n};
  if (a->learner_text <= 0) return 0;
  snprintf(r->learner_text, sizeof r->learner_text, "%s/learner_text.txt", r->work);
  size_t target = (size_t)(a->learner_text / (1 - a->learner_text) * (double)corpus_bytes(&a->corpus));
  el__learner_text_stats st;
  el_error err = {0};
  if (el__learner_text_write(a->train, r->learner_text, target, &st, &err)) {
    fprintf(stderr, PROG ": %s\n", err.msg);
    return 1;
  }
  fprintf(stderr, PROG ": %ld of %ld sentences of %s without an error, %d times: %s (%.1f MB)\n",
          st.kept, st.sentences, a->train, st.repeats, r->learner_text, (double)st.bytes / 1e6);
  v[a->corpus.n] = r->learner_text;
  r->pre_inputs.n++;
  return 0;
}

/* Pretraining, the synthetic stage, the GED stage, the report. */
static int run_stages(recipe *r, double t0) {
  const recipe_args *a = r->a;
  int rc;
  if ((rc = stage_pretrain(r)) || (rc = keep_word_counts(r)) || (rc = stage_synthetic(r)) ||
      (a->train && (rc = stage_real(r))))
    return rc;
  final_report(r, t0);
  return write_quality(r);
}

/* The stages, one after the other. */
static int recipe_run(const recipe_args *a) {
  int rc = check_args(a);
  if (rc) return rc;
  double t0 = el__mono_s();
  static recipe r; /* ~17 KB of paths: off the stack */
  memset(&r, 0, sizeof r);
  r.a = a;
  r.deadline = t0 + a->time;
  char **inputs = malloc(((size_t)a->corpus.n + 1) * sizeof *inputs);
  if (!inputs) return 1;
  if (!(rc = plan(&r)) && !(rc = learner_text(&r, inputs)) && !(rc = stage_vocab(&r)) &&
      !(a->train && (rc = stage_probe(&r)))) {
    print_plan(&r);
    if (!a->plan_only) rc = run_stages(&r, t0);
  }
  free(inputs);
  return rc;
}

int el__cmd_recipe(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "ged") != 0) {
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
      usage(stdout);
      return 0;
    }
    fprintf(stderr, "electra-train recipe: the one recipe is 'ged' (electra-train recipe ged --help)\n");
    return 2;
  }
  recipe_args a;
  recipe_defaults(&a);
  el_opt t[N_OPTS];
  recipe_table(&a, t);
  int rc = el__cli_parse(PROG, t, N_OPTS, argc - 1, argv + 1, usage);
  if (rc != EL_CLI_OK) return rc == EL_CLI_HELP ? 0 : 2;
  if (a.learner_text < 0) a.learner_text = a.train ? LEARNER_TEXT : 0;
  return recipe_run(&a);
}
