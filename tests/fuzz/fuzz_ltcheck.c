/* libFuzzer: bytes -> a /v2/check body (el__lt_request_parse: form decoding,
 * annotated data, language, level and the rule filters), then LanguageTool's
 * answer over made-up matches (el__lt_response). A refused body has a
 * message; an accepted one maps every checked-text offset into its
 * document, in order, and its answer is valid JSON whose offsets stay inside
 * the document's UTF-16 length. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "lt_format.h"
#include "lt_request.h"

/* Three matches at places drawn from the text: a word, an insertion point
 * and the whole text (the answer must place each). */
static void made_up(const el__lt_doc *d, el__matches *ms) {
  static char repl[] = "x";
  size_t n = d->plain_len;
  size_t at[3] = {n / 3, n / 2, 0}, len[3] = {n / 3 ? 1 : 0, 0, n};
  ms->m = calloc(3, sizeof *ms->m);
  if (!ms->m) return;
  for (int i = 0; i < 3; i++) {
    el__match *m = &ms->m[ms->n++];
    m->offset = at[i], m->length = len[i] <= n - at[i] ? len[i] : 0;
    m->type = i % EL__ET_COUNT;
    m->n_repl = 1;
    m->repl[0] = strdup(repl);
    strcpy(m->message, "message");
    strcpy(m->short_message, "short");
  }
}

static void check_answer(const el__lt_request *r, const el__matches *ms) {
  char *js = el__lt_response(&r->doc, r->lang, r->types, ms);
  if (!js) return; /* out of memory */
  cJSON *j = cJSON_Parse(js);
  if (!j) abort();
  size_t units = el__utf16_len(r->doc.doc, r->doc.doc_len);
  const cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(j, "matches")) {
    double off = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "offset"));
    double len = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "length"));
    if (!(off >= 0 && len >= 0 && off + len <= (double)units)) abort();
  }
  cJSON_Delete(j);
  free(js);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  el__lt_request r;
  memset(&r, 0, sizeof r);
  char msg[256] = "";
  if (el__lt_request_parse((const char *)data, size, &r, msg, sizeof msg)) {
    if (!msg[0]) abort(); /* a refusal says why */
    el__lt_request_free(&r);
    return 0;
  }
  if (!r.lang || !r.doc.plain) abort();
  size_t prev = 0;
  for (size_t i = 0; i <= r.doc.plain_len; i++) {
    size_t at = el__lt_doc_map(&r.doc, i, 0);
    if (at > r.doc.doc_len || at < prev) abort();
    prev = at;
  }
  el__matches ms = {0};
  made_up(&r.doc, &ms);
  check_answer(&r, &ms);
  el__matches_free(&ms);
  el__lt_request_free(&r);
  return 0;
}
