/* Correct text written another way (text_variants.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"
#include "trainer_api.h"
#include "learner_internal.h"
#include "text_variants.h"

#define DEFAULT_DIR "/usr/share/dict"
#define MAX_LIST_BYTES (64 << 20)

struct el__variants {
  el__strmap british; /* American word -> index into `to` (value) */
  char **to;          /* British forms */
  int n;
  el__strmap names;   /* capitalised names ("Ryan"); key i is name i */
};

/* American -> British spelling rules, tried in this order at every place
 * the American pattern occurs; the first whose result the British list has wins. */
static const struct {
  const char *us, *uk;
} RULES[] = {{"or", "our"}, {"er", "re"},     {"iz", "is"},   {"yz", "ys"},
             {"l", "ll"},   {"og", "ogue"},   {"ense", "ence"}, {"ay", "ey"},
             {"e", "ae"},   {"e", "oe"},      {"am", "amme"}};

/* One word list: lines into a set (value 1). */
static int read_list(const char *dir, const char *name, const char *package, el__strmap *set,
                     el_error *err) {
  char path[4096], *text = NULL;
  size_t len;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  el_error e = {0};
  if (el__read_file(path, MAX_LIST_BYTES, &text, &len, &e))
    return el_error_set(err, EL_EIO, "%s: %s (the word list of the Debian package %s)", path,
                        e.msg, package);
  int rc = EL_OK;
  for (char *p = text, *end = text + len; p < end && !rc;) {
    char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = (size_t)((nl ? nl : end) - p);
    if (n && n < EL__VARIANT_WORD_MAX && el__strmap_get(set, p, (int)n, &(int){0}) < 0)
      rc = el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
    p += n + 1;
  }
  free(text);
  return rc;
}

static int is_lower_word(const char *w) {
  for (; *w; w++)
    if (*w < 'a' || *w > 'z') return 0;
  return 1;
}

/* The British form of American-only word a by the first rule that gives a
 * word of the British list; 0 when none does. */
static int derive(const el__strmap *br, const char *a, char out[EL__VARIANT_WORD_MAX]) {
  size_t n = strlen(a);
  for (size_t r = 0; r < sizeof RULES / sizeof RULES[0]; r++) {
    size_t lu = strlen(RULES[r].us), lk = strlen(RULES[r].uk);
    if (n - lu + lk >= EL__VARIANT_WORD_MAX) continue;
    for (const char *p = strstr(a, RULES[r].us); p; p = strstr(p + 1, RULES[r].us)) {
      size_t at = (size_t)(p - a);
      memcpy(out, a, at);
      memcpy(out + at, RULES[r].uk, lk);
      memcpy(out + at + lk, p + lu, n - at - lu + 1);
      if (el__strmap_find(br, out, (int)strlen(out)) >= 0) return 1;
    }
  }
  return 0;
}

static int add_pair(el__variants *v, const char *us, const char *uk) {
  int inserted, k = el__strmap_get(&v->british, us, (int)strlen(us), &inserted);
  if (k < 0) return -1;
  if (!inserted) return 0;
  char **to = realloc(v->to, (size_t)(v->n + 1) * sizeof *to);
  if (!to) return -1;
  v->to = to;
  if (!(to[v->n] = strdup(uk))) return -1;
  v->british.value[k] = v->n++;
  return 0;
}

/* "Ryan": a capital, then lower-case letters, and no word in lower case. */
static int is_name(const el__strmap *us, const char *w, int len) {
  char low[EL__VARIANT_WORD_MAX];
  if (len < 2 || len >= EL__VARIANT_WORD_MAX || w[0] < 'A' || w[0] > 'Z') return 0;
  for (int i = 1; i < len; i++)
    if (w[i] < 'a' || w[i] > 'z') return 0;
  memcpy(low, w, (size_t)len + 1);
  low[0] = (char)(low[0] - 'A' + 'a');
  return el__strmap_find(us, low, len) < 0;
}

static int collect_names(el__variants *v, const el__strmap *us) {
  char w[EL__VARIANT_WORD_MAX];
  for (int i = 0; i < us->n; i++) {
    int len = us->key_len[i];
    if (len >= EL__VARIANT_WORD_MAX) continue;
    memcpy(w, el__strmap_key(us, i), (size_t)len + 1);
    if (is_name(us, w, len) && el__strmap_get(&v->names, w, len, &(int){0}) < 0) return -1;
  }
  return 0;
}

static int derive_pairs(el__variants *v, const el__strmap *us, const el__strmap *br) {
  char uk[EL__VARIANT_WORD_MAX];
  for (int i = 0; i < us->n; i++) {
    const char *a = el__strmap_key(us, i);
    if (!is_lower_word(a) || el__strmap_find(br, a, us->key_len[i]) >= 0) continue;
    if (derive(br, a, uk) && add_pair(v, a, uk)) return -1;
  }
  return 0;
}

int el__variants_load(const char *dict_dir, el__variants **out, el_error *err) {
  *out = NULL;
  const char *dir = dict_dir ? dict_dir : DEFAULT_DIR;
  el__variants *v = calloc(1, sizeof *v);
  el__strmap us = {0}, br = {0};
  int rc = v ? EL_OK : el_error_set(err, EL_ENOMEM, "spelling variants: out of memory");
  if (!rc) rc = read_list(dir, "american-english", "wamerican", &us, err);
  if (!rc) rc = read_list(dir, "british-english", "wbritish", &br, err);
  if (!rc && (derive_pairs(v, &us, &br) || collect_names(v, &us)))
    rc = el_error_set(err, EL_ENOMEM, "spelling variants: out of memory");
  el__strmap_free(&us);
  el__strmap_free(&br);
  if (rc) {
    el__variants_free(v);
    return rc;
  }
  *out = v;
  return EL_OK;
}

void el__variants_free(el__variants *v) {
  if (!v) return;
  for (int i = 0; i < v->n; i++) free(v->to[i]);
  free(v->to);
  el__strmap_free(&v->british);
  el__strmap_free(&v->names);
  free(v);
}

int el__variants_count(const el__variants *v) { return v->n; }
int el__variants_names(const el__variants *v) { return v->names.n; }

int el__variants_british(const el__variants *v, const char *w, char out[EL__VARIANT_WORD_MAX]) {
  char low[EL__VARIANT_WORD_MAX];
  size_t n = strlen(w);
  if (n == 0 || n >= EL__VARIANT_WORD_MAX) return 0;
  int upper = 0;
  for (size_t i = 0; i < n; i++) {
    char c = w[i];
    upper += c >= 'A' && c <= 'Z';
    low[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
  }
  low[n] = 0;
  int k = el__strmap_find(&v->british, low, (int)n);
  if (k < 0) return 0;
  const char *uk = v->to[v->british.value[k]];
  size_t m = strlen(uk);
  int all_caps = upper == (int)n && n > 1;
  for (size_t i = 0; i <= m; i++) {
    char c = uk[i];
    out[i] = (all_caps || (i == 0 && upper)) && c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
  }
  return 1;
}

/* Whether words[i..i+2] are the engine's split of a negative contraction:
 * a word of 2+ letters ending in n, "'" (or U+2019), "t" ("don ' t"). */
static int split_nt_at(const char *const *words, int n, int i) {
  if (i + 2 >= n) return 0;
  const char *w = words[i], *q = words[i + 1];
  size_t len = strlen(w);
  return len >= 2 && (w[len - 1] == 'n' || w[len - 1] == 'N') &&
         (!strcmp(q, "'") || !strcmp(q, "\xe2\x80\x99")) &&
         (!strcmp(words[i + 2], "t") || !strcmp(words[i + 2], "T")) && len < EL__VARIANT_WORD_MAX;
}

int el__variants_apply(const el__variants *v, const char *const *words, int n, int flags,
                       uint64_t *rng, const char **out, char *out_buf) {
  int m = 0;
  char *buf = out_buf;
  for (int i = 0; i < n; i++) {
    if ((flags & EL__VAR_SPLIT_NT) && split_nt_at(words, n, i)) {
      size_t len = strlen(words[i]) - 1; /* "don" -> "do" */
      memcpy(buf, words[i], len);
      buf[len] = 0;
      out[m++] = buf;
      buf += EL__VARIANT_WORD_MAX;
      snprintf(buf, EL__VARIANT_WORD_MAX, "n%st", words[i + 1]);
      out[m++] = buf;
      buf += EL__VARIANT_WORD_MAX;
      i += 2;
    } else if ((flags & EL__VAR_NAMES) && i > 0 && v->names.n &&
               el__strmap_find(&v->names, words[i], (int)strlen(words[i])) >= 0) {
      out[m++] = el__strmap_key(&v->names, el__lr_below(rng, v->names.n));
    } else if ((flags & EL__VAR_BRITISH) && el__variants_british(v, words[i], buf)) {
      out[m++] = buf;
      buf += EL__VARIANT_WORD_MAX;
    } else {
      out[m++] = words[i];
    }
  }
  return m;
}

int el__variants_draw(uint64_t *rng) {
  return (int)(el__lr_next(rng) >> 61); /* three fair bits: EL__VAR_BRITISH, _SPLIT_NT, _NAMES */
}
