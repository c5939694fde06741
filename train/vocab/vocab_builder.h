/* Learning a WordPiece vocabulary from text (`electra-train vocab`), and the
 * vocabulary file checks `pretrain` relies on.
 *
 * Algorithm (documented in `electra-train vocab --help` too):
 *  1. Words are counted after BasicTokenizer splitting (data_pretok.h): the
 *     engine tokenizer's own splitting before WordPiece, so the builder counts
 *     the words el_tokenize will see. Words longer than 100 characters are
 *     ignored (the tokenizer maps them to [UNK]), and so are special tokens
 *     written in the text ([MASK]: every vocabulary has them).
 *  2. Each word starts as its characters: the first as itself, the others
 *     with the continuation prefix "##" ("the" -> t ##h ##e). The alphabet is
 *     every such symbol occurring at least min_frequency times (counting word
 *     frequency); if it does not fit in vocab_size - 5 the most frequent
 *     symbols are kept. Words holding a symbol outside the alphabet would be
 *     [UNK] anyway and take no further part.
 *  3. Repeatedly merge the adjacent pair (a, b) with the highest score and
 *     count(ab) >= min_frequency into one symbol ("t" + "##h" -> "th",
 *     "##h" + "##e" -> "##he"), until the vocabulary has vocab_size entries or
 *     no pair qualifies. EL_VOCAB_SCORE_FREQ (the default, as in the Hugging
 *     Face tokenizers' WordPieceTrainer, which is BPE underneath) scores
 *     count(ab). EL_VOCAB_SCORE_LIKELIHOOD scores count(ab) / (count(a) *
 *     count(b)) (the "WordPiece" score of the Hugging Face course); measured
 *     on /work/shared/data/corpus at 16000 entries it gives 2.66 pieces per
 *     word against 1.05 for FREQ (it spends merges on rare words), so it is
 *     kept for comparison only. Ties go to the larger count(ab), then to the
 *     pair seen first. Counts are exact integers and the procedure is
 *     sequential, so the result is deterministic.
 *  4. Output order (ids): [PAD] [UNK] [CLS] [SEP] [MASK] at 0..4, then the
 *     alphabet (word-initial symbols, then "##" symbols, each by byte
 *     order), then merged symbols in merge order. A merge whose string is
 *     already in the vocabulary adds no entry.
 * Implementation: pair counts in a hash table, the words each pair occurs in,
 * and a max-heap with a fresh entry pushed whenever a pair's score changes
 * (stale entries are discarded on pop), so a merge costs time proportional to
 * the words and pairs it touches. */
#ifndef EL_TRAIN_VOCAB_BUILDER_H
#define EL_TRAIN_VOCAB_BUILDER_H

#include <stddef.h>
#include <stdint.h>
#include "electra/error.h"

typedef struct el__word_counts el__word_counts; /* opaque */

/* New empty table; *out owned by the caller: el__wc_free. */
int el__wc_new(el__word_counts **out, el_error *err);
void el__wc_free(el__word_counts *wc);
/* Splits text (BasicTokenizer, data_pretok.h) and counts its words.
 * EL_EINVAL when text is not valid UTF-8 (err names the byte; nothing of
 * the text is counted), EL_ENOMEM. */
int el__wc_add_text(el__word_counts *wc, const char *text, size_t len, int lower,
                    el_error *err);
/* Adds count occurrences of one word (len bytes of UTF-8, no spaces). */
int el__wc_add_word(el__word_counts *wc, const char *word, size_t len, long count,
                    el_error *err);
/* Counts every word with a British spelling (text_variants.h: "color") half
 * again under that spelling ("colour"), as if half the text were British,
 * so both spellings get vocabulary entries alike. */
struct el__variants;
int el__wc_add_british(el__word_counts *wc, const struct el__variants *v, el_error *err);
size_t el__wc_distinct(const el__word_counts *wc);
/* Writes "word<TAB>count" lines, most frequent first, of the words counted
 * at least min_count times, to path atomically: the word-frequency table
 * the checker ranks spelling suggestions with (lang/word_freq.h). */
int el__wc_write(const el__word_counts *wc, const char *path, long min_count, el_error *err);
uint64_t el__wc_total(const el__word_counts *wc);

enum { EL_VOCAB_SCORE_FREQ = 0, EL_VOCAB_SCORE_LIKELIHOOD = 1 };

typedef struct el__vb_opts {
  int vocab_size;     /* >= 5 + 1 */
  long min_frequency; /* >= 1 */
  int score;          /* EL_VOCAB_SCORE_* */
} el__vb_opts;

/* A vocabulary: tok[i] is the token of id i (owned strings). */
typedef struct el__vb_vocab {
  char **tok;
  int n, cap;
  int n_alphabet; /* symbols of step 2 */
  int n_merges;   /* merges performed (>= entries added after the alphabet) */
} el__vb_vocab;

/* Runs steps 2-4 on wc. *out is filled (caller frees with el__vb_free).
 * EL_EINVAL when wc holds no usable word (empty input). */
int el__vb_learn(const el__word_counts *wc, const el__vb_opts *o, el__vb_vocab *out,
                    el_error *err);
void el__vb_free(el__vb_vocab *v);

/* Writes one token per line to path atomically (path.tmp-PID, fsync, rename,
 * fsync of the directory). A full disk is EL_ENOSPC naming the path. */
int el__vb_write(const el__vb_vocab *v, const char *path, el_error *err);

/* Reads a vocab.txt and checks it is usable for pretraining: non-empty,
 * valid lines, no duplicate token, and all of [PAD] [UNK] [CLS] [SEP] [MASK]
 * present (else EL_EFORMAT naming the missing ones). Outputs (may be NULL):
 * the number of entries, a 64-bit FNV-1a hash of the file's bytes, and
 * whether the vocabulary is cased: some token other than the [..] specials
 * holds an upper-case ASCII letter (a vocabulary learned with lower-casing
 * never does, so pretraining tokenizes with do_lower_case = !cased). */
int el__vb_check(const char *path, int *size, uint64_t *hash, int *cased, el_error *err);

#endif
