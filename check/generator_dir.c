/* A model directory's generator and word counts (check.h): its own file, so a program that
 * replaces the checker (the LanguageTool layer's test double) still finds it. */
#include <stdio.h>
#include <sys/stat.h>

#include "check.h"

static int is_file(const char *path) {
  struct stat st;
  return !stat(path, &st) && S_ISREG(st.st_mode);
}

const char *el__checker_generator_dir(const char *model_dir, char *buf, size_t cap) {
  snprintf(buf, cap, "%s/generator/config.json", model_dir);
  if (!is_file(buf)) return NULL;
  snprintf(buf, cap, "%s/generator", model_dir);
  return buf;
}

const char *el__checker_word_counts(const char *model_dir, const char *generator_dir, char *buf,
                                    size_t cap) {
  if (generator_dir) {
    snprintf(buf, cap, "%s/word_counts.txt", generator_dir);
    if (is_file(buf)) return buf;
  }
  snprintf(buf, cap, "%s/word_counts.txt", model_dir);
  return is_file(buf) ? buf : NULL;
}
