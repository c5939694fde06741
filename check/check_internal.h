/* The checker's state and the steps of el__check_text, one file each:
 * check_sents.c (sentences), check_batch.c (packed sequences),
 * check_detect.c (detector passes), check_generate.c (the generator's
 * masked pass), check_candidates.c (rule sources), check_gencands.c (the
 * generator's proposals), check_verify.c (the candidate sentences'
 * detector pass), check_types.c, check_messages.c, check_matches.c. */
#ifndef EL_CHECK_INTERNAL_H
#define EL_CHECK_INTERNAL_H

#include <stddef.h>

#include "check.h"
#include "dict.h"
#include "learner.h"
#include "strmap.h"
#include "word_freq.h"
#include "words.h"

#define EL__CAND_TEXT 64

/* Candidates verified per flag besides the word's own other forms (all
 * verified, check_verify.c): the best by their rank before the
 * detector's verdict (check_verify.c's prior_rank). The verification pass
 * costs a sentence per candidate; the rest seldom win. Chosen on FCE dev
 * with the one-hour recipe model, replaying one run's candidates at the
 * default suggestion threshold: corrections F0.5 0.243 at 1, 0.259 at 2,
 * 0.264 at 3, 0.267 at 4 and at 5 (5,089 and 5,969 verification
 * sentences over the file). */
#define EL__VERIFY_CAP 4

/* REPLACE writes the text for the word, JOIN for the word and the next one
 * ("suggest to go" -> "going"), DELETE removes it, INSERT puts the text
 * before it. */
enum { EL__EDIT_REPLACE, EL__EDIT_DELETE, EL__EDIT_INSERT, EL__EDIT_JOIN };

/* Words an edit of the kind writes over: 0 (INSERT), 1, or 2 (JOIN). */
static inline int el__edit_words(int kind) {
  return kind == EL__EDIT_INSERT ? 0 : kind == EL__EDIT_JOIN ? 2 : 1;
}

/* Packed sequences for one engine call (or several, chunked). */
typedef struct el__seqs {
  int n;
  int *len;
  size_t len_cap;
  int *ids;
  size_t n_ids, ids_cap;
  size_t open; /* first id of the sequence being built */
} el__seqs;
void el__seqs_reset(el__seqs *s);
int el__seqs_put(el__seqs *s, const int *ids, int n, el_error *err);
int el__seqs_close(el__seqs *s, el_error *err);
void el__seqs_free(el__seqs *s);

typedef struct el__csent {
  int w0, w1; /* words [w0, w1) */
  int cont;   /* continues a sentence cut where it outgrew the model: w0 is no sentence's first word */
  int shouted; /* written in capitals: 3 or more of its words in capitals are words in small
                  letters, and at least half of them (check_sents.c) */
} el__csent;

/* One proposed edit of a flagged word. */
typedef struct el__cand {
  int kind;                 /* EL__EDIT_* */
  int type;                 /* el__etype */
  int by_gen;               /* proposed by the generator */
  char text[EL__CAND_TEXT]; /* the word written instead or inserted, writer's case; "" deletes */
  int ids, n_ids;           /* its pieces in c->pool */
  float gen_lp;             /* generator log-probability of its first piece at the mask (the
                               word's for one vocabulary entry); NAN: no generator, a deletion */
  float p_edit;             /* detector P(error) of the edited region */
  int by_rule;              /* a case change an uncased detector cannot see */
  float prior;              /* the source's own order (hunspell's), added to the rank */
  int ok;                   /* verified */
  int skip;                 /* not verified: past the cap of its flag (check_verify.c) */
  float rank;               /* lower first */
  float least;              /* el__cand_least_rank, set once before verification */
} el__cand;

typedef struct el__flag {
  int word, sent;
  float prob;
  int rejected;       /* the check's variant's dictionaries reject the word */
  int variant_only;   /* ... though the other variant's knows it ("favorite" in en-GB) */
  int cand0, n_cand;  /* its candidates, contiguous in c->cands */
  int gen_row;        /* rows gen_row (replace) and gen_row + 1 (insert; not for a rejected
                         word, which gets no insertion) of c->lp; -1 none */
  float gen_top;      /* the generator's likeliest whole word other than this one at the
                         word's mask: its probability (0 without a generator) */
  int ngram_kind;     /* el__ngram_edit the n-gram model finds far likelier (o.ngram), or -1 */
  char ngram_alt[EL__LWORD_MAX]; /* ... the word it writes instead or the article it adds */
} el__flag;

struct el__checker {
  el__checker_opts o;
  int picky; /* el__checker_set_picky: replacements for every flag */
  el__strmap accept; /* el__checker_accept_words */
  const el_tokenizer *tok;
  int vocab, max_pos, lower, num_labels;
  el__learner *lang;
  el__dict *dict;
  el__word_freq *freq; /* o.word_counts, or NULL */
  int owns_lang, owns_dict; /* loaded by the checker (not given in its options) */
  el_workspace *ws_det, *ws_gen, *ws_ver; /* ws_ver: o.verifier's, when it is not the detector */
  int max_tokens, max_seqs;
  el__check_cost cost;
  /* one call's text and working storage (reused across calls) */
  const char *text;
  size_t len;
  el__dict_variant variant;
  el_tokens tk, scratch;
  el__text_words words;
  el__csent *sents;
  size_t sents_cap;
  int n_sents;
  int *word_sent;
  size_t word_sent_cap;
  float *word_p;
  size_t word_p_cap;
  int *lm_kind; /* per word: the n-gram model's edit (el__ngram_edit), -1 none (o.ngram) */
  char (*lm_alt)[EL__LWORD_MAX]; /* ... and the word it writes or the article it adds */
  size_t lm_kind_cap, lm_alt_cap;
  el__flag *flags; /* the flags being corrected (a round of all_flags) */
  size_t flags_cap;
  int n_flags;
  el__flag *all_flags;
  size_t all_flags_cap;
  el__cand *cands;
  size_t cands_cap;
  int n_cands;
  int *pool;
  size_t n_pool, pool_cap;
  float *lp; /* generator log-softmax rows [2 * n_flags][vocab] */
  size_t lp_cap;
  el__seqs seqs;
  int *where;  /* per sequence of a pass: what it belongs to */
  size_t where_cap;
  float *prob;  /* detector output over the packed ids */
  size_t prob_cap;
  float *logits;
  size_t logits_cap;
};

/* The words [*w0, *w1) candidate e's verification sentence holds: f's
 * sentence, or for a fix of a misspelling 10 words either side of it
 * (check_verify.c). */
void el__verify_span(const el__checker *c, const el__flag *f, const el__cand *e, int *w0, int *w1);

/* The text's piece ids of words [w0, w1) appended to the open sequence. */
int el__put_words(el__checker *c, int w0, int w1, el_error *err);
/* The word's text, lower-cased ASCII, into low[EL__LWORD_MAX]; 0 when it is
 * not plain ASCII or too long for lang/. */
int el__word_low(const el__checker *c, int w, char *low);
int el__is_punct_word(const el__checker *c, int w);
/* 1 when word w is one of the writer's own (el__checker_accept_words). */
int el__word_accepted(const el__checker *c, int w);
/* 1 when word w has two or more letters, all of them capitals ("REALY", "BBC's" not). */
int el__word_in_capitals(const el__checker *c, int w);
/* 1 when word w begins a sentence (the case a dictionary and the
 * capitalisation rule expect there). */
int el__sent_start(const el__checker *c, int w);
/* The word's text as written, NUL-terminated, into out[cap]; 0 if too long. */
int el__word_text(const el__checker *c, int w, char *out, size_t cap);
/* The texts of sentence s's words into text[i] (a word too long: "?") and
 * w[i] pointing at them, i < s->w1 - s->w0: what the n-gram model reads. */
void el__sent_texts(const el__checker *c, const el__csent *s, char (*text)[EL__LWORD_MAX],
                    const char **w);

/* Calls run over consecutive runs of c->seqs that fit the workspace (at
 * most max_per_call sequences each when > 0); sequences [s0, s1), whose ids
 * start at id0. */
typedef int (*el__chunk_fn)(el__checker *c, int s0, int s1, size_t id0, el_error *err);
int el__seqs_chunks(el__checker *c, int max_per_call, el__chunk_fn run, el_error *err);

/* el__check_text up to the candidates (c->flags, c->cands) of the first
 * round of flags: the unit tests look at them before verification. */
int el__check_propose(el__checker *c, const char *text, size_t len, el__dict_variant v,
                      el_error *err);
int el__check_sentences(el__checker *c, el_error *err);
/* P(error) for every id of c->seqs into c->prob, from the detector
 * (verify = 0) or the verifier (1). */
int el__detect_seqs(el__checker *c, int verify, el_error *err);
int el__check_detect(el__checker *c, el_error *err);
/* 1 when flag f gets replacements: a misspelling, or a P(error) at the
 * suggest_threshold. The other flags are matches without suggestions and
 * cost no generator row, candidate or verification sentence. */
int el__flag_suggests(const el__checker *c, const el__flag *f);
int el__check_generate(el__checker *c, el_error *err);
int el__check_candidates(el__checker *c, el_error *err);
/* Adds a candidate to the flag being built (the last), unless it is the
 * word itself or already there; tokenizes it into the pool. */
int el__cand_add(el__checker *c, el__flag *f, int kind, int type, const char *text,
                 el_error *err);
int el__gen_candidates(el__checker *c, el__flag *f, el_error *err);
int el__check_verify(el__checker *c, el_error *err);
/* 1 when e replaces the word by another form of it from the rules
 * (agreement, tense, verb form, noun number): verified outside the cap. */
int el__cand_own_form(const el__cand *e);
/* e->rank from its verdict (e->p_edit) and its priors; and the least rank
 * any verdict in [0, 1] can give it, which best-first verification stops
 * on (check_verify.c). */
void el__cand_rank(const el__checker *c, const el__flag *f, el__cand *e);
float el__cand_least_rank(const el__checker *c, const el__flag *f, const el__cand *e);
/* The type of a replacement proposed by the generator, from its relation
 * to the word (orig, cand lower-case). */
int el__type_of_replacement(el__checker *c, const char *orig, const char *cand);
/* The message and short message of a match whose best edit is e (NULL: no
 * verified edit) of the word `word`, `before` the word before it in its
 * sentence ("" when first: a missing comma goes after it); variant: the English a misspelling is
 * one only in (EL__DICT_GB: "favorite"), named in a spelling message, else
 * EL__DICT_EN. */
void el__match_describe(el__match *m, const el__cand *e, const char *word, const char *before,
                        el__dict_variant variant);
int el__check_matches(el__checker *c, el__matches *out, el_error *err);

#endif
