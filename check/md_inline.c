/* Markdown's inline markup (md_doc.h): code spans, links and images,
 * autolinks, HTML tags, emphasis, escapes; table cells. */
#include "md_internal.h"

/* A code span of backticks at i ending before lim: its length, 0 if none. */
static size_t code_span(const el__md_reader *r, size_t i, size_t lim) {
  size_t n = run(r, i, lim, '`');
  for (size_t p = i + n; p < lim;) {
    size_t k = run(r, p, lim, '`');
    if (k == n) return p + k - i;
    p += k ? k : 1;
  }
  return 0;
}

/* The bracket closing the one at i (open '[' or '('), before lim; 0 if none. */
static size_t closing(const el__md_reader *r, size_t i, size_t lim, char open, char close) {
  int depth = 0;
  for (size_t p = i; p < lim; p++) {
    char c = r->md[p];
    if (c == '\\') p++;
    else if (c == '`' && open == '[') {
      size_t k = code_span(r, p, lim);
      p += k ? k - 1 : run(r, p, lim, '`') - 1;
    } else if (c == open) depth++;
    else if (c == close && --depth == 0) return p;
  }
  return 0;
}

/* <https://...> or <name@host>: the length, 0 if not. */
static size_t autolink(const el__md_reader *r, size_t i, size_t lim) {
  size_t p = i + 1;
  int mark = 0;
  for (; p < lim && r->md[p] != '>'; p++) {
    if (is_space(r->md[p]) || r->md[p] == '<') return 0;
    mark |= r->md[p] == ':' || r->md[p] == '@';
  }
  return p < lim && mark && p > i + 1 ? p + 1 - i : 0;
}

/* <tag ...>, </tag> or <!-- ... -->: the length, 0 if not. */
static size_t html_tag(const el__md_reader *r, size_t i, size_t lim) {
  if (i + 3 < lim && !memcmp(r->md + i, "<!--", 4)) {
    for (size_t p = i + 4; p + 2 < lim; p++)
      if (!memcmp(r->md + p, "-->", 3)) return p + 3 - i;
    return lim - i;
  }
  size_t p = i + 1 + (i + 1 < lim && r->md[i + 1] == '/');
  if (p >= lim || (r->md[p] | 0x20) < 'a' || (r->md[p] | 0x20) > 'z') return 0;
  const char *gt = memchr(r->md + p, '>', lim - p);
  return gt ? (size_t)(gt - r->md) + 1 - i : 0;
}

/* A run of n * _ or ~ at i that opens or closes emphasis (CommonMark's
 * flanking rules; '_' not inside a word, '~' as "~~"). */
static int emphasis(const el__md_reader *r, size_t i, size_t n, size_t a, size_t lim) {
  char c = r->md[i], prev = i > a ? r->md[i - 1] : ' ', next = i + n < lim ? r->md[i + n] : ' ';
  int left = !is_space(next) && (!is_punct(next) || is_space(prev) || is_punct(prev));
  int right = !is_space(prev) && (!is_punct(prev) || is_space(next) || is_punct(next));
  if (c == '_') return (left && !is_alnum(prev)) || (right && !is_alnum(next));
  if (c == '~') return n == 2 && (left || right);
  return left || right;
}

/* [text](target), [text][ref] or a footnote [^1] at i: the link's text
 * read as prose, its brackets and target as markup; the end, 0 if not. A
 * bracket alone ("word[id]", "[H, H]") is prose. */
static size_t link(el__md_reader *r, size_t i, size_t lim, int cells) {
  size_t j = closing(r, i, lim, '[', ']'), end = 0;
  if (!j) return 0;
  if (j + 1 < lim && r->md[j + 1] == '(') end = closing(r, j + 1, lim, '(', ')');
  else if (j + 1 < lim && r->md[j + 1] == '[') end = closing(r, j + 1, lim, '[', ']');
  if (r->md[i + 1] == '^') {
    end = end ? end + 1 : j + 1;
    markup(r, i, end, AS_NOTHING);
    return end;
  }
  if (!end++) return 0;
  markup(r, i, i + 1, AS_NOTHING);
  el__md_inline(r, i + 1, j, j, cells);
  markup(r, j, end, AS_NOTHING);
  return end;
}

/* The markup at i that reads as *as: its length, 0 for prose. */
static size_t inline_markup(const el__md_reader *r, size_t i, size_t a, size_t lim, int cells, const char **as) {
  char c = r->md[i];
  size_t k;
  *as = AS_NOTHING;
  if (c == '\\' && i + 1 < lim && is_punct(r->md[i + 1])) return 1;
  if (c == '|' && cells) return *as = AS_BREAK, 1;
  if (c == '`' && (k = code_span(r, i, lim))) return *as = EL__MD_CODE_WORD, k;
  if (c == '<' && (k = autolink(r, i, lim))) return *as = EL__MD_CODE_WORD, k;
  if (c == '<') return html_tag(r, i, lim);
  if (c == '!' && i + 1 < lim && r->md[i + 1] == '[' && (k = closing(r, i + 1, lim, '[', ']')) &&
      k + 1 < lim && r->md[k + 1] == '(' && (k = closing(r, k + 1, lim, '(', ')')))
    return *as = EL__MD_CODE_WORD, k + 1 - i;
  if (c == '*' || c == '_' || c == '~') {
    k = run(r, i, lim, c);
    return emphasis(r, i, k, a, lim) ? k : 0;
  }
  return 0;
}

void el__md_inline(el__md_reader *r, size_t a, size_t b, size_t lim, int cells) {
  size_t t = a;
  for (size_t i = a; i < b && i < lim;) {
    const char *as;
    size_t k = 0;
    /* how far a span's end is looked for: a few lines, so a text of
     * unmatched backticks or brackets costs linear time */
    size_t near = lim - i > SPAN_MAX ? i + SPAN_MAX : lim;
    if (r->md[i] == '[') {
      text(r, t, i);
      size_t end = link(r, i, near, cells);
      if (end) {
        i = t = end;
        continue;
      }
      t = i;
    } else if ((k = inline_markup(r, i, a, near, cells, &as))) {
      text(r, t, i);
      markup(r, i, i + k, as);
      int escape = k == 1 && r->md[i] == '\\'; /* the character after it stays prose */
      t = i + k;
      i = t + escape;
      continue;
    } else if (r->md[i] == '`' || r->md[i] == '*' || r->md[i] == '_' || r->md[i] == '~') {
      i += run(r, i, lim, r->md[i]); /* a run that is no markup stays prose whole */
      continue;
    }
    i++;
  }
  if (b > t) text(r, t, b < lim ? b : lim);
}