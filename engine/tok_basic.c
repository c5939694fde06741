/* BasicTokenizer stages with span tracking (see tok_basic.h for the order).
 * Unicode facts (categories, case mappings, canonical decompositions and
 * compositions) all come from utf8proc; the only tables written here are the
 * CJK ranges and ASCII punctuation ranges that BERT itself defines.
 * ASCII takes short paths: it never decomposes, never composes as the second
 * character of a pair, and its categories are fixed. */
#include "tok_basic.h"
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>
#include "grow.h"
#include "tok_utf8.h"

static const char *const k_special[5] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};

const char *el__special_text(int k) { return k >= 0 && k < 5 ? k_special[k] : NULL; }

/* ---- growable buffers -------------------------------------------------- */

#define RESERVE(buf, n, cap, extra) \
  (((n) + (extra) <= (cap)) ? 0 : el__grow((void **)&(buf), &(cap), (n) + (extra), sizeof *(buf)))

static inline el__tchar tc(int32_t cp, int32_t s, int32_t e) {
  el__tchar t = {cp, s, e, 0};
  return t;
}

/* ---- character classes (HF BasicTokenizer definitions) ----------------- */

static inline int is_cjk(int32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

static inline int is_punct(int32_t c) {
  if (c < 0x80)
    return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
           (c >= 123 && c <= 126);
  utf8proc_category_t k = utf8proc_category(c);
  return k >= UTF8PROC_CATEGORY_PC && k <= UTF8PROC_CATEGORY_PO;
}

/* Python's str.isspace, which str.split() uses: bidi WS/B/S or category Zs. */
static inline int is_pyspace(int32_t c) {
  if (c < 0x80) return c == ' ' || (c >= 9 && c <= 13) || (c >= 28 && c <= 31);
  const utf8proc_property_t *p = utf8proc_get_property(c);
  return p->category == UTF8PROC_CATEGORY_ZS || p->bidi_class == UTF8PROC_BIDI_CLASS_WS ||
         p->bidi_class == UTF8PROC_BIDI_CLASS_B || p->bidi_class == UTF8PROC_BIDI_CLASS_S;
}

/* Python str.lower() of one character: the simple lower-case mapping except
 * U+0130, whose only unconditional full mapping is "i" + U+0307. (Final sigma
 * never applies: HF lower-cases the text one character at a time.) */
static inline int py_lower(int32_t c, int32_t out[2]) {
  if (c < 0x80) {
    out[0] = (c >= 'A' && c <= 'Z') ? c + 32 : c;
    return 1;
  }
  if (c == 0x130) {
    out[0] = 'i', out[1] = 0x307;
    return 2;
  }
  out[0] = utf8proc_tolower(c);
  return 1;
}

/* ---- NFC ---------------------------------------------------------------- */

/* Bit set of every code point that can be the second half of a canonical
 * pair: the non-first characters of all full canonical decompositions (a
 * superset, used only to skip pointless composition attempts). Built once. */
static uint8_t g_second[0x110000 / 8];
static pthread_once_t g_second_once = PTHREAD_ONCE_INIT;

static void build_second(void) {
  int32_t d[32];
  for (int32_t c = 0x80; c < 0x110000; c++) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    utf8proc_ssize_t k = utf8proc_decompose_char(c, d, 32, UTF8PROC_DECOMPOSE, NULL);
    for (utf8proc_ssize_t j = 1; j < k && j < 32; j++) g_second[d[j] >> 3] |= (uint8_t)(1u << (d[j] & 7));
  }
}

static inline int maybe_second(int32_t c) { return (g_second[c >> 3] >> (c & 7)) & 1; }

/* Canonical decomposition of x appended to buf (marks not yet reordered). */
static int push_nfd(el__tchar **buf, size_t *n, size_t *cap, el__tchar x) {
  if (x.cp < 0x80) {
    if (RESERVE(*buf, *n, *cap, 1)) return -1;
    x.ccc = 0;
    (*buf)[(*n)++] = x;
    return 0;
  }
  int32_t d[32];
  utf8proc_ssize_t k = utf8proc_decompose_char(x.cp, d, 32, UTF8PROC_DECOMPOSE, NULL);
  if (k < 1 || k > 32) d[0] = x.cp, k = 1; /* cannot happen for valid code points */
  if (RESERVE(*buf, *n, *cap, (size_t)k)) return -1;
  for (utf8proc_ssize_t i = 0; i < k; i++) {
    el__tchar y = {d[i], x.s, x.e, utf8proc_get_property(d[i])->combining_class};
    (*buf)[(*n)++] = y;
  }
  return 0;
}

/* Canonical ordering: every run of combining marks (class > 0) sorted
 * stably by class. Short runs by insertion; long ones (only hostile input
 * has them) by a counting sort, so a megabyte of marks stays linear. */
static int reorder(el__tchar *b, size_t n) {
  for (size_t i = 0; i < n;) {
    if (b[i].ccc == 0) {
      i++;
      continue;
    }
    size_t j = i;
    while (j < n && b[j].ccc != 0) j++;
    size_t m = j - i;
    if (m <= 16) {
      for (size_t k = i + 1; k < j; k++) {
        el__tchar y = b[k];
        size_t p = k;
        while (p > i && b[p - 1].ccc > y.ccc) {
          b[p] = b[p - 1];
          p--;
        }
        b[p] = y;
      }
    } else {
      size_t count[257] = {0};
      el__tchar *tmp = malloc(m * sizeof *tmp);
      if (!tmp) return -1;
      for (size_t k = i; k < j; k++) count[b[k].ccc + 1]++;
      for (int c = 1; c < 257; c++) count[c] += count[c - 1];
      for (size_t k = i; k < j; k++) tmp[count[b[k].ccc]++] = b[k];
      memcpy(b + i, tmp, m * sizeof *tmp);
      free(tmp);
    }
    i = j;
  }
  return 0;
}

/* Canonical composition in place (UAX #15): a character composes with the
 * last starter unless a character in between has class 0 or >= its own. */
static size_t compose(el__tchar *b, size_t n) {
  ptrdiff_t st = -1;
  int32_t maxcc = -1;
  size_t w = 0;
  for (size_t r = 0; r < n; r++) {
    el__tchar x = b[r];
    if (st >= 0 && x.cp >= 0x80 && x.ccc > maxcc && maybe_second(x.cp)) {
      utf8proc_int32_t pair[2] = {b[st].cp, x.cp};
      if (utf8proc_normalize_utf32(pair, 2, UTF8PROC_COMPOSE | UTF8PROC_STABLE) == 1) {
        b[st].cp = pair[0];
        if (x.s >= 0 && (b[st].s < 0 || x.s < b[st].s)) b[st].s = x.s;
        if (x.e > b[st].e) b[st].e = x.e;
        continue;
      }
    }
    b[w] = x;
    if (x.ccc == 0) {
      st = x.cp < 0 ? -1 : (ptrdiff_t)w; /* special tokens never compose */
      maxcc = -1;
    } else if (x.ccc > maxcc) {
      maxcc = x.ccc;
    }
    w++;
  }
  return w;
}

void el__basic_init(void) { pthread_once(&g_second_once, build_second); }

ptrdiff_t el__nfc(const el__tchar *in, size_t n, el__tchar **out, size_t *cap) {
  el__basic_init();
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (push_nfd(out, &m, cap, in[i])) return -1;
  if (reorder(*out, m)) return -1;
  return (ptrdiff_t)compose(*out, m);
}

/* ---- stage A: specials, lower, clean, CJK ------------------------------ */

static int match_special(const int32_t *c, size_t left) {
  for (int k = 0; k < 5; k++) {
    const char *s = k_special[k];
    size_t i = 0;
    while (s[i] && i < left && c[i] == (unsigned char)s[i]) i++;
    if (!s[i]) return k;
  }
  return -1;
}

#define SP tc(' ', -1, -1)

static int stage_a(el__basic *bt, const int32_t *cps, size_t n, int lower) {
  bt->na = 0;
  if (RESERVE(bt->a, 0, bt->capa, n + 16)) return -1;
  for (size_t i = 0; i < n; i++) {
    int32_t c = cps[i];
    if (RESERVE(bt->a, bt->na, bt->capa, 6)) return -1;
    el__tchar *a = bt->a;
    if (c == '[' && !bt->no_specials) {
      int k = match_special(cps + i, n - i);
      if (k >= 0) {
        size_t l = strlen(k_special[k]);
        a[bt->na++] = SP;
        a[bt->na++] = tc(-1 - k, (int32_t)i, (int32_t)(i + l));
        a[bt->na++] = SP;
        i += l - 1;
        continue;
      }
    }
    if (c < 0x80) {
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') a[bt->na++] = SP;
      else if (c >= 0x20 && c != 0x7F)
        a[bt->na++] = tc(lower && c >= 'A' && c <= 'Z' ? c + 32 : c, (int32_t)i, (int32_t)i + 1);
      continue; /* other ASCII controls, U+0000 included, are dropped */
    }
    int32_t l[2] = {c, 0};
    int nl = lower ? py_lower(c, l) : 1;
    for (int j = 0; j < nl; j++) {
      int32_t d = l[j];
      if (d == 0xFFFD) continue;
      utf8proc_category_t k = utf8proc_category(d);
      if (k == UTF8PROC_CATEGORY_CN || k >= UTF8PROC_CATEGORY_CC) continue; /* C* */
      if (k == UTF8PROC_CATEGORY_ZS) {
        a[bt->na++] = SP;
      } else if (is_cjk(d)) {
        a[bt->na++] = SP;
        a[bt->na++] = tc(d, (int32_t)i, (int32_t)i + 1);
        a[bt->na++] = SP;
      } else {
        a[bt->na++] = tc(d, (int32_t)i, (int32_t)i + 1);
      }
    }
  }
  return 0;
}

/* ---- stage C: whitespace split, lower + accent strip, punctuation ------- */

static int push_word(el__basic *bt, size_t b, size_t e, int special) {
  if (RESERVE(bt->w, bt->nw, bt->capw, 1)) return -1;
  el__tword w = {b, e, special, 0, 0};
  int32_t s = INT32_MAX, en = -1;
  for (size_t i = b; i < e; i++) {
    if (bt->c[i].s >= 0 && bt->c[i].s < s) s = bt->c[i].s;
    if (bt->c[i].e > en) en = bt->c[i].e;
  }
  w.start = s, w.end = en;
  bt->w[bt->nw++] = w;
  return 0;
}

static int never_split(const el__tchar *t, size_t n) {
  for (int k = 0; k < 5; k++) {
    const char *s = k_special[k];
    size_t i = 0;
    while (i < n && s[i] && t[i].cp == (unsigned char)s[i]) i++;
    if (i == n && !s[i]) return k;
  }
  return -1;
}

/* One whitespace-delimited token b[tb..te): a special token stays whole
 * (HF never_split); otherwise lower-case + NFD + drop Mn when uncased, then
 * every punctuation character becomes a word of its own. */
static int do_token(el__basic *bt, size_t tb, size_t te, int lower) {
  const el__tchar *t = bt->b + tb;
  size_t tn = te - tb, c0 = bt->nc;
  int k = (tn == 1 && t[0].cp < 0) ? -1 - t[0].cp : bt->no_specials ? -1 : never_split(t, tn);
  if (RESERVE(bt->c, bt->nc, bt->capc, tn)) return -1;
  if (k >= 0) {
    memcpy(bt->c + c0, t, tn * sizeof *t);
    bt->nc += tn;
    return push_word(bt, c0, bt->nc, k);
  }
  if (!lower) {
    memcpy(bt->c + c0, t, tn * sizeof *t);
    bt->nc += tn;
  } else {
    for (size_t i = 0; i < tn; i++) {
      el__tchar x = t[i];
      int32_t l[2];
      int nl = py_lower(x.cp, l);
      for (int j = 0; j < nl; j++) {
        el__tchar y = x;
        y.cp = l[j];
        if (push_nfd(&bt->c, &bt->nc, &bt->capc, y)) return -1;
      }
    }
    if (reorder(bt->c + c0, bt->nc - c0)) return -1;
    size_t w = c0; /* strip accents: drop category Mn */
    for (size_t i = c0; i < bt->nc; i++) {
      el__tchar y = bt->c[i];
      if (y.cp >= 0x80 && utf8proc_category(y.cp) == UTF8PROC_CATEGORY_MN) continue;
      bt->c[w++] = y;
    }
    bt->nc = w;
  }
  size_t run = c0;
  for (size_t i = c0; i < bt->nc; i++) {
    if (!is_punct(bt->c[i].cp)) continue;
    if (run < i && push_word(bt, run, i, -1)) return -1;
    if (push_word(bt, i, i + 1, -1)) return -1;
    run = i + 1;
  }
  if (run < bt->nc && push_word(bt, run, bt->nc, -1)) return -1;
  return 0;
}

int el__basic_run(el__basic *bt, const int32_t *cps, size_t n, int lower) {
  bt->no_specials = (lower & EL__BASIC_NO_SPECIALS) != 0;
  lower &= ~EL__BASIC_NO_SPECIALS;
  bt->nb = bt->nc = bt->nw = 0;
  if (stage_a(bt, cps, n, lower)) return -1;
  ptrdiff_t nb = el__nfc(bt->a, bt->na, &bt->b, &bt->capb);
  if (nb < 0) return -1;
  bt->nb = (size_t)nb;
  const el__tchar *b = bt->b;
  for (size_t i = 0; i < bt->nb;) {
    if (b[i].cp >= 0 && is_pyspace(b[i].cp)) {
      i++;
      continue;
    }
    size_t j = i + 1;
    while (j < bt->nb && !(b[j].cp >= 0 && is_pyspace(b[j].cp))) j++;
    if (do_token(bt, i, j, lower)) return -1;
    i = j;
  }
  return 0;
}

void el__basic_free(el__basic *bt) {
  free(bt->a);
  free(bt->b);
  free(bt->c);
  free(bt->w);
  memset(bt, 0, sizeof *bt);
}

/* ---- whole texts -------------------------------------------------------- */

/* The text is processed in chunks that end just after an ASCII whitespace
 * byte once CHUNK bytes have been read. No stage looks across ASCII
 * whitespace (it is a word separator, a composition starter nothing composes
 * with, and never part of a special token), so chunking changes no result,
 * and scratch memory stays O(CHUNK) instead of ~50 bytes per input byte.
 * Text without whitespace is one chunk: still linear. */
#define CHUNK 8192

static int is_ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

int el__basic_text(const char *text, size_t len, int lower, el__word_fn fn, void *ctx, int *n_cp,
                   el_error *err) {
  if (n_cp) *n_cp = 0;
  if (!text && len) return el_error_set(err, EL_EINVAL, "NULL text");
  if (len > (size_t)INT_MAX / 4)
    return el_error_set(err, EL_ETOOLONG, "text of %zu bytes is too long to tokenize (limit %d)",
                        len, INT_MAX / 4);
  el__basic bt = {0};
  int32_t *cps = NULL;
  size_t cps_cap = 0, pos = 0;
  int base = 0, rc = EL_OK;
  while (rc == EL_OK && pos < len) {
    size_t end = pos + CHUNK < len ? pos + CHUNK : len;
    while (end < len && !is_ascii_space(text[end - 1])) end++;
    if (end - pos > cps_cap) {
      free(cps);
      cps_cap = end - pos;
      cps = malloc(cps_cap * sizeof *cps);
      if (!cps) {
        rc = el_error_set(err, EL_ENOMEM, "out of memory decoding %zu bytes of text", len);
        break;
      }
    }
    size_t bad_at = 0;
    const char *why = "";
    ptrdiff_t n = el__utf8_decode(text + pos, end - pos, cps, &bad_at, &why);
    if (n < 0) {
      rc = el_error_set(err, EL_EINVAL, "invalid UTF-8 at byte %zu: %s", pos + bad_at, why);
      break;
    }
    int bad = el__basic_run(&bt, cps, (size_t)n, lower);
    for (size_t w = 0; !bad && w < bt.nw; w++) bad = fn(ctx, &bt, &bt.w[w], base);
    if (bad) rc = el_error_set(err, EL_ENOMEM, "out of memory tokenizing %zu bytes of text", len);
    base += (int)n;
    pos = end;
  }
  free(cps);
  el__basic_free(&bt);
  if (!rc && n_cp) *n_cp = base;
  return rc;
}
