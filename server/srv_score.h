/* /score's words: a writer's words (check/words.h: "don't" is one word,
 * FCE's "do n't" two) over the encoded pieces, each word's P(error) by the
 * model's rule over its pieces (el_word_prob), and with "suggestions" the
 * grammar checker's replacements and ERRANT type for each flagged word
 * (el__check_text run as a work job on the inference thread, as /v2/check
 * does). srv_api.c owns the request; this file owns the words. */
#ifndef EL_SERVER_SCORE_H
#define EL_SERVER_SCORE_H

#include <stddef.h>

#include "check.h"
#include "dict.h"
#include "ngram.h"
#include "electra/electra.h"
#include "srv_errors.h"
#include "srv_sbuf.h"
#include "words.h"

/* One /score text. Zero it; el__score_text_free releases it. */
typedef struct el__score_text {
  const char *text; /* borrowed (the request's JSON) */
  size_t len;
  el__text_words words;
  el__checker *checker; /* non-NULL: "suggestions" asked; used on the inference thread only */
  el__matches matches;
  int failed;           /* the check failed: its message in errmsg */
  char errmsg[600]; /* "check: " and an el_error message */
} el__score_text;

/* Groups the pieces t of text into words (prepare thread). */
int el__score_text_words(el__score_text *st, const char *text, size_t len, const el_tokens *t,
                         el_error *err);

/* el__seq.work of the text's check (arg: the el__score_text). */
void el__score_text_check(void *arg);

typedef struct el__score_view {
  const el_encoding *enc; /* the text's encoding ([CLS] text [SEP], maybe truncated) */
  const float *prob;      /* P(error) per encoded position */
  el_score_rule rule;
  double threshold;
  el__dict *dict;         /* non-NULL: the model is read beside hunspell (srv_dict.h) */
  double dict_weight, dict_name_weight; /* its config.json's weights */
  el__ngram *ngram;       /* with dict, non-NULL: the n-gram model's verdicts join hunspell's */
  const el__learner *learner;
} el__score_view;

/* The "words" array's members (without the brackets). 500 when the check failed. */
el__http_err el__score_text_render(el__sb *b, const el__score_text *st, const el__score_view *v,
                                   el__fail *f);

void el__score_text_free(el__score_text *st);

#endif
