/* A writer's own words (el__checker_accept_words): the names and terms of
 * a project that no dictionary knows and a detector trained on other text
 * finds unusual ("hunspell", "safetensors", "systemd"). */
#include <string.h>

#include "check_internal.h"

/* The line [a, b) less its spaces and a '#' comment; its length. */
static size_t word_of_line(const char *a, const char *b, const char **w) {
  const char *hash = memchr(a, '#', (size_t)(b - a));
  if (hash) b = hash;
  while (a < b && strchr(" \t\r", *a)) a++;
  while (b > a && strchr(" \t\r", b[-1])) b--;
  *w = a;
  return (size_t)(b - a);
}

int el__checker_accept_words(el__checker *c, const char *list, size_t len, el_error *err) {
  for (const char *a = list, *end = list + len; a < end;) {
    const char *nl = memchr(a, '\n', (size_t)(end - a)), *b = nl ? nl : end, *w;
    size_t n = word_of_line(a, b, &w);
    if (n >= EL__DICT_WORD_MAX)
      return el_error_set(err, EL_EINVAL, "words: \"%.40s...\" is longer than %d bytes", w,
                          EL__DICT_WORD_MAX - 1);
    if (memchr(w, ' ', n) || memchr(w, '\t', n))
      return el_error_set(err, EL_EINVAL, "words: \"%.*s\" is not one word (one word a line)", (int)n, w);
    int ins;
    if (n && el__strmap_get(&c->accept, w, (int)n, &ins) < 0)
      return el_error_set(err, EL_ENOMEM, "words: out of memory");
    a = b + 1;
  }
  return 0;
}

/* The length of s[0..n) less a possessive's "'s" or "'" ("hunspell's",
 * "projects'"; the curly apostrophe too). */
static size_t less_possessive(const char *s, size_t n) {
  if (n > 2 && s[n - 1] == 's' && s[n - 2] == '\'') return n - 2;
  if (n > 4 && s[n - 1] == 's' && !memcmp(s + n - 4, "\xe2\x80\x99", 3)) return n - 4;
  if (n > 1 && s[n - 1] == '\'') return n - 1;
  return n;
}

/* As a spellchecker's personal list reads it: "hunspell" also accepts
 * "Hunspell", "HUNSPELL" and "hunspell's", "GitHub" only itself and
 * "GitHub's". */
int el__word_accepted(const el__checker *c, int w) {
  if (!c->accept.n) return 0;
  const el__word *x = &c->words.w[w];
  const char *s = c->text + x->start;
  char low[EL__DICT_WORD_MAX];
  size_t n = less_possessive(s, x->end - x->start);
  if (n >= sizeof low) return 0;
  if (el__strmap_find(&c->accept, s, (int)n) >= 0) return 1;
  for (size_t i = 0; i < n; i++) low[i] = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] + 32) : s[i];
  return el__strmap_find(&c->accept, low, (int)n) >= 0;
}
