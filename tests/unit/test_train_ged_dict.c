/* The dictionary beside a GED model on labelled data (train/finetune/ged_dict.h):
 * hunspell alone scored on exactly the words it rejects, q calibrated as its
 * precision, the combination's threshold given or chosen, and a weight given
 * on the command line used as is. Needs hunspell-en-gb + hunspell-en-us (SKIP
 * without them). */
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "ged_dict.h"

/* Two sentences: "Becouse" (an error) and "Ngozi" (a name, first word: the
 * dictionary's false alarm) rejected; "go" an error only the model sees. */
static char *S1[] = {"Becouse", "she", "go", "there", "."};
static unsigned char E1[] = {1, 0, 1, 0, 0};
static char *S2[] = {"Ngozi", "liked", "the", "colour", "and", "the", "color", "."};
static unsigned char E2[] = {0, 0, 0, 0, 0, 0, 0, 0};

static void test_score(el__dict *d) {
  el__ged_sentence s[2] = {{5, S1, E1, 1}, {8, S2, E2, 7}};
  el__ged_data g = {.s = s, .n = 2};
  long first[3] = {0, 5, 13};
  /* the model: "go" 0.6, "Ngozi" 0.05, the rest 0.1 */
  float prob[13];
  int gold[13];
  for (int k = 0; k < 13; k++) prob[k] = 0.1f, gold[k] = 0;
  prob[2] = 0.6f;
  prob[5] = 0.05f;
  gold[0] = gold[2] = 1;
  el__ged_dict_result r;
  float comb[13];
  el_error err = {0};
  int rc = el__ged_dict_score(&(el__ged_readers){d, NULL, NULL}, &g, first, prob, gold, -1, -1, 0, 0.5, comb, &r, &err);
  CHECK(rc == 0, "scores: %s", rc ? err.msg : "ok");
  CHECK(r.alone.tp == 1 && r.alone.fp == 1 && r.alone.fn == 1,
        "hunspell alone: Becouse found, Ngozi (sentence start) a false alarm, go missed");
  CHECK(!r.ngram && r.spell.tp == r.alone.tp && r.spell.fp == r.alone.fp && r.spell.fn == r.alone.fn,
        "without the n-gram model, hunspell's own scores are the dictionary's");
  CHECK_NEAR(r.weight, 0.5, 1e-9, 0, "q calibrated: its precision here, 1 of 2");
  CHECK_NEAR(r.name_weight, 1.0, 1e-9, 0, "no name mid-sentence here: e 1, no evidence");
  CHECK_NEAR(comb[0], 1 - 0.9 * 0.5, 1e-6, 0, "Becouse: 1 - (1 - 0.1)(1 - 0.5)");
  CHECK_NEAR(comb[8], 0.1, 1e-7, 0, "colour (British) keeps the model's prob");
  CHECK_NEAR(comb[11], 0.1, 1e-7, 0, "color (American) keeps the model's prob");
  CHECK(r.with.tp == 2 && r.with.fp == 1 && r.threshold == 0.5,
        "at the given 0.5: Becouse and go found, Ngozi (0.525) the one false alarm");
  rc = el__ged_dict_score(&(el__ged_readers){d, NULL, NULL}, &g, first, prob, gold, 0.2, 1.0, 1, 0, NULL, &r, &err);
  CHECK(rc == 0 && r.weight == 0.2 && r.with.f05 == 1.0 && r.threshold > 0.24 && r.threshold < 0.28,
        "a given weight is used as is; the chosen threshold (%.4f) lies between Ngozi (0.24) "
        "and Becouse (0.28): exactly the errors flagged", r.threshold);
  /* a model whose flags add nothing to the dictionary's: the two rejected
   * words alike (0.05), its surest words false alarms ("there" 0.5, "liked"
   * 0.4). The best threshold found keeps them out, but the combination does
   * not beat the dictionary alone, so the threshold becomes just under q:
   * the dictionary's words and only words the model is as sure of */
  for (int k = 0; k < 13; k++) prob[k] = 0.1f;
  prob[0] = prob[5] = 0.05f, prob[3] = 0.5f, prob[6] = 0.4f;
  rc = el__ged_dict_score(&(el__ged_readers){d, NULL, NULL}, &g, first, prob, gold, 0.8, 1.0, 1, 0, NULL, &r, &err);
  CHECK(rc == 0 && r.with.f05 <= r.alone.f05 && fabs(r.threshold - 0.7999) < 1e-9 && r.with.tp == 1 &&
            r.with.fp == 1,
        "no gain over the dictionary alone (%.3f against %.3f): threshold just under q (%.4f), "
        "the dictionary's two words flagged (tp %ld, fp %ld)", r.with.f05, r.alone.f05, r.threshold,
        r.with.tp, r.with.fp);
  prob[3] = 0.9f; /* now the model is surer of a false alarm than q: it is flagged */
  rc = el__ged_dict_score(&(el__ged_readers){d, NULL, NULL}, &g, first, prob, gold, 0.8, 1.0, 1, 0, NULL, &r, &err);
  CHECK(rc == 0 && fabs(r.threshold - 0.7999) < 1e-9 && r.with.fp == 2,
        "... and a word the model scores over q (0.9) is flagged with them (fp %ld)", r.with.fp);
  /* generated data: even where the model's flags gain there, the threshold is
   * just under q (generated errors overstate the model's precision) */
  for (int k = 0; k < 13; k++) prob[k] = 0.1f;
  prob[2] = 0.6f; /* "go", the error the dictionary misses: a gain at 0.5 */
  rc = el__ged_dict_score(&(el__ged_readers){d, NULL, NULL}, &g, first, prob, gold, 0.8, 1.0, 1, 0, NULL, &r, &err);
  CHECK(rc == 0 && r.with.f05 > r.alone.f05 && r.threshold < 0.7,
        "learners' data: the model's gain kept, threshold %.4f", r.threshold);
  g.generated = 1;
  rc = el__ged_dict_score(&(el__ged_readers){d, NULL, NULL}, &g, first, prob, gold, 0.8, 1.0, 1, 0, NULL, &r, &err);
  CHECK(rc == 0 && fabs(r.threshold - 0.7999) < 1e-9 && r.with.tp == 1,
        "generated data: threshold just under q (%.4f), the model's 0.6 not flagged", r.threshold);
  g.generated = 0;
}

/* With the n-gram model: "hear" after "look forward to" becomes a rejected
 * word (the verb-form rule), which the dictionary's scores count and
 * hunspell's own do not. */
static char *S3[] = {"I", "look", "forward", "to", "hear", "from", "yuo", "."};
static unsigned char E3[] = {0, 0, 0, 0, 1, 0, 1, 0};

static void test_spell_apart(el__dict *d) {
  el__ged_readers rd = {d, NULL, NULL};
  el_error err = {0};
  if (el__ged_readers_open_ngram(&rd, &err)) {
    SKIP("no n-gram model: %s", err.msg);
    return;
  }
  el__ged_sentence s[1] = {{8, S3, E3, 0}};
  el__ged_data g = {.s = s, .n = 1};
  long first[2] = {0, 8};
  float prob[8] = {0};
  int gold[8] = {0, 0, 0, 0, 1, 0, 1, 0};
  el__ged_dict_result r;
  int rc = el__ged_dict_score(&rd, &g, first, prob, gold, -1, -1, 0, 0.5, NULL, &r, &err);
  CHECK(rc == 0, "scores with the n-gram model: %s", rc ? err.msg : "ok");
  CHECK(r.ngram && r.alone.tp == 2 && r.alone.fn == 0 && r.spell.tp == 1 && r.spell.fn == 1 &&
            r.spell.fp == 0,
        "the dictionary with the n-gram model finds yuo and hear (tp %ld), hunspell alone yuo "
        "(tp %ld, fn %ld)", r.alone.tp, r.spell.tp, r.spell.fn);
  el__ged_readers_close_ngram(&rd);
}

int main(void) {
  if (access("/usr/share/hunspell/en_GB.dic", R_OK) || access("/usr/share/hunspell/en_US.dic", R_OK)) {
    SKIP("no hunspell en_GB/en_US dictionaries");
    return el_test_done();
  }
  el__dict *d = NULL;
  el_error err = {0};
  CHECK(el__dict_load(NULL, &d, &err) == 0, "dictionaries load: %s", err.msg);
  if (d) test_score(d);
  if (d) test_spell_apart(d);
  el__dict_free(d);
  return el_test_done();
}
