/* Reading task files and turning examples into model inputs; see finetune.h. */
#include <stdlib.h>
#include <string.h>

#include "finetune.h"
#include "trainer_api.h"

int el__ft_read(const el__task *t, const char *path, const el__tsv_columns *cols,
                char *const *labels, int n_labels, int max_examples, el__ft_examples *out,
                el_error *err) {
  memset(out, 0, sizeof *out);
  out->task = t;
  out->path = path;
  int rc;
  if (t->kind == EL__TASK_CLS || t->kind == EL__TASK_REG) {
    if ((rc = el__cls_read(t, path, cols, labels, n_labels, &out->cls, err))) return rc;
    if (max_examples > 0 && out->cls.n > max_examples) {
      for (int i = max_examples; i < out->cls.n; i++) {
        free(out->cls.ex[i].a);
        free(out->cls.ex[i].b);
      }
      out->cls.n = max_examples;
    }
  } else if (t->kind == EL__TASK_GED) {
    if ((rc = el__ged_read(path, &out->ged, err))) return rc;
    if (max_examples > 0 && out->ged.n > max_examples) {
      el__ged_data *g = &out->ged;
      for (int i = max_examples; i < g->n; i++) {
        for (int j = 0; j < g->s[i].n; j++) {
          free(g->s[i].words[j]);
          g->n_words--;
          g->n_errors -= g->s[i].err[j];
        }
        free(g->s[i].words);
        free(g->s[i].err);
      }
      g->n = max_examples;
    }
  } else {
    if ((rc = el__squad_read(path, &out->squad, err))) return rc;
    el__squad_data *s = &out->squad;
    if (max_examples > 0 && s->n_q > max_examples) {
      for (int i = max_examples; i < s->n_q; i++) {
        el__squad_q *q = &s->q[i];
        if (!q->impossible && q->train_answer < 0) s->n_untrainable--;
        free(q->id);
        free(q->question);
        for (int j = 0; j < q->n_answers; j++) free(q->answers[j].text);
        free(q->answers);
      }
      s->n_q = max_examples;
    }
    if (t->squad2 == 0 && s->v2) {
      int imp = 0;
      for (int i = 0; i < s->n_q; i++) imp += s->q[i].impossible;
      if (imp) {
        el__squad_free(s);
        return el_error_set(err, EL_EFORMAT,
                            "%s: %d unanswerable questions (SQuAD 2.0 data): use --task squad2",
                            path, imp);
      }
    }
  }
  return EL_OK;
}

void el__ft_examples_free(el__ft_examples *e) {
  if (!e) return;
  el__cls_free(&e->cls);
  el__ged_free(&e->ged);
  el__squad_free(&e->squad);
}

void el__ft_skip_note(const el__ft_examples *e, char *buf, int n) {
  buf[0] = 0;
  if (e->cls.n_skipped)
    snprintf(buf, (size_t)n, "skipped %d row(s); first: %s", e->cls.n_skipped, e->cls.first_skip);
  else if (e->squad.n_bad_answers || e->squad.n_renamed_ids)
    snprintf(buf, (size_t)n,
             "%d answer(s) not at their answer_start (not trained on; %d question(s) left without "
             "a usable answer)%s%s; %d repeated id(s) renamed",
             e->squad.n_bad_answers, e->squad.n_untrainable, e->squad.first_skip[0] ? "; first: " : "",
             e->squad.first_skip, e->squad.n_renamed_ids);
}

void el__ft_data_free(el__ft_data *d) {
  if (!d) return;
  free(d->f);
  free(d->ids);
  free(d->types);
  free(d->tlab);
  free(d->tword);
  for (int i = 0; i < d->n_qa_w; i++) el_qa_windows_free(&d->qa_w[i]);
  free(d->qa_w);
  free(d->qa_first_feat);
  memset(d, 0, sizeof *d);
}

/* Appends one feature of len tokens; returns it (its token arrays are at
 * d->ids + f->off ...), or NULL when out of memory. */
static el__feat *push_feat(el__ft_data *d, int len, int with_tok_labels) {
  if (el__grow((void **)&d->f, &d->cap, (size_t)d->n + 1, sizeof *d->f)) return NULL;
  if (d->n_tok + len > d->cap_tok) {
    long nc = d->cap_tok ? d->cap_tok : 1 << 16;
    while (nc < d->n_tok + len) nc *= 2;
    int *ni = realloc(d->ids, (size_t)nc * sizeof *ni);
    if (!ni) return NULL;
    d->ids = ni;
    int *nt = realloc(d->types, (size_t)nc * sizeof *nt);
    if (!nt) return NULL;
    d->types = nt;
    if (with_tok_labels) {
      signed char *nl = realloc(d->tlab, (size_t)nc);
      if (!nl) return NULL;
      d->tlab = nl;
      int *nw = realloc(d->tword, (size_t)nc * sizeof *nw);
      if (!nw) return NULL;
      d->tword = nw;
    }
    d->cap_tok = nc;
  }
  el__feat *f = &d->f[d->n++];
  memset(f, 0, sizeof *f);
  f->off = d->n_tok;
  f->len = len;
  d->n_tok += len;
  if (len > d->max_len) d->max_len = len;
  return f;
}

static int oom(el_error *err, const char *path) {
  return el_error_set(err, EL_ENOMEM, "%s: out of memory building features", path);
}

static int cls_features(const el__ft_examples *ex, const el_tokenizer *tok, int max_len,
                        el__ft_data *d, el_error *err) {
  el_tokens ta = {0}, tb = {0};
  el_encoding enc = {0};
  int rc = EL_OK;
  for (int i = 0; i < ex->cls.n && !rc; i++) {
    const el__cls_example *e = &ex->cls.ex[i];
    if ((rc = el_tokenize(tok, e->a, strlen(e->a), &ta, err)) ||
        (e->b && (rc = el_tokenize(tok, e->b, strlen(e->b), &tb, err))) ||
        (rc = el_encode(tok, &ta, e->b ? &tb : NULL, max_len, 1, &enc, err))) {
      char m[sizeof err->msg];
      snprintf(m, sizeof m, "%s", err ? err->msg : "");
      rc = el_error_set(err, rc, "%s:%d: %s", ex->path, e->line, m);
      break;
    }
    d->n_truncated += enc.truncated > 0;
    el__feat *f = push_feat(d, enc.n, 0);
    if (!f) {
      rc = oom(err, ex->path);
      break;
    }
    memcpy(d->ids + f->off, enc.ids, (size_t)enc.n * sizeof(int));
    memcpy(d->types + f->off, enc.type_ids, (size_t)enc.n * sizeof(int));
    f->example = i;
    f->label = e->label;
    f->value = e->value;
  }
  el_tokens_free(&ta);
  el_tokens_free(&tb);
  el_encoding_free(&enc);
  return rc;
}

/* Pieces of a word after its first: labelled like the word unless the word
 * rule reads the first piece only (then they are not trained). */
static signed char piece_label(el_score_rule rule, int first_piece, unsigned char word_err) {
  if (!first_piece && rule == EL_SCORE_FIRST) return -1;
  return (signed char)word_err;
}

static int ged_features(const el__ft_examples *ex, const el_tokenizer *tok, int max_len,
                        el_score_rule rule, el__ft_data *d, el_error *err) {
  int cls = el_tokenizer_special_id(tok, EL_TOK_CLS), sep = el_tokenizer_special_id(tok, EL_TOK_SEP);
  int unk = el_tokenizer_special_id(tok, EL_TOK_UNK);
  int room = max_len - 2, rc = EL_OK;
  if (room < 1) return el_error_set(err, EL_EINVAL, "--max-seq-len %d: too small", max_len);
  el_tokens tw = {0};
  int *pid = NULL, *pword = NULL, cap = 0, np = 0;
  unsigned char *pfirst = NULL;
  for (int si = 0; si < ex->ged.n && !rc; si++) {
    const el__ged_sentence *s = &ex->ged.s[si];
    np = 0;
    for (int w = 0; w < s->n; w++) {
      if ((rc = el_tokenize(tok, s->words[w], strlen(s->words[w]), &tw, err))) {
        char m[sizeof err->msg];
        snprintf(m, sizeof m, "%s", err ? err->msg : "");
        rc = el_error_set(err, rc, "%s:%d: %s", ex->path, s->line + w, m);
        break;
      }
      int k = tw.n ? tw.n : 1;
      if (k > room) {
        k = room; /* one absurdly long word: keep its first pieces */
        d->n_truncated++;
      }
      if (np + k > cap) {
        cap = (np + k) * 2;
        int *a = realloc(pid, (size_t)cap * sizeof *a), *b = a ? realloc(pword, (size_t)cap * sizeof *b) : NULL;
        unsigned char *c = b ? realloc(pfirst, (size_t)cap) : NULL;
        if (a) pid = a;
        if (b) pword = b;
        if (c) pfirst = c;
        if (!a || !b || !c) {
          rc = oom(err, ex->path);
          break;
        }
      }
      for (int j = 0; j < k; j++) {
        pid[np] = tw.n ? tw.tok[j].id : unk;
        pfirst[np] = j == 0;
        pword[np++] = w;
      }
    }
    /* chunks of whole words, each at most room pieces */
    for (int a = 0; a < np && !rc;) {
      int b = a + room < np ? a + room : np;
      if (b < np)
        while (b > a + 1 && !pfirst[b]) b--; /* do not split a word */
      el__feat *f = push_feat(d, b - a + 2, 1);
      if (!f) {
        rc = oom(err, ex->path);
        break;
      }
      f->example = si;
      long o = f->off;
      d->ids[o] = cls;
      d->ids[o + b - a + 1] = sep;
      d->tlab[o] = d->tlab[o + b - a + 1] = -1;
      d->tword[o] = d->tword[o + b - a + 1] = -1;
      for (int j = a; j < b; j++) {
        d->ids[o + 1 + j - a] = pid[j];
        d->tword[o + 1 + j - a] = pword[j];
        d->tlab[o + 1 + j - a] = piece_label(rule, pfirst[j], s->err[pword[j]]);
      }
      memset(d->types + o, 0, (size_t)(b - a + 2) * sizeof(int));
      a = b;
    }
  }
  free(pid);
  free(pword);
  free(pfirst);
  el_tokens_free(&tw);
  return rc;
}

static int qa_features(const el__ft_examples *ex, const el_tokenizer *tok, const el_qa_params *p,
                       el__ft_data *d, el_error *err) {
  const el__squad_data *sq = &ex->squad;
  d->qa_w = calloc((size_t)sq->n_q, sizeof *d->qa_w);
  d->qa_first_feat = calloc((size_t)sq->n_q + 1, sizeof *d->qa_first_feat);
  if (!d->qa_w || !d->qa_first_feat) return oom(err, ex->path);
  d->n_qa_w = sq->n_q;
  el_tokens tq = {0}, tc = {0};
  int rc = EL_OK, last_ctx = -1;
  for (int qi = 0; qi < sq->n_q && !rc; qi++) {
    const el__squad_q *q = &sq->q[qi];
    const char *ctx = sq->contexts[q->ctx];
    if (q->ctx != last_ctx && (rc = el_tokenize(tok, ctx, strlen(ctx), &tc, err))) break;
    last_ctx = q->ctx;
    if ((rc = el_tokenize(tok, q->question, strlen(q->question), &tq, err))) break;
    el_qa_windows *w = &d->qa_w[qi];
    if ((rc = el_qa_windows_build(tok, &tq, &tc, p, w, err))) {
      char m[sizeof err->msg];
      snprintf(m, sizeof m, "%s", err ? err->msg : "");
      rc = el_error_set(err, rc, "%s: question %s: %s", ex->path, q->id, m);
      break;
    }
    /* the answer's pieces: first piece ending after its start, last piece
     * starting before its end */
    int ts = -1, te = -1;
    if (!q->impossible && q->train_answer >= 0) {
      const el__squad_answer *a = &q->answers[q->train_answer];
      int as = a->start, ae = a->start + (int)el_utf8_offsets(a->text, strlen(a->text), NULL);
      for (int k = 0; k < tc.n; k++) {
        if (ts < 0 && tc.tok[k].end > as) ts = k;
        if (tc.tok[k].start < ae) te = k;
      }
      if (ts < 0 || te < ts) ts = te = -1;
    }
    d->qa_first_feat[qi] = d->n;
    for (int wi = 0; wi < w->n; wi++) {
      const el_encoding *e = &w->enc[wi];
      el__feat *f = push_feat(d, e->n, 0);
      if (!f) {
        rc = oom(err, ex->path);
        break;
      }
      memcpy(d->ids + f->off, e->ids, (size_t)e->n * sizeof(int));
      memcpy(d->types + f->off, e->type_ids, (size_t)e->n * sizeof(int));
      f->example = qi;
      f->window = wi;
      /* the whole answer inside this window, else [CLS] (position 0) */
      if (ts >= 0 && ts >= w->ctx_first[wi] && te < w->ctx_first[wi] + w->ctx_len[wi]) {
        f->label = w->ctx_pos[wi] + ts - w->ctx_first[wi];
        f->label2 = w->ctx_pos[wi] + te - w->ctx_first[wi];
      }
    }
  }
  if (!rc) d->qa_first_feat[sq->n_q] = d->n;
  el_tokens_free(&tq);
  el_tokens_free(&tc);
  return rc;
}

int el__ft_features(const el__ft_examples *ex, const el_tokenizer *tok, const el__ft_shape *s,
                    el__ft_data *out, el_error *err) {
  memset(out, 0, sizeof *out);
  int rc;
  switch (ex->task->kind) {
    case EL__TASK_CLS:
    case EL__TASK_REG: rc = cls_features(ex, tok, s->max_seq_len, out, err); break;
    case EL__TASK_GED: rc = ged_features(ex, tok, s->max_seq_len, s->ged_rule, out, err); break;
    default: rc = qa_features(ex, tok, &s->qa, out, err); break;
  }
  if (rc) el__ft_data_free(out);
  return rc;
}
