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

static int push_sent(el__checker *c, int w0, int w1, el_error *err) {
  if (el__grow((void **)&c->sents, &c->sents_cap, (size_t)c->n_sents + 1, sizeof *c->sents))
    return el_error_set(err, EL_ENOMEM, "check: out of memory");
  c->sents[c->n_sents].w0 = w0;
  c->sents[c->n_sents++].w1 = w1;
  return 0;
}

/* A sentence ends after . ! ? (and the closing quotes or brackets after
 * them), at a blank line, or where it would outgrow the model. */
int el__check_sentences(el__checker *c, el_error *err) {
  int nw = c->words.n;
  c->n_sents = 0;
  if (el__grow((void **)&c->word_sent, &c->word_sent_cap, (size_t)nw + 1, sizeof(int)))
    return el_error_set(err, EL_ENOMEM, "check: out of memory");
  int w0 = 0, pieces = 0, ended = 0;
  for (int w = 0; w < nw; w++) {
    int np = c->words.w[w].n_pieces;
    int closer = word_is(c, w, ".!?)]}\"'");
    int cut = w > w0 && ((ended && !closer) || blank_line_between(c, w) ||
                         pieces + np > c->max_pos - ROOM);
    if (cut) {
      if (push_sent(c, w0, w, err)) return err->code;
      w0 = w;
      pieces = 0;
      ended = 0;
    }
    pieces += np;
    ended |= word_is(c, w, ".!?");
    c->word_sent[w] = c->n_sents;
  }
  if (nw > w0 && push_sent(c, w0, nw, err)) return err->code;
  return 0;
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
