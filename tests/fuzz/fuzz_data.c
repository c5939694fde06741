/* libFuzzer: bytes -> the fine-tuning data readers (train/task_data.c): the
 * first byte picks GED (token TAB label lines), a GLUE task's TSV (cola,
 * sst2, mrpc, stsb, mnli, qnli, or tsv with default columns) or SQuAD JSON;
 * the rest is the file. Accepted data is checked for the invariants the
 * trainer relies on. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "task_data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  int which = data[0] % 9;
  const char *path = fuzz_write("data", data + 1, size - 1);
  el_error err = {0};
  if (which == 0) {
    el__ged_data d = {0};
    if (el__ged_read(path, &d, &err) == 0) {
      for (int i = 0; i < d.n; i++)
        for (int w = 0; w < d.s[i].n; w++)
          if (!d.s[i].words[w] || d.s[i].err[w] > 1) abort();
      el__ged_free(&d);
    }
  } else if (which == 1) {
    el__squad_data d = {0};
    if (el__squad_read(path, &d, &err) == 0) {
      for (int i = 0; i < d.n_q; i++) {
        const el__squad_q *q = &d.q[i];
        if (q->ctx < 0 || q->ctx >= d.n_ctx || !q->id || !q->question) abort();
        if (q->train_answer < -1 || q->train_answer >= q->n_answers) abort();
        for (int k = 0; k < q->n_answers; k++)
          if (!q->answers[k].text) abort();
      }
      el__squad_free(&d);
    }
  } else {
    static const char *tasks[] = {"cola", "sst2", "mrpc", "stsb", "mnli", "qnli", "rte"};
    const el__task *t = el__task_find(tasks[(which - 2) % 7]);
    if (!t) abort();
    el__cls_data d = {0};
    if (el__cls_read(t, path, NULL, NULL, 0, &d, &err) == 0) {
      for (int i = 0; i < d.n; i++) {
        if (!d.ex[i].a) abort();
        if (!d.regression && (d.ex[i].label < 0 || d.ex[i].label >= d.n_labels)) abort();
      }
      el__cls_free(&d);
    }
  }
  return 0;
}
