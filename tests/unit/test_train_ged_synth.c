/* Synthetic GED data (train/data/data_sentences.c, train/finetune/ged_synth.c) and the
 * learner mix override: sentences from paragraphs and from unpunctuated
 * lines, words split like the engine's BasicTokenizer with case kept, the
 * reservoir sample's size and determinism, the dev split, the per-word error
 * cap (no word becomes an error cue), and el__learner_set_share. Needs
 * Debian's wordnet-base for the learner parts (SKIP without it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../test.h"
#include "test_files.h"
#include "data_sentences.h"
#include "ged_synth.h"
#include "learner.h"

static char dir[64];

#define put(name, text) el_test_put(dir, name, text)

static int same_sentence(const el__ged_sentence *a, const el__ged_sentence *b) {
  if (a->n != b->n) return 0;
  for (int j = 0; j < a->n; j++)
    if (strcmp(a->words[j], b->words[j]) || a->err[j] != b->err[j]) return 0;
  return 1;
}

static int same_data(const el__ged_data *a, const el__ged_data *b) {
  if (a->n != b->n) return 0;
  for (int i = 0; i < a->n; i++)
    if (!same_sentence(&a->s[i], &b->s[i])) return 0;
  return 1;
}

static void test_sentences(void) {
  /* a hard-wrapped paragraph of two sentences, a blank line, a glossary of
   * unpunctuated lines (more than 60 words together), a 2-word line */
  char gloss[4096] = "";
  for (int i = 0; i < 30; i++) strcat(gloss, "a small domesticated carnivore of the cat family\n");
  char text[8192];
  snprintf(text, sizeof text,
           "The quick brown fox jumped over\nthe lazy dog. Then it ran home,\nquite tired!\n\n%s\n"
           "Too short\n",
           gloss);
  const char *p = put("c.txt", text);
  el__ged_data d;
  el_error err = {0};
  const char *paths[] = {p};
  CHECK(el__sentences_read(paths, 1, 1000, 1, 0, &d, NULL, &err) == 0, "sentences: read (%s)", err.msg);
  CHECK(d.n == 32, "sentences: 2 from the paragraph + 30 glossary lines, the 2-word line dropped (%d)", d.n);
  int found = 0;
  for (int i = 0; i < d.n; i++) {
    const el__ged_sentence *s = &d.s[i];
    if (s->n == 8 && !strcmp(s->words[0], "Then") && !strcmp(s->words[4], ",") &&
        !strcmp(s->words[7], "!"))
      found = 1;
    for (int j = 0; j < s->n; j++)
      if (s->err[j]) found = -100;
  }
  CHECK(found == 1, "sentences: joined across lines, punctuation split off, case kept, all labels 0");
  el__ged_free(&d);
  CHECK(el__sentences_read(paths, 1, 5, 1, 0, &d, NULL, &err) == 0 && d.n == 5, "sentences: a sample of at most N");
  el__ged_data d2;
  CHECK(el__sentences_read(paths, 1, 5, 1, 0, &d2, NULL, &err) == 0 && same_data(&d, &d2),
        "sentences: the same sample for the same seed");
  el__ged_free(&d);
  el__ged_free(&d2);
  const char *none[] = {put("empty.txt", "\n\nab\n")};
  CHECK(el__sentences_read(none, 1, 10, 1, 0, &d, NULL, &err) == EL_EFORMAT && strstr(err.msg, "empty.txt"),
        "sentences: no usable sentence is an error naming the file (%s)", err.msg);
}

/* A corpus where commas are rare: 400 sentences, one in ten with a comma,
 * each told apart by its day (a repeated sentence never goes to dev). */
static const char *comma_corpus(void) {
  static char text[65536];
  size_t at = 0;
  for (int i = 0; i < 400; i++)
    at += (size_t)snprintf(text + at, sizeof text - at,
                           i % 10 ? "She walks to the old school on day %d .\n\n"
                                  : "She walks to school , and he reads the book on day %d .\n\n",
                           i);
  return put("s.txt", text);
}

static void test_synthesize(void) {
  char *paths[] = {(char *)comma_corpus()};
  el__synth_opts o = {paths, 1, 300, 50, 0.3, 7, NULL, 1, NULL, 0, NULL, 0, 0, 0, 0};
  el__ged_data tr, dv, tr2, dv2;
  el_error err = {0};
  int rc = el__ged_synthesize(&o, &tr, &dv, &err);
  CHECK(rc == 0, "synthesize: ok (%s)", err.msg);
  if (rc) return;
  CHECK(tr.n + dv.n == 350 && dv.n == 50, "synthesize: 300 + 50 held-out sentences (%d + %d)", tr.n, dv.n);
  CHECK(tr.n_errors > 0 && tr.n_errors < tr.n_words, "synthesize: some errors (%ld of %ld words)",
        tr.n_errors, tr.n_words);
  CHECK(el__ged_synthesize(&o, &tr2, &dv2, &err) == 0 && same_data(&tr, &tr2) && same_data(&dv, &dv2),
        "synthesize: deterministic for a seed");
  /* lower-cased: no R:ORTH, so the generated types stand for 60.1 % of
   * learners' errors and dev carries the other 39.9 % as unseen */
  CHECK_NEAR(dv.unseen_errors, (double)dv.n_errors * (1 / 0.601 - 1), 1e-6, 0,
             "synthesize: dev's unseen errors from the coverage (%g for %ld)", dv.unseen_errors, dv.n_errors);
  CHECK(tr.unseen_errors == 0, "synthesize: training data has no unseen errors");
  o.coverage = 1;
  el__ged_data tr3, dv3;
  CHECK(el__ged_synthesize(&o, &tr3, &dv3, &err) == 0 && dv3.unseen_errors == 0,
        "synthesize: coverage 1 -> calibrate on the generated errors alone");
  el__ged_free(&tr3);
  el__ged_free(&dv3);
  /* the cap: error commas at most EL__SYNTH_MAX_WORD_SHARE of the sample's
   * natural commas plus the errors (natural ones are in 1 of 10 sentences) */
  el__ged_data clean;
  long natural = 0, commas = 0, bad = 0;
  CHECK(el__sentences_read((const char *const *)paths, 1, 350, 7, 0, &clean, NULL, &err) == 0, "clean sample");
  for (int i = 0; i < clean.n; i++)
    for (int j = 0; j < clean.s[i].n; j++) natural += !strcmp(clean.s[i].words[j], ",");
  el__ged_free(&clean);
  const el__ged_data *all[] = {&tr, &dv};
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < all[k]->n; i++)
      for (int j = 0; j < all[k]->s[i].n; j++)
        if (!strcmp(all[k]->s[i].words[j], ",")) {
          commas++;
          bad += all[k]->s[i].err[j];
        }
  CHECK(commas > 0 && bad > 0 && bad <= EL__SYNTH_MAX_WORD_SHARE * (natural + bad) + 1,
        "synthesize: error commas capped by the natural ones (%ld errors of %ld commas, %ld natural)",
        bad, commas, natural);
  /* a larger cap lets more of them be errors */
  el__synth_opts o4 = o;
  o4.max_word_share = 0.3;
  el__ged_data tr4, dv4;
  long bad4 = 0;
  CHECK(el__ged_synthesize(&o4, &tr4, &dv4, &err) == 0, "synthesize with max_word_share 0.3");
  for (int i = 0; i < tr4.n; i++)
    for (int j = 0; j < tr4.s[i].n; j++) bad4 += !strcmp(tr4.s[i].words[j], ",") && tr4.s[i].err[j];
  CHECK(bad4 > bad, "max_word_share 0.3: more error commas than the default (%ld > %ld)", bad4, bad);
  el__ged_free(&tr4);
  el__ged_free(&dv4);
  el__ged_free(&tr);
  el__ged_free(&dv);
  el__ged_free(&tr2);
  el__ged_free(&dv2);
}

/* Asking for more sentences than the corpus has: the corpus is used several
 * times over, copies get other errors, dev sentences are never trained on. */
static void test_passes(void) {
  const char *text = "The teacher reads a long letter to the children every day .\n\n"
                     "My brother goes to the market on Saturday morning .\n\n"
                     "They have lived in this small town for ten years .\n\n"
                     "She wants to buy a new car for her family .\n\n"
                     "We went to the cinema and watched a funny film .\n\n"
                     "He is writing an email to his friend in London .\n\n";
  char *paths[] = {(char *)put("six.txt", text)};
  el__synth_opts o = {paths, 1, 40, 1, 0.3, 3, NULL, 1, NULL, 0, NULL, 0, 0, 0, 0};
  el__ged_data tr, dv;
  el_error err = {0};
  int rc = el__ged_synthesize(&o, &tr, &dv, &err);
  CHECK(rc == 0, "passes: ok (%s)", err.msg);
  if (rc) return;
  CHECK(dv.n == 1 && tr.n >= 35, "passes: 6 clean sentences give %d training + %d dev sentences", tr.n, dv.n);
  int leaked = 0, differ = 0;
  for (int i = 0; i < tr.n; i++) {
    leaked += tr.s[i].line == dv.s[0].line;
    for (int j = i + 1; j < tr.n && !differ; j++)
      if (tr.s[i].line == tr.s[j].line && !same_sentence(&tr.s[i], &tr.s[j])) differ = 1;
  }
  CHECK(leaked == 0, "passes: the dev sentence (line %d) never appears in training", dv.s[0].line);
  CHECK(differ, "passes: two copies of one clean sentence carry different errors");
  el__ged_free(&tr);
  el__ged_free(&dv);
}

/* A sentence the text lists twice never goes to dev: its twin is trained on. */
static void test_repeated_not_dev(void) {
  const char *twice[] = {"The teacher reads a long letter to the children every day .",
                         "My brother goes to the market on Saturday morning .",
                         "They have lived in this small town for ten years .",
                         "She wants to buy a new car for her family .",
                         "We went to the cinema and watched a funny film ."};
  const char *once[] = {"He is writing an email to his friend in London .",
                        "Our neighbours built a wooden fence around their garden .",
                        "I usually drink a cup of tea before breakfast ."};
  char text[2048] = "";
  for (int i = 0; i < 5; i++)
    for (int c = 0; c < 2; c++) snprintf(text + strlen(text), sizeof text - strlen(text), "%s\n\n", twice[i]);
  for (int i = 0; i < 3; i++) snprintf(text + strlen(text), sizeof text - strlen(text), "%s\n\n", once[i]);
  char *paths[] = {(char *)put("twice.txt", text)};
  el__synth_opts o = {paths, 1, 40, 3, 0.3, 3, NULL, 1, NULL, 0, NULL, 0, 0, 0, 0};
  el__ged_data tr, dv;
  el_error err = {0};
  int rc = el__ged_synthesize(&o, &tr, &dv, &err);
  CHECK(rc == 0, "repeated: ok (%s)", err.msg);
  if (rc) return;
  int twin = 0; /* sentences 1-10 are the repeated ones, 11-13 the others */
  for (int i = 0; i < dv.n; i++) twin += dv.s[i].line <= 10;
  CHECK(dv.n >= 1 && twin == 0, "repeated: dev holds only sentences the text has once (%d dev, %d twins)",
        dv.n, twin);
  el__ged_free(&tr);
  el__ged_free(&dv);
}

static void test_share(void) {
  el__learner *l = NULL;
  el_error err = {0};
  if (el__learner_load(NULL, &l, &err)) {
    SKIP("no WordNet (%s): install Debian's wordnet-base", err.msg);
    return;
  }
  for (int f = 0; f < EL__LF_COUNT; f++) el__learner_set_share(l, f, f == EL__LF_SPELL ? 1 : 0);
  const char *w[] = {"The", "teacher", "reads", "a", "long", "letter", "to", "the", "children", "."};
  el__learner_out o = {0};
  uint64_t rng = 5;
  int only = 1, edits = 0;
  for (int i = 0; i < 200 && only; i++) {
    if (el__learner_corrupt(l, w, 10, 0.3, &rng, &o, &err)) break;
    edits += o.n_edits;
    for (int f = 0; f < EL__LF_COUNT; f++)
      if (f != EL__LF_SPELL && o.family_edits[f]) only = 0;
  }
  CHECK(only && edits > 100, "set_share: with only R:SPELL left every error is a spelling error (%d)", edits);
  el__learner_sentence_free(&o);
  el__learner_free(l);
}

/* Counts sentences starting "<first> like" in d (any case of first). */
static int starting(const el__ged_data *d, const char *first, const char *verb) {
  int k = 0;
  for (int i = 0; i < d->n; i++)
    k += d->s[i].n > 1 && !strcasecmp(d->s[i].words[0], first) && !strcmp(d->s[i].words[1], verb);
  return k;
}

/* A file of n paragraphs "I like the green house number i ." */
static const char *house_file(int n, const char *name) {
  static char text[20000];
  size_t at = 0;
  for (int i = 0; i < n; i++)
    at += (size_t)snprintf(text + at, sizeof text - at, "I like the green house number %d .\n\n", i);
  return put(name, text);
}

/* third_person: that share of the copies of "I like ..." become "He/She/It
 * likes ...", unlabelled; 0 leaves every copy as it is. */
static void test_third_person(void) {
  char *paths[] = {(char *)house_file(40, "tp.txt")};
  el__synth_opts o = {paths, 1, 400, 0, 0.0, 5, NULL, 1, NULL, 0, NULL, 0, 0, 0, 0};
  el__ged_data tr, dv;
  el_error err = {0};
  CHECK(el__ged_synthesize(&o, &tr, &dv, &err) == 0, "third person 0: ok (%s)", err.msg);
  CHECK(starting(&tr, "I", "like") == tr.n, "third person 0: every copy keeps \"I like\" (%d of %d)",
        starting(&tr, "I", "like"), tr.n);
  el__ged_free(&tr);
  el__ged_free(&dv);
  o.third_person = 0.5;
  CHECK(el__ged_synthesize(&o, &tr, &dv, &err) == 0, "third person 0.5: ok (%s)", err.msg);
  int third = starting(&tr, "he", "likes") + starting(&tr, "she", "likes") + starting(&tr, "it", "likes");
  int she_errors = 0;
  for (int i = 0; i < tr.n; i++)
    if (tr.s[i].n > 1 && !strcmp(tr.s[i].words[1], "likes")) she_errors += tr.s[i].err[0] + tr.s[i].err[1];
  CHECK(third > 150 && third < 250 && third + starting(&tr, "I", "like") == tr.n,
        "third person 0.5: about half the copies \"He/She/It likes\" (%d of %d), the rest as they were",
        third, tr.n);
  CHECK(starting(&tr, "she", "likes") > 40 && starting(&tr, "it", "likes") > 0,
        "third person: she and it both drawn (%d, %d)", starting(&tr, "she", "likes"),
        starting(&tr, "it", "likes"));
  CHECK(she_errors == 0, "third person: the rewritten words are not labelled (%d)", she_errors);
  el__ged_free(&tr);
  el__ged_free(&dv);
}

/* agreement_pairs: that share of the copies with a verb after a subject
 * pronoun becomes two sentences, the one agreement error ("She go") then the
 * same copy correct; copies without such a verb and dev are untouched. */
static void test_agreement_pairs(void) {
  char text[16384];
  size_t at = 0;
  for (int i = 0; i < 40; i++)
    at += (size_t)snprintf(text + at, sizeof text - at,
                           "The house number %d is green .\n\nShe goes to the green house number %d .\n\n",
                           i, i);
  char *paths[] = {(char *)put("pairs.txt", text)};
  el__synth_opts o = {paths, 1, 400, 0, 0.0, 5, NULL, 1, NULL, 0, NULL, 0, 0, 0.5, 0};
  el__ged_data tr, dv;
  el_error err = {0};
  CHECK(el__ged_synthesize(&o, &tr, &dv, &err) == 0, "agreement pairs: ok (%s)", err.msg);
  int pairs = 0, bad = 0, she = 0;
  for (int i = 0; i < tr.n; i++) {
    const el__ged_sentence *e = &tr.s[i];
    she += e->n > 1 && !strcmp(e->words[0], "She");
    int labelled = 0;
    for (int j = 0; j < e->n; j++) labelled += e->err[j];
    if (!labelled) continue;
    const el__ged_sentence *c = i + 1 < tr.n ? &tr.s[i + 1] : NULL;
    int twin = c && c->n == e->n && e->err[1] && !strcmp(e->words[1], "go") &&
               !strcmp(c->words[1], "goes") && labelled == 1;
    for (int j = 0; twin && j < c->n; j++) twin = !c->err[j] && (j == 1 || !strcmp(c->words[j], e->words[j]));
    pairs += twin;
    bad += !twin;
    i += twin; /* the twin is checked */
  }
  CHECK(bad == 0 && pairs > 50 && pairs < 150,
        "agreement pairs: each \"She go\" followed by its \"She goes\" twin, about half the %d "
        "copies that have one (%d pairs, %d other labelled sentences)", she - pairs, pairs, bad);
  CHECK(tr.n == 400 + pairs, "agreement pairs: a pair adds one sentence (%d = 400 + %d)", tr.n, pairs);
  el__ged_free(&tr);
  el__ged_free(&dv);
  o.dev_sentences = 40; /* every second sentence of the text: all the "She goes" ones */
  CHECK(el__ged_synthesize(&o, &tr, &dv, &err) == 0, "agreement pairs with dev: ok (%s)", err.msg);
  CHECK(dv.n == 40 && dv.n_errors == 0 && !strcmp(dv.s[0].words[0], "She"),
        "agreement pairs: dev's \"She goes\" sentences get none (%ld errors in %d sentences)",
        (long)dv.n_errors, dv.n);
  el__ged_free(&tr);
  el__ged_free(&dv);
}

/* With joined units (el__synth_opts.joined) dev still gets its size, and
 * none of it is a joined unit or a sentence of one. */
static void test_joined_dev(void) {
  char *paths[] = {(char *)house_file(200, "jd.txt")};
  el__synth_opts o = {paths, 1, 400, 20, 0.3, 5, NULL, 1, NULL, 0, NULL, 0, 0, 0, 0.3};
  el__ged_data tr, dv;
  el_error err = {0};
  CHECK(el__ged_synthesize(&o, &tr, &dv, &err) == 0, "joined dev: ok (%s)", err.msg);
  int inner = 0;
  for (int i = 0; i < dv.n; i++) {
    int stops = 0;
    for (int j = 0; j < dv.s[i].n; j++) stops += !strcmp(dv.s[i].words[j], ".");
    inner += stops > 1;
  }
  CHECK(dv.n == 20 && inner == 0, "joined dev: 20 sentences, none a joined unit (%d, %d)", dv.n, inner);
  /* and no training unit of two holds a dev sentence (its number) */
  unsigned char in_dev[200] = {0};
  for (int i = 0; i < dv.n; i++)
    for (int j = 1; j < dv.s[i].n; j++)
      if (!strcmp(dv.s[i].words[j - 1], "number")) in_dev[atoi(dv.s[i].words[j]) % 200] = 1;
  int leaked = 0, joined = 0;
  for (int i = 0; i < tr.n; i++) {
    int stops = 0;
    for (int j = 0; j < tr.s[i].n; j++) stops += !strcmp(tr.s[i].words[j], ".");
    if (stops < 2) continue;
    joined++;
    for (int j = 1; j < tr.s[i].n; j++)
      if (!strcmp(tr.s[i].words[j - 1], "number")) leaked += in_dev[atoi(tr.s[i].words[j]) % 200];
  }
  CHECK(joined > 0 && leaked == 0, "joined dev: %d training units of two, none holds a dev sentence (%d)",
        joined, leaked);
  el__ged_free(&tr);
  el__ged_free(&dv);
}

/* Units of two sentences (join_share): every sentence also kept alone, a
 * joined unit holds a sentence and the one before it in the same file with
 * its full stop inside, never a sentence of another file, never more than
 * 45 words; at share 0 there are none. */
static int has_inner_stop(const el__ged_sentence *s) {
  for (int j = 0; j + 1 < s->n; j++)
    if (!strcmp(s->words[j], ".")) return 1;
  return 0;
}

static void test_joined(void) {
  char long_one[1024] = "This";
  for (int i = 0; i < 40; i++) strcat(long_one, " very");
  strcat(long_one, " long sentence ends here.");
  char text[2048];
  snprintf(text, sizeof text,
           "I am free in July. I will come to the concert.\n\nMy friend likes music. %s Then we "
           "go home.\n",
           long_one);
  const char *paths[] = {put("two.txt", text), put("other.txt", "Another file starts here.\n")};
  el__ged_data one, all;
  unsigned char *shared = NULL;
  el_error err = {0};
  CHECK(el__sentences_read(paths, 2, 1000, 3, 0, &one, NULL, &err) == 0 && one.n == 6,
        "joined: 6 sentences alone at share 0 (%d)", one.n);
  int inner = 0;
  for (int i = 0; i < one.n; i++) inner += has_inner_stop(&one.s[i]);
  CHECK(inner == 0, "joined: none at share 0");
  CHECK(el__sentences_read(paths, 2, 1000, 3, 1, &all, &shared, &err) == 0, "joined: read (%s)", err.msg);
  int alone = 0, joined = 0, bad = 0, across = 0, pair = 0;
  for (int i = 0; i < all.n; i++) {
    const el__ged_sentence *s = &all.s[i];
    if (!has_inner_stop(s)) {
      for (int k = 0; k < one.n; k++) alone += same_sentence(s, &one.s[k]);
      continue;
    }
    joined++;
    bad += s->n > 45;
    for (int j = 0; j < s->n; j++) across += !strcmp(s->words[j], "Another");
    pair += s->n == 13 && !strcmp(s->words[0], "I") && !strcmp(s->words[5], ".") &&
            !strcmp(s->words[6], "I") && !strcmp(s->words[12], ".");
  }
  /* pairs: July+concert, concert+friend (across the paragraph), then the long
   * sentence's neighbours are too long to join; "Then we go home." follows it */
  CHECK(alone == 6, "joined: every sentence also kept alone (%d)", alone);
  CHECK(joined == 2 && pair == 1, "joined: the two pairs that fit, one unit each (%d, %d)", joined,
        pair);
  CHECK(!bad && !across, "joined: at most 45 words, never across files");
  int n_shared = 0, shared_ok = 1;
  for (int i = 0; i < all.n; i++) {
    n_shared += shared[i];
    /* the long sentence, "Then we go home." and the other file's stand alone */
    if (all.s[i].n > 40 || !strcmp(all.s[i].words[0], "Then") || !strcmp(all.s[i].words[0], "Another"))
      shared_ok &= !shared[i];
  }
  CHECK(n_shared == 5 && shared_ok,
        "joined: the two pairs and the three sentences in them marked shared, no other (%d)",
        n_shared);
  free(shared);
  el__ged_free(&one);
  el__ged_free(&all);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/el_synth_XXXXXX");
  if (!mkdtemp(dir)) return 1;
  test_sentences();
  test_joined();
  if (access("/usr/share/wordnet/verb.exc", R_OK) == 0 &&
      access("/usr/share/dict/british-english", R_OK) == 0 &&
      access("/usr/share/dict/american-english", R_OK) == 0) {
    test_synthesize();
    test_passes();
    test_repeated_not_dev();
    test_third_person();
    test_agreement_pairs();
    test_joined_dev();
  } else {
    SKIP("no /usr/share/wordnet or /usr/share/dict word lists (Debian wordnet-base, wamerican, "
         "wbritish): synthetic data needs them");
  }
  test_share();
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) return 1;
  return el_test_done();
}
