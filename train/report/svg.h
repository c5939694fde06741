/* A small self-contained SVG line-plot writer for RUN/loss.svg: one or more
 * panels stacked vertically, each with axes, "nice" ticks (1/2/5 x 10^k),
 * grid lines, axis labels, a title and a legend. No scripts, no external
 * references: the file opens in any browser. Non-finite points are skipped. */
#ifndef EL_TRAIN_SVG_H
#define EL_TRAIN_SVG_H

#include "electra/error.h"

typedef struct el__svg_series {
  const char *name;   /* legend text */
  const char *color;  /* CSS colour, e.g. "#1f77b4" */
  const double *x, *y;
  int n;
  int dashed;
  int markers;        /* 1: a dot on every point (validation rows, epochs) */
} el__svg_series;

typedef struct el__svg_panel {
  const char *title, *xlabel, *ylabel;
  const el__svg_series *series;
  int n_series;
  int fixed_y;        /* 1: use ymin/ymax; 0: fit the data (including 0 if include_zero) */
  double ymin, ymax;
  int include_zero;
  int log_y;          /* 1: logarithmic y axis (positive values only) */
  int integer_x;      /* 1: x ticks on whole numbers only (epochs, steps) */
} el__svg_panel;

/* Writes the document to path atomically (temp file + rename). Panels with
 * no finite point still get axes and a "no data yet" note; panels with the
 * same xlabel share one x range; a lone x value is centred. */
int el__svg_write(const char *path, const char *title, const el__svg_panel *panels, int n_panels,
                  el_error *err);

/* Tick positions between lo and hi (about `target` of them) into ticks[max];
 * returns their count and the step in *step. Exposed for tests. */
int el__svg_ticks(double lo, double hi, int target, double *ticks, int max, double *step);

#endif
