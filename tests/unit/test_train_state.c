/* Resume state files, settings JSON, metrics.jsonl reloading, the SVG plot,
 * the exact AUC and the CLI parsing helpers; hand-written bad numbers in the
 * settings a state file holds and in metrics.jsonl are refused naming the
 * file and the key. */
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../test.h"
#include "checkpoint.h"
#include "el_cli.h"
#include "json_num.h"
#include "metrics_log.h"
#include "pretrain_eval.h"
#include "pretrain_opts.h"
#include "state.h"
#include "svg.h"

static char g_dir[] = "/tmp/el_test_state_XXXXXX";

static el_config tiny_cfg(void) {
  el_config c;
  memset(&c, 0, sizeof c);
  c.arch = EL_ARCH_PRETRAINING;
  c.vocab_size = 50;
  c.embedding_size = 16;
  c.hidden_size = 32;
  c.num_layers = 2;
  c.num_heads = 2;
  c.intermediate_size = 64;
  c.max_position_embeddings = 64;
  c.type_vocab_size = 2;
  c.layer_norm_eps = 1e-12f;
  c.initializer_range = 0.02f;
  c.do_lower_case = 1;
  return c;
}

static void test_state(void) {
  el_config d = tiny_cfg(), g;
  el_error err = {0};
  el__params p, q;
  memset(&p, 0, sizeof p);
  memset(&q, 0, sizeof q);
  if (el__generator_config(&d, 0.5f, &g, &err) || el__params_new_pair(&p, &d, &g, &err) ||
      el__params_new_pair(&q, &d, &g, &err)) {
    CHECK(0, "params: %s", err.msg);
    return;
  }
  el__rng r;
  el__rng_seed(&r, 5);
  el__params_init_random(&p, 0, 1, &r, &err);
  for (size_t i = 0; i < p.numel; i++) {
    p.m[i] = el__rng_normal(&r);
    p.v[i] = el__rng_uniform(&r);
  }
  el__state s;
  memset(&s, 0, sizeof s);
  s.step = 1234;
  s.data_epoch = 3;
  s.data_offset = 77;
  el__rng_seed(&s.rng, 99);
  s.vocab_hash = 0xABCDEF;
  s.vocab_size = 50;
  s.data_hash = 0x12345;
  s.tokens_seen = 987654321;
  s.train_seconds = 12.5;
  s.threads = 2;
  s.settings_json = "{\"x\": 1}";
  char dir[256];
  snprintf(dir, sizeof dir, "%s/state", g_dir);
  CHECK(el__state_save(dir, &s, &p, &err) == EL_OK, "state saved: %s", err.msg);
  el__state t;
  CHECK(el__state_peek(dir, &t, &err) == EL_OK && t.step == 1234 &&
            !strcmp(t.settings_json, "{\"x\": 1}"),
        "peek reads the header and settings");
  free(t.settings_json);
  CHECK(el__state_load(dir, &t, &q, &err) == EL_OK, "state loaded: %s", err.msg);
  CHECK(t.step == 1234 && t.data_epoch == 3 && t.data_offset == 77 &&
            !memcmp(&t.rng, &s.rng, sizeof s.rng) && t.vocab_hash == 0xABCDEF &&
            t.data_hash == 0x12345 && t.tokens_seen == 987654321 && t.train_seconds == 12.5 &&
            t.threads == 2,
        "header fields restored");
  free(t.settings_json);
  CHECK(!memcmp(p.params, q.params, p.numel * 4) && !memcmp(p.m, q.m, p.numel * 4) &&
            !memcmp(p.v, q.v, p.numel * 4),
        "parameters and Adam moments restored bit for bit");
  char path[300], cmd[700];
  snprintf(path, sizeof path, "%s/state.bin", dir);
  /* flip one byte in the middle of the parameters */
  FILE *f = fopen(path, "r+b");
  fseek(f, 4000, SEEK_SET);
  int c = fgetc(f);
  fseek(f, 4000, SEEK_SET);
  fputc(c ^ 0x40, f);
  fclose(f);
  CHECK(el__state_load(dir, &t, &q, &err) == EL_EFORMAT && strstr(err.msg, "damaged"),
        "a damaged state is refused: %s", err.msg);
  /* a damaged header size (offset 12) is named as damage, not as a version;
   * peek reads the header without the checksum pass */
  el__state_save(dir, &s, &p, &err);
  uint32_t word = 64;
  f = fopen(path, "r+b");
  fseek(f, 12, SEEK_SET);
  fwrite(&word, 4, 1, f);
  fclose(f);
  CHECK(el__state_peek(dir, &t, &err) == EL_EFORMAT && strstr(err.msg, "damaged") &&
            strstr(err.msg, "header size 64") && !strstr(err.msg, "version"),
        "a damaged header size is named: %s", err.msg);
  el__state_save(dir, &s, &p, &err);
  word = 7; /* the format version (offset 8) */
  f = fopen(path, "r+b");
  fseek(f, 8, SEEK_SET);
  fwrite(&word, 4, 1, f);
  fclose(f);
  CHECK(el__state_peek(dir, &t, &err) == EL_EFORMAT && strstr(err.msg, "version 7"),
        "another format version is named: %s", err.msg);
  el__state_save(dir, &s, &p, &err);
  snprintf(cmd, sizeof cmd, "truncate -s -100 %s", path);
  if (system(cmd)) printf("# truncate failed\n");
  CHECK(el__state_load(dir, &t, &q, &err) == EL_EFORMAT, "a truncated state is refused: %s",
        err.msg);
  /* a different model layout */
  el__params_free(&q);
  el_config d2 = d;
  d2.num_layers = 3;
  el__params_new_pair(&q, &d2, &g, &err);
  el__state_save(dir, &s, &p, &err);
  CHECK(el__state_load(dir, &t, &q, &err) == EL_ESHAPE, "another model configuration: %s", err.msg);
  snprintf(path, sizeof path, "%s/state.bin.tmp-%d", dir, (int)getpid());
  CHECK(access(path, F_OK) != 0, "no temporary file left behind");
  el__params_free(&p);
  el__params_free(&q);
  el__config_free(&g);
}

static void test_opts_json(void) {
  el__pt_opts o, r;
  el__pt_opts_defaults(&o, el__preset_find("small"));
  char *in[2] = {"a b.txt", "c\"d.txt"};
  o.inputs = in;
  o.n_inputs = 2;
  o.vocab = "v.txt";
  o.out = "RUN";
  o.cache = NULL;
  o.mlm = 1;
  o.lr = 3.3e-4;
  o.seed = 123456789012345;
  o.time_limit = 5400;
  snprintf(o.precision, sizeof o.precision, "bf16");
  char *j = el__pt_opts_to_json(&o);
  el_error err = {0};
  CHECK(j && el__pt_opts_from_json(j, &r, "RUN/state/state.bin", &err) == EL_OK,
        "settings JSON round trip: %s", err.msg);
  CHECK(r.n_inputs == 2 && !strcmp(r.inputs[1], "c\"d.txt") && !strcmp(r.vocab, "v.txt") &&
            r.cache == NULL && r.mlm == 1 && r.lr == 3.3e-4 && r.seed == 123456789012345 &&
            r.time_limit == 5400 && !strcmp(r.preset, "small") && r.batch_size == 128 &&
            r.gen_size == 0.25 && !strcmp(r.precision, "bf16"),
        "every setting survives (doubles exactly)");
  el__pt_opts_free(&r);
  /* a run saved before --precision existed trained in fp32, and resumes so */
  char *old = strstr(j, "\"precision\"");
  CHECK(old != NULL, "the settings JSON holds \"precision\"");
  if (old) memcpy(old, "\"precisiox\"", 11);
  CHECK(el__pt_opts_from_json(j, &r, "RUN/state/state.bin", &err) == EL_OK &&
            !strcmp(r.precision, "fp32"),
        "settings without \"precision\" (older runs) read as fp32: %s", r.precision);
  el__pt_opts_free(&r);
  if (old) memcpy(old, "\"precision\": \"fp16\"", 19);
  CHECK(el__pt_opts_from_json(j, &r, "RUN/state/state.bin", &err) == EL_EFORMAT &&
            strstr(err.msg, "precision"),
        "a precision other than auto, fp32, bf16 is refused: %s", err.msg);
  free(j);
  CHECK(el__pt_opts_from_json("{\"input\": []}", &r, "RUN/state/state.bin", &err) == EL_EFORMAT &&
            strstr(err.msg, "vocab") && strstr(err.msg, "RUN/state/state.bin"),
        "a missing field is named: %s", err.msg);
  const el__preset *t = el__preset_find("tiny");
  CHECK(t && t->hidden == 128 && t->layers == 4 && t->heads == 2 && t->ffn == 512 &&
            t->embedding == 128,
        "tiny preset: 128 hidden, 4 layers, 2 heads, FFN 512, embedding 128");
  const el__preset *mi = el__preset_find("mini");
  CHECK(mi && mi->hidden == 256 && mi->layers == 4 && mi->heads == 4 && mi->ffn == 1024 &&
            mi->embedding == 128 && mi->batch_size == 32,
        "mini preset: 256 hidden, 4 layers, 4 heads, FFN 1024, embedding 128, batch 32");
  const el__preset *b = el__preset_find("base");
  CHECK(b && b->hidden == 768 && b->heads == 12 && fabs(b->gen_size - 1.0 / 3) < 1e-12,
        "base preset with generator 1/3");
  CHECK(!el__preset_find("huge"), "unknown preset");
}

/* The bad values of every check below: each must be refused naming the key. */
static const char *const BAD[] = {"1e300", "-1", "2.5", "\"x\"", NULL /* missing */};
#define N_BAD ((int)(sizeof BAD / sizeof BAD[0]))

/* json with key set to the raw JSON value bad (NULL: key removed); caller frees. */
static char *with_value(const char *json, const char *key, const char *bad) {
  cJSON *j = cJSON_Parse(json);
  cJSON_DeleteItemFromObjectCaseSensitive(j, key);
  if (bad) cJSON_AddItemToObject(j, key, cJSON_Parse(bad));
  char *out = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
  return out;
}

/* The settings a state file holds, edited by hand: a count that is huge,
 * negative, fractional, a string or missing is refused on resume (peek +
 * el__pt_opts_from_json, as electra-train pretrain --resume reads them) with
 * the state file and the key in the message; a valid file still resumes. */
static void test_state_bad_settings(void) {
  el_config d = tiny_cfg(), g;
  el_error err = {0};
  el__params p;
  memset(&p, 0, sizeof p);
  if (el__generator_config(&d, 0.5f, &g, &err) || el__params_new_pair(&p, &d, &g, &err)) {
    CHECK(0, "params: %s", err.msg);
    return;
  }
  el__pt_opts o, r;
  el__pt_opts_defaults(&o, el__preset_find("tiny"));
  char *in[1] = {"corpus.txt"};
  o.inputs = in;
  o.n_inputs = 1;
  o.vocab = "vocab.txt";
  o.out = "RUN";
  o.planned_steps = 5000;
  char *good = el__pt_opts_to_json(&o);
  char dir[300], file[400];
  snprintf(dir, sizeof dir, "%s/badstate", g_dir);
  snprintf(file, sizeof file, "%s/state.bin", dir);
  el__state s, t;
  memset(&s, 0, sizeof s);
  s.step = 10;
  s.settings_json = good;
  int rc = el__state_save(dir, &s, &p, &err) || el__state_peek(dir, &t, &err);
  rc = rc || el__pt_opts_from_json(t.settings_json, &r, file, &err);
  CHECK(!rc && r.seq_len == 128 && r.batch_size == 32 && r.planned_steps == 5000,
        "a state file with valid settings resumes: %s", err.msg);
  if (!rc) {
    free(t.settings_json);
    el__pt_opts_free(&r);
  }
  /* integer settings, the optional plan, a real setting and an optional real one */
  const char *keys[] = {"seq_len", "batch_size", "seed", "max_steps", "threads", "planned_steps",
                        "lr", "corruption_rate"};
  int all = 1, n = 0;
  char last[600] = "";
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
    for (int b = 0; b < N_BAD; b++) {
      int optional = !strcmp(keys[k], "planned_steps") || !strcmp(keys[k], "corruption_rate");
      if (!BAD[b] && optional) continue; /* absent: the value of runs saved before it */
      char *bad = with_value(good, keys[k], BAD[b]);
      s.settings_json = bad;
      memset(&err, 0, sizeof err);
      int ok = el__state_save(dir, &s, &p, &err) == EL_OK && el__state_peek(dir, &t, &err) == EL_OK;
      int rr = ok ? el__pt_opts_from_json(t.settings_json, &r, file, &err) : -99;
      if (ok) free(t.settings_json);
      char quoted[64];
      snprintf(quoted, sizeof quoted, "\"%s\"", keys[k]);
      int named = rr == EL_EFORMAT && strstr(err.msg, quoted) && strstr(err.msg, file);
      if (!named) {
        all = 0;
        printf("# %s = %s: rc %d, \"%s\"\n", keys[k], BAD[b] ? BAD[b] : "(missing)", rr, err.msg);
      }
      if (rr == EL_OK) el__pt_opts_free(&r);
      snprintf(last, sizeof last, "%s", err.msg);
      n++;
      free(bad);
    }
  CHECK(all, "%d hand-edited settings (1e300, -1, 2.5, \"x\", missing in 8 keys) refused naming "
        "the state file and the key, e.g. \"%s\"", n, last);
  char *zero = with_value(good, "batch_size", "0");
  CHECK(el__pt_opts_from_json(zero, &r, file, &err) == EL_EFORMAT &&
            strstr(err.msg, "\"batch_size\" must be an integer from 1 to 65536, got 0"),
        "out of its option's range: %s", err.msg);
  free(zero);
  char *old = with_value(good, "planned_steps", NULL);
  CHECK(el__pt_opts_from_json(old, &r, file, &err) == EL_OK && r.planned_steps == 0,
        "settings saved before the plan existed still read (no planned_steps)");
  el__pt_opts_free(&r);
  free(old);
  free(good);
  el__params_free(&p);
  el__config_free(&g);
}

/* metrics.jsonl edited by hand: a step or count that is huge, negative,
 * fractional, a string or (step) missing is refused naming the file, the
 * line and the key; a torn last line (a killed run) is dropped as before. */
static void test_metrics_bad_numbers(void) {
  char path[300];
  snprintf(path, sizeof path, "%s/bad_metrics.jsonl", g_dir);
  const char *good = "{\"kind\":\"train\",\"step\":10,\"tokens\":640,\"loss\":3.5}\n";
  const char *keys[] = {"step", "tokens", "epoch", "planned_steps"};
  int all = 1, n = 0;
  char last[600] = "";
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
    for (int b = 0; b < N_BAD; b++) {
      if (!BAD[b] && strcmp(keys[k], "step")) continue; /* counts are optional */
      char *row = with_value("{\"kind\":\"train\",\"step\":20,\"loss\":3}", keys[k], BAD[b]);
      FILE *f = fopen(path, "wb");
      fprintf(f, "%s%s\n", good, row);
      fclose(f);
      el__mlog m;
      el_error err = {0};
      int rc = el__mlog_open(&m, path, 100, &err);
      if (rc == EL_OK) el__mlog_close(&m);
      char quoted[64], line[400];
      snprintf(quoted, sizeof quoted, "\"%s\"", keys[k]);
      snprintf(line, sizeof line, "%s line 2", path);
      if (!(rc == EL_EFORMAT && strstr(err.msg, quoted) && strstr(err.msg, line))) {
        all = 0;
        printf("# %s = %s: rc %d, \"%s\"\n", keys[k], BAD[b] ? BAD[b] : "(missing)", rc, err.msg);
      }
      snprintf(last, sizeof last, "%s", err.msg);
      n++;
      free(row);
    }
  CHECK(all, "%d hand-edited metrics rows (1e300, -1, 2.5, \"x\", missing) refused naming the "
        "file, line and key, e.g. \"%s\"", n, last);
  FILE *f = fopen(path, "wb");
  fprintf(f, "%s{\"kind\":\"val\",\"step\":10,\"disc_auc\":null}\n{\"kind\":\"train\",\"st", good);
  fclose(f);
  el__mlog m;
  el_error err = {0};
  CHECK(el__mlog_open(&m, path, 100, &err) == EL_OK && m.n == 2 && m.rows[0].step == 10 &&
            m.rows[0].v[EL_MF_TOKENS] == 640 && isnan(m.rows[1].v[EL_MF_DISC_AUC]),
        "a torn last line (killed run) is dropped, the rows before it kept: %s", err.msg);
  el__mlog_close(&m);
}

/* The helper itself: ranges, integrality, what the message says. */
static void test_json_num(void) {
  cJSON *j =
      cJSON_Parse("{\"a\": 5, \"b\": 9007199254740994, \"c\": true, \"d\": [1], \"e\": 1e-3}");
  el_error err = {0};
  int64_t v = -7;
  double x = -7;
  CHECK(el__json_int(j, "a", EL_JN_REQUIRED, 0, 10, &v, "F", &err) == EL_OK && v == 5,
        "5 in [0, 10]");
  v = -7;
  CHECK(el__json_int(j, "zz", 0, 0, 10, &v, "F", &err) == EL_OK && v == -7,
        "optional and absent: untouched");
  CHECK(el__json_int(j, "b", 0, 0, 9007199254740992LL, &v, "F", &err) == EL_EFORMAT,
        "past 2^53 refused: %s", err.msg);
  CHECK(el__json_int(j, "c", 0, 0, 10, &v, "F", &err) == EL_EFORMAT && strstr(err.msg, "got true"),
        "a boolean: %s", err.msg);
  CHECK(el__json_int(j, "d", 0, 0, 10, &v, "F", &err) == EL_EFORMAT && strstr(err.msg, "an array"),
        "an array: %s", err.msg);
  CHECK(el__json_num(j, "e", EL_JN_REQUIRED, 0, 1, &x, "F", &err) == EL_OK && x == 1e-3,
        "a real in range");
  CHECK(el__json_int(j, "e", 0, 0, 1, &v, "F", &err) == EL_EFORMAT &&
            !strcmp(err.msg, "F: \"e\" must be an integer from 0 to 1, got 0.001"),
        "the message: %s", err.msg);
  CHECK(el__json_int(j, "zz", EL_JN_REQUIRED, 0, 1, &v, "F", &err) == EL_EFORMAT &&
            !strcmp(err.msg, "F: \"zz\" is missing"),
        "required and absent: %s", err.msg);
  cJSON_Delete(j);
}

static void test_metrics_and_svg(void) {
  char path[300], svg[300];
  snprintf(path, sizeof path, "%s/metrics.jsonl", g_dir);
  snprintf(svg, sizeof svg, "%s/loss.svg", g_dir);
  el__mlog m;
  el_error err = {0};
  CHECK(el__mlog_open(&m, path, -1, &err) == EL_OK, "metrics log created");
  for (int s = 10; s <= 100; s += 10) {
    el__mrow r;
    memset(&r, 0, sizeof r);
    r.step = s;
    el__mrow_set(&r, EL_MF_GEN_LOSS, 10.0 / s);
    el__mrow_set(&r, EL_MF_DISC_LOSS, 1.0 / s);
    el__mrow_set(&r, EL_MF_GRAD_NORM, NAN);
    el__mlog_add(&m, &r, &err);
    if (s % 50 == 0) {
      r.val = 1;
      r.has = 0;
      el__mrow_set(&r, EL_MF_GEN_ACC, s / 200.0);
      el__mrow_set(&r, EL_MF_DISC_AUC, 0.5 + s / 400.0);
      el__mlog_add(&m, &r, &err);
    }
  }
  CHECK(el__mlog_plot(&m, svg, "t<e>st & plot", 0, &err) == EL_OK, "loss.svg written");
  el__mlog_close(&m);
  CHECK(el__mlog_open(&m, path, 55, &err) == EL_OK && m.n == 6 && m.rows[5].val == 1 &&
            m.rows[5].step == 50 && isnan(m.rows[0].v[EL_MF_GRAD_NORM]),
        "reopening for a resume at step 55 keeps the 6 rows up to 55 (%d)", m.n);
  el__mlog_close(&m);
  FILE *f = fopen(path, "rb");
  int lines = 0;
  char buf[512];
  while (fgets(buf, sizeof buf, f)) lines++;
  fclose(f);
  CHECK(lines == 6, "the file itself was cut to 6 lines (%d)", lines);
  f = fopen(svg, "rb");
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fclose(f);
  CHECK(strstr(buf, "<svg xmlns=\"http://www.w3.org/2000/svg\"") != NULL && size > 2000,
        "SVG document (%ld bytes)", size);
  char cmd[1200];
  snprintf(cmd, sizeof cmd,
           "/usr/bin/python3 -c \"import sys,xml.dom.minidom as m; d=m.parse(sys.argv[1]); "
           "t=d.getElementsByTagName('text'); assert any('t<e>st & plot' in "
           "(x.firstChild.data if x.firstChild else '') for x in t); "
           "assert len(d.getElementsByTagName('polyline')) == 9; "
           "assert len([c for c in d.getElementsByTagName('circle') "
           "if c.getAttribute('class') == 'mk']) == 4\" %s",
           svg);
  if (access("/usr/bin/python3", X_OK) == 0)
    CHECK(system(cmd) == 0,
          "the SVG is well-formed XML with escaped title, 9 curves in 4 panels (generator, "
          "discriminator vs base rate, validation, LR) and a dot per validation point (4)");
  else
    SKIP("/usr/bin/python3 not found: XML parse of the SVG not checked");
  double t[32], step;
  int k = el__svg_ticks(0, 1, 6, t, 32, &step);
  CHECK(k == 6 && step == 0.2 && t[0] == 0 && fabs(t[5] - 1) < 1e-12, "ticks 0..1 by 0.2");
  k = el__svg_ticks(13, 9870, 8, t, 32, &step);
  CHECK(step == 2000 && t[0] == 2000 && k == 4, "ticks 2000..8000 by 2000 (%d, %g)", k, step);
}

static void test_auc(void) {
  float s1[4] = {0.1f, 0.4f, 0.35f, 0.8f};
  uint8_t l1[4] = {0, 0, 1, 1};
  CHECK_NEAR(el__auc(s1, l1, 4), 0.75, 1e-12, 0, "AUC of the textbook example = 0.75");
  float s2[4] = {0.5f, 0.5f, 0.5f, 0.5f};
  CHECK_NEAR(el__auc(s2, l1, 4), 0.5, 1e-12, 0, "all ties: 0.5");
  float s3[5] = {0.9f, 0.8f, 0.1f, 0.2f, 0.8f};
  uint8_t l3[5] = {1, 1, 0, 0, 0};
  /* positives 0.9, 0.8 vs negatives 0.1, 0.2, 0.8: 2*3 pairs, 0.8-vs-0.8 half */
  CHECK_NEAR(el__auc(s3, l3, 5), 5.5 / 6, 1e-12, 0, "a tie between classes counts half");
  uint8_t l4[4] = {0, 0, 0, 0};
  CHECK(isnan(el__auc(s1, l4, 4)), "one class only: NaN");
  /* brute force on random data */
  enum { N = 300 };
  float s[N];
  uint8_t l[N];
  el__rng r;
  el__rng_seed(&r, 3);
  for (int i = 0; i < N; i++) {
    s[i] = (float)(int)(el__rng_uniform(&r) * 20) / 20; /* many ties */
    l[i] = el__rng_uniform(&r) < 0.3f;
  }
  double num = 0, den = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      if (l[i] && !l[j]) {
        num += s[i] > s[j] ? 1 : s[i] == s[j] ? 0.5 : 0;
        den += 1;
      }
  CHECK_NEAR(el__auc(s, l, N), num / den, 1e-12, 0, "sorting AUC = pairwise count");
}

static void test_cli(void) {
  double d;
  CHECK(el__parse_duration("90s", &d) == 0 && d == 90, "90s");
  CHECK(el__parse_duration("10m", &d) == 0 && d == 600, "10m");
  CHECK(el__parse_duration("2h", &d) == 0 && d == 7200, "2h");
  CHECK(el__parse_duration("1h30m", &d) == 0 && d == 5400, "1h30m");
  CHECK(el__parse_duration("1.5h", &d) == 0 && d == 5400, "1.5h");
  CHECK(el__parse_duration("45", &d) == 0 && d == 45, "plain seconds");
  CHECK(el__parse_duration("10x", &d) && el__parse_duration("", &d) && el__parse_duration("-5", &d) &&
            el__parse_duration("h", &d),
        "bad durations refused");
  char buf[32];
  CHECK(!strcmp(el__format_duration(3723, buf, 32), "1h02m03s") &&
            !strcmp(el__format_duration(65, buf, 32), "1m05s"),
        "durations formatted");
  long steps = 5;
  double lr = 1;
  el_strlist in = {0};
  int flag = 0;
  const char *choice = NULL;
  el_opt o[] = {
      {"--input", EL_OPT_STRS, &in, 0, 0, "PATH...", "", 0},
      {"--steps", EL_OPT_INT, &steps, 1, 100, "N", "", 0},
      {"--lr", EL_OPT_FLOAT, &lr, 0, 1, "X", "", 0},
      {"--flag", EL_OPT_FLAG, &flag, 0, 0, NULL, "", 0},
      {"--obj", EL_OPT_CHOICE, &choice, 0, 0, "electra|mlm", "", 0},
  };
  char *a1[] = {"cmd", "--input", "a", "b", "--steps=7", "--lr", "0.5", "--flag", "--obj", "mlm"};
  CHECK(el__cli_parse("t", o, 5, 10, a1, NULL) == EL_CLI_OK && in.n == 2 && !strcmp(in.v[1], "b") &&
            steps == 7 && lr == 0.5 && flag && !strcmp(choice, "mlm") && o[1].seen && o[0].seen,
        "options parsed");
  char *a2[] = {"cmd", "--steps", "700"};
  CHECK(el__cli_parse("t", o, 5, 3, a2, NULL) == EL_CLI_ERROR, "out-of-range value refused");
  char *a3[] = {"cmd", "--bogus"};
  CHECK(el__cli_parse("t", o, 5, 2, a3, NULL) == EL_CLI_ERROR, "unknown option refused");
  char *a4[] = {"cmd", "--obj", "bert"};
  CHECK(el__cli_parse("t", o, 5, 3, a4, NULL) == EL_CLI_ERROR, "invalid choice refused");
  char *a5[] = {"cmd", "--lr", "1", "--lr", "1"};
  CHECK(el__cli_parse("t", o, 5, 5, a5, NULL) == EL_CLI_ERROR, "repeated option refused");
  char *a6[] = {"cmd", "--steps"};
  CHECK(el__cli_parse("t", o, 5, 2, a6, NULL) == EL_CLI_ERROR, "missing value refused");
}

int main(void) {
  if (!mkdtemp(g_dir)) {
    CHECK(0, "mkdtemp");
    return el_test_done();
  }
  test_state();
  test_opts_json();
  test_metrics_and_svg();
  test_json_num();
  test_state_bad_settings();
  test_metrics_bad_numbers();
  test_auc();
  test_cli();
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
  if (system(cmd)) printf("# could not remove %s\n", g_dir);
  return el_test_done();
}
