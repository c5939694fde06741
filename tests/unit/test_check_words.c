/* A writer's words over WordPiece pieces (check/words.h): contractions,
 * possessives and hyphenated words stay one word, punctuation stands alone,
 * FCE's split "do n't" stays two, byte offsets count UTF-8 bytes, and each
 * word names its pieces. A small vocabulary written here. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "../test.h"
#include "test_files.h"
#include "words.h"

static el_tokenizer *T;
static el_tokens TK;
static el__text_words W;

/* Checks that text splits into the words of want, "|"-separated. */
static void expect(const char *text, const char *want) {
  el_error err = {0};
  size_t len = strlen(text);
  int rc = el_tokenize(T, text, len, &TK, &err);
  if (!rc) rc = el__text_words_group(text, len, &TK, &W, &err);
  char got[512] = "";
  for (int i = 0; !rc && i < W.n; i++) {
    if (i) strcat(got, "|");
    strncat(got, text + W.w[i].start, W.w[i].end - W.w[i].start);
  }
  CHECK(!rc && !strcmp(got, want), "\"%s\" -> %s (got %s%s)", text, want, got, rc ? err.msg : "");
}

/* Words of text, "|"-separated, with what they are: t technical, a acronym. */
static void marks(const char *text, const char *want) {
  el_error err = {0};
  el_tokenize(T, text, strlen(text), &TK, &err);
  el__text_words_group(text, strlen(text), &TK, &W, &err);
  el__text_words_mark_acronyms(text, &W, 0, W.n);
  char got[256] = "";
  for (int i = 0; i < W.n; i++)
    strcat(got, W.w[i].technical ? "t" : W.w[i].acronym ? "a" : "-");
  CHECK(!strcmp(got, want), "\"%s\": %s (got %s)", text, want, got);
}

static void test_technical(void) {
  marks("ElectraForPreTraining in BF16 on x86 or v2, the 2nd and 1990s, 5pm, 4GB", "t-t-t-t---------");
  marks("the FCE data, GPUs and the BBC's news", "-a--a--a-");
  marks("I WENT TO THE SHOP", "-----"); /* a sentence in capitals: its words are words */
  marks("FCE GED", "aa");                /* a fragment of acronyms */
  marks("we watch the BBC and ITV news", "---a-a-");
  marks("see docs/GED.md", "-t");
}

static void test_pieces(void) {
  const char *text = "He don't like";
  el_error err = {0};
  el_tokenize(T, text, strlen(text), &TK, &err);
  el__text_words_group(text, strlen(text), &TK, &W, &err);
  CHECK(W.n == 3 && W.w[1].piece == 1 && W.w[1].n_pieces == 3 && W.w[2].piece == 4 &&
            W.w[2].n_pieces == 1,
        "don't is pieces 1..3 (don ' t), like is piece 4");
  CHECK(W.w[1].cp_start == 3 && W.w[1].cp_end == 8, "don't spans code points 3..8");
}

static void test_utf8(void) {
  const char *text = "caf\xc3\xa9 \xe2\x80\x9cgo\xe2\x80\x9d"; /* café “go” */
  el_error err = {0};
  el_tokenize(T, text, strlen(text), &TK, &err);
  el__text_words_group(text, strlen(text), &TK, &W, &err);
  CHECK(W.n == 4 && W.w[0].end == 5 && W.w[1].start == 6 && W.w[1].end == 9 &&
            W.w[2].start == 9 && W.w[2].end == 11 && W.w[2].cp_start == 6,
        "UTF-8: cafe | curly quote | go | curly quote with byte offsets (n %d)", W.n);
}

int main(void) {
  char dir[] = "/tmp/el_test_words_XXXXXX";
  if (!mkdtemp(dir)) return 1;
  const char *vocab = el_test_put(
      dir, "vocab.txt",
      "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhe\ndon\n'\nt\nlike\napples\n.\ndo\nn\nit\ns\n"
      "student\n##s\nwell\n-\nknown\n3\n5\n,\n000\n1\n\"\ncafe\ngo\n\xe2\x80\x9c\n\xe2\x80\x9d\n"
      "hello\n!\n?\n(\n)\n\xe2\x80\x99\n");
  el_error err = {0};
  int rc = el_tokenizer_load(vocab, 1, &T, &err);
  CHECK(rc == 0, "vocabulary loads: %s", rc ? err.msg : "ok");
  if (rc) return el_test_done();
  expect("He don't like apples.", "He|don't|like|apples|.");
  expect("He do n't like apples .", "He|do|n't|like|apples|.");
  /* FCE's clitics written apart are words of their own, as "n't" is */
  expect("I 've seen John 's car , I 'm sure .", "I|'ve|seen|John|'s|car|,|I|'m|sure|.");
  expect("we 'll go", "we|'ll|go");
  expect("' tis", "'|tis");        /* a quote, then a word: not a clitic */
  expect("'til then", "'|til|then"); /* not one of the clitics */
  expect("'ve,", "'ve|,");
  expect("it's", "it's");
  expect("it\xe2\x80\x99s", "it\xe2\x80\x99s"); /* curly apostrophe */
  expect("students' apples", "students'|apples");
  expect("'hello'", "'|hello|'");
  expect("well-known", "well-known");
  expect("well - known", "well|-|known");
  expect("hello-", "hello|-");
  expect("3.5 1,000", "3.5|1,000");
  expect("hello, (hello)!?", "hello|,|(|hello|)|!|?");
  expect("\"hello\"", "\"|hello|\"");
  expect("  ", "");
  /* technical tokens are one word each, the brackets, quotes and
   * sentence punctuation around them apart */
  expect("see docs/GED.md, (config.json) and `model.safetensors`.",
         "see|docs/GED.md|,|(|config.json|)|and|`|model.safetensors|`|.");
  expect("at https://example.org/a?b=1, then", "at|https://example.org/a?b=1|,|then");
  expect("use --threads 2 or -h", "use|--threads|2|or|-h");
  expect("a snake_case name@example.org", "a|snake_case|name@example.org");
  expect("e.g. this", "e.g|.|this");
  expect("3.5 U.S. and/or C++", "3.5|U|.|S|.|and/or|C++");
  expect("well-known don't", "well-known|don't");
  test_technical();
  test_pieces();
  test_utf8();
  el__text_words_free(&W);
  el_tokens_free(&TK);
  el_tokenizer_free(T);
  unlink(vocab);
  rmdir(dir);
  return el_test_done();
}
