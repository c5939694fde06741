/* The option table of electra-train pretrain (pretrain_cli.h). */
#include <string.h>
#include "pretrain_cli.h"
#include "precision.h"

void el__pt_args_init(el__pt_args *a) {
  memset(a, 0, sizeof *a);
  a->accumulate = a->max_steps = a->batch = a->seq_len = a->warmup = a->seed = -1;
  a->save_every = a->threads = a->log_every = a->val_every = a->val_examples = -1;
  a->time_limit = a->lr = a->wd = a->gen_size = a->disc_weight = a->mask_prob = -1;
  a->val_fraction = -1;
}

/* One entry per option, read as data; --help lists them in this order. */
void el__pt_cli_table(el__pt_args *a, el_opt t[EL_PT_N_OPTS]) {
  const el_opt d[EL_PT_N_OPTS] = {
      {"--input", EL_OPT_STRS, &a->inputs, 0, 0, "PATH...", "text files: one sentence or paragraph per line, a blank line between documents", 0},
      {"--vocab", EL_OPT_STR, &a->vocab, 0, 0, "vocab.txt", "WordPiece vocabulary (electra-train vocab); must hold [PAD] [UNK] [CLS] [SEP] [MASK]", 0},
      {"--out", EL_OPT_STR, &a->out, 0, 0, "RUN", "run directory (checkpoints, state, metrics.jsonl, loss.svg)", 0},
      {"--preset", EL_OPT_CHOICE, &a->preset, 0, 0, "tiny|mini|small|base|large", "model size (tiny: hidden 128, 4 layers, 2 heads, FFN 512, embedding 128)", 0},
      {"--objective", EL_OPT_CHOICE, &a->objective, 0, 0, "electra|mlm", "replaced-token detection (default) or the BERT MLM baseline", 0},
      {"--max-steps", EL_OPT_INT, &a->max_steps, 1, 1e12, "N", "optimizer steps; the LR decays linearly to 0 at N (tiny 10000, small 1M, base 766k, large 400k); with --time-limit an upper bound of the plan (none unless given)", 0},
      {"--time-limit", EL_OPT_DURATION, &a->time_limit, 0, 1e9, "T", "plan the LR schedule so that this session, its setup and final save included, ends by T: 90s, 10m, 2h, 1h30m (see below)", 0},
      {"--batch-size", EL_OPT_INT, &a->batch, 1, 65536, "N", "sequences per step, the global batch of all ranks and accumulation steps (tiny 32, small 128, base 256, large 2048)", 0},
      {"--accumulate", EL_OPT_INT, &a->accumulate, 1, 65536, "N", "gradient accumulation: each rank computes its share of the batch in N micro-batches before the one optimizer step (memory of batch/(ranks x N) sequences; same result up to float rounding) (1)", 0},
      {"--seq-len", EL_OPT_INT, &a->seq_len, 8, 4096, "N", "tokens per sequence incl. [CLS]/[SEP] (tiny/small 128, base/large 512)", 0},
      {"--lr", EL_OPT_FLOAT, &a->lr, 1e-9, 1, "X", "peak learning rate (tiny/small 5e-4, base/large 2e-4)", 0},
      {"--warmup-steps", EL_OPT_INT, &a->warmup, 0, 1e12, "N", "linear warmup steps (10000; tiny 1000; at most a tenth of max-steps, or of the planned steps with --time-limit, unless given)", 0},
      {"--weight-decay", EL_OPT_FLOAT, &a->wd, 0, 1, "X", "AdamW decoupled weight decay, not on LayerNorm/bias (0.01)", 0},
      {"--generator-size", EL_OPT_FLOAT, &a->gen_size, 0.01, 4, "X", "generator hidden/FFN/heads multiplier (0.25; base 1/3)", 0},
      {"--bias-init", EL_OPT_CHOICE, &a->bias_init, 0, 0, "prior|zero", "output biases at their priors: log unigram frequencies (MLM), log-odds of --mask-prob (discriminator); zero = Google's 0 (prior)", 0},
      {"--position-embedding", EL_OPT_CHOICE, &a->position, 0, 0, "absolute|relative_key", "absolute: learned position embeddings (the paper's, default); relative_key: none, each layer's attention learns a score per distance between tokens (HF position_embedding_type), so what is learnt at one place of a sentence holds at every place", 0},
      {"--tie-generator", EL_OPT_FLAG, &a->tie_generator, 0, 0, NULL, "the generator shares the discriminator's whole encoder (GR untied_generator=False, the paper's \"all tied\"; implies --generator-size 1)", 0},
      {"--disc-special", EL_OPT_CHOICE, &a->disc_special, 0, 0, "include|exclude", "[CLS]/[SEP] in the discriminator loss (GR and default: include); exclude gives them weight 0", 0},
      {"--corruption", EL_OPT_STR, &a->corruption, 0, 0, "none|learner[:RATE]", "learner (ESL) errors added before masking, RATE errors per word (learner: 0.1); their tokens are labelled replaced (none)", 0},
      {"--disc-weight", EL_OPT_FLOAT, &a->disc_weight, 0, 1e6, "X", "weight of the discriminator loss (50)", 0},
      {"--mask-prob", EL_OPT_FLOAT, &a->mask_prob, 0.001, 0.9, "X", "fraction of tokens masked (0.15; large 0.25)", 0},
      {"--seed", EL_OPT_INT, &a->seed, 0, 9007199254740992.0, "N", "random seed: init, data order, masking, dropout, samples (1)", 0},
      {"--save-every", EL_OPT_INT, &a->save_every, 0, 1e12, "N", "checkpoint every N steps, 0 = only at the end (1000)", 0},
      {"--threads", EL_OPT_INT, &a->threads, 0, 1024, "N", "threads, 0 = the CPUs available (0); each step's batch is shared out over model copies, one per thread (see below)", 0},
      {"--precision", EL_OPT_CHOICE, &a->precision, 0, 0, EL_PRECISION_CHOICES, EL_PRECISION_HELP, 0},
      {"--resume", EL_OPT_FLAG, &a->resume, 0, 0, NULL, "continue the run saved in --out exactly where it stopped", 0},
      {"--log-every", EL_OPT_INT, &a->log_every, 1, 1e12, "N", "a metrics.jsonl row (and a log line) every N steps (10)", 0},
      {"--val-every", EL_OPT_INT, &a->val_every, 0, 1e12, "N", "validate on the held-out slice every N steps, 0 = only at the end (500)", 0},
      {"--val-fraction", EL_OPT_FLOAT, &a->val_fraction, 0, 0.5, "X", "fraction of examples held out for validation (0.01)", 0},
      {"--val-examples", EL_OPT_INT, &a->val_examples, 0, 1e9, "N", "at most N held-out examples (512)", 0},
      {"--cache", EL_OPT_STR, &a->cache, 0, 0, "PATH", "token cache file, reused when it matches (RUN/cache/tokens.bin)", 0},
  };
  memcpy(t, d, sizeof d);
}
