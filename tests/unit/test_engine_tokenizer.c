/* Tokenizer: BERT BasicTokenizer + WordPiece with Hugging Face BertTokenizer
 * semantics, code-point offsets, vocabulary loading, [CLS]/[SEP] encoding and
 * longest-first truncation.
 *
 * The golden cases (tokenizer_golden.h, shared with the vocabulary builder's
 * test) were worked out by hand from HF's algorithm
 * (PreTrainedTokenizer.tokenize + BasicTokenizer + WordpieceTokenizer) on a
 * small vocabulary this test writes itself; each expectation lists the
 * WordPiece tokens with their [start,end) code-point offsets into the input.
 * A few more cases use the real bert-base-uncased vocabulary when present
 * (ids read off vocab.txt line numbers by hand). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <utf8proc.h>

#include "electra/tokenizer.h"
#include "tok_basic.h"
#include "../test.h"
#include "tokenizer_golden.h"

static char g_dir[] = "/tmp/el_tok_test_XXXXXX";
static char g_vocab[300];

/* Toy vocabulary: line number = id. */
static const char *const k_vocab[] = {
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",       /* 0-4 */
    "un", "##aff", "##able", "hello", "world", "Hello", /* 5-10 */
    ",", "!", ".", "?", "'", "\"", "$", "-", "[", "]",  /* 11-20 */
    "mask", "a", "##b", "##c", "abc", "naive", "cafe",  /* 21-27 */
    "caf\xc3\xa9", "na", "##ive", "i", "istanbul",      /* 28-32: café */
    "stra", "##\xc3\x9f" "e",                           /* 33-34: ##ße */
    "\xe4\xb8\xad", "\xe6\x96\x87",                     /* 35-36: 中 文 */
    "x", "k", "don", "t",                               /* 37-40 */
    "\xce\xbf\xce\xb4\xce\xbf\xcf\x83",                 /* 41: οδοσ */
    "\xe1\x84\x92", "##\xe1\x85\xa1", "##\xe1\x86\xab", /* 42-44: ᄒ ##ᅡ ##ᆫ (jamo) */
    "\xe1\xba\xad",                                     /* 45: ậ */
};
#define N_VOCAB ((int)(sizeof k_vocab / sizeof *k_vocab))

static int write_file(const char *path, const char *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t w = fwrite(data, 1, n, f);
  return (fclose(f) == 0 && w == n) ? 0 : -1;
}

static int write_toy_vocab(void) {
  snprintf(g_vocab, sizeof g_vocab, "%s/vocab.txt", g_dir);
  FILE *f = fopen(g_vocab, "wb");
  if (!f) return -1;
  for (int i = 0; i < N_VOCAB; i++) fprintf(f, "%s\n", k_vocab[i]);
  return fclose(f);
}

/* "tok[s,e) tok[s,e) ..." for the result of tokenizing text. */
static int render(const el_tokenizer *tk, const char *text, size_t len, char *out, size_t cap,
                  el_tokens *t) {
  el_error err = {0};
  int rc = el_tokenize(tk, text, len, t, &err);
  if (rc) {
    snprintf(out, cap, "ERROR %s: %s", el_status_name(rc), err.msg);
    return rc;
  }
  size_t w = 0;
  out[0] = '\0';
  for (int i = 0; i < t->n && w < cap; i++)
    w += (size_t)snprintf(out + w, cap - w, "%s%s[%d,%d)", i ? " " : "",
                          el_tokenizer_token(tk, t->tok[i].id), t->tok[i].start, t->tok[i].end);
  return 0;
}

static void run_goldens(const el_tokenizer *tk, const golden *g, int n, const char *tag) {
  el_tokens t = {0};
  char got[4096];
  for (int i = 0; i < n; i++) {
    size_t len = g[i].len < 0 ? strlen(g[i].text) : (size_t)g[i].len;
    render(tk, g[i].text, len, got, sizeof got, &t);
    int ok = strcmp(got, g[i].expect) == 0;
    CHECK(ok, "%s golden: %s", tag, g[i].what);
    if (!ok) printf("#   expected: %s\n#   got:      %s\n", g[i].expect, got);
  }
  el_tokens_free(&t);
}

/* ---- words, long words -------------------------------------------------- */

static void test_words(const el_tokenizer *tk) {
  el_tokens t = {0};
  el_error err = {0};
  const char *s = "Hello, unaffable [MASK]!";
  int rc = el_tokenize(tk, s, strlen(s), &t, &err);
  /* words: hello , unaffable [MASK] ! ; pieces: hello , un ##aff ##able [MASK] ! */
  static const int ws[] = {0, 5, 7, 17, 23}, we[] = {5, 6, 16, 23, 24};
  static const int tw[] = {0, 1, 2, 2, 2, 3, 4};
  int ok = rc == 0 && t.n_words == 5 && t.n == 7 && t.n_codepoints == 24;
  for (int i = 0; ok && i < 5; i++) ok = t.word_start[i] == ws[i] && t.word_end[i] == we[i];
  for (int i = 0; ok && i < 7; i++) ok = t.tok[i].word == tw[i];
  CHECK(ok, "words and word indices of pieces");

  /* Reuse of the same el_tokens for a shorter text resets everything. */
  rc = el_tokenize(tk, "x", 1, &t, &err);
  CHECK(rc == 0 && t.n == 1 && t.n_words == 1 && t.word_start[0] == 0 && t.word_end[0] == 1 &&
            t.n_codepoints == 1,
        "el_tokens reuse resets counts");

  /* 100 characters is the longest word WordPiece splits; 101 is [UNK]. */
  char w100[128], w101[128];
  w100[0] = 'a';
  memset(w100 + 1, 'b', 99);
  w100[100] = '\0';
  memcpy(w101, w100, 100);
  w101[100] = 'b';
  w101[101] = '\0';
  rc = el_tokenize(tk, w100, 100, &t, &err);
  ok = rc == 0 && t.n == 100 && t.tok[0].id == 22 && t.tok[0].start == 0 && t.tok[0].end == 1;
  for (int i = 1; ok && i < 100; i++) ok = t.tok[i].id == 23 && t.tok[i].start == i && t.tok[i].end == i + 1;
  CHECK(ok, "100-character word -> a + 99 x ##b");
  rc = el_tokenize(tk, w101, 101, &t, &err);
  CHECK(rc == 0 && t.n == 1 && t.tok[0].id == 1 && t.tok[0].start == 0 && t.tok[0].end == 101,
        "101-character word -> one [UNK] over [0,101)");
  /* 101 code points that strip to 100 characters: "a" + 98 b + "c" + U+0301
   * composes to ć, then lower-case NFD drops the accent. */
  char w[128];
  w[0] = 'a';
  memset(w + 1, 'b', 98);
  w[99] = 'c';
  w[100] = '\xcc', w[101] = '\x81';
  rc = el_tokenize(tk, w, 102, &t, &err);
  ok = rc == 0 && t.n == 100 && t.tok[99].id == 24 && t.tok[99].start == 99 &&
       t.tok[99].end == 101 && t.n_codepoints == 101;
  CHECK(ok, "limit counts characters after accent stripping (100 pieces, last ##c[99,101))");
  el_tokens_free(&t);
}

/* ---- invalid UTF-8 ------------------------------------------------------ */

static void test_invalid_utf8(const el_tokenizer *tk) {
  const bad_utf8 *cases = k_bad_utf8;
  el_tokens t = {0};
  for (size_t i = 0; i < sizeof k_bad_utf8 / sizeof *k_bad_utf8; i++) {
    el_error err = {0};
    int rc = el_tokenize(tk, cases[i].bytes, (size_t)cases[i].len, &t, &err);
    char want[32];
    snprintf(want, sizeof want, "byte %d", cases[i].at);
    CHECK(rc == EL_EINVAL && err.code == EL_EINVAL && strstr(err.msg, want) && t.n == 0,
          "invalid UTF-8 (%s) -> EL_EINVAL naming %s [%s]", cases[i].what, want, err.msg);
  }
  /* The boundaries themselves are valid. */
  const char *ok = "\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xf0\x90\x80\x80\xf4\x8f\xbf\xbf";
  el_error err = {0};
  int rc = el_tokenize(tk, ok, strlen(ok), &t, &err);
  CHECK(rc == 0 && t.n_codepoints == 8, "boundary code points U+7F..U+10FFFF decode (8 code points)");
  el_tokens_free(&t);
}

/* ---- code-point -> byte offsets ----------------------------------------- */

static void test_utf8_offsets(const el_tokenizer *tk) {
  /* a  é(2)  中(3)  👍(4)  b */
  const char *s = "a\xc3\xa9\xe4\xb8\xad\xf0\x9f\x91\x8d" "b";
  size_t len = strlen(s), st[16];
  static const size_t want[] = {0, 1, 3, 6, 10, 11};
  size_t n = el_utf8_offsets(s, len, st);
  int ok = n == 5;
  for (size_t i = 0; ok && i <= n; i++) ok = st[i] == want[i];
  CHECK(ok, "el_utf8_offsets: 1-4 byte characters give starts 0 1 3 6 10 and the end 11 (%zu code points)", n);
  CHECK(el_utf8_offsets(s, len, NULL) == 5 && el_utf8_offsets("", 0, NULL) == 0,
        "el_utf8_offsets counts without a table; empty text has 0 code points");
  ok = 1;
  for (size_t cp = 0; cp <= n; cp++) ok &= el_utf8_byte_offset(s, len, cp) == want[cp];
  CHECK(ok && el_utf8_byte_offset(s, len, 99) == len,
        "el_utf8_byte_offset agrees with the table; past the end it is the text's length");
  /* The tokenizer's offsets slice the text through the table. */
  const char *t = "Na\xc3\xafve caf\xc3\xa9, \xe4\xb8\xad\xe6\x96\x87!";
  el_tokens tt = {0};
  el_error err = {0};
  size_t tl = strlen(t), *tb = malloc((tl + 1) * sizeof *tb);
  int rc = el_tokenize(tk, t, tl, &tt, &err);
  n = el_utf8_offsets(t, tl, tb);
  char got[256] = "";
  for (int i = 0; rc == 0 && i < tt.n_words; i++) {
    size_t a = tb[tt.word_start[i]], b = tb[tt.word_end[i]];
    snprintf(got + strlen(got), sizeof got - strlen(got), "%s%.*s", i ? "|" : "", (int)(b - a), t + a);
  }
  CHECK(rc == 0 && (int)n == tt.n_codepoints &&
            !strcmp(got, "Na\xc3\xafve|caf\xc3\xa9|,|\xe4\xb8\xad|\xe6\x96\x87|!"),
        "tokenizer word offsets slice the original text through el_utf8_offsets: %s", got);
  free(tb);
  el_tokens_free(&tt);
}

/* ---- vocabulary loading ------------------------------------------------- */

static void test_vocab_load(void) {
  el_tokenizer *tk = NULL;
  el_error err = {0};
  char path[400];

  snprintf(path, sizeof path, "%s/does-not-exist.txt", g_dir);
  int rc = el_tokenizer_load(path, 1, &tk, &err);
  CHECK(rc == EL_EIO && strstr(err.msg, path) && !tk, "missing vocab -> EL_EIO naming the path");

  snprintf(path, sizeof path, "%s/nospecial.txt", g_dir);
  const char *v1 = "[UNK]\n[CLS]\n[SEP]\nhello\n";
  write_file(path, v1, strlen(v1));
  rc = el_tokenizer_load(path, 1, &tk, &err);
  CHECK(rc == EL_EFORMAT && strstr(err.msg, "[PAD]") && strstr(err.msg, "[MASK]") &&
            !strstr(err.msg, "[UNK]") && !tk,
        "vocab without [PAD] [MASK] refused, naming exactly those [%s]", err.msg);

  /* CRLF, a lone CR, an empty line, a final line without newline. */
  snprintf(path, sizeof path, "%s/crlf.txt", g_dir);
  const char *v2 = "[PAD]\r\n[UNK]\r\n[CLS]\n[SEP]\r[MASK]\n\nfoo";
  write_file(path, v2, strlen(v2));
  rc = el_tokenizer_load(path, 1, &tk, &err);
  CHECK(rc == 0 && el_tokenizer_vocab_size(tk) == 7, "universal newlines: 7 lines");
  if (tk) {
    CHECK(el_tokenizer_id(tk, "[SEP]") == 3 && el_tokenizer_id(tk, "[MASK]") == 4 &&
              el_tokenizer_id(tk, "foo") == 6 && strcmp(el_tokenizer_token(tk, 5), "") == 0 &&
              el_tokenizer_id(tk, "") == 5 && el_tokenizer_token(tk, 7) == NULL &&
              el_tokenizer_token(tk, -1) == NULL,
          "ids are line numbers; the empty line is token \"\"");
    CHECK(el_tokenizer_special_id(tk, EL_TOK_PAD) == 0 && el_tokenizer_special_id(tk, EL_TOK_UNK) == 1 &&
              el_tokenizer_special_id(tk, EL_TOK_CLS) == 2 && el_tokenizer_special_id(tk, EL_TOK_SEP) == 3 &&
              el_tokenizer_special_id(tk, EL_TOK_MASK) == 4 && el_tokenizer_lower_case(tk) == 1,
          "special ids");
    el_tokenizer_free(tk);
    tk = NULL;
  }

  /* A trailing newline adds no token; a repeated token maps to its last line
   * (HF load_vocab fills a dict line by line). */
  snprintf(path, sizeof path, "%s/dup.txt", g_dir);
  const char *v3 = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nfoo\nbar\nfoo\n";
  write_file(path, v3, strlen(v3));
  rc = el_tokenizer_load(path, 0, &tk, &err);
  CHECK(rc == 0 && el_tokenizer_vocab_size(tk) == 8 && el_tokenizer_id(tk, "foo") == 7 &&
            el_tokenizer_id(tk, "bar") == 6 && strcmp(el_tokenizer_token(tk, 5), "foo") == 0 &&
            el_tokenizer_lower_case(tk) == 0,
        "trailing newline adds nothing; duplicate -> last id");
  el_tokenizer_free(tk);
  tk = NULL;

  snprintf(path, sizeof path, "%s/badutf8.txt", g_dir);
  const char *v4 = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nca\xff" "fe\n";
  write_file(path, v4, strlen(v4));
  rc = el_tokenizer_load(path, 1, &tk, &err);
  CHECK(rc == EL_EFORMAT && strstr(err.msg, "line 6") && !tk, "invalid UTF-8 in vocab -> EL_EFORMAT line 6 [%s]",
        err.msg);

  snprintf(path, sizeof path, "%s/empty.txt", g_dir);
  write_file(path, "", 0);
  rc = el_tokenizer_load(path, 1, &tk, &err);
  CHECK(rc == EL_EFORMAT && !tk, "empty vocab refused");
  el_tokenizer_free(NULL); /* no-op */
}

/* ---- encoding ----------------------------------------------------------- */

/* A fake tokenized text of n pieces with ids base, base+1, ... */
static void fake_tokens(el_tokens *t, int n, int base) {
  el_tokens_free(t);
  t->tok = calloc((size_t)(n ? n : 1), sizeof *t->tok);
  t->n = t->cap = n;
  for (int i = 0; i < n; i++) {
    el_token x = {base + i, 2 * i, 2 * i + 1, i};
    t->tok[i] = x;
  }
}

static void test_encode(const el_tokenizer *tk) {
  el_tokens a = {0}, b = {0};
  el_encoding e = {0};
  el_error err = {0};

  fake_tokens(&a, 3, 100);
  fake_tokens(&b, 2, 200);
  int rc = el_encode(tk, &a, &b, 512, 0, &e, &err);
  static const int ids[] = {2, 100, 101, 102, 3, 200, 201, 3};
  static const int types[] = {0, 0, 0, 0, 0, 1, 1, 1};
  static const int seg[] = {-1, 0, 0, 0, -1, 1, 1, -1};
  static const int st[] = {-1, 0, 2, 4, -1, 0, 2, -1};
  static const int wd[] = {-1, 0, 1, 2, -1, 0, 1, -1};
  int ok = rc == 0 && e.n == 8 && e.truncated == 0;
  for (int i = 0; ok && i < 8; i++)
    ok = e.ids[i] == ids[i] && e.type_ids[i] == types[i] && e.segment[i] == seg[i] &&
         e.start[i] == st[i] && e.word[i] == wd[i] && e.end[i] == (st[i] < 0 ? -1 : st[i] + 1);
  CHECK(ok, "pair: [CLS] a a a [SEP] b b [SEP] with types, segments, offsets, words");

  rc = el_encode(tk, &a, NULL, 5, 0, &e, &err);
  CHECK(rc == 0 && e.n == 5 && e.ids[0] == 2 && e.ids[4] == 3 && e.type_ids[4] == 0,
        "single text exactly at max_len");

  /* Longest-first, worked one piece at a time from the longer (pair on ties). */
  static const struct {
    int la, lb, max_len, want_a, want_b;
  } tr[] = {
      {10, 4, 10, 4, 3}, /* 7 cut: a 10->4 (6), tie -> b 4->3 */
      {5, 5, 9, 3, 3},   /* 4 cut: b,a,b,a */
      {2, 9, 8, 2, 3},   /* 6 cut, all from b */
      {4, 5, 9, 3, 3},   /* 3 cut: b, b(tie), a */
      {3, 0, 3, 0, 0},   /* everything from a */
      {1, 1, 3, 0, 0},   /* both emptied: [CLS] [SEP] [SEP] */
      {7, 7, 20, 7, 7},  /* fits */
  };
  for (size_t i = 0; i < sizeof tr / sizeof *tr; i++) {
    fake_tokens(&a, tr[i].la, 100);
    fake_tokens(&b, tr[i].lb, 200);
    rc = el_encode(tk, &a, &b, tr[i].max_len, 1, &e, &err);
    int na = 0, nb = 0, order = 1;
    for (int k = 0; k < e.n; k++) {
      if (e.segment[k] == 0) order &= e.ids[k] == 100 + na++;
      if (e.segment[k] == 1) order &= e.ids[k] == 200 + nb++;
    }
    int cut = tr[i].la + tr[i].lb - tr[i].want_a - tr[i].want_b;
    CHECK(rc == 0 && na == tr[i].want_a && nb == tr[i].want_b && order && e.truncated == cut &&
              e.n == tr[i].want_a + tr[i].want_b + 3 && e.n <= tr[i].max_len &&
              e.ids[e.n - 1] == 3 && e.ids[tr[i].want_a + 1] == 3,
          "longest_first a=%d b=%d max_len=%d -> a=%d b=%d (got %d %d)", tr[i].la, tr[i].lb,
          tr[i].max_len, tr[i].want_a, tr[i].want_b, na, nb);
  }

  fake_tokens(&a, 10, 100);
  rc = el_encode(tk, &a, NULL, 5, 1, &e, &err);
  CHECK(rc == 0 && e.n == 5 && e.truncated == 7 && e.ids[1] == 100 && e.ids[3] == 102 && e.ids[4] == 3,
        "single text truncated from the end (keeps the first 3 pieces)");

  rc = el_encode(tk, &a, NULL, 5, 0, &e, &err);
  CHECK(rc == EL_ETOOLONG && strstr(err.msg, "12") && strstr(err.msg, "5"),
        "too long without truncation -> EL_ETOOLONG naming 12 and 5 [%s]", err.msg);
  fake_tokens(&b, 4, 200);
  rc = el_encode(tk, &a, &b, 10, 0, &e, &err);
  CHECK(rc == EL_ETOOLONG && strstr(err.msg, "17") && strstr(err.msg, "10") && strstr(err.msg, "4"),
        "pair too long -> EL_ETOOLONG naming 17, 10 and 4 [%s]", err.msg);

  rc = el_encode(tk, &a, &b, 2, 1, &e, &err);
  CHECK(rc == EL_EINVAL, "max_len 2 cannot hold a pair's 3 specials");
  rc = el_encode(tk, &a, NULL, 1, 1, &e, &err);
  CHECK(rc == EL_EINVAL, "max_len 1 cannot hold [CLS] [SEP]");
  fake_tokens(&a, 0, 100);
  rc = el_encode(tk, &a, NULL, 2, 0, &e, &err);
  CHECK(rc == 0 && e.n == 2 && e.ids[0] == 2 && e.ids[1] == 3, "empty text -> [CLS] [SEP]");

  /* Real tokens through el_encode: offsets stay those of each segment. */
  el_tokenize(tk, "Hello, world!", 13, &a, &err);
  el_tokenize(tk, "unaffable", 9, &b, &err);
  rc = el_encode(tk, &a, &b, 7, 1, &e, &err);
  /* 4 + 3 + 3 = 10 > 7: cut 3 -> a 4->3 (1), tie -> b 3->2, a 3->2 */
  ok = rc == 0 && e.n == 7 && e.truncated == 3 && e.ids[1] == 8 && e.ids[2] == 11 && e.ids[3] == 3 &&
       e.ids[4] == 5 && e.ids[5] == 6 && e.ids[6] == 3 && e.start[4] == 0 && e.end[5] == 5 &&
       e.start[2] == 5 && e.word[2] == 1;
  CHECK(ok, "tokenized pair truncated: [CLS] hello , [SEP] un ##aff [SEP]");

  el_encoding_free(&e);
  el_encoding_free(&e); /* idempotent */
  el_tokens_free(&a);
  el_tokens_free(&b);
}

/* ---- NFC against utf8proc's own ----------------------------------------- */

static void test_nfc_vs_utf8proc(void) {
  static const int32_t alpha[] = {
      'a', 'e', 'i', 'o', 'A', 'I', 'K', '<', '=', ' ', 0xE9, 0xC5, 0x212B, 0x2126, 0x212A,
      0x301, 0x300, 0x302, 0x308, 0x323, 0x327, 0x307, 0x338, 0x345, 0x344, 0x340, 0x5B0,
      0x5B4, 0x591, 0x0F71, 0x0F72, 0x0F74, 0x0F73, 0x0958, 0x0915, 0x093C, 0x0B47, 0x0B3E,
      0x0B56, 0x0CD5, 0x0CC6, 0x0DD9, 0x0DCF, 0x1B05, 0x1B35, 0x1100, 0x1161, 0x11A8, 0xAC00,
      0xD55C, 0x2ADC, 0x1E9B, 0x1FBF, 0x1F00, 0x3B1, 0x399, 0x3099, 0x304B, 0x30AB, 0xF900,
      0x2F800, 0x1D15E, 0x1D165, 0x1D16E, 0x110A5, 0x1109A, 0x11131, 0x11127, 0x0CCA,
  };
  const int na = (int)(sizeof alpha / sizeof *alpha);
  uint64_t s = 12345;
  int bad = 0, total = 0;
  el__tchar in[40], *out = NULL;
  size_t cap = 0;
  for (int it = 0; it < 3000; it++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    int n = 1 + (int)((s >> 33) % 30);
    char utf8[40 * 4 + 1];
    size_t ul = 0;
    for (int i = 0; i < n; i++) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      int32_t c = alpha[(s >> 33) % (uint64_t)na];
      el__tchar x = {c, i, i + 1, 0};
      in[i] = x;
      ul += (size_t)utf8proc_encode_char(c, (utf8proc_uint8_t *)utf8 + ul);
    }
    utf8[ul] = '\0';
    ptrdiff_t m = el__nfc(in, (size_t)n, &out, &cap);
    utf8proc_uint8_t *ref = utf8proc_NFC((const utf8proc_uint8_t *)utf8);
    char mine[40 * 16 + 1];
    size_t ml = 0;
    for (ptrdiff_t i = 0; i < m; i++) ml += (size_t)utf8proc_encode_char(out[i].cp, (utf8proc_uint8_t *)mine + ml);
    mine[ml] = '\0';
    /* spans: every output character covers a non-empty span inside the input */
    int spans_ok = 1;
    for (ptrdiff_t i = 0; i < m; i++) spans_ok &= out[i].s >= 0 && out[i].s < out[i].e && out[i].e <= n;
    total++;
    if (!ref || strcmp((const char *)ref, mine) != 0 || !spans_ok) bad++;
    free(ref);
  }
  free(out);
  CHECK(bad == 0, "NFC with span tracking equals utf8proc_NFC on %d random strings (%d differ)", total, bad);
}

/* ---- large input, threads ----------------------------------------------- */

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void test_megabyte(const el_tokenizer *tk) {
  const char *unit = "Hello, world! unaffable abc "; /* 8 pieces, 28 code points */
  const size_t ul = strlen(unit), reps = (1u << 20) / ul + 1;
  char *big = malloc(ul * reps);
  for (size_t i = 0; i < reps; i++) memcpy(big + i * ul, unit, ul);
  el_tokens t = {0};
  el_error err = {0};
  double t0 = now_s();
  int rc = el_tokenize(tk, big, ul * reps, &t, &err);
  double dt = now_s() - t0;
  int last = (int)((reps - 1) * ul);
  CHECK(rc == 0 && (size_t)t.n == 8 * reps && (size_t)t.n_words == 6 * reps &&
            t.tok[t.n - 1].id == 25 && t.tok[t.n - 1].start == last + 24 && t.tok[t.n - 1].end == last + 27,
        "1 MB text: %zu bytes -> %d pieces (want %zu) in %.0f ms", ul * reps, t.n, 8 * reps, dt * 1e3);

  /* A 1 MB run of combining marks after one letter (hostile for canonical
   * reordering: alternating classes 230 and 220) must also finish. NFC
   * composes a + the first U+0323 (code point 2) into U+1EA1, nothing else
   * composes, and the lower-casing NFD strips every mark: a[0,3). */
  size_t nm = (ul * reps - 1) / 4;
  big[0] = 'a';
  for (size_t i = 0; i < nm; i++) memcpy(big + 1 + 4 * i, "\xcc\x81\xcc\xa3", 4);
  t0 = now_s();
  rc = el_tokenize(tk, big, 1 + 4 * nm, &t, &err);
  dt = now_s() - t0;
  CHECK(rc == 0 && t.n == 1 && t.tok[0].id == 22 && t.tok[0].start == 0 && t.tok[0].end == 3 &&
            t.n_codepoints == 1 + 2 * (int)nm,
        "1 MB of combining marks on one letter -> a[0,3) in %.0f ms", dt * 1e3);
  memset(big, 'b', ul * reps);
  rc = el_tokenize(tk, big, ul * reps, &t, &err);
  CHECK(rc == 0 && t.n == 1 && t.tok[0].id == 1 && t.tok[0].end == (int)(ul * reps),
        "1 MB single word -> one [UNK] spanning it");
  free(big);

  /* Long texts are processed in chunks: a long repetition of a unit full of
   * cross-character rules (NFC, control removal, specials, CJK, CR LF) must
   * equal the unit's own tokens shifted by its length each time. The unit is
   * 6 + 6 + 1 + 1 + 2 + 1 + 6 + 2 = 25 code points (30 bytes) and gives
   * naive [MASK] x 中 文 hello. */
  const char *u2 = "Nai\xcc\x88ve[MASK]x \xe4\xb8\xad\xe6\x96\x87 hel\001lo\r\n";
  const size_t l2 = strlen(u2), r2 = 3000;
  el_tokens one = {0};
  rc = el_tokenize(tk, u2, l2, &one, &err);
  CHECK(rc == 0 && one.n_codepoints == 25 && one.n == 6 && one.n_words == 6, "chunking unit: 6 pieces over 25 code points");
  char *rep = malloc(l2 * r2 + 8);
  for (size_t i = 0; i < r2; i++) memcpy(rep + i * l2, u2, l2);
  rc = el_tokenize(tk, rep, l2 * r2, &t, &err);
  int ok = rc == 0 && (size_t)t.n == r2 * (size_t)one.n && (size_t)t.n_words == r2 * (size_t)one.n_words;
  for (int i = 0; ok && i < t.n; i++) {
    const el_token *a = &t.tok[i], *b = &one.tok[i % one.n];
    int shift = (i / one.n) * 25, wshift = (i / one.n) * one.n_words;
    ok = a->id == b->id && a->start == b->start + shift && a->end == b->end + shift &&
         a->word == b->word + wshift;
  }
  CHECK(ok, "%zu-byte text (several chunks) = repeated unit tokens, shifted", l2 * r2);
  /* Invalid UTF-8 far past the first chunk: the byte offset is absolute. */
  rep[l2 * 1000 + 3] = (char)0xC0;
  rc = el_tokenize(tk, rep, l2 * r2, &t, &err);
  char want[48];
  snprintf(want, sizeof want, "byte %zu", l2 * 1000 + 3);
  CHECK(rc == EL_EINVAL && strstr(err.msg, want) && t.n == 0, "invalid UTF-8 at byte %zu of a long text [%s]",
        l2 * 1000 + 3, err.msg);
  free(rep);
  el_tokens_free(&one);
  el_tokens_free(&t);
}

typedef struct thread_job {
  const el_tokenizer *tk;
  const golden *g;
  int n;
  char *out; /* concatenated renders */
  size_t cap;
} thread_job;

static void *thread_main(void *p) {
  thread_job *j = p;
  el_tokens t = {0};
  char buf[4096];
  for (int rep = 0; rep < 50; rep++) {
    size_t w = 0;
    for (int i = 0; i < j->n; i++) {
      size_t len = j->g[i].len < 0 ? strlen(j->g[i].text) : (size_t)j->g[i].len;
      render(j->tk, j->g[i].text, len, buf, sizeof buf, &t);
      w += (size_t)snprintf(j->out + w, j->cap - w, "%s\n", buf);
    }
  }
  el_tokens_free(&t);
  return NULL;
}

static void test_threads(const el_tokenizer *tk) {
  const int n = (int)(sizeof k_uncased / sizeof *k_uncased);
  thread_job jobs[5];
  pthread_t th[4];
  for (int i = 0; i < 5; i++) {
    jobs[i].tk = tk, jobs[i].g = k_uncased, jobs[i].n = n, jobs[i].cap = 1 << 16;
    jobs[i].out = calloc(1, jobs[i].cap);
  }
  thread_main(&jobs[4]); /* single-threaded reference */
  for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, thread_main, &jobs[i]);
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  int same = 1;
  for (int i = 0; i < 4; i++) same &= strcmp(jobs[i].out, jobs[4].out) == 0;
  CHECK(same && strlen(jobs[4].out) > 100, "4 threads sharing one tokenizer give identical results");
  for (int i = 0; i < 5; i++) free(jobs[i].out);
}

/* ---- the real bert-base-uncased vocabulary ------------------------------ */

static void test_real_vocab(void) {
  const char *path = "/work/shared/data/vocab/bert-base-uncased-vocab.txt";
  if (access(path, R_OK) != 0) {
    SKIP("bert-base-uncased vocab not found at %s", path);
    return;
  }
  el_tokenizer *tk = NULL;
  el_error err = {0};
  int rc = el_tokenizer_load(path, 1, &tk, &err);
  CHECK(rc == 0 && el_tokenizer_vocab_size(tk) == 30522, "bert-base-uncased loads: 30522 entries");
  if (rc) return;
  CHECK(el_tokenizer_special_id(tk, EL_TOK_PAD) == 0 && el_tokenizer_special_id(tk, EL_TOK_UNK) == 100 &&
            el_tokenizer_special_id(tk, EL_TOK_CLS) == 101 && el_tokenizer_special_id(tk, EL_TOK_SEP) == 102 &&
            el_tokenizer_special_id(tk, EL_TOK_MASK) == 103,
        "bert-base-uncased special ids 0 100 101 102 103");
  static const golden real[] = {
      {"Hello, world!", "Hello, world!", -1, "hello[0,5) ,[5,6) world[7,12) ![12,13)"},
      /* this vocabulary has "una" but no "##aff": greedy gives una ##ffa ##ble */
      {"unaffable", "unaffable", -1, "una[0,3) ##ffa[3,6) ##ble[6,9)"},
      {"The quick brown fox jumps", "The quick brown fox jumps", -1,
       "the[0,3) quick[4,9) brown[10,15) fox[16,19) jumps[20,25)"},
      {"Naïve Café", "Na\xc3\xafve Caf\xc3\xa9", -1, "naive[0,5) cafe[6,10)"},
      {"İstanbul", "\xc4\xb0stanbul", -1, "istanbul[0,8)"},
      {"中文", "\xe4\xb8\xad\xe6\x96\x87", -1, "\xe4\xb8\xad[0,1) \xe6\x96\x87[1,2)"},
      {"straße", "stra\xc3\x9f" "e", -1, "st[0,2) ##ra\xc3\x9f" "e[2,6)"},
  };
  run_goldens(tk, real, (int)(sizeof real / sizeof *real), "bert-base-uncased");
  el_tokens t = {0};
  el_encoding e = {0};
  el_tokenize(tk, "Hello, world!", 13, &t, &err);
  rc = el_encode(tk, &t, NULL, 512, 0, &e, &err);
  static const int want[] = {101, 7592, 1010, 2088, 999, 102};
  int ok = rc == 0 && e.n == 6;
  for (int i = 0; ok && i < 6; i++) ok = e.ids[i] == want[i];
  CHECK(ok, "encode Hello, world! -> 101 7592 1010 2088 999 102");

  /* A megabyte of English prose: offsets stay ordered and inside the text. */
  const char *prose = "/work/shared/data/corpus/gutenberg-british-novels/Dickens_Bleak.txt";
  FILE *f = fopen(prose, "rb");
  if (!f) {
    SKIP("corpus file %s not found", prose);
  } else {
    char *b = malloc(1 << 20);
    size_t n = fread(b, 1, 1 << 20, f);
    fclose(f);
    while (n && ((unsigned char)b[n - 1] & 0xC0) == 0x80) n--; /* whole characters only */
    if (n && (unsigned char)b[n - 1] >= 0xC0) n--;
    double t0 = now_s();
    rc = el_tokenize(tk, b, n, &t, &err);
    double dt = now_s() - t0;
    ok = rc == 0 && t.n > (int)(n / 8) && t.n < (int)(n / 3);
    for (int i = 0; ok && i < t.n; i++)
      ok = t.tok[i].start >= 0 && t.tok[i].start < t.tok[i].end && t.tok[i].end <= t.n_codepoints &&
           (i == 0 || t.tok[i].start >= t.tok[i - 1].start) && t.tok[i].word < t.n_words &&
           t.tok[i].start >= t.word_start[t.tok[i].word] && t.tok[i].end <= t.word_end[t.tok[i].word];
    CHECK(ok, "1 MB of prose: %d pieces, %d words, offsets ordered and inside words (%.0f ms, %.2f M pieces/s)",
          t.n, t.n_words, dt * 1e3, t.n / dt / 1e6);
    free(b);
  }
  el_encoding_free(&e);
  el_tokens_free(&t);
  el_tokenizer_free(tk);
}

int main(void) {
  if (!mkdtemp(g_dir) || write_toy_vocab()) {
    printf("not ok - cannot create a temporary vocabulary under /tmp\n");
    return 1;
  }
  el_tokenizer *uncased = NULL, *cased = NULL;
  el_error err = {0};
  int rc = el_tokenizer_load(g_vocab, 1, &uncased, &err);
  CHECK(rc == 0 && el_tokenizer_vocab_size(uncased) == N_VOCAB, "toy vocab loads (%s)", rc ? err.msg : "ok");
  rc |= el_tokenizer_load(g_vocab, 0, &cased, &err);
  if (rc) return el_test_done();
  CHECK(el_tokenizer_id(uncased, "##aff") == 6 && el_tokenizer_id(uncased, "caf\xc3\xa9") == 28 &&
            el_tokenizer_id(uncased, "nope") == -1 && strcmp(el_tokenizer_token(uncased, 45), "\xe1\xba\xad") == 0,
        "vocabulary lookups by hand-counted id");

  run_goldens(uncased, k_uncased, (int)(sizeof k_uncased / sizeof *k_uncased), "uncased");
  run_goldens(cased, k_cased, (int)(sizeof k_cased / sizeof *k_cased), "cased");
  test_words(uncased);
  test_invalid_utf8(uncased);
  test_utf8_offsets(uncased);
  test_vocab_load();
  test_encode(uncased);
  test_nfc_vs_utf8proc();
  test_megabyte(uncased);
  test_threads(uncased);
  test_real_vocab();

  el_tokenizer_free(uncased);
  el_tokenizer_free(cased);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  if (system(cmd) != 0) printf("# could not remove %s\n", g_dir);
  return el_test_done();
}
