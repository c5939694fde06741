/* Data readers of the fine-tuning tasks: GLUE TSV layouts, generic tsv, GED
 * token files, SQuAD JSON, and their bad-input errors/skips; plus counts on
 * the real files in /work/shared/data (SKIP when absent; the expected counts
 * are those of the files as distributed). */
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "test_files.h"
#include "task_data.h"

static char dir[64];

#define put(name, text) el_test_put(dir, name, text)

static void glue_tests(void) {
  el_error err = {0};
  el__cls_data d;
  const el__task *cola = el__task_find("cola");
  const char *p = put("cola.tsv", "gj04\t1\t\tThe sailors rode.\ngj04\t0\t*\tRode the.\n\n"
                                  "gj04\t1\n");
  CHECK(el__cls_read(cola, p, NULL, NULL, 0, &d, &err) == 0, "cola headerless: %s", err.msg);
  CHECK(d.n == 2 && d.ex[0].label == 1 && d.ex[1].label == 0 && !strcmp(d.ex[1].a, "Rode the.") &&
            !d.ex[0].b && d.ex[1].line == 2,
        "cola rows, labels and text");
  CHECK(d.n_labels == 2 && !strcmp(d.labels[0], "0") && !strcmp(d.labels[1], "1"),
        "cola labels keep the 0,1 order");
  CHECK(d.n_skipped == 2 && strstr(d.first_skip, "cola.tsv:3: empty line"),
        "empty line and short row skipped and counted (%d: %s)", d.n_skipped, d.first_skip);
  el__cls_free(&d);

  p = put("cola_hdr.tsv", "sentence\tlabel\nGood one.\t1\n");
  CHECK(el__cls_read(cola, p, NULL, NULL, 0, &d, &err) == 0 && d.n == 1 && d.ex[0].label == 1,
        "cola with a sentence/label header");
  el__cls_free(&d);

  p = put("mrpc.tsv", "\xEF\xBB\xBFQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\r\n"
                      "1\t1\t2\tHe said \"hi\".\tHe said hello.\r\n0\t3\t4\tA\tB\r\n");
  CHECK(el__cls_read(el__task_find("mrpc"), p, NULL, NULL, 0, &d, &err) == 0, "mrpc BOM+CRLF: %s",
        err.msg);
  CHECK(d.n == 2 && !strcmp(d.ex[0].a, "He said \"hi\".") && !strcmp(d.ex[0].b, "He said hello.") &&
            d.ex[0].label == 1 && d.ex[1].label == 0,
        "mrpc pair columns by header name, quotes kept, CR stripped");
  el__cls_free(&d);

  p = put("sts.tsv", "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\t"
                     "sentence2\tscore\n0\tg\tf\ty\t0\tn\tn\tA man.\tA guy.\t4.750\n");
  CHECK(el__cls_read(el__task_find("stsb"), p, NULL, NULL, 0, &d, &err) == 0 && d.regression &&
            d.n == 1 && fabsf(d.ex[0].value - 4.75f) < 1e-6f,
        "stsb score column read as a number");
  el__cls_free(&d);
  p = put("sts_bad.tsv", "sentence1\tsentence2\tscore\nA\tB\t4.x\n");
  CHECK(el__cls_read(el__task_find("stsb"), p, NULL, NULL, 0, &d, &err) == EL_EFORMAT &&
            strstr(err.msg, "sts_bad.tsv:2:"),
        "bad score names file and line: %s", err.msg);

  const el__task *rte = el__task_find("rte");
  p = put("rte.tsv", "index\tsentence1\tsentence2\tlabel\n0\ta\tb\tentailment\n1\tc\td\tmaybe\n");
  CHECK(el__cls_read(rte, p, NULL, NULL, 0, &d, &err) == EL_EFORMAT && strstr(err.msg, "rte.tsv:3:") &&
            strstr(err.msg, "maybe"),
        "unknown label names file and line: %s", err.msg);
  p = put("rte_nocol.tsv", "index\tpremise\thypothesis\tlabel\n0\ta\tb\tentailment\n");
  CHECK(el__cls_read(rte, p, NULL, NULL, 0, &d, &err) == EL_EFORMAT &&
            strstr(err.msg, "no column 'sentence1'"),
        "missing header column is an error: %s", err.msg);

  p = put("mnli.tsv", "index\tpromptID\tpairID\tgenre\tsentence1_binary_parse\tsentence2_binary_parse\t"
                      "sentence1_parse\tsentence2_parse\tsentence1\tsentence2\tlabel1\tgold_label\n"
                      "0\t1\t2\tg\t(x)\t(y)\t(X)\t(Y)\tA man.\tA person.\tneutral\tentailment\n");
  CHECK(el__cls_read(el__task_find("mnli"), p, NULL, NULL, 0, &d, &err) == 0 && d.n == 1 &&
            !strcmp(d.ex[0].a, "A man.") && !strcmp(d.ex[0].b, "A person.") && d.ex[0].label == 1 &&
            d.n_labels == 3 && !strcmp(d.labels[0], "contradiction"),
        "mnli: sentence1/sentence2/gold_label by name, 3 labels");
  el__cls_free(&d);
  p = put("qqp.tsv", "id\tqid1\tqid2\tquestion1\tquestion2\tis_duplicate\n7\t1\t2\tWhy?\tHow?\t0\n"
                     "8\t3\t4\tWhat?\n");
  CHECK(el__cls_read(el__task_find("qqp"), p, NULL, NULL, 0, &d, &err) == 0 && d.n == 1 &&
            !strcmp(d.ex[0].b, "How?") && d.n_skipped == 1 && strstr(d.first_skip, "qqp.tsv:3: 4 columns"),
        "qqp: question1/question2/is_duplicate; a short row is skipped and counted (%s)", d.first_skip);
  el__cls_free(&d);

  /* generic tsv: labels sorted from the training file; dev must use them */
  const el__task *tsv = el__task_find("tsv");
  el__tsv_columns cols = {"review", NULL, "stars"};
  p = put("t.tsv", "id\treview\tstars\n1\tgreat\tpos\n2\tbad\tneg\n3\tok\tmid\n4\tfine\tpos\n");
  CHECK(el__cls_read(tsv, p, &cols, NULL, 0, &d, &err) == 0 && d.n_labels == 3 &&
            !strcmp(d.labels[0], "mid") && !strcmp(d.labels[1], "neg") &&
            !strcmp(d.labels[2], "pos") && d.ex[0].label == 2 && d.ex[2].label == 0,
        "tsv named columns, labels sorted");
  char *labs[] = {"neg", "pos"};
  el__cls_data d2;
  CHECK(el__cls_read(tsv, p, &cols, labs, 2, &d2, &err) == EL_EFORMAT && strstr(err.msg, "t.tsv:4:"),
        "dev label outside the training labels: %s", err.msg);
  el__cls_free(&d);
  char *hf[] = {"LABEL_0", "LABEL_1"};
  p = put("hf.tsv", "sentence\tlabel\nx\t1\ny\t0\n");
  CHECK(el__cls_read(el__task_find("sst2"), p, NULL, hf, 2, &d, &err) == 0 && d.ex[0].label == 1 &&
            d.ex[1].label == 0,
        "labels 0/1 match a model's default LABEL_0/LABEL_1");
  el__cls_free(&d);
  el__tsv_columns pos = {"1", "2", "0"};
  p = put("t2.tsv", "x\tleft\tright\ny\tup\tdown\n");
  CHECK(el__cls_read(tsv, p, &pos, NULL, 0, &d, &err) == 0 && d.n == 2 && !strcmp(d.ex[0].b, "right") &&
            !strcmp(d.labels[0], "x"),
        "tsv numeric columns: no header");
  el__cls_free(&d);
  CHECK(el__cls_read(tsv, "/nonexistent/x.tsv", &cols, NULL, 0, &d, &err) == EL_EIO &&
            strstr(err.msg, "/nonexistent/x.tsv"),
        "missing file names the path");
}

static void ged_tests(void) {
  el_error err = {0};
  el__ged_data g;
  const char *p = put("ged.txt", "Dear\tc\nSir\ti\n\n\nI c\r\nam i\r\n\r\nok c\n");
  CHECK(el__ged_read(p, &g, &err) == 0, "ged mixed tab/space/CRLF: %s", err.msg);
  CHECK(g.n == 3 && g.s[0].n == 2 && g.s[1].n == 2 && g.s[2].n == 1 && g.n_words == 5 &&
            g.n_errors == 2 && !strcmp(g.s[1].words[1], "am") && g.s[1].err[1] == 1 &&
            g.s[1].line == 5,
        "ged sentences, words, labels and lines");
  el__ged_free(&g);
  p = put("ged_bad.txt", "Dear c\nSir x\n");
  CHECK(el__ged_read(p, &g, &err) == EL_EFORMAT && strstr(err.msg, "ged_bad.txt:2:") &&
            strstr(err.msg, "'x'"),
        "unknown GED label names file and line: %s", err.msg);
  p = put("ged_nolab.txt", "Dear c\nSir\n");
  CHECK(el__ged_read(p, &g, &err) == EL_EFORMAT && strstr(err.msg, "ged_nolab.txt:2:"),
        "GED line without label: %s", err.msg);
  /* neighbours joined: every pair at share 1, none at 0, none past max_words */
  p = put("ged_join.txt", "She c\ngo i\n.\tc\n\nIt c\nis c\n\nOk i\n");
  int rc = el__ged_read(p, &g, &err);
  if (!rc) rc = el__ged_join_neighbours(&g, 1.0, 1, 80, &err);
  CHECK(rc == 0, "join: %s", rc ? err.msg : "read and joined");
  CHECK(g.n == 5 && g.s[3].n == 5 && !strcmp(g.s[3].words[0], "She") &&
            !strcmp(g.s[3].words[3], "It") && g.s[3].err[1] == 1 && g.s[3].err[3] == 0 &&
            g.s[3].line == 1 && g.s[4].n == 3 && !strcmp(g.s[4].words[2], "Ok") &&
            g.s[4].err[2] == 1 && g.n_words == 6 + 8 && g.n_errors == 2 + 2,
        "join: the file's 3 sentences stay, each with the one before as a unit of its own "
        "(words, labels, counts)");
  el__ged_free(&g);
  CHECK(el__ged_read(p, &g, &err) == 0 && el__ged_join_neighbours(&g, 0.0, 1, 80, &err) == 0 &&
            g.n == 3,
        "join: share 0 adds nothing");
  el__ged_free(&g);
  CHECK(el__ged_read(p, &g, &err) == 0 && el__ged_join_neighbours(&g, 1.0, 1, 4, &err) == 0 &&
            g.n == 4 && g.s[3].n == 3,
        "join: a pair over max_words (3 + 2 > 4) stays apart, 2 + 1 joins");
  el__ged_free(&g);
}

static void squad_tests(void) {
  el_error err = {0};
  el__squad_data s;
  /* "Ünïcode" makes byte and code-point offsets differ: "cat" starts at code
   * point 8, byte 10 */
  const char *p = put("sq.json",
      "{\"version\":\"1.1\",\"data\":[{\"title\":\"t\",\"paragraphs\":[{\"context\":"
      "\"\xC3\x9Cn\xC3\xAF" "code cat sat.\",\"qas\":["
      "{\"id\":\"a\",\"question\":\"who?\",\"answers\":[{\"text\":\"cat\",\"answer_start\":8}]},"
      "{\"id\":\"a\",\"question\":\"bad?\",\"answers\":[{\"text\":\"dog\",\"answer_start\":8}]},"
      "{\"id\":\"b\",\"question\":\"two?\",\"answers\":[{\"text\":\"sat\",\"answer_start\":3},"
      "{\"text\":\"sat\",\"answer_start\":12}]}]}]}]}");
  CHECK(el__squad_read(p, &s, &err) == 0, "squad v1 reads: %s", err.msg);
  CHECK(s.n_q == 3 && s.n_ctx == 1 && !s.v2, "3 questions, 1 context, v1");
  CHECK(s.q[0].train_answer == 0 && s.q[0].answers[0].ok, "code-point offset checks");
  CHECK(s.q[1].train_answer == -1 && s.n_untrainable == 1 && s.n_bad_answers == 2 &&
            strstr(s.first_skip, "'dog'"),
        "answer not in context counted (%d bad: %s)", s.n_bad_answers, s.first_skip);
  CHECK(s.q[2].train_answer == 1 && s.q[2].n_answers == 2, "first answer at its offset trains");
  CHECK(!strcmp(s.q[0].id, "a") && !strcmp(s.q[1].id, "a#2") && s.n_renamed_ids == 1,
        "repeated id renamed (%s)", s.q[1].id);
  el__squad_free(&s);
  p = put("sq2.json",
      "{\"version\":\"v2.0\",\"data\":[{\"paragraphs\":[{\"context\":\"abc\",\"qas\":["
      "{\"id\":\"x\",\"question\":\"q\",\"answers\":[],\"is_impossible\":true,"
      "\"plausible_answers\":[{\"text\":\"abc\",\"answer_start\":0}]}]}]}]}");
  CHECK(el__squad_read(p, &s, &err) == 0 && s.v2 && s.q[0].impossible && s.q[0].n_answers == 0 &&
            s.n_untrainable == 0,
        "squad v2 impossible question");
  el__squad_free(&s);
  /* answer_start outside int (fuzz_data's find: undefined conversion) is no offset */
  p = put("sq_big.json",
      "{\"data\":[{\"paragraphs\":[{\"context\":\"abc\",\"qas\":["
      "{\"id\":\"x\",\"question\":\"q\",\"answers\":[{\"text\":\"a\",\"answer_start\":1e300},"
      "{\"text\":\"b\",\"answer_start\":-1e300},{\"text\":\"c\",\"answer_start\":2147483648},"
      "{\"text\":\"c\",\"answer_start\":2}]}]}]}]}");
  CHECK(el__squad_read(p, &s, &err) == 0 && s.q[0].n_answers == 4 && s.q[0].answers[0].start == -1 &&
            s.q[0].answers[1].start == -1 && s.q[0].answers[2].start == -1 &&
            !s.q[0].answers[0].ok && s.q[0].train_answer == 3 && s.n_bad_answers == 3,
        "answer_start outside int: no offset, not trained on (%d, %d, %d)",
        s.q[0].answers[0].start, s.q[0].answers[1].start, s.q[0].answers[2].start);
  CHECK(strstr(s.first_skip, "sq_big.json") && strstr(s.first_skip, "\"answer_start\" must be an "
                                                       "integer from 0 to 2147483647, got 1e+300"),
        "the first one is described naming the file and the key: %s", s.first_skip);
  el__squad_free(&s);
  /* hand-written bad offsets: each is no offset, the message names the key */
  const char *bad[] = {"1e300", "-1", "2.5", "\"x\"", NULL};
  int all = 1;
  for (int b = 0; b < 5; b++) {
    char json[400];
    snprintf(json, sizeof json,
             "{\"data\":[{\"paragraphs\":[{\"context\":\"abc\",\"qas\":[{\"id\":\"x\","
             "\"question\":\"q\",\"answers\":[{\"text\":\"a\"%s%s}]}]}]}]}",
             bad[b] ? ",\"answer_start\":" : "", bad[b] ? bad[b] : "");
    p = put("sq_start.json", json);
    int rc = el__squad_read(p, &s, &err);
    int good = rc == 0 && s.q[0].n_answers == 1 && s.q[0].answers[0].start == -1 &&
               s.q[0].train_answer == -1 && strstr(s.first_skip, "sq_start.json") &&
               strstr(s.first_skip, "\"answer_start\"");
    if (!good) printf("# answer_start %s: rc %d, %s\n", bad[b] ? bad[b] : "(missing)", rc, s.first_skip);
    all = all && good;
    if (rc == 0) el__squad_free(&s);
  }
  CHECK(all, "answer_start 1e300, -1, 2.5, \"x\" or missing: no offset, described naming the key");
  p = put("sq_bad.json", "{\"data\": [\n{\"paragraphs\": [}\n]}");
  CHECK(el__squad_read(p, &s, &err) == EL_EFORMAT && strstr(err.msg, "sq_bad.json:2:"),
        "invalid JSON names file and line: %s", err.msg);
  p = put("sq_noctx.json", "{\"data\":[{\"paragraphs\":[{\"qas\":[]}]}]}");
  CHECK(el__squad_read(p, &s, &err) == EL_EFORMAT && strstr(err.msg, "paragraphs[0]"),
        "paragraph without context: %s", err.msg);
}

static void real_data(void) {
  const char *R = "/work/shared/data";
  if (access(R, R_OK) != 0) {
    SKIP("%s absent: real-file counts not checked", R);
    return;
  }
  el_error err = {0};
  el__cls_data d;
  struct { const char *task, *file; int n; } T[] = {
      {"cola", "glue/CoLA/in_domain_dev.tsv", 527}, {"sst2", "glue/SST-2/dev.tsv", 872},
      {"mrpc", "glue/MRPC/dev.tsv", 408},           {"stsb", "glue/STS-B/dev.tsv", 1500},
      {"rte", "glue/RTE/dev.tsv", 277},             {"qnli", "glue/QNLI/dev.tsv", 5463},
      {"mrpc", "glue/MRPC/train.tsv", 3668},        {"rte", "glue/RTE/train.tsv", 2490}};
  for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", R, T[i].file);
    int rc = el__cls_read(el__task_find(T[i].task), path, NULL, NULL, 0, &d, &err);
    CHECK(rc == 0 && d.n == T[i].n && d.n_skipped == 0, "%s: %d rows (got %d, skipped %d) %s",
          T[i].file, T[i].n, rc ? -1 : d.n, d.n_skipped, rc ? err.msg : "");
    if (!rc && !strcmp(T[i].task, "cola")) {
      int pos = 0;
      for (int k = 0; k < d.n; k++) pos += d.ex[k].label == 1;
      CHECK(pos == 365, "CoLA dev: 365 acceptable (got %d)", pos);
    }
    if (!rc) el__cls_free(&d);
  }
  el__ged_data g;
  char path[256];
  snprintf(path, sizeof path, "%s/ged/fce-bea19-tokens/fce_dev.txt", R);
  CHECK(el__ged_read(path, &g, &err) == 0 && g.n == 2191 && g.n_words == 34748 && g.n_errors == 3395,
        "FCE BEA-19 dev: 2191 sentences, 34748 tokens, 3395 errors (%s)", err.msg);
  el__ged_free(&g);
  el__squad_data s;
  snprintf(path, sizeof path, "%s/squad/squad2-dev-cs224n/dev-v2.0.json", R);
  int rc = el__squad_read(path, &s, &err);
  int imp = 0;
  for (int k = 0; !rc && k < s.n_q; k++) imp += s.q[k].impossible;
  CHECK(!rc && s.n_q == 6078 && imp == 3168 && s.v2 && s.n_bad_answers == 0,
        "SQuAD 2.0 dev subset: 6078 questions, 3168 unanswerable, offsets check (%s)", err.msg);
  if (!rc) el__squad_free(&s);
  snprintf(path, sizeof path, "%s/squad/tydiqa-goldp-en/tydiqa.goldp.en.train.json", R);
  rc = el__squad_read(path, &s, &err);
  CHECK(!rc && s.n_q == 3696 && s.n_renamed_ids == 3696 - 89 && s.n_bad_answers == 0,
        "TyDi train: 3696 questions, ids made unique (%d renamed)", rc ? -1 : s.n_renamed_ids);
  if (!rc) el__squad_free(&s);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/el_tasks_XXXXXX");
  if (!mkdtemp(dir)) return 1;
  glue_tests();
  ged_tests();
  squad_tests();
  real_data();
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) return 1;
  return el_test_done();
}
