/* Verification and matches (check/check_verify.c, check_matches.c,
 * check_messages.c) on a tiny random model: a threshold nothing reaches
 * keeps no candidate and one everything stays under keeps them all; then,
 * with one chosen candidate kept per word, the match's span, replacement
 * (applied to the text: the sentence a writer gets), type and message for
 * a replacement, a deletion (its space goes too; a new first word gets the
 * capital), an insertion (a new first word takes the capital; a comma goes
 * after the previous word) and a word without a verified candidate. Needs
 * hunspell-en-gb/en-us and wordnet-base (SKIP without them). */
#include "../test.h"
#include "check_fixture.h"

static el__checker *C;

/* text with match m's replacement r applied, into out. */
static void apply(const char *text, const el__match *m, int r, char *out, size_t cap) {
  snprintf(out, cap, "%.*s%s%s", (int)m->offset, text, r < m->n_repl ? m->repl[r] : "?",
           text + m->offset + m->length);
}

/* Proposes for text (every word flagged), verifies with a threshold no
 * probability reaches, then keeps only word's candidate (kind, cand). */
static int keep_only(const char *text, const char *word, int kind, const char *cand) {
  el_error err = {0};
  C->o.threshold = 1e-6f;
  int rc = el__check_propose(C, text, strlen(text), EL__DICT_EN, &err);
  C->o.threshold = 1.0f;
  if (!rc) rc = el__check_verify(C, &err);
  if (rc) return rc;
  el__cand *keep = word ? ck_cand(C, ck_flag(C, word), kind, cand) : NULL;
  for (int j = 0; j < C->n_cands; j++) C->cands[j].ok = &C->cands[j] == keep;
  if (keep) keep->p_edit = 0; /* clearly original once edited (check_matches.c's SURE_EDIT) */
  return word && !keep;
}

/* The match on word after keeping one candidate: applied, it gives want. */
static void expect(const char *text, const char *word, int kind, const char *cand, const char *want,
                   int type, const char *msg) {
  el__matches ms = {0};
  el_error err = {0};
  int rc = keep_only(text, word, kind, cand);
  if (!rc) rc = el__check_matches(C, &ms, &err);
  const el__flag *f = ck_flag(C, word);
  const el__match *m = NULL;
  for (int i = 0; !rc && f && i < ms.n; i++)
    if (ms.m[i].offset <= C->words.w[f->word].start && ms.m[i].offset + ms.m[i].length >= C->words.w[f->word].end)
      m = &ms.m[i];
  char got[256] = "";
  if (m) apply(text, m, 0, got, sizeof got);
  CHECK(m && !strcmp(got, want) && m->type == type, "%s -> \"%s\" as %s (got \"%s\", %s)", word, want,
        el__etype_name(type), got, m ? el__etype_name(m->type) : "no match");
  CHECK(m && strstr(m->message, msg) && m->short_message[0], "message: %s (got \"%s\" / \"%s\")", msg,
        m ? m->message : "", m ? m->short_message : "");
  el__matches_free(&ms);
}

static void test_thresholds(void) {
  const char *text = "She go to school yesterday.";
  el_error err = {0};
  C->o.threshold = 1e-6f;
  int rc = el__check_propose(C, text, strlen(text), EL__DICT_EN, &err);
  if (!rc) rc = el__check_verify(C, &err);
  int ok = 0;
  for (int j = 0; j < C->n_cands; j++) ok += C->cands[j].ok && !C->cands[j].by_rule;
  CHECK(!rc && C->n_cands > 20 && ok == 0, "threshold 1e-6: none of %d candidates verifies (%d)", C->n_cands, ok);
  C->o.threshold = 1.0f;
  C->o.verify_all = 1;
  rc = el__check_verify(C, &err);
  C->o.verify_all = 0;
  ok = 0;
  int skipped = 0, over = 0, forms = 0, forms_skipped = 0;
  for (int j = 0; j < C->n_cands; j++) ok += C->cands[j].ok, skipped += C->cands[j].skip;
  CHECK(!rc && skipped > 0 && ok == C->n_cands - skipped,
        "threshold 1: all %d candidates verify but the %d past the cap (%d)", C->n_cands, skipped, ok);
  for (int i = 0; i < C->n_flags; i++) {
    const el__flag *f = &C->flags[i];
    int tried = 0, tries = 0;
    for (int j = f->cand0; j < f->cand0 + f->n_cand; j++) {
      const el__cand *e = &C->cands[j];
      if (el__cand_own_form(e)) {
        forms++, forms_skipped += e->skip;
        continue;
      }
      tried += !e->skip && !e->by_rule, tries += !e->by_rule;
    }
    over += tried != (tries < EL__VERIFY_CAP ? tries : EL__VERIFY_CAP);
  }
  CHECK(!over, "each flag verifies its %d best candidates (or all it has) besides its own forms: %d flags not",
        EL__VERIFY_CAP, over);
  CHECK(forms >= 4 && !forms_skipped, "the words' own forms (%d: goes, went, going, ...) all verified (%d skipped)",
        forms, forms_skipped);
}

/* Flag i's best verified candidate (lowest rank, first on a tie), or -1. */
static int best_of(int i) {
  const el__flag *f = &C->flags[i];
  int best = -1;
  for (int j = f->cand0; j < f->cand0 + f->n_cand; j++)
    if (C->cands[j].ok && (best < 0 || C->cands[j].rank < C->cands[best].rank)) best = j;
  return best;
}

/* Best first finds the best candidate verifying them all finds, with fewer
 * verification sentences: at thresholds where some candidates verify and
 * some do not, on the fixture's random detector. */
static void test_best_first(void) {
  const char *texts[] = {"She go to school yesterday.", "I recieve you letter and he have two brother."};
  const float thresholds[] = {0.45f, 0.5f, 0.6f, 0.7f};
  int verified = 0;
  for (size_t t = 0; t < sizeof texts / sizeof *texts; t++)
    for (size_t k = 0; k < sizeof thresholds / sizeof *thresholds; k++) {
      el_error err = {0};
      C->o.threshold = 1e-6f;
      int rc = el__check_propose(C, texts[t], strlen(texts[t]), EL__DICT_EN, &err);
      C->o.threshold = thresholds[k];
      C->o.verify_all = 1;
      if (!rc) rc = el__check_verify(C, &err);
      C->o.verify_all = 0;
      int want[64], n = C->n_flags < 64 ? C->n_flags : 64, all = 0, some = 0, fewer = 0, differ = 0;
      for (int i = 0; i < n; i++) want[i] = best_of(i), some += want[i] >= 0;
      for (int j = 0; j < C->n_cands; j++) all += !C->cands[j].skip && !C->cands[j].by_rule;
      if (!rc) rc = el__check_verify(C, &err);
      for (int j = 0; j < C->n_cands; j++) fewer += !C->cands[j].skip && !C->cands[j].by_rule;
      for (int i = 0; i < n; i++) differ += best_of(i) != want[i];
      verified += some;
      CHECK(!rc && !differ && fewer <= all,
            "\"%s\" at threshold %g: best first picks verification's best for all %d flags (%d differ; "
            "%d with one), %d sentences instead of %d",
            texts[t], (double)thresholds[k], n, differ, some, fewer, all);
    }
  CHECK(verified > 0, "some flags had a verified candidate to find (%d)", verified);
}

/* Best first stops on each candidate's least rank: no verdict may give a
 * lower one, a misspelling's fixes (ranked by log-odds) included. */
static void test_least_rank(void) {
  const char *text = "Becouse of wich leter my freind have two brother.";
  el_error err = {0};
  C->o.threshold = 1e-6f;
  int rc = el__check_propose(C, text, strlen(text), EL__DICT_EN, &err);
  C->o.threshold = 0.5f;
  const float verdicts[] = {0.0f, 1e-9f, 1e-4f, 0.01f, 0.3f, 0.5f, 0.9f, 1.0f};
  int fixes = 0, checked = 0, below = 0;
  for (int i = 0; !rc && i < C->n_flags; i++) {
    const el__flag *f = &C->flags[i];
    for (int j = f->cand0; j < f->cand0 + f->n_cand; j++) {
      el__cand *e = &C->cands[j];
      fixes += f->rejected && e->type == EL__ET_SPELL;
      float least = el__cand_least_rank(C, f, e);
      for (size_t v = 0; v < sizeof verdicts / sizeof *verdicts; v++, checked++) {
        e->p_edit = verdicts[v];
        el__cand_rank(C, f, e);
        below += e->rank < least - 1e-5f;
      }
    }
  }
  CHECK(!rc && fixes >= 4 && checked > 0 && !below,
        "no verdict ranks a candidate below its least rank (%d of %d; %d misspelling fixes)", below, checked,
        fixes);
}

/* Above the suggestion threshold only: a misspelling still gets its fix. */
static void test_suggest_threshold(void) {
  const char *text = "She go to recieve it.";
  el__matches ms = {0};
  el_error err = {0};
  int rc = keep_only(text, NULL, 0, NULL);
  for (int j = 0; j < C->n_cands; j++) C->cands[j].ok = 1;
  C->o.suggest_threshold = 1.0f;
  if (!rc) rc = el__check_matches(C, &ms, &err);
  C->o.suggest_threshold = 1e-6f;
  CHECK(!rc && ms.n == 6 && ms.m[1].n_repl == 0 && ms.m[3].n_repl > 0,
        "suggest_threshold 1: \"go\" flagged without replacements (%d), \"recieve\" with (%d)",
        ms.n == 6 ? ms.m[1].n_repl : -1, ms.n == 6 ? ms.m[3].n_repl : -1);
  el__matches_free(&ms);
}

/* level=picky (el__checker_set_picky): every flagged word gets its
 * replacements, whatever the suggestion threshold; off again, "go" (below
 * it) gets none. */
static void test_picky(void) {
  const char *text = "She go to recieve it.";
  el__matches on = {0}, off = {0};
  el_error err = {0};
  int rc = keep_only(text, NULL, 0, NULL);
  for (int j = 0; j < C->n_cands; j++) C->cands[j].ok = 1, C->cands[j].p_edit = 0;
  C->o.suggest_threshold = 1.0f;
  C->o.threshold = 1e-6f; /* every word flagged, "go" far below the suggestion threshold */
  el__checker_set_picky(C, 1);
  if (!rc) rc = el__check_matches(C, &on, &err);
  el__checker_set_picky(C, 0);
  if (!rc) rc = el__check_matches(C, &off, &err);
  C->o.threshold = 1.0f;
  C->o.suggest_threshold = 1e-6f;
  CHECK(!rc && on.n == 6 && off.n == 6 && on.m[1].n_repl > 0 && off.m[1].n_repl == 0,
        "picky: \"go\" gets replacements (%d), not without it (%d)", on.n == 6 ? on.m[1].n_repl : -1,
        off.n == 6 ? off.m[1].n_repl : -1);
  el__matches_free(&on);
  el__matches_free(&off);
}

/* An edit of a word the dictionaries accept is offered only when the
 * edited region looks clearly original (at most 0.1 x the threshold); a
 * misspelling's fix keeps the verification's bar. */
static void test_sure_edit(void) {
  const char *text = "She go to recieve it.";
  static const struct {
    const char *word, *cand;
    float p_edit;
    int offered;
  } CASES[] = {{"go", "goes", 0.05f, 1}, {"go", "goes", 0.2f, 0}, {"recieve", "receive", 0.5f, 1}};
  for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
    el__matches ms = {0};
    el_error err = {0};
    int rc = keep_only(text, CASES[i].word, EL__EDIT_REPLACE, CASES[i].cand);
    el__cand *e = rc ? NULL : ck_cand(C, ck_flag(C, CASES[i].word), EL__EDIT_REPLACE, CASES[i].cand);
    if (e) e->p_edit = CASES[i].p_edit * C->o.threshold;
    if (e) rc = el__check_matches(C, &ms, &err);
    const el__flag *f = ck_flag(C, CASES[i].word);
    int n = -1;
    for (int k = 0; e && !rc && k < ms.n; k++)
      if (ms.m[k].offset == C->words.w[f->word].start) n = ms.m[k].n_repl;
    CHECK(e && n == (CASES[i].offered ? 1 : 0), "%s -> %s verified with P(error) %g x threshold: %s (%d replacements)",
          CASES[i].word, CASES[i].cand, (double)CASES[i].p_edit, CASES[i].offered ? "offered" : "not offered", n);
    el__matches_free(&ms);
  }
}

/* A misspelling none of whose fixes verified gets the dictionaries'
 * suggestions in their order, as a spellchecker offers them; a word the
 * dictionaries accept with nothing verified gets none. */
static void test_speller_fallback(void) {
  const char *text = "She go to recieve it.";
  el__matches ms = {0};
  el_error err = {0};
  int rc = keep_only(text, NULL, 0, NULL); /* nothing verified */
  if (!rc) rc = el__check_matches(C, &ms, &err);
  char sug[5][EL__DICT_WORD_MAX];
  int k = el__dict_suggest(C->dict, EL__DICT_EN, "recieve", sug, 5);
  const el__flag *fr = ck_flag(C, "recieve"), *fg = ck_flag(C, "go");
  int nr = -1, ng = -1, type = -1;
  const char *first = "";
  for (int i = 0; !rc && fr && fg && i < ms.n; i++) {
    if (ms.m[i].offset == C->words.w[fr->word].start) {
      nr = ms.m[i].n_repl, type = ms.m[i].type;
      first = nr > 0 ? ms.m[i].repl[0] : "";
    }
    if (ms.m[i].offset == C->words.w[fg->word].start) ng = ms.m[i].n_repl;
  }
  CHECK(!rc && k > 0 && nr >= 1 && !strcmp(first, sug[0]) && type == EL__ET_SPELL && ng == 0,
        "nothing verified: recieve offers hunspell's first, \"%s\" (got %d, \"%s\"), SPELL; go "
        "offers nothing (%d)", k > 0 ? sug[0] : "", nr, first, ng);
  el__matches_free(&ms);
}

/* A misspelling's verified fixes: the best by hunspell's order without word
 * counts (the random models' verdicts are too even to reorder them), and a
 * common word the dictionaries list later first with counts ("which" for
 * "wich", not "winch"). */
static const char *best_fix(const char *text, const char *word) {
  el_error err = {0};
  C->o.threshold = 1e-6f;
  int rc = el__check_propose(C, text, strlen(text), EL__DICT_EN, &err);
  C->o.threshold = 1.0f; /* every fix verifies */
  if (!rc) rc = el__check_verify(C, &err);
  const el__flag *f = rc ? NULL : ck_flag(C, word);
  int best = -1;
  for (int j = f ? f->cand0 : 0; f && j < f->cand0 + f->n_cand; j++)
    if (C->cands[j].ok && C->cands[j].type == EL__ET_SPELL && (best < 0 || C->cands[j].rank < C->cands[best].rank))
      best = j;
  return best >= 0 ? C->cands[best].text : "";
}

/* A misspelling's fix is verified on 10 words either side of it; another
 * word's candidates on the whole sentence. */
static void test_verify_span(void) {
  const char *text = "The letter is in the school and she goes to the school with the music "
                     "for the children and she will recieve it at the school in the letter of "
                     "the music for the children .";
  el_error err = {0};
  C->o.threshold = 1e-6f;
  int rc = el__check_propose(C, text, strlen(text), EL__DICT_EN, &err);
  const el__flag *f = rc ? NULL : ck_flag(C, "recieve"), *g = rc ? NULL : ck_flag(C, "goes");
  const el__cand *fix = NULL, *other = NULL;
  for (int j = f ? f->cand0 : 0; f && j < f->cand0 + f->n_cand; j++)
    if (C->cands[j].type == EL__ET_SPELL && !fix) fix = &C->cands[j];
  for (int j = g ? g->cand0 : 0; g && j < g->cand0 + g->n_cand; j++)
    if (!other) other = &C->cands[j];
  int w0 = -1, w1 = -1, v0 = -1, v1 = -1;
  if (fix) el__verify_span(C, f, fix, &w0, &w1);
  if (other) el__verify_span(C, g, other, &v0, &v1);
  const el__csent *s = f ? &C->sents[f->sent] : NULL;
  CHECK(fix && s && w0 == f->word - 10 && w1 == f->word + 11 && s->w0 < w0 && s->w1 > w1,
        "recieve's fix: words %d..%d, 10 either side of word %d (sentence %d..%d)", w0, w1,
        f ? f->word : -1, s ? s->w0 : -1, s ? s->w1 : -1);
  CHECK(other && s && v0 == s->w0 && v1 == s->w1, "goes's candidate: the whole sentence (%d..%d)", v0, v1);
}

static void test_word_freq(void) {
  const char *text = "The question of wich type.";
  char sug[5][EL__DICT_WORD_MAX], path[] = "/tmp/el_test_wc_XXXXXX";
  int k = el__dict_suggest(C->dict, EL__DICT_EN, "wich", sug, 5), at = -1;
  for (int i = 0; i < k; i++)
    if (!strcmp(sug[i], "which")) at = i;
  char first[EL__DICT_WORD_MAX];
  snprintf(first, sizeof first, "%s", best_fix(text, "wich"));
  CHECK(k > 0 && !strcmp(first, sug[0]), "no counts: hunspell's first, \"%s\" (got \"%s\")", k ? sug[0] : "", first);
  int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (f) {
    fprintf(f, "the\t3000000\nwhich\t1000000\nquestion\t5000\n");
    for (int i = 0; i < k; i++)
      if (strcmp(sug[i], "which")) fprintf(f, "%s\t1\n", sug[i]);
    fclose(f);
  }
  el_error err = {0};
  int rc = el__word_freq_load(path, &C->freq, &err);
  snprintf(first, sizeof first, "%s", rc ? "" : best_fix(text, "wich"));
  CHECK(!rc && at > 0 && !strcmp(first, "which"),
        "with counts: \"which\" (hunspell's #%d) first (got \"%s\"; %s)", at + 1, first, rc ? err.msg : "");
  el__word_freq_free(C->freq);
  C->freq = NULL;
  unlink(path);
}

/* The generator's own words rank after every verified candidate of the
 * rules, whatever the detector says of them. (The fixture's random
 * generator is too unsure to propose a word: every third insertion plays
 * one.) */
static void test_generator_words_last(void) {
  const char *text = "She go to school yesterday.";
  el_error err = {0};
  C->o.threshold = 1e-6f;
  int rc = el__check_propose(C, text, strlen(text), EL__DICT_EN, &err);
  C->o.threshold = 1.0f;
  for (int j = 0; j < C->n_cands; j++)
    if (C->cands[j].kind == EL__EDIT_INSERT && j % 3 == 0) C->cands[j].by_gen = 1;
  C->o.verify_all = 1; /* every pair verified (best first would stop at the rules' best) */
  if (!rc) rc = el__check_verify(C, &err);
  C->o.verify_all = 0;
  int pairs = 0, wrong = 0;
  for (int i = 0; !rc && i < C->n_flags; i++) {
    const el__flag *f = &C->flags[i];
    for (int a = f->cand0; a < f->cand0 + f->n_cand; a++)
      for (int b = f->cand0; b < f->cand0 + f->n_cand; b++) {
        const el__cand *g = &C->cands[a], *r = &C->cands[b];
        if (!g->ok || !r->ok || !g->by_gen || r->by_gen) continue;
        pairs++, wrong += g->rank <= r->rank;
      }
  }
  CHECK(!rc && pairs > 0 && !wrong, "a generator's word after the rules' verified words (%d of %d pairs not)",
        wrong, pairs);
}

static void test_full(void) {
  const char *text = "She go to school yesterday.\n\nI recieve you letter.";
  el__matches ms = {0};
  el_error err = {0};
  C->o.threshold = 1e-6f;
  int rc = el__check_text(C, text, strlen(text), EL__DICT_EN, &ms, &err);
  int ordered = 1;
  for (int i = 1; i < ms.n; i++) ordered &= ms.m[i].offset >= ms.m[i - 1].offset;
  CHECK(!rc && ms.n == 11 && ordered, "el__check_text: a match per flagged word, in text order (%d)", ms.n);
  CHECK(!rc && ms.n == 11 && ms.m[7].type == EL__ET_SPELL,
        "recieve: SPELL, verified or not (%s)", ms.n == 11 ? el__etype_name(ms.m[7].type) : "");
  CHECK(!rc && ms.n == 11 && ms.m[1].type == EL__ET_OTHER && strstr(ms.m[1].message, "\"go\""),
        "go without one: OTHER, \"%s\"", ms.n == 11 ? ms.m[1].message : "");
  el__matches_free(&ms);
  char big[2048] = "";
  for (int i = 0; i < 40; i++) strcat(big, "She go to school. "); /* 200 words: four rounds */
  rc = el__check_text(C, big, strlen(big), EL__DICT_EN, &ms, &err);
  ordered = 1;
  for (int i = 1; i < ms.n; i++) ordered &= ms.m[i].offset > ms.m[i - 1].offset;
  CHECK(!rc && ms.n == 200 && ordered, "200 flagged words, corrected 64 at a time: 200 matches in order (%d)",
        ms.n);
  el__matches_free(&ms);
  static const struct {
    const char *text;
    int n;
  } SENTS[] = {{"she go. to school", 2}, {"she go\n\nto school", 2}, {"she go\nto school", 1},
               {"\"she go.\" to school", 2},
               /* a '.' of an abbreviation or a file name ends no sentence */
               {"she went, et al. said it", 1}, {"she met Mr. Smith", 1}, {"she go e.g. to school", 1},
               {"she went home etc. She left", 2}, {"she opened config.json in it", 1},
               {"she went, et al., to it", 1}};
  for (size_t i = 0; i < sizeof SENTS / sizeof *SENTS; i++) {
    rc = el__check_propose(C, SENTS[i].text, strlen(SENTS[i].text), EL__DICT_EN, &err);
    CHECK(!rc && C->n_sents == SENTS[i].n, "sentences of text %zu (%s): %d (got %d)", i, SENTS[i].text,
          SENTS[i].n, C->n_sents);
  }
}

/* A sentence longer than the model is cut; the part after the cut does not
 * start a sentence (no capital expected there), the one after a '.' does. */
static void test_long_sentence(void) {
  char text[1024] = "";
  for (int i = 0; i < 30; i++) strcat(text, "she went to school ");
  strcat(text, "in it. She went.");
  el_error err = {0};
  int rc = el__check_propose(C, text, strlen(text), EL__DICT_EN, &err);
  CHECK(!rc && C->n_sents == 4, "122 words and a short sentence: 4 sequences (got %d)", C->n_sents);
  if (rc || C->n_sents != 4) return;
  CHECK(el__sent_start(C, C->sents[0].w0) && C->sents[1].cont && C->sents[2].cont && !el__sent_start(C, C->sents[1].w0) &&
            !el__sent_start(C, C->sents[2].w0) && el__sent_start(C, C->sents[3].w0),
        "the cut parts continue their sentence (cont %d %d); the sentence after '.' starts one",
        C->sents[1].cont, C->sents[2].cont);
}

/* Code, the web and acronyms are read but never flagged, whatever their
 * P(error): at threshold 0 every other word is. */
static void test_never_flagged(void) {
  float keep = C->o.threshold;
  C->o.threshold = 0.0f;
  const char *text = "She read docs/GED.md and config.json at https://example.org/a with FCE and x86_64.";
  el_error err = {0};
  int rc = el__check_propose(C, text, strlen(text), EL__DICT_EN, &err);
  int technical = 0, flagged_technical = 0;
  for (int i = 0; !rc && i < C->words.n; i++) technical += C->words.w[i].technical || C->words.w[i].acronym;
  for (int i = 0; !rc && i < C->n_flags; i++) {
    const el__word *w = &C->words.w[C->flags[i].word];
    flagged_technical += w->technical || w->acronym;
  }
  CHECK(!rc && technical == 5 && flagged_technical == 0 && C->n_flags == C->words.n - 5,
        "5 technical words or acronyms, none flagged, every other word flagged (%d, %d, %d flags of %d)",
        technical, flagged_technical, C->n_flags, C->words.n);
  C->o.threshold = keep;
}

/* A text written in capitals is read for the dictionary in small letters:
 * "REALY" is misspelt, "HAPPY" is not; "BBC" in a sentence that is not
 * written in capitals is an acronym, never flagged, and so are the
 * acronyms of a row of them (no words in small letters: no shouting). */
static void test_shouted_misspelling(void) {
  float keep = C->o.threshold;
  C->o.threshold = 1.0f; /* the dictionary's flags alone */
  const char *text = "WE ARE REALY HAPPY TODAY. The BBC said so.";
  el_error err = {0};
  int rc = el__check_propose(C, text, strlen(text), EL__DICT_EN, &err);
  const el__flag *f = rc ? NULL : ck_flag(C, "REALY");
  CHECK(!rc && f && f->rejected && C->n_flags == 1,
        "shouted: REALY alone is a misspelling (%d flags)", rc ? -1 : C->n_flags);
  const char *row = "AMD EPYC with AVX2 or VNNI.";
  rc = el__check_propose(C, row, strlen(row), EL__DICT_EN, &err);
  CHECK(!rc && C->n_flags == 0, "a row of acronyms is not shouting: nothing flagged (%d flags)",
        rc ? -1 : C->n_flags);
  C->o.threshold = keep;
}

/* The writer's own words are never flagged: a word in small letters in any
 * case and with a possessive, one with capitals only as written. */
static void test_accepted_words(void) {
  float keep = C->o.threshold;
  C->o.threshold = 0.0f;
  const char *list = "# mine\n  go \nSchool\n\n";
  const char *text = "She go to school , Go and go's School .";
  el_error err = {0};
  int rc = el__checker_accept_words(C, list, strlen(list), &err);
  if (!rc) rc = el__check_propose(C, text, strlen(text), EL__DICT_EN, &err);
  char flagged[128] = "";
  for (int i = 0; !rc && i < C->n_flags; i++) {
    const el__word *w = &C->words.w[C->flags[i].word];
    strncat(flagged, text + w->start, w->end - w->start);
    strcat(flagged, "|");
  }
  CHECK(!rc && !strcmp(flagged, "She|to|school|,|and|.|"), "go, Go, go's and School accepted, school not (flagged %s)",
        flagged);
  rc = el__checker_accept_words(C, "two words\n", 10, &err);
  CHECK(rc == EL_EINVAL && strstr(err.msg, "\"two words\" is not one word"), "a line of two words: %s", err.msg);
  el__strmap_free(&C->accept);
  C->o.threshold = keep;
}

/* Verdicts of every candidate of text at threshold 0.5 through checker k
 * (all verified) into p[] (n of them), flags' P(error) into fp[]. */
static int verdicts(el__checker *k, const char *text, float *p, int *n, float *fp, int *nf) {
  el_error err = {0};
  k->o.threshold = 1e-6f;
  k->o.suggest_threshold = 1e-6f;
  int rc = el__check_propose(k, text, strlen(text), EL__DICT_EN, &err);
  k->o.threshold = 0.5f;
  k->o.verify_all = 1;
  if (!rc) rc = el__check_verify(k, &err);
  k->o.verify_all = 0;
  *n = *nf = 0;
  for (int j = 0; !rc && j < k->n_cands && *n < 256; j++)
    if (!k->cands[j].skip && !k->cands[j].by_rule) p[(*n)++] = k->cands[j].p_edit;
  for (int i = 0; !rc && i < k->n_flags && *nf < 64; i++) fp[(*nf)++] = k->flags[i].prob;
  return rc;
}

/* The verification pass runs on o.verifier and detection on the detector:
 * with another random detector of the same shape as verifier the flags stay
 * and the verdicts change; an int8 copy of the detector gives verdicts
 * within int8's error of the detector's own; a verifier of another shape
 * is refused. */
static void test_verifier(ck_env *e) {
  const char *text = "She go to school yesterday and he have two brother.";
  char dir[300], vocab[300];
  snprintf(dir, sizeof dir, "%s/det2", e->tmp);
  snprintf(vocab, sizeof vocab, "%s/vocab.txt", e->tmp);
  el_model *other = NULL, *q8 = NULL;
  el_error err = {0};
  int n_vocab = el_tokenizer_vocab_size(el_model_tokenizer(e->det));
  if (ck_save(dir, EL_ARCH_PRETRAINING, n_vocab, vocab) || el_model_load(dir, &other, &err)) {
    CHECK(0, "a second random detector: %s", err.msg);
    return;
  }
  el__checker_opts o = e->rules->o;
  o.verifier = other;
  el__checker *k = NULL;
  int rc = el__checker_new(&o, &k, &err);
  CHECK(rc == 0, "a checker with a verifier: %s", rc ? err.msg : "ok");
  static float p0[256], p1[256], f0[64], f1[64];
  int n0 = 0, n1 = 0, nf0 = 0, nf1 = 0;
  if (!rc) rc = verdicts(e->rules, text, p0, &n0, f0, &nf0) || verdicts(k, text, p1, &n1, f1, &nf1);
  int same_flags = nf0 == nf1 && nf0 > 0 && !memcmp(f0, f1, (size_t)nf0 * sizeof *f0), differ = 0;
  for (int j = 0; j < n0 && j < n1; j++) differ += p0[j] != p1[j];
  CHECK(!rc && same_flags && n0 == n1 && n0 > 0 && differ > 0,
        "detection on the detector (%d flags, the same: %d), verification on the verifier "
        "(%d of %d verdicts differ)", nf1, same_flags, differ, n1);
  el__checker_free(k);
  k = NULL;
  if (el_dtype_available(EL_DTYPE_INT8)) {
    snprintf(dir, sizeof dir, "%s/det", e->tmp);
    el_load_options lo = {.dtype = EL_DTYPE_INT8};
    rc = el_model_load_opts(dir, &lo, &q8, &err);
    o.verifier = q8;
    if (!rc) rc = el__checker_new(&o, &k, &err);
    if (!rc) rc = verdicts(k, text, p1, &n1, f1, &nf1);
    float worst = 0;
    for (int j = 0; j < n0 && j < n1; j++) worst = fabsf(p0[j] - p1[j]) > worst ? fabsf(p0[j] - p1[j]) : worst;
    /* worst > 0: the int8 arithmetic ran */
    CHECK(!rc && n1 == n0 && worst < 0.02f && worst > 0,
          "an int8 verifier: %d verdicts within 0.02 of fp32's, not equal (%g)%s%s", n1, (double)worst,
          rc ? ": " : "", rc ? err.msg : "");
    el__checker_free(k);
    k = NULL;
  }
  o.verifier = e->gen;
  rc = el__checker_new(&o, &k, &err);
  CHECK(rc == EL_ESHAPE && strstr(err.msg, "verifier"), "a generator as verifier is refused (%s)", err.msg);
  el__checker_free(k);
  el_model_free(q8);
  el_model_free(other);
}

int main(void) {
  ck_env env;
  if (ck_open(&env, "/tmp/el_test_check_match_XXXXXX")) {
    C = env.rules;
    float want = C->o.threshold > 0.7f ? C->o.threshold : 0.7f;
    CHECK(C->o.suggest_threshold == want, "suggest_threshold not given: max(threshold %g, 0.7) (%g)",
          (double)C->o.threshold, (double)C->o.suggest_threshold);
    /* every flagged word gets its replacements here (the default, 0.7, is
     * about a trained detector's confidence; test_suggest_threshold tests it) */
    C->o.suggest_threshold = 1e-6f;
    const char *s = "She go to school yesterday.";
    test_thresholds();
    test_verifier(&env);
    C->o.suggest_threshold = 1e-6f;
    test_best_first();
    test_least_rank();
    expect(s, "go", EL__EDIT_REPLACE, "goes", "She goes to school yesterday.", EL__ET_VERB_SVA,
           "Possible agreement error: did you mean \"goes\"?");
    expect(s, "go", EL__EDIT_REPLACE, "went", "She went to school yesterday.", EL__ET_VERB_TENSE, "\"went\"");
    expect(s, "school", EL__EDIT_INSERT, "the", "She go to the school yesterday.", EL__ET_MISSING,
           "A word may be missing before \"school\": \"the\"?");
    expect(s, "yesterday", EL__EDIT_INSERT, ",", "She go to school, yesterday.", EL__ET_PUNCT, "comma");
    expect(s, "to", EL__EDIT_DELETE, "", "She go school yesterday.", EL__ET_UNNECESSARY, "unnecessary");
    expect("School is fun.", "School", EL__EDIT_INSERT, "the", "The school is fun.", EL__ET_MISSING, "\"the\"");
    expect("The music is good.", "The", EL__EDIT_DELETE, "", "Music is good.", EL__ET_UNNECESSARY, "unnecessary");
    expect("i recieve it.", "recieve", EL__EDIT_REPLACE, "receive", "i receive it.", EL__ET_SPELL,
           "Possible spelling mistake: did you mean \"receive\"?");
    expect("It rained, it was cold.", ",", EL__EDIT_REPLACE, ".", "It rained. It was cold.", EL__ET_PUNCT,
           "\".\"");
    expect("It rained, I was cold.", ",", EL__EDIT_REPLACE, ".", "It rained. I was cold.", EL__ET_PUNCT, "\".\"");
    expect("It rained, it was cold.", ",", EL__EDIT_REPLACE, ";", "It rained; it was cold.", EL__ET_PUNCT,
           "\";\"");
    test_suggest_threshold();
    test_picky();
    test_sure_edit();
    test_speller_fallback();
    test_word_freq();
    test_verify_span();
    test_generator_words_last();
    test_full();
    test_long_sentence();
    test_never_flagged();
    test_shouted_misspelling();
    test_accepted_words();
  }
  ck_close(&env);
  return el_test_done();
}
