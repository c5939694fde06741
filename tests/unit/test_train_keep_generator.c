/* finetune keeps the generator beside the model it writes
 * (train/finetune/keep_generator.h): INIT/generator/ copied whole to
 * OUT/generator/, an older copy replaced, nothing done without one, and an
 * unreadable file refused by name with no half copy left behind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../test.h"
#include "keep_generator.h"
#include "trainer_api.h"

static char root[] = "/tmp/el_keepgen.XXXXXX";

static void put(const char *rel, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  FILE *f = fopen(path, "w");
  if (f) fputs(text, f), fclose(f);
}

static int same(const char *rel, const char *text) {
  char path[512], buf[256] = "";
  snprintf(path, sizeof path, "%s/%s", root, rel);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  return !strcmp(buf, text);
}

static int exists(const char *rel) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  return access(path, F_OK) == 0;
}

int main(void) {
  if (!mkdtemp(root)) return 1;
  char init[512], out[512], bare[512], sub[600];
  snprintf(init, sizeof init, "%s/run", root);
  snprintf(out, sizeof out, "%s/model", root);
  snprintf(bare, sizeof bare, "%s/bare", root);
  el_error err = {0};
  snprintf(sub, sizeof sub, "%s/generator", init);
  el__mkdirs(sub, &err), el__mkdirs(out, &err), el__mkdirs(bare, &err);
  put("run/generator/config.json", "{\"architectures\":[\"ElectraForMaskedLM\"]}");
  put("run/generator/model.safetensors", "weights");
  put("run/generator/vocab.txt", "[PAD]\n");
  CHECK(el__ft_keep_generator(init, out, &err) == 1, "a generator is copied (%s)", err.msg);
  CHECK(same("model/generator/model.safetensors", "weights") && same("model/generator/vocab.txt", "[PAD]\n"),
        "every file of it, byte for byte");
  put("run/generator/model.safetensors", "newer");
  CHECK(el__ft_keep_generator(init, out, &err) == 1 && same("model/generator/model.safetensors", "newer"),
        "an older copy is replaced");
  CHECK(el__ft_keep_generator(bare, out, &err) == 0, "an --init without generator/: nothing to do");
  CHECK(el__ft_keep_generator(NULL, out, &err) == 0, "no --init: nothing to do");
  if (geteuid() != 0) { /* root reads anything: the refusal cannot be provoked */
    char path[512];
    snprintf(path, sizeof path, "%s/run/generator/vocab.txt", root);
    chmod(path, 0);
    int rc = el__ft_keep_generator(init, out, &err);
    CHECK(rc < 0 && strstr(err.msg, "vocab.txt") && !exists("model/generator.tmp"),
          "an unreadable file: refused by name, no half copy (%s)", err.msg);
  } else {
    char path[512];
    snprintf(path, sizeof path, "%s/run/generator/missing", root);
    CHECK(symlink("/nonexistent/target", path) == 0, "a dangling link to skip");
    CHECK(el__ft_keep_generator(init, out, &err) == 1 && !exists("model/generator/missing") &&
              !exists("model/generator.tmp"),
          "only regular files are copied (%s)", err.msg);
  }
  el__remove_tree(root);
  return el_test_done();
}
