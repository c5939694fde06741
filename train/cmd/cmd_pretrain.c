/* electra-train pretrain: command line, presets, and the rules of --resume
 * (see --help). The run itself is pretrain_setup.c + pretrain_loop.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "el_cli.h"
#include "commands.h"
#include "dist.h"
#include "learner_ids.h"
#include "pretrain_cli.h"
#include "precision.h"
#include "pretrain_run.h"
#include "schedule.h"

#define PROG "electra-train pretrain"

/* --help's option listing: the table's text, not its destinations. */
static void print_options(FILE *f) {
  el__pt_args unused;
  el_opt t[EL_PT_N_OPTS];
  el__pt_cli_table(&unused, t);
  el__cli_print_options(f, t, EL_PT_N_OPTS);
}

static void print_parallel(FILE *f);

static void usage(FILE *f) {
  fprintf(f,
          "usage: " PROG " --input PATH... --vocab vocab.txt --out RUN [options]\n"
          "       " PROG " --out RUN --resume [run-control options]\n"
          "\n"
          "Pretrains an ELECTRA generator + discriminator (or, with --objective mlm, a BERT-style\n"
          "masked language model) on CPU. Writes RUN/discriminator/ (ElectraForPreTraining) and\n"
          "RUN/generator/ (ElectraForMaskedLM) -- RUN/mlm/ for the MLM objective -- every\n"
          "--save-every steps, at the end, and on Ctrl-C/SIGTERM (saved at the next step\n"
          "boundary; press Ctrl-C twice to quit without saving), plus RUN/state/ for an exact\n"
          "--resume, RUN/metrics.jsonl and RUN/loss.svg. The text is tokenized once into a\n"
          "binary cache (RUN/cache/tokens.bin) reused by later runs and resumes.\n"
          "\n"
          "options:\n");
  print_options(f);
  fprintf(f,
          "\n"
          "Data (ELECTRA's build_pretraining_dataset rules): lines accumulate until a sequence\n"
          "is full or the document ends, then become [CLS] A [SEP] B [SEP] (10%% one segment,\n"
          "5%% shorter targets); 1%% of the sequences are held out for validation.\n"
          "Masking, drawn afresh each step: round(mask-prob x length) positions (at least 1,\n"
          "at most int((mask-prob + 0.005) x seq-len)), sampled WITHOUT replacement among the\n"
          "tokens other than [CLS] [SEP] [MASK] [PAD]; ELECTRA: 85%% become [MASK], 15%% stay;\n"
          "MLM: 80%% [MASK], 10%% stay, 10%% a random token. The generator's samples\n"
          "(Gumbel-max) replace every selected token; the discriminator labels a token\n"
          "replaced only if the sample differs. Loss = MLM + disc-weight x discriminator.\n"
          "Validation: generator accuracy at masked positions (and the unigram baseline),\n"
          "discriminator loss (and the base rate: the loss of answering the replaced fraction\n"
          "everywhere), accuracy, and the AUC of P(replaced) on replaced vs original tokens.\n");
  fprintf(f,
          "\n"
          "--corruption learner[:RATE] adds synthetic learner errors (wrong, missing and extra\n"
          "determiners, prepositions and punctuation, verb forms, noun number, spelling, word\n"
          "order; electra-train corrupt --help lists the types) to each sequence before\n"
          "masking, from the run's seed. Their tokens (for a missing word, the word after the\n"
          "gap) are labelled replaced for the discriminator and never masked. Needs WordNet\n"
          "(Debian wordnet-base). Validation stays on uncorrupted text, comparable across runs.\n");
  fprintf(f,
          "\n"
          "--time-limit T plans the schedule for the time: after ~10 steps (or 5%% of T) it\n"
          "sets the total steps so that warmup and decay end at T, from the measured step\n"
          "time plus the time spent validating and saving, and re-plans after every step as\n"
          "the step time changes. The session ends when the plan is complete (LR at its last,\n"
          "near-0 value), at or just before T: T is the whole command, setup (tokenizing,\n"
          "loading), validations and the final save included (a trial save before the first\n"
          "step, removed again, times it). Until the measurement is over the schedule of\n"
          "--max-steps (or of the plan saved in the run) applies. --max-steps, when given, is\n"
          "an upper bound of the plan. Log lines show the planned total as ~N and\n"
          "metrics.jsonl train rows carry it as planned_steps (docs/TRAINING.md).\n");
  fprintf(f,
          "\n"
          "With --resume the run keeps its saved settings; --max-steps, --time-limit,\n"
          "--save-every, --threads, --accumulate, the number of ranks, --log-every and\n"
          "--val-every may be changed, --input,\n"
          "--vocab and --cache may point to moved copies of the same data, and any other\n"
          "option must match the saved value. Results are deterministic for a given seed\n"
          "and thread count; a resumed run ends bit-identical to an uninterrupted one\n"
          "(without --time-limit: a time plan depends on the measured times). A time plan is\n"
          "per session: the resumed session's limit (the saved one unless given) plans the\n"
          "total from the current step, and the LR continues on the linear decay to that\n"
          "total (peak x (1 - step/total)). A session interrupted mid-plan and resumed with\n"
          "the time it had left continues where it was; a completed plan resumed with more\n"
          "time rises again to that line and decays to 0 at the new limit (LR 0 while the\n"
          "new session measures).\n");
  print_parallel(f);
}

/* --help's last paragraphs: ranks, accumulation and model copies. */
static void print_parallel(FILE *f) {
  fprintf(f,
          "\n"
          "Data parallelism: under mpirun -np N (or srun), when built with MPI (make MPI=1),\n"
          "each rank computes batch/N sequences of every global batch (--accumulate splits\n"
          "them further), the losses divided by the global batch's counts; the gradients\n"
          "are summed with one MPI_Allreduce and every rank takes the same AdamW step.\n"
          "Every random draw is keyed by the seed, the step and the sequence's index in the\n"
          "global batch, so N ranks, --accumulate N and one process give the same run up to\n"
          "the order of float additions. Rank 0 alone validates and writes RUN; --out must\n"
          "be on a filesystem every rank sees (for --resume and the token cache). A failed\n"
          "or killed rank ends all of them. Resuming with the same ranks, --accumulate and\n"
          "--threads is bit-exact; with another split it is equivalent (same data, draws\n"
          "and schedule; float sums in another order). Multi-node runs: docs/TRAINING.md.\n"
          "Inside one process, --threads N shares the batch out further, over model\n"
          "copies, one per thread (at most 8; the most that divide its sequences evenly),\n"
          "each computing its sequences alone, the copies' gradients summed in order: the\n"
          "same run up to the order of float additions, and the same bit for bit for a\n"
          "given --threads.\n");
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static int set_inputs(el__pt_opts *o, const el_strlist *in) {
  for (int i = 0; i < o->n_inputs; i++) free(o->inputs[i]);
  free(o->inputs);
  o->n_inputs = 0;
  o->inputs = calloc((size_t)in->n, sizeof *o->inputs);
  if (!o->inputs) return -1;
  for (int i = 0; i < in->n; i++)
    if (!(o->inputs[o->n_inputs++] = strdup(in->v[i]))) return -1;
  return 0;
}

/* A resumed run: a number given (>= 0, el__pt_args) must match the saved value. */
static int same_num(const char *name, double given, double saved) {
  if (given < 0 || given == saved) return 0;
  fprintf(stderr,
          PROG ": %s %g differs from the run's saved value %g; a resumed run keeps its "
          "settings (start a new --out to change it)\n",
          name, given, saved);
  return 1;
}

/* A resumed run keeps its settings: 1 (after saying which) when the command
 * line gives another value for one of them. rate: --corruption's. */
static int settings_differ(const el__pt_args *a, double rate, const el__pt_opts *o) {
  if (a->preset && strcmp(a->preset, o->preset)) {
    fprintf(stderr, PROG ": --preset %s differs from the run's preset %s\n", a->preset, o->preset);
    return 1;
  }
  if (a->objective && (!strcmp(a->objective, "mlm")) != o->mlm) {
    fprintf(stderr, PROG ": --objective %s differs from the run's objective %s\n", a->objective,
            o->mlm ? "mlm" : "electra");
    return 1;
  }
  if (a->disc_special && (!strcmp(a->disc_special, "exclude")) != o->disc_skip_special) {
    fprintf(stderr, PROG ": --disc-special %s differs from the run's %s\n", a->disc_special,
            o->disc_skip_special ? "exclude" : "include");
    return 1;
  }
  if (a->bias_init && (!strcmp(a->bias_init, "zero")) != o->bias_init_zero) {
    fprintf(stderr, PROG ": --bias-init %s differs from the run's %s\n", a->bias_init,
            o->bias_init_zero ? "zero" : "prior");
    return 1;
  }
  if (a->corruption && rate != o->corruption_rate) {
    fprintf(stderr, PROG ": --corruption %s differs from the run's (rate %g)\n", a->corruption,
            o->corruption_rate);
    return 1;
  }
  if (a->position && (!strcmp(a->position, "relative_key")) != o->relative_positions) {
    fprintf(stderr, PROG ": --position-embedding %s differs from the run's %s\n", a->position,
            o->relative_positions ? "relative_key" : "absolute");
    return 1;
  }
  if (a->tie_generator && !o->tie_generator) {
    fprintf(stderr, PROG ": --tie-generator differs from the run's untied generator\n");
    return 1;
  }
  return same_num("--batch-size", a->batch, o->batch_size) ||
      same_num("--seq-len", a->seq_len, o->seq_len) || same_num("--lr", a->lr, o->lr) ||
      same_num("--warmup-steps", a->warmup, o->warmup_steps) ||
      same_num("--weight-decay", a->wd, o->weight_decay) ||
      same_num("--generator-size", a->gen_size, o->gen_size) ||
      same_num("--disc-weight", a->disc_weight, o->disc_weight) ||
      same_num("--mask-prob", a->mask_prob, o->mask_prob) || same_num("--seed", a->seed, o->seed) ||
      same_num("--val-fraction", a->val_fraction, o->val_fraction) ||
      same_num("--val-examples", a->val_examples, o->val_examples);
}

/* The run-control options a session may change (given: >= 0). */
static void run_control(const el__pt_args *a, el__pt_opts *o) {
  if (a->save_every >= 0) o->save_every = a->save_every;
  if (a->threads >= 0) o->threads = a->threads;
  if (a->log_every >= 0) o->log_every = a->log_every;
  if (a->val_every >= 0) o->val_every = a->val_every;
  if (a->time_limit >= 0) o->time_limit = a->time_limit;
  if (a->precision) snprintf(o->precision, sizeof o->precision, "%s", a->precision);
}

/* What a resumed session may change: the step budget, the time limit, the
 * intervals, threads, the products' precision (by default a resume keeps
 * the run's, so that it continues bit for bit), the input files, vocabulary
 * and cache paths. */
static int session_overrides(const el__pt_args *a, el__pt_opts *o, const el__state *st) {
  if (a->max_steps >= 0 && a->max_steps != o->max_steps) {
    fprintf(stderr,
            "note: --max-steps %ld replaces %ld: the learning-rate schedule changes from here "
            "on\n",
            a->max_steps, o->max_steps);
    o->max_steps = a->max_steps;
  }
  run_control(a, o);
  if (o->time_limit <= 0 && o->max_steps >= EL__STEPS_UNBOUNDED) {
    fprintf(stderr,
            PROG ": %s was planned by --time-limit alone (no --max-steps): give --time-limit "
            "or --max-steps to continue it\n",
            a->out);
    return 1;
  }
  if (a->inputs.n && set_inputs(o, &a->inputs)) return 1;
  if (a->vocab) {
    free(o->vocab);
    o->vocab = strdup(a->vocab);
  }
  if (a->cache) {
    free(o->cache);
    o->cache = strdup(a->cache);
  }
  free(o->out);
  o->out = strdup(a->out);
  if (st->step >= o->max_steps) {
    fprintf(stderr,
            PROG ": %s already reached step %lld of --max-steps %ld; give a larger --max-steps "
            "to train further\n",
            a->out, (long long)st->step, o->max_steps);
    return 1;
  }
  return 0;
}

static int resume_settings(const el__pt_args *a, double rate, el__pt_opts *o, el__state *st) {
  el_error err = {0};
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/state", a->out);
  if (el__state_peek(dir, st, &err)) {
    fprintf(stderr, PROG ": cannot resume %s: %s\n", a->out, err.msg);
    return 1;
  }
  char file[4300];
  snprintf(file, sizeof file, "%s/state.bin", dir);
  if (el__pt_opts_from_json(st->settings_json, o, file, &err)) {
    fprintf(stderr, PROG ": cannot resume %s: %s\n", a->out, err.msg);
    return 1;
  }
  if (settings_differ(a, rate, o)) return 1;
  return session_overrides(a, o, st);
}

/* The model and optimisation options given (>= 0) over the preset's. */
static void model_options(const el__pt_args *a, el__pt_opts *o) {
  if (a->max_steps >= 0) o->max_steps = a->max_steps;
  else if (a->time_limit > 0) o->max_steps = EL__STEPS_UNBOUNDED; /* the time decides */
  if (a->batch >= 0) o->batch_size = a->batch;
  if (a->seq_len >= 0) o->seq_len = a->seq_len;
  if (a->lr >= 0) o->lr = a->lr;
  o->warmup_auto = a->warmup < 0;
  if (a->warmup >= 0) o->warmup_steps = a->warmup;
  else if (o->warmup_steps > o->max_steps / 10) o->warmup_steps = o->max_steps / 10;
  if (a->wd >= 0) o->weight_decay = a->wd;
  if (a->gen_size >= 0) o->gen_size = a->gen_size;
  if (a->disc_weight >= 0) o->disc_weight = a->disc_weight;
  if (a->mask_prob >= 0) o->mask_prob = a->mask_prob;
  if (a->seed >= 0) o->seed = a->seed;
  if (a->val_fraction >= 0) o->val_fraction = a->val_fraction;
  if (a->val_examples >= 0) o->val_examples = a->val_examples;
}

/* A new run's settings: the preset's, with what a gives. Returns 1 after
 * saying why when they do not make a run, -1 when out of memory. */
static int new_settings(const el__pt_args *a, double rate, el__pt_opts *o) {
  el__pt_opts_defaults(o, el__preset_find(a->preset ? a->preset : "tiny"));
  o->mlm = a->objective && !strcmp(a->objective, "mlm");
  o->bias_init_zero = a->bias_init && !strcmp(a->bias_init, "zero");
  o->disc_skip_special = a->disc_special && !strcmp(a->disc_special, "exclude");
  o->relative_positions = a->position && !strcmp(a->position, "relative_key");
  o->corruption_rate = rate;
  model_options(a, o);
  o->tie_generator = a->tie_generator && !o->mlm;
  if (o->tie_generator) {
    if (a->gen_size >= 0 && a->gen_size != 1.0) {
      fprintf(stderr, PROG ": --tie-generator shares the whole encoder, so the generator has the "
                      "discriminator's size: drop --generator-size %g (or give 1)\n", a->gen_size);
      return 1;
    }
    o->gen_size = 1.0;
  }
  run_control(a, o);
  if (set_inputs(o, &a->inputs)) return -1;
  o->vocab = dup_or_null(a->vocab);
  o->out = dup_or_null(a->out);
  o->cache = dup_or_null(a->cache);
  if (o->mlm && a->gen_size >= 0)
    fprintf(stderr, "note: --generator-size has no effect with --objective mlm\n");
  if (o->mlm && a->tie_generator)
    fprintf(stderr, "note: --tie-generator has no effect with --objective mlm\n");
  return 0;
}

int el__pretrain_parse(int argc, char **argv, el__pt_args *a) {
  el__pt_args_init(a);
  el_opt t[EL_PT_N_OPTS];
  el__pt_cli_table(a, t);
  return el__cli_parse(PROG, t, EL_PT_N_OPTS, argc, argv, usage);
}

/* --corruption's rate into *rate, and the options that need one another.
 * Prints why and returns 2 (the exit status) when they do not fit. */
static int check_args(const el__pt_args *a, double *rate) {
  *rate = 0;
  if (a->corruption && el__lids_parse_option(a->corruption, rate)) {
    fprintf(stderr, PROG ": --corruption '%s': expected none, learner or learner:RATE with RATE in (0, 1]\n",
            a->corruption);
    return 2;
  }
  if (*rate > 0 && a->objective && !strcmp(a->objective, "mlm")) {
    fprintf(stderr, PROG ": --corruption needs a discriminator (--objective electra)\n");
    return 2;
  }
  if (!a->out) {
    fprintf(stderr, PROG ": --out RUN is required (see --help)\n");
    return 2;
  }
  if (!a->resume && (!a->inputs.n || !a->vocab)) {
    fprintf(stderr, PROG ": --input and --vocab are required (see --help)\n");
    return 2;
  }
  return 0;
}

/* The run's settings (new, or a saved run's with this session's changes)
 * into o and, resuming, the saved state into st. Returns 0 or the exit
 * status after saying why. */
static int settings(const el__pt_args *a, double rate, el__pt_opts *o, el__state *st) {
  char state_file[4200];
  snprintf(state_file, sizeof state_file, "%s/state/state.bin", a->out);
  struct stat sb;
  int has_state = stat(state_file, &sb) == 0;
  if (a->resume && !has_state) {
    fprintf(stderr, PROG ": %s holds no saved run (%s is missing): nothing to resume\n", a->out,
            state_file);
    return 1;
  }
  if (!a->resume && has_state) {
    fprintf(stderr,
            PROG ": %s already holds a run (%s); add --resume to continue it, or choose "
            "another --out\n",
            a->out, state_file);
    return 1;
  }
  if (a->resume) return resume_settings(a, rate, o, st);
  int rc = new_settings(a, rate, o);
  if (rc < 0) fprintf(stderr, PROG ": out of memory\n");
  return rc ? 1 : 0;
}

int el__pretrain_run(const el__pt_args *a) {
  double rate;
  int code = check_args(a, &rate);
  if (code) return code;
  el_error err = {0};
  if (el__dist_init(&err)) {
    fprintf(stderr, PROG ": %s\n", err.msg);
    return 1;
  }
  el__pt_opts o;
  memset(&o, 0, sizeof o);
  el__state st;
  memset(&st, 0, sizeof st);
  code = settings(a, rate, &o, &st);
  if (!code && el__precision_apply(o.precision, &err)) {
    fprintf(stderr, PROG ": %s%s\n", err.msg, a->resume && !a->precision ? " (the run's own)" : "");
    code = 2;
  }
  if (!code) code = el__pretrain_main(&o, a->resume, a->resume ? &st : NULL, (int)a->accumulate);
  free(st.settings_json);
  el__pt_opts_free(&o);
  el__dist_finalize();
  return code;
}

int el__cmd_pretrain(int argc, char **argv) {
  el__pt_args a;
  int rc = el__pretrain_parse(argc, argv, &a);
  if (rc != EL_CLI_OK) return rc == EL_CLI_HELP ? 0 : 2;
  return el__pretrain_run(&a);
}
