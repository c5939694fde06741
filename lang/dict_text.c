/* A spellchecker's reading of running text (dict.h): which chunks are words
 * and which start a sentence, so every caller (/score, GED evaluation, the
 * checker) asks the dictionary about the same words. */
#include <stdlib.h>
#include <string.h>

#include "dict.h"
#include "strmap.h"

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

/* The next chunk's word from *i on: its byte span [*ws, *we) (empty for a
 * chunk of punctuation) and whether it starts a sentence (*start carries
 * the state from chunk to chunk). 0 at the end of the text. */
static int next_word(const char *text, size_t len, size_t *i, size_t *ws, size_t *we, int *start,
                     int *at_start) {
  while (*i < len && is_space((unsigned char)text[*i])) (*i)++;
  size_t a = *i;
  while (*i < len && !is_space((unsigned char)text[*i])) (*i)++;
  size_t b = *i;
  if (a == b) return 0;
  *ws = a, *we = b;
  while (*ws < *we && is_edge_punct((unsigned char)text[*ws])) (*ws)++;
  while (*we > *ws && is_edge_punct((unsigned char)text[*we - 1])) (*we)--;
  /* "n't" and "'s" keep their apostrophe: they are clitics, not words */
  if (*we > *ws && *ws > a && text[*ws - 1] == '\'' && *we - *ws <= 2) (*ws)--;
  *at_start = *start;
  /* a chunk of punctuation only ("(", a quote) leaves the next word's place as it is */
  int ends = ends_sentence(text, a, b);
  if (*we > *ws || ends) *start = ends;
  return 1;
}

static int is_capital(char c) { return c >= 'A' && c <= 'Z'; }

/* Letters in capitals only, two at least ("REALY", "DON'T"; not "I"). */
static int is_all_caps(const char *w, size_t n) {
  size_t letters = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)w[i];
    if (c >= 'a' && c <= 'z') return 0;
    letters += is_capital((char)c);
  }
  return letters >= 2;
}

/* What the whole text says about its capitals: the capitalised words it uses
 * mid-sentence are names, so the same word first in a sentence ("Ngozi
 * wrote. I met Ngozi.") is a name there too; and whether it is written in
 * capitals (half its words or more), where a word in capitals is an
 * ordinary word, not an acronym or a name. Out of memory leaves the names
 * short: fewer recognised, no error. */
typedef struct text_caps {
  el__strmap names;
  int shouting;
} text_caps;

static void caps_of(const char *text, size_t len, text_caps *tc) {
  size_t i = 0, ws, we;
  int start = 1, at_start, ins, words = 0, caps = 0;
  while (next_word(text, len, &i, &ws, &we, &start, &at_start)) {
    if (we == ws) continue;
    words++;
    caps += is_all_caps(text + ws, we - ws);
    if (!at_start && is_capital(text[ws])) el__strmap_get(&tc->names, text + ws, (int)(we - ws), &ins);
  }
  tc->shouting = words > 0 && 2 * caps >= words;
}

/* A word of text written in capitals: rejected when none of its forms as
 * written, lower-case and capitalised is known ("REALY"; "BBC" as written,
 * "PARIS" as "Paris"). */
static int caps_rejects(el__dict *d, el__dict_variant v, char *word) {
  if (el__dict_known(d, v, word)) return 0;
  for (char *c = word + 1; *c; c++)
    if (is_capital(*c)) *c = (char)(*c - 'A' + 'a');
  if (el__dict_known(d, v, word)) return 0;
  word[0] = (char)(word[0] - 'A' + 'a');
  return el__dict_rejects(d, v, word, 0);
}

/* The dictionary's verdict (el_dict_verdict) on the word [ws, we) of text. */
static int verdict(el__dict *d, el__dict_variant v, const text_caps *tc, const char *text, size_t ws, size_t we,
                   int at_start) {
  char word[256];
  if (we == ws || we - ws >= sizeof word) return EL_DICT_NONE;
  memcpy(word, text + ws, we - ws);
  word[we - ws] = 0;
  if (!at_start && tc->shouting && is_all_caps(word, we - ws))
    return caps_rejects(d, v, word) ? EL_DICT_REJECTS : EL_DICT_NONE;
  /* first in its sentence, a capitalised word is a name only when the text says so elsewhere */
  if (is_capital(word[0]) &&
      (!at_start || el__strmap_find(&tc->names, word, (int)(we - ws)) >= 0))
    return el__dict_is_name(d, v, word) ? EL_DICT_NAME : EL_DICT_NONE;
  return el__dict_rejects(d, v, word, at_start) ? EL_DICT_REJECTS : EL_DICT_NONE;
}

int el__dict_read_text(el__dict *d, el__dict_variant v, const char *text, size_t len, int *spans,
                       int max) {
  text_caps tc = {0};
  caps_of(text, len, &tc);
  size_t i = 0, ws, we;
  int n = 0, start = 1, at_start;
  while (next_word(text, len, &i, &ws, &we, &start, &at_start)) {
    int verd = verdict(d, v, &tc, text, ws, we, at_start);
    if (verd == EL_DICT_NONE) continue;
    if (n < max) {
      spans[3 * n] = (int)ws;
      spans[3 * n + 1] = (int)we;
      spans[3 * n + 2] = verd;
    }
    n++;
  }
  el__strmap_free(&tc.names);
  return n;
}

int el__dict_read_words(el__dict *d, el__dict_variant v, const char *const *words, int n,
                        unsigned char *out, el_error *err) {
  size_t len = 0;
  for (int i = 0; i < n; i++) len += strlen(words[i]) + 1;
  char *text = malloc(len + 1);
  int *at = malloc((size_t)(n + 1) * sizeof *at), *spans = malloc((size_t)(3 * n + 3) * sizeof *spans);
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
  int m = el__dict_read_text(d, v, text, k, spans, n + 1);
  memset(out, 0, (size_t)n);
  /* each span lies inside one word (words hold no spaces) */
  for (int j = 0, i = 0; j < m && j <= n; j++) {
    while (i < n && at[i + 1] <= spans[3 * j]) i++;
    if (i < n) out[i] = (unsigned char)spans[3 * j + 2];
  }
  free(text), free(at), free(spans);
  return EL_OK;
}
