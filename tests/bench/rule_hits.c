/* How the learner library's rules (lang/learner.h) read a text: per family
 * of rules, how many places it flags and, in a GED token file (a token and
 * its label c/i per line, a blank line between sentences: FCE's files), how
 * many of them fall on error tokens. On correct English (one sentence or
 * paragraph per line) every flag is a false alarm. docs/GED.md quotes both.
 *
 *   rule_hits --labelled FILE      FCE train: flags on error tokens
 *   rule_hits FILE...              correct text: flags, each printed
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learner.h"

#define MAX_WORDS 512

enum { MISSING, REPLACED, UNNECESSARY, PAST_AT_END, GERUND, YOUR, COMMA, JOINED, LETTER, N_FAMILIES };
static const char *const NAMES[N_FAMILIES] = {
    "missing word",       "phrase replacement", "unnecessary word",       "past phrase at the end",
    "to + verb for -ing", "you for your",       "comma after an opening", "two words as one",
    "Your sincerely"};

/* Which families flag word i of low[0..n). */
static void families(const el__learner *l, const char *const *low, int n, int i, int *on) {
  char fix[EL__LWORD_MAX], past[4][EL__LWORD_MAX];
  int last = 0;
  on[MISSING] = el__learner_missing_word(l, low, n, i, fix);
  on[REPLACED] = el__learner_phrase_prep(low, n, i, fix) || el__learner_phrase_noun(low, n, i, fix);
  on[UNNECESSARY] = el__learner_extra_word(l, low, n, i) || el__learner_perfect_in_past(l, low, n, i);
  on[PAST_AT_END] = el__learner_past_fixes(l, low, n, i, past, 4, &last) > 0 && last;
  on[GERUND] = el__learner_gerund_object(l, low, n, i, fix);
  on[YOUR] = el__learner_you_your(l, low, n, i); /* before the trigrams' check */
  on[COMMA] = el__learner_opening_comma(l, low, n, i);
  on[JOINED] = el__learner_joined_words(low, n, i, fix);
  on[LETTER] = el__learner_letter_close(l, low, n, i, fix);
}

/* Lower-cases s into store and splits it into words (punctuation at a
 * chunk's ends its own word); returns how many. */
static int split(char *s, char *store, const char **w) {
  int n = 0;
  for (char *p = s; *p; p++) *p = (char)tolower((unsigned char)*p);
  for (char *c = strtok(s, " \t\r\n"); c && n + 3 < MAX_WORDS; c = strtok(NULL, " \t\r\n")) {
    size_t len = strlen(c), a = 0, b = len;
    while (a < b && strchr(".,;:!?\"()", c[a])) a++;
    while (b > a && strchr(".,;:!?\"()", c[b - 1])) b--;
    size_t cut[4] = {0, a, b, len};
    for (int k = 0; k < 3; k++)
      if (cut[k + 1] > cut[k]) {
        memcpy(store, c + cut[k], cut[k + 1] - cut[k]);
        store[cut[k + 1] - cut[k]] = 0;
        w[n++] = store;
        store += cut[k + 1] - cut[k] + 1;
      }
  }
  return n;
}

static void labelled(const el__learner *l, FILE *in) {
  static char tok[MAX_WORDS][EL__LWORD_MAX];
  const char *w[MAX_WORDS];
  char lab[MAX_WORDS], line[512];
  long hit[N_FAMILIES] = {0}, all[N_FAMILIES] = {0};
  int n = 0, more = 1;
  while (more) {
    char a[256], b[16];
    more = fgets(line, sizeof line, in) != NULL;
    if (more && sscanf(line, "%255s %15s", a, b) == 2) {
      if (n < MAX_WORDS) {
        for (char *p = a; *p; p++) *p = (char)tolower((unsigned char)*p);
        size_t m = strnlen(a, EL__LWORD_MAX - 1); /* longer words: cut, as the rules read them */
        memcpy(tok[n], a, m);
        tok[n][m] = 0;
        lab[n] = b[0], w[n] = tok[n], n++;
      }
      continue;
    }
    for (int i = 0; i < n; i++) {
      int on[N_FAMILIES];
      families(l, w, n, i, on);
      for (int f = 0; f < N_FAMILIES; f++) all[f] += on[f], hit[f] += on[f] && lab[i] == 'i';
    }
    n = 0;
  }
  for (int f = 0; f < N_FAMILIES; f++)
    printf("%-24s %5ld flags, %5ld on error tokens\n", NAMES[f], all[f], hit[f]);
}

static void plain(const el__learner *l, FILE *in, long *all) {
  static char line[1 << 16], copy[1 << 16], store[1 << 17];
  const char *w[MAX_WORDS];
  while (fgets(line, sizeof line, in)) {
    snprintf(copy, sizeof copy, "%s", line);
    int n = split(line, store, w);
    for (int i = 0; i < n; i++) {
      int on[N_FAMILIES];
      families(l, w, n, i, on);
      for (int f = 0; f < N_FAMILIES; f++)
        if (on[f]) all[f]++, printf("%s: \"%s\" | %s", NAMES[f], w[i], copy);
    }
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: rule_hits --labelled GED_FILE | rule_hits TEXT_FILE...\n");
    return 2;
  }
  el__learner *l;
  el_error err = {0};
  if (el__learner_load(NULL, &l, &err)) {
    fprintf(stderr, "rule_hits: %s\n", err.msg);
    return 1;
  }
  int lab = !strcmp(argv[1], "--labelled");
  long all[N_FAMILIES] = {0};
  for (int a = 1 + lab; a < argc; a++) {
    FILE *in = fopen(argv[a], "r");
    if (!in) {
      fprintf(stderr, "rule_hits: cannot open %s\n", argv[a]);
      return 1;
    }
    if (lab) labelled(l, in);
    else plain(l, in, all);
    fclose(in);
  }
  if (!lab)
    for (int f = 0; f < N_FAMILIES; f++) fprintf(stderr, "%-24s %5ld flags\n", NAMES[f], all[f]);
  el__learner_free(l);
  return 0;
}
