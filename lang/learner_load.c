/* The learner-error tables: WordNet's lemma indexes and exception lists,
 * and the closed-class words (learner.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "learner_internal.h"
#include "trainer_api.h"

#define DEFAULT_DIR "/usr/share/wordnet"

/* Function words by class. The preposition list is the confusion set of the
 * preposition families: the prepositions FCE learners confuse most. */
typedef struct wclass {
  uint32_t bits;
  const char *words;
} wclass;

static const wclass CLASSES[] = {
    {EL__LC_ARTICLE | EL__LC_DET, "a an the"},
    {EL__LC_DET,
     "this that these those my your his her its our their some any no every each all both "
     "another many much few several such"},
    {EL__LC_PREP,
     "in on at to for of with by from about into onto over under during through towards "
     "between among after before since until without across against"},
    {EL__LC_PRON_SUBJ | EL__LC_PRON, "i you he she it we they"},
    {EL__LC_PRON, "me him her us them"},
    {EL__LC_AUX, "am is are was were be been being have has had having do does did"},
    {EL__LC_MODAL, "can could will would shall should may might must"},
    {EL__LC_CLOSED,
     "and or but so because if when while although though than then as not n't yes very too "
     "also just only there here what which who whom whose where why how 's 'm 're 've 'll 'd "
     "myself yourself himself herself itself ourselves themselves one ones two three four "
     "five six seven eight nine ten hundred thousand million"},
};

static int add_closed(el__learner *l, el_error *err) {
  for (size_t c = 0; c < sizeof CLASSES / sizeof CLASSES[0]; c++) {
    const char *p = CLASSES[c].words;
    while (*p) {
      const char *e = strchr(p, ' ');
      int len = e ? (int)(e - p) : (int)strlen(p);
      int i = el__strmap_get(&l->closed, p, len, NULL);
      if (i < 0) return el_error_set(err, EL_ENOMEM, "learner: out of memory");
      /* every listed word is a function word, whatever else it is */
      l->closed.value[i] |= (int64_t)(CLASSES[c].bits | EL__LC_CLOSED);
      p += len + (e ? 1 : 0);
    }
  }
  return EL_OK;
}

uint32_t el__learner_word_class(const el__learner *l, const char *w) {
  int i = el__strmap_find(&l->closed, w, (int)strlen(w));
  return i < 0 ? 0 : (uint32_t)l->closed.value[i];
}

/* Single words only: WordNet joins multi-word entries with '_'. */
static int usable(const char *w, size_t n) {
  if (!n || n >= EL__LWORD_MAX) return 0;
  for (size_t i = 0; i < n; i++)
    if (w[i] == '_' || (unsigned char)w[i] >= 0x80) return 0;
  return 1;
}

static int word_id(el__learner *l, const char *w, size_t n, el_error *err) {
  int i = el__strmap_get(&l->words, w, (int)n, NULL);
  if (i < 0) el_error_set(err, EL_ENOMEM, "learner: out of memory");
  return i;
}

static FILE *open_wn(const char *dir, const char *name, char *path, size_t cap, el_error *err) {
  snprintf(path, cap, "%s/%s", dir, name);
  FILE *f = fopen(path, "r");
  if (!f)
    el_error_set(err, EL_EIO,
                 "cannot open %s: %s (the learner errors need WordNet's files: install the "
                 "Debian package wordnet-base)",
                 path, strerror(errno));
  return f;
}

/* index.noun / index.verb: "lemma pos ..." per line; the licence header
 * lines start with a space. */
static int load_index(el__learner *l, const char *dir, const char *name, int flag,
                      el_error *err) {
  char path[4200];
  FILE *f = open_wn(dir, name, path, sizeof path, err);
  if (!f) return EL_EIO;
  char *line = NULL;
  size_t cap = 0;
  int rc = EL_OK, n = 0;
  while (getline(&line, &cap, f) > 0) {
    if (line[0] == ' ') continue;
    size_t k = strcspn(line, " \n");
    if (!usable(line, k)) continue;
    int i = word_id(l, line, k, err);
    if (i < 0) {
      rc = EL_ENOMEM;
      break;
    }
    l->words.value[i] |= flag;
    n++;
  }
  free(line);
  fclose(f);
  if (!rc && !n) rc = el_error_set(err, EL_EFORMAT, "%s: no lemmas", path);
  return rc;
}

static int exc_push(el__lexc *x, int form, int lemma) {
  const size_t need = (size_t)x->n + 1;
  if (el__grow((void **)&x->form, &x->cap_form, need, sizeof *x->form) ||
      el__grow((void **)&x->lemma, &x->cap_lemma, need, sizeof *x->lemma))
    return -1;
  x->form[x->n] = form;
  x->lemma[x->n] = lemma;
  x->n++;
  return 0;
}

/* verb.exc / noun.exc: "form lemma [lemma...]" per line. */
static int load_exc(el__learner *l, const char *dir, const char *name, el__lexc *x,
                    el_error *err) {
  char path[4200];
  FILE *f = open_wn(dir, name, path, sizeof path, err);
  if (!f) return EL_EIO;
  char *line = NULL;
  size_t cap = 0;
  int rc = EL_OK;
  while (rc == EL_OK && getline(&line, &cap, f) > 0) {
    char *save = NULL, *form = strtok_r(line, " \n", &save);
    if (!form || !usable(form, strlen(form))) continue;
    int fi = word_id(l, form, strlen(form), err);
    for (char *lem; fi >= 0 && (lem = strtok_r(NULL, " \n", &save));) {
      if (!usable(lem, strlen(lem))) continue;
      int li = word_id(l, lem, strlen(lem), err);
      if (li < 0 || exc_push(x, fi, li)) fi = -1;
    }
    if (fi < 0) rc = el_error_set(err, EL_ENOMEM, "learner: out of memory");
  }
  free(line);
  fclose(f);
  if (!rc && !x->n) rc = el_error_set(err, EL_EFORMAT, "%s: no entries", path);
  return rc;
}

/* Chains the pairs per form and per lemma, in file order. */
static int exc_link(el__lexc *x, int n_words) {
  x->next_by_form = malloc((size_t)(x->n ? x->n : 1) * sizeof(int));
  x->next_by_lemma = malloc((size_t)(x->n ? x->n : 1) * sizeof(int));
  x->head_form = malloc((size_t)n_words * sizeof(int));
  x->head_lemma = malloc((size_t)n_words * sizeof(int));
  if (!x->next_by_form || !x->next_by_lemma || !x->head_form || !x->head_lemma) return -1;
  memset(x->head_form, 0xff, (size_t)n_words * sizeof(int));
  memset(x->head_lemma, 0xff, (size_t)n_words * sizeof(int));
  for (int p = x->n - 1; p >= 0; p--) {
    x->next_by_form[p] = x->head_form[x->form[p]];
    x->head_form[x->form[p]] = p;
    x->next_by_lemma[p] = x->head_lemma[x->lemma[p]];
    x->head_lemma[x->lemma[p]] = p;
  }
  return 0;
}

static void exc_free(el__lexc *x) {
  free(x->form);
  free(x->lemma);
  free(x->next_by_form);
  free(x->next_by_lemma);
  free(x->head_form);
  free(x->head_lemma);
}

int el__learner_load(const char *wordnet_dir, el__learner **out, el_error *err) {
  *out = NULL;
  const char *dir = wordnet_dir ? wordnet_dir : DEFAULT_DIR;
  el__learner *l = calloc(1, sizeof *l);
  if (!l) return el_error_set(err, EL_ENOMEM, "learner: out of memory");
  int rc = add_closed(l, err);
  if (!rc) rc = load_index(l, dir, "index.noun", EL__LW_NOUN, err);
  if (!rc) rc = load_index(l, dir, "index.verb", EL__LW_VERB, err);
  if (!rc) rc = load_exc(l, dir, "verb.exc", &l->vexc, err);
  if (!rc) rc = load_exc(l, dir, "noun.exc", &l->nexc, err);
  if (!rc && (exc_link(&l->vexc, l->words.n) || exc_link(&l->nexc, l->words.n)))
    rc = el_error_set(err, EL_ENOMEM, "learner: out of memory");
  if (rc) {
    el__learner_free(l);
    return rc;
  }
  *out = l;
  return EL_OK;
}

void el__learner_free(el__learner *l) {
  if (!l) return;
  el__strmap_free(&l->words);
  el__strmap_free(&l->closed);
  exc_free(&l->vexc);
  exc_free(&l->nexc);
  free(l);
}
