/* Learner errors on WordPiece ids for pretraining (train/pretrain/learner_ids.h):
 * the tables built from a small vocabulary, each kind of edit with the FCE
 * labels (forced tokens) and the length rules, determinism, the realised
 * rate, the --corruption option, masking that skips forced tokens, and
 * forced labels in the ELECTRA step. Needs WordNet; skips without. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../test.h"
#include "test_config.h"
#include "checkpoint.h"
#include "learner_ids.h"
#include "masking.h"
#include "objective.h"

static el_tokenizer *TOK;
static el__lids *T;
static el__lids_batch OUT;

static const char *const WORDS[] = {
    "she", "he", "i", "it", "goes", "go", "went", "to", "school", ".", ",", "took", "the", "a",
    "an", "exam", "like", "music", "cats", "cat", "boxes", "box", "in", "on", "at", "for", "of",
    "with", "by", "from", "about", "into", "is", "that", "be", "will", "have", "there", "them",
    "am", "going", "eat", "apple", "and", "play", "##ing", "really", "very", "much", "plan",
    "we", "discussed", "elephant"};

static int write_vocab(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n");
  for (size_t i = 0; i < sizeof WORDS / sizeof WORDS[0]; i++) fprintf(f, "%s\n", WORDS[i]);
  /* letters, so that every misspelling has pieces */
  for (char c = 'a'; c <= 'z'; c++) fprintf(f, "%c\n##%c\n", c, c);
  return fclose(f);
}

static int id(const char *w) { return el_tokenizer_id(TOK, w); }

/* A packed batch of one or two sequences "[CLS] a [SEP] (b [SEP])". */
typedef struct pbatch {
  int n_seqs, seq_len[64], ids[4096], types[4096], n;
} pbatch;

static void add_seq(pbatch *b, const char *a, const char *bseg) {
  int start = b->n;
  b->ids[b->n] = el_tokenizer_special_id(TOK, EL_TOK_CLS), b->types[b->n++] = 0;
  el_tokens tk;
  memset(&tk, 0, sizeof tk);
  for (int seg = 0; seg < (bseg ? 2 : 1); seg++) {
    const char *text = seg ? bseg : a;
    el_tokenize(TOK, text, strlen(text), &tk, NULL);
    for (int i = 0; i < tk.n; i++) b->ids[b->n] = tk.tok[i].id, b->types[b->n++] = seg;
    b->ids[b->n] = el_tokenizer_special_id(TOK, EL_TOK_SEP), b->types[b->n++] = seg;
  }
  el_tokens_free(&tk);
  b->seq_len[b->n_seqs++] = b->n - start;
}

static el_batch view(const pbatch *b) {
  el_batch v = {b->n_seqs, b->seq_len, b->ids, b->types};
  return v;
}

/* Output tokens as text with forced ones starred: "[CLS] she *go* ...". */
static void render(char *out) {
  out[0] = 0;
  for (int t = 0; t < OUT.n_tokens; t++) {
    if (t) strcat(out, " ");
    if (OUT.forced[t]) strcat(out, "*");
    strcat(out, el_tokenizer_token(TOK, OUT.ids[t]));
    if (OUT.forced[t]) strcat(out, "*");
  }
}

static int one(int family, const char *a, const char *b, uint64_t seed, char *text) {
  pbatch pb = {0};
  add_seq(&pb, a, b);
  el_batch in = view(&pb);
  el_error err = {0};
  int rc = el__lids_corrupt_family(T, &in, family, &seed, &OUT, &err);
  if (rc) printf("#   %s\n", err.msg);
  render(text);
  return rc ? -1 : (int)OUT.n_edits;
}

static void expect(int family, const char *a, const char *b, const char *want) {
  char text[4096];
  int e = one(family, a, b, 3, text);
  CHECK(e == 1 && !strcmp(text, want), "%s: %s", el__lfam_name(family), want);
  if (e != 1 || strcmp(text, want)) printf("#   got %d edit(s): %s\n", e, text);
}

static void test_tables(void) {
  int c[16];
  static const struct {
    int family;
    const char *w, *want;
  } C[] = {{EL__LF_VERB_SVA, "goes", "go"},    {EL__LF_VERB_TENSE, "went", "go"},
           {EL__LF_NOUN_NUM, "cats", "cat"},   {EL__LF_NOUN_NUM, "box", "boxes"},
           {EL__LF_DET_WRONG, "the", "an"},    {EL__LF_PREP_WRONG, "in", "on"},
           {EL__LF_PUNCT_WRONG, ",", "."},     {EL__LF_VERB_FORM, "go", "going"}};
  for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
    int k = el__lids_confusions(T, id(C[i].w), C[i].family, c, 16), hit = 0;
    for (int j = 0; j < k; j++) hit |= c[j] == id(C[i].want);
    CHECK(hit, "%s confusions of \"%s\" include \"%s\"", el__lfam_name(C[i].family), C[i].w,
          C[i].want);
  }
  CHECK(el__lids_confusions(T, id("##ing"), EL__LF_VERB_FORM, c, 16) == 0 &&
            el__lids_confusions(T, el_tokenizer_special_id(TOK, EL_TOK_SEP), EL__LF_DET_WRONG, c, 16) == 0,
        "## pieces and special tokens have no confusions");
  int nc = 0, ns = 0;
  el__lids_stats(T, &nc, &ns);
  CHECK(nc >= 15 && ns >= 30, "%d words with confusions, %d with misspellings", nc, ns);
}

static void test_edits(void) {
  /* replacement: the word itself forced, length kept */
  expect(EL__LF_VERB_SVA, "she goes to school .", "i took the exam .",
         "[CLS] she *go* to school . [SEP] i took the exam . [SEP]");
  /* deletion: the word after the gap forced, the sequence one token shorter */
  expect(EL__LF_DET_MISSING, "she goes to school .", "i took the exam .",
         "[CLS] she goes to school . [SEP] i took *exam* . [SEP]");
  /* a gap at the end of a segment: the word before it */
  /* a gap at the end marks nothing, as FCE */
  expect(EL__LF_PUNCT_MISSING, "she goes to school .", NULL, "[CLS] she goes to school [SEP]");
  /* a deletion before a word of two pieces forces both */
  expect(EL__LF_DET_MISSING, "i like the playing", NULL, "[CLS] i like *play* *##ing* [SEP]");
  /* insertion: the new word forced; the segment's last token makes room */
  char text[4096];
  int ok = 1;
  for (uint64_t seed = 1; seed <= 20 && ok; seed++) {
    ok = one(EL__LF_DET_EXTRA, "i like music .", NULL, seed, text) == 1 &&
         (!strcmp(text, "[CLS] i like *the* music [SEP]") ||
          !strcmp(text, "[CLS] i like *a* music [SEP]"));
  }
  CHECK(ok, "U:DET: an article before the noun, forced; the last token dropped: %s", text);
  ok = 1;
  for (uint64_t seed = 1; seed <= 20 && ok; seed++)
    ok = one(EL__LF_PREP_EXTRA, "we discussed the plan .", NULL, seed, text) == 1 &&
         OUT.n_tokens == 7 && OUT.forced[3] && OUT.ids[4] == id("the") &&
         el__lids_confusions(T, OUT.ids[3], EL__LF_PREP_WRONG, (int[16]){0}, 16) > 0;
  CHECK(ok, "U:PREP: a preposition before the noun phrase, forced: %s", text);
  /* swap: both words forced */
  ok = 1;
  for (uint64_t seed = 1; seed <= 20 && ok; seed++) {
    ok = one(EL__LF_WORD_ORDER, "she really like cats", NULL, seed, text) == 1 && OUT.n_tokens == 6;
    int f = 0, at = -1;
    for (int t = 0; t < OUT.n_tokens; t++)
      if (OUT.forced[t]) f++, at = at < 0 ? t : at;
    ok = ok && f == 2 && OUT.forced[at + 1];
  }
  CHECK(ok, "R:WO: two adjacent words swapped, both forced: %s", text);
  /* misspelling: the word's new pieces all forced, the sequence never longer */
  ok = 1;
  for (uint64_t seed = 1; seed <= 30 && ok; seed++) {
    ok = one(EL__LF_SPELL, "the elephant", NULL, seed, text) == 1 && OUT.n_tokens <= 4;
    int f = 0;
    for (int t = 0; t < OUT.n_tokens; t++) f += OUT.forced[t];
    ok = ok && f >= 1 && !OUT.forced[0] && !OUT.forced[OUT.n_tokens - 1];
  }
  CHECK(ok, "R:SPELL: pieces of the misspelling forced, length never grows: %s", text);
  CHECK(one(EL__LF_DET_MISSING, "cats like music", NULL, 1, text) == 0 &&
            !strcmp(text, "[CLS] cats like music [SEP]"),
        "no place for the family: the sequence unchanged");
  CHECK(OUT.type_ids[0] == 0 && OUT.type_ids[OUT.n_tokens - 1] == 0, "type ids kept");
  one(EL__LF_DET_MISSING, "she goes to school .", "i took the exam .", 3, text);
  int types_ok = OUT.n_tokens == 12 && OUT.seq_len[0] == 12;
  for (int t = 0; types_ok && t < OUT.n_tokens; t++) types_ok = OUT.type_ids[t] == (t > 6);
  CHECK(types_ok,
        "after a deletion, each segment keeps its type id");
}

static const char *const SENTS[] = {
    "she goes to the school by a box .", "i took the exam , and it is very much a plan .",
    "we discussed the cats with them at school .", "he went into the school with an apple .",
    "i like music and i eat apples ."};
#define N_SENTS ((int)(sizeof SENTS / sizeof SENTS[0]))

static void test_batches(void) {
  pbatch *pb = calloc(1, sizeof *pb);
  for (int s = 0; s < 60; s++) add_seq(pb, SENTS[s % N_SENTS], SENTS[(s + 2) % N_SENTS]);
  el_batch in = view(pb);
  el_error err = {0};
  uint64_t r1 = 11, r2 = 11;
  el__lids_batch a;
  memset(&a, 0, sizeof a);
  int rc = el__lids_corrupt(T, &in, 0.15, &r1, &OUT, &err);
  CHECK(rc == 0, "corrupt a batch of 60 sequences: %s", rc ? err.msg : "ok");
  el__lids_corrupt(T, &in, 0.15, &r2, &a, &err);
  CHECK(OUT.n_tokens == a.n_tokens && !memcmp(OUT.ids, a.ids, sizeof(int) * (size_t)a.n_tokens) &&
            !memcmp(OUT.forced, a.forced, (size_t)a.n_tokens) && r1 == r2,
        "the same seed gives the same ids and forced tokens");
  uint64_t r3 = 12;
  el__lids_corrupt(T, &in, 0.15, &r3, &a, &err);
  CHECK(a.n_tokens != OUT.n_tokens || memcmp(OUT.ids, a.ids, sizeof(int) * (size_t)a.n_tokens),
        "another seed, other errors");
  el__lids_batch_free(&a);

  int ok = OUT.n_seqs == 60, cls = el_tokenizer_special_id(TOK, EL_TOK_CLS),
      sep = el_tokenizer_special_id(TOK, EL_TOK_SEP);
  long forced = 0;
  for (int s = 0, o = 0, i = 0; s < 60 && ok; s++) {
    int seps = 0;
    ok = OUT.seq_len[s] <= pb->seq_len[s] && OUT.ids[o] == cls &&
         OUT.ids[o + OUT.seq_len[s] - 1] == sep;
    for (int t = o; t < o + OUT.seq_len[s]; t++) {
      seps += OUT.ids[t] == sep;
      ok &= !(OUT.forced[t] && (OUT.ids[t] == sep || OUT.ids[t] == cls));
      forced += OUT.forced[t];
    }
    ok &= seps == 2;
    o += OUT.seq_len[s];
    i += pb->seq_len[s];
  }
  CHECK(ok, "every sequence keeps [CLS] and its two [SEP], never longer, specials never forced");
  double rate = (double)OUT.n_edits / (double)OUT.n_words;
  CHECK_NEAR(rate, 0.15, 0.0, 0.12, "realised errors per word %.4f near 0.15 (%ld errors)", rate,
             OUT.n_edits);
  CHECK(forced >= OUT.n_edits * 8 / 10, "forced tokens (%ld) follow the errors (%ld)", forced,
        OUT.n_edits);
  uint64_t r4 = 1;
  el__lids_corrupt(T, &in, 0.0, &r4, &OUT, &err);
  ok = OUT.n_tokens == pb->n && !memcmp(OUT.ids, pb->ids, sizeof(int) * (size_t)pb->n) &&
       !memcmp(OUT.type_ids, pb->types, sizeof(int) * (size_t)pb->n);
  for (int t = 0; t < OUT.n_tokens; t++) ok &= !OUT.forced[t];
  CHECK(ok, "rate 0: the batch unchanged, nothing forced");
  CHECK(el__lids_corrupt(T, &in, 1.5, &r4, &OUT, &err) == EL_EINVAL, "a rate above 1 is refused");
  pb->ids[3] = 99999;
  CHECK(el__lids_corrupt(T, &in, 0.1, &r4, &OUT, &err) == EL_EINVAL && strstr(err.msg, "99999"),
        "an id outside the vocabulary is refused: %s", err.msg);
  free(pb);
}

static void test_option(void) {
  double r = -1;
  CHECK(el__lids_parse_option("none", &r) == 0 && r == 0.0, "--corruption none: rate 0");
  CHECK(el__lids_parse_option("learner", &r) == 0 && r == EL__LIDS_DEFAULT_RATE,
        "--corruption learner: the default rate %g", EL__LIDS_DEFAULT_RATE);
  CHECK(el__lids_parse_option("learner:0.15", &r) == 0 && r == 0.15, "learner:0.15");
  r = 7;
  CHECK(el__lids_parse_option("learner:0", &r) && el__lids_parse_option("learner:1.5", &r) &&
            el__lids_parse_option("learner:x", &r) && el__lids_parse_option("learner:", &r) &&
            el__lids_parse_option("learners", &r) && r == 7,
        "bad values refused, the rate untouched");
}

/* Masking never selects a forced token; without skip it is el__mask_electra. */
static void test_masking(void) {
  pbatch pb = {0};
  for (int s = 0; s < 4; s++) add_seq(&pb, SENTS[s], SENTS[s + 1]);
  el_batch b = view(&pb);
  el__mask_cfg mc = {0.15f, el__max_predictions(0.15f, 40), 200, 0, 1, 2, 3, 4};
  int pos1[64], pos2[64];
  uint8_t um1[64], um2[64], skip[4096] = {0};
  el__rng r1, r2;
  el__rng_seed(&r1, 5);
  el__rng_seed(&r2, 5);
  int n1 = el__mask_electra(&mc, &b, &r1, pos1, um1);
  int n2 = el__mask_electra_skip(&mc, &b, NULL, &r2, 0, pos2, um2);
  CHECK(n1 == n2 && !memcmp(pos1, pos2, sizeof(int) * (size_t)n1) && !memcmp(um1, um2, (size_t)n1) &&
            !memcmp(&r1, &r2, sizeof r1),
        "skip NULL: the same positions and rng state as el__mask_electra");
  for (int t = 0; t < pb.n; t += 2) skip[t] = 1;
  int bad = 0;
  for (uint64_t seed = 1; seed <= 50; seed++) {
    el__rng_seed(&r1, seed);
    int n = el__mask_electra_skip(&mc, &b, skip, &r1, 0, pos1, um1);
    for (int i = 0; i < n; i++) bad += skip[pos1[i]];
  }
  CHECK(bad == 0, "forced positions are never selected for masking");
}

/* The ELECTRA step labels forced tokens replaced in addition to the
 * generator's replacements. */
static el_config cfg(el_arch arch, int V, int E, int H) {
  el_config c = el_test_config(arch, V, E, H, 1, 2, 2 * H);
  c.hidden_dropout_prob = c.attention_probs_dropout_prob = 0; /* no dropout here */
  return c;
}

static void test_forced_labels(void) {
  el_error err = {0};
  el_config d = cfg(EL_ARCH_PRETRAINING, 40, 16, 16), g;
  el__params p;
  el__electra *e = NULL;
  int rc = el__generator_config(&d, 0.5f, &g, &err);
  if (!rc) rc = el__params_new_pair(&p, &d, &g, &err);
  el__rng r;
  el__rng_seed(&r, 3);
  if (!rc) rc = el__params_init_random(&p, 0.0f, 1, &r, &err);
  el__tmodel_limits lim = {24, 2, 12, 4};
  if (!rc) rc = el__electra_new(&p, &lim, &e, &err);
  CHECK(rc == 0, "a small generator/discriminator pair: %s", rc ? err.msg : "ok");
  if (rc) return;
  int ids[20], seq_len[2] = {10, 10}, pos[2] = {2, 13};
  uint8_t um[2] = {1, 1}, forced[20] = {0}, lab[20];
  for (int t = 0; t < 20; t++) ids[t] = 5 + t;
  forced[5] = forced[16] = 1;
  el_batch b = {2, seq_len, ids, NULL};
  int keep[2] = {ids[2], ids[13]}; /* correct samples: the generator replaces nothing */
  el__electra_opts o = el__electra_default_opts(4);
  o.train = 0;
  o.backward = 0;
  o.forced_samples = keep;
  el__electra_outputs outs = {NULL, lab, NULL, NULL};
  el__electra_result res;
  el__mask_plan plan = {2, pos, um, forced};
  rc = el__electra_step(e, &b, &plan, &o, NULL, &res, &outs, &err);
  int ok = rc == 0 && res.n_replaced == 2;
  for (int t = 0; t < 20; t++) ok &= lab[t] == forced[t];
  CHECK(ok, "forced tokens labelled replaced, counted in n_replaced (%d)", res.n_replaced);
  el__mask_plan plain = {2, pos, um, NULL};
  rc = el__electra_step(e, &b, &plain, &o, NULL, &res, &outs, &err);
  CHECK(rc == 0 && res.n_replaced == 0, "without forced tokens nothing is labelled");
  el__electra_free(e);
  el__params_free(&p);
  el__config_free(&g);
}

int main(void) {
  if (access("/usr/share/wordnet/verb.exc", R_OK) || access("/usr/share/wordnet/index.noun", R_OK)) {
    SKIP("WordNet files missing in /usr/share/wordnet (install the Debian package wordnet-base)");
    return el_test_done();
  }
  char path[] = "/tmp/el_lids_vocab_XXXXXX";
  int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  el_error err = {0};
  int rc = fd < 0 || write_vocab(path) ? EL_EIO : el_tokenizer_load(path, 1, &TOK, &err);
  if (!rc) rc = el__lids_load(NULL, TOK, &T, &err);
  unlink(path);
  CHECK(rc == 0, "vocabulary and id tables: %s", rc ? err.msg : "ok");
  if (rc) return el_test_done();
  test_tables();
  test_edits();
  test_batches();
  test_option();
  test_masking();
  test_forced_labels();
  el__lids_batch_free(&OUT);
  el__lids_free(T);
  el_tokenizer_free(TOK);
  return el_test_done();
}
