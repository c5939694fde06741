/* electra-train recipe ged: one command from plain text (and, optionally, a
 * GED training set) to a model that /score serves.
 *
 * Stages, each an ordinary electra-train command run in this process with
 * the arguments it prints (so a user can re-run or change any one of them):
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
#include <time.h>

#include <cJSON.h>

#include "el_cli.h"
#include "trainer_api.h"
#include "commands.h"
#include "ged_quality.h"
#include "progress.h"

#define PROG "electra-train recipe ged"
#define MAX_ARGS 256
/* The GED stage's epochs at most: its time plan decides within them and dev
 * picks the best. The dev score had long flattened by then (13 epochs at 60
 * minutes chose epoch 6; 140 minutes chose 19 epochs), so a budget that
 * could pay for more goes to pretraining instead (cap_real_share). */
#define REAL_EPOCHS 20
/* The speed measurement: pretraining text cut from the corpus, and seconds
 * of GED fine-tuning timed. */
#define PROBE_TEXT_BYTES (256 << 10)
#define PROBE_SECONDS 8

static el_strlist a_corpus, a_synth_corpus;
/* relative_key by default: with FCE data 10 minutes gave 0.373 / 0.363 against 0.341 / 0.347
 * absolute, and without it agreement is learnt only at a sentence's start (docs/RESULTS.md §1b) */
static const char *a_out, *a_train, *a_dev, *a_vocab, *a_preset = "tiny", *a_mix,
    *a_position = "relative_key";
static double a_time = 600;
static long a_threads, a_vocab_size = 8192, a_seed = 1, a_synth_sentences = 0;
static double a_rate = 0.12, a_pretrain_corruption = 0.1, a_pretrain_share = -1, a_pairs = -1;
static int a_cased, a_plan_only, a_dictionary;

static el_opt opts[] = {
    {"--out", EL_OPT_STR, &a_out, 0, 0, "DIR", "the GED model to write (served by /score); required", 0},
    {"--corpus", EL_OPT_STRS, &a_corpus, 0, 0, "PATH...", "plain English text for pretraining and synthetic errors; required", 0},
    {"--train", EL_OPT_STR, &a_train, 0, 0, "FILE", "GED training file (token c|i per line); adds stage 4", 0},
    {"--dev", EL_OPT_STR, &a_dev, 0, 0, "FILE", "GED dev file: calibrates the threshold (needed with --train)", 0},
    {"--time-limit", EL_OPT_DURATION, &a_time, 10, 1e7, "T", "whole budget, split between the stages (10m)", 0},
    {"--threads", EL_OPT_INT, &a_threads, 0, 4096, "N", "threads (0 = CPU quota)", 0},
    {"--preset", EL_OPT_CHOICE, &a_preset, 0, 0, "tiny|small|base|large", "model size (tiny)", 0},
    {"--position-embedding", EL_OPT_CHOICE, &a_position, 0, 0, "absolute|relative_key", "the model's positions (relative_key; absolute is the paper's; see electra-train pretrain --help)", 0},
    {"--vocab", EL_OPT_STR, &a_vocab, 0, 0, "FILE", "use this vocabulary instead of learning one", 0},
    {"--vocab-size", EL_OPT_INT, &a_vocab_size, 64, 1 << 20, "N", "entries of the learned vocabulary (8192)", 0},
    {"--synthetic-corpus", EL_OPT_STRS, &a_synth_corpus, 0, 0, "PATH...", "text for the synthetic stage (the --corpus files)", 0},
    {"--synthetic-sentences", EL_OPT_INT, &a_synth_sentences, 0, 1e8, "N", "synthetic sentences (0: 1000 per second of the stage, at least 200000)", 0},
    {"--synthetic-rate", EL_OPT_FLOAT, &a_rate, 0.001, 1, "X", "learner errors per word in the synthetic stage (0.12)", 0},
    {"--synthetic-agreement-pairs", EL_OPT_FLOAT, &a_pairs, 0, 1, "X", "share of synthetic copies shown as an agreement error and its correct twin (see electra-train finetune --help)", 0},
    {"--synthetic-mix", EL_OPT_STR, &a_mix, 0, 0, "TYPE=X,...", "scale error types' shares in the synthetic stage: R:SPELL=0.5 (see electra-train corrupt --help)", 0},
    {"--pretrain-corruption", EL_OPT_FLOAT, &a_pretrain_corruption, 0, 1, "X", "learner errors per token in pretraining (0.1; 0 = plain ELECTRA)", 0},
    {"--pretrain-share", EL_OPT_FLOAT, &a_pretrain_share, 0.05, 0.95, "X", "share of the budget for pretraining (0.45; 0.5 with --train)", 0},
    {"--dictionary", EL_OPT_FLAG, &a_dictionary, 0, 0, NULL, "combine hunspell's verdicts with the model (finetune --dictionary): weight and threshold calibrated on dev, in config.json", 0},
    {"--cased", EL_OPT_FLAG, &a_cased, 0, 0, NULL, "learn a cased vocabulary (case errors and names visible to the model)", 0},
    {"--seed", EL_OPT_INT, &a_seed, 0, 1e15, "N", "seed of every stage (1)", 0},
    {"--plan-only", EL_OPT_FLAG, &a_plan_only, 0, 0, NULL, "print how the budget will be split (after the vocabulary and, with --train, the speed measurement) and stop", 0},
};
#define N_OPTS ((int)(sizeof opts / sizeof opts[0]))

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
  el__cli_print_options(f, opts, N_OPTS);
}

typedef struct argv_b {
  char *v[MAX_ARGS];
  int n;
  char buf[MAX_ARGS][64]; /* formatted numbers */
} argv_b;

static void add(argv_b *a, const char *s) {
  if (a->n < MAX_ARGS - 1) a->v[a->n++] = (char *)s;
  a->v[a->n] = NULL;
}
static void addf(argv_b *a, const char *fmt, double x) {
  if (a->n >= MAX_ARGS - 1) return;
  snprintf(a->buf[a->n], sizeof a->buf[0], fmt, x);
  add(a, a->buf[a->n]);
}
static void add_list(argv_b *a, const el_strlist *l) {
  for (int i = 0; i < l->n; i++) add(a, l->v[i]);
}

/* Prints the stage's command (paths of many corpus files abbreviated) and
 * runs it. */
static int run_stage(int k, int of, const char *what, double budget, argv_b *a,
                     int (*cmd)(int, char **)) {
  char d[32];
  fprintf(stderr, "\n" PROG ": stage %d/%d: %s", k, of, what);
  if (budget > 0) fprintf(stderr, " (%s)", el__format_duration(budget, d, sizeof d));
  fprintf(stderr, "\n  electra-train");
  for (int i = 0; i < a->n; i++) fprintf(stderr, " %s", a->v[i]);
  fprintf(stderr, "\n");
  return cmd(a->n, a->v);
}

/* A finetune run's eval.json (caller deletes), or NULL. */
static cJSON *read_eval(const char *dir) {
  char path[4600], *text = NULL;
  size_t len;
  el_error err = {0};
  snprintf(path, sizeof path, "%s/eval.json", dir);
  if (el__read_file(path, 1 << 24, &text, &len, &err)) return NULL;
  cJSON *j = cJSON_ParseWithLength(text, len);
  free(text);
  return j;
}

/* The "dev" object of a finetune run's eval.json (caller deletes), or NULL. */
static cJSON *read_dev(const char *dir) {
  cJSON *j = read_eval(dir);
  cJSON *dev = j ? cJSON_DetachItemFromObject(j, "dev") : NULL;
  cJSON_Delete(j);
  return dev;
}

static void report_stage(const char *name, const char *dir, double seconds) {
  cJSON *dev = read_dev(dir);
  char d[32];
  fprintf(stderr, "  %-10s %-9s", name, el__format_duration(seconds, d, sizeof d));
  if (dev) {
    const cJSON *f = cJSON_GetObjectItem(dev, "f0.5"), *p = cJSON_GetObjectItem(dev, "precision"),
                *r = cJSON_GetObjectItem(dev, "recall"), *t = cJSON_GetObjectItem(dev, "threshold");
    fprintf(stderr, " dev F0.5 %.3f (P %.3f R %.3f) at threshold %.4g", cJSON_GetNumberValue(f),
            cJSON_GetNumberValue(p), cJSON_GetNumberValue(r), cJSON_GetNumberValue(t));
  }
  fprintf(stderr, "  %s\n", dir);
  cJSON_Delete(dev);
}

/* quality.json beside the model: what it is, from its final dev scores. */
static int write_quality(void) {
  cJSON *dev = read_dev(a_out);
  el_error err = {0};
  int rc = el__ged_quality_write(a_out, dev, a_time, a_dev, &err);
  cJSON_Delete(dev);
  if (rc) fprintf(stderr, PROG ": %s\n", err.msg);
  return rc ? 1 : 0;
}

static int check_args(void) {
  const char *miss = !a_out ? "--out" : !a_corpus.n ? "--corpus" : NULL;
  if (miss) {
    fprintf(stderr, PROG ": %s is required (see --help)\n", miss);
    return 2;
  }
  if (a_train && !a_dev) {
    fprintf(stderr, PROG ": --train needs --dev (the threshold is calibrated on it)\n");
    return 2;
  }
  return 0;
}

static void reset_options(void) {
  memset(&a_corpus, 0, sizeof a_corpus);
  memset(&a_synth_corpus, 0, sizeof a_synth_corpus);
  a_out = a_train = a_dev = a_vocab = NULL;
  a_preset = "tiny";
  a_time = 600;
  a_threads = 0;
  a_vocab_size = 8192;
  a_seed = 1;
  a_synth_sentences = 0;
  a_rate = 0.12;
  a_mix = NULL;
  a_position = "relative_key";
  a_pairs = -1;
  a_pretrain_corruption = 0.1;
  a_pretrain_share = -1;
  a_cased = 0;
  a_dictionary = 0;
  a_plan_only = 0;
  for (int i = 0; i < N_OPTS; i++) opts[i].seen = 0;
}

/* Shares of the budget: pretraining, synthetic, real GED data. */
static void time_share(double total, double *pre, double *syn, double *real) {
  double p = a_pretrain_share > 0 ? a_pretrain_share : a_train ? 0.50 : 0.45;
  *pre = p * total;
  if (a_train) { /* the rest: 2/5 synthetic, 3/5 real data */
    *syn = 0.4 * (1 - p) * total;
    *real = 0.6 * (1 - p) * total;
  } else {
    *syn = (1 - p) * total;
    *real = 0;
  }
}

/* Paths, budget and progress shared by the stages. */
typedef struct recipe {
  char work[4200], vocab[4300], run[4300], synth_dir[4300], threads[32], seed[32];
  double pre, syn, real; /* each stage's share of the budget, seconds */
  double ts[4];          /* time each stage took: vocabulary, pretraining, synthetic, real data */
  double t_probe, epoch_s; /* the speed measurement: its time, one GED epoch's (0: none) */
  double moved;          /* of the GED stage's share, what went to pretraining */
  int k, n_stages;       /* stages done, in all */
} recipe;

static void common_args(argv_b *b, const recipe *r) {
  add(b, "--threads");
  add(b, r->threads);
  add(b, "--seed");
  add(b, r->seed);
}

/* Stage 1 (unless --vocab): a WordPiece vocabulary from the corpus. */
static int stage_vocab(recipe *r) {
  if (a_vocab) {
    snprintf(r->vocab, sizeof r->vocab, "%s", a_vocab);
    return 0;
  }
  snprintf(r->vocab, sizeof r->vocab, "%s/vocab.txt", r->work);
  argv_b a = {0};
  add(&a, "vocab");
  add(&a, "--input");
  add_list(&a, &a_corpus);
  add(&a, "--vocab-size");
  addf(&a, "%.0f", (double)a_vocab_size);
  add(&a, "--out");
  add(&a, r->vocab);
  if (a_cased) add(&a, "--no-lower-case");
  add(&a, "--british"); /* the synthetic stage writes half its sentences so (text_variants.h) */
  double s = el__mono_s();
  int rc = run_stage(++r->k, r->n_stages, "vocabulary", 0, &a, el__cmd_vocab);
  r->ts[0] = el__mono_s() - s;
  r->pre -= r->ts[0]; /* the vocabulary's time comes out of pretraining's share */
  return rc;
}

/* A stage's time limit: its share, at least 5 s (the vocabulary and the
 * speed measurement may have taken a small budget's whole share). */
static double stage_seconds(double share) { return share > 5 ? share : 5; }

/* The speed measurement's pretraining text: the corpus's first bytes. */
static int write_probe_text(const char *path) {
  FILE *out = fopen(path, "wb");
  if (!out) return -1;
  static char buf[1 << 16];
  long left = PROBE_TEXT_BYTES;
  for (int i = 0; i < a_corpus.n && left > 0; i++) {
    FILE *in = fopen(a_corpus.v[i], "rb");
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

/* Seconds per epoch of the GED training file from a finetune run's
 * eval.json (train_seconds / steps x steps_per_epoch), or 0. */
static double epoch_seconds(const char *dir) {
  cJSON *j = read_eval(dir);
  double t = cJSON_GetNumberValue(cJSON_GetObjectItem(j, "train_seconds")),
         steps = cJSON_GetNumberValue(cJSON_GetObjectItem(j, "steps")),
         per_epoch = cJSON_GetNumberValue(cJSON_GetObjectItem(j, "steps_per_epoch"));
  cJSON_Delete(j);
  return t > 0 && steps > 0 && per_epoch > 0 ? t / steps * per_epoch : 0;
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
  if (el__mkdirs(dir, &err) || write_probe_text(text)) {
    fprintf(stderr, PROG ": cannot write %s: %s\n", text, err.msg[0] ? err.msg : "I/O error");
    return 1;
  }
  argv_b a = {0}, b = {0};
  const char *pa[] = {"pretrain", "--input", text, "--vocab", r->vocab, "--out", init, "--preset", a_preset,
                      "--position-embedding", a_position, "--max-steps", "1"};
  const char *fa[] = {"finetune", "--task", "ged", "--train", a_train, "--dev", a_dev, "--max-dev-examples",
                      "64", "--random-init", "--init", init, "--out", ft, "--epochs", "1", "--log-every", "0"};
  for (size_t i = 0; i < sizeof pa / sizeof *pa; i++) add(&a, pa[i]);
  for (size_t i = 0; i < sizeof fa / sizeof *fa; i++) add(&b, fa[i]);
  add(&b, "--time-limit");
  addf(&b, "%.0fs", PROBE_SECONDS);
  common_args(&a, r);
  common_args(&b, r);
  int rc = run_stage(++r->k, r->n_stages, "a model of this shape, for the speed measurement", 0, &a,
                     el__cmd_pretrain);
  if (!rc) rc = run_stage(++r->k, r->n_stages, "GED fine-tuning speed", PROBE_SECONDS, &b, el__cmd_finetune);
  r->t_probe = el__mono_s() - s;
  r->pre -= r->t_probe; /* out of pretraining's share, like the vocabulary's time */
  if (rc) return rc;
  if ((r->epoch_s = epoch_seconds(ft)) <= 0)
    fprintf(stderr, PROG ": warning: no step time in %s/eval.json; the shares stay as planned\n", ft);
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
  if (a_train) fprintf(stderr, ", GED fine-tuning %.0f s (%s)", real, el__format_duration(real, d[2], sizeof d[2]));
  fprintf(stderr, "\n");
  if (r->epoch_s > 0)
    fprintf(stderr, "  a GED epoch takes %.1f s (measured): %d epochs at most, %.0f s of the GED share moved to pretraining\n",
            r->epoch_s, REAL_EPOCHS, r->moved);
}

/* Stage 2: ELECTRA pretraining with learner errors among the replaced tokens. */
static int stage_pretrain(recipe *r) {
  argv_b a = {0};
  add(&a, "pretrain");
  add(&a, "--input");
  add_list(&a, &a_corpus);
  add(&a, "--vocab");
  add(&a, r->vocab);
  add(&a, "--out");
  add(&a, r->run);
  add(&a, "--preset");
  add(&a, a_preset);
  add(&a, "--position-embedding");
  add(&a, a_position);
  add(&a, "--time-limit");
  addf(&a, "%.0fs", stage_seconds(r->pre));
  common_args(&a, r);
  if (a_pretrain_corruption > 0) {
    add(&a, "--corruption");
    addf(&a, "learner:%g", a_pretrain_corruption);
  }
  double s = el__mono_s();
  int rc = run_stage(++r->k, r->n_stages, "pretraining", r->pre, &a, el__cmd_pretrain);
  r->ts[1] = el__mono_s() - s;
  r->syn += r->pre - r->ts[1]; /* the synthetic stage gets what pretraining left */
  return rc;
}

/* Stage 3: GED on the corpus with generated learner errors. */
static int stage_synthetic(recipe *r) {
  argv_b b = {0};
  add(&b, "finetune");
  add(&b, "--task");
  add(&b, "ged");
  add(&b, "--synthetic-from");
  add_list(&b, a_synth_corpus.n ? &a_synth_corpus : &a_corpus);
  /* enough sentences for the stage's time (a tiny model takes 800-900 a
   * second on 2 cores: with 600 a 330 s stage ran out of data after 257 s;
   * a smaller corpus is used several times over, and the plan stops at the
   * time limit when there are more) */
  double want = r->syn * 1000 > 200000 ? r->syn * 1000 : 200000;
  add(&b, "--synthetic-sentences");
  addf(&b, "%.0f", a_synth_sentences > 0 ? (double)a_synth_sentences : want);
  add(&b, "--synthetic-rate");
  addf(&b, "%g", a_rate);
  if (a_pairs >= 0) {
    add(&b, "--synthetic-agreement-pairs");
    addf(&b, "%g", a_pairs);
  }
  if (a_mix) {
    add(&b, "--synthetic-mix");
    add(&b, a_mix);
  }
  if (a_dev && !a_train) {
    add(&b, "--dev");
    add(&b, a_dev);
  }
  add(&b, "--init");
  add(&b, r->run);
  add(&b, "--out");
  add(&b, a_train ? r->synth_dir : a_out);
  add(&b, "--epochs");
  add(&b, "1");
  add(&b, "--time-limit");
  addf(&b, "%.0fs", stage_seconds(r->syn));
  common_args(&b, r);
  if (a_dictionary) add(&b, "--dictionary");
  double s = el__mono_s();
  int rc = run_stage(++r->k, r->n_stages, "synthetic GED", r->syn, &b, el__cmd_finetune);
  r->ts[2] = el__mono_s() - s;
  /* what the synthetic stage left goes to the GED stage, up to its cap (beyond
   * it the stage would stop early anyway) */
  r->real = fmin(r->real + r->syn - r->ts[2], real_cap(r));
  return rc;
}

/* Stage 4 (with --train): fine-tuning on the real GED data; the time decides
 * the epochs and dev picks the best one. */
static int stage_real(recipe *r) {
  argv_b c = {0};
  add(&c, "finetune");
  add(&c, "--task");
  add(&c, "ged");
  add(&c, "--train");
  add(&c, a_train);
  add(&c, "--dev");
  add(&c, a_dev);
  add(&c, "--init");
  add(&c, r->synth_dir);
  add(&c, "--out");
  add(&c, a_out);
  add(&c, "--time-limit");
  addf(&c, "%.0fs", stage_seconds(r->real));
  add(&c, "--epochs");
  addf(&c, "%.0f", REAL_EPOCHS);
  common_args(&c, r);
  if (a_dictionary) add(&c, "--dictionary");
  double s = el__mono_s();
  int rc = run_stage(++r->k, r->n_stages, "GED fine-tuning", r->real, &c, el__cmd_finetune);
  r->ts[3] = el__mono_s() - s;
  return rc;
}

static void final_report(const recipe *r, double t0) {
  char d[32];
  fprintf(stderr, "\n" PROG ": done in %s\n", el__format_duration(el__mono_s() - t0, d, sizeof d));
  if (!a_vocab)
    fprintf(stderr, "  %-10s %-9s %s\n", "vocabulary", el__format_duration(r->ts[0], d, sizeof d), r->vocab);
  if (a_train)
    fprintf(stderr, "  %-10s %-9s a GED epoch in %.1f s  %s/speed\n", "speed", el__format_duration(r->t_probe, d, sizeof d),
            r->epoch_s, r->work);
  fprintf(stderr, "  %-10s %-9s %s (metrics.jsonl, loss.svg)\n", "pretrain",
          el__format_duration(r->ts[1], d, sizeof d), r->run);
  report_stage("synthetic", a_train ? r->synth_dir : a_out, r->ts[2]);
  if (a_train) report_stage("ged", a_out, r->ts[3]);
  fprintf(stderr, "serve it: electra-server --model ged=%s\n", a_out);
}

/* Work directory, budget split, output checks. Prints and returns an exit status on failure. */
static int plan(recipe *r) {
  time_share(a_time, &r->pre, &r->syn, &r->real);
  snprintf(r->work, sizeof r->work, "%s.work", a_out);
  snprintf(r->run, sizeof r->run, "%s/pretrain", r->work);
  snprintf(r->synth_dir, sizeof r->synth_dir, "%s/synthetic", r->work);
  snprintf(r->threads, sizeof r->threads, "%ld", a_threads);
  snprintf(r->seed, sizeof r->seed, "%ld", a_seed);
  r->n_stages = 3 + 3 * (a_train != NULL) - (a_vocab != NULL);
  el_error err = {0};
  if (el__prepare_output(a_out, 0, &err) || el__mkdirs(r->work, &err)) {
    fprintf(stderr, PROG ": %s\n", err.msg);
    return 1;
  }
  return 0;
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
  reset_options();
  int rc = el__cli_parse(PROG, opts, N_OPTS, argc - 1, argv + 1, usage);
  if (rc != EL_CLI_OK) return rc == EL_CLI_HELP ? 0 : 2;
  if ((rc = check_args())) return rc;
  double t0 = el__mono_s();
  static recipe r; /* ~17 KB of paths: off the stack */
  memset(&r, 0, sizeof r);
  if ((rc = plan(&r)) || (rc = stage_vocab(&r)) || (a_train && (rc = stage_probe(&r))))
    return rc;
  print_plan(&r);
  if (a_plan_only) return 0;
  if ((rc = stage_pretrain(&r)) || (rc = stage_synthetic(&r)) || (a_train && (rc = stage_real(&r))))
    return rc;
  final_report(&r, t0);
  return write_quality();
}
