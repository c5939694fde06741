/* Driver of tests/reference/test_checkpoint_corrupt.sh: checks one
 * PyTorch-written (or deliberately corrupted) checkpoint per call, printing
 * TAP lines like the unit tests.
 *   --expect LABEL DIR CODE SUBSTR...     el_model_load(DIR) must fail with CODE
 *                                         (e.g. EL_EFORMAT) and a message holding
 *                                         every SUBSTR
 *   --roundtrip LABEL DIR REF.safetensors SCRATCH
 *                                         load DIR, compare every tensor bit for bit
 *                                         with the F32 reference file, save into
 *                                         SCRATCH, reload, compare again
 *   --save LABEL DIR OUT CODE SUBSTR...   load DIR, el__checkpoint_save to OUT; expect
 *                                         CODE (EL_OK or e.g. EL_ENOSPC) and, on
 *                                         failure, OUT untouched and no temporary left */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "electra/electra.h"
#include "fileio.h"
#include "model_internal.h"
#include "safetensors.h"
#include "../test.h"
#include "../unit/checkpoint_util.h"

static int cmd_expect(const char *label, const char *dir, const char *code_name, int nsub,
                      char **subs) {
  el_model *m = NULL;
  el_error err = {0};
  int want = code_from_name(code_name);
  int rc = el_model_load(dir, &m, &err);
  /* Match against the message without the fixture's directory, whose name
   * would otherwise satisfy a substring such as "overlap" by itself. */
  char msg[sizeof err.msg];
  const char *at = strstr(err.msg, dir);
  if (at)
    snprintf(msg, sizeof msg, "%.*s%s", (int)(at - err.msg), err.msg, at + strlen(dir));
  else
    snprintf(msg, sizeof msg, "%s", err.msg);
  int ok = rc == want && m == NULL && err.code == want;
  for (int i = 0; i < nsub; i++) ok = ok && has(msg, subs[i]);
  CHECK(ok, "%s: refused with %s naming the defect", label, code_name);
  printf("#   %s: %s\n", el_status_name(rc), rc ? err.msg : "(loaded)");
  el_model_free(m);
  return el_test_done();
}

static int compare_with_ref(const char *label, const el_model *m, const char *ref_path) {
  char *buf = NULL;
  size_t len = 0;
  el_error err = {0};
  el_st_file f;
  int rc = el__read_file(ref_path, (size_t)1 << 31, &buf, &len, &err);
  if (!rc) rc = el__st_parse(ref_path, buf, len, &f, &err);
  CHECK(rc == 0, "%s: reference %s readable", label, ref_path);
  if (rc) {
    printf("#   %s\n", err.msg);
    free(buf);
    return 1;
  }
  static el__tensor_spec specs[EL_MAX_TENSORS];
  el__weights w = m->w;
  int n = 0, bad = 0, seen = 0;
  el__tensor_specs(&m->cfg, &w, specs, &n, &err);
  for (int i = 0; i < n; i++) {
    const el_st_tensor *t = el__st_find(&f, specs[i].name);
    size_t k = (size_t)specs[i].shape[0] * (size_t)(specs[i].ndim == 2 ? specs[i].shape[1] : 1);
    if (!t || t->dtype != EL_ST_F32 || t->numel != k ||
        memcmp(*specs[i].slot, f.data + t->begin, k * sizeof(float)) != 0) {
      if (!bad) printf("#   tensor %s differs from the reference\n", specs[i].name);
      bad++;
    }
    seen++;
  }
  CHECK(bad == 0 && seen == f.n, "%s: all %d tensors equal the PyTorch float32 reference bit "
        "for bit", label, seen);
  el__st_free(&f);
  free(buf);
  return bad;
}

static int cmd_roundtrip(const char *label, const char *dir, const char *ref,
                         const char *scratch) {
  el_model *m = NULL, *m2 = NULL;
  el_error err = {0};
  int rc = el__model_load_hf(dir, &m, &err); /* the tensors as the file has them */
  CHECK(rc == 0, "%s: loads", label);
  if (rc) {
    printf("#   %s\n", err.msg);
    return el_test_done();
  }
  compare_with_ref(label, m, ref);
  if (m->cfg.arch == EL_ARCH_MASKED_LM)
    CHECK(m->w.lm_w == m->w.word, "%s: generator_lm_head.weight tied to the word embeddings",
          label);
  char out[512], vocab[512];
  snprintf(out, sizeof out, "%s/saved", scratch);
  snprintf(vocab, sizeof vocab, "%s/vocab.txt", dir);
  rc = el__checkpoint_save(out, &m->cfg, &m->w, vocab, &err);
  CHECK(rc == 0, "%s: el__checkpoint_save", label);
  if (!rc) rc = el__model_load_hf(out, &m2, &err);
  CHECK(rc == 0 && m2, "%s: saved checkpoint reloads", label);
  if (rc) printf("#   %s\n", err.msg);
  if (m2) {
    const el_config *a = &m->cfg, *b = &m2->cfg;
    int same_cfg = a->arch == b->arch && a->vocab_size == b->vocab_size &&
                   a->embedding_size == b->embedding_size && a->hidden_size == b->hidden_size &&
                   a->num_layers == b->num_layers && a->num_heads == b->num_heads &&
                   a->intermediate_size == b->intermediate_size &&
                   a->max_position_embeddings == b->max_position_embeddings &&
                   a->type_vocab_size == b->type_vocab_size && a->num_labels == b->num_labels &&
                   a->regression == b->regression && a->do_lower_case == b->do_lower_case &&
                   a->has_null_threshold == b->has_null_threshold &&
                   a->null_threshold == b->null_threshold &&
                   a->has_score_threshold == b->has_score_threshold &&
                   a->score_threshold == b->score_threshold && a->score_rule == b->score_rule &&
                   a->layer_norm_eps == b->layer_norm_eps;
    for (int i = 0; same_cfg && a->id2label && i < a->num_labels; i++)
      same_cfg = strcmp(a->id2label[i], b->id2label[i]) == 0;
    CHECK(same_cfg, "%s: config survives save -> load", label);
    CHECK(compare_models(m, m2) == 0, "%s: every tensor bit-identical after save -> load",
          label);
    CHECK(m2->owned != NULL && m2->owned_floats == m2->n_params &&
              el_model_weight_bytes(m2) == m2->n_params * sizeof(float),
          "%s: every weight of the reloaded model is in its own block", label);
  }
  el_model_free(m);
  el_model_free(m2);
  return el_test_done();
}

static int cmd_save(const char *label, const char *dir, const char *out, const char *code_name,
                    int nsub, char **subs) {
  el_model *m = NULL;
  el_error err = {0};
  int rc = el__model_load_hf(dir, &m, &err);
  CHECK(rc == 0, "%s: source loads", label);
  if (rc) {
    printf("#   %s\n", err.msg);
    return el_test_done();
  }
  int existed = path_exists(out);
  char vocab[512], parent[512];
  snprintf(vocab, sizeof vocab, "%s/vocab.txt", dir);
  snprintf(parent, sizeof parent, "%s", out);
  char *slash = strrchr(parent, '/');
  const char *base = slash ? slash + 1 : out;
  if (slash) *slash = '\0';
  char tmp_prefix[300];
  snprintf(tmp_prefix, sizeof tmp_prefix, "%s.tmp-", base);
  int want = code_from_name(code_name);
  rc = el__checkpoint_save(out, &m->cfg, &m->w, vocab, &err);
  int ok = rc == want;
  for (int i = 0; i < nsub; i++) ok = ok && has(err.msg, subs[i]);
  CHECK(ok, "%s: save -> %s", label, code_name);
  printf("#   %s: %s\n", el_status_name(rc), rc ? err.msg : "(saved)");
  if (rc) {
    CHECK(path_exists(out) == existed && count_prefix(slash ? parent : ".", tmp_prefix) == 0,
          "%s: after the failure the target is as before and no temporary is left", label);
    if (existed) {
      el_model *old = NULL;
      int r2 = el_model_load(out, &old, &err);
      CHECK(r2 == 0, "%s: the previous checkpoint still loads", label);
      el_model_free(old);
    }
  }
  el_model_free(m);
  return el_test_done();
}

int main(int argc, char **argv) {
  if (argc >= 5 && strcmp(argv[1], "--expect") == 0)
    return cmd_expect(argv[2], argv[3], argv[4], argc - 5, argv + 5);
  if (argc == 6 && strcmp(argv[1], "--roundtrip") == 0)
    return cmd_roundtrip(argv[2], argv[3], argv[4], argv[5]);
  if (argc >= 6 && strcmp(argv[1], "--save") == 0)
    return cmd_save(argv[2], argv[3], argv[4], argv[5], argc - 6, argv + 6);
  fprintf(stderr, "usage: %s --expect LABEL DIR CODE SUBSTR... | --roundtrip LABEL DIR REF "
          "SCRATCH | --save LABEL DIR OUT CODE SUBSTR...\n", argv[0]);
  return 2;
}
