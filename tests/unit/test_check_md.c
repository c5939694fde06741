/* Markdown as annotated text (check/md_doc.h): the prose a reader reads is
 * what is checked, everything else is markup, the document is the file byte
 * for byte, offsets map back into it, and block ends end sentences. No
 * model. */
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "md_doc.h"

static el__lt_doc D;

static int read_md(const char *md) {
  el__lt_doc_free(&D);
  int rc = el__lt_doc_from_markdown(md, strlen(md), &D);
  CHECK(rc == 0, "parses: %.40s", md);
  if (rc) return 0;
  size_t doc = 0, plain = 0;
  for (int i = 0; i < D.n_pieces; i++) doc += D.pieces[i].doc_len, plain += D.pieces[i].plain_len;
  CHECK(D.doc_len == strlen(md) && !memcmp(D.doc, md, D.doc_len) && doc == D.doc_len &&
            plain == D.plain_len,
        "the document is the file, its pieces cover it and the checked text");
  return 1;
}

/* The checked text of md is want. */
static void plain(const char *md, const char *want) {
  if (read_md(md)) CHECK(!strcmp(D.plain, want), "\"%s\" reads as \"%s\" (got \"%s\")", md, want, D.plain);
}

static void test_blocks(void) {
  const char *md =
      "---\ntitle: x\n---\n"
      "# The title\n\n"
      "Run `make test` to [check](docs/X.md \"t\") it.\n"
      "- first item\n"
      "- [ ] second *item*\n\n"
      "```sh\ncode here\n```\n\n"
      "    indented code\n\n"
      "<!-- a\ncomment -->\n"
      "> quoted text\n\n"
      "| a | b |\n|---|:-:|\n| c | d |\n";
  if (!read_md(md)) return;
  static const char *const PROSE[] = {"The title", "Run Code to check it.", "first item", "second item",
                                      "quoted text", " a ", " d "};
  static const char *const MARKUP[] = {"title:", "#", "`", "docs/X.md", "code here", "indented", "comment",
                                       "---", "*", "[", ">", "|"};
  for (size_t i = 0; i < sizeof PROSE / sizeof *PROSE; i++)
    CHECK(strstr(D.plain, PROSE[i]) != NULL, "prose kept: \"%s\"", PROSE[i]);
  for (size_t i = 0; i < sizeof MARKUP / sizeof *MARKUP; i++)
    CHECK(strstr(D.plain, MARKUP[i]) == NULL, "markup not checked: \"%s\"", MARKUP[i]);
  /* block ends are blank lines in the checked text: the checker's sentence ends */
  CHECK(strstr(D.plain, "The title\n\n") && strstr(D.plain, "it.\n\nfirst item\n\nsecond item") &&
            strstr(D.plain, " a \n\n b "),
        "a heading, a line before a list item, a table cell end their sentence: %s", D.plain);
}

static void test_mapping(void) {
  const char *md = "Run `make test` to [check](docs/X.md) it.";
  if (!read_md(md)) return;
  const char *check = strstr(D.plain, "check"), *code = strstr(D.plain, "Code");
  size_t at = (size_t)(check - D.plain), c = (size_t)(code - D.plain);
  CHECK(el__lt_doc_map(&D, at, 0) == (size_t)(strstr(md, "check") - md) &&
            el__lt_doc_map(&D, at + 5, 1) == (size_t)(strstr(md, "check") - md) + 5,
        "a word of a link's text maps to itself in the file");
  CHECK(el__lt_doc_map(&D, c, 0) == 4 && el__lt_doc_map(&D, c + 4, 1) == 15,
        "the word code reads as maps to the whole code span");
  CHECK(el__lt_doc_in_markup(&D, c, 4) && el__lt_doc_in_markup(&D, c + 1, 0) &&
            !el__lt_doc_in_markup(&D, at, 5) && !el__lt_doc_in_markup(&D, c, 0) &&
            !el__lt_doc_in_markup(&D, c, 6),
        "in markup: the code's word and a point inside it; not prose, not a point before it, "
        "not a span reaching out of it");
}

static void test_inline(void) {
  plain("a `b\nc` d", "a Code d");                       /* a code span across a line break */
  plain("[two\nwords](u) here", "two\nwords here");       /* a link's text across one */
  plain("1\\*2 and \\_x\\_", "1*2 and _x_");             /* escapes */
  plain("a snake_case word", "a snake_case word");        /* '_' inside a word */
  plain("an _emphasised_ **bold** ~~gone~~ word", "an emphasised bold gone word");
  plain("2 * 3 * 4", "2 * 3 * 4");                        /* no emphasis between spaces */
  plain("word[id] and [H, H]", "word[id] and [H, H]");    /* a bracket alone is prose */
  plain("see <https://x.org> or <br/>next", "see Code or next");
  plain("an ![image](i.png) here", "an Code here");
  plain("a note[^1] here", "a note here");
  plain("[ref][1] text", "ref text");
  plain("a `stray backtick", "a `stray backtick");
  plain("", "");
}

static void test_lists_and_code(void) {
  /* a list item's indented continuation is prose, not code */
  plain("- item\n    more\n", "item\n    more\n");
  /* indented code after a blank line: a break */
  plain("para\n\n    code\n", "para\n\n\n\n");
  /* an unclosed fence runs to the end */
  plain("a\n```\nb\n", "a\n\n\n\n"); /* the line before the block ends, the block is a break */
  plain("1. one\n2) two\n", "one\n\ntwo\n");
}

static void test_names(void) {
  CHECK(el__is_markdown_name("README.md") && el__is_markdown_name("a/B.MARKDOWN") &&
            !el__is_markdown_name("notes.txt") && !el__is_markdown_name(".md") && !el__is_markdown_name("-"),
        "Markdown by extension");
}

int main(void) {
  test_blocks();
  test_mapping();
  test_inline();
  test_lists_and_code();
  test_names();
  el__lt_doc_free(&D);
  return el_test_done();
}
