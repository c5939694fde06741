/* OUT/generator/ from INIT/generator/ (keep_generator.h). */
#include "keep_generator.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "trainer_api.h"

/* The generator's files are small text and one safetensors file; 4 GiB
 * bounds a large generator's weights. */
#define MAX_FILE ((size_t)4 << 30)

static int copy_regular_files(const char *from, const char *to, el_error *err) {
  DIR *d = opendir(from);
  if (!d) return el__io_error(err, errno, from, "cannot read the generator folder");
  int rc = EL_OK;
  struct dirent *e;
  while (!rc && (e = readdir(d))) {
    char *src = el__path_join(from, e->d_name), *dst = el__path_join(to, e->d_name);
    struct stat st;
    if (!src || !dst) rc = el_error_set(err, EL_ENOMEM, "finetune: out of memory");
    else if (e->d_name[0] != '.' && stat(src, &st) == 0 && S_ISREG(st.st_mode))
      rc = el__copy_file(src, dst, MAX_FILE, err);
    free(src);
    free(dst);
  }
  closedir(d);
  return rc;
}

/* Moves the finished copy tmp over to (an older generator/ goes first). */
static int copy_into_place(const char *from, const char *tmp, const char *to, el_error *err) {
  el__remove_tree(tmp);
  int rc = el__mkdirs(tmp, err);
  if (!rc) rc = copy_regular_files(from, tmp, err);
  if (!rc) {
    el__remove_tree(to);
    if (rename(tmp, to)) rc = el__io_error(err, errno, to, "cannot move the generator into place");
  }
  if (rc) el__remove_tree(tmp);
  return rc;
}

int el__ft_keep_generator(const char *init, const char *out, el_error *err) {
  if (!init || !out) return 0;
  char *from = el__path_join(init, "generator"), *to = el__path_join(out, "generator");
  char *cfg = from ? el__path_join(from, "config.json") : NULL;
  char *tmp = to ? el__path_join(out, "generator.tmp") : NULL;
  struct stat st;
  int rc;
  if (!from || !to || !cfg || !tmp) rc = el_error_set(err, EL_ENOMEM, "finetune: out of memory");
  else if (stat(cfg, &st) != 0) rc = 0;
  else if ((rc = copy_into_place(from, tmp, to, err)) == EL_OK) rc = 1;
  free(from), free(to), free(cfg), free(tmp);
  return rc;
}
