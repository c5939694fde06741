/* Internals shared by the learner_*.c files (not for other modules): the
 * loaded tables, the sentence being edited, the random draws, and the
 * morphology helpers. */
#ifndef EL_TRAIN_LEARNER_INTERNAL_H
#define EL_TRAIN_LEARNER_INTERNAL_H

#include <stdint.h>
#include "strmap.h"
#include "learner.h"

/* An exception list (verb.exc / noun.exc): pairs (form, lemma) of word ids,
 * chained per form and per lemma in file order. */
typedef struct el__lexc {
  int n;
  size_t cap_form, cap_lemma;
  int *form, *lemma, *next_by_form, *next_by_lemma;
  int *head_form, *head_lemma; /* [number of words] first pair, -1 none */
} el__lexc;

/* Flags of a WordNet word (the value in el__learner.words). */
enum { EL__LW_NOUN = 1, EL__LW_VERB = 2 };

struct el__learner {
  el__strmap words;  /* every word the files name -> EL__LW_* flags */
  el__lexc vexc, nexc;
  el__strmap closed; /* function words -> EL__LC_* bits */
  int custom_share;  /* share[] replaces the default mix (el__learner_set_share) */
  double share[EL__LF_COUNT];
};

/* Word id or -1. */
static inline int el__lword(const el__learner *l, const char *w) {
  int n = 0;
  while (w[n]) n++;
  return el__strmap_find(&l->words, w, n);
}
static inline int el__lword_flags(const el__learner *l, const char *w) {
  int i = el__lword(l, w);
  return i < 0 ? 0 : (int)l->words.value[i];
}

/* --- the sentence being edited ------------------------------------------ */

struct el__lw {
  const char *src;               /* the input word, or NULL: the word is in text */
  char text[EL__LWORD_MAX];      /* a word made by an edit */
  char low[EL__LWORD_MAX];       /* lower-cased ASCII form; "" when too long */
  uint32_t cls;                  /* EL__LC_* of low */
  uint8_t kind;                  /* EL__LK_* */
  uint8_t label, lock;           /* 1 = error token; 1 = no further edit may touch it */
};

typedef struct el__lsent {
  const el__learner *l;
  el__lw *w;
  int n, cap;
  int *sites; /* [2 * cap] scratch for the families */
} el__lsent;

static inline const char *el__lw_str(const el__lw *w) { return w->src ? w->src : w->text; }

/* Sets w to the input word s (borrowed) or, with src == NULL, to a copy of
 * text (which must fit EL__LWORD_MAX). Classifies it. */
void el__lw_set(const el__learner *l, el__lw *w, const char *src, const char *text);
/* Inserts a new word before position i (room must exist: n < cap), marked
 * and locked. */
void el__ls_insert(el__lsent *s, int i, const char *text);
/* Deletes position i and marks the gap: the following token; nothing when i
 * was the end (as FCE). At the start of a sentence the new first word is
 * capitalised. */
void el__ls_delete(el__lsent *s, int i);
/* Replaces position i by low (lower-case), recased like the old word; marks
 * and locks it. */
void el__ls_replace(el__lsent *s, int i, const char *low);
/* Can a word be deleted at i (it and the token to be marked are free)? */
int el__ls_can_delete(const el__lsent *s, int i);
/* Is position i free to change (in range, not locked)? */
static inline int el__ls_free(const el__lsent *s, int i) {
  return i >= 0 && i < s->n && !s->w[i].lock;
}
/* A position drawn uniformly from sites[0..n), -1 when n == 0. */
int el__ls_pick(const int *sites, int n, uint64_t *rng);

/* One family's edit: 1 done, 0 no place for it in this sentence. */
typedef int (*el__lfam_fn)(el__lsent *s, uint64_t *rng);
int el__lf_det_missing(el__lsent *s, uint64_t *rng);
int el__lf_det_wrong(el__lsent *s, uint64_t *rng);
int el__lf_det_extra(el__lsent *s, uint64_t *rng);
int el__lf_prep_wrong(el__lsent *s, uint64_t *rng);
int el__lf_prep_missing(el__lsent *s, uint64_t *rng);
int el__lf_prep_extra(el__lsent *s, uint64_t *rng);
int el__lf_punct_missing(el__lsent *s, uint64_t *rng);
int el__lf_punct_wrong(el__lsent *s, uint64_t *rng);
int el__lf_punct_extra(el__lsent *s, uint64_t *rng);
int el__lf_pron_missing(el__lsent *s, uint64_t *rng);
int el__lf_word_extra(el__lsent *s, uint64_t *rng);
int el__lf_verb_tense(el__lsent *s, uint64_t *rng);
int el__lf_verb_form(el__lsent *s, uint64_t *rng);
int el__lf_verb_sva(el__lsent *s, uint64_t *rng);
int el__lf_aux_missing(el__lsent *s, uint64_t *rng);
int el__lf_noun_num(el__lsent *s, uint64_t *rng);
int el__lf_spell(el__lsent *s, uint64_t *rng);
int el__lf_orth(el__lsent *s, uint64_t *rng);
int el__lf_word_order(el__lsent *s, uint64_t *rng);
/* Not an error: one "I/you/we/they + present verb" whose pronoun is a
 * subject (drawn) rewritten to he/she/it (el__learner_third_person); 1 done. */
int el__lv_third_person(el__lsent *s, uint64_t *rng);
/* One agreement error right after he/she/it (el__learner_subject_agreement); 1 done. */
int el__lv_subject_sva(el__lsent *s, uint64_t *rng);
/* Whether w is one of the n words of list; LISTED for a static array. */
static inline int el__lw_listed(const char *w, const char *const *list, size_t n) {
  for (size_t k = 0; k < n; k++)
    if (!strcmp(w, list[k])) return 1;
  return 0;
}
#define LISTED(w, list) el__lw_listed(w, list, sizeof list / sizeof *list)
/* he/she/it; I/you/we/they (lower-case). */
int el__lv_3sg_subject(const char *w);
int el__lv_plain_subject(const char *w);
/* A form of "be": am is are was were be been being (lower-case). */
int el__lv_be(const char *w);
/* Whether a pronoun after the lower-case word prev may be a subject: not
 * after an auxiliary or modal ("do you like"), nor a verb whose object a
 * bare infinitive follows ("let you go"). */
int el__lv_subject_after(const el__learner *l, const char *prev);
/* A verb whose base form is its past ("put", "read"), or one ending in such
 * a verb ("misread", "outbid"). */
int el__lv_ends_same_past(const char *w);

/* --- random draws: splitmix64 on the caller's 64-bit state --------------- */

static inline uint64_t el__lr_next(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
/* Uniform in [0, n), n >= 1 (multiply-shift; bias below 2^-32). */
static inline int el__lr_below(uint64_t *s, int n) {
  return (int)(((el__lr_next(s) >> 32) * (uint64_t)n) >> 32);
}
/* Uniform in [0, 1). */
static inline double el__lr_unif(uint64_t *s) {
  return (double)(el__lr_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* --- morphology (learner_morph.c); words are lower-case ASCII ------------ */

/* Verb form bits. */
enum { EL__VF_BASE = 1, EL__VF_S3 = 2, EL__VF_PAST = 4, EL__VF_ING = 8 };
/* If w is a form of an open-class verb (not be/have/do or a modal): its
 * lemma into lemma[EL__LWORD_MAX] and the form bit; else 0. */
int el__lm_verb(const el__learner *l, const char *w, char *lemma);
/* The forms of lemma with bit `form` (PAST may have several: "went",
 * "gone") into out; returns how many (0 when none fits). */
int el__lm_verb_make(const el__learner *l, const char *lemma, int form,
                     char out[][EL__LWORD_MAX], int max);
/* Noun number: 1 singular, 2 plural (other form into other), 0 not a noun
 * form the tables know. */
int el__lm_noun(const el__learner *l, const char *w, char *other);
/* The other number's forms of noun w into out: el__lm_noun's, and for a
 * singular whose WordNet plural is irregular, also its plural by the rule:
 * the exception lists keep old or learned plurals ("brother" -> "brethren",
 * "camera" -> "camerae") where the regular one is the common one. */
int el__lm_noun_forms(const el__learner *l, const char *w, char out[][EL__LWORD_MAX], int max);
/* The be/have/do/modal counterpart of w for a family: for SVA "is" ->
 * "are", for TENSE "is" -> "was"; writes up to max into out. */
int el__lm_aux_variants(const char *w, int family, char out[][EL__LWORD_MAX], int max);

/* Variants of a function word or punctuation token for DET_WRONG,
 * PREP_WRONG and PUNCT_WRONG (learner_closed.c). */
int el__lc_variants(const el__learner *l, const char *w, int family, char out[][EL__LWORD_MAX],
                    int max);

/* Case: low rewritten in the capitalisation pattern of pattern (all upper
 * with 2+ letters, first upper, or as is) into out[EL__LWORD_MAX]. */
void el__lm_recase(const char *pattern, const char *low, char *out);
/* Is the first byte an ASCII upper-case letter? */
static inline int el__lm_is_upper(char c) { return c >= 'A' && c <= 'Z'; }

/* --- id-level tables (learner_ids.c, learner_ids_edit.c) ----------------- */

/* Per-id flags above the EL__LC_* bits. */
enum {
  EL__LI_WORD = 1 << 16,    /* a word (el__learner_token_kind 1) */
  EL__LI_PUNCT = 1 << 17,   /* punctuation the punctuation families use */
  EL__LI_CONT = 1 << 18,    /* a ## continuation piece */
  EL__LI_SPECIAL = 1 << 19, /* [CLS], [SEP], [PAD], [MASK], [UNK], [unused...] */
  EL__LI_NOUN = 1 << 20,
  EL__LI_VBASE = 1 << 21,   /* verb forms (el__lm_verb) */
  EL__LI_VS3 = 1 << 22,
  EL__LI_VPAST = 1 << 23,
  EL__LI_VING = 1 << 24,
  EL__LI_VOWEL = 1 << 25,   /* begins with a vowel letter (a/an) */
  EL__LI_UPPER = 1 << 26,   /* begins with a capital */
  EL__LI_SUBJ3 = 1 << 27,   /* he she it */
  EL__LI_TO = 1 << 28,      /* to */
  EL__LI_AN = 1 << 29,      /* the article "an" */
  EL__LI_THE = 1 << 30      /* the article "the" */
};
#define EL__LI_VERB (EL__LI_VBASE | EL__LI_VS3 | EL__LI_VPAST | EL__LI_VING)
#define EL__LIDS_MAX_INS 16   /* insertion ids per family */
#define EL__LIDS_MAX_PIECES 8 /* pieces of a stored misspelling */

struct el__lids {
  int V, cased;
  uint32_t *flags;          /* [V] */
  int *rep_off;             /* [V + 1] confusions of id: rep_[rep_off[id], rep_off[id + 1]) */
  int *rep_id;
  uint8_t *rep_fam;
  int n_rep, cap_rep;
  int *sp_off;              /* [V + 1] misspellings of id: variants [sp_off[id], sp_off[id + 1]) */
  int *sp_voff;             /* [variants + 1] pieces of variant v: sp_piece[sp_voff[v] ..] */
  int *sp_piece;
  int n_sp, n_piece;
  size_t cap_sp, cap_piece;
  int ins[EL__LF_COUNT][EL__LIDS_MAX_INS], n_ins[EL__LF_COUNT];
};

#endif
