/* A spellchecker's reading of running text (dict.h): which chunks are words
 * and which start a sentence, so every caller (/score, GED evaluation, the
 * checker) asks the dictionary about the same words. */
#include <stdlib.h>
#include <string.h>

#include "dict.h"

static int is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/* ASCII punctuation around a word: stripped before the dictionary sees it
 * (letters, digits and non-ASCII bytes stay, so "2nd" and "café" are whole). */
static int is_edge_punct(unsigned char c) {
  return c < 0x80 && !((c | 32) >= 'a' && (c | 32) <= 'z') && !(c >= '0' && c <= '9');
}

/* A chunk ending in . ! or ? (possibly before a closing quote or bracket)
 * ends its sentence: the next word may be capitalised without being a name. */
static int ends_sentence(const char *s, size_t a, size_t b) {
  while (b > a && strchr("\"')]", s[b - 1])) b--;
  return b > a && strchr(".!?", s[b - 1]);
}

int el__dict_rejects_text(el__dict *d, const char *text, size_t len, int *spans, int max) {
  int n = 0, start = 1;
  char word[256];
  for (size_t i = 0; i < len;) {
    while (i < len && is_space((unsigned char)text[i])) i++;
    size_t a = i;
    while (i < len && !is_space((unsigned char)text[i])) i++;
    size_t b = i, ws = a, we = b;
    if (a == b) break;
    while (ws < we && is_edge_punct((unsigned char)text[ws])) ws++;
    while (we > ws && is_edge_punct((unsigned char)text[we - 1])) we--;
    /* "n't" and "'s" keep their apostrophe: they are clitics, not words */
    if (ws > a && text[ws - 1] == '\'' && we - ws <= 2) ws--;
    if (we > ws && we - ws < sizeof word) {
      memcpy(word, text + ws, we - ws);
      word[we - ws] = 0;
      if (el__dict_rejects(d, word, start)) {
        if (n < max) {
          spans[2 * n] = (int)ws;
          spans[2 * n + 1] = (int)we;
        }
        n++;
      }
    }
    /* a chunk of punctuation only ("(", a quote) leaves the next word's place as it is */
    if (we > ws || ends_sentence(text, a, b)) start = ends_sentence(text, a, b);
  }
  return n;
}

int el__dict_rejects_words(el__dict *d, const char *const *words, int n, unsigned char *out,
                           el_error *err) {
  size_t len = 0;
  for (int i = 0; i < n; i++) len += strlen(words[i]) + 1;
  char *text = malloc(len + 1);
  int *at = malloc((size_t)(n + 1) * sizeof *at), *spans = malloc((size_t)(2 * n + 2) * sizeof *spans);
  if (!text || !at || !spans) {
    free(text), free(at), free(spans);
    return el_error_set(err, EL_ENOMEM, "dictionary: out of memory");
  }
  size_t k = 0;
  for (int i = 0; i < n; i++) {
    at[i] = (int)k;
    size_t w = strlen(words[i]);
    memcpy(text + k, words[i], w);
    k += w;
    text[k++] = ' ';
  }
  at[n] = (int)k;
  int m = el__dict_rejects_text(d, text, k, spans, n + 1);
  memset(out, 0, (size_t)n);
  /* each rejected span lies inside one word (words hold no spaces) */
  for (int j = 0, i = 0; j < m && j <= n; j++) {
    while (i < n && at[i + 1] <= spans[2 * j]) i++;
    if (i < n) out[i] = 1;
  }
  free(text), free(at), free(spans);
  return EL_OK;
}
