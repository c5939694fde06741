/* The document a LanguageTool client sends and the text that is checked.
 * `text` is both; `data` (LanguageTool's annotated text, {"annotation":
 * [{"text":..}, {"markup":.., "interpretAs":..}]}) is checked as its text
 * parts with each markup replaced by its interpretAs (nothing without one),
 * while the offsets a client gets count the whole document, markup
 * included, in UTF-16 code units (Java's strings, which clients count in). */
#ifndef EL_CHECK_LT_DOC_H
#define EL_CHECK_LT_DOC_H

#include <stddef.h>

typedef struct el__lt_piece {
  size_t plain_at, plain_len; /* bytes of the checked text */
  size_t doc_at, doc_len;     /* bytes of the document */
  int markup;                 /* 1: markup (plain is its interpretAs) */
} el__lt_piece;

typedef struct el__lt_doc {
  char *plain;  /* the checked text, NUL-terminated */
  size_t plain_len;
  char *doc;    /* the client's document: text and markup */
  size_t doc_len;
  el__lt_piece *pieces; /* in order; n_pieces 0 for `text` */
  int n_pieces;
  size_t plain_cap, doc_cap, pieces_cap; /* private: storage */
} el__lt_doc;

/* A document that is its own checked text (a copy of text[0..len)). */
int el__lt_doc_from_text(const char *text, size_t len, el__lt_doc *d);

/* Parses annotated text (valid UTF-8). -1 with a message for the client in
 * msg when it is not LanguageTool's shape. */
int el__lt_doc_from_data(const char *json, size_t len, el__lt_doc *d, char *msg, size_t cap);

/* Appends a piece to d (zero-initialised to start): raw[0..raw_len) of the
 * document, checked as plain[0..plain_len) (raw itself for text). A text
 * piece right after a text piece extends it. -1 when out of memory. */
int el__lt_doc_add(el__lt_doc *d, const char *raw, size_t raw_len, const char *plain,
                   size_t plain_len, int markup);

void el__lt_doc_free(el__lt_doc *d);

/* 1 when the checked text's [plain_at, plain_at + n) lies inside one markup's
 * interpretAs (n 0: a point strictly inside it), so a match there is about
 * markup the writer did not write as prose. */
int el__lt_doc_in_markup(const el__lt_doc *d, size_t plain_at, size_t n);

/* A byte offset of the checked text -> a byte offset of the document. A
 * position inside a markup's interpretAs maps to the markup's start (a
 * match's start, end = 0) or end (its end, end = 1); at a boundary between
 * pieces a start goes to the later piece and an end to the earlier, so a
 * match never swallows markup beside it. */
size_t el__lt_doc_map(const el__lt_doc *d, size_t plain_at, int end);

/* UTF-16 code units of s[0..n): one per code point, two past U+FFFF. */
size_t el__utf16_len(const char *s, size_t n);

#endif
