/* Progress bar and log lines (progress.h). */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "el_cli.h"
#include "progress.h"

double el__mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void el__progress_init(el__progress *p, FILE *f, int64_t total) {
  memset(p, 0, sizeof *p);
  p->f = f;
  p->tty = isatty(fileno(f));
  p->total = total;
}

void el__progress_set_total(el__progress *p, int64_t total, int planned) {
  p->total = total;
  p->planned = planned;
}

/* "1500", "~1480" (a time plan) or "?" (not planned yet). */
static const char *fmt_total(const el__progress *p, char *buf, size_t n) {
  if (p->total <= 0) snprintf(buf, n, "?");
  else snprintf(buf, n, "%s%lld", p->planned ? "~" : "", (long long)p->total);
  return buf;
}

static void fmt_rate(char *buf, size_t n, double r) {
  if (!isfinite(r)) snprintf(buf, n, "?");
  else if (r >= 1e6) snprintf(buf, n, "%.2fM", r / 1e6);
  else if (r >= 1e3) snprintf(buf, n, "%.1fk", r / 1e3);
  else snprintf(buf, n, "%.0f", r);
}

double el__base_rate_loss(double q) {
  if (!(q >= 0 && q <= 1)) return NAN;
  return q > 0 && q < 1 ? -(q * log(q) + (1 - q) * log1p(-q)) : 0.0;
}

/* The fields shared by the bar and the log line. */
static void fields(char *buf, size_t n, const el__progress_stats *s) {
  char rate[32], eta[32], base[48] = "", auc[32] = "";
  el__format_duration(s->eta_s, eta, sizeof eta);
  if (s->finetune) {
    fmt_rate(rate, sizeof rate, s->examples_per_s);
    snprintf(buf, n, "epoch %ld/%ld | loss %.4f | lr %.2e | %s ex/s | ETA %s", s->epoch,
             s->epochs, s->loss, s->lr, rate, eta);
    return;
  }
  fmt_rate(rate, sizeof rate, s->tokens_per_s);
  if (isnan(s->disc_loss)) {
    snprintf(buf, n, "%s tok/s | mlm %.3f acc %.1f%% | lr %.2e | ETA %s", rate, s->gen_loss,
             100 * s->gen_acc, s->lr, eta);
    return;
  }
  if (isfinite(s->disc_base_loss)) snprintf(base, sizeof base, " (base rate %.4f)", s->disc_base_loss);
  if (isfinite(s->disc_auc)) snprintf(auc, sizeof auc, " | val AUC %.3f", s->disc_auc);
  snprintf(buf, n, "%s tok/s | gen %.3f acc %.1f%% | disc %.4f%s%s | lr %.2e | ETA %s", rate,
           s->gen_loss, 100 * s->gen_acc, s->disc_loss, base, auc, s->lr, eta);
}

/* The terminal's columns (asked at every draw: it may be resized), else
 * $COLUMNS, else 80. */
static int term_cols(FILE *f) {
  struct winsize w;
  if (ioctl(fileno(f), TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
  const char *c = getenv("COLUMNS");
  int n = c ? atoi(c) : 0;
  return n > 0 ? n : 80;
}

void el__progress_update(el__progress *p, const el__progress_stats *s, int force) {
  if (!p->tty) return;
  double t = el__mono_s();
  if (!force && p->drawn && t - p->last_draw < 0.1) return;
  p->last_draw = t;
  const int W = 20;
  double frac = p->total > 0 ? (double)s->step / (double)p->total : 0;
  if (frac > 1) frac = 1;
  int fill = (int)(frac * W);
  char bar[W + 1];
  for (int i = 0; i < W; i++) bar[i] = i < fill ? '=' : (i == fill ? '>' : ' ');
  bar[W] = 0;
  char rest[320], tot[32], line[400];
  fields(rest, sizeof rest, s);
  snprintf(line, sizeof line, "%lld/%s [%s] %3.0f%% | %s", (long long)s->step,
           fmt_total(p, tot, sizeof tot), bar, 100 * frac, rest);
  /* Cut to the width less one (the last column wraps on some terminals): a
   * wrapped status line is left behind by every redraw. The line is ASCII. */
  int cols = term_cols(p->f) - 1;
  if (cols > 0 && (size_t)cols < strlen(line)) line[cols] = 0;
  fprintf(p->f, "\r\033[K%s", line);
  fflush(p->f);
  p->drawn = 1;
}

void el__progress_log(el__progress *p, const el__progress_stats *s) {
  if (p->tty) return;
  char rest[320], tot[32];
  fields(rest, sizeof rest, s);
  fprintf(p->f, "step %lld/%s | %s\n", (long long)s->step, fmt_total(p, tot, sizeof tot), rest);
  fflush(p->f);
}

void el__progress_note(el__progress *p, const char *fmt, ...) {
  if (p->drawn) fputs("\r\033[K", p->f);
  p->drawn = 0;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(p->f, fmt, ap);
  va_end(ap);
  fputc('\n', p->f);
  fflush(p->f);
}

void el__progress_done(el__progress *p) {
  if (p->drawn) fputc('\n', p->f);
  p->drawn = 0;
  fflush(p->f);
}
