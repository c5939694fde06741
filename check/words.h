/* A writer's words over the tokenizer's WordPiece pieces. The BasicTokenizer
 * splits at every punctuation character, so "don't" would be three words
 * (don ' t) and "well-known" three; a writer sees one word in each, and
 * matches, /score and /v2/check must underline what the writer sees. A word
 * here is a maximal run of pieces with no whitespace between them, except
 * that punctuation stands alone; an apostrophe inside a word ("don't",
 * "it's") or after its final s ("students'"), a hyphen inside a word
 * ("well-known") and a '.' or ',' between digits ("3.5", "1,000") join.
 * FCE's pre-split "do n't" stays two words: the writer put a space there.
 * A technical token is one word too: a run of text without spaces that
 * holds a URL ("https://..."), an address ("a@b.org"), a path or file name
 * ("docs/GED.md", "config.json"), an identifier ("snake_case",
 * "ElectraForPreTraining", "BF16") or an option ("--threads"), less the
 * brackets, quotes and sentence punctuation around it. It is marked
 * `technical`: the checker reads it as context and never flags it, and
 * the '.' inside a file name no longer ends a sentence. */
#ifndef EL_CHECK_WORDS_H
#define EL_CHECK_WORDS_H

#include <stddef.h>
#include "electra/electra.h"

typedef struct el__word {
  size_t start, end;  /* bytes of the text, end exclusive */
  int cp_start, cp_end; /* the same span in code points (the tokenizer's offsets) */
  int piece, n_pieces;  /* pieces [piece, piece + n_pieces) of the el_tokens */
  int technical;        /* a URL, path, file name, identifier or option (above) */
  int acronym;          /* in capitals ("FCE", "GPUs", "BBC's") in a sentence not written in
                           capitals: el__text_words_mark_acronyms sets it (0 until then) */
} el__word;

/* Caller-owned: zero-initialise, reuse (storage grows), el__text_words_free. */
typedef struct el__text_words {
  int n, cap;
  el__word *w;
  size_t *cp_bytes; /* private: code point -> byte offset */
  size_t cp_cap;
} el__text_words;

/* Groups the pieces of t (el_tokenize of text, len bytes) into words,
 * replacing out's previous content. EL_ENOMEM on allocation failure. */
int el__text_words_group(const char *text, size_t len, const el_tokens *t, el__text_words *out,
                    el_error *err);
void el__text_words_free(el__text_words *w);

/* Marks the words [w0, w1) of a sentence that are in capitals as acronyms
 * (a name or an acronym, as a spellchecker reads them), unless the sentence
 * is written in capitals: three or more words in capitals ("I" counts), half
 * of its words of letters or more ("I WENT HOME"). */
void el__text_words_mark_acronyms(const char *text, el__text_words *ws, int w0, int w1);

#endif
