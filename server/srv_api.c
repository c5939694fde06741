/* POST route bodies: JSON -> plain request -> JSON (srv_api.h). The body's
 * JSON rules are srv_request.c's; here each route reads its fields with them,
 * tokenizes and encodes its texts, lays out the sequences and renders the
 * answer. */
#include "srv_api.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "electra/qa.h"
#include "srv_dict.h"
#include "srv_metrics.h"
#include "srv_request.h"
#include "srv_score.h"

#define QA_MAX_TOP_K 100

/* One text of the request: points into the cJSON tree. */
typedef struct text_in {
  const char *s;
  size_t len;
  el_tokens toks;
  size_t *cp_byte; /* byte offset of each code point, n_cp + 1 entries */
  int n_cp;
} text_in;

/* One input: a /score text, a /classify input or a /qa pair. */
typedef struct item {
  text_in a, b;
  int has_b;
  el_encoding enc;   /* /score, /classify */
  el__score_text words; /* /score: its words (and suggestions) */
  el_qa_windows win; /* /qa */
  float *out;        /* outputs of this item's sequences, back to back */
  int seq0, nseq;
} item;

struct el__api_req {
  int route;
  cJSON *root;
  el__model_entry *entry;
  int batch_form; /* "texts"/"inputs": answer with "results" */
  item *items;
  int n_items;
  el__seq *seqs;
  int n_seqs;
  float *outbuf;
  double threshold;
  int suggestions; /* /score: each text also checked (a work job beside its forward pass) */
  int truncate;
  int add_special;
  int tok_flags; /* el_tokenize_opts flags: special_tokens_in_text false -> SPECIALS_AS_TEXT */
  el_qa_params qa;
  int top_k, handle_impossible;
};

el__seq *el__api_seqs(el__api_req *r, int *n) {
  *n = r->n_seqs;
  return r->seqs;
}

el__model_entry *el__api_entry(const el__api_req *r) { return r->entry; }

static void text_free(text_in *t) {
  el_tokens_free(&t->toks);
  free(t->cp_byte);
}

void el__api_free(el__api_req *r) {
  if (!r) return;
  for (int i = 0; i < r->n_items; i++) {
    item *it = &r->items[i];
    text_free(&it->a);
    text_free(&it->b);
    el_encoding_free(&it->enc);
    el__score_text_free(&it->words);
    el_qa_windows_free(&it->win);
  }
  free(r->items);
  free(r->seqs);
  free(r->outbuf);
  cJSON_Delete(r->root);
  free(r);
}

/* Copies a JSON string into t and tokenizes it. A text without a token is
 * refused: "" and "  " alike (whitespace and characters the tokenizer drops
 * are nothing to score, classify or answer from). */
static el__http_err load_text(el__api_req *r, const cJSON *v, const char *what, text_in *t,
                              el__fail *f) {
  t->s = v->valuestring;
  t->len = strlen(v->valuestring);
  el_error er = {0};
  int rc = t->len ? el_tokenize_opts(r->entry->tok, t->s, t->len, r->tok_flags, &t->toks, &er)
                  : EL_OK;
  if (rc == EL_EINVAL)
    return el__failf(f, EL_HERR_INVALID_REQUEST, "%s: %s", what, er.msg);
  if (rc) return el__failf(f, EL_HERR_INTERNAL, "%s: tokenizer: %s", what, er.msg);
  if (t->toks.n == 0)
    return el__failf(f, EL_HERR_INVALID_REQUEST, "%s has no tokens (it is empty or only "
                     "whitespace)", what);
  /* code point -> byte map for slicing words and answers */
  t->cp_byte = malloc((t->len + 1) * sizeof *t->cp_byte);
  if (!t->cp_byte) return el__failf(f, EL_HERR_INTERNAL, "out of memory");
  t->n_cp = (int)el_utf8_offsets(t->s, t->len, t->cp_byte);
  return EL_HERR_NONE;
}

/* Offsets clamp to the text so a tokenizer quirk can never index out of it. */
static void put_slice(el__sb *b, const text_in *t, int start, int end) {
  if (start < 0) start = 0;
  if (end > t->n_cp) end = t->n_cp;
  if (end < start) end = start;
  el__sb_json_str(b, t->s + t->cp_byte[start], t->cp_byte[end] - t->cp_byte[start]);
}

static el__http_err encode_item(el__api_req *r, item *it, int idx, el__fail *f) {
  el_error er = {0};
  int rc = el_encode(r->entry->tok, &it->a.toks, it->has_b ? &it->b.toks : NULL,
                     r->entry->max_len, r->truncate, &it->enc, &er);
  if (rc == EL_ETOOLONG) {
    int pieces = it->a.toks.n + (it->has_b ? it->b.toks.n : 0);
    return el__failf(f, EL_HERR_VALIDATION,
                     "input %d has %d tokens with [CLS]/[SEP]; model \"%s\" takes at most %d "
                     "(send \"truncate\": true to cut it)",
                     idx, pieces + (it->has_b ? 3 : 2), r->entry->name, r->entry->max_len);
  }
  if (rc) return el__failf(f, EL_HERR_INTERNAL, "encode: %s", er.msg);
  return EL_HERR_NONE;
}

/* The route's items (el__req_items) and an item struct for each: r->items,
 * r->n_items. *nodes (the caller frees it) holds each item's JSON. */
static el__http_err take_items(el__api_req *r, const char *single, const char *list,
                               int strings_ok, int max, const cJSON ***nodes, el__fail *f) {
  int n = 0;
  el__http_err e =
      el__req_items(r->root, single, list, strings_ok, max, nodes, &n, &r->batch_form, f);
  if (e) return e;
  r->items = calloc((size_t)n, sizeof *r->items);
  if (!r->items) {
    free(*nodes);
    *nodes = NULL;
    return el__failf(f, EL_HERR_INTERNAL, "out of memory");
  }
  r->n_items = n;
  return EL_HERR_NONE;
}

/* The item's writer's words, and its checker when suggestions are asked. */
static el__http_err score_words(el__api_req *r, item *it, el__fail *f) {
  el_error er = {0};
  if (el__score_text_words(&it->words, it->a.s, it->a.len, &it->a.toks, &er))
    return el__failf(f, EL_HERR_INTERNAL, "words: %s", er.msg);
  if (r->suggestions) it->words.checker = r->entry->checker;
  return EL_HERR_NONE;
}

static el__http_err prepare_score(el__api_req *r, const el__api_limits *lim, el__fail *f) {
  el__http_err e;
  r->threshold = r->entry->threshold; /* the model's score_threshold, else 0.5 */
  if ((e = el__req_fraction(r->root, "threshold", &r->threshold, f))) return e;
  if ((e = el__req_bool(r->root, "truncate", &r->truncate, f))) return e;
  if ((e = el__req_bool(r->root, "suggestions", &r->suggestions, f))) return e;
  if (r->suggestions && !r->entry->checker) /* as /v2/check answers without one */
    return el__failf(f, EL_HERR_UNAVAILABLE, "\"suggestions\": %s",
                     r->entry->check_err[0] ? r->entry->check_err : "no grammar checker");
  const cJSON **nodes = NULL;
  if ((e = take_items(r, "text", "texts", 1, lim->max_inputs, &nodes, f))) return e;
  for (int i = 0; i < r->n_items && !e; i++) {
    const cJSON *v = nodes[i];
    char what[32];
    if (!r->batch_form) {
      if ((e = el__req_string(v, "text", "", &v, f))) break;
      snprintf(what, sizeof what, "\"text\"");
    } else {
      snprintf(what, sizeof what, "\"texts\"[%d]", i);
    }
    if ((e = load_text(r, v, what, &r->items[i].a, f))) break;
    if ((e = score_words(r, &r->items[i], f))) break;
    e = encode_item(r, &r->items[i], i, f);
  }
  free(nodes);
  return e;
}

static el__http_err prepare_classify(el__api_req *r, const el__api_limits *lim, el__fail *f) {
  el__http_err e;
  if ((e = el__req_bool(r->root, "truncate", &r->truncate, f))) return e;
  const cJSON **nodes = NULL;
  if ((e = take_items(r, "text", "inputs", 0, lim->max_inputs, &nodes, f))) return e;
  if (r->batch_form && el__req_given(r->root, "text_pair"))
    e = el__failf(f, EL_HERR_INVALID_REQUEST, "\"text_pair\" goes with \"text\"; with "
                  "\"inputs\" give each input its own \"text_pair\"");
  for (int i = 0; i < r->n_items && !e; i++) {
    char where[40] = "", what[80];
    if (r->batch_form) snprintf(where, sizeof where, "\"inputs\"[%d].", i);
    const cJSON *t, *p;
    if (r->batch_form && (e = el__req_check_input(nodes[i], r->route, where, f)))
      break;
    if ((e = el__req_string(nodes[i], "text", where, &t, f))) break;
    if (!t) {
      e = el__failf(f, EL_HERR_INVALID_REQUEST, "missing %s\"text\"", where);
      break;
    }
    if ((e = el__req_string(nodes[i], "text_pair", where, &p, f))) break;
    snprintf(what, sizeof what, "%s\"text\"", where);
    if ((e = load_text(r, t, what, &r->items[i].a, f))) break;
    if (p) {
      snprintf(what, sizeof what, "%s\"text_pair\"", where);
      if ((e = load_text(r, p, what, &r->items[i].b, f))) break;
      r->items[i].has_b = 1;
    }
    e = encode_item(r, &r->items[i], i, f);
  }
  free(nodes);
  return e;
}

static el__http_err prepare_qa(el__api_req *r, const el__api_limits *lim, el__fail *f) {
  el__http_err e;
  r->qa = el_qa_default_params();
  r->qa.score = EL_QA_SCORE_PROB;
  r->top_k = 1;
  int max_len = r->entry->max_len;
  if (r->qa.max_seq_len > max_len) r->qa.max_seq_len = max_len;
  if ((e = el__req_int(r->root, "top_k", 1, QA_MAX_TOP_K, &r->top_k, f))) return e;
  if ((e = el__req_int(r->root, "max_answer_len", 1, 1 << 20, &r->qa.max_answer_len, f))) return e;
  if ((e = el__req_int(r->root, "max_seq_len", 8, max_len, &r->qa.max_seq_len, f))) return e;
  if ((e = el__req_int(r->root, "doc_stride", 1, 1 << 20, &r->qa.doc_stride, f))) return e;
  if ((e = el__req_int(r->root, "max_question_len", 1, 1 << 20, &r->qa.max_query_len, f))) return e;
  if ((e = el__req_bool(r->root, "handle_impossible_answer", &r->handle_impossible, f))) return e;
  r->qa.include_null = r->handle_impossible;
  const cJSON **nodes = NULL;
  if ((e = take_items(r, "question", "inputs", 0, lim->max_inputs, &nodes, f))) return e;
  long windows = 0;
  if (r->batch_form && el__req_given(r->root, "context"))
    e = el__failf(f, EL_HERR_INVALID_REQUEST, "\"context\" goes with \"question\"; with "
                  "\"inputs\" give each input its own \"context\"");
  for (int i = 0; i < r->n_items && !e; i++) {
    char where[40] = "", what[80];
    if (r->batch_form) snprintf(where, sizeof where, "\"inputs\"[%d].", i);
    const cJSON *q, *c;
    if (r->batch_form && (e = el__req_check_input(nodes[i], r->route, where, f)))
      break;
    if ((e = el__req_string(nodes[i], "question", where, &q, f))) break;
    if ((e = el__req_string(nodes[i], "context", where, &c, f))) break;
    if (!q || !c) {
      e = el__failf(f, EL_HERR_INVALID_REQUEST, "missing %s\"%s\"", where,
                    q ? "context" : "question");
      break;
    }
    item *it = &r->items[i];
    snprintf(what, sizeof what, "%s\"question\"", where);
    if ((e = load_text(r, q, what, &it->a, f))) break;
    snprintf(what, sizeof what, "%s\"context\"", where);
    if ((e = load_text(r, c, what, &it->b, f))) break;
    it->has_b = 1;
    /* counted before building: a long context at a small doc_stride would
     * otherwise allocate and queue its windows before anything refuses it */
    int count = el_qa_window_count(it->a.toks.n, it->b.toks.n, &r->qa);
    if (count > 0 && (windows += count) > lim->max_qa_windows) {
      e = el__failf(f, EL_HERR_VALIDATION,
                    "the contexts need at least %ld windows of max_seq_len %d at doc_stride %d (input %d "
                    "alone %d); at most %d per request (--max-qa-windows): send shorter "
                    "contexts or a larger doc_stride",
                    windows, r->qa.max_seq_len, r->qa.doc_stride, i, count, lim->max_qa_windows);
      break;
    }
    el_error er = {0};
    int rc = el_qa_windows_build(r->entry->tok, &it->a.toks, &it->b.toks, &r->qa, &it->win, &er);
    if (rc == EL_EINVAL)
      e = el__failf(f, EL_HERR_VALIDATION, "input %d: %s", i, er.msg);
    else if (rc)
      e = el__failf(f, EL_HERR_INTERNAL, "input %d: %s", i, er.msg);
  }
  free(nodes);
  return e;
}

static el__http_err prepare_tokenize(el__api_req *r, el__fail *f) {
  el__http_err e;
  r->add_special = 1;
  if ((e = el__req_bool(r->root, "add_special_tokens", &r->add_special, f))) return e;
  const cJSON *t;
  if ((e = el__req_string(r->root, "text", "", &t, f))) return e;
  if (!t) return el__failf(f, EL_HERR_INVALID_REQUEST, "missing \"text\"");
  r->items = calloc(1, sizeof *r->items);
  if (!r->items) return el__failf(f, EL_HERR_INTERNAL, "out of memory");
  r->n_items = 1;
  return load_text(r, t, "\"text\"", &r->items[0].a, f);
}

/* Lays out one output block per item and the sequence list. */
static el__http_err build_seqs(el__api_req *r, el__fail *f) {
  size_t floats = 0;
  int nseq = 0;
  int labels = r->entry->cfg->num_labels > 0 ? r->entry->cfg->num_labels : 1;
  for (int i = 0; i < r->n_items; i++) {
    item *it = &r->items[i];
    it->seq0 = nseq;
    if (r->route == EL_ROUTE_QA) {
      it->nseq = it->win.n;
      floats += 2 * (size_t)it->win.total_tokens;
    } else if (r->route == EL_ROUTE_CLASSIFY) {
      it->nseq = 1;
      floats += (size_t)labels;
    } else {
      it->nseq = 1;
      floats += (size_t)it->enc.n;
    }
    nseq += it->nseq;
  }
  int checks = r->suggestions ? r->n_items : 0; /* after the forward sequences */
  nseq += checks;
  r->outbuf = malloc((floats ? floats : 1) * sizeof(float));
  r->seqs = calloc((size_t)(nseq ? nseq : 1), sizeof *r->seqs);
  if (!r->outbuf || !r->seqs) return el__failf(f, EL_HERR_INTERNAL, "out of memory");
  size_t off = 0;
  for (int i = 0; i < r->n_items; i++) {
    item *it = &r->items[i];
    it->out = r->outbuf + off;
    if (r->route == EL_ROUTE_QA) {
      for (int w = 0; w < it->win.n; w++) {
        el__seq *s = &r->seqs[it->seq0 + w];
        s->ids = it->win.enc[w].ids;
        s->type_ids = it->win.enc[w].type_ids;
        s->len = it->win.enc[w].n;
        s->out = r->outbuf + off;
        off += 2 * (size_t)s->len;
      }
    } else {
      el__seq *s = &r->seqs[it->seq0];
      s->ids = it->enc.ids;
      s->type_ids = it->enc.type_ids;
      s->len = it->enc.n;
      s->out = r->outbuf + off;
      off += r->route == EL_ROUTE_CLASSIFY ? (size_t)labels : (size_t)it->enc.n;
    }
  }
  for (int i = 0; i < checks; i++) {
    el__seq *s = &r->seqs[nseq - checks + i];
    s->work = el__score_text_check;
    s->arg = &r->items[i].words;
    s->len = r->items[i].enc.n; /* its cost in the batch budget: a pass's worth */
  }
  r->n_seqs = nseq;
  return EL_HERR_NONE;
}

/* The route's inputs: tokenized and encoded (QA: windowed) per item. */
static el__http_err prepare_route(el__api_req *r, const el__api_limits *lim, el__fail *f) {
  switch (r->route) {
    case EL_ROUTE_SCORE: return prepare_score(r, lim, f);
    case EL_ROUTE_CLASSIFY: return prepare_classify(r, lim, f);
    case EL_ROUTE_QA: return prepare_qa(r, lim, f);
    default: return prepare_tokenize(r, f);
  }
}

el__http_err el__api_prepare(int route, const char *body, size_t len, el__model_set *set,
                             const el__api_limits *lim, el__api_req **out, el__fail *f) {
  *out = NULL;
  el__api_req *r = calloc(1, sizeof *r);
  if (!r) return el__failf(f, EL_HERR_INTERNAL, "out of memory");
  r->route = route;
  /* the body's JSON first (srv_request.c), then the route's inputs */
  el__http_err e;
  if (!(e = el__req_parse(body, len, lim->max_depth, &r->root, f)) &&
      !(e = el__req_check_body(r->root, route, f)) &&
      !(e = el__req_model(r->root, set, route, &r->entry, f)) &&
      !(e = el__req_specials(r->root, lim->specials_as_text, &r->tok_flags, f)) &&
      !(e = prepare_route(r, lim, f)) && route != EL_ROUTE_TOKENIZE)
    e = build_seqs(r, f);
  if (e) {
    el__api_free(r);
    return e;
  }
  *out = r;
  return EL_HERR_NONE;
}

/* ---- rendering ---- */

static el__http_err render_score_item(el__sb *b, const el__api_req *r, const item *it,
                                      el__fail *f) {
  const el_encoding *en = &it->enc;
  const float *prob = it->out;
  float max_prob = 0;
  el__sb_puts(b, "\"tokens\":[");
  int first = 1;
  for (int k = 0; k < en->n; k++) {
    if (en->segment[k] < 0) continue;
    const char *piece = el_tokenizer_token(r->entry->tok, en->ids[k]);
    el__sb_puts(b, first ? "{\"token\":" : ",{\"token\":");
    first = 0;
    el__sb_json_str(b, piece ? piece : "", piece ? strlen(piece) : 0);
    el__sb_printf(b, ",\"start\":%d,\"end\":%d,\"prob\":", en->start[k], en->end[k]);
    el__sb_json_num(b, prob[k]);
    el__sb_puts(b, "}");
    if (prob[k] > max_prob) max_prob = prob[k];
  }
  el__sb_puts(b, "],\"words\":[");
  const el_config *c = r->entry->cfg;
  el__score_view v = {en, prob, c->score_rule, r->threshold, r->entry->dict,
                      c->score_dictionary_weight, c->score_dictionary_name_weight,
                      r->entry->ngram, r->entry->learner};
  el__http_err e = el__score_text_render(b, &it->words, &v, f);
  if (e) return e;
  el__sb_puts(b, "],\"max_prob\":");
  el__sb_json_num(b, max_prob);
  return EL_HERR_NONE;
}

static void render_classify_item(el__sb *b, const el__api_req *r, const item *it) {
  const el_config *c = r->entry->cfg;
  const float *lg = it->out;
  if (c->regression || c->num_labels == 1) {
    el__sb_puts(b, "\"value\":");
    el__sb_json_num(b, lg[0]);
    return;
  }
  int L = c->num_labels;
  int order[256];
  double p[256];
  if (L > 256) L = 256;
  double m = lg[0], s = 0;
  for (int i = 1; i < L; i++)
    if (lg[i] > m) m = lg[i];
  for (int i = 0; i < L; i++) s += p[i] = exp(lg[i] - m);
  for (int i = 0; i < L; i++) {
    p[i] /= s;
    order[i] = i;
  }
  for (int i = 1; i < L; i++) { /* insertion sort: stable, highest first */
    int x = order[i], j = i;
    while (j > 0 && p[order[j - 1]] < p[x]) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = x;
  }
  const char *top = c->id2label && c->id2label[order[0]] ? c->id2label[order[0]] : "";
  el__sb_puts(b, "\"label\":");
  el__sb_json_str(b, top, strlen(top));
  el__sb_puts(b, ",\"score\":");
  el__sb_json_num(b, p[order[0]]);
  el__sb_puts(b, ",\"scores\":[");
  for (int i = 0; i < L; i++) {
    const char *lab = c->id2label && c->id2label[order[i]] ? c->id2label[order[i]] : "";
    el__sb_puts(b, i ? ",{\"label\":" : "{\"label\":");
    el__sb_json_str(b, lab, strlen(lab));
    el__sb_puts(b, ",\"score\":");
    el__sb_json_num(b, p[order[i]]);
    el__sb_puts(b, "}");
  }
  el__sb_puts(b, "]");
}

static el__http_err render_qa_item(el__sb *b, const el__api_req *r, const item *it,
                                   el__fail *f) {
  const el_qa_windows *w = &it->win;
  size_t T = (size_t)w->total_tokens;
  float *st = malloc((T ? T : 1) * sizeof(float)), *en = malloc((T ? T : 1) * sizeof(float));
  el_qa_span spans[QA_MAX_TOP_K];
  if (!st || !en) {
    free(st);
    free(en);
    return el__failf(f, EL_HERR_INTERNAL, "out of memory");
  }
  /* each window's block holds its start then end logits: unpack to the
   * packed layout el_qa_decode takes */
  size_t off = 0, src = 0;
  for (int k = 0; k < w->n; k++) {
    size_t len = (size_t)w->enc[k].n;
    memcpy(st + off, it->out + src, len * sizeof(float));
    memcpy(en + off, it->out + src + len, len * sizeof(float));
    off += len;
    src += 2 * len;
  }
  int n = 0;
  el_qa_null null = {0};
  el_error er = {0};
  int rc = el_qa_decode(w, st, en, &r->qa, spans, r->top_k, &n, &null, &er);
  free(st);
  free(en);
  if (rc) return el__failf(f, EL_HERR_INTERNAL, "qa decode: %s", er.msg);
  const el_config *c = r->entry->cfg;
  /* The null answer: by the model's threshold when it has one (put first);
   * else ranked by its probability among the spans (as HF's pipeline). */
  int null_rank = -1; /* position of the empty answer in the list, -1: absent */
  if (r->handle_impossible) {
    if (c->has_null_threshold) {
      if (el_qa_is_impossible(&null, spans, n, c->null_threshold)) null_rank = 0;
    } else {
      null_rank = 0;
      while (null_rank < n && spans[null_rank].score >= null.prob) null_rank++;
      if (null_rank >= r->top_k) null_rank = -1;
    }
  }
  el__sb_puts(b, "\"answers\":[");
  int written = 0;
  for (int k = 0; k <= n && written < r->top_k; k++) {
    if (k == null_rank) {
      el__sb_puts(b, written ? ",{\"text\":\"\",\"start\":0,\"end\":0,\"score\":"
                             : "{\"text\":\"\",\"start\":0,\"end\":0,\"score\":");
      el__sb_json_num(b, null.prob);
      el__sb_puts(b, "}");
      written++;
      if (written >= r->top_k) break;
    }
    if (k == n) break;
    el__sb_puts(b, written ? ",{\"text\":" : "{\"text\":");
    put_slice(b, &it->b, spans[k].start, spans[k].end);
    el__sb_printf(b, ",\"start\":%d,\"end\":%d,\"score\":", spans[k].start, spans[k].end);
    el__sb_json_num(b, spans[k].score);
    el__sb_puts(b, "}");
    written++;
  }
  el__sb_puts(b, "]");
  return EL_HERR_NONE;
}

/* "special" in /tokenize (the schema's description): [CLS], [SEP], [PAD] or
 * [MASK], added around the text or typed in it and read as special; [UNK]
 * stands for a word of the text, so it is not. */
static int is_special_id(const el_tokenizer *tok, int id) {
  static const el_special sp[] = {EL_TOK_PAD, EL_TOK_CLS, EL_TOK_SEP, EL_TOK_MASK};
  for (int i = 0; i < 4; i++)
    if (id == el_tokenizer_special_id(tok, sp[i])) return 1;
  return 0;
}

static void render_tokenize(el__sb *b, const el__api_req *r) {
  const item *it = &r->items[0];
  const el_tokens *tk = &it->a.toks;
  const el_tokenizer *tok = r->entry->tok;
  el__sb_puts(b, "\"tokens\":[");
  int first = 1;
  for (int k = -1; k <= tk->n; k++) {
    int added = k < 0 || k == tk->n; /* [CLS] before the text, [SEP] after it */
    if (added && !r->add_special) continue;
    int id = k < 0  ? el_tokenizer_special_id(tok, EL_TOK_CLS)
             : added ? el_tokenizer_special_id(tok, EL_TOK_SEP)
                     : tk->tok[k].id;
    const char *s = el_tokenizer_token(tok, id);
    el__sb_printf(b, "%s{\"id\":%d,\"token\":", first ? "" : ",", id);
    first = 0;
    el__sb_json_str(b, s ? s : "", s ? strlen(s) : 0);
    el__sb_printf(b, ",\"start\":%d,\"end\":%d,\"special\":%s}", added ? 0 : tk->tok[k].start,
                  added ? 0 : tk->tok[k].end, added || is_special_id(tok, id) ? "true" : "false");
  }
  el__sb_puts(b, "]");
}

el__http_err el__api_render(el__api_req *r, el__sb *b, el__fail *f) {
  el__sb_puts(b, "{\"model\":");
  el__sb_json_str(b, r->entry->name, strlen(r->entry->name));
  el__sb_puts(b, ",");
  if (r->route == EL_ROUTE_TOKENIZE) {
    render_tokenize(b, r);
    el__sb_puts(b, "}");
    return b->oom ? el__failf(f, EL_HERR_INTERNAL, "out of memory") : EL_HERR_NONE;
  }
  if (r->batch_form) el__sb_puts(b, "\"results\":[");
  for (int i = 0; i < r->n_items; i++) {
    if (r->batch_form) el__sb_puts(b, i ? ",{" : "{");
    const item *it = &r->items[i];
    el__http_err e = EL_HERR_NONE;
    if (r->route == EL_ROUTE_SCORE)
      e = render_score_item(b, r, it, f);
    else if (r->route == EL_ROUTE_CLASSIFY)
      render_classify_item(b, r, it);
    else
      e = render_qa_item(b, r, it, f);
    if (e) return e;
    if (r->batch_form) el__sb_puts(b, "}");
  }
  el__sb_puts(b, r->batch_form ? "]}" : "}");
  return b->oom ? el__failf(f, EL_HERR_INTERNAL, "out of memory") : EL_HERR_NONE;
}
