/* A model directory's generator (check.h): its own file, so a program that
 * replaces the checker (the LanguageTool layer's test double) still finds it. */
#include <stdio.h>
#include <sys/stat.h>

#include "check.h"

const char *el__checker_generator_dir(const char *model_dir, char *buf, size_t cap) {
  struct stat st;
  snprintf(buf, cap, "%s/generator/config.json", model_dir);
  if (stat(buf, &st) || !S_ISREG(st.st_mode)) return NULL;
  snprintf(buf, cap, "%s/generator", model_dir);
  return buf;
}
