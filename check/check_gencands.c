/* The generator's proposals for a flagged word: the most likely whole
 * words of the vocabulary at its [MASK], in the writer's case. Pieces
 * ("##ing") and special tokens are not words a writer can be offered. Nor
 * is a replacement unrelated to the word (OTHER, check_types.c): it fools
 * the detector easily (a fluent word is what it was trained to accept) and
 * was almost never the annotators' word (on FCE dev with the one-hour
 * recipe model, 2 of 151 such first suggestions), so it is not proposed:
 * it would only cost a verification sentence.
 *
 * Its [MASK] inserted before the word proposes nothing of its own: it
 * ranks and filters the rules' insertions (check_candidates.c). Its own
 * likeliest words there ("i", "not", "never", "been") were the annotators'
 * insertion for about 1 in 14 of the flags they won, and took 6 % of the
 * verification tokens (FCE dev, two-hour recipe model; corrections F0.5
 * 0.340 with them, 0.343 without; the one-hour models and make run's level,
 * docs/RESULTS.md). */
#include <ctype.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "check_internal.h"

#define K_REPLACE 8
/* log(0.01): below it a proposal is noise, not worth a verification sentence */
#define MIN_LP (-4.6f)

/* 1 a word, 2 punctuation, 0 not offered. */
static int entry_kind(const char *t) {
  if (!t || !t[0] || !strncmp(t, "##", 2)) return 0;
  size_t n = strlen(t);
  if (t[0] == '[' && t[n - 1] == ']' && n > 2) return 0;
  unsigned char ch = (unsigned char)t[0];
  int alnum = ch >= 0x80 || (ch >= '0' && ch <= '9') || ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z');
  return alnum ? 1 : 2;
}

/* The k best entries of row of the wanted kind (0: any), best first. */
static int top_k(const el__checker *c, const float *row, int want, int *best, int k) {
  int n = 0;
  for (int id = 0; id < c->vocab; id++) {
    if (n == k && row[id] <= row[best[n - 1]]) continue;
    int kind = entry_kind(el_tokenizer_token(c->tok, id));
    if (!kind || (want && kind != want)) continue;
    int j = n < k ? n++ : k - 1;
    while (j > 0 && row[best[j - 1]] < row[id]) {
      best[j] = best[j - 1];
      j--;
    }
    best[j] = id;
  }
  return n;
}

int el__gen_candidates(el__checker *c, el__flag *f, el_error *err) {
  if (f->gen_row < 0) return 0;
  const el__word *x = &c->words.w[f->word];
  char pattern[EL__LWORD_MAX], cased[EL__LWORD_MAX];
  size_t n = x->end - x->start;
  if (n >= sizeof pattern) n = sizeof pattern - 1;
  memcpy(pattern, c->text + x->start, n);
  pattern[n] = 0;
  int best[K_REPLACE];
  const float *row = c->lp + (size_t)f->gen_row * (size_t)c->vocab;
  int k = top_k(c, row, el__is_punct_word(c, f->word) ? 2 : 1, best, K_REPLACE);
  f->gen_top = 0;
  for (int i = 0; i < k && f->gen_top == 0; i++)
    if (strcasecmp(el_tokenizer_token(c->tok, best[i]), pattern)) f->gen_top = expf(row[best[i]]);
  char orig[EL__LWORD_MAX];
  int has_low = el__word_low(c, f->word, orig);
  for (int i = 0; i < k && row[best[i]] >= MIN_LP; i++) {
    const char *w = el_tokenizer_token(c->tok, best[i]);
    char low[EL__LWORD_MAX];
    size_t j = 0;
    for (; w[j] && j < sizeof low - 1; j++) low[j] = (char)tolower((unsigned char)w[j]);
    low[j] = 0;
    int type = has_low ? el__type_of_replacement(c, orig, low) : EL__ET_OTHER;
    if (type == EL__ET_OTHER) continue; /* never offered (check_matches.c): not worth verifying */
    el__learner_recase(pattern, w, cased);
    int rc = el__cand_add(c, f, EL__EDIT_REPLACE, type, cased, err);
    if (rc < 0) return err->code;
    if (rc) c->cands[c->n_cands - 1].by_gen = 1;
  }
  return 0;
}
