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
#include "pretrain_run.h"
#include "schedule.h"

#define PROG "electra-train pretrain"

/* Raw values as given on the command line. */
static el_strlist a_inputs;
static const char *a_vocab, *a_out, *a_cache, *a_preset, *a_objective, *a_bias_init, *a_disc_special;
static const char *a_position; /* --position-embedding absolute|relative_key */
static long a_accumulate;
static long a_max_steps, a_batch, a_seq_len, a_warmup, a_seed, a_save_every, a_threads,
    a_log_every, a_val_every, a_val_examples;
static double a_time_limit, a_lr, a_wd, a_gen_size, a_disc_weight, a_mask_prob, a_val_fraction;
static int a_resume, a_tie_generator;
static const char *a_corruption; /* --corruption none|learner[:RATE] */
static double a_corruption_rate;

static el_opt opts[] = {
    {"--input", EL_OPT_STRS, &a_inputs, 0, 0, "PATH...", "text files: one sentence or paragraph per line, a blank line between documents", 0},
    {"--vocab", EL_OPT_STR, &a_vocab, 0, 0, "vocab.txt", "WordPiece vocabulary (electra-train vocab); must hold [PAD] [UNK] [CLS] [SEP] [MASK]", 0},
    {"--out", EL_OPT_STR, &a_out, 0, 0, "RUN", "run directory (checkpoints, state, metrics.jsonl, loss.svg)", 0},
    {"--preset", EL_OPT_CHOICE, &a_preset, 0, 0, "tiny|small|base|large", "model size (tiny: hidden 128, 4 layers, 2 heads, FFN 512, embedding 128)", 0},
    {"--objective", EL_OPT_CHOICE, &a_objective, 0, 0, "electra|mlm", "replaced-token detection (default) or the BERT MLM baseline", 0},
    {"--max-steps", EL_OPT_INT, &a_max_steps, 1, 1e12, "N", "optimizer steps; the LR decays linearly to 0 at N (tiny 10000, small 1M, base 766k, large 400k); with --time-limit an upper bound of the plan (none unless given)", 0},
    {"--time-limit", EL_OPT_DURATION, &a_time_limit, 0, 1e9, "T", "plan the LR schedule to end after T of training in this session, then save: 90s, 10m, 2h, 1h30m (see below)", 0},
    {"--batch-size", EL_OPT_INT, &a_batch, 1, 65536, "N", "sequences per step, the global batch of all ranks and accumulation steps (tiny 32, small 128, base 256, large 2048)", 0},
    {"--accumulate", EL_OPT_INT, &a_accumulate, 1, 65536, "N", "gradient accumulation: each rank computes its share of the batch in N micro-batches before the one optimizer step (memory of batch/(ranks x N) sequences; same result up to float rounding) (1)", 0},
    {"--seq-len", EL_OPT_INT, &a_seq_len, 8, 4096, "N", "tokens per sequence incl. [CLS]/[SEP] (tiny/small 128, base/large 512)", 0},
    {"--lr", EL_OPT_FLOAT, &a_lr, 1e-9, 1, "X", "peak learning rate (tiny/small 5e-4, base/large 2e-4)", 0},
    {"--warmup-steps", EL_OPT_INT, &a_warmup, 0, 1e12, "N", "linear warmup steps (10000; tiny 1000; at most a tenth of max-steps, or of the planned steps with --time-limit, unless given)", 0},
    {"--weight-decay", EL_OPT_FLOAT, &a_wd, 0, 1, "X", "AdamW decoupled weight decay, not on LayerNorm/bias (0.01)", 0},
    {"--generator-size", EL_OPT_FLOAT, &a_gen_size, 0.01, 4, "X", "generator hidden/FFN/heads multiplier (0.25; base 1/3)", 0},
    {"--bias-init", EL_OPT_CHOICE, &a_bias_init, 0, 0, "prior|zero", "output biases at their priors: log unigram frequencies (MLM), log-odds of --mask-prob (discriminator); zero = Google's 0 (prior)", 0},
    {"--position-embedding", EL_OPT_CHOICE, &a_position, 0, 0, "absolute|relative_key", "absolute: learned position embeddings (the paper's, default); relative_key: none, each layer's attention learns a score per distance between tokens (HF position_embedding_type), so what is learnt at one place of a sentence holds at every place", 0},
    {"--tie-generator", EL_OPT_FLAG, &a_tie_generator, 0, 0, NULL, "the generator shares the discriminator's whole encoder (GR untied_generator=False, the paper's \"all tied\"; implies --generator-size 1)", 0},
    {"--disc-special", EL_OPT_CHOICE, &a_disc_special, 0, 0, "include|exclude", "[CLS]/[SEP] in the discriminator loss (GR and default: include); exclude gives them weight 0", 0},
    {"--corruption", EL_OPT_STR, &a_corruption, 0, 0, "none|learner[:RATE]", "learner (ESL) errors added before masking, RATE errors per word (learner: 0.1); their tokens are labelled replaced (none)", 0},
    {"--disc-weight", EL_OPT_FLOAT, &a_disc_weight, 0, 1e6, "X", "weight of the discriminator loss (50)", 0},
    {"--mask-prob", EL_OPT_FLOAT, &a_mask_prob, 0.001, 0.9, "X", "fraction of tokens masked (0.15; large 0.25)", 0},
    {"--seed", EL_OPT_INT, &a_seed, 0, 9007199254740992.0, "N", "random seed: init, data order, masking, dropout, samples (1)", 0},
    {"--save-every", EL_OPT_INT, &a_save_every, 0, 1e12, "N", "checkpoint every N steps, 0 = only at the end (1000)", 0},
    {"--threads", EL_OPT_INT, &a_threads, 0, 1024, "N", "threads, 0 = the CPUs available (0)", 0},
    {"--resume", EL_OPT_FLAG, &a_resume, 0, 0, NULL, "continue the run saved in --out exactly where it stopped", 0},
    {"--log-every", EL_OPT_INT, &a_log_every, 1, 1e12, "N", "a metrics.jsonl row (and a log line) every N steps (10)", 0},
    {"--val-every", EL_OPT_INT, &a_val_every, 0, 1e12, "N", "validate on the held-out slice every N steps, 0 = only at the end (500)", 0},
    {"--val-fraction", EL_OPT_FLOAT, &a_val_fraction, 0, 0.5, "X", "fraction of examples held out for validation (0.01)", 0},
    {"--val-examples", EL_OPT_INT, &a_val_examples, 0, 1e9, "N", "at most N held-out examples (512)", 0},
    {"--cache", EL_OPT_STR, &a_cache, 0, 0, "PATH", "token cache file, reused when it matches (RUN/cache/tokens.bin)", 0},
};
#define N_OPTS ((int)(sizeof opts / sizeof opts[0]))

const el_opt *el__pt_cli_option(const char *name) { return el__cli_find(opts, N_OPTS, name); }

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
  el__cli_print_options(f, opts, N_OPTS);
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
          "near-0 value), at or just before T, leaving time for the final validation and save\n"
          "(the time of the last ones). Until the measurement is over the schedule of\n"
          "--max-steps (or of the plan saved in the run) applies. --max-steps, when given, is\n"
          "an upper bound of the plan. Log lines show the planned total as ~N and\n"
          "metrics.jsonl train rows carry it as planned_steps. T counts from the end of\n"
          "setup (tokenizing, loading): the first and last validation are inside it.\n");
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
          "and schedule; float sums in another order). Multi-node runs: docs/TRAINING.md.\n");
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static int set_inputs(el__pt_opts *o) {
  for (int i = 0; i < o->n_inputs; i++) free(o->inputs[i]);
  free(o->inputs);
  o->n_inputs = 0;
  o->inputs = calloc((size_t)a_inputs.n, sizeof *o->inputs);
  if (!o->inputs) return -1;
  for (int i = 0; i < a_inputs.n; i++)
    if (!(o->inputs[o->n_inputs++] = strdup(a_inputs.v[i]))) return -1;
  return 0;
}

static int seen(const char *name) { return el__cli_find(opts, N_OPTS, name)->seen; }

/* A resumed run: the option must match the saved value. */
static int same_num(const char *name, double given, double saved) {
  if (!seen(name) || given == saved) return 0;
  fprintf(stderr,
          PROG ": %s %g differs from the run's saved value %g; a resumed run keeps its "
          "settings (start a new --out to change it)\n",
          name, given, saved);
  return 1;
}

/* A resumed run keeps its settings: 1 (after saying which) when the command
 * line gives another value for one of them. */
static int settings_differ(const el__pt_opts *o) {
  if (a_preset && strcmp(a_preset, o->preset)) {
    fprintf(stderr, PROG ": --preset %s differs from the run's preset %s\n", a_preset, o->preset);
    return 1;
  }
  if (a_objective && (!strcmp(a_objective, "mlm")) != o->mlm) {
    fprintf(stderr, PROG ": --objective %s differs from the run's objective %s\n", a_objective,
            o->mlm ? "mlm" : "electra");
    return 1;
  }
  if (a_disc_special && (!strcmp(a_disc_special, "exclude")) != o->disc_skip_special) {
    fprintf(stderr, PROG ": --disc-special %s differs from the run's %s\n", a_disc_special,
            o->disc_skip_special ? "exclude" : "include");
    return 1;
  }
  if (a_bias_init && (!strcmp(a_bias_init, "zero")) != o->bias_init_zero) {
    fprintf(stderr, PROG ": --bias-init %s differs from the run's %s\n", a_bias_init,
            o->bias_init_zero ? "zero" : "prior");
    return 1;
  }
  if (a_corruption && a_corruption_rate != o->corruption_rate) {
    fprintf(stderr, PROG ": --corruption %s differs from the run's (rate %g)\n", a_corruption,
            o->corruption_rate);
    return 1;
  }
  if (a_position && (!strcmp(a_position, "relative_key")) != o->relative_positions) {
    fprintf(stderr, PROG ": --position-embedding %s differs from the run's %s\n", a_position,
            o->relative_positions ? "relative_key" : "absolute");
    return 1;
  }
  if (a_tie_generator && !o->tie_generator) {
    fprintf(stderr, PROG ": --tie-generator differs from the run's untied generator\n");
    return 1;
  }
  return same_num("--batch-size", a_batch, o->batch_size) ||
      same_num("--seq-len", a_seq_len, o->seq_len) || same_num("--lr", a_lr, o->lr) ||
      same_num("--warmup-steps", a_warmup, o->warmup_steps) ||
      same_num("--weight-decay", a_wd, o->weight_decay) ||
      same_num("--generator-size", a_gen_size, o->gen_size) ||
      same_num("--disc-weight", a_disc_weight, o->disc_weight) ||
      same_num("--mask-prob", a_mask_prob, o->mask_prob) || same_num("--seed", a_seed, o->seed) ||
      same_num("--val-fraction", a_val_fraction, o->val_fraction) ||
      same_num("--val-examples", a_val_examples, o->val_examples);
}

/* What a resumed session may change: the step budget, the time limit, the
 * intervals, threads, the input files, vocabulary and cache paths. */
static int session_overrides(el__pt_opts *o, const el__state *st) {
  if (seen("--max-steps") && a_max_steps != o->max_steps) {
    fprintf(stderr,
            "note: --max-steps %ld replaces %ld: the learning-rate schedule changes from here "
            "on\n",
            a_max_steps, o->max_steps);
    o->max_steps = a_max_steps;
  }
  if (seen("--time-limit")) o->time_limit = a_time_limit;
  if (o->time_limit <= 0 && o->max_steps >= EL__STEPS_UNBOUNDED) {
    fprintf(stderr,
            PROG ": %s was planned by --time-limit alone (no --max-steps): give --time-limit "
            "or --max-steps to continue it\n",
            a_out);
    return 1;
  }
  if (seen("--save-every")) o->save_every = a_save_every;
  if (seen("--threads")) o->threads = a_threads;
  if (seen("--log-every")) o->log_every = a_log_every;
  if (seen("--val-every")) o->val_every = a_val_every;
  if (a_inputs.n && set_inputs(o)) return 1;
  if (a_vocab) {
    free(o->vocab);
    o->vocab = strdup(a_vocab);
  }
  if (a_cache) {
    free(o->cache);
    o->cache = strdup(a_cache);
  }
  free(o->out);
  o->out = strdup(a_out);
  if (st->step >= o->max_steps) {
    fprintf(stderr,
            PROG ": %s already reached step %lld of --max-steps %ld; give a larger --max-steps "
            "to train further\n",
            a_out, (long long)st->step, o->max_steps);
    return 1;
  }
  return 0;
}

static int resume_settings(el__pt_opts *o, el__state *st) {
  el_error err = {0};
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/state", a_out);
  if (el__state_peek(dir, st, &err)) {
    fprintf(stderr, PROG ": cannot resume %s: %s\n", a_out, err.msg);
    return 1;
  }
  char file[4300];
  snprintf(file, sizeof file, "%s/state.bin", dir);
  if (el__pt_opts_from_json(st->settings_json, o, file, &err)) {
    fprintf(stderr, PROG ": cannot resume %s: %s\n", a_out, err.msg);
    return 1;
  }
  if (settings_differ(o)) return 1;
  return session_overrides(o, st);
}

static int new_settings(el__pt_opts *o) {
  const el__preset *p = el__preset_find(a_preset ? a_preset : "tiny");
  el__pt_opts_defaults(o, p);
  o->mlm = a_objective && !strcmp(a_objective, "mlm");
  o->bias_init_zero = a_bias_init && !strcmp(a_bias_init, "zero");
  o->disc_skip_special = a_disc_special && !strcmp(a_disc_special, "exclude");
  o->relative_positions = a_position && !strcmp(a_position, "relative_key");
  o->corruption_rate = a_corruption_rate;
  if (seen("--max-steps")) o->max_steps = a_max_steps;
  else if (a_time_limit > 0) o->max_steps = EL__STEPS_UNBOUNDED; /* the time decides */
  if (seen("--batch-size")) o->batch_size = a_batch;
  if (seen("--seq-len")) o->seq_len = a_seq_len;
  if (seen("--lr")) o->lr = a_lr;
  o->warmup_auto = !seen("--warmup-steps");
  if (seen("--warmup-steps")) o->warmup_steps = a_warmup;
  else if (o->warmup_steps > o->max_steps / 10) o->warmup_steps = o->max_steps / 10;
  if (seen("--weight-decay")) o->weight_decay = a_wd;
  if (seen("--generator-size")) o->gen_size = a_gen_size;
  o->tie_generator = a_tie_generator && !o->mlm;
  if (o->tie_generator) {
    if (seen("--generator-size") && a_gen_size != 1.0) {
      fprintf(stderr, PROG ": --tie-generator shares the whole encoder, so the generator has the "
                      "discriminator's size: drop --generator-size %g (or give 1)\n", a_gen_size);
      return 1;
    }
    o->gen_size = 1.0;
  }
  if (seen("--disc-weight")) o->disc_weight = a_disc_weight;
  if (seen("--mask-prob")) o->mask_prob = a_mask_prob;
  if (seen("--seed")) o->seed = a_seed;
  if (seen("--save-every")) o->save_every = a_save_every;
  if (seen("--threads")) o->threads = a_threads;
  if (seen("--log-every")) o->log_every = a_log_every;
  if (seen("--val-every")) o->val_every = a_val_every;
  if (seen("--val-fraction")) o->val_fraction = a_val_fraction;
  if (seen("--val-examples")) o->val_examples = a_val_examples;
  if (seen("--time-limit")) o->time_limit = a_time_limit;
  if (set_inputs(o)) return 1;
  o->vocab = dup_or_null(a_vocab);
  o->out = dup_or_null(a_out);
  o->cache = dup_or_null(a_cache);
  if (o->mlm && seen("--generator-size"))
    fprintf(stderr, "note: --generator-size has no effect with --objective mlm\n");
  if (o->mlm && a_tie_generator)
    fprintf(stderr, "note: --tie-generator has no effect with --objective mlm\n");
  return 0;
}

/* The option variables are file-scope (the table points at them): clear them
 * so that a second call in one process (tests) starts afresh. */
static void reset_args(void) {
  memset(&a_inputs, 0, sizeof a_inputs);
  a_vocab = a_out = a_cache = a_preset = a_objective = a_bias_init = a_disc_special = NULL;
  a_position = NULL;
  a_accumulate = 0;
  a_max_steps = a_batch = a_seq_len = a_warmup = a_seed = a_save_every = a_threads = 0;
  a_log_every = a_val_every = a_val_examples = 0;
  a_time_limit = a_lr = a_wd = a_gen_size = a_disc_weight = a_mask_prob = a_val_fraction = 0;
  a_resume = a_tie_generator = 0;
  a_corruption = NULL;
  a_corruption_rate = 0;
}

static int pretrain(void);

int el__cmd_pretrain(int argc, char **argv) {
  reset_args();
  int rc = el__cli_parse(PROG, opts, N_OPTS, argc, argv, usage);
  if (rc != EL_CLI_OK) return rc == EL_CLI_HELP ? 0 : 2;
  el_error err = {0};
  if (el__dist_init(&err)) {
    fprintf(stderr, PROG ": %s\n", err.msg);
    return 1;
  }
  int code = pretrain();
  el__dist_finalize();
  return code;
}

/* The parsed command line to a run. */
static int pretrain(void) {
  if (a_corruption && el__lids_parse_option(a_corruption, &a_corruption_rate)) {
    fprintf(stderr, PROG ": --corruption '%s': expected none, learner or learner:RATE with RATE in (0, 1]\n",
            a_corruption);
    return 2;
  }
  if (a_corruption_rate > 0 && a_objective && !strcmp(a_objective, "mlm")) {
    fprintf(stderr, PROG ": --corruption needs a discriminator (--objective electra)\n");
    return 2;
  }
  if (!a_out) {
    fprintf(stderr, PROG ": --out RUN is required (see --help)\n");
    return 2;
  }
  char state_file[4200];
  snprintf(state_file, sizeof state_file, "%s/state/state.bin", a_out);
  struct stat sb;
  int has_state = stat(state_file, &sb) == 0;
  el__pt_opts o;
  memset(&o, 0, sizeof o);
  el__state st;
  memset(&st, 0, sizeof st);
  int code;
  if (a_resume) {
    if (!has_state) {
      fprintf(stderr, PROG ": %s holds no saved run (%s is missing): nothing to resume\n", a_out,
              state_file);
      return 1;
    }
    if (resume_settings(&o, &st)) {
      code = 1;
      goto done;
    }
  } else {
    if (!a_inputs.n || !a_vocab) {
      fprintf(stderr, PROG ": --input and --vocab are required (see --help)\n");
      return 2;
    }
    if (has_state) {
      fprintf(stderr,
              PROG ": %s already holds a run (%s); add --resume to continue it, or choose "
              "another --out\n",
              a_out, state_file);
      return 1;
    }
    if (new_settings(&o)) {
      fprintf(stderr, PROG ": out of memory\n");
      code = 1;
      goto done;
    }
  }
  code = el__pretrain_main(&o, a_resume, a_resume ? &st : NULL, (int)a_accumulate);
done:
  free(st.settings_json);
  el__pt_opts_free(&o);
  return code;
}
