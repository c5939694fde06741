/* loss.svg's axes (train/report/svg.c): a one-row or one-epoch run gets one
 * whole tick, not fractional steps or an epoch that did not happen; an
 * axis's labels share one style (not "0.00000" beside "8e-05"); panels with
 * the same x label share one x range. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "svg.h"

/* The labels of class cls ("xt" or "yt") in the n-th <g> panel, space-separated. */
static void labels(const char *doc, int panel, const char *cls, char *out, size_t cap) {
  const char *g = doc;
  for (int i = 0; i <= panel && g; i++) g = strstr(g + 1, "<g>");
  const char *end = g ? strstr(g, "</g>") : NULL;
  out[0] = 0;
  char key[32];
  snprintf(key, sizeof key, "class=\"%s\">", cls);
  for (const char *t = g; t && (t = strstr(t, key)) && t < end; t++) {
    t += strlen(key);
    size_t k = strcspn(t, "<"), have = strlen(out);
    snprintf(out + have, cap - have, "%s%.*s", have ? " " : "", (int)k, t);
  }
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  static char buf[1 << 16];
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  buf[n] = 0;
  return buf;
}

int main(void) {
  char path[] = "/tmp/el_svg_XXXXXX.svg";
  int fd = mkstemps(path, 4);
  if (fd >= 0) close(fd);
  double one_x[] = {50}, one_y[] = {2.5}, ep_x[] = {1}, ep_y[] = {0.8};
  double lr_x[] = {0, 50, 100}, lr_y[] = {0, 8e-5, 4e-5};
  el__svg_series s1 = {"loss", "#000", one_x, one_y, 1, 0, 0};
  el__svg_series s2 = {"dev", "#000", ep_x, ep_y, 1, 0, 1};
  el__svg_series s3 = {"lr", "#000", lr_x, lr_y, 3, 0, 0};
  el__svg_panel p[3] = {{"loss", "step", "loss", &s1, 1, 0, 0, 0, 0, 0, 1},
                        {"dev", "epoch", "f1", &s2, 1, 0, 0, 0, 0, 0, 1},
                        {"lr", "step", "lr", &s3, 1, 0, 0, 0, 1, 0, 1}};
  el_error err = {0};
  CHECK(el__svg_write(path, "t", p, 1, &err) == 0, "one panel, one row written");
  char lab[512];
  labels(slurp(path), 0, "xt", lab, sizeof lab);
  CHECK(!strcmp(lab, "50"), "one row at step 50: the one x tick 50 (got \"%s\")", lab);
  CHECK(el__svg_write(path, "t", p, 3, &err) == 0, "three panels written");
  const char *doc = slurp(path);
  labels(doc, 1, "xt", lab, sizeof lab);
  CHECK(!strcmp(lab, "1"), "one epoch: the dev panel's one x tick is 1 (got \"%s\")", lab);
  labels(doc, 2, "yt", lab, sizeof lab);
  CHECK(strstr(lab, "e-05") && !strstr(lab, "0.0"), "learning-rate labels in one style (\"%s\")", lab);
  char a[512];
  labels(doc, 0, "xt", a, sizeof a);
  labels(doc, 2, "xt", lab, sizeof lab);
  CHECK(!strcmp(a, lab), "the step panels share one x range (\"%s\" / \"%s\")", a, lab);
  unlink(path);
  return el_test_done();
}
