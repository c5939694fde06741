/* Id-level learner-error tables built from a vocabulary (learner_ids.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "learner_ids.h"
#include "learner_internal.h"
#include "trainer_api.h"

/* Families whose errors replace a word by a confusable vocabulary entry. */
static const int REPLACING[] = {EL__LF_DET_WRONG, EL__LF_PREP_WRONG, EL__LF_PUNCT_WRONG,
                                EL__LF_VERB_TENSE, EL__LF_VERB_FORM, EL__LF_VERB_SVA,
                                EL__LF_NOUN_NUM};
#define N_REPLACING ((int)(sizeof REPLACING / sizeof REPLACING[0]))
#define SPELLINGS 3          /* misspellings kept per word */
#define SPELL_SEED 0x5BE11ULL /* fixed: the tables depend on the vocabulary only */

static int push_rep(el__lids *t, int fam, int id) {
  if (t->n_rep == t->cap_rep) {
    int c = t->cap_rep ? 2 * t->cap_rep : 4096;
    int *ids = realloc(t->rep_id, (size_t)c * sizeof *ids);
    if (!ids) return -1;
    t->rep_id = ids;
    uint8_t *fams = realloc(t->rep_fam, (size_t)c);
    if (!fams) return -1;
    t->rep_fam = fams;
    t->cap_rep = c;
  }
  t->rep_id[t->n_rep] = id;
  t->rep_fam[t->n_rep++] = (uint8_t)fam;
  return 0;
}

static int special_token(const char *s) {
  size_t n = strlen(s);
  return n >= 2 && s[0] == '[' && s[n - 1] == ']';
}

static void lower_ascii(const char *s, char *low) {
  size_t n = strlen(s);
  if (n >= EL__LWORD_MAX) {
    low[0] = 0;
    return;
  }
  for (size_t i = 0; i <= n; i++) low[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
}

static uint32_t word_flags(const el__learner *l, const char *s, const char *low) {
  uint32_t f = el__learner_word_class(l, low);
  int kind = el__learner_token_kind(s);
  char tmp[4][EL__LWORD_MAX], lemma[EL__LWORD_MAX];
  if (kind == EL__LK_WORD) f |= EL__LI_WORD;
  if (kind == EL__LK_PUNCT && el__learner_variants(l, low, EL__LF_PUNCT_WRONG, tmp, 4))
    f |= EL__LI_PUNCT;
  if (el__lm_noun(l, low, tmp[0])) f |= EL__LI_NOUN;
  switch (el__lm_verb(l, low, lemma)) {
    case EL__VF_BASE: f |= EL__LI_VBASE; break;
    case EL__VF_S3: f |= EL__LI_VS3; break;
    case EL__VF_PAST: f |= EL__LI_VPAST; break;
    case EL__VF_ING: f |= EL__LI_VING; break;
    default: break;
  }
  if (strchr("aeiou", low[0]) && low[0]) f |= EL__LI_VOWEL;
  if (el__lm_is_upper(s[0])) f |= EL__LI_UPPER;
  if (!strcmp(low, "he") || !strcmp(low, "she") || !strcmp(low, "it")) f |= EL__LI_SUBJ3;
  if (!strcmp(low, "to")) f |= EL__LI_TO;
  if (!strcmp(low, "an")) f |= EL__LI_AN;
  if (!strcmp(low, "the")) f |= EL__LI_THE;
  return f;
}

/* A whole-word entry of the vocabulary spelling low in the case pattern of s. */
static int whole_id(const el_tokenizer *tok, const char *s, const char *low) {
  char w[EL__LWORD_MAX];
  el__lm_recase(s, low, w);
  int id = el_tokenizer_id(tok, w);
  const char *e = id >= 0 ? el_tokenizer_token(tok, id) : NULL;
  return e && strncmp(e, "##", 2) && !special_token(e) ? id : -1;
}

static int add_confusions(el__lids *t, const el__learner *l, const el_tokenizer *tok, int id,
                          const char *s, const char *low) {
  char alt[8][EL__LWORD_MAX];
  for (int r = 0; r < N_REPLACING; r++) {
    int k = el__learner_variants(l, low, REPLACING[r], alt, 8);
    for (int i = 0; i < k; i++) {
      int j = whole_id(tok, s, alt[i]);
      if (j >= 0 && j != id && push_rep(t, REPLACING[r], j)) return -1;
    }
  }
  /* case errors exist only in a cased vocabulary */
  if (t->cased && (t->flags[id] & EL__LI_WORD)) {
    char flip[EL__LWORD_MAX];
    strcpy(flip, s);
    if (el__lm_is_upper(flip[0])) flip[0] = (char)(flip[0] + 32);
    else if (flip[0] >= 'a' && flip[0] <= 'z') flip[0] = (char)(flip[0] - 32);
    int j = el_tokenizer_id(tok, flip);
    if (j >= 0 && j != id && push_rep(t, EL__LF_ORTH, j)) return -1;
  }
  return 0;
}

/* Misspellings of word s as WordPiece ids; a spelling whose pieces include
 * [UNK] is skipped. */
static int add_misspellings(el__lids *t, const el_tokenizer *tok, int id, const char *s,
                            const char *low, el_tokens *scratch) {
  uint64_t rng = SPELL_SEED ^ ((uint64_t)id * 0x9E3779B97F4A7C15ULL);
  const int unk = el_tokenizer_special_id(tok, EL_TOK_UNK);
  char bad[EL__LWORD_MAX], cased[EL__LWORD_MAX];
  for (int v = 0; v < SPELLINGS; v++) {
    if (!el__learner_misspell(low, &rng, bad)) return 0;
    el__lm_recase(s, bad, cased);
    if (el_tokenize(tok, cased, strlen(cased), scratch, NULL)) continue;
    int n = scratch->n, ok = n >= 1 && n <= EL__LIDS_MAX_PIECES;
    for (int i = 0; ok && i < n; i++) ok = scratch->tok[i].id != unk;
    if (!ok || (n == 1 && scratch->tok[0].id == id)) continue;
    if (el__grow((void **)&t->sp_piece, &t->cap_piece, (size_t)(t->n_piece + n),
                 sizeof *t->sp_piece) ||
        el__grow((void **)&t->sp_voff, &t->cap_sp, (size_t)t->n_sp + 2, sizeof *t->sp_voff))
      return -1;
    for (int i = 0; i < n; i++) t->sp_piece[t->n_piece++] = scratch->tok[i].id;
    t->sp_voff[++t->n_sp] = t->n_piece;
  }
  return 0;
}

static void add_insertions(el__lids *t, const el_tokenizer *tok) {
  for (int f = 0; f < EL__LF_COUNT; f++) {
    int n = 0;
    const char *const *w = el__learner_insertions(f, &n);
    for (int i = 0; i < n && t->n_ins[f] < EL__LIDS_MAX_INS; i++) {
      int id = el_tokenizer_id(tok, w[i]);
      if (id >= 0) t->ins[f][t->n_ins[f]++] = id;
    }
  }
}

int el__lids_new(const el__learner *l, const el_tokenizer *tok, el__lids **out, el_error *err) {
  *out = NULL;
  el__lids *t = calloc(1, sizeof *t);
  if (!t) return el_error_set(err, EL_ENOMEM, "learner: out of memory");
  t->V = el_tokenizer_vocab_size(tok);
  t->cased = !el_tokenizer_lower_case(tok);
  t->flags = calloc((size_t)t->V, sizeof *t->flags);
  t->rep_off = calloc((size_t)t->V + 1, sizeof *t->rep_off);
  t->sp_off = calloc((size_t)t->V + 1, sizeof *t->sp_off);
  t->cap_sp = 1024;
  t->sp_voff = calloc((size_t)t->cap_sp, sizeof *t->sp_voff);
  el_tokens scratch;
  memset(&scratch, 0, sizeof scratch);
  int rc = t->flags && t->rep_off && t->sp_off && t->sp_voff ? 0 : -1;
  char low[EL__LWORD_MAX];
  for (int id = 0; id < t->V && !rc; id++) {
    const char *s = el_tokenizer_token(tok, id);
    t->rep_off[id] = t->n_rep;
    t->sp_off[id] = t->n_sp;
    if (special_token(s)) t->flags[id] = EL__LI_SPECIAL;
    else if (!strncmp(s, "##", 2)) t->flags[id] = EL__LI_CONT;
    lower_ascii(s, low);
    if (t->flags[id] || !low[0]) continue;
    t->flags[id] = word_flags(l, s, low);
    rc = add_confusions(t, l, tok, id, s, low);
    if (!rc && (t->flags[id] & EL__LI_WORD)) rc = add_misspellings(t, tok, id, s, low, &scratch);
  }
  el_tokens_free(&scratch);
  if (rc) {
    el__lids_free(t);
    return el_error_set(err, EL_ENOMEM, "learner: out of memory building the id tables");
  }
  t->rep_off[t->V] = t->n_rep;
  t->sp_off[t->V] = t->n_sp;
  add_insertions(t, tok);
  *out = t;
  return EL_OK;
}

int el__lids_load(const char *wordnet_dir, const el_tokenizer *tok, el__lids **out,
                  el_error *err) {
  el__learner *l = NULL;
  int rc = el__learner_load(wordnet_dir, &l, err);
  if (!rc) rc = el__lids_new(l, tok, out, err);
  el__learner_free(l);
  return rc;
}

void el__lids_free(el__lids *t) {
  if (!t) return;
  free(t->flags);
  free(t->rep_off);
  free(t->rep_id);
  free(t->rep_fam);
  free(t->sp_off);
  free(t->sp_voff);
  free(t->sp_piece);
  free(t);
}

void el__lids_stats(const el__lids *t, int *n_confusable, int *n_misspelt) {
  *n_confusable = *n_misspelt = 0;
  for (int id = 0; id < t->V; id++) {
    *n_confusable += t->rep_off[id + 1] > t->rep_off[id];
    *n_misspelt += t->sp_off[id + 1] > t->sp_off[id];
  }
}

int el__lids_confusions(const el__lids *t, int id, int family, int *out, int max) {
  if (id < 0 || id >= t->V) return 0;
  int k = 0;
  for (int i = t->rep_off[id]; i < t->rep_off[id + 1] && k < max; i++)
    if (t->rep_fam[i] == family) out[k++] = t->rep_id[i];
  return k;
}

int el__lids_parse_option(const char *s, double *rate) {
  double r = 0.0;
  if (!strcmp(s, "learner")) {
    r = EL__LIDS_DEFAULT_RATE;
  } else if (strcmp(s, "none")) {
    if (strncmp(s, "learner:", 8) || !s[8]) return -1;
    char *end;
    r = strtod(s + 8, &end);
    if (*end || !isfinite(r) || r <= 0.0 || r > 1.0) return -1;
  }
  *rate = r;
  return 0;
}
