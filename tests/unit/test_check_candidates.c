/* The checker's candidate sources (check/check_candidates.c,
 * check_gencands.c) on a tiny random model whose threshold flags every
 * word: lang/'s families inverted (agreement, tense, form, noun number,
 * determiners, prepositions), hunspell's suggestions, case, deletion of a
 * function word or a repeated word, insertion before a word (FCE flags the
 * word after a gap), and the generator's whole words; each with its type.
 * Needs hunspell-en-gb/en-us and wordnet-base (SKIP without them). */
#include "../test.h"
#include "check_fixture.h"

static el__checker *C;

static void expect(const char *word, int kind, const char *text, int type) {
  el__cand *e = ck_cand(C, ck_flag(C, word), kind, text);
  CHECK(e && e->type == type, "%s: candidate %s\"%s\" typed %s (got %s)", word,
        kind == EL__EDIT_INSERT ? "insert " : kind == EL__EDIT_DELETE ? "delete " : "", text,
        el__etype_name(type), e ? (e->type < 0 ? "the generator's" : el__etype_name(e->type)) : "none");
}

static void absent(const char *word, int kind, const char *text, const char *why) {
  CHECK(!ck_cand(C, ck_flag(C, word), kind, text), "%s: no candidate \"%s\" (%s)", word, text, why);
}

static int propose(const char *text) {
  el_error err = {0};
  int rc = el__check_propose(C, text, strlen(text), &err);
  CHECK(rc == 0 && C->n_flags == C->words.n, "\"%s\": every word flagged (%d of %d)%s%s", text,
        C->n_flags, C->words.n, rc ? ": " : "", rc ? err.msg : "");
  return rc;
}

static void test_rules(void) {
  if (propose("she go to school yesterday. I recieve the the letter.")) return;
  expect("go", EL__EDIT_REPLACE, "goes", EL__ET_VERB_SVA);
  expect("go", EL__EDIT_REPLACE, "went", EL__ET_VERB_TENSE);
  expect("go", EL__EDIT_REPLACE, "going", EL__ET_VERB_FORM);
  expect("to", EL__EDIT_REPLACE, "in", EL__ET_PREP);
  expect(".", EL__EDIT_REPLACE, ",", EL__ET_PUNCT);
  expect("recieve", EL__EDIT_REPLACE, "receive", EL__ET_SPELL);
  CHECK(ck_flag(C, "recieve") && ck_flag(C, "recieve")->rejected, "recieve: the dictionaries reject it");
  expect("she", EL__EDIT_REPLACE, "She", EL__ET_ORTH);
  el__cand *e = ck_cand(C, ck_flag(C, "she"), EL__EDIT_REPLACE, "She");
  CHECK(e && e->by_rule, "She: vouched by rule (an uncased detector cannot see case)");
  expect("school", EL__EDIT_INSERT, "the", EL__ET_MISSING);
  expect("school", EL__EDIT_INSERT, "to", EL__ET_MISSING);
  expect("school", EL__EDIT_INSERT, ",", EL__ET_MISSING);
  absent("she", EL__EDIT_INSERT, ",", "no comma before a sentence's first word");
  expect("to", EL__EDIT_DELETE, "", EL__ET_UNNECESSARY);
  absent("school", EL__EDIT_DELETE, "", "an open-class word is not deleted");
  absent("yesterday", EL__EDIT_REPLACE, "yesterday", "never the word itself");
  const el__flag *second = NULL;
  for (int i = 0; i < C->n_flags; i++)
    if (ck_flag(C, "the") != &C->flags[i] && C->words.w[C->flags[i].word].end - C->words.w[C->flags[i].word].start == 3 &&
        !memcmp(C->text + C->words.w[C->flags[i].word].start, "the", 3))
      second = &C->flags[i];
  CHECK(second && ck_cand(C, second, EL__EDIT_DELETE, ""), "the the: the repeated word may go");
  CHECK(second && ck_cand(C, second, EL__EDIT_REPLACE, "a") && ck_cand(C, second, EL__EDIT_REPLACE, "a")->type == EL__ET_DET,
        "the -> a typed DET");
}

static void test_case_and_number(void) {
  if (propose("SHE GO with child.")) return;
  expect("GO", EL__EDIT_REPLACE, "GOES", EL__ET_VERB_SVA);
  expect("child", EL__EDIT_REPLACE, "children", EL__ET_NOUN_NUM);
}

static void test_generator(void) {
  if (propose("she go to school.")) return;
  const el__flag *f = ck_flag(C, "go");
  int gen = 0, bad = 0, ins = 0;
  for (int j = f ? f->cand0 : 0; f && j < f->cand0 + f->n_cand; j++) {
    const el__cand *e = &C->cands[j];
    gen += e->type < 0;
    ins += e->kind == EL__EDIT_INSERT && !isnan(e->gen_lp);
    bad += !strncmp(e->text, "##", 2) || e->text[0] == '[';
  }
  CHECK(gen >= 1, "go: the generator proposes whole words (%d)", gen);
  CHECK(ins >= 1, "go: insertions carry the generator's log-probability (%d)", ins);
  CHECK(!bad, "no ## piece or special token offered (%d)", bad);
  el__cand *e = ck_cand(C, ck_flag(C, "go"), EL__EDIT_REPLACE, "goes");
  CHECK(e && !isnan(e->gen_lp) && e->gen_lp < 0, "goes (one vocabulary entry) has its log-probability %g",
        e ? e->gen_lp : 0);
}

int main(void) {
  const char *miss = ck_missing_resources();
  if (miss) {
    SKIP("%s", miss);
    return el_test_done();
  }
  char tmp[] = "/tmp/el_test_check_cand_XXXXXX";
  el_model *det = NULL, *gen = NULL;
  if (!mkdtemp(tmp) || ck_models(tmp, &det, &gen)) {
    CHECK(0, "the tiny models are written and load");
    return el_test_done();
  }
  el__checker_opts o = {det, gen, 1e-6f, EL_SCORE_MAX, -1, NULL, NULL, 0, 0};
  el_error err = {0};
  int rc = el__checker_new(&o, &C, &err);
  CHECK(rc == 0, "checker: %s", rc ? err.msg : "ok");
  if (!rc) {
    test_rules();
    test_case_and_number();
    test_generator();
  }
  el__checker_free(C);
  el_model_free(gen);
  el_model_free(det);
  rm_rf(tmp);
  return el_test_done();
}
