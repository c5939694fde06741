/* The spelling dictionaries already on a writer's machine: hunspell's
 * British and American English (Debian hunspell-en-gb, hunspell-en-us), read
 * through libhunspell. Every verdict is for a variant of English: for
 * EL__DICT_EN a word is known when either dictionary accepts it, so "colour"
 * and "color" are both correct (a learner may write either); for
 * EL__DICT_GB only en_GB's word is ("color", "favorite" are misspelt), for
 * EL__DICT_US only en_US's ("colour").
 *
 * Used as a signal beside the detector (a WordPiece model sees a
 * misspelling only as an unusual split) and as a source of spelling
 * corrections (check/). Thread-safe: calls are serialised on a lock, since
 * libhunspell's suggest keeps state in its handle. */
#ifndef EL_LANG_DICT_H
#define EL_LANG_DICT_H

#include <stddef.h>

#include "electra/error.h"
#include "electra/score.h"

typedef struct el__dict el__dict;

/* The English a verdict is for. A variant whose dictionary is not installed
 * reads as EL__DICT_EN (the one installed). */
typedef enum el__dict_variant {
  EL__DICT_EN = 0, /* British or American: either dictionary */
  EL__DICT_GB,     /* British: en_GB alone */
  EL__DICT_US      /* American: en_US alone */
} el__dict_variant;

/* "British English", "American English"; "English" for EL__DICT_EN. */
const char *el__dict_variant_name(el__dict_variant v);

#define EL__DICT_WORD_MAX 64 /* longest suggestion kept (bytes + NUL) */

/* Loads en_GB and en_US from dir (NULL: /usr/share/hunspell); either may be
 * missing, not both (EL_EIO naming the Debian packages). *out owned by the
 * caller: el__dict_free. */
int el__dict_load(const char *dir, el__dict **out, el_error *err);
void el__dict_free(el__dict *d);

/* 1 when variant v's dictionary accepts word (UTF-8, as written: "London"
 * yes, "london" no), else 0. */
int el__dict_known(el__dict *d, el__dict_variant v, const char *word);

/* A spellchecker's verdict on a word of running text: 1 when it is a word of
 * letters (apostrophes and hyphens inside allowed) that variant v's
 * dictionaries reject (EL__DICT_EN: both), else 0. Left alone, as a spellchecker never sees them as errors:
 * tokens with digits or other symbols, split clitics ("n't", "'s"), and a
 * capitalised word that is not first in its sentence (a name the dictionary
 * lacks is not a misspelling: sentence_start = 0 there). A sentence-initial
 * word is also accepted when its lower-case form is known ("Colour"). */
int el__dict_rejects(el__dict *d, el__dict_variant v, const char *word, int sentence_start);

/* 1 when word (UTF-8, as written) is a name as a dictionary can tell one: a
 * word of letters, capitalised (not all in capitals), whose lower-case form
 * variant v's dictionaries do not know ("Ngozi", "London"; not "Tennis"). */
int el__dict_is_name(el__dict *d, el__dict_variant v, const char *word);

/* A spellchecker's verdicts for variant v on running text (UTF-8, len bytes): each
 * whitespace-separated chunk, stripped of the punctuation around it, is one
 * word for el__dict_rejects ("isn't" whole, as a spellchecker sees it, not
 * the "isn" a WordPiece pre-tokenizer makes of it), first in its sentence at
 * the text's start and after a chunk ending in . ! or ?; a capitalised
 * word the text also has mid-sentence is a name wherever it stands; in a
 * text written in capitals (half its words or more) a word in capitals is
 * checked as the ordinary word it is ("REALY"), elsewhere it is left alone
 * (an acronym or a name: "BBC", "MANUELA"). A capitalised word not first
 * in its sentence (or named so elsewhere in the text) is a name when
 * el__dict_is_name says so. Writes each rejected word and name, in order,
 * as 3 ints to spans (byte start, end, el_dict_verdict), up to max of them;
 * returns how many there are (may exceed max: the rest are not written).
 * One rule for /score, GED evaluation and the checker. */
int el__dict_read_text(el__dict *d, el__dict_variant v, const char *text, size_t len, int *spans,
                       int max);

/* The same verdicts on a tokenized sentence (FCE's "do n't"): its n words
 * read as one text with a space between words; out[i] = words[i]'s
 * el_dict_verdict. Returns EL_OK, or EL_ENOMEM with a message. */
int el__dict_read_words(el__dict *d, el__dict_variant v, const char *const *words, int n,
                        unsigned char *out, el_error *err);

/* Up to max replacements for word from variant v's dictionaries, best
 * first (the dictionaries' own order; EL__DICT_EN: en_GB's first,
 * duplicates dropped), written to out; returns how many. Suggestions longer
 * than EL__DICT_WORD_MAX - 1 bytes are skipped. */
int el__dict_suggest(el__dict *d, el__dict_variant v, const char *word,
                     char out[][EL__DICT_WORD_MAX], int max);

#endif
