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
        el__etype_name(type), e ? el__etype_name(e->type) : "none");
}

static void absent(const char *word, int kind, const char *text, const char *why) {
  CHECK(!ck_cand(C, ck_flag(C, word), kind, text), "%s: no candidate \"%s\" (%s)", word, text, why);
}

static int propose(const char *text) {
  el_error err = {0};
  int rc = el__check_propose(C, text, strlen(text), EL__DICT_EN, &err);
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
  expect("school", EL__EDIT_INSERT, ",", EL__ET_PUNCT);
  absent("she", EL__EDIT_INSERT, ",", "no comma before a sentence's first word");
  absent("recieve", EL__EDIT_INSERT, "the", "a misspelling is corrected, not kept with a word before it");
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
  absent("child", EL__EDIT_REPLACE, "childs", "a rule's form no dictionary knows mends nothing");
  if (propose("He has two brother.")) return;
  expect("brother", EL__EDIT_REPLACE, "brothers", EL__ET_NOUN_NUM);
}

/* A regular ending on an irregular word: its irregular forms as spelling
 * fixes, ranked before hunspell's suggestions. */
static void test_irregular(void) {
  if (propose("He buyed it and the childs ran.")) return;
  expect("buyed", EL__EDIT_REPLACE, "bought", EL__ET_SPELL);
  expect("childs", EL__EDIT_REPLACE, "children", EL__ET_SPELL);
  const el__flag *f = ck_flag(C, "buyed");
  const el__cand *e = ck_cand(C, f, EL__EDIT_REPLACE, "bought");
  int first = e != NULL;
  for (int j = f ? f->cand0 : 0; e && j < f->cand0 + f->n_cand; j++)
    if (C->cands[j].type == EL__ET_SPELL && &C->cands[j] != e) first &= C->cands[j].prior > e->prior;
  CHECK(first, "buyed: \"bought\" has a better prior than every dictionary suggestion");
}

/* A misspelling is flagged even where the detector sees nothing. */
static void test_dictionary_flags(void) {
  const char *text = "I recieve it. London is big.";
  el_error err = {0};
  C->o.threshold = 1.0f;
  int rc = el__check_propose(C, text, strlen(text), EL__DICT_EN, &err);
  C->o.threshold = 1e-6f;
  CHECK(!rc && C->n_flags == 1 && ck_flag(C, "recieve") && ck_flag(C, "recieve")->rejected,
        "threshold 1: only the word the dictionaries reject is flagged (%d flags)", C->n_flags);
}

/* The flags of text at threshold 1 (the dictionary's alone) in variant v,
 * "word word" in text order; n_only: how many are variant-only. */
static int dict_flags(el__dict_variant v, const char *text, char *got, size_t cap, int *n_only) {
  el_error err = {0};
  C->o.threshold = 1.0f;
  int rc = el__check_propose(C, text, strlen(text), v, &err);
  C->o.threshold = 1e-6f;
  got[0] = 0;
  *n_only = 0;
  for (int i = 0; !rc && i < C->n_flags; i++) {
    const el__word *x = &C->words.w[C->flags[i].word];
    size_t k = strlen(got);
    snprintf(got + k, cap - k, "%s%.*s", k ? " " : "", (int)(x->end - x->start), C->text + x->start);
    *n_only += C->flags[i].variant_only;
  }
  return rc;
}

/* The variant is the call's: one checker flags "favorite" and "color" in
 * British English (with en_GB's "colour" first; "favourite" is more pieces
 * than a candidate may have in the fixture's letter vocabulary), "colour"
 * in American (en_US's "color" first), neither in "en"; sentence starts and names follow the dictionary's rules; a
 * variant-only misspelling's match says which English it is wrong in. */
static void test_variants(void) {
  const char *text = "My favorite color and colour, Favorite. Favorite was recieved by Theater.";
  char got[256];
  int only = 0;
  int rc = dict_flags(EL__DICT_GB, text, got, sizeof got, &only);
  CHECK(!rc && !strcmp(got, "favorite color Favorite recieved") && only == 3,
        "en-GB: favorite, color, the sentence-initial Favorite and recieved flagged, not Favorite "
        "or Theater mid-sentence (got \"%s\", %d variant-only)", got, only);
  el__cand *e = ck_cand(C, ck_flag(C, "color"), EL__EDIT_REPLACE, "colour");
  CHECK(e && e->type == EL__ET_SPELL && e->prior == 0.0f,
        "en-GB: color -> colour, typed SPELL, en_GB's first suggestion (%s, prior %g)",
        e ? el__etype_name(e->type) : "none", e ? (double)e->prior : -1.0);
  CHECK(ck_flag(C, "recieved") && !ck_flag(C, "recieved")->variant_only,
        "recieved: misspelt in both, not variant-only");
  rc = dict_flags(EL__DICT_US, text, got, sizeof got, &only);
  CHECK(!rc && !strcmp(got, "colour recieved") && only == 1, "en-US: colour and recieved (got \"%s\")", got);
  e = ck_cand(C, ck_flag(C, "colour"), EL__EDIT_REPLACE, "color");
  CHECK(e && e->type == EL__ET_SPELL && e->prior == 0.0f, "en-US: colour -> color first");
  rc = dict_flags(EL__DICT_EN, text, got, sizeof got, &only);
  CHECK(!rc && !strcmp(got, "recieved") && !only, "en: recieved alone (got \"%s\")", got);

  el__matches ms = {0};
  el_error err = {0};
  C->o.threshold = 1.0f;
  rc = el__check_text(C, "I like my favorite music.", 25, EL__DICT_GB, &ms, &err);
  C->o.threshold = 1e-6f;
  CHECK(!rc && ms.n == 1 && ms.m[0].type == EL__ET_SPELL && strstr(ms.m[0].message, "(British English)"),
        "en-GB: favorite is a SPELL match saying British English (%d matches: %s)", ms.n,
        ms.n ? ms.m[0].message : "");
  el__matches_free(&ms);
  C->o.threshold = 1.0f;
  rc = el__check_text(C, "I like my favourite musik.", 26, EL__DICT_US, &ms, &err);
  C->o.threshold = 1e-6f;
  CHECK(!rc && ms.n == 2 && strstr(ms.m[0].message, "(American English)") &&
        !strstr(ms.m[1].message, "English"),
        "en-US: favourite says American English, musik (misspelt in both) no variant (%d matches)", ms.n);
  el__matches_free(&ms);
}

/* Insertion candidates of "go" in "she go to school.", and how many of
 * them the generator gives a log-probability below low. */
static int insertions(el__checker *c, float low, int *below) {
  C = c;
  *below = 0;
  if (propose("she go to school.")) return -1;
  const el__flag *f = ck_flag(C, "go");
  int n = 0;
  for (int j = f ? f->cand0 : 0; f && j < f->cand0 + f->n_cand; j++) {
    const el__cand *e = &C->cands[j];
    n += e->kind == EL__EDIT_INSERT;
    *below += e->kind == EL__EDIT_INSERT && !isnan(e->gen_lp) && e->gen_lp < low;
  }
  return n;
}

static void test_generator(el__checker *with, el__checker *without) {
  int below = 0, n_rules = insertions(without, 0, &below);
  int n_gen = insertions(with, -4.6f, &below);
  CHECK(n_gen >= 0 && n_gen <= n_rules && !below,
        "with a generator, insertions it finds unlikely (< 1 %%) are not verified (%d of %d kept, %d below)",
        n_gen, n_rules, below);
  const el__flag *f = ck_flag(C, "go");
  int gen = 0, bad = 0, other = 0, gen_ins = 0;
  for (int j = f ? f->cand0 : 0; f && j < f->cand0 + f->n_cand; j++) {
    const el__cand *e = &C->cands[j];
    gen += e->by_gen;
    gen_ins += e->by_gen && e->kind == EL__EDIT_INSERT;
    other += e->type == EL__ET_OTHER;
    bad += !strncmp(e->text, "##", 2) || e->text[0] == '[';
  }
  int gen_all = 0;
  for (int j = 0; j < C->n_cands; j++) gen_all += C->cands[j].by_gen && C->cands[j].kind == EL__EDIT_REPLACE;
  CHECK(gen_all >= 1, "\"she go to school.\": the generator proposes whole words the rules do not (%d; %d for go)",
        gen_all, gen);
  CHECK(!gen_ins, "go: the generator ranks the rules' insertions and proposes none of its own (%d)", gen_ins);
  CHECK(!other, "no candidate unrelated to the word (OTHER: never offered, not worth verifying): %d", other);
  CHECK(!bad, "no ## piece or special token offered (%d)", bad);
  el__cand *e = ck_cand(C, ck_flag(C, "go"), EL__EDIT_REPLACE, "goes");
  CHECK(e && !isnan(e->gen_lp) && e->gen_lp < 0, "goes (one vocabulary entry) has its log-probability %g",
        e ? e->gen_lp : 0);
  CHECK(f && f->gen_top > 0 && f->gen_top <= 1, "go: the generator's likeliest other word's probability (%g)",
        f ? (double)f->gen_top : -1.0);
  /* a word of several pieces is ranked by its first piece's log-probability
   * at the mask, not left unknown */
  int multi = 0, first_piece = 0;
  for (int i = 0; i < C->n_flags; i++) {
    const el__flag *g = &C->flags[i];
    for (int j = g->cand0; g->gen_row >= 0 && j < g->cand0 + g->n_cand; j++) {
      const el__cand *x = &C->cands[j];
      if (x->n_ids < 2 || x->kind == EL__EDIT_DELETE) continue;
      multi++;
      size_t row = (size_t)(g->gen_row + (x->kind == EL__EDIT_INSERT)) * (size_t)C->vocab;
      first_piece += !isnan(x->gen_lp) && x->gen_lp == C->lp[row + (size_t)C->pool[x->ids]];
    }
  }
  CHECK(multi > 0 && first_piece == multi, "%d of %d multi-piece candidates carry their first piece's log-probability",
        first_piece, multi);
}

/* A flag below the suggestion threshold is a match without replacements:
 * it costs no generator row and no candidate; a misspelling always gets
 * them. */
static void test_suggest_only(void) {
  const char *text = "She go to recieve it.";
  el_error err = {0};
  float keep = C->o.suggest_threshold;
  C->o.suggest_threshold = 1.0f;
  int rc = el__check_propose(C, text, strlen(text), EL__DICT_EN, &err);
  const el__flag *go = ck_flag(C, "go"), *rec = ck_flag(C, "recieve");
  CHECK(!rc && go && go->n_cand == 0 && go->gen_row < 0, "go below the suggestion threshold: no candidate (%d)",
        go ? go->n_cand : -1);
  CHECK(!rc && rec && rec->n_cand > 0, "recieve (a misspelling): candidates all the same (%d)",
        rec ? rec->n_cand : -1);
  C->o.suggest_threshold = keep;
}

int main(void) {
  ck_env env;
  if (ck_open(&env, "/tmp/el_test_check_cand_XXXXXX")) {
    /* every flagged word gets candidates here (a flag below the suggestion
     * threshold gets none: test_suggest_only) */
    env.c->o.suggest_threshold = env.rules->o.suggest_threshold = 1e-6f;
    C = env.c;
    test_suggest_only();
    C = env.rules;
    test_rules();
    test_case_and_number();
    test_irregular();
    test_dictionary_flags();
    test_variants();
    test_generator(env.c, env.rules);
  }
  ck_close(&env);
  return el_test_done();
}
