/* libFuzzer: bytes -> Markdown read as annotated text
 * (el__lt_doc_from_markdown, what `electra-train check FILE.md` checks). The
 * document is the input byte for byte, its pieces cover it and the checked
 * text in order, every checked-text offset maps into the document in order,
 * and a point inside a markup piece's reading is in markup. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "md_doc.h"

static void check_pieces(const el__lt_doc *d, const uint8_t *data, size_t size) {
  if (d->doc_len != size || (size && memcmp(d->doc, data, size)) || !d->plain) abort();
  size_t doc = 0, plain = 0;
  for (int i = 0; i < d->n_pieces; i++) {
    const el__lt_piece *p = &d->pieces[i];
    if (p->doc_at != doc || p->plain_at != plain) abort();
    if (!p->markup && (p->plain_len != p->doc_len || memcmp(d->plain + p->plain_at, d->doc + p->doc_at, p->doc_len)))
      abort();
    if (p->markup && p->plain_len > 1 && !el__lt_doc_in_markup(d, p->plain_at + 1, 0)) abort();
    doc += p->doc_len, plain += p->plain_len;
  }
  if (doc != d->doc_len || plain != d->plain_len) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  el__lt_doc d;
  if (el__lt_doc_from_markdown((const char *)data, size, &d)) return 0; /* out of memory */
  check_pieces(&d, data, size);
  size_t prev = 0;
  for (size_t i = 0; i <= d.plain_len; i++) {
    size_t at = el__lt_doc_map(&d, i, 0), end = el__lt_doc_map(&d, i, 1);
    if (at > d.doc_len || end > d.doc_len || at < prev) abort();
    prev = at;
  }
  el__lt_doc_free(&d);
  return 0;
}
