/* Markdown as annotated text (md_doc.h): the blocks, line by line; the
 * inline markup of each line is md_inline.c's. */
#include <strings.h>

#include "md_internal.h"

/* ---- lines ---- */

static size_t line_end(const el__md_reader *r, size_t at) {
  const char *nl = memchr(r->md + at, '\n', r->len - at);
  return nl ? (size_t)(nl - r->md) : r->len;
}
static size_t next_line(const el__md_reader *r, size_t e) { return e < r->len ? e + 1 : e; }

static size_t indent(const el__md_reader *r, size_t a, size_t e) {
  size_t n = 0;
  for (size_t i = a; i < e && (r->md[i] == ' ' || r->md[i] == '\t'); i++) n += r->md[i] == '\t' ? 4 : 1;
  return n;
}
static size_t skip_spaces(const el__md_reader *r, size_t a, size_t e) {
  while (a < e && (r->md[a] == ' ' || r->md[a] == '\t')) a++;
  return a;
}
static int blank(const el__md_reader *r, size_t a, size_t e) {
  size_t p = skip_spaces(r, a, e);
  return p == e || (p + 1 == e && r->md[p] == '\r');
}

/* Where the paragraph holding `at` ends: the next blank line, or the end. */
static size_t para_end(const el__md_reader *r, size_t at) {
  for (size_t e = line_end(r, at); e < r->len; e = line_end(r, e + 1))
    if (blank(r, e + 1, line_end(r, e + 1))) return e;
  return r->len;
}


/* ``` or ~~~ (3 or more) opening a fenced code block: *ch and *n set. */
static int fence_open(const el__md_reader *r, size_t a, size_t e, char *ch, size_t *n) {
  if (indent(r, a, e) > 3) return 0;
  size_t p = skip_spaces(r, a, e);
  if (p >= e || (r->md[p] != '`' && r->md[p] != '~')) return 0;
  *ch = r->md[p];
  *n = run(r, p, e, *ch);
  return *n >= 3 && !(*ch == '`' && memchr(r->md + p + *n, '`', e - p - *n));
}
static int fence_close(const el__md_reader *r, size_t a, size_t e, char ch, size_t n) {
  if (indent(r, a, e) > 3) return 0;
  size_t p = skip_spaces(r, a, e), k = run(r, p, e, ch);
  return k >= n && blank(r, p + k, e);
}

/* "***", "- - -", "___" (a thematic break) or "===" / "---" under a
 * heading: three or more of one of - * _ =, spaces between. */
static int rule_line(const el__md_reader *r, size_t a, size_t e) {
  if (indent(r, a, e) > 3) return 0;
  size_t p = skip_spaces(r, a, e), n = 0;
  if (p >= e || !one_of(r->md[p], "-*_=")) return 0;
  char c = r->md[p];
  for (; p < e; p++) {
    if (r->md[p] == c) n++;
    else if (!is_space(r->md[p])) return 0;
  }
  return n >= 3;
}

/* A table's rule: "|---|:---:|" and the like. */
static int table_rule(const el__md_reader *r, size_t a, size_t e) {
  int pipe = 0, dash = 0;
  for (size_t p = a; p < e; p++) {
    char c = r->md[p];
    if (!one_of(c, "|-: \t\r")) return 0;
    pipe |= c == '|', dash |= c == '-';
  }
  return pipe && dash;
}

static int html_block(const el__md_reader *r, size_t a, size_t e) {
  size_t p = skip_spaces(r, a, e);
  if (indent(r, a, e) > 3 || p + 1 >= e || r->md[p] != '<') return 0;
  char c = r->md[p + 1];
  return c == '/' || c == '!' || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* "# " .. "###### ": the marker's length (spaces after it included), 0 if none. */
static size_t heading_marker(const el__md_reader *r, size_t a, size_t e) {
  if (indent(r, a, e) > 3) return 0;
  size_t p = skip_spaces(r, a, e), n = run(r, p, e, '#');
  if (n < 1 || n > 6 || (p + n < e && !is_space(r->md[p + n]))) return 0;
  return skip_spaces(r, p + n, e) - a;
}

/* "- ", "* ", "+ ", "1. ", "2) " (and a task box "[ ] " after it): the
 * marker's length, 0 if none. */
static size_t list_marker(const el__md_reader *r, size_t a, size_t e) {
  size_t p = skip_spaces(r, a, e), q = p;
  if (q < e && one_of(r->md[q], "-*+")) q++;
  else {
    while (q < e && q - p < 9 && r->md[q] >= '0' && r->md[q] <= '9') q++;
    if (q == p || q >= e || (r->md[q] != '.' && r->md[q] != ')')) return 0;
    q++;
  }
  if (q < e && !is_space(r->md[q])) return 0;
  q = skip_spaces(r, q, e);
  if (q + 3 < e && r->md[q] == '[' && one_of(r->md[q + 1], " xX") && r->md[q + 2] == ']' && r->md[q + 3] == ' ')
    q = skip_spaces(r, q + 3, e);
  return q - a;
}

/* "> " markers (nested too): their length. */
static size_t quote_marker(const el__md_reader *r, size_t a, size_t e) {
  size_t p = a;
  for (;;) {
    size_t q = skip_spaces(r, p, e);
    if (q >= e || r->md[q] != '>' || q - p > 3) return p - a;
    p = q + 1;
    if (p < e && r->md[p] == ' ') p++;
  }
}

/* A line that starts a block of its own, so the line before ends its sentence. */
static int starts_block(const el__md_reader *r, size_t a) {
  size_t e = line_end(r, a), n;
  char ch;
  return a < r->len && (list_marker(r, a, e) || heading_marker(r, a, e) || fence_open(r, a, e, &ch, &n) ||
                        rule_line(r, a, e) || table_rule(r, a, e) || html_block(r, a, e) ||
                        quote_marker(r, a, e));
}

/* Front matter: "---" on the first line up to the next "---" or "...". */
static size_t front_matter(const el__md_reader *r) {
  if (r->len < 4 || memcmp(r->md, "---", 3) || !blank(r, 3, line_end(r, 0))) return 0;
  for (size_t a = next_line(r, line_end(r, 0)); a < r->len; a = next_line(r, line_end(r, a))) {
    size_t e = line_end(r, a);
    if (e - a >= 3 && (!memcmp(r->md + a, "---", 3) || !memcmp(r->md + a, "...", 3)) && blank(r, a + 3, e))
      return next_line(r, e);
  }
  return 0;
}

typedef struct {
  int prev_blank, in_list, in_code, table;
  size_t para_end; /* the end of the paragraph of the line being read (para_end()) */
} block_state;

/* A fenced code block, an indented one, an HTML block or comment, a rule:
 * the lines it covers as one markup read as a break; 0 if the line at a
 * starts none. */
static size_t block_markup(el__md_reader *r, size_t a, size_t e, block_state *s) {
  char ch;
  size_t n, end = 0;
  if (fence_open(r, a, e, &ch, &n)) {
    end = next_line(r, e);
    while (end < r->len && !fence_close(r, end, line_end(r, end), ch, n)) end = next_line(r, line_end(r, end));
    end = next_line(r, line_end(r, end));
  } else if (indent(r, a, e) >= 4 && ((s->prev_blank && !s->in_list) || s->in_code)) {
    end = next_line(r, e);
    s->in_code = 1;
  } else if (html_block(r, a, e)) {
    size_t close = a, p = skip_spaces(r, a, e);
    if (p + 4 <= e && !memcmp(r->md + p, "<!--", 4)) /* a comment, to its end */
      while (close + 3 <= r->len && memcmp(r->md + close, "-->", 3)) close++;
    end = next_line(r, line_end(r, close < r->len ? close : r->len));
  } else if (rule_line(r, a, e) || table_rule(r, a, e)) {
    s->table |= table_rule(r, a, e);
    end = next_line(r, e);
  }
  if (end && indent(r, a, e) == 0 && !s->in_code) s->in_list = 0; /* a block at the margin ends a list */
  if (end) markup(r, a, end, AS_BREAK);
  return end;
}

/* A line of prose: its quote, heading or list marker, its inline text,
 * its line break (a sentence's end after a heading, a table row, or before
 * a block). Returns where the next line starts. */
static size_t prose_line(el__md_reader *r, size_t a, size_t e, block_state *s) {
  size_t nl = next_line(r, e);
  int row = s->table || (memchr(r->md + a, '|', e - a) && nl < r->len && table_rule(r, nl, line_end(r, nl)));
  size_t p = a + quote_marker(r, a, e);
  markup(r, a, p, AS_NOTHING);
  size_t h = heading_marker(r, p, e), l = h ? 0 : list_marker(r, p, e);
  markup(r, p, p + h + l, AS_NOTHING);
  if (l) s->in_list = 1;
  else if (s->prev_blank && indent(r, a, e) == 0) s->in_list = 0;
  if (a >= s->para_end) s->para_end = para_end(r, a); /* once a paragraph: linear time */
  size_t lim = row || h ? e : s->para_end;
  /* a code span or a link may run on to a later line: this line then ends
   * where that one does (the document built so far ends where it stopped) */
  for (size_t from = p + h + l;; from = r->d->doc_len, e = line_end(r, from)) {
    el__md_inline(r, from, e, lim, row);
    if (r->d->doc_len <= e) break;
  }
  nl = next_line(r, e);
  if (nl > e) {
    if (h || row || starts_block(r, nl)) markup(r, e, nl, AS_BREAK);
    else text(r, e, nl);
  }
  return nl;
}

int el__lt_doc_from_markdown(const char *md, size_t len, el__lt_doc *d) {
  memset(d, 0, sizeof *d);
  el__md_reader r = {md, len, d, 0};
  block_state s = {1, 0, 0, 0, 0};
  size_t at = front_matter(&r);
  markup(&r, 0, at, AS_BREAK);
  while (at < len && !r.oom) {
    size_t e = line_end(&r, at), end;
    if (blank(&r, at, e)) {
      text(&r, at, next_line(&r, e));
      s.prev_blank = 1, s.table = 0;
      at = next_line(&r, e);
      continue;
    }
    if (!(end = block_markup(&r, at, e, &s))) {
      s.in_code = 0;
      end = prose_line(&r, at, e, &s);
    }
    s.prev_blank = 0;
    at = end;
  }
  if (!r.oom && !d->plain) r.oom = el__lt_doc_add(d, "", 0, NULL, 0, 0) < 0;
  if (r.oom) el__lt_doc_free(d);
  return r.oom ? -1 : 0;
}

int el__is_markdown_name(const char *path) {
  static const char *const EXT[] = {".md", ".markdown", ".mdown", ".mkd"};
  size_t n = strlen(path);
  for (size_t i = 0; i < sizeof EXT / sizeof *EXT; i++) {
    size_t k = strlen(EXT[i]);
    if (n > k && !strcasecmp(path + n - k, EXT[i])) return 1;
  }
  return 0;
}