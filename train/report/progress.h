/* What a user sees while a long run trains: on a terminal (isatty(stderr))
 * one status line redrawn in place with \r (step/total, a bar, tokens/s,
 * losses and accuracies, learning rate, ETA), cut to the terminal's width
 * (TIOCGWINSZ, else $COLUMNS, else 80); otherwise plain log lines, one
 * per call of el__progress_log. Messages (el__progress_note) first clear the
 * status line so nothing is garbled. */
#ifndef EL_TRAIN_PROGRESS_H
#define EL_TRAIN_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

typedef struct el__progress {
  FILE *f;
  int tty;
  int drawn;        /* a status line is on screen */
  double last_draw; /* monotonic seconds */
  int64_t total;    /* the schedule's total steps; 0 = not known yet */
  int planned;      /* total is a time plan (--time-limit): shown as ~N */
} el__progress;

/* What the line shows. Pretraining: tokens/s, the generator's loss and
 * accuracy, the discriminator's loss beside its base-rate loss (the loss of
 * always answering the fraction of replaced tokens: below it the
 * discriminator tells replaced from original tokens, at it it has learned
 * nothing; its accuracy is not shown, as always answering "original" already
 * scores the base rate), the last validation's AUC. Fine-tuning (finetune =
 * 1): the epoch, the loss and examples/s. */
typedef struct el__progress_stats {
  int64_t step;
  double tokens_per_s, lr, eta_s;
  double gen_loss, gen_acc, disc_loss, disc_acc; /* disc_* NaN for MLM; disc_acc not shown */
  double disc_base_loss; /* base-rate loss of the same tokens; NaN: not shown */
  double disc_auc;       /* the last validation's AUC; NaN (none yet): not shown */
  int finetune;
  double loss, examples_per_s;
  long epoch, epochs;
} el__progress_stats;

/* The binary cross-entropy of the best constant answer when a fraction q of
 * the labels is 1: -(q ln q + (1-q) ln(1-q)); NaN when q is not in [0, 1]. */
double el__base_rate_loss(double q);

void el__progress_init(el__progress *p, FILE *f, int64_t total);
/* A new total (a time-planned run re-plans as it goes); planned: shown as
 * "~N", and total 0 as "?" (still measuring). */
void el__progress_set_total(el__progress *p, int64_t total, int planned);
/* Terminal: redraws the status line (at most ~10 times a second unless
 * force). Not a terminal: does nothing (see el__progress_log). */
void el__progress_update(el__progress *p, const el__progress_stats *s, int force);
/* Not a terminal: prints one line with the same fields. Terminal: nothing. */
void el__progress_log(el__progress *p, const el__progress_stats *s);
/* A message on its own line (printf-style), the status line redrawn later. */
void el__progress_note(el__progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Ends the status line (newline) if one is drawn. */
void el__progress_done(el__progress *p);

/* Monotonic seconds: the one clock of the trainer's progress lines, step
 * timing, time limits and stage reports. */
double el__mono_s(void);

/* "s" after a count other than 1, for log lines ("1 thread", "2 threads"). */
static inline const char *el__s(long n) { return n == 1 ? "" : "s"; }

#endif
