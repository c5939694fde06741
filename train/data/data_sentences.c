/* Clean sentences from plain-text corpora, split into words the way the
 * engine's BasicTokenizer splits them (case kept), for synthetic GED data;
 * see data_sentences.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_pretok.h"
#include "data_sentences.h"
#include "rng.h"

enum { MIN_WORDS = 3, MAX_WORDS = 60, MAX_JOINED = 45 };

/* A uniform sample of at most `cap` sentences of the whole input, kept as
 * text (reservoir sampling, Algorithm R): the corpus never has to fit in
 * memory as words. */
typedef struct reservoir {
  char **s;
  long n, cap, seen;
  el__rng rng;
  /* Joined units: the file's sentence before this one, and the draws that
   * decide whether the two are also kept as one unit (an rng of their own,
   * apart from the reservoir's). */
  double join_share;
  el__rng join_rng;
  char *prev;
  size_t prev_len, prev_cap;
  /* Sentences are numbered in reading order; a slot's unit holds sentences
   * first[slot]..last[slot] (one, or two when joined). */
  long ord, prev_ord;
  long *first, *last;
} reservoir;

static int keep(reservoir *r, const char *s, size_t len, long first, long last) {
  long slot = r->seen < r->cap ? r->seen : (long)(el__rng_u64(&r->rng) % (uint64_t)(r->seen + 1));
  r->seen++;
  if (slot >= r->cap) return 0;
  char *c = strndup(s, len);
  if (!c) return -1;
  if (slot < r->n) free(r->s[slot]);
  else r->n++;
  r->s[slot] = c;
  r->first[slot] = first;
  r->last[slot] = last;
  return 0;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

static long count_words(const char *s, size_t n) {
  long w = 0;
  for (size_t i = 0; i < n; i++) w += !is_space(s[i]) && (i == 0 || is_space(s[i - 1]));
  return w;
}

/* Sentence s, and with probability join_share also the previous sentence
 * of the same file and s as one unit ("I am free in July. I will come."),
 * when the two have at most MAX_JOINED words: a model trained on single
 * sentences alone learns that words after a full stop are an error, and
 * flags the stop between two sentences of a paragraph sent to /score
 * (measured: make run's model flagged 32 of FCE dev's 82 stops inside a line,
 * 3 of them errors). */
static int keep_joined(reservoir *r, const char *s, size_t n) {
  const long ord = ++r->ord;
  if (keep(r, s, n, ord, ord)) return -1;
  int join = r->prev_len && el__rng_uniform(&r->join_rng) < r->join_share &&
             count_words(r->prev, r->prev_len) + count_words(s, n) <= MAX_JOINED;
  if (join) {
    char *both = malloc(r->prev_len + n + 2);
    if (!both) return -1;
    memcpy(both, r->prev, r->prev_len);
    both[r->prev_len] = ' ';
    memcpy(both + r->prev_len + 1, s, n);
    int rc = keep(r, both, r->prev_len + 1 + n, r->prev_ord, ord);
    free(both);
    if (rc) return -1;
  }
  if (r->join_share <= 0) return 0;
  if (n + 1 > r->prev_cap) {
    char *p = realloc(r->prev, n + 1);
    if (!p) return -1;
    r->prev = p;
    r->prev_cap = n + 1;
  }
  memcpy(r->prev, s, n);
  r->prev_len = n;
  r->prev_ord = ord;
  return 0;
}

/* A sentence found in a paragraph. Lines were joined with '\n': a "sentence"
 * too long to be one that spans lines is a file of one unpunctuated unit per
 * line (word lists, glosses), so its lines are kept one by one. */
static int keep_sentence(reservoir *r, char *s, size_t n) {
  if (memchr(s, '\n', n) && count_words(s, n) > MAX_WORDS) {
    size_t a = 0;
    for (size_t i = 0; i <= n; i++)
      if (i == n || s[i] == '\n') {
        const long ord = ++r->ord;
        if (i > a && keep(r, s + a, i - a, ord, ord)) return -1;
        a = i + 1;
      }
    r->prev_len = 0; /* lines of a list are not joined to what follows */
    return 0;
  }
  for (size_t i = 0; i < n; i++)
    if (s[i] == '\n') s[i] = ' ';
  return keep_joined(r, s, n);
}

/* A sentence ends at . ! or ? (and closing quotes/brackets after it)
 * followed by a space and then an upper-case letter, a digit or an opening
 * quote: "Mr. Smith" splits wrongly now and then, which only costs a
 * slightly odd training sentence. */
static size_t sentence_end(const char *s, size_t i, size_t n) {
  if (s[i] != '.' && s[i] != '!' && s[i] != '?') return 0;
  size_t j = i + 1;
  while (j < n && strchr("\"')]", s[j])) j++;
  if (j >= n) return n;
  if (s[j] != ' ' && s[j] != '\n') return 0;
  size_t k = j;
  while (k < n && (s[k] == ' ' || s[k] == '\n')) k++;
  if (k >= n) return n;
  unsigned char c = (unsigned char)s[k];
  return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '"' || c == '\'' || c >= 0x80 ? j : 0;
}

static int split_block(reservoir *r, char *s, size_t n) {
  size_t a = 0;
  for (size_t i = 0; i < n; i++) {
    size_t e = sentence_end(s, i, n);
    if (!e) continue;
    while (a < e && is_space(s[a])) a++;
    if (e > a && keep_sentence(r, s + a, e - a)) return -1;
    a = e;
    i = e - 1;
  }
  while (a < n && is_space(s[a])) a++;
  return n > a ? keep_sentence(r, s + a, n - a) : 0;
}

/* Paragraphs: runs of non-blank lines joined (hard-wrapped books), each
 * split into sentences. */
static int read_file(reservoir *r, const char *path, el_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return el_error_set(err, EL_EIO, "%s: %s", path, strerror(errno));
  r->prev_len = 0; /* units are joined within a file */
  char *line = NULL, *para = NULL;
  size_t cap = 0, plen = 0, pcap = 0;
  ssize_t got;
  int rc = EL_OK;
  while (!rc && (got = getline(&line, &cap, f)) >= 0) {
    size_t n = (size_t)got;
    while (n && is_space(line[n - 1])) n--;
    size_t a = 0;
    while (a < n && is_space(line[a])) a++;
    if (a == n) {
      if (plen && split_block(r, para, plen)) rc = el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
      plen = 0;
      continue;
    }
    if (plen + (n - a) + 2 > pcap) {
      pcap = (plen + (n - a) + 2) * 2;
      char *np = realloc(para, pcap);
      if (!np) {
        rc = el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
        break;
      }
      para = np;
    }
    if (plen) para[plen++] = '\n';
    for (size_t i = a; i < n; i++) para[plen++] = line[i] == '\t' ? ' ' : line[i];
  }
  if (!rc && ferror(f)) rc = el_error_set(err, EL_EIO, "%s: read error: %s", path, strerror(errno));
  if (!rc && plen && split_block(r, para, plen)) rc = el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
  free(line);
  free(para);
  fclose(f);
  return rc;
}

/* Words of one sentence; 0 words when it is not valid UTF-8 or out of the
 * length range (such sentences are skipped, not errors). */
static int sentence_words(el__words *w, const char *s, el__ged_sentence *out) {
  memset(out, 0, sizeof *out);
  el_error e = {0};
  int rc = el__pretokenize(s, strlen(s), 0, w, &e);
  if (rc == EL_EINVAL) return 0;
  if (rc) return -1;
  if (w->n < MIN_WORDS || w->n > MAX_WORDS) return 0;
  out->words = calloc((size_t)w->n, sizeof *out->words);
  out->err = calloc((size_t)w->n, 1);
  if (!out->words || !out->err) return -1;
  for (int i = 0; i < w->n; i++) {
    if (!(out->words[out->n] = strdup(w->buf + w->off[i]))) return -1;
    out->n++;
  }
  return 0;
}

static void free_sentence(el__ged_sentence *s) {
  for (int j = 0; j < s->n; j++) free(s->words[j]);
  free(s->words);
  free(s->err);
}

/* shared[slot] = 1 when the slot's unit has a sentence that another unit
 * of the sample also has (a joined unit and a sentence of it alone). */
static int mark_shared(const reservoir *r, unsigned char *shared) {
  unsigned char *count = calloc((size_t)r->ord + 1, 1);
  if (!count) return -1;
  for (long i = 0; i < r->n; i++)
    for (long o = r->first[i]; o <= r->last[i]; o++) count[o] += count[o] < 2;
  for (long i = 0; i < r->n; i++) {
    shared[i] = 0;
    for (long o = r->first[i]; o <= r->last[i]; o++) shared[i] |= count[o] > 1;
  }
  free(count);
  return 0;
}

/* The units' words into out; shared (NULL or [r->n]) follows them as they
 * are kept (units of no words are dropped). */
static int to_words(reservoir *r, el__ged_data *out, unsigned char *shared, el_error *err) {
  el__words w = {0};
  int rc = EL_OK;
  out->s = calloc((size_t)(r->n ? r->n : 1), sizeof *out->s);
  if (!out->s) return el_error_set(err, EL_ENOMEM, "sentences: out of memory");
  out->cap = (size_t)r->n;
  for (long i = 0; i < r->n && !rc; i++) {
    el__ged_sentence s;
    if (sentence_words(&w, r->s[i], &s)) {
      free_sentence(&s);
      rc = el_error_set(err, EL_ENOMEM, "sentences: out of memory");
    } else if (s.n) {
      s.line = (int)i + 1;
      if (shared) shared[out->n] = shared[i];
      out->s[out->n++] = s;
      out->n_words += s.n;
    }
  }
  el__words_free(&w);
  return rc;
}

int el__sentences_read(const char *const *paths, int n_paths, long max_sentences, uint64_t seed,
                       double join_share, el__ged_data *out, unsigned char **shared,
                       el_error *err) {
  memset(out, 0, sizeof *out);
  if (shared) *shared = NULL;
  if (max_sentences < 1) return el_error_set(err, EL_EINVAL, "sentences: need at least one");
  reservoir r = {0};
  r.cap = max_sentences;
  el__rng_seed(&r.rng, seed);
  r.join_share = join_share;
  el__rng_seed(&r.join_rng, seed ^ 0x5A17C0DE5A17C0DEull);
  r.s = calloc((size_t)max_sentences, sizeof *r.s);
  r.first = calloc((size_t)max_sentences, sizeof *r.first);
  r.last = calloc((size_t)max_sentences, sizeof *r.last);
  unsigned char *sh = shared ? calloc((size_t)max_sentences, 1) : NULL;
  int rc = r.s && r.first && r.last && (sh || !shared)
               ? EL_OK
               : el_error_set(err, EL_ENOMEM, "sentences: out of memory");
  for (int i = 0; i < n_paths && !rc; i++) rc = read_file(&r, paths[i], err);
  if (!rc && sh && mark_shared(&r, sh)) rc = el_error_set(err, EL_ENOMEM, "sentences: out of memory");
  if (!rc) rc = to_words(&r, out, sh, err);
  if (!rc && out->n == 0)
    rc = el_error_set(err, EL_EFORMAT, "%s%s: no sentence of %d to %d words", paths[0],
                      n_paths > 1 ? " ..." : "", MIN_WORDS, MAX_WORDS);
  for (long i = 0; i < r.n; i++) free(r.s[i]);
  free(r.s);
  free(r.first);
  free(r.last);
  free(r.prev);
  if (rc) {
    el__ged_free(out);
    free(sh);
  } else if (shared) {
    *shared = sh;
  }
  return rc;
}
