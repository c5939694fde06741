/* /score's words with suggestions (server/srv_score.c), on hand-made words,
 * encodings and matches, so every case is exact without a model: a
 * replacement inside the word, an insertion before it spliced in, a match
 * reaching past the word (type, no suggestion), a flagged word with no match
 * (empty, null), words not flagged (no keys), pieces cut by truncation, and a
 * failed check (500). */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "srv_score.h"
#include "../test.h"

static const char TEXT[] = "She go to apple. Always he runs.";

/* One piece per word: [start, end) bytes (= code points: ASCII). */
static void add_word(el__score_text *st, size_t start, size_t end) {
  el__word *w = &st->words.w[st->words.n];
  w->start = start, w->end = end;
  w->cp_start = (int)start, w->cp_end = (int)end;
  w->piece = st->words.n++;
  w->n_pieces = 1;
}

static void add_match(el__score_text *st, size_t off, size_t len, int type, const char *r0,
                      const char *r1) {
  el__match *m = &st->matches.m[st->matches.n++];
  memset(m, 0, sizeof *m);
  m->offset = off, m->length = len, m->type = type;
  if (r0) m->repl[m->n_repl++] = strdup(r0);
  if (r1) m->repl[m->n_repl++] = strdup(r1);
}

/* Renders st's words through an encoding [CLS] pieces [SEP] of which `kept`
 * pieces survive truncation; every word's P(error) is probs[i]. */
static cJSON *render(const el__score_text *st, const float *probs, int kept, el__http_err *e) {
  int n = kept + 2;
  int seg[16];
  float prob[16] = {0};
  for (int k = 0; k < n; k++) seg[k] = k == 0 || k == n - 1 ? -1 : 0;
  for (int i = 0; i < kept; i++) prob[1 + i] = probs[i];
  el_encoding en = {.n = n, .segment = seg};
  el__score_view v = {.enc = &en, .prob = prob, .rule = EL_SCORE_MAX, .threshold = 0.5};
  el__sb b = {0};
  el__fail f = {0};
  el__sb_puts(&b, "[");
  *e = el__score_text_render(&b, st, &v, &f);
  el__sb_puts(&b, "]");
  cJSON *j = *e ? NULL : cJSON_ParseWithLength(b.data, b.len);
  el__sb_free(&b);
  return j;
}

static const char *str_at(const cJSON *a, int i) {
  const cJSON *s = cJSON_GetArrayItem(a, i);
  return cJSON_IsString(s) ? s->valuestring : "";
}

static void check_words(const cJSON *j) {
  const cJSON *go = cJSON_GetArrayItem(j, 1), *apple = cJSON_GetArrayItem(j, 3);
  const cJSON *always = cJSON_GetArrayItem(j, 5), *runs = cJSON_GetArrayItem(j, 7);
  const cJSON *she = cJSON_GetArrayItem(j, 0);
  const cJSON *s = cJSON_GetObjectItem(go, "suggestions");
  CHECK(cJSON_GetArraySize(s) == 2 && !strcmp(str_at(s, 0), "goes") &&
            !strcmp(str_at(s, 1), "went") &&
            !strcmp(cJSON_GetObjectItem(go, "type")->valuestring, "VERB:SVA"),
        "a replacement of the word: its strings, best first, and its type");
  s = cJSON_GetObjectItem(apple, "suggestions");
  CHECK(cJSON_GetArraySize(s) == 1 && !strcmp(str_at(s, 0), "an apple") &&
            !strcmp(cJSON_GetObjectItem(apple, "type")->valuestring, "MISSING"),
        "an insertion before the word is spliced into it: an apple");
  s = cJSON_GetObjectItem(always, "suggestions");
  CHECK(cJSON_GetArraySize(s) == 0 &&
            !strcmp(cJSON_GetObjectItem(always, "type")->valuestring, "WO"),
        "a match reaching past the word: its type, no suggestion");
  CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(runs, "suggestions")) == 0 &&
            cJSON_IsNull(cJSON_GetObjectItem(runs, "type")),
        "a flagged word the checker found nothing on: [] and null");
  CHECK(!cJSON_GetObjectItem(she, "suggestions") && !cJSON_GetObjectItem(she, "type") &&
            cJSON_IsFalse(cJSON_GetObjectItem(she, "flagged")),
        "a word not flagged carries neither");
  CHECK(!strcmp(cJSON_GetObjectItem(apple, "word")->valuestring, "apple") &&
            cJSON_GetObjectItem(apple, "start")->valueint == 10 &&
            cJSON_GetObjectItem(apple, "end")->valueint == 15,
        "word, start and end are the word's");
}

int main(void) {
  el__score_text st = {0};
  st.text = TEXT, st.len = strlen(TEXT);
  st.words.w = calloc(8, sizeof *st.words.w);
  st.words.cap = 8;
  st.matches.m = calloc(4, sizeof *st.matches.m);
  st.matches.cap = 4;
  static const size_t SPANS[8][2] = {{0, 3}, {4, 6}, {7, 9}, {10, 15}, {15, 16},
                                     {17, 23}, {24, 26}, {27, 31}};
  for (int i = 0; i < 8; i++) add_word(&st, SPANS[i][0], SPANS[i][1]);
  add_match(&st, 4, 2, EL__ET_VERB_SVA, "goes", "went");
  add_match(&st, 10, 0, EL__ET_MISSING, "an ", NULL);
  add_match(&st, 17, 9, EL__ET_WO, "he always", NULL);
  /* render reads checker only as "suggestions were asked for"; it never calls it */
  st.checker = (el__checker *)&st;
  const float probs[8] = {0.1f, 0.9f, 0.2f, 0.8f, 0.1f, 0.7f, 0.3f, 0.6f};
  el__http_err e;
  cJSON *j = render(&st, probs, 8, &e);
  CHECK(j && cJSON_GetArraySize(j) == 8, "eight words rendered");
  if (j) check_words(j);
  cJSON_Delete(j);
  j = render(&st, probs, 3, &e);
  CHECK(j && cJSON_GetArraySize(j) == 3, "truncation: only the words of the kept pieces");
  cJSON_Delete(j);
  st.checker = NULL;
  j = render(&st, probs, 8, &e);
  CHECK(j && !cJSON_GetObjectItem(cJSON_GetArrayItem(j, 1), "suggestions"),
        "without \"suggestions\": a flagged word carries none");
  cJSON_Delete(j);
  st.failed = 1;
  snprintf(st.errmsg, sizeof st.errmsg, "check: boom");
  j = render(&st, probs, 8, &e);
  CHECK(!j && e == EL_HERR_INTERNAL, "a failed check answers 500");
  el__score_text_free(&st);
  return el_test_done();
}
