/* Hunspell's en_GB + en_US behind one lock (dict.h); a variant asks one
 * of them or both. */
#include "dict.h"

#include <hunspell.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const char *const LANGS[] = {"en_GB", "en_US"};
#define N_LANGS 2

/* hunspell's suggest takes 10-45 ms a word (both dictionaries searched);
 * a checker sees the same misspellings again and again (an editor client
 * re-sends the whole document after each change), so the last answers are
 * kept: a direct-mapped table keyed by the word. */
#define CACHE_SLOTS 1024
#define CACHE_SUGG 5
typedef struct cache_slot {
  char word[EL__DICT_WORD_MAX]; /* "" when empty */
  el__dict_variant v;           /* the dictionaries that suggested */
  int n;                        /* suggestions kept (asked for at least CACHE_SUGG or got fewer) */
  char sugg[CACHE_SUGG][EL__DICT_WORD_MAX];
} cache_slot;

struct el__dict {
  Hunhandle *h[N_LANGS]; /* NULL where that dictionary is not installed */
  pthread_mutex_t lock;
  cache_slot *cache;     /* [CACHE_SLOTS], or NULL (no memory: no cache) */
};

static Hunhandle *open_one(const char *dir, const char *lang) {
  char aff[1024], dic[1024];
  snprintf(aff, sizeof aff, "%s/%s.aff", dir, lang);
  snprintf(dic, sizeof dic, "%s/%s.dic", dir, lang);
  if (access(aff, R_OK) || access(dic, R_OK)) return NULL;
  return Hunspell_create(aff, dic);
}

int el__dict_load(const char *dir, el__dict **out, el_error *err) {
  *out = NULL;
  if (!dir) dir = "/usr/share/hunspell";
  el__dict *d = calloc(1, sizeof *d);
  if (!d) return el_error_set(err, EL_ENOMEM, "dictionary: out of memory");
  int any = 0;
  for (int i = 0; i < N_LANGS; i++) any |= (d->h[i] = open_one(dir, LANGS[i])) != NULL;
  if (!any) {
    free(d);
    return el_error_set(err, EL_EIO, "dictionary: neither %s/en_GB.dic nor %s/en_US.dic is "
                        "readable: install the Debian packages hunspell-en-gb and hunspell-en-us",
                        dir, dir);
  }
  pthread_mutex_init(&d->lock, NULL);
  d->cache = calloc(CACHE_SLOTS, sizeof *d->cache);
  *out = d;
  return EL_OK;
}

void el__dict_free(el__dict *d) {
  if (!d) return;
  for (int i = 0; i < N_LANGS; i++)
    if (d->h[i]) Hunspell_destroy(d->h[i]);
  pthread_mutex_destroy(&d->lock);
  free(d->cache);
  free(d);
}

const char *el__dict_variant_name(el__dict_variant v) {
  return v == EL__DICT_GB ? "British English" : v == EL__DICT_US ? "American English" : "English";
}

/* Dictionary i answers for variant v: its own, or both for EL__DICT_EN and
 * for a variant whose dictionary is not installed. */
static int answers(const el__dict *d, el__dict_variant v, int i) {
  if (!d->h[i]) return 0;
  int own = v == EL__DICT_GB ? 0 : v == EL__DICT_US ? 1 : -1;
  return own < 0 || !d->h[own] || own == i;
}

static int known_locked(el__dict *d, el__dict_variant v, const char *word) {
  for (int i = 0; i < N_LANGS; i++)
    if (answers(d, v, i) && Hunspell_spell(d->h[i], word)) return 1;
  return 0;
}

int el__dict_known(el__dict *d, el__dict_variant v, const char *word) {
  pthread_mutex_lock(&d->lock);
  int k = known_locked(d, v, word);
  pthread_mutex_unlock(&d->lock);
  return k;
}

static int is_letter(unsigned char c) { return (c | 32) >= 'a' && (c | 32) <= 'z'; }

/* Letters, with ' or - only between letters; non-ASCII bytes count as
 * letters (accented words are words), but one ASCII letter at least: a
 * lone symbol ("£", "€", "…") is no misspelling (FCE dev: "£" was 3 of the
 * dictionary's false alarms). */
static int is_word(const char *w) {
  size_t n = strlen(w);
  int ascii = 0;
  if (!n || n >= 256) return 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)w[i];
    ascii |= is_letter(c);
    if (is_letter(c) || c >= 0x80) continue;
    if ((c == '\'' || c == '-') && i > 0 && i + 1 < n) continue;
    return 0;
  }
  return ascii;
}

int el__dict_is_name(el__dict *d, el__dict_variant v, const char *word) {
  size_t n = strlen(word);
  if (!is_word(word) || !(word[0] >= 'A' && word[0] <= 'Z')) return 0;
  char low[256];
  int lower = 0;
  for (size_t i = 0; i <= n; i++) {
    char c = word[i];
    lower |= c >= 'a' && c <= 'z';
    low[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
  }
  return lower && !el__dict_known(d, v, low); /* "BBC" is no name of this kind */
}

/* FCE-style split negation, the one clitic that starts with a letter. */
static int is_split_clitic(const char *w) { return !strcasecmp(w, "n't"); }

int el__dict_rejects(el__dict *d, el__dict_variant v, const char *word, int sentence_start) {
  if (!is_word(word) || is_split_clitic(word)) return 0;
  int upper = word[0] >= 'A' && word[0] <= 'Z';
  if (upper && !sentence_start) return 0; /* a name, as far as a dictionary can tell */
  pthread_mutex_lock(&d->lock);
  int known = known_locked(d, v, word);
  if (!known && upper) { /* "Colour" at the start of a sentence */
    char low[256];
    size_t n = strlen(word);
    memcpy(low, word, n + 1);
    low[0] = (char)(low[0] - 'A' + 'a');
    known = known_locked(d, v, low);
  }
  pthread_mutex_unlock(&d->lock);
  return !known;
}

static int seen(char out[][EL__DICT_WORD_MAX], int n, const char *s) {
  for (int i = 0; i < n; i++)
    if (!strcmp(out[i], s)) return 1;
  return 0;
}

static cache_slot *slot_of(el__dict *d, const char *word) {
  uint32_t h = 2166136261u;
  for (const unsigned char *p = (const unsigned char *)word; *p; p++) h = (h ^ *p) * 16777619u;
  return d->cache ? &d->cache[h % CACHE_SLOTS] : NULL;
}

/* The variant's dictionaries' suggestions, en_GB's first, duplicates dropped. */
static int suggest_locked(el__dict *d, el__dict_variant v, const char *word,
                          char out[][EL__DICT_WORD_MAX], int max) {
  int n = 0;
  for (int i = 0; i < N_LANGS && n < max; i++) {
    if (!answers(d, v, i)) continue;
    char **list = NULL;
    int k = Hunspell_suggest(d->h[i], &list, word);
    for (int j = 0; j < k && n < max; j++)
      if (strlen(list[j]) < EL__DICT_WORD_MAX && !seen(out, n, list[j])) strcpy(out[n++], list[j]);
    if (list) Hunspell_free_list(d->h[i], &list, k);
  }
  return n;
}

int el__dict_suggest(el__dict *d, el__dict_variant v, const char *word,
                     char out[][EL__DICT_WORD_MAX], int max) {
  if (max <= 0) return 0;
  pthread_mutex_lock(&d->lock);
  cache_slot *c = strlen(word) < EL__DICT_WORD_MAX ? slot_of(d, word) : NULL;
  int n;
  if (c && c->word[0] && c->v == v && !strcmp(c->word, word) &&
      (max <= CACHE_SUGG || c->n < CACHE_SUGG)) {
    n = c->n < max ? c->n : max; /* the same answer hunspell gave before */
    for (int i = 0; i < n; i++) strcpy(out[i], c->sugg[i]);
  } else {
    n = suggest_locked(d, v, word, out, max);
    if (c) {
      strcpy(c->word, word);
      c->v = v;
      c->n = n < CACHE_SUGG ? n : CACHE_SUGG;
      for (int i = 0; i < c->n; i++) strcpy(c->sugg[i], out[i]);
      /* fewer than asked for, but asked for fewer than the slot holds: the
       * slot cannot say whether more exist */
      if (n == max && max < CACHE_SUGG) c->word[0] = 0;
    }
  }
  pthread_mutex_unlock(&d->lock);
  return n;
}
