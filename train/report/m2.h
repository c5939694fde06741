/* M2 files, the gold standard of grammatical error correction (CoNLL-2014,
 * BEA-2019, ERRANT's output): a sentence `S tok tok ...` followed by its
 * edits `A start end|||TYPE|||correction|||REQUIRED|||-NONE-|||annotator`,
 * a blank line between sentences. An edit replaces the original tokens
 * [start, end) with the correction's tokens: start == end inserts before
 * token start, an empty correction deletes. `noop` lines say "no edit".
 *
 * Corrections are compared with the gold as token edits in minimal form
 * (el__m2_add_edit), the convention of the M2/ERRANT scorers; m2_score.h
 * scores them. */
#ifndef EL_TRAIN_M2_H
#define EL_TRAIN_M2_H

#include <stddef.h>
#include <stdio.h>

#include "electra/error.h"

#define EL__M2_TYPE_MAX 32 /* "R:VERB:TENSE", "SPELL" (bytes + NUL) */

typedef struct el__m2_edit {
  int start, end;              /* original tokens [start, end); start == end: insertion */
  char *repl;                  /* the replacement tokens joined by single spaces; "" deletes */
  char type[EL__M2_TYPE_MAX];  /* gold: ERRANT's as written ("M:DET"); proposed: the system's */
} el__m2_edit;

typedef struct el__m2_edits {
  int n, cap;
  el__m2_edit *e;
} el__m2_edits;

typedef struct el__m2_sent {
  char *text;        /* the tokens joined by single spaces: what a checker is given */
  size_t len;        /* strlen(text) */
  int n_tok;
  int *off, *tlen;   /* token i is text[off[i], off[i] + tlen[i]) */
  el__m2_edits gold; /* annotator 0's edits, noop left out, in file order */
} el__m2_sent;

typedef struct el__m2 {
  int n, cap;
  el__m2_sent *s;
} el__m2;

/* Reads an M2 file. Malformed input is EL_EFORMAT naming the file and line
 * ("dev.m2:12: edit span 5 9 outside the sentence's 7 tokens"). *out is
 * zeroed first; el__m2_free releases it (also after a failure). */
int el__m2_read(const char *path, el__m2 *out, el_error *err);
/* The same from memory; name is used in messages. */
int el__m2_parse(const char *buf, size_t len, const char *name, el__m2 *out, el_error *err);
void el__m2_free(el__m2 *m);

/* Appends to out the edit replacing s's tokens [start, end) by repl (tokens
 * separated by any whitespace; "" deletes) in minimal form: the tokens the
 * original span and the replacement share at the start, then at the end,
 * are dropped, so "school" -> "the school" is the insertion of "the" before
 * "school". Nothing is added when the edit changes nothing or is already in
 * out (a system proposing the same edit twice proposes it once). EL_EINVAL
 * for a span outside the sentence, EL_ENOMEM. */
int el__m2_add_edit(const el__m2_sent *s, int start, int end, const char *repl, const char *type,
                    el__m2_edits *out, el_error *err);

/* The same for a correction given in bytes of s->text, as a checker reports
 * it: text[off, off + len) replaced by repl. The tokens the span touches
 * become the edit's span, their untouched parts kept around repl ("goes"
 * for bytes 1..3 of "gos" -> "ggoes" is still a one-token edit); an
 * insertion between tokens is an insertion before the next one. */
int el__m2_add_byte_edit(const el__m2_sent *s, size_t off, size_t len, const char *repl,
                         const char *type, el__m2_edits *out, el_error *err);

/* Appends the edit as given (whitespace in repl collapsed to single
 * spaces): the gold's, which M2 files already write minimally. */
int el__m2_push_edit(el__m2_edits *out, int start, int end, const char *repl, size_t repl_len,
                     const char *type, el_error *err);
void el__m2_edits_free(el__m2_edits *es);

/* Writes m's sentences with prop[i] as their edits (annotator 0; a proposed
 * type gets its operation prefix, "SPELL" -> "R:SPELL"; no edit is a noop
 * line). -1 on a write error (errno set). */
int el__m2_write(FILE *f, const el__m2 *m, const el__m2_edits *prop);

#endif
