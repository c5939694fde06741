/* A GED file's correct sentences as plain text (data_learner_text.h). */
#include "data_learner_text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "task_data.h"

#define PER_DOCUMENT 12 /* sentences between blank lines */
#define MIN_WORDS 3

/* Tokens written against the word before them: clitics split off by the
 * tokenizer ("n't", "'s") and closing punctuation. */
static int joins_previous(const char *t) {
  static const char *const CLITIC[] = {"n't", "'s", "'re", "'ve", "'ll", "'d", "'m"};
  for (size_t i = 0; i < sizeof CLITIC / sizeof *CLITIC; i++)
    if (!strcmp(t, CLITIC[i])) return 1;
  /* ".", "...", "?!" */
  return t[0] && strspn(t, ".,!?;:%)]") == strlen(t);
}

size_t el__learner_text_join(char *const *words, int n, char *out, size_t cap) {
  size_t len = 0;
  int open_quote = 0, glue = 1; /* glue: no space before the next token */
  if (cap) out[0] = 0;
  for (int i = 0; i < n; i++) {
    const char *t = words[i];
    int quote = !strcmp(t, "\"");
    int closes = quote && open_quote;
    int space = !glue && !joins_previous(t) && !closes;
    size_t k = strlen(t);
    if (len + (size_t)space + k + 1 > cap) break;
    if (space) out[len++] = ' ';
    memcpy(out + len, t, k + 1);
    len += k;
    if (quote) open_quote = !open_quote;
    glue = (quote && !closes) || !strcmp(t, "(") || !strcmp(t, "[");
  }
  return len;
}

static int has_error(const el__ged_sentence *s) {
  for (int i = 0; i < s->n; i++)
    if (s->err[i]) return 1;
  return 0;
}

/* One pass over the correct sentences into f; bytes written, or -1. */
static long write_pass(const el__ged_data *g, FILE *f, char *line, size_t cap, long *kept) {
  long bytes = 0, k = 0;
  for (int i = 0; i < g->n; i++) {
    const el__ged_sentence *s = &g->s[i];
    if (s->n < MIN_WORDS || has_error(s)) continue;
    size_t len = el__learner_text_join(s->words, s->n, line, cap);
    int blank = ++k % PER_DOCUMENT == 0;
    if (fprintf(f, "%s\n%s", line, blank ? "\n" : "") < 0) return -1;
    bytes += (long)len + 1 + blank;
  }
  if (fputc('\n', f) == EOF) return -1;
  *kept = k;
  return bytes + 1;
}

int el__learner_text_write(const char *ged_path, const char *path, size_t target_bytes,
                           el__learner_text_stats *stats, el_error *err) {
  el__ged_data g = {0};
  int rc = el__ged_read(ged_path, &g, err);
  if (rc) return rc;
  char tmp[4400];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  size_t cap = 1 << 16;
  char *line = malloc(cap);
  FILE *f = line ? fopen(tmp, "w") : NULL;
  el__learner_text_stats st = {.sentences = g.n};
  if (!f) {
    rc = line ? el_error_set(err, EL_EIO, "%s: %s", tmp, strerror(errno))
              : el_error_set(err, EL_ENOMEM, "learner text: out of memory");
  }
  while (!rc && (st.repeats == 0 || st.bytes < target_bytes)) {
    long b = write_pass(&g, f, line, cap, &st.kept);
    if (b < 0) rc = el_error_set(err, EL_EIO, "%s: %s", tmp, strerror(errno));
    else if (st.kept == 0)
      rc = el_error_set(err, EL_EINVAL, "%s: no sentence without an error of %d words or more",
                        ged_path, MIN_WORDS);
    else st.bytes += (size_t)b, st.repeats++;
  }
  if (f && fclose(f) && !rc) rc = el_error_set(err, EL_EIO, "%s: %s", tmp, strerror(errno));
  if (!rc && rename(tmp, path)) rc = el_error_set(err, EL_EIO, "%s: %s", path, strerror(errno));
  if (rc && f) remove(tmp);
  free(line);
  el__ged_free(&g);
  if (stats) *stats = st;
  return rc;
}
