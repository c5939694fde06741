/* The M2 scorer (train/report/m2*.h) on hand-made M2 snippets: reading
 * (annotator 0 only, noop and "-NONE-" deletions, CRLF, malformed lines
 * named by file:line), edits reduced to minimal form (shared words dropped
 * at either end: an insertion, a deletion, a multi-token rewrite), byte
 * offsets of a checker's match turned into token edits, exact-match P/R/F0.5
 * with recall per ERRANT family and per operation and precision per proposed
 * type, and the hunspell baseline (SKIP without Debian's dictionaries). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "m2.h"
#include "m2_score.h"
#include "m2_spell.h"

static const char M2[] =
    "S She go to school .\n"
    "A 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0\n"
    "A 3 3|||M:DET|||the|||REQUIRED|||-NONE-|||0\n"
    "A 0 1|||R:PRON|||He|||REQUIRED|||-NONE-|||1\n"
    "\n"
    "S I recieved it it yesterday\r\n"
    "A 1 2|||R:SPELL|||received|||REQUIRED|||-NONE-|||0\r\n"
    "A 2 3|||U:PRON||||||REQUIRED|||-NONE-|||0\r\n"
    "A 5 5|||M:PUNCT|||.|||REQUIRED|||-NONE-|||0\r\n"
    "\r\n"
    "S All is fine .\n"
    "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n"
    "\n"
    "S He make a big mistakes .\n"
    "A 1 5|||R:OTHER|||made big mistakes|||REQUIRED|||-NONE-|||0\n"
    "A 0 1|||UNK|||He|||REQUIRED|||-NONE-|||0\n"
    "A 2 3|||U:DET|||-NONE-|||REQUIRED|||-NONE-|||0\n";

static el__m2 M;

static int has(const el__m2_edits *es, int start, int end, const char *repl) {
  for (int i = 0; i < es->n; i++)
    if (es->e[i].start == start && es->e[i].end == end && !strcmp(es->e[i].repl, repl)) return 1;
  return 0;
}

static void test_read(void) {
  el_error err = {0};
  int rc = el__m2_parse(M2, sizeof M2 - 1, "t.m2", &M, &err);
  CHECK(rc == 0 && M.n == 4, "4 sentences read (%d: %s)", M.n, rc ? err.msg : "ok");
  if (rc || M.n != 4) return;
  CHECK(!strcmp(M.s[0].text, "She go to school .") && M.s[0].n_tok == 5, "tokens joined by spaces");
  CHECK(M.s[0].gold.n == 2, "annotator 1's edit left out (%d gold)", M.s[0].gold.n);
  CHECK(M.s[0].off[3] == 10 && M.s[0].tlen[3] == 6, "token offsets (school at 10, 6 bytes)");
  CHECK(!strcmp(M.s[1].text, "I recieved it it yesterday"), "CRLF stripped");
  CHECK(M.s[1].gold.n == 3 && !strcmp(M.s[1].gold.e[1].repl, "") &&
            !strcmp(M.s[1].gold.e[1].type, "U:PRON"), "an empty correction is a deletion");
  CHECK(M.s[2].gold.n == 0, "noop is no edit");
  CHECK(M.s[3].gold.n == 3 && !strcmp(M.s[3].gold.e[2].repl, ""), "-NONE- as a correction deletes");
}

/* el__m2_parse on text fails with a message containing want. */
static void refused(const char *text, const char *want) {
  el__m2 m;
  el_error err = {0};
  int rc = el__m2_parse(text, strlen(text), "bad.m2", &m, &err);
  CHECK(rc == EL_EFORMAT && strstr(err.msg, want), "refused: %s (%s)", want, err.msg);
  el__m2_free(&m);
}

static void test_malformed(void) {
  refused("A 0 1|||R:SPELL|||x|||REQUIRED|||-NONE-|||0\n", "bad.m2:1: an edit (A line) not under");
  refused("S a b\nA 1 3|||R:SPELL|||x|||REQUIRED|||-NONE-|||0\n", "bad.m2:2: edit span 1 3 outside");
  refused("S a b\nA 1 2|||R:SPELL|||x\n", "bad.m2:2: an edit line needs 6 fields");
  refused("S a b\nA x 2|||R:SPELL|||x|||REQUIRED|||-NONE-|||0\n", "bad.m2:2: an edit line starts");
  refused("S a b\n\nS c\nhello\n", "bad.m2:4: expected a sentence");
  refused("S a b\n\nA 0 1|||R:SPELL|||x|||REQUIRED|||-NONE-|||0\n", "bad.m2:3: an edit (A line) not under");
  el__m2 m;
  el_error err = {0};
  CHECK(el__m2_read("/nonexistent/x.m2", &m, &err) == EL_EIO && strstr(err.msg, "/nonexistent/x.m2"),
        "a missing file: EL_EIO naming it (%s)", err.msg);
}

static void test_minimal(void) {
  const el__m2_sent *s = &M.s[0]; /* She go to school . */
  el__m2_edits es = {0};
  el_error err = {0};
  el__m2_add_edit(s, 3, 4, "the school", "DET", &es, &err);
  CHECK(es.n == 1 && has(&es, 3, 3, "the"), "school -> the school: insert 'the' at 3");
  el__m2_add_edit(s, 1, 3, "goes  to", "VERB:SVA", &es, &err);
  CHECK(es.n == 2 && has(&es, 1, 2, "goes"), "go to -> goes to: 1 2 goes (shared end dropped)");
  el__m2_add_edit(s, 0, 2, "She goes", "VERB:SVA", &es, &err);
  CHECK(es.n == 2, "the same edit again is proposed once");
  el__m2_add_edit(s, 1, 2, "go", "OTHER", &es, &err);
  CHECK(es.n == 2, "a replacement by the same word is no edit");
  el__m2_add_edit(s, 2, 4, "school", "PREP", &es, &err);
  CHECK(es.n == 3 && has(&es, 2, 3, ""), "to school -> school: delete 'to' (2 3)");
  el__m2_add_edit(M.s + 3, 1, 5, "made big mistakes", "OTHER", &es, &err);
  CHECK(es.n == 4 && has(&es, 1, 3, "made"), "make a big mistakes -> made big mistakes: 1 3 made");
  int rc = el__m2_add_edit(s, 4, 6, "x", "OTHER", &es, &err);
  CHECK(rc == EL_EINVAL && es.n == 4, "a span past the sentence is refused (%s)", err.msg);
  el__m2_edits_free(&es);
}

static void test_bytes(void) {
  const el__m2_sent *s = &M.s[0]; /* She go to school . : She 0-3, go 4-6, to 7-9, school 10-16 */
  el__m2_edits es = {0};
  el_error err = {0};
  el__m2_add_byte_edit(s, 4, 2, "goes", "VERB:SVA", &es, &err);
  CHECK(has(&es, 1, 2, "goes"), "bytes 4..6 'go' -> goes: tokens 1 2");
  el__m2_add_byte_edit(s, 10, 0, "the ", "DET", &es, &err);
  CHECK(has(&es, 3, 3, "the"), "an insertion at school's first byte: before token 3");
  el__m2_add_byte_edit(s, 9, 0, ",", "PUNCT", &es, &err);
  CHECK(has(&es, 3, 3, ","), "an insertion at the end of 'to': a new token before 3");
  el__m2_add_byte_edit(s, 5, 0, "oe", "VERB:SVA", &es, &err);
  CHECK(es.n == 4 && has(&es, 1, 2, "goeo"), "an insertion inside 'go' rewrites the token: goeo");
  el__m2_add_byte_edit(s, 6, 4, " ", "PREP", &es, &err);
  CHECK(has(&es, 2, 3, ""), "bytes ' to' replaced by ' ': delete token 2");
  el__m2_add_byte_edit(s, 9, 1, "", "ORTH", &es, &err);
  CHECK(has(&es, 2, 4, "toschool"), "the space between to and school removed: 2 4 toschool");
  int rc = el__m2_add_byte_edit(s, 17, 2, "x", "OTHER", &es, &err);
  CHECK(rc == EL_EINVAL, "bytes past the text refused (%s)", err.msg);
  el__m2_edits_free(&es);
  /* a checker's match spans the words it keeps: only what changes is the edit */
  el__m2_add_byte_edit(s, 9, 7, ", school", "PUNCT", &es, &err);
  CHECK(es.n == 1 && has(&es, 3, 3, ","), "' school' -> ', school': ',' inserted before token 3");
  el__m2_add_byte_edit(s, 4, 5, "goes to", "VERB:SVA", &es, &err);
  CHECK(es.n == 2 && has(&es, 1, 2, "goes"), "'go to' -> 'goes to': 'go' -> 'goes' (1 2)");
  el__m2_edits_free(&es);
}

static void test_score(void) {
  el__m2_edits p[4] = {{0}};
  el_error err = {0};
  el__m2_add_edit(&M.s[0], 1, 2, "goes", "VERB:SVA", &p[0], &err);   /* right */
  el__m2_add_edit(&M.s[0], 3, 4, "a school", "DET", &p[0], &err);    /* wrong word */
  el__m2_add_edit(&M.s[1], 1, 2, "received", "SPELL", &p[1], &err);  /* right */
  el__m2_add_edit(&M.s[1], 2, 4, "it", "UNNECESSARY", &p[1], &err);  /* it it -> it: the 2nd deleted (3 4), gold deletes the 1st */
  el__m2_add_edit(&M.s[3], 0, 1, "He", "OTHER", &p[3], &err);        /* UNK: no edit at all */
  el__m2_add_edit(&M.s[3], 2, 3, "", "UNNECESSARY", &p[3], &err);    /* right (-NONE-) */
  el__m2_scores sc;
  int rc = el__m2_score(&M, p, &sc, &err);
  CHECK(rc == 0 && sc.gold == 7 && sc.unk == 1, "7 gold edits, UNK left out (%ld, %ld)", sc.gold, sc.unk);
  CHECK(sc.proposed == 5 && sc.matched == 3, "5 proposed, 3 matched (%ld, %ld)", sc.proposed, sc.matched);
  CHECK_NEAR(sc.p, 0.6, 1e-12, 0, "P = 3/5");
  CHECK_NEAR(sc.r, 3.0 / 7, 1e-12, 0, "R = 3/7");
  CHECK_NEAR(sc.f05, 1.25 * 0.6 * (3.0 / 7) / (0.25 * 0.6 + 3.0 / 7), 1e-12, 0, "F0.5");
  const el__m2_row *r = el__m2_row_find(&sc.by_type, "VERB:SVA");
  CHECK(r && r->total == 1 && r->matched == 1, "VERB:SVA family: 1 of 1");
  r = el__m2_row_find(&sc.by_type, "DET");
  CHECK(r && r->total == 2 && r->matched == 1, "M:DET and U:DET both count as DET: 1 of 2");
  CHECK(!el__m2_row_find(&sc.by_type, "UNK"), "no UNK row");
  r = el__m2_row_find(&sc.by_op, "MISSING");
  CHECK(r && r->total == 2 && r->matched == 0, "MISSING: 0 of 2");
  r = el__m2_row_find(&sc.by_op, "UNNECESSARY");
  CHECK(r && r->total == 2 && r->matched == 1, "UNNECESSARY: 1 of 2");
  r = el__m2_row_find(&sc.by_proposed_type, "UNNECESSARY");
  CHECK(r && r->total == 2 && r->matched == 1, "precision of our UNNECESSARY: 1 of 2");
  CHECK(sc.by_type.r[0].total >= sc.by_type.r[sc.by_type.n - 1].total, "rows largest first");
  cJSON *j = el__m2_scores_json(&sc);
  cJSON *spell = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "recall_by_type"), "SPELL");
  CHECK(j && cJSON_GetObjectItem(j, "f0.5") && spell &&
            cJSON_GetObjectItem(spell, "recall")->valuedouble == 1.0, "JSON: f0.5, SPELL recall 1");
  cJSON_Delete(j);
  el__m2_scores_free(&sc);
  for (int i = 0; i < 4; i++) el__m2_edits_free(&p[i]);
}

/* --edits: the proposals as an M2 file that reads back as the same edits. */
static void test_write(void) {
  el__m2_edits p[4] = {{0}};
  el_error err = {0};
  el__m2_add_edit(&M.s[0], 1, 2, "goes", "VERB:SVA", &p[0], &err);
  el__m2_add_edit(&M.s[0], 3, 3, "the", "MISSING", &p[0], &err);
  el__m2_add_edit(&M.s[1], 2, 3, "", "UNNECESSARY", &p[1], &err);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  int rc = f ? el__m2_write(f, &M, p) : -1;
  if (f) fclose(f);
  CHECK(rc == 0 && buf && strstr(buf, "S She go to school .\nA 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0\n"
                                      "A 3 3|||M:OTHER|||the|||"),
        "a replacement keeps its type, an insertion is M:OTHER: %s", buf ? buf : "");
  CHECK(buf && strstr(buf, "S All is fine .\nA -1 -1|||noop|||"), "no edit: a noop line");
  el__m2 back;
  rc = buf ? el__m2_parse(buf, len, "edits.m2", &back, &err) : -1;
  CHECK(rc == 0 && back.n == M.n && back.s[0].gold.n == 2 && back.s[1].gold.n == 1 &&
            has(&back.s[1].gold, 2, 3, "") && back.s[2].gold.n == 0 && back.s[3].gold.n == 0,
        "reads back as the same edits (%s)", rc ? err.msg : "ok");
  if (rc == 0) el__m2_free(&back);
  free(buf);
  for (int i = 0; i < 4; i++) el__m2_edits_free(&p[i]);
}

static void test_spell(void) {
  if (access("/usr/share/hunspell/en_GB.dic", R_OK) || access("/usr/share/hunspell/en_US.dic", R_OK)) {
    SKIP("no /usr/share/hunspell/en_GB.dic or en_US.dic (Debian hunspell-en-gb, hunspell-en-us)");
    return;
  }
  el__dict *d = NULL;
  el_error err = {0};
  el__m2 m;
  static const char T[] = "S Becouse Ngozi recieved it . Becouse we do n't\n\n";
  if (el__dict_load(NULL, &d, &err) || el__m2_parse(T, sizeof T - 1, "s.m2", &m, &err)) {
    CHECK(0, "setup: %s", err.msg);
    return;
  }
  el__m2_edits es = {0};
  int rc = el__m2_spell_propose(d, EL__DICT_EN, &m.s[0], &es, &err);
  CHECK(rc == 0 && has(&es, 0, 1, "Because") && has(&es, 2, 3, "received"),
        "misspellings replaced by the first suggestion (%d edits)", es.n);
  CHECK(has(&es, 5, 6, "Because"), "a capitalised word after '.' is sentence-initial");
  CHECK(es.n == 3 && !strcmp(es.e[0].type, EL__M2_SPELL_TYPE),
        "the name and n't left alone: 3 edits, typed SPELL (%d)", es.n);
  el__m2_edits_free(&es);
  el__m2_free(&m);
  el__dict_free(d);
}

int main(void) {
  test_read();
  if (M.n == 4) {
    test_minimal();
    test_bytes();
    test_score();
    test_write();
  }
  test_malformed();
  test_spell();
  el__m2_free(&M);
  return el_test_done();
}
