/* vocab.txt -> hash table. Line splitting follows Python's text mode (what
 * Hugging Face's load_vocab sees): "\n", "\r\n" and a lone "\r" all end a
 * line, a final line without newline still counts, and a trailing newline
 * does not add an empty token. */
#include "tok_vocab.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tok_utf8.h"

static int read_all(const char *path, char **out, size_t *out_len, el_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return el_error_set(err, EL_EIO, "%s: cannot open vocabulary: %s", path, strerror(errno));
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  if (!buf) {
    fclose(f);
    return el_error_set(err, EL_ENOMEM, "%s: out of memory reading vocabulary", path);
  }
  for (;;) {
    if (n == cap) {
      if (cap > ((size_t)1 << 31)) {
        free(buf);
        fclose(f);
        return el_error_set(err, EL_EFORMAT, "%s: vocabulary file larger than 2 GiB", path);
      }
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        fclose(f);
        return el_error_set(err, EL_ENOMEM, "%s: out of memory reading vocabulary", path);
      }
      buf = nb, cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return el_error_set(err, EL_EIO, "%s: read error", path);
  }
  *out = buf, *out_len = n;
  return EL_OK;
}

static int insert(el__vocab *v, int id) {
  const char *s = v->blob + v->off[id];
  uint32_t h = el__vh_final(el__vh_add(el__vh_init(), s, v->len[id]));
  for (uint32_t i = h & v->mask;; i = (i + 1) & v->mask) {
    int32_t o = v->slot[i].id;
    if (o < 0) {
      v->slot[i].id = id, v->slot[i].h = h;
      return 0;
    }
    if (v->slot[i].h == h && v->len[o] == v->len[id] &&
        memcmp(v->blob + v->off[o], s, v->len[id]) == 0) {
      v->slot[i].id = id; /* repeated token: the later line wins, as in HF */
      return 1;
    }
  }
}

int el__vocab_load(el__vocab *v, const char *path, el_error *err) {
  memset(v, 0, sizeof *v);
  char *text = NULL;
  size_t len = 0;
  int rc = read_all(path, &text, &len, err);
  if (rc) return rc;

  /* Count lines, then lay the tokens out NUL-terminated in blob. */
  size_t lines = 0;
  for (size_t i = 0; i < len; i++) {
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == len || text[i + 1] != '\n'))) lines++;
  }
  if (len > 0 && text[len - 1] != '\n' && text[len - 1] != '\r') lines++;
  if (lines > 0x7fffffff / 2) {
    free(text);
    return el_error_set(err, EL_EFORMAT, "%s: too many lines (%zu)", path, lines);
  }
  v->blob = malloc(len + 1);
  v->off = malloc((lines ? lines : 1) * sizeof *v->off);
  v->len = malloc((lines ? lines : 1) * sizeof *v->len);
  if (!v->blob || !v->off || !v->len) {
    free(text);
    return el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
  }
  int32_t *tmp = NULL; /* room to validate one line as UTF-8 */
  size_t tmp_cap = 0, w = 0, start = 0;
  int n = 0;
  for (size_t i = 0; i <= len; i++) {
    int eol = i == len ? (i > start) : (text[i] == '\n' || text[i] == '\r');
    if (!eol) continue;
    size_t l = i - start;
    if (l > tmp_cap) {
      free(tmp);
      tmp_cap = l;
      tmp = malloc(tmp_cap * sizeof *tmp);
      if (!tmp) {
        free(text);
        return el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
      }
    }
    size_t bad_at;
    const char *why;
    if (el__utf8_decode(text + start, l, tmp, &bad_at, &why) < 0) {
      free(tmp);
      free(text);
      return el_error_set(err, EL_EFORMAT, "%s: line %d: invalid UTF-8 at byte %zu of the line (%s)",
                          path, n + 1, bad_at, why);
    }
    memcpy(v->blob + w, text + start, l);
    v->off[n] = (uint32_t)w, v->len[n] = (uint32_t)l;
    if ((int)l > v->max_len) v->max_len = (int)l;
    w += l;
    v->blob[w++] = '\0';
    n++;
    if (i < len && text[i] == '\r' && i + 1 < len && text[i + 1] == '\n') i++;
    start = i + 1;
  }
  free(tmp);
  free(text);
  v->n = n;

  uint32_t size = 16;
  while (size < 2u * (uint32_t)n) size <<= 1;
  v->mask = size - 1;
  v->slot = malloc(size * sizeof *v->slot);
  if (!v->slot) return el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
  for (uint32_t i = 0; i < size; i++) v->slot[i].h = 0, v->slot[i].id = -1;
  for (int id = 0; id < n; id++) insert(v, id);
  return EL_OK;
}

void el__vocab_free(el__vocab *v) {
  free(v->blob);
  free(v->off);
  free(v->len);
  free(v->slot);
  memset(v, 0, sizeof *v);
}

int el__vocab_find(const el__vocab *v, const char *pre, size_t npre, const char *s, size_t n,
                   uint32_t h) {
  for (uint32_t i = h & v->mask;; i = (i + 1) & v->mask) {
    int32_t o = v->slot[i].id;
    if (o < 0) return -1;
    if (v->slot[i].h != h || v->len[o] != npre + n) continue;
    const char *t = v->blob + v->off[o];
    size_t k = 0;
    while (k < npre && t[k] == pre[k]) k++;
    if (k == npre && memcmp(t + npre, s, n) == 0) return o;
  }
}
