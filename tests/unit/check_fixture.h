/* A tiny random detector (ElectraForPreTraining) and generator
 * (ElectraForMaskedLM) sharing a small English vocabulary, for the
 * checker's unit tests: what they compute is noise, so the tests look at
 * the candidates each source proposes, at how matches are built, and at
 * the cost, never at which candidate a model prefers. */
#ifndef EL_TESTS_CHECK_FIXTURE_H
#define EL_TESTS_CHECK_FIXTURE_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "checkpoint_util.h"
#include "check_internal.h"

static const char *const CK_WORDS[] = {
    "she", "he", "i", "you", "go", "goes", "went", "going", "gone", "to", "school", "yesterday",
    ".", ",", "the", "a", "an", "in", "on", "at", "for", "of", "with", "by", "from", "about",
    "into", "it", "is", "that", "be", "will", "have", "there", "them", "letter", "your",
    "like", "apples", "don", "'", "t", "receive", "children", "child", "music"};

static unsigned ck_seed = 12345;
static float ck_rand(void) {
  ck_seed = ck_seed * 1103515245u + 12345u;
  return ((float)((ck_seed >> 8) & 0xFFFF) / 65536.0f - 0.5f) * 0.2f;
}

static int ck_listed(const char *w) {
  for (size_t i = 0; i < sizeof CK_WORDS / sizeof *CK_WORDS; i++)
    if (!strcmp(CK_WORDS[i], w)) return 1;
  return 0;
}

/* Writes the vocabulary (the words, then letters and ##letters so any
 * word tokenizes) and returns its size. */
static int ck_vocab(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  int n = 5;
  fputs("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n", f);
  for (size_t i = 0; i < sizeof CK_WORDS / sizeof *CK_WORDS; i++, n++) fprintf(f, "%s\n", CK_WORDS[i]);
  for (char ch = 'a'; ch <= 'z'; ch++) {
    char one[2] = {ch, 0};
    if (!ck_listed(one)) fprintf(f, "%c\n", ch), n++;
  }
  for (char ch = 'a'; ch <= 'z'; ch++, n++) fprintf(f, "##%c\n", ch);
  fclose(f);
  return n;
}

static int ck_save(const char *dir, el_arch arch, int vocab, const char *vocab_path) {
  el_config c = small_config(arch, 16);
  c.vocab_size = vocab;
  c.max_position_embeddings = 64;
  el__weights w;
  float *block = random_weights(&c, &w, ck_rand);
  el_error err = {0};
  int rc = block ? el__checkpoint_save(dir, &c, &w, vocab_path, &err) : -1;
  if (rc) printf("# saving %s: %s\n", dir, err.msg);
  free(block);
  return rc;
}

/* Detector in TMP/det, generator in TMP/gen; 0 or -1. */
static int ck_models(const char *tmp, el_model **det, el_model **gen) {
  char vocab[300], d[300], g[300];
  snprintf(vocab, sizeof vocab, "%s/vocab.txt", tmp);
  snprintf(d, sizeof d, "%s/det", tmp);
  snprintf(g, sizeof g, "%s/gen", tmp);
  int n = ck_vocab(vocab);
  el_error err = {0};
  if (n < 0 || ck_save(d, EL_ARCH_PRETRAINING, n, vocab) || ck_save(g, EL_ARCH_MASKED_LM, n, vocab))
    return -1;
  if (el_model_load(d, det, &err) || (gen && el_model_load(g, gen, &err))) {
    printf("# loading: %s\n", err.msg);
    return -1;
  }
  return 0;
}

/* The checker's dictionaries and WordNet are Debian packages. */
static const char *ck_missing_resources(void) {
  if (access("/usr/share/hunspell/en_GB.dic", R_OK) && access("/usr/share/hunspell/en_US.dic", R_OK))
    return "no hunspell dictionaries (Debian hunspell-en-gb, hunspell-en-us)";
  if (access("/usr/share/wordnet/verb.exc", R_OK)) return "no WordNet (Debian wordnet-base)";
  return NULL;
}

/* The flag on the word whose text is w (first), or NULL. */
static el__flag *ck_flag(el__checker *c, const char *w) {
  for (int i = 0; i < c->n_flags; i++) {
    const el__word *x = &c->words.w[c->flags[i].word];
    if (x->end - x->start == strlen(w) && !memcmp(c->text + x->start, w, strlen(w))) return &c->flags[i];
  }
  return NULL;
}

/* f's candidate of that kind and text, or NULL. */
static el__cand *ck_cand(el__checker *c, const el__flag *f, int kind, const char *text) {
  for (int j = f ? f->cand0 : 0; f && j < f->cand0 + f->n_cand; j++)
    if (c->cands[j].kind == kind && !strcmp(c->cands[j].text, text)) return &c->cands[j];
  return NULL;
}

/* The tiny models in a new folder named by tmpl and two checkers on them
 * (every word flagged at threshold 1e-6): c with the generator, rules
 * without it (the random generator's near-uniform guesses would prune the
 * rule sources' insertions); 1 to run the tests, 0 when they cannot run
 * (SKIP or failure already reported). */
typedef struct ck_env {
  char tmp[64];
  el_model *det, *gen;
  el__checker *c, *rules;
} ck_env;

static int ck_open(ck_env *e, const char *tmpl) {
  memset(e, 0, sizeof *e);
  const char *miss = ck_missing_resources();
  if (miss) {
    SKIP("%s", miss);
    return 0;
  }
  snprintf(e->tmp, sizeof e->tmp, "%s", tmpl);
  if (!mkdtemp(e->tmp) || ck_models(e->tmp, &e->det, &e->gen)) {
    CHECK(0, "the tiny models are written and load");
    return 0;
  }
  el__checker_opts o = {e->det, e->gen, 1e-6f, EL_SCORE_MAX, -1, NULL, NULL, 0, 0};
  el_error err = {0};
  int rc = el__checker_new(&o, &e->c, &err);
  o.generator = NULL;
  if (!rc) rc = el__checker_new(&o, &e->rules, &err);
  CHECK(rc == 0, "checkers: %s", rc ? err.msg : "ok");
  return rc == 0;
}

static void ck_close(ck_env *e) {
  el__checker_free(e->c);
  el__checker_free(e->rules);
  el_model_free(e->gen);
  el_model_free(e->det);
  if (e->tmp[0]) rm_rf(e->tmp);
}

#endif
