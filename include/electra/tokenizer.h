/* BERT WordPiece tokenizer with current Hugging Face semantics (docs/MODEL.md §9):
 * NFC, control-character cleaning, CJK spacing, optional lower-casing with
 * accent stripping, punctuation split, special tokens never split, words over
 * 100 code points -> [UNK], greedy longest-match WordPiece with "##".
 * Every token keeps its code-point offsets into the caller's text. */
#ifndef ELECTRA_TOKENIZER_H
#define ELECTRA_TOKENIZER_H

#include <stddef.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif
/* the public API: default visibility (engine/ and nn/ are built hidden) */
#pragma GCC visibility push(default)

typedef struct el_tokenizer el_tokenizer; /* opaque, read-only after load: thread-safe */

typedef enum el_special {
  EL_TOK_PAD = 0,
  EL_TOK_UNK,
  EL_TOK_CLS,
  EL_TOK_SEP,
  EL_TOK_MASK
} el_special;

/* Loads vocab.txt (one token per line, id = line number). Refuses a vocabulary
 * without [PAD] [UNK] [CLS] [SEP] [MASK]. On success *out is owned by the
 * caller and released with el_tokenizer_free. */
int el_tokenizer_load(const char *vocab_path, int do_lower_case, el_tokenizer **out,
                      el_error *err);
void el_tokenizer_free(el_tokenizer *tok);

int el_tokenizer_vocab_size(const el_tokenizer *tok);
int el_tokenizer_lower_case(const el_tokenizer *tok);
/* Token string for id, or NULL when out of range; valid while tok lives. */
const char *el_tokenizer_token(const el_tokenizer *tok, int id);
/* Id of an exact vocabulary entry, or -1. */
int el_tokenizer_id(const el_tokenizer *tok, const char *token);
int el_tokenizer_special_id(const el_tokenizer *tok, el_special which);

/* One WordPiece token of a text. Offsets are Unicode code-point offsets into
 * the original text, end exclusive (Python slicing). */
typedef struct el_token {
  int id;
  int start, end;
  int word; /* index of the BasicTokenizer word this piece belongs to */
} el_token;

/* Result of el_tokenize. The caller owns it: zero-initialise before the first
 * use, reuse it across calls (buffers grow), release with el_tokens_free. */
typedef struct el_tokens {
  el_token *tok;
  int n, cap;
  int n_words;               /* BasicTokenizer words (after punctuation split) */
  int *word_start, *word_end; /* [n_words] code-point offsets of each word */
  int words_cap;
  int n_codepoints;          /* length of the text in code points */
} el_tokens;

/* Tokenizes len bytes of UTF-8 text (no special tokens added). Empty or
 * all-whitespace text gives n = 0. Invalid UTF-8 returns EL_EINVAL with the
 * byte offset in the message. */
int el_tokenize(const el_tokenizer *tok, const char *text, size_t len, el_tokens *out,
                el_error *err);
/* el_tokenize with flags: EL_TOKENIZE_SPECIALS_AS_TEXT reads "[SEP]", "[CLS]"
 * and the other special tokens typed in the text as plain text ("[", "sep",
 * "]"), like Hugging Face's split_special_tokens=True; without it (and in
 * el_tokenize) they are the special tokens, Hugging Face's default. */
#define EL_TOKENIZE_SPECIALS_AS_TEXT 1
int el_tokenize_opts(const el_tokenizer *tok, const char *text, size_t len, int flags,
                     el_tokens *out, el_error *err);
void el_tokens_free(el_tokens *t);

/* Code-point offsets (the offsets above) -> byte offsets in len bytes of
 * UTF-8 text. Writes the byte offset at which code point i starts to
 * starts[i] for each of the n code points, and len to starts[n] (len + 1
 * entries always suffice; starts may be NULL to count only); returns n.
 * The first byte and every byte that is not a continuation byte (10xxxxxx)
 * start a code point: on text el_tokenize accepted, exactly its code points. */
size_t el_utf8_offsets(const char *text, size_t len, size_t *starts);
/* Byte offset at which code point cp of len bytes of UTF-8 text starts
 * (same counting); len when cp is at or past the end. */
size_t el_utf8_byte_offset(const char *text, size_t len, size_t cp);

/* A model input: [CLS] a [SEP] (b [SEP]). Caller owns it like el_tokens:
 * zero-initialise, reuse, release with el_encoding_free. */
typedef struct el_encoding {
  int n, cap;
  int *ids, *type_ids;
  int *start, *end; /* offsets into the text of this token's segment; -1 for specials */
  int *word;        /* word index within its segment; -1 for specials */
  int *segment;     /* 0 = text a, 1 = text b, -1 = special */
  int truncated;    /* word pieces removed by truncation */
} el_encoding;

/* Builds [CLS] a [SEP] (b [SEP]) from tokenized texts (b may be NULL).
 * If the result exceeds max_len: with truncate != 0 pieces are removed
 * longest-first (from the end of the longer segment); otherwise returns
 * EL_ETOOLONG naming the length. */
int el_encode(const el_tokenizer *tok, const el_tokens *a, const el_tokens *b, int max_len,
              int truncate, el_encoding *out, el_error *err);
void el_encoding_free(el_encoding *e);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
