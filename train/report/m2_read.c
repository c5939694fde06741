/* Reading M2 files (m2.h): sentences, and annotator 0's edits. */
#include "m2.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainer_api.h"

/* Where the parser is, for messages. */
typedef struct m2_pos {
  const char *name;
  long line;
} m2_pos;

static int bad(el_error *err, const m2_pos *p, const char *what) {
  return el_error_set(err, EL_EFORMAT, "%s:%ld: %s", p->name, p->line, what);
}

/* "S tok tok ...": a new sentence of those tokens, joined by single spaces. */
static int add_sentence(el__m2 *m, const char *s, size_t n, el_error *err) {
  size_t cap = (size_t)m->cap;
  if (el__grow((void **)&m->s, &cap, (size_t)m->n + 1, sizeof *m->s))
    return el_error_set(err, EL_ENOMEM, "M2: out of memory");
  m->cap = (int)cap;
  el__m2_sent *st = &m->s[m->n++];
  memset(st, 0, sizeof *st);
  st->text = malloc(n + 1);
  st->off = malloc((n / 2 + 1) * sizeof *st->off); /* tokens are separated by spaces */
  st->tlen = malloc((n / 2 + 1) * sizeof *st->tlen);
  if (!st->text || !st->off || !st->tlen) return el_error_set(err, EL_ENOMEM, "M2: out of memory");
  size_t w = 0;
  for (size_t i = 0; i < n;) {
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    size_t b = i;
    while (i < n && s[i] != ' ' && s[i] != '\t') i++;
    if (i == b) break;
    if (w) st->text[w++] = ' ';
    st->off[st->n_tok] = (int)w;
    st->tlen[st->n_tok++] = (int)(i - b);
    memcpy(st->text + w, s + b, i - b);
    w += i - b;
  }
  st->text[w] = 0;
  st->len = w;
  return EL_OK;
}

/* Field k (0-based) of an edit line's "|||"-separated fields, or NULL. */
static const char *field(const char *s, const char *end, int k, size_t *flen) {
  for (; k > 0; k--) {
    const char *bar = strstr(s, "|||");
    if (!bar || bar >= end) return NULL;
    s = bar + 3;
  }
  const char *bar = strstr(s, "|||");
  *flen = (size_t)((bar && bar < end ? bar : end) - s);
  return s;
}

/* "A start end|||TYPE|||correction|||REQUIRED|||comment|||annotator", under
 * the last sentence read. */
static int add_edit(el__m2 *m, const char *s, size_t n, const m2_pos *p, el_error *err) {
  char line[2048];
  if (n >= sizeof line) return bad(err, p, "edit line too long");
  memcpy(line, s, n); /* NUL-terminated, so strtol and strstr stop at the line's end */
  line[n] = 0;
  const char *end = line + n;
  size_t tlen = 0, clen = 0, alen = 0; /* set with each field found (the warning of -O2 builds) */
  const char *type = field(line, end, 1, &tlen), *corr = field(line, end, 2, &clen);
  const char *ann = field(line, end, 5, &alen);
  if (!type || !corr || !ann || field(line, end, 6, &alen))
    return bad(err, p, "an edit line needs 6 fields separated by |||");
  char *q, *q1;
  long a = strtol(line, &q1, 10), b = strtol(q1, &q, 10), who = strtol(ann, NULL, 10);
  if (q1 == line || q == q1 || strncmp(q, "|||", 3))
    return bad(err, p, "an edit line starts with \"A start end|||\"");
  if (tlen == 4 && !strncmp(type, "noop", 4)) return EL_OK;
  if (who != 0) return EL_OK; /* scored against the first annotator, as GED.md's figures */
  el__m2_sent *st = &m->s[m->n - 1];
  if (a < 0 || b < a || b > st->n_tok) {
    char msg[128];
    snprintf(msg, sizeof msg, "edit span %ld %ld outside the sentence's %d tokens", a, b, st->n_tok);
    return bad(err, p, msg);
  }
  if (tlen == 0 || tlen >= EL__M2_TYPE_MAX) return bad(err, p, "edit type empty or too long");
  char tname[EL__M2_TYPE_MAX];
  memcpy(tname, type, tlen);
  tname[tlen] = 0;
  if (clen == 6 && !strncmp(corr, "-NONE-", 6)) clen = 0; /* older M2 files' deletion */
  return el__m2_push_edit(&st->gold, (int)a, (int)b, corr, clen, tname, err);
}

int el__m2_parse(const char *buf, size_t len, const char *name, el__m2 *out, el_error *err) {
  memset(out, 0, sizeof *out);
  m2_pos p = {name, 0};
  int rc = EL_OK, open = 0;
  for (size_t i = 0; i < len && rc == EL_OK;) {
    const char *nl = memchr(buf + i, '\n', len - i);
    size_t n = (nl ? (size_t)(nl - buf) : len) - i, next = i + n + 1;
    const char *s = buf + i;
    p.line++;
    if (n && s[n - 1] == '\r') n--; /* CRLF files */
    if (n == 0) open = 0;
    else if (s[0] == 'S' && (n == 1 || s[1] == ' ')) {
      rc = add_sentence(out, s + 1, n - 1, err);
      open = 1;
    } else if (s[0] == 'A' && n > 1 && s[1] == ' ') {
      rc = open ? add_edit(out, s + 2, n - 2, &p, err)
                : bad(err, &p, "an edit (A line) not under a sentence (S line)");
    } else
      rc = bad(err, &p, "expected a sentence (S ...), an edit (A ...) or a blank line");
    i = next;
  }
  return rc;
}

int el__m2_read(const char *path, el__m2 *out, el_error *err) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) return el_error_set(err, EL_EIO, "%s: %s", path, strerror(errno));
  char *buf = NULL;
  size_t len = 0, cap = 0, got;
  do {
    if (el__grow((void **)&buf, &cap, len + 65536, 1)) {
      fclose(f);
      free(buf);
      return el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
    }
    got = fread(buf + len, 1, cap - len, f);
    len += got;
  } while (got > 0);
  int failed = ferror(f);
  fclose(f);
  int rc = failed ? el_error_set(err, EL_EIO, "%s: read error", path)
                  : el__m2_parse(buf, len, path, out, err);
  free(buf);
  return rc;
}

void el__m2_free(el__m2 *m) {
  if (!m) return;
  for (int i = 0; i < m->n; i++) {
    free(m->s[i].text);
    free(m->s[i].off);
    free(m->s[i].tlen);
    el__m2_edits_free(&m->s[i].gold);
  }
  free(m->s);
  memset(m, 0, sizeof *m);
}
