/* Presets, model config and the JSON form of the pretraining settings. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json_num.h"
#include "pretrain_cli.h"
#include "pretrain_opts.h"

/* small/base/large: docs/MODEL.md §3 (GR get_bert_config, paper Table 6).
 * tiny: the project's test/default model (issue 3); its defaults are chosen
 * for minutes of CPU training (short warmup, batch 32). Its LR is small's
 * 5e-4, not higher: without bias correction Adam's first ~1000 steps move
 * ~3x the nominal LR, and at 1e-3 the discriminator never left AUC 0.5
 * (docs/RESULTS.md §1). */
static const el__preset PRESETS[] = {
    {"tiny", 128, 4, 2, 512, 128, 0.25, 5e-4, 0.15, 128, 32, 1000, 10000},
    {"mini", 256, 4, 4, 1024, 128, 0.25, 5e-4, 0.15, 128, 32, 1000, 10000},
    {"small", 256, 12, 4, 1024, 128, 0.25, 5e-4, 0.15, 128, 128, 10000, 1000000},
    {"base", 768, 12, 12, 3072, 768, 1.0 / 3.0, 2e-4, 0.15, 512, 256, 10000, 766000},
    {"large", 1024, 24, 16, 4096, 1024, 0.25, 2e-4, 0.25, 512, 2048, 10000, 400000},
};

const el__preset *el__preset_find(const char *name) {
  for (size_t i = 0; i < sizeof PRESETS / sizeof PRESETS[0]; i++)
    if (!strcmp(PRESETS[i].name, name)) return &PRESETS[i];
  return NULL;
}

const char *el__preset_names(void) { return "tiny|mini|small|base|large"; }

void el__pt_opts_defaults(el__pt_opts *o, const el__preset *p) {
  memset(o, 0, sizeof *o);
  snprintf(o->preset, sizeof o->preset, "%s", p->name);
  o->gen_size = p->gen_size;
  o->seq_len = p->seq_len;
  o->max_steps = p->max_steps;
  o->batch_size = p->batch_size;
  o->warmup_steps = p->warmup_steps;
  o->warmup_auto = 1;
  o->seed = 1;
  o->lr = p->lr;
  o->weight_decay = 0.01;
  o->disc_weight = 50.0;
  o->mask_prob = p->mask_prob;
  o->save_every = 1000;
  o->threads = 0;
  o->log_every = 10;
  o->val_every = 500;
  o->val_examples = 512;
  o->val_fraction = 0.01;
  snprintf(o->precision, sizeof o->precision, "auto");
}

void el__pt_opts_free(el__pt_opts *o) {
  for (int i = 0; i < o->n_inputs; i++) free(o->inputs[i]);
  free(o->inputs);
  free(o->vocab);
  free(o->out);
  free(o->cache);
  o->inputs = NULL;
  o->n_inputs = 0;
  o->vocab = o->out = o->cache = NULL;
}

int el__pt_model_config(const el__pt_opts *o, int vocab_size, int pad_id, int lower_case,
                        el_config *c, el_error *err) {
  const el__preset *p = el__preset_find(o->preset);
  if (!p) return el_error_set(err, EL_EINVAL, "unknown preset '%s' (%s)", o->preset, el__preset_names());
  memset(c, 0, sizeof *c);
  c->arch = o->mlm ? EL_ARCH_MASKED_LM : EL_ARCH_PRETRAINING;
  c->vocab_size = vocab_size;
  c->embedding_size = p->embedding;
  c->hidden_size = p->hidden;
  c->num_layers = p->layers;
  c->num_heads = p->heads;
  c->intermediate_size = p->ffn;
  c->max_position_embeddings = o->seq_len > 512 ? (int)o->seq_len : 512;
  c->type_vocab_size = 2;
  c->pad_token_id = pad_id;
  c->layer_norm_eps = 1e-12f;
  c->initializer_range = 0.02f;
  c->hidden_dropout_prob = 0.1f;
  c->attention_probs_dropout_prob = 0.1f;
  c->do_lower_case = lower_case;
  c->relative_positions = o->relative_positions;
  return EL_OK;
}

/* The numeric options a run's settings file holds, written by
 * el__pt_opts_to_json and read back by read_numbers in this order. */
#define PT_NUMBERS(X) \
  X("generator_size", o->gen_size) \
  X("seq_len", o->seq_len) \
  X("max_steps", o->max_steps) \
  X("batch_size", o->batch_size) \
  X("warmup_steps", o->warmup_steps) \
  X("seed", o->seed) \
  X("lr", o->lr) \
  X("weight_decay", o->weight_decay) \
  X("disc_weight", o->disc_weight) \
  X("mask_prob", o->mask_prob) \
  X("time_limit", o->time_limit) \
  X("save_every", o->save_every) \
  X("threads", o->threads) \
  X("log_every", o->log_every) \
  X("val_every", o->val_every) \
  X("val_examples", o->val_examples) \
  X("val_fraction", o->val_fraction)

char *el__pt_opts_to_json(const el__pt_opts *o) {
  cJSON *j = cJSON_CreateObject();
  if (!j) return NULL;
  cJSON *in = cJSON_AddArrayToObject(j, "input");
  for (int i = 0; in && i < o->n_inputs; i++)
    cJSON_AddItemToArray(in, cJSON_CreateString(o->inputs[i]));
  cJSON_AddStringToObject(j, "vocab", o->vocab ? o->vocab : "");
  cJSON_AddStringToObject(j, "out", o->out ? o->out : "");
  cJSON_AddStringToObject(j, "cache", o->cache ? o->cache : "");
  cJSON_AddStringToObject(j, "preset", o->preset);
  cJSON_AddStringToObject(j, "objective", o->mlm ? "mlm" : "electra");
  cJSON_AddStringToObject(j, "bias_init", o->bias_init_zero ? "zero" : "prior");
  cJSON_AddBoolToObject(j, "tie_generator", o->tie_generator);
  cJSON_AddStringToObject(j, "position_embedding",
                          o->relative_positions ? "relative_key" : "absolute");
  cJSON_AddStringToObject(j, "disc_special", o->disc_skip_special ? "exclude" : "include");
  cJSON_AddStringToObject(j, "corruption", o->corruption_rate > 0 ? "learner" : "none");
  cJSON_AddNumberToObject(j, "corruption_rate", o->corruption_rate);
  cJSON_AddStringToObject(j, "precision", o->precision);
#define NUM(k, v) cJSON_AddNumberToObject(j, k, (double)(v));
  PT_NUMBERS(NUM)
#undef NUM
  cJSON_AddBoolToObject(j, "warmup_auto", o->warmup_auto);
  if (o->planned_steps > 0) cJSON_AddNumberToObject(j, "planned_steps", (double)o->planned_steps);
  char *s = cJSON_Print(j);
  cJSON_Delete(j);
  return s;
}

static int get_str(const cJSON *j, const char *k, char **v, const char *where, el_error *err) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, k);
  if (!cJSON_IsString(x))
    return el_error_set(err, EL_EFORMAT, "%s: \"%s\" is missing or not a string", where, k);
  *v = x->valuestring[0] ? strdup(x->valuestring) : NULL;
  return EL_OK;
}

/* "input": the list of input files. */
static int read_inputs(const cJSON *j, el__pt_opts *o, const char *where, el_error *err) {
  const cJSON *in = cJSON_GetObjectItemCaseSensitive(j, "input");
  if (!cJSON_IsArray(in)) return el_error_set(err, EL_EFORMAT, "%s: \"input\" is missing", where);
  int n = cJSON_GetArraySize(in);
  o->inputs = calloc((size_t)(n ? n : 1), sizeof *o->inputs);
  for (int i = 0; i < n && o->inputs; i++) {
    const cJSON *s = cJSON_GetArrayItem(in, i);
    if (!cJSON_IsString(s))
      return el_error_set(err, EL_EFORMAT, "%s: input %d is not a string", where, i);
    o->inputs[o->n_inputs++] = strdup(s->valuestring);
  }
  return EL_OK;
}

/* Options added after the first runs: absent, each takes the value the runs
 * saved before it had. */
static int read_added_fields(const cJSON *j, el__pt_opts *o, const char *where, el_error *err) {
  /* runs saved before --bias-init existed started their biases at 0 */
  const cJSON *bi = cJSON_GetObjectItemCaseSensitive(j, "bias_init");
  if (bi && !cJSON_IsString(bi))
    return el_error_set(err, EL_EFORMAT, "%s: \"bias_init\" is not a string", where);
  o->bias_init_zero = !bi || !strcmp(bi->valuestring, "zero");
  const cJSON *tg = cJSON_GetObjectItemCaseSensitive(j, "tie_generator");
  if (tg && !cJSON_IsBool(tg))
    return el_error_set(err, EL_EFORMAT, "%s: \"tie_generator\" is not true/false", where);
  o->tie_generator = cJSON_IsTrue(tg); /* absent in runs saved before the option */
  const cJSON *ds = cJSON_GetObjectItemCaseSensitive(j, "disc_special");
  if (ds && !cJSON_IsString(ds))
    return el_error_set(err, EL_EFORMAT, "%s: \"disc_special\" is not a string", where);
  o->disc_skip_special = ds && !strcmp(ds->valuestring, "exclude"); /* older runs: include */
  const cJSON *pe = cJSON_GetObjectItemCaseSensitive(j, "position_embedding");
  if (pe && !cJSON_IsString(pe))
    return el_error_set(err, EL_EFORMAT, "%s: \"position_embedding\" is not a string", where);
  o->relative_positions = pe && !strcmp(pe->valuestring, "relative_key"); /* older: absolute */
  /* runs saved before --precision existed trained in fp32 */
  const cJSON *pr = cJSON_GetObjectItemCaseSensitive(j, "precision");
  if (pr && (!cJSON_IsString(pr) || (strcmp(pr->valuestring, "auto") &&
                                     strcmp(pr->valuestring, "fp32") &&
                                     strcmp(pr->valuestring, "bf16"))))
    return el_error_set(err, EL_EFORMAT, "%s: \"precision\" is not auto, fp32 or bf16", where);
  snprintf(o->precision, sizeof o->precision, "%s", pr ? pr->valuestring : "fp32");
  /* runs saved before --corruption existed had none (learner:RATE takes (0, 1]) */
  o->corruption_rate = 0.0;
  return el__json_num(j, "corruption_rate", 0, 0, 1, &o->corruption_rate, where, err);
}

/* One numeric setting, within the range its command-line option accepts
 * (electra-train pretrain's table, pretrain_cli.h: "seq_len" is --seq-len,
 * an integer from 8 to 4096); a value outside it is a damaged or
 * hand-edited file. */
static int read_number(const cJSON *j, const char *key, double *v, const char *where,
                       el_error *err) {
  char name[48] = "--";
  for (size_t i = 0; key[i] && i + 3 < sizeof name; i++) name[i + 2] = key[i] == '_' ? '-' : key[i];
  el__pt_args unused; /* the table's ranges are wanted, not its destinations */
  el_opt table[EL_PT_N_OPTS];
  el__pt_cli_table(&unused, table);
  const el_opt *opt = el__cli_find(table, EL_PT_N_OPTS, name);
  if (!opt) /* every saved number is an option's: the settings round trip tests it */
    return el_error_set(err, EL_EINVAL, "%s: \"%s\" has no option %s (a bug)", where, key, name);
  int integer = opt->kind == EL_OPT_INT || opt->kind == EL_OPT_INT32;
  return el__json_num(j, key, EL_JN_REQUIRED | (integer ? EL_JN_INTEGER : 0), opt->lo, opt->hi,
                      v, where, err);
}

/* The numeric options every run saved. */
static int read_numbers(const cJSON *j, el__pt_opts *o, const char *where, el_error *err) {
  double v = 0;
  int rc;
#define NUM(k, dst)                                         \
  if ((rc = read_number(j, k, &v, where, err))) return rc; \
  dst = v;
  PT_NUMBERS(NUM)
#undef NUM
  return EL_OK;
}

/* Optional: runs saved before time-planned schedules keep their warmup as
 * stored and have no plan. */
static int read_plan_fields(const cJSON *j, el__pt_opts *o, const char *where, el_error *err) {
  const cJSON *wa = cJSON_GetObjectItemCaseSensitive(j, "warmup_auto");
  if (wa && !cJSON_IsBool(wa))
    return el_error_set(err, EL_EFORMAT, "%s: \"warmup_auto\" is not true/false", where);
  o->warmup_auto = cJSON_IsTrue(wa);
  int64_t ps = 0;
  int rc = el__json_int(j, "planned_steps", 0, 0, EL__JN_MAX_EXACT, &ps, where, err);
  o->planned_steps = (long)ps;
  return rc;
}

int el__pt_opts_from_json(const char *text, el__pt_opts *o, const char *file, el_error *err) {
  memset(o, 0, sizeof *o);
  char where[600];
  snprintf(where, sizeof where, "%.500s: saved settings", file ? file : "resume state");
  cJSON *j = cJSON_Parse(text);
  if (!j) return el_error_set(err, EL_EFORMAT, "%s: not valid JSON", where);
  char *preset = NULL, *objective = NULL;
  int rc = read_inputs(j, o, where, err);
  if (!rc && !(rc = get_str(j, "vocab", &o->vocab, where, err)) &&
      !(rc = get_str(j, "out", &o->out, where, err)) &&
      !(rc = get_str(j, "cache", &o->cache, where, err)) &&
      !(rc = get_str(j, "preset", &preset, where, err)) &&
      !(rc = get_str(j, "objective", &objective, where, err))) {
    snprintf(o->preset, sizeof o->preset, "%s", preset ? preset : "");
    o->mlm = objective && !strcmp(objective, "mlm");
  }
  if (!rc) rc = read_added_fields(j, o, where, err);
  if (!rc) rc = read_numbers(j, o, where, err);
  if (!rc) rc = read_plan_fields(j, o, where, err);
  free(preset);
  free(objective);
  cJSON_Delete(j);
  if (rc) el__pt_opts_free(o);
  return rc;
}
