/* Model directories and the start-up model log (srv_modeldir.h). */
#include "srv_modeldir.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "srv_log.h"
#include "srv_models.h"

static int is_file(const char *dir, const char *name) {
  char p[1200];
  struct stat st;
  if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, name) >= sizeof p) return 0;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int exists(const char *dir, const char *name) {
  char p[1200];
  struct stat st;
  if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, name) >= sizeof p) return 0;
  return stat(p, &st) == 0;
}

int el__model_dir_resolve(const char *dir, char *out, size_t cap) {
  char disc[1200];
  int run = !exists(dir, "config.json") &&
            (size_t)snprintf(disc, sizeof disc, "%s/discriminator", dir) < sizeof disc &&
            exists(disc, "config.json");
  size_t n = strlen(dir);
  while (run && n > 1 && dir[n - 1] == '/') n--; /* runs/small/ -> runs/small/discriminator */
  if ((size_t)snprintf(out, cap, run ? "%.*s/discriminator" : "%.*s", (int)n, dir) >= cap)
    return -1;
  return run;
}

int el__model_dir_check(const char *dir, char *err, size_t cap) {
  struct stat st;
  if (stat(dir, &st)) {
    snprintf(err, cap, "%s: %s%s", dir, strerror(errno),
             errno == ENOENT ? " (give --model a checkpoint directory, or a pretraining run "
                               "directory holding discriminator/)"
                             : "");
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) {
    snprintf(err, cap, "%s is not a directory (--model takes a checkpoint directory: "
             "config.json, model.safetensors, vocab.txt)", dir);
    return -1;
  }
  int has_st = exists(dir, "model.safetensors");
  int has_bin = is_file(dir, "pytorch_model.bin") || is_file(dir, "pytorch_model.bin.index.json");
  if (!has_st && has_bin) {
    snprintf(err, cap, "%s holds PyTorch weights (pytorch_model.bin) but no model.safetensors: "
             "convert them with  scripts/convert_pytorch_bin.py %s  (writes model.safetensors "
             "beside them; needs python3-torch)", dir, dir);
    return -1;
  }
  if (!exists(dir, "config.json")) {
    snprintf(err, cap, "%s has no config.json: not a checkpoint directory (config.json, "
             "model.safetensors, vocab.txt) nor a pretraining run directory (discriminator/)",
             dir);
    return -1;
  }
  return 0;
}

int el__model_set_load_checked(const el__model_spec *specs, int n, int ws_tokens, int ws_seqs,
                               el__model_set **out, char *err, size_t cap) {
  for (int i = 0; i < n; i++) {
    char why[1400];
    if (el__model_dir_check(specs[i].dir, why, sizeof why)) {
      snprintf(err, cap, "model \"%s\": %s", specs[i].name, why);
      return -1;
    }
  }
  return el__model_set_load(specs, n, ws_tokens, ws_seqs, out, err, cap);
}

void el__model_set_log(const el__model_set *set) {
  for (int i = 0; i < set->n; i++) {
    const el__model_entry *e = &set->e[i];
    const el_config *c = e->cfg;
    char labels[400] = "";
    if (c->id2label && c->num_labels > 0) {
      size_t k = 0;
      for (int l = 0; l < c->num_labels && k + 8 < sizeof labels; l++) {
        int w = snprintf(labels + k, sizeof labels - k, "%s%s", l ? "," : ", labels ",
                         c->id2label[l] ? c->id2label[l] : "");
        if (w < 0 || (size_t)w >= sizeof labels - k) {
          snprintf(labels + k, sizeof labels - k, ",...");
          break;
        }
        k += (size_t)w;
      }
    } else if (c->regression) {
      snprintf(labels, sizeof labels, ", regression");
    }
    char extra[200] = "";
    if (e->task == EL_TASK_SCORE)
      snprintf(extra, sizeof extra, ", threshold %g (%s), words by %s", e->threshold,
               e->dict                  ? "model, with hunspell"
               : c->has_score_threshold ? "model"
                                        : "default",
               el_score_rule_name(c->score_rule));
    if (e->correct_label >= 0 && c->id2label)
      snprintf(extra + strlen(extra), sizeof extra - strlen(extra), ", correct label %s",
               c->id2label[e->correct_label]);
    size_t params = el_model_num_parameters(e->model);
    double mb = (double)el_model_weight_bytes(e->model) / 1e6;
    int is_default = e->task >= 0 && set->task_default[e->task] == i;
    el__log("info", "model %s: %s %s from %s%s, %zu parameters (%s, %.1f MB), max_seq_len %d%s%s",
            e->name, el__task_route(e->task), el_arch_name(c->arch), e->dir, labels, params,
            el_dtype_name(el_model_dtype(e->model)), mb, e->max_len, extra,
            e->task < 0 ? " (tokenize only)" : is_default ? ", default" : "");
  }
}
