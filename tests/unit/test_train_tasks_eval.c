/* el__ft_evaluate with a scripted runner (no model): SQuAD 2.0 null-threshold
 * selection on dev, a fixed threshold, predictions JSON, and classification
 * scoring. The logits are chosen by hand so every expected number below can be
 * worked out on paper. */
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "test_files.h"
#include "finetune.h"

static char dir[64];
enum { CLS = 2, SEP = 3, CAT = 6, MAT = 9, WHAT = 13 };

#define put(name, text) el_test_put(dir, name, text)

/* QA: the first question piece decides. "mat": span mat (5+5), [CLS] 0+0 ->
 * null - best = -10. "cat": span cat (2+2), [CLS] 1.5+1.5 -> -1. "what" (the
 * unanswerable one): span cat (1+1), [CLS] 4+4 -> +6. Everything else -10. */
static int qa_run(void *ctx, const el_batch *b, float *st, float *en, el_error *err) {
  (void)ctx;
  (void)err;
  long o = 0;
  for (int i = 0; i < b->n_seqs; i++) {
    const int *ids = b->ids + o;
    int n = b->seq_len[i], q = ids[1], sep = 1;
    while (ids[sep] != SEP) sep++;
    for (int t = 0; t < n; t++) st[o + t] = en[o + t] = -10;
    int target = q == MAT ? MAT : CAT;
    float span = q == MAT ? 5 : q == CAT ? 2 : 1, cls = q == MAT ? 0 : q == CAT ? 1.5f : 4;
    st[o] = en[o] = cls;
    for (int t = sep + 1; t < n; t++)
      if (ids[t] == target) {
        st[o + t] = en[o + t] = span;
        break;
      }
    o += n;
  }
  return EL_OK;
}

/* classification: predicts class 1 iff the sentence has "cat" */
static int cls_run(void *ctx, const el_batch *b, float *out, float *out2, el_error *err) {
  (void)ctx;
  (void)out2;
  (void)err;
  long o = 0;
  for (int i = 0; i < b->n_seqs; i++) {
    int has = 0;
    for (int t = 0; t < b->seq_len[i]; t++) has |= b->ids[o + t] == CAT;
    out[2 * i] = has ? 0.f : 1.f;
    out[2 * i + 1] = has ? 1.f : 0.f;
    o += b->seq_len[i];
  }
  return EL_OK;
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/el_ftev_XXXXXX");
  if (!mkdtemp(dir)) return 1;
  const char *vp = put("vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\non\nmat\n##s\n"
                                    "play\n##ing\nwhat\ngood\n");
  el_tokenizer *tok = NULL;
  el_error err = {0};
  if (el_tokenizer_load(vp, 1, &tok, &err)) return 1;

  const char *qp = put("q2.json",
      "{\"version\":\"v2.0\",\"data\":[{\"paragraphs\":[{\"context\":\"the cat sat on the mat\",\"qas\":["
      "{\"id\":\"a\",\"question\":\"mat\",\"answers\":[{\"text\":\"the mat\",\"answer_start\":15}]},"
      "{\"id\":\"b\",\"question\":\"what\",\"answers\":[],\"is_impossible\":true},"
      "{\"id\":\"c\",\"question\":\"cat\",\"answers\":[{\"text\":\"cat\",\"answer_start\":4}]}]}]}]}");
  el__ft_examples ex;
  el__ft_data d;
  el__ft_shape shape = {.max_seq_len = 64, .qa = el_qa_default_params(), .ged_rule = EL_SCORE_MAX};
  shape.qa.max_seq_len = 64;
  CHECK(el__ft_read(el__task_find("squad2"), qp, NULL, NULL, 0, 0, &ex, &err) == 0 &&
            el__ft_features(&ex, tok, &shape, &d, &err) == 0,
        "squad2 data: %s", err.msg);
  el__ft_runner r = {qa_run, NULL};
  el__ft_metrics mt;
  /* diffs sorted: a -10, c -1, b +6; answering a and c and not b is perfect,
   * so the threshold lands on c's diff, -1 */
  CHECK(el__ft_evaluate(&r, &ex, &d, &shape, 2, 1, 0, NULL, &mt, &err) == 0, "evaluate: %s", err.msg);
  CHECK_NEAR(mt.null_threshold, -1.0, 1e-5, 0, "chosen null threshold");
  CHECK_NEAR(mt.f1_qa, 100.0, 1e-9, 0, "F1 with the chosen threshold");
  CHECK_NEAR(mt.has_ans_f1, 100.0, 1e-9, 0, "HasAns F1");
  CHECK_NEAR(mt.no_ans_f1, 100.0, 1e-9, 0, "NoAns F1");
  /* a fixed threshold of 10 answers all three: b gets "cat" -> 2 of 3 */
  CHECK(el__ft_evaluate(&r, &ex, &d, &shape, 2, 0, 10, NULL, &mt, &err) == 0, "evaluate, threshold 10");
  CHECK_NEAR(mt.em, 200.0 / 3, 1e-9, 0, "EM with threshold 10");
  CHECK_NEAR(mt.no_ans_f1, 0.0, 1e-9, 0, "NoAns F1 with threshold 10");
  /* threshold -5: c (diff -1) is now unanswered too -> a only + b = 2 of 3 */
  FILE *pf = fopen(put("pred.json", ""), "w");
  CHECK(el__ft_evaluate(&r, &ex, &d, &shape, 3, 0, -5, pf, &mt, &err) == 0, "evaluate, threshold -5");
  fclose(pf);
  CHECK_NEAR(mt.f1_qa, 200.0 / 3, 1e-9, 0, "F1 with threshold -5");
  char buf[512] = {0};
  char path[128];
  snprintf(path, sizeof path, "%s/pred.json", dir);
  FILE *rf = fopen(path, "r");
  size_t nb = rf ? fread(buf, 1, sizeof buf - 1, rf) : 0;
  if (rf) fclose(rf);
  buf[nb] = 0;
  CHECK(strstr(buf, "\"a\":\t\"mat\"") && strstr(buf, "\"b\":\t\"\"") && strstr(buf, "\"c\":\t\"\""),
        "predictions JSON: a -> mat, b and c -> \"\"");
  el__ft_data_free(&d);
  el__ft_examples_free(&ex);

  /* classification: gold 1,0,1,0 ; predictions 1,0,0,1 -> accuracy 0.5,
   * MCC (1*1 - 1*1)/... = 0, F1 of class 1 = 2*1/(2+1+1) = 0.5 */
  const char *cp = put("c.tsv", "sentence\tlabel\nthe cat\t1\nthe mat\t0\nthe sat\t1\ncat on\t0\n");
  CHECK(el__ft_read(el__task_find("sst2"), cp, NULL, NULL, 0, 0, &ex, &err) == 0 &&
            el__ft_features(&ex, tok, &shape, &d, &err) == 0,
        "sst2 data");
  el__ft_runner rc = {cls_run, NULL};
  CHECK(el__ft_evaluate(&rc, &ex, &d, &shape, 3, 0, 0, NULL, &mt, &err) == 0, "evaluate sst2");
  CHECK_NEAR(mt.accuracy, 0.5, 1e-9, 0, "accuracy");
  CHECK_NEAR(mt.mcc, 0.0, 1e-9, 0, "mcc");
  CHECK_NEAR(mt.f1, 0.5, 1e-9, 0, "f1");
  CHECK_NEAR(mt.primary, 0.5, 1e-9, 0, "primary metric of sst2 is accuracy");
  el__ft_data_free(&d);
  el__ft_examples_free(&ex);
  el_tokenizer_free(tok);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) return 1;
  return el_test_done();
}
