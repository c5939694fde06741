/* Documents, annotated text and offset mapping (lt_doc.h). */
#include "lt_doc.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support_api.h"

int el__lt_doc_from_text(const char *text, size_t len, el__lt_doc *d) {
  memset(d, 0, sizeof *d);
  d->plain = malloc(len + 1);
  d->doc = malloc(len + 1);
  if (!d->plain || !d->doc) {
    el__lt_doc_free(d);
    return -1;
  }
  memcpy(d->plain, text, len);
  memcpy(d->doc, text, len);
  d->plain[len] = d->doc[len] = 0;
  d->plain_len = d->doc_len = len;
  return 0;
}

/* Appends s to *buf (length *n, capacity *cap). */
static int append(char **buf, size_t *n, size_t *cap, const char *s, size_t len) {
  if (el__grow((void **)buf, cap, *n + len + 1, 1) < 0) return -1;
  memcpy(*buf + *n, s, len);
  *n += len;
  (*buf)[*n] = 0;
  return 0;
}

int el__lt_doc_add(el__lt_doc *d, const char *raw, size_t raw_len, const char *plain,
                   size_t plain_len, int markup) {
  if (!markup) plain = raw, plain_len = raw_len;
  el__lt_piece *last = d->n_pieces ? &d->pieces[d->n_pieces - 1] : NULL;
  if (!markup && last && !last->markup) {
    last->plain_len += raw_len;
    last->doc_len += raw_len;
  } else {
    if (el__grow((void **)&d->pieces, &d->pieces_cap, (size_t)d->n_pieces + 1, sizeof *d->pieces) < 0)
      return -1;
    d->pieces[d->n_pieces++] = (el__lt_piece){d->plain_len, plain_len, d->doc_len, raw_len, markup};
  }
  return append(&d->plain, &d->plain_len, &d->plain_cap, plain, plain_len) < 0 ||
                 append(&d->doc, &d->doc_len, &d->doc_cap, raw, raw_len) < 0
             ? -1
             : 0;
}

/* One annotation entry into d; -1 with msg set. */
static int add_entry(el__lt_doc *d, const cJSON *e, int i, char *msg, size_t cap) {
  const cJSON *text = cJSON_GetObjectItemCaseSensitive(e, "text");
  const cJSON *markup = cJSON_GetObjectItemCaseSensitive(e, "markup");
  const cJSON *as = cJSON_GetObjectItemCaseSensitive(e, "interpretAs");
  if (!cJSON_IsObject(e) || (!!text == !!markup) || (text && !cJSON_IsString(text)) ||
      (markup && !cJSON_IsString(markup)) || (as && (!markup || !cJSON_IsString(as))))
    return snprintf(msg, cap,
                    "data: annotation[%d] must be {\"text\": string} or {\"markup\": string, "
                    "\"interpretAs\": string (optional)}", i), -1;
  const char *raw = text ? text->valuestring : markup->valuestring;
  const char *plain = text ? raw : as ? as->valuestring : "";
  if (el__lt_doc_add(d, raw, strlen(raw), plain, strlen(plain), markup != NULL) < 0)
    return snprintf(msg, cap, "out of memory"), -1;
  return 0;
}

int el__lt_doc_from_data(const char *json, size_t len, el__lt_doc *d, char *msg, size_t cap) {
  memset(d, 0, sizeof *d);
  /* cJSON ends a string at an escaped NUL, which would drop text silently;
   * refused outright (an escaped backslash before "u0000" is refused too:
   * harmless for text a client annotates) */
  for (size_t i = 0; i + 6 <= len; i++)
    if (!memcmp(json + i, "\\u0000", 6))
      return snprintf(msg, cap, "data: \\u0000 (a NUL character) is not allowed"), -1;
  cJSON *root = cJSON_ParseWithLength(json, len);
  const cJSON *ann = cJSON_GetObjectItemCaseSensitive(root, "annotation");
  if (!cJSON_IsArray(ann)) {
    cJSON_Delete(root);
    return snprintf(msg, cap, "data must be JSON: {\"annotation\": [{\"text\": ..}, "
                              "{\"markup\": .., \"interpretAs\": ..}]}"), -1;
  }
  int i = 0, rc = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, ann) {
    if ((rc = add_entry(d, e, i++, msg, cap)) < 0) break;
  }
  cJSON_Delete(root);
  if (!rc && (!d->plain || !d->doc)) rc = el__lt_doc_from_text("", 0, d);
  if (rc < 0) el__lt_doc_free(d);
  return rc;
}

void el__lt_doc_free(el__lt_doc *d) {
  if (!d) return;
  free(d->plain);
  free(d->doc);
  free(d->pieces);
  memset(d, 0, sizeof *d);
}

/* The first piece whose checked text ends at or after x: the pieces that
 * may hold x start there (pieces are in order), so a lookup costs a
 * binary search and a few steps, not a pass over a long document's pieces. */
static int first_ending_at(const el__lt_doc *d, size_t x) {
  int lo = 0, hi = d->n_pieces;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (d->pieces[mid].plain_at + d->pieces[mid].plain_len < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

size_t el__lt_doc_map(const el__lt_doc *d, size_t plain_at, int end) {
  if (!d->n_pieces) return plain_at;
  for (int i = first_ending_at(d, plain_at); i < d->n_pieces && d->pieces[i].plain_at <= plain_at; i++) {
    const el__lt_piece *p = &d->pieces[i];
    size_t a = p->plain_at, b = p->plain_at + p->plain_len;
    int inside = end ? (plain_at > a && plain_at <= b) : (plain_at >= a && plain_at < b);
    if (!inside) continue;
    if (!p->markup) return p->doc_at + (plain_at - a);
    return end ? p->doc_at + p->doc_len : p->doc_at;
  }
  /* past every piece, or an empty text: the document's edges */
  return plain_at == 0 && !end ? 0 : d->doc_len;
}

int el__lt_doc_in_markup(const el__lt_doc *d, size_t plain_at, size_t n) {
  for (int i = first_ending_at(d, plain_at); i < d->n_pieces && d->pieces[i].plain_at <= plain_at; i++) {
    const el__lt_piece *p = &d->pieces[i];
    if (!p->markup) continue;
    size_t a = p->plain_at, b = p->plain_at + p->plain_len;
    if (n ? plain_at >= a && plain_at + n <= b : plain_at > a && plain_at < b) return 1;
  }
  return 0;
}

size_t el__utf16_len(const char *s, size_t n) {
  size_t u = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((c & 0xc0) != 0x80) u += c >= 0xf0 ? 2 : 1;
  }
  return u;
}
