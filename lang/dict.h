/* The spelling dictionaries already on a writer's machine: hunspell's
 * British and American English (Debian hunspell-en-gb, hunspell-en-us), read
 * through libhunspell. A word is known when either dictionary accepts it, so
 * "colour" and "color" are both correct: a learner may write either.
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

#define EL__DICT_WORD_MAX 64 /* longest suggestion kept (bytes + NUL) */

/* Loads en_GB and en_US from dir (NULL: /usr/share/hunspell); either may be
 * missing, not both (EL_EIO naming the Debian packages). *out owned by the
 * caller: el__dict_free. */
int el__dict_load(const char *dir, el__dict **out, el_error *err);
void el__dict_free(el__dict *d);

/* 1 when a dictionary accepts word (UTF-8, as written: "London" yes,
 * "london" no), 0 when both reject it. */
int el__dict_known(el__dict *d, const char *word);

/* A spellchecker's verdict on a word of running text: 1 when it is a word of
 * letters (apostrophes and hyphens inside allowed) that both dictionaries
 * reject, else 0. Left alone, as a spellchecker never sees them as errors:
 * tokens with digits or other symbols, split clitics ("n't", "'s"), and a
 * capitalised word that is not first in its sentence (a name the dictionary
 * lacks is not a misspelling: sentence_start = 0 there). A sentence-initial
 * word is also accepted when its lower-case form is known ("Colour"). */
int el__dict_rejects(el__dict *d, const char *word, int sentence_start);

/* 1 when word (UTF-8, as written) is a name as a dictionary can tell one: a
 * word of letters, capitalised (not all in capitals), whose lower-case form
 * neither dictionary knows ("Ngozi", "London"; not "Tennis"). */
int el__dict_is_name(el__dict *d, const char *word);

/* A spellchecker's verdicts on running text (UTF-8, len bytes): each
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
int el__dict_read_text(el__dict *d, const char *text, size_t len, int *spans, int max);

/* The same verdicts on a tokenized sentence (FCE's "do n't"): its n words
 * read as one text with a space between words; out[i] = words[i]'s
 * el_dict_verdict. Returns EL_OK, or EL_ENOMEM with a message. */
int el__dict_read_words(el__dict *d, const char *const *words, int n, unsigned char *out,
                        el_error *err);

/* Up to max replacements for word, best first (the dictionaries' own
 * order, en_GB's first, duplicates dropped), written to out; returns how
 * many. Suggestions longer than EL__DICT_WORD_MAX - 1 bytes are skipped. */
int el__dict_suggest(el__dict *d, const char *word, char out[][EL__DICT_WORD_MAX], int max);

#endif
