/* A test double of check/check.h, linked ONLY into the test server
 * build/tests/electra-server-checkdouble (Makefile), so the LanguageTool
 * layer's e2e tests and the page's browser test check exact offsets and
 * clicks without a trained model: it flags "go" after "She"/"He"
 * (VERB:SVA, "goes") and "becouse" (SPELL, "because"), and the variant
 * spelling of the check's language: "favorite" in British English,
 * "favourite" in American (neither in "en"), deterministic and model-free;
 * level=picky (el__checker_set_picky) adds "went" to the "go" match. The real checker is tested by tests/unit/test_check_* and
 * tests/e2e/test_check_cli.sh. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

struct el__checker {
  int picky;
};

void el__checker_set_picky(el__checker *c, int picky) { c->picky = picky; }

int el__checker_new(const el__checker_opts *o, el__checker **out, el_error *err) {
  (void)o, (void)err;
  *out = calloc(1, sizeof **out);
  return *out ? EL_OK : EL_ENOMEM;
}

void el__checker_free(el__checker *c) { free(c); }

static int add(el__matches *out, size_t off, size_t len, int type, const char *repl,
               const char *msg, const char *shrt) {
  if (out->n == out->cap) {
    int cap = out->cap ? 2 * out->cap : 8;
    el__match *m = realloc(out->m, (size_t)cap * sizeof *m);
    if (!m) return EL_ENOMEM;
    out->m = m, out->cap = cap;
  }
  el__match *m = &out->m[out->n++];
  memset(m, 0, sizeof *m);
  m->offset = off, m->length = len, m->type = type, m->prob = 0.9f;
  m->repl[0] = strdup(repl);
  m->n_repl = m->repl[0] ? 1 : 0;
  strcpy(m->message, msg);
  strcpy(m->short_message, shrt);
  return EL_OK;
}

/* text + i is the whole word w */
static int word_at(const char *text, size_t len, size_t i, const char *w) {
  size_t n = strlen(w);
  return i + n <= len && !memcmp(text + i, w, n) && (i + n == len || text[i + n] < 'a');
}

int el__check_text(el__checker *c, const char *text, size_t len, el__dict_variant v,
                   el__matches *out, el_error *err) {
  (void)err;
  for (size_t i = 0; i < len; i++) {
    int word_start = i == 0 || text[i - 1] == ' ' || text[i - 1] == '\n';
    if (!word_start) continue;
    if (v == EL__DICT_GB && word_at(text, len, i, "favorite"))
      add(out, i, 8, EL__ET_SPELL, "favourite",
          "Possible spelling mistake (British English): did you mean \"favourite\"?", "Spelling");
    if (v == EL__DICT_US && word_at(text, len, i, "favourite"))
      add(out, i, 9, EL__ET_SPELL, "favorite",
          "Possible spelling mistake (American English): did you mean \"favorite\"?", "Spelling");
    if (i + 8 <= len && !memcmp(text + i, "becouse", 7) && (i + 7 == len || text[i + 7] < 'a'))
      add(out, i, 7, EL__ET_SPELL, "because", "Possible spelling mistake: \"because\"?",
          "Spelling");
    if (i >= 3 && i + 2 <= len && !memcmp(text + i, "go", 2) &&
        (i + 2 == len || text[i + 2] == ' ' || text[i + 2] == '.') &&
        ((i >= 4 && !memcmp(text + i - 4, "She ", 4)) || (i >= 3 && !memcmp(text + i - 3, "He ", 3))))
      if (!add(out, i, 2, EL__ET_VERB_SVA, "goes", "Possible agreement error: \"goes\"?",
               "Agreement") && c->picky && (out->m[out->n - 1].repl[1] = strdup("went")))
        out->m[out->n - 1].n_repl = 2;
  }
  c->picky = 0; /* as check.h: the setting holds for one check */
  return EL_OK;
}
