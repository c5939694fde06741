/* The text's sentences over its words, and the word helpers the other steps
 * share. The detector sees one sentence per sequence, as it was trained
 * (FCE's lines are sentences), and a candidate sentence is one sentence
 * with one edit: short sequences keep the verification pass cheap. */
#include <string.h>

#include "check_internal.h"
#include "support_api.h"

/* Pieces of room a sentence keeps for [CLS], [SEP] and an inserted word. */
#define ROOM 10

static int word_is(const el__checker *c, int w, const char *set) {
  const el__word *x = &c->words.w[w];
  size_t n = x->end - x->start;
  return n == 1 && strchr(set, c->text[x->start]) != NULL;
}

/* A blank line between words ends a paragraph, so a sentence. */
static int blank_line_between(const el__checker *c, int w) {
  int lines = 0;
  for (size_t b = c->words.w[w - 1].end; b < c->words.w[w].start; b++) lines += c->text[b] == '\n';
  return lines >= 2;
}

static int push_sent(el__checker *c, int w0, int w1, int cont, el_error *err) {
  if (el__grow((void **)&c->sents, &c->sents_cap, (size_t)c->n_sents + 1, sizeof *c->sents))
    return el_error_set(err, EL_ENOMEM, "check: out of memory");
  c->sents[c->n_sents++] = (el__csent){w0, w1, cont, 0};
  return 0;
}

static int word_in(const el__checker *c, int w, const char *const *list) {
  char low[EL__LWORD_MAX];
  if (!el__word_low(c, w, low)) return 0;
  for (; *list; list++)
    if (!strcmp(low, *list)) return 1;
  return 0;
}

/* A '.' at w that ends no sentence: after a title ("Mr. Smith"), or after
 * an abbreviation when what follows is not capitalised ("et al., 2020",
 * "e.g. the", "etc. and"); before a comma, a semicolon or a colon. */
static int abbreviation_dot(const el__checker *c, int w) {
  static const char *const TITLES[] = {"mr", "mrs", "ms", "dr", "prof", "st", "mt", NULL};
  static const char *const ABBREVIATIONS[] = {"al", "e.g", "i.e", "etc", "vs", "cf", "approx",
                                              "fig", "no", "eg", "ie", "ca", "resp", NULL};
  if (w == 0 || w + 1 >= c->words.n || !word_is(c, w, ".")) return 0;
  if (word_is(c, w + 1, ",;:")) return 1;
  if (c->words.w[w].start != c->words.w[w - 1].end) return 0; /* "word ." is no abbreviation */
  if (word_in(c, w - 1, TITLES)) return 1;
  unsigned char next = (unsigned char)c->text[c->words.w[w + 1].start];
  return word_in(c, w - 1, ABBREVIATIONS) && !(next >= 'A' && next <= 'Z');
}

/* The words in capitals of each sentence that are acronyms or names
 * (words.h), less those whose small letters are a dictionary's word: "SHE
 * GO" is a writer's emphasis, "FCE" and "GPUs" are not words. */
static void mark_acronyms(el__checker *c) {
  for (int i = 0; i < c->n_sents; i++)
    el__text_words_mark_acronyms(c->text, &c->words, c->sents[i].w0, c->sents[i].w1);
  char low[EL__LWORD_MAX];
  for (int w = 0; c->dict && w < c->words.n; w++)
    if (c->words.w[w].acronym && el__word_low(c, w, low) && el__dict_known(c->dict, EL__DICT_EN, low))
      c->words.w[w].acronym = 0;
}

int el__word_in_capitals(const el__checker *c, int w) {
  const el__word *x = &c->words.w[w];
  int letters = 0;
  for (size_t i = x->start; i < x->end; i++) {
    char ch = c->text[i];
    if (ch >= 'a' && ch <= 'z') return 0;
    letters += ch >= 'A' && ch <= 'Z';
  }
  return letters >= 2;
}

/* Sentences written in capitals ("WE ARE REALY INTERESTED"), whose words
 * the dictionary reads in small letters (check_detect.c); a table row of
 * acronyms ("AMD EPYC with AVX2 or VNNI") is not one: its words in capitals
 * are no words in small letters. */
static void mark_shouted(el__checker *c) {
  char low[EL__LWORD_MAX];
  for (int i = 0; i < c->n_sents; i++) {
    int caps = 0, words = 0;
    for (int w = c->sents[i].w0; w < c->sents[i].w1; w++) {
      if (!el__word_in_capitals(c, w)) continue;
      caps++;
      words += c->dict && el__word_low(c, w, low) && el__dict_known(c->dict, EL__DICT_EN, low);
    }
    c->sents[i].shouted = words >= 3 && 2 * words >= caps;
  }
}

/* A sentence ends after . ! ? (and the closing quotes or brackets after
 * them; not a '.' of an abbreviation), at a blank line, or where it would
 * outgrow the model (the rest then continues it: cont). */
int el__check_sentences(el__checker *c, el_error *err) {
  int nw = c->words.n;
  c->n_sents = 0;
  if (el__grow((void **)&c->word_sent, &c->word_sent_cap, (size_t)nw + 1, sizeof(int)))
    return el_error_set(err, EL_ENOMEM, "check: out of memory");
  int w0 = 0, pieces = 0, ended = 0, cont = 0;
  for (int w = 0; w < nw; w++) {
    int np = c->words.w[w].n_pieces;
    int closer = word_is(c, w, ".!?)]}\"'");
    int full = pieces + np > c->max_pos - ROOM;
    int cut = w > w0 && ((ended && !closer) || blank_line_between(c, w) || full);
    if (cut) {
      if (push_sent(c, w0, w, cont, err)) return err->code;
      cont = full && !ended && !blank_line_between(c, w);
      w0 = w;
      pieces = 0;
      ended = 0;
    }
    pieces += np;
    ended |= word_is(c, w, "!?") || (word_is(c, w, ".") && !abbreviation_dot(c, w));
    c->word_sent[w] = c->n_sents;
  }
  if (nw > w0 && push_sent(c, w0, nw, cont, err)) return err->code;
  mark_acronyms(c);
  mark_shouted(c);
  return 0;
}

int el__sent_start(const el__checker *c, int w) {
  const el__csent *s = &c->sents[c->word_sent[w]];
  return w == s->w0 && !s->cont;
}

int el__put_words(el__checker *c, int w0, int w1, el_error *err) {
  if (w1 <= w0) return 0;
  int p0 = c->words.w[w0].piece;
  int p1 = c->words.w[w1 - 1].piece + c->words.w[w1 - 1].n_pieces;
  for (int p = p0; p < p1; p++)
    if (el__seqs_put(&c->seqs, &c->tk.tok[p].id, 1, err)) return err->code;
  return 0;
}

int el__word_low(const el__checker *c, int w, char *low) {
  const el__word *x = &c->words.w[w];
  size_t n = x->end - x->start;
  if (n == 0 || n >= EL__LWORD_MAX) return 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)c->text[x->start + i];
    if (ch >= 0x80) return 0;
    low[i] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
  }
  low[n] = 0;
  return 1;
}

int el__is_punct_word(const el__checker *c, int w) {
  char low[EL__LWORD_MAX];
  return el__word_low(c, w, low) && el__learner_token_kind(low) == EL__LK_PUNCT;
}

int el__word_text(const el__checker *c, int w, char *out, size_t cap) {
  const el__word *x = &c->words.w[w];
  size_t n = x->end - x->start;
  if (n >= cap) return 0;
  memcpy(out, c->text + x->start, n);
  out[n] = 0;
  return 1;
}

void el__sent_texts(const el__checker *c, const el__csent *s, char (*text)[EL__LWORD_MAX],
                    const char **w) {
  for (int i = 0; i < s->w1 - s->w0; i++) {
    if (!el__word_text(c, s->w0 + i, text[i], sizeof text[i])) strcpy(text[i], "?");
    w[i] = text[i];
  }
}
