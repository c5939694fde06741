/* SVG line plots (svg.h). Text is XML-escaped; numbers use "%g" with a
 * precision fitted to the tick step. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "svg.h"
#include "trainer_api.h"

#define W 900
#define PANEL_H 320
#define TOP 48
#define ML 78
#define MR 190
#define MT 34
#define MB 52

int el__svg_ticks(double lo, double hi, int target, double *ticks, int max, double *step) {
  if (!(hi > lo)) hi = lo + 1;
  double raw = (hi - lo) / (target > 1 ? target : 1);
  double mag = pow(10, floor(log10(raw)));
  double f = raw / mag, s;
  if (f <= 1) s = mag;
  else if (f <= 2) s = 2 * mag;
  else if (f <= 5) s = 5 * mag;
  else s = 10 * mag;
  int n = 0;
  for (double t = ceil(lo / s - 1e-9) * s; t <= hi + s * 1e-9 && n < max; t += s)
    ticks[n++] = fabs(t) < s * 1e-9 ? 0.0 : t;
  if (step) *step = s;
  return n;
}

static void xml_text(FILE *f, const char *s) {
  for (; s && *s; s++) {
    switch (*s) {
      case '<': fputs("&lt;", f); break;
      case '>': fputs("&gt;", f); break;
      case '&': fputs("&amp;", f); break;
      case '"': fputs("&quot;", f); break;
      default: fputc(*s, f);
    }
  }
}

/* 1 when an axis's labels are written with exponents: one of its ticks is
 * too large or too small for plain decimals. One style for the whole axis
 * ("0.00000" beside "8e-05" read as two scales). */
static int axis_sci(const double *ticks, int n) {
  for (int i = 0; i < n; i++)
    if (fabs(ticks[i]) >= 1e5 || (ticks[i] != 0 && fabs(ticks[i]) < 1e-3)) return 1;
  return 0;
}

/* Tick label with enough digits for the step, or "%.3g" on an axis of
 * exponents (0 as "0"). */
static void tick_label(char *buf, size_t n, double v, double step, int sci) {
  if (sci) {
    snprintf(buf, n, "%.3g", v);
    return;
  }
  int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
  if (dec > 6) dec = 6;
  snprintf(buf, n, "%.*f", dec, v);
}

/* A panel's plot area and the data range it shows. */
typedef struct frame {
  int x0, w, h, top;          /* plot area in pixels */
  double xmin, xmax, ymin, ymax;
  int log_y;
  double xt[32], yt[32], xs, ys; /* ticks and their steps */
  int nxt, nyt;
} frame;

static double px(const frame *fr, double x) {
  return fr->x0 + (x - fr->xmin) / (fr->xmax - fr->xmin) * fr->w;
}
static double py(const frame *fr, double y) {
  return fr->log_y ? fr->top + fr->h -
                         (log10(y) - log10(fr->ymin)) / (log10(fr->ymax) - log10(fr->ymin)) * fr->h
                   : fr->top + fr->h - (y - fr->ymin) / (fr->ymax - fr->ymin) * fr->h;
}

/* The range of the finite points (positive ones on a log axis), widened to
 * whole decades, zero or the panel's fixed range as asked. 1: no data. */
static int data_range(const el__svg_panel *p, frame *fr) {
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (int s = 0; s < p->n_series; s++)
    for (int i = 0; i < p->series[s].n; i++) {
      double x = p->series[s].x[i], y = p->series[s].y[i];
      if (!isfinite(x) || !isfinite(y) || (p->log_y && y <= 0)) continue;
      if (x < xmin) xmin = x;
      if (x > xmax) xmax = x;
      if (y < ymin) ymin = y;
      if (y > ymax) ymax = y;
    }
  int empty = !isfinite(xmin);
  if (empty) xmin = 0, xmax = 1, ymin = 0, ymax = 1;
  if (xmax <= xmin) xmin -= 0.5, xmax = xmin + 1; /* one x (one row, one epoch): centred */
  if (p->fixed_y) ymin = p->ymin, ymax = p->ymax;
  else if (p->include_zero && !p->log_y && ymin > 0) ymin = 0;
  if (p->log_y && !p->fixed_y) {
    ymin = pow(10, floor(log10(ymin)));
    ymax = pow(10, ceil(log10(ymax)));
  }
  if (ymax <= ymin) ymax = ymin + (ymin != 0 ? fabs(ymin) * 0.1 : 1);
  fr->xmin = xmin, fr->xmax = xmax, fr->ymin = ymin, fr->ymax = ymax;
  return empty;
}

/* Ticks: whole epochs on an integer x axis, decades on a log y axis, else
 * round steps, the y range extended to whole ticks unless fixed. */
static void fit_ticks(const el__svg_panel *p, frame *fr) {
  fr->nxt = el__svg_ticks(fr->xmin, fr->xmax, 8, fr->xt, 32, &fr->xs);
  if (p->integer_x && fr->xs < 1) { /* whole epochs */
    fr->nxt = 0;
    for (double v = ceil(fr->xmin); v <= fr->xmax + 1e-9 && fr->nxt < 32; v += 1)
      fr->xt[fr->nxt++] = v;
    fr->xs = 1;
  }
  double *yt = fr->yt;
  if (p->log_y) {
    fr->nyt = 0;
    for (double v = fr->ymin; v <= fr->ymax * 1.0001 && fr->nyt < 32; v *= 10) yt[fr->nyt++] = v;
    fr->ys = 1;
    return;
  }
  int nyt = fr->nyt = el__svg_ticks(fr->ymin, fr->ymax, 6, yt, 32, &fr->ys);
  if (p->fixed_y || !nyt) return;
  if (yt[0] > fr->ymin + 1e-12) { /* extend to whole ticks */
    memmove(yt + 1, yt, (size_t)nyt * sizeof *yt);
    yt[0] = yt[1] - fr->ys;
    nyt++;
  }
  if (yt[nyt - 1] < fr->ymax - 1e-12 && nyt < 32) yt[nyt] = yt[nyt - 1] + fr->ys, nyt++;
  fr->nyt = nyt;
  fr->ymin = yt[0];
  fr->ymax = yt[nyt - 1];
}

/* Title, frame, grid lines with their labels, axis labels. */
static void draw_axes(FILE *f, const el__svg_panel *p, const frame *fr, int y0, int empty) {
  const int x0 = fr->x0, w = fr->w, h = fr->h, top = fr->top;
  fprintf(f, "<g>\n<text x=\"%d\" y=\"%d\" class=\"pt\">", x0, y0 + 22);
  xml_text(f, p->title);
  fputs("</text>\n", f);
  fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"frame\"/>\n", x0, top, w,
          h);
  char lab[48];
  const int ysci = axis_sci(fr->yt, fr->nyt), xsci = axis_sci(fr->xt, fr->nxt);
  for (int i = 0; i < fr->nyt; i++) {
    if (fr->yt[i] < fr->ymin - 1e-12 || fr->yt[i] > fr->ymax + 1e-12) continue;
    double y = py(fr, fr->yt[i]);
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/>\n", x0, y,
            x0 + w, y);
    if (p->log_y) snprintf(lab, sizeof lab, "%g", fr->yt[i]);
    else tick_label(lab, sizeof lab, fr->yt[i], fr->ys, ysci);
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"yt\">%s</text>\n", x0 - 6, y + 4, lab);
  }
  for (int i = 0; i < fr->nxt; i++) {
    double x = px(fr, fr->xt[i]);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"grid\"/>\n", x, top, x,
            top + h);
    tick_label(lab, sizeof lab, fr->xt[i], fr->xs, xsci);
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"xt\">%s</text>\n", x, top + h + 18, lab);
  }
  fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"xl\">", x0 + w / 2, top + h + 40);
  xml_text(f, p->xlabel);
  fprintf(f, "</text>\n<text transform=\"translate(%d,%d) rotate(-90)\" class=\"xl\">", 18,
          top + h / 2);
  xml_text(f, p->ylabel);
  fputs("</text>\n", f);
  if (empty)
    fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"xl\">no data yet</text>\n", x0 + w / 2,
            top + h / 2);
}

/* Series s: its line (clamped to the range), markers where asked or for a
 * lone point, and its legend entry. */
static void draw_series(FILE *f, const el__svg_panel *p, const frame *fr, int s) {
  const el__svg_series *se = &p->series[s];
  const int x0 = fr->x0, w = fr->w;
  fprintf(f, "<polyline class=\"ln\" stroke=\"%s\"%s points=\"", se->color,
          se->dashed ? " stroke-dasharray=\"6 4\"" : "");
  int pts = 0;
  for (int i = 0; i < se->n; i++) {
    double x = se->x[i], y = se->y[i];
    if (!isfinite(x) || !isfinite(y) || (p->log_y && y <= 0)) continue;
    if (y < fr->ymin) y = fr->ymin;
    if (y > fr->ymax) y = fr->ymax;
    fprintf(f, "%s%.1f,%.1f", pts++ ? " " : "", px(fr, x), py(fr, y));
  }
  fputs("\"/>\n", f);
  if (se->markers || pts == 1) { /* a lone point would be invisible as a polyline */
    for (int i = 0; i < se->n; i++)
      if (isfinite(se->x[i]) && isfinite(se->y[i]) && !(p->log_y && se->y[i] <= 0))
        fprintf(f, "<circle class=\"mk\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n",
                px(fr, se->x[i]), py(fr, fmin(fmax(se->y[i], fr->ymin), fr->ymax)), se->color);
  }
  int ly = fr->top + 8 + 20 * s;
  fprintf(f,
          "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2.5\"%s/>\n",
          x0 + w + 14, ly, x0 + w + 40, ly, se->color,
          se->dashed ? " stroke-dasharray=\"6 4\"" : "");
  if (se->markers)
    fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"3.5\" fill=\"%s\"/>\n", x0 + w + 27, ly,
            se->color);
  fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"lg\">", x0 + w + 46, ly + 4);
  xml_text(f, se->name);
  fputs("</text>\n", f);
}

/* Panels with the same x label share one x range (the union of theirs, as
 * data_range gives it), so that their steps line up one above the other. */
static void shared_x(const el__svg_panel *panels, int n, int i, double *xmin, double *xmax) {
  *xmin = INFINITY, *xmax = -INFINITY;
  for (int k = 0; k < n; k++) {
    if (strcmp(panels[k].xlabel, panels[i].xlabel)) continue;
    frame fr;
    memset(&fr, 0, sizeof fr);
    fr.log_y = panels[k].log_y;
    if (data_range(&panels[k], &fr) && k != i) continue; /* no data: no say */
    *xmin = fmin(*xmin, fr.xmin);
    *xmax = fmax(*xmax, fr.xmax);
  }
}

static void panel(FILE *f, const el__svg_panel *panels, int n, int i, int y0) {
  const el__svg_panel *p = &panels[i];
  frame fr;
  memset(&fr, 0, sizeof fr);
  fr.x0 = ML, fr.w = W - ML - MR, fr.h = PANEL_H - MT - MB, fr.top = y0 + MT;
  fr.log_y = p->log_y;
  int empty = data_range(p, &fr);
  shared_x(panels, n, i, &fr.xmin, &fr.xmax);
  fit_ticks(p, &fr);
  draw_axes(f, p, &fr, y0, empty);
  for (int s = 0; s < p->n_series; s++) draw_series(f, p, &fr, s);
  fputs("</g>\n", f);
}

int el__svg_write(const char *path, const char *title, const el__svg_panel *panels, int n_panels,
                  el_error *err) {
  el__atomic a;
  int rc = el__atomic_begin(&a, path, err);
  if (rc) return rc;
  FILE *f = a.f;
  int H = TOP + n_panels * PANEL_H;
  fprintf(f,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d "
          "%d\">\n"
          "<style>text{font-family:Helvetica,Arial,sans-serif;fill:#222}"
          ".t{font-size:18px;font-weight:bold}.pt{font-size:15px;font-weight:bold}"
          ".xt{font-size:11px;text-anchor:middle}.yt{font-size:11px;text-anchor:end}"
          ".xl{font-size:13px;text-anchor:middle}.lg{font-size:12px}"
          ".frame{fill:none;stroke:#444;stroke-width:1}.grid{stroke:#ddd;stroke-width:1}"
          ".ln{fill:none;stroke-width:1.8;stroke-linejoin:round}</style>\n"
          "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
          "<text x=\"%d\" y=\"28\" class=\"t\">",
          W, H, W, H, ML);
  xml_text(f, title);
  fputs("</text>\n", f);
  for (int i = 0; i < n_panels; i++) panel(f, panels, n_panels, i, TOP + i * PANEL_H);
  fputs("</svg>\n", f);
  return el__atomic_commit(&a, err);
}
