/* Feature building for fine-tuning (train/finetune/finetune_data.c) with a hand-made
 * vocabulary: GED labels on the first piece of each word (rule "first") or on
 * every piece (rule "max"), sentences split at word boundaries; QA answers mapped to their pieces in the window
 * that holds them and to [CLS] elsewhere; pairs truncated to max_seq_len. */
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "test_files.h"
#include "finetune.h"

static char dir[64];

#define put(name, text) el_test_put(dir, name, text)

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/el_feat_XXXXXX");
  if (!mkdtemp(dir)) return 1;
  const char *vp = put("vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\non\nmat\n##s\n"
                                    "play\n##ing\nwhat\ngood\n");
  el_tokenizer *tok = NULL;
  el_error err = {0};
  if (el_tokenizer_load(vp, 1, &tok, &err)) {
    printf("not ok - vocab: %s\n", err.msg);
    return 1;
  }
  int CLS = 2, SEP = 3, MAT = 9, S = 10, PLAY = 11;

  /* GED: cats(i) playing(c) the(i) -> cat ##s play ##ing the */
  el__ft_examples ex;
  const char *gp = put("g.txt", "cats i\nplaying c\nthe i\n\nqqq c\n");
  CHECK(el__ft_read(el__task_find("ged"), gp, NULL, NULL, 0, 0, &ex, &err) == 0, "ged read");
  el__ft_shape shape = {.max_seq_len = 32, .qa = el_qa_default_params(), .ged_rule = EL_SCORE_FIRST};
  el__ft_data d;
  CHECK(el__ft_features(&ex, tok, &shape, &d, &err) == 0, "ged features: %s", err.msg);
  signed char want[] = {-1, 1, -1, 0, -1, 1, -1};
  int same = d.n == 2 && d.f[0].len == 7;
  for (int i = 0; same && i < 7; i++) same = d.tlab[i] == want[i];
  CHECK(same, "ged, rule first: label on the first piece of each word, -1 elsewhere");
  int words[] = {-1, 0, 0, 1, 1, 2, -1};
  same = d.n == 2;
  for (int i = 0; same && i < 7; i++) same = d.tword[i] == words[i];
  CHECK(same, "ged: every piece carries its word's index, [CLS]/[SEP] -1");
  el__ft_data_free(&d);
  shape.ged_rule = EL_SCORE_MAX;
  CHECK(el__ft_features(&ex, tok, &shape, &d, &err) == 0, "ged features (max): %s", err.msg);
  signed char want_all[] = {-1, 1, 1, 0, 0, 1, -1};
  same = d.n == 2 && d.f[0].len == 7;
  for (int i = 0; same && i < 7; i++) same = d.tlab[i] == want_all[i];
  CHECK(same, "ged, rule max: every piece of a word carries the word's label");
  CHECK(d.ids[0] == CLS && d.ids[6] == SEP && d.ids[3] == PLAY, "ged: [CLS] pieces [SEP]");
  CHECK(d.f[1].len == 3 && d.ids[d.f[1].off + 1] == 1 && d.tlab[d.f[1].off + 1] == 0,
        "ged: an out-of-vocabulary word still gets one labelled piece ([UNK])");
  el__ft_data_free(&d);
  shape.max_seq_len = 5; /* 3 pieces per chunk */
  CHECK(el__ft_features(&ex, tok, &shape, &d, &err) == 0 && d.n == 3, "ged: long sentence split (%d)",
        d.n);
  CHECK(d.f[0].len == 4 && d.f[1].len == 5 && d.tword[d.f[1].off + 1] == 1 &&
            d.tword[d.f[1].off + 3] == 2 && d.f[0].example == 0 && d.f[1].example == 0,
        "ged: chunks end at word boundaries (cat ##s | play ##ing the)");
  el__ft_data_free(&d);
  el__ft_examples_free(&ex);

  /* QA: answer "mats" = pieces mat ##s (context pieces 5, 6) */
  const char *qp = put("q.json",
      "{\"data\":[{\"paragraphs\":[{\"context\":\"the cat sat on the mats\",\"qas\":["
      "{\"id\":\"1\",\"question\":\"what sat\",\"answers\":[{\"text\":\"mats\",\"answer_start\":19}]}]}]}]}");
  CHECK(el__ft_read(el__task_find("squad"), qp, NULL, NULL, 0, 0, &ex, &err) == 0, "qa read");
  shape.qa.max_seq_len = 64;
  CHECK(el__ft_features(&ex, tok, &shape, &d, &err) == 0 && d.n == 1, "qa: one window");
  CHECK(d.ids[d.f[0].label] == MAT && d.ids[d.f[0].label2] == S && d.f[0].label > 0,
        "qa: start/end on the answer's pieces (%d, %d)", d.f[0].label, d.f[0].label2);
  el__ft_data_free(&d);
  shape.qa.max_seq_len = 8; /* [CLS] what sat [SEP] + 3 context pieces + [SEP] */
  shape.qa.doc_stride = 1;
  CHECK(el__ft_features(&ex, tok, &shape, &d, &err) == 0 && d.n > 1, "qa: several windows (%d): %s",
        d.n, err.msg);
  int inside = 0, ok = 1;
  for (int i = 0; i < d.n; i++) {
    const el__feat *f = &d.f[i];
    if (f->label > 0) {
      inside++;
      ok &= d.ids[f->off + f->label] == MAT && d.ids[f->off + f->label2] == S;
    } else {
      ok &= f->label2 == 0;
    }
  }
  CHECK(inside >= 1 && ok, "qa: windows holding the whole answer point at it, the others at [CLS] (%d)",
        inside);
  el__ft_data_free(&d);
  el__ft_examples_free(&ex);

  /* pair truncation: longest first, the result fits max_seq_len */
  const char *tp = put("p.tsv", "sentence1\tsentence2\tlabel\nthe cat sat on the mat\tcat\tentailment\n");
  CHECK(el__ft_read(el__task_find("rte"), tp, NULL, NULL, 0, 0, &ex, &err) == 0, "rte read");
  shape.max_seq_len = 7;
  CHECK(el__ft_features(&ex, tok, &shape, &d, &err) == 0 && d.f[0].len == 7 && d.n_truncated == 1,
        "pair truncated to max_seq_len");
  CHECK(d.ids[0] == CLS && d.ids[4] == SEP && d.ids[5] == 6 && d.ids[6] == SEP && d.types[5] == 1,
        "[CLS] the cat sat [SEP] cat [SEP]: the longer side lost pieces");
  el__ft_data_free(&d);
  el__ft_examples_free(&ex);

  el_tokenizer_free(tok);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) return 1;
  return el_test_done();
}
