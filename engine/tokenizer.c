/* el_tokenizer: vocabulary loading, and el_tokenize = strict UTF-8 decoding
 * + BasicTokenizer (tok_basic.c) + greedy longest-match-first WordPiece, the
 * way Hugging Face's BertTokenizer does it, with code-point offsets. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "electra/tokenizer.h"
#include "tok_basic.h"
#include "tok_utf8.h"
#include "tok_vocab.h"

struct el_tokenizer {
  el__vocab v;
  int lower;
  int special[5]; /* ids by el_special */
};

int el_tokenizer_load(const char *vocab_path, int do_lower_case, el_tokenizer **out,
                      el_error *err) {
  if (!vocab_path || !out) return el_error_set(err, EL_EINVAL, "el_tokenizer_load: NULL argument");
  *out = NULL;
  el_tokenizer *t = calloc(1, sizeof *t);
  if (!t) return el_error_set(err, EL_ENOMEM, "%s: out of memory", vocab_path);
  int rc = el__vocab_load(&t->v, vocab_path, err);
  if (rc) {
    el_tokenizer_free(t);
    return rc;
  }
  t->lower = do_lower_case != 0;
  el__basic_init(); /* pay the one-time table build at load, not on a request */
  char missing[64] = "";
  for (int k = 0; k < 5; k++) {
    const char *s = el__special_text(k);
    t->special[k] = el_tokenizer_id(t, s);
    if (t->special[k] < 0) {
      strcat(missing, " ");
      strcat(missing, s);
    }
  }
  if (missing[0]) {
    el_tokenizer_free(t);
    return el_error_set(err, EL_EFORMAT, "%s: vocabulary lacks the special token(s)%s", vocab_path,
                        missing);
  }
  *out = t;
  return EL_OK;
}

void el_tokenizer_free(el_tokenizer *tok) {
  if (!tok) return;
  el__vocab_free(&tok->v);
  free(tok);
}

int el_tokenizer_vocab_size(const el_tokenizer *tok) { return tok ? tok->v.n : 0; }
int el_tokenizer_lower_case(const el_tokenizer *tok) { return tok ? tok->lower : 0; }

const char *el_tokenizer_token(const el_tokenizer *tok, int id) {
  if (!tok || id < 0 || id >= tok->v.n) return NULL;
  return tok->v.blob + tok->v.off[id];
}

int el_tokenizer_id(const el_tokenizer *tok, const char *token) {
  if (!tok || !token) return -1;
  size_t n = strlen(token);
  return el__vocab_find(&tok->v, "", 0, token, n, el__vh_final(el__vh_add(el__vh_init(), token, n)));
}

int el_tokenizer_special_id(const el_tokenizer *tok, el_special which) {
  if (!tok || (int)which < 0 || (int)which > 4) return -1;
  return tok->special[which];
}

/* ---- output ------------------------------------------------------------ */

static int push_tok(el_tokens *o, int id, int s, int e, int word) {
  if (o->n == o->cap) {
    int nc = o->cap ? o->cap * 2 : 64;
    el_token *p = realloc(o->tok, (size_t)nc * sizeof *p);
    if (!p) return -1;
    o->tok = p, o->cap = nc;
  }
  el_token t = {id, s, e, word};
  o->tok[o->n++] = t;
  return 0;
}

static int push_word(el_tokens *o, int s, int e) {
  if (o->n_words == o->words_cap) {
    int nc = o->words_cap ? o->words_cap * 2 : 64;
    int *a = realloc(o->word_start, (size_t)nc * sizeof *a);
    if (!a) return -1;
    o->word_start = a;
    int *b = realloc(o->word_end, (size_t)nc * sizeof *b);
    if (!b) return -1;
    o->word_end = b;
    o->words_cap = nc;
  }
  o->word_start[o->n_words] = s;
  o->word_end[o->n_words] = e;
  o->n_words++;
  return 0;
}

/* ---- WordPiece --------------------------------------------------------- */

/* Greedy longest-match-first over the characters of one word. Substrings
 * longer than the longest vocabulary entry are never looked up, and the
 * hashes of all candidate ends are built in one incremental pass, so a word
 * costs O(chars * longest entry) instead of O(chars^3). */
static int wordpiece(const el_tokenizer *tk, const el__tchar *ch, int nch, int word, int base,
                     int ws, int we, el_tokens *o) {
  const int unk = tk->special[EL_TOK_UNK];
  if (nch > EL__MAX_WORD_CHARS) return push_tok(o, unk, ws, we, word);
  char u[EL__MAX_WORD_CHARS * 4];
  int boff[EL__MAX_WORD_CHARS + 1];
  uint32_t hs[EL__MAX_WORD_CHARS + 1];
  boff[0] = 0;
  for (int i = 0; i < nch; i++) boff[i + 1] = boff[i] + el__utf8_put(ch[i].cp, u + boff[i]);
  const int n0 = o->n, maxlen = tk->v.max_len;
  const uint64_t h_cont = el__vh_add(el__vh_init(), "##", 2);
  for (int start = 0; start < nch;) {
    const int pre = start > 0 ? 2 : 0;
    uint64_t h = pre ? h_cont : el__vh_init();
    int endmax = start;
    for (int end = start + 1; end <= nch; end++) {
      if (boff[end] - boff[start] + pre > maxlen) break;
      h = el__vh_add(h, u + boff[end - 1], (size_t)(boff[end] - boff[end - 1]));
      hs[end] = el__vh_final(h);
      endmax = end;
    }
    int id = -1, end = endmax;
    for (; end > start; end--) {
      id = el__vocab_find(&tk->v, "##", (size_t)pre, u + boff[start],
                          (size_t)(boff[end] - boff[start]), hs[end]);
      if (id >= 0) break;
    }
    if (id < 0) {
      o->n = n0; /* one unmatched position makes the whole word [UNK] */
      return push_tok(o, unk, ws, we, word);
    }
    int s = INT_MAX, e = -1;
    for (int i = start; i < end; i++) {
      if (ch[i].s < s) s = ch[i].s;
      if (ch[i].e > e) e = ch[i].e;
    }
    if (push_tok(o, id, base + s, base + e, word)) return -1;
    start = end;
  }
  return 0;
}

/* One BasicTokenizer word of el_tokenize's text: recorded, then a special
 * token's id or its WordPiece pieces. */
typedef struct wp_ctx {
  const el_tokenizer *tok;
  el_tokens *out;
} wp_ctx;

static int on_word(void *p, const el__basic *bt, const el__tword *wd, int base) {
  wp_ctx *c = p;
  int wi = c->out->n_words, ws = base + wd->start, we = base + wd->end;
  if (push_word(c->out, ws, we)) return -1;
  if (wd->special >= 0) return push_tok(c->out, c->tok->special[wd->special], ws, we, wi);
  return wordpiece(c->tok, bt->c + wd->b, (int)(wd->e - wd->b), wi, base, ws, we, c->out);
}

int el_tokenize(const el_tokenizer *tok, const char *text, size_t len, el_tokens *out,
                el_error *err) {
  return el_tokenize_opts(tok, text, len, 0, out, err);
}

int el_tokenize_opts(const el_tokenizer *tok, const char *text, size_t len, int flags,
                     el_tokens *out, el_error *err) {
  if (!tok || !out || (!text && len))
    return el_error_set(err, EL_EINVAL, "el_tokenize: NULL argument");
  out->n = 0;
  out->n_words = 0;
  out->n_codepoints = 0;
  wp_ctx c = {tok, out};
  int n_cp = 0;
  int lower = tok->lower ? 1 : 0;
  if (flags & EL_TOKENIZE_SPECIALS_AS_TEXT) lower |= EL__BASIC_NO_SPECIALS;
  int rc = el__basic_text(text, len, lower, on_word, &c, &n_cp, err);
  if (rc) {
    out->n = out->n_words = 0;
    return rc;
  }
  out->n_codepoints = n_cp;
  return EL_OK;
}

void el_tokens_free(el_tokens *t) {
  if (!t) return;
  free(t->tok);
  free(t->word_start);
  free(t->word_end);
  memset(t, 0, sizeof *t);
}
