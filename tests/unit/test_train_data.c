/* The pretraining data path: example builder rules (docs/MODEL.md §4) on
 * constructed input, the token cache round trip and its refusals, corpus
 * tokenization (thread-count independent), the train/validation split, the
 * shuffle and the saved data position, and the input-file checks. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../test.h"
#include "data_builder.h"
#include "data_cache.h"
#include "data_corpus.h"
#include "data_input.h"
#include "data_loader.h"
#include "electra/tokenizer.h"

enum { CLS = 2, SEP = 3 };
static char g_dir[] = "/tmp/el_test_data_XXXXXX";

/* Sentence tokens encode (document, sentence, index) so examples can be
 * traced back: id = 1000 + doc * 100000 + sent * 100 + i. */
static int tok_id(int doc, int sent, int i) { return 1000 + doc * 100000 + sent * 100 + i; }

static void test_builder_deterministic_cases(void) {
  el__exbuilder b;
  el_error err = {0};
  CHECK(el__exb_init(&b, 4, CLS, SEP, 1, &err) == EL_EINVAL, "max_len below 5 refused");
  el__exb_init(&b, 16, CLS, SEP, 1, &err);
  /* one 40-token sentence: A gets it (A empty), truncated to 14; no B;
   * the other 26 tokens are discarded */
  int s[40];
  for (int i = 0; i < 40; i++) s[i] = tok_id(0, 0, i);
  int made = el__exb_add_line(&b, s, 40, 0);
  int ok = made == 1 && b.n == 16 && b.ids[0] == CLS && b.ids[15] == SEP && b.b_start == 16;
  for (int i = 0; ok && i < 14; i++) ok = b.ids[1 + i] == s[i];
  CHECK(ok, "a long sentence fills A up to max_len - 2, no B, remainder dropped");
  CHECK(el__exb_flush(&b) == 0, "nothing left after the example");
  el__exb_free(&b);

  /* first example of a short document: target = max_len, so with two
   * segments first_target = (16-3)/2 = 6: s0 (3) -> A, s1 (2): 3+2 < 6 -> A,
   * s2 (3): 5+3 >= 6 -> B unless the 50% coin; single segment: all in A.
   * Whatever the draws: [CLS] s0 s1 ... [SEP] in order, total 8 + 2 or 3. */
  for (uint64_t seed = 1; seed <= 40; seed++) {
    el__exb_init(&b, 16, CLS, SEP, seed, &err);
    int a[3] = {tok_id(1, 0, 0), tok_id(1, 0, 1), tok_id(1, 0, 2)};
    int c[2] = {tok_id(1, 1, 0), tok_id(1, 1, 1)};
    int d[3] = {tok_id(1, 2, 0), tok_id(1, 2, 1), tok_id(1, 2, 2)};
    el__exb_add_line(&b, a, 3, 0);
    el__exb_add_line(&b, c, 2, 0);
    el__exb_add_line(&b, d, 3, 0);
    made = el__exb_add_line(&b, NULL, 0, 1);
    int want[8] = {a[0], a[1], a[2], c[0], c[1], d[0], d[1], d[2]};
    ok = made == 1 && b.ids[0] == CLS && b.ids[4] == tok_id(1, 1, 0) && b.ids[b.n - 1] == SEP;
    int k = 0;
    for (int i = 1; ok && i < b.n - 1; i++) {
      if (b.ids[i] == SEP) {
        ok = i == b.b_start - 1 && i == 6; /* A = s0 s1 exactly when there is a B */
        continue;
      }
      ok = k < 8 && b.ids[i] == want[k++];
    }
    ok = ok && k == 8 && (b.n == 10 || (b.n == 11 && b.b_start == 7));
    el__exb_free(&b);
    if (!ok) {
      CHECK(0, "document-end example, seed %llu (n %d, b_start %d)", (unsigned long long)seed,
            b.n, b.b_start);
      return;
    }
  }
  CHECK(1, "a document end makes one example from its sentences, A before B, in order");
}

/* Many long documents of 10-token sentences: statistics of the rules. */
static void test_builder_statistics(void) {
  el__exbuilder b;
  el_error err = {0};
  const int L = 128;
  el__exb_init(&b, L, CLS, SEP, 42, &err);
  long n_ex = 0, single = 0, short_ex = 0, bad = 0, n_mid = 0;
  for (int doc = 0; doc < 400; doc++) {
    int last_sent = -1;
    for (int sent = 0; sent < 100; sent++) {
      int s[10];
      for (int i = 0; i < 10; i++) s[i] = tok_id(doc, sent, i);
      int made = el__exb_add_line(&b, s, 10, 0), mid = made;
      if (sent == 99 && !made) made = el__exb_add_line(&b, NULL, 0, 1) == 1;
      if (!made) continue;
      n_ex++;
      if (mid) { /* made because the target length was reached */
        n_mid++;
        single += b.b_start == b.n;
        short_ex += b.n < L;
      }
      /* structure: CLS, content, SEP [content SEP]; content from this
       * document only, consecutive tokens, after the previous example */
      int seps = 0, prev = -1;
      for (int i = 0; i < b.n; i++) {
        int id = b.ids[i];
        if (i == 0) {
          bad += id != CLS;
          continue;
        }
        if (id == SEP) {
          seps++;
          continue;
        }
        int d = (id - 1000) / 100000, st = (id - 1000) % 100000 / 100, k = (id - 1000) % 100;
        bad += d != doc || st <= last_sent;
        int flat = st * 10 + k;
        bad += flat <= prev;
        prev = flat;
      }
      bad += b.n > L || b.ids[b.n - 1] != SEP || seps < 1 || seps > 2 ||
             (seps == 2) != (b.b_start < b.n);
      last_sent = sent;
    }
  }
  el__exb_free(&b);
  CHECK(bad == 0, "every example: [CLS] A [SEP] (B [SEP]), one document, in order, <= max_len");
  /* Examples made when the target length is reached (not at a document
   * end): p 0.1 single segment; p 0.05 (drawn after the previous example) a
   * random target randint(5,128), which makes a short example; otherwise,
   * with 10-token sentences, exactly 128 tokens. Bounds are ~5 sd. */
  double fs = (double)single / n_mid;
  CHECK(n_ex > 3000 && fs > 0.072 && fs < 0.128,
        "single-segment fraction %.3f ~ 0.1 (%ld of %ld examples)", fs, n_mid, n_ex);
  double fshort = (double)short_ex / n_mid;
  CHECK(fshort > 0.03 && fshort < 0.07, "short examples %.3f ~ 0.05", fshort);
}

static void path_in(char *out, size_t n, const char *name) { snprintf(out, n, "%s/%s", g_dir, name); }

static void test_cache(void) {
  char path[512];
  path_in(path, sizeof path, "c16.bin");
  el_error err = {0};
  el__cache_key key = {0x1234, 0x55, 7, 1000, 32, 1};
  el__cache_writer *w;
  CHECK(el__cache_writer_open(&w, path, &key, &err) == EL_OK, "cache writer opens");
  int ex[3][12] = {{CLS, 10, 11, SEP}, {CLS, 12, SEP, 13, 14, 999, SEP}, {CLS, 7, SEP}};
  int lens[3] = {4, 7, 3}, bst[3] = {4, 3, 3};
  for (int i = 0; i < 3; i++) el__cache_writer_add(w, ex[i], lens[i], bst[i], &err);
  CHECK(el__cache_writer_count(w, NULL) == 3, "3 examples counted");
  CHECK(el__cache_writer_finish(&w, 1, &err) == EL_OK, "cache written: %s", err.msg);
  el__cache c;
  CHECK(el__cache_open(&c, path, &key, &err) == EL_OK, "cache opens with its key");
  CHECK(c.h.id_bytes == 2 && c.h.n_examples == 3 && c.h.n_tokens == 14, "uint16 ids, counts");
  int ok = 1, buf[16];
  for (int i = 0; i < 3; i++) {
    int bs, n = el__cache_example(&c, (uint64_t)i, buf, &bs);
    ok &= n == lens[i] && bs == bst[i] && !memcmp(buf, ex[i], sizeof(int) * (size_t)n);
  }
  CHECK(ok, "examples read back exactly");
  uint64_t h16 = c.h.content_hash;
  el__cache_close(&c);
  el__cache_key other = key;
  other.seq_len = 64;
  CHECK(el__cache_open(&c, path, &other, &err) == EL_ESHAPE && strstr(err.msg, "sequence length"),
        "another sequence length is detected: %s", err.msg);
  other = key;
  other.vocab_hash = 9;
  CHECK(el__cache_open(&c, path, &other, &err) == EL_ESHAPE && strstr(err.msg, "vocabulary"),
        "another vocabulary is detected");
  /* damaged: truncate by 4 bytes */
  char cmd[1200];
  char dpath[512];
  path_in(dpath, sizeof dpath, "damaged.bin");
  snprintf(cmd, sizeof cmd, "head -c -4 %s > %s", path, dpath);
  if (system(cmd)) printf("# head failed\n");
  CHECK(el__cache_open(&c, dpath, NULL, &err) == EL_EFORMAT, "a truncated cache is refused: %s",
        err.msg);
  path_in(dpath, sizeof dpath, "none.bin");
  CHECK(el__cache_open(&c, dpath, NULL, &err) == EL_EIO, "a missing cache is EL_EIO");

  /* vocabulary above 65535: uint32 ids */
  el__cache_key big = key;
  big.vocab_size = 70000;
  path_in(path, sizeof path, "c32.bin");
  el__cache_writer_open(&w, path, &big, &err);
  int e[4] = {CLS, 69999, 65536, SEP};
  el__cache_writer_add(w, e, 4, 4, &err);
  el__cache_writer_finish(&w, 1, &err);
  el__cache_open(&c, path, &big, &err);
  int n = el__cache_example(&c, 0, buf, NULL);
  CHECK(c.h.id_bytes == 4 && n == 4 && buf[1] == 69999 && buf[2] == 65536,
        "uint32 ids when the vocabulary exceeds 65535");
  CHECK(c.h.content_hash != h16, "content hash depends on the data");
  el__cache_close(&c);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  fputs(text, f);
  fclose(f);
}

static void test_corpus(void) {
  char vocab[512], text[512], c1[512], c2[512];
  path_in(vocab, sizeof vocab, "vocab.txt");
  path_in(text, sizeof text, "text.txt");
  path_in(c1, sizeof c1, "corpus1.bin");
  path_in(c2, sizeof c2, "corpus2.bin");
  write_file(vocab, "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\non\nmat\n.\ndog\n##s\n");
  FILE *f = fopen(text, "wb");
  for (int d = 0; d < 300; d++) {
    for (int s = 0; s < 1 + d % 7; s++) fputs(s % 2 ? "The dogs sat.\n" : "the cat sat on the mat.\n", f);
    fputs(d % 5 == 4 ? "   \n" : "\n", f); /* whitespace-only lines end documents too */
  }
  fputs("caf\xff" "e cat\n", f); /* invalid UTF-8 and an unknown word */
  fclose(f);
  el_tokenizer *tok = NULL;
  el_error err = {0};
  if (el_tokenizer_load(vocab, 1, &tok, &err)) {
    CHECK(0, "tokenizer load: %s", err.msg);
    return;
  }
  el__cache_key key = {1, 2, 3, (uint32_t)el_tokenizer_vocab_size(tok), 24, 1};
  char *in[1] = {text};
  el__corpus_stats st;
  omp_set_num_threads(1);
  CHECK(el__corpus_build(c1, in, 1, tok, &key, &st, &err) == EL_OK, "corpus built: %s", err.msg);
  CHECK(st.documents == 301 && st.bad_utf8_lines == 1, "301 documents, 1 invalid-UTF-8 line (%llu, %llu)",
        (unsigned long long)st.documents, (unsigned long long)st.bad_utf8_lines);
  omp_set_num_threads(2);
  el__corpus_build(c2, in, 1, tok, &key, NULL, &err);
  el__cache a, b;
  el__cache_open(&a, c1, &key, &err);
  el__cache_open(&b, c2, &key, &err);
  CHECK(a.h.content_hash == b.h.content_hash && a.h.n_tokens == b.h.n_tokens,
        "the cache does not depend on the thread count");
  /* the first document is one sentence: [CLS] the cat sat on the mat . [SEP] */
  int buf[32], bs;
  int n = el__cache_example(&a, 0, buf, &bs);
  int want[9] = {CLS, 5, 6, 7, 8, 5, 9, 10, SEP};
  CHECK(n == 9 && !memcmp(buf, want, sizeof want) && bs == 9, "first example tokenized as expected");
  int n_last = el__cache_example(&a, a.h.n_examples - 1, buf, &bs);
  CHECK(n_last == 4 && buf[1] == 1 && buf[2] == 6, "last line: [CLS] [UNK] cat [SEP] (got %d: %d %d)",
        n_last, buf[1], buf[2]);
  int ok = 1;
  for (uint64_t i = 0; i < a.h.n_examples; i++) ok &= a.index[i].len <= 24;
  CHECK(ok, "no example longer than the sequence length");
  el__cache_close(&a);
  el__cache_close(&b);
  char empty[512];
  path_in(empty, sizeof empty, "blank.txt");
  write_file(empty, "\n\n  \n");
  in[0] = empty;
  CHECK(el__corpus_build(c2, in, 1, tok, &key, NULL, &err) == EL_EINVAL,
        "text without any token is refused: %s", err.msg);
  el_tokenizer_free(tok);
}

static void test_loader(void) {
  char path[512];
  path_in(path, sizeof path, "loader.bin");
  el_error err = {0};
  el__cache_key key = {5, 6, 7, 1000, 16, 1};
  el__cache_writer *w;
  el__cache_writer_open(&w, path, &key, &err);
  const int N = 1000;
  for (int i = 0; i < N; i++) {
    int e[4] = {CLS, 10 + i % 900, 11 + i % 7, SEP};
    int len = 2 + i % 3;
    e[len - 1] = SEP;
    el__cache_writer_add(w, e, len, len, &err);
  }
  el__cache_writer_finish(&w, 1, &err);
  el__dataset d;
  CHECK(el__dataset_open(&d, path, &key, 0.05, 1000, 99, &err) == EL_OK, "dataset opens");
  CHECK(d.n_val > 25 && d.n_val < 80 && d.n_train + d.n_val == (uint64_t)N,
        "about 5%% held out (%llu of %d)", (unsigned long long)d.n_val, N);
  char *seen = calloc(N, 1);
  int ok = 1;
  for (uint64_t i = 0; i < d.n_train; i++) ok &= !seen[d.train[i]]++;
  for (uint64_t i = 0; i < d.n_val; i++) ok &= !seen[d.val[i]]++;
  CHECK(ok, "train and validation are disjoint and cover every example");
  uint64_t nval = d.n_val;
  uint32_t first_val = d.val[0];
  el__dataset_close(&d);
  el__dataset_open(&d, path, &key, 0.05, 10, 12345, &err);
  CHECK(d.n_val == 10 && d.val[0] == first_val, "the split ignores the seed; val capped at 10");
  el__dataset_close(&d);
  (void)nval;

  /* an epoch is a permutation; seeds and epochs differ */
  uint32_t items[100], p1[100], p2[100], p3[100];
  for (int i = 0; i < 100; i++) items[i] = (uint32_t)i * 3;
  el__epoch_perm(p1, items, 100, 1, 0);
  el__epoch_perm(p2, items, 100, 1, 1);
  el__epoch_perm(p3, items, 100, 2, 0);
  memset(seen, 0, (size_t)N);
  ok = 1;
  for (int i = 0; i < 100; i++) ok &= p1[i] % 3 == 0 && !seen[p1[i]]++;
  CHECK(ok, "an epoch visits every training example once");
  CHECK(memcmp(p1, p2, sizeof p1) && memcmp(p1, p3, sizeof p1), "epochs and seeds shuffle differently");
  el__epoch_perm(p2, items, 100, 1, 0);
  CHECK(!memcmp(p1, p2, sizeof p1), "the same (seed, epoch) gives the same order");

  /* batches: resume from a saved position gives the same batches */
  el__dataset_open(&d, path, &key, 0.05, 1000, 7, &err);
  el__packed pk;
  memset(&pk, 0, sizeof pk);
  int *log = malloc(sizeof(int) * 200 * 64);
  int nlog = 0;
  el__data_pos saved = {0, 0};
  for (int bt = 0; bt < 200; bt++) { /* 200 x 13 > 2 epochs */
    if (bt == 77) saved = d.pos;
    el__dataset_next(&d, 13, &pk, &err);
    if (bt >= 77) {
      log[nlog++] = pk.n_tokens;
      for (int t = 0; t < pk.n_tokens; t++) log[nlog++] = pk.ids[t];
    }
  }
  CHECK(d.pos.epoch >= 2, "batches run across epochs (epoch %llu)", (unsigned long long)d.pos.epoch);
  el__dataset_close(&d);
  el__dataset_open(&d, path, &key, 0.05, 1000, 7, &err);
  el__dataset_seek(&d, saved);
  int k = 0;
  ok = 1;
  for (int bt = 77; bt < 200 && ok; bt++) {
    el__dataset_next(&d, 13, &pk, &err);
    ok = log[k++] == pk.n_tokens;
    for (int t = 0; ok && t < pk.n_tokens; t++) ok = log[k++] == pk.ids[t];
  }
  CHECK(ok, "seeking to a saved position reproduces the following batches");
  int types_ok = 1;
  for (int s = 0, base = 0; s < pk.n_seqs; base += pk.seq_len[s++])
    for (int t = 0; t < pk.seq_len[s]; t++) types_ok &= pk.type_ids[base + t] == 0;
  CHECK(types_ok && pk.n_seqs == 13, "packed batch: 13 sequences, single segment -> type 0");
  el__dataset_close(&d);

  /* tiny training set: a batch larger than the set still works */
  path_in(path, sizeof path, "tiny.bin");
  el__cache_writer_open(&w, path, &key, &err);
  int e2[3] = {CLS, 10, SEP};
  for (int i = 0; i < 3; i++) el__cache_writer_add(w, e2, 3, 3, &err);
  el__cache_writer_finish(&w, 1, &err);
  CHECK(el__dataset_open(&d, path, &key, 0.01, 100, 1, &err) == EL_OK && d.n_val == 1 &&
            d.n_train == 2,
        "at least one example is held out");
  CHECK(el__dataset_next(&d, 5, &pk, &err) == EL_OK && pk.n_seqs == 5, "batch of 5 from 2 examples");
  el__dataset_close(&d);
  el__packed_free(&pk);
  free(log);
  free(seen);
}

static void test_inputs(void) {
  el_error err = {0};
  char p[512], e[512];
  path_in(p, sizeof p, "missing.txt");
  char *a[1] = {p};
  CHECK(el__inputs_check(a, 1, NULL, &err) == EL_EIO && strstr(err.msg, "missing.txt"),
        "a missing input is named: %s", err.msg);
  a[0] = g_dir;
  CHECK(el__inputs_check(a, 1, NULL, &err) == EL_EIO && strstr(err.msg, "directory"),
        "a directory is refused: %s", err.msg);
  path_in(e, sizeof e, "empty.txt");
  write_file(e, " \n\n");
  a[0] = e;
  CHECK(el__inputs_check(a, 1, NULL, &err) == EL_EINVAL && strstr(err.msg, "empty"),
        "an empty input is refused: %s", err.msg);
  CHECK(el__inputs_check(a, 0, NULL, &err) == EL_EINVAL, "no input at all is refused");
  write_file(e, "text\n");
  uint64_t bytes = 0;
  CHECK(el__inputs_check(a, 1, &bytes, &err) == EL_OK && bytes == 5, "a text file passes");
  uint64_t f1 = el__inputs_fingerprint(a, 1);
  usleep(20000);
  write_file(e, "text\n");
  CHECK(el__inputs_fingerprint(a, 1) != f1, "rewriting an input changes the fingerprint");
}

int main(void) {
  if (!mkdtemp(g_dir)) {
    CHECK(0, "mkdtemp");
    return el_test_done();
  }
  test_builder_deterministic_cases();
  test_builder_statistics();
  test_cache();
  test_corpus();
  test_loader();
  test_inputs();
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
  if (system(cmd)) printf("# could not remove %s\n", g_dir);
  return el_test_done();
}
