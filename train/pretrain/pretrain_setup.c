/* Pretraining setup: vocabulary, token cache and split, models and
 * optimizer (pretrain_run.h). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "trainer_api.h"
#include "data_corpus.h"
#include "data_input.h"
#include <unistd.h>
#include "pretrain_run.h"
#include "prior_init.h"
#include "vocab_builder.h"

/* Removes the temporary files and directories ("NAME.tmp-PID",
 * "NAME.idx-PID") that a process killed while saving left in dir, when that
 * process is gone. Returns how many were removed. */
static int remove_stale(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    const char *t = strstr(e->d_name, ".tmp-");
    if (!t) t = strstr(e->d_name, ".idx-");
    if (!t) continue;
    char *end;
    long pid = strtol(t + 5, &end, 10);
    if (*end || pid <= 0 || pid == (long)getpid()) continue;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* still alive, or not ours */
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (el__remove_tree(path) == 0) n++;
  }
  closedir(d);
  return n;
}

int el__pt_clean_stale(const el__pt_run *r) {
  char cache_dir[4300];
  snprintf(cache_dir, sizeof cache_dir, "%s/cache", r->run_dir);
  return remove_stale(r->run_dir) + remove_stale(r->state_dir) + remove_stale(cache_dir);
}

int el__pt_setup_vocab(el__pt_run *r, uint64_t expect_hash, el_error *err) {
  int size = 0, cased = 0;
  uint64_t hash = 0;
  int rc = el__vb_check(r->o->vocab, &size, &hash, &cased, err);
  if (rc) return rc;
  if (expect_hash && hash != expect_hash)
    return el_error_set(err, EL_ESHAPE,
                        "vocabulary %s is not the one %s was trained with (file hash %016llx, "
                        "the run's %016llx)",
                        r->o->vocab, r->run_dir, (unsigned long long)hash,
                        (unsigned long long)expect_hash);
  if (size < 6)
    return el_error_set(err, EL_EFORMAT,
                        "vocabulary %s has only %d entries: it needs at least one token besides "
                        "the 5 special ones",
                        r->o->vocab, size);
  if (size > (1 << 24))
    return el_error_set(err, EL_EUNSUPPORTED, "vocabulary %s has %d entries, more than 2^24",
                        r->o->vocab, size);
  r->lower_case = !cased;
  if ((rc = el_tokenizer_load(r->o->vocab, r->lower_case, &r->tok, err))) return rc;
  r->vocab_size = el_tokenizer_vocab_size(r->tok);
  r->vocab_hash = hash;
  el__mask_cfg *m = &r->mc;
  m->mask_prob = (float)r->o->mask_prob;
  m->max_pred = el__max_predictions(m->mask_prob, (int)r->o->seq_len);
  if (m->max_pred < 1) m->max_pred = 1;
  m->vocab_size = r->vocab_size;
  m->pad_id = el_tokenizer_special_id(r->tok, EL_TOK_PAD);
  m->unk_id = el_tokenizer_special_id(r->tok, EL_TOK_UNK);
  m->cls_id = el_tokenizer_special_id(r->tok, EL_TOK_CLS);
  m->sep_id = el_tokenizer_special_id(r->tok, EL_TOK_SEP);
  m->mask_id = el_tokenizer_special_id(r->tok, EL_TOK_MASK);
  return EL_OK;
}

/* A cache usable for this run: same vocabulary, length, casing; for a resume
 * also the same content (inputs may have moved). */
static int cache_usable(el__pt_run *r, const el__state *st, const el__cache_key *key,
                        char *why, size_t n) {
  el__cache c;
  el_error e = {0};
  int rc = el__cache_open(&c, r->cache_path, st ? NULL : key, &e);
  if (rc) {
    snprintf(why, n, "%s", rc == EL_EIO ? "no token cache yet" : e.msg);
    return 0;
  }
  int ok = 1;
  if (st) {
    const el__cache_header *h = &c.h;
    if (h->vocab_hash != key->vocab_hash || h->seq_len != key->seq_len ||
        h->lower_case != key->lower_case || h->build_seed != key->build_seed) {
      snprintf(why, n, "token cache %s was built with other settings", r->cache_path);
      ok = 0;
    } else if (h->content_hash != st->data_hash) {
      snprintf(why, n, "token cache %s holds other data than the run used", r->cache_path);
      ok = 0;
    }
  }
  el__cache_close(&c);
  return ok;
}

int el__pt_setup_data(el__pt_run *r, const el__state *st, el_error *err) {
  el__pt_opts *o = r->o;
  if (o->cache) snprintf(r->cache_path, sizeof r->cache_path, "%s", o->cache);
  else snprintf(r->cache_path, sizeof r->cache_path, "%s/cache/tokens.bin", r->run_dir);
  char dir[4200];
  snprintf(dir, sizeof dir, "%s", r->cache_path);
  char *slash = strrchr(dir, '/');
  if (slash && slash != dir) {
    *slash = 0;
    int rc = el__mkdirs(dir, err);
    if (rc) return rc;
  }
  el__cache_key key = {r->vocab_hash,
                       el__inputs_fingerprint(o->inputs, o->n_inputs),
                       EL_PT_BUILD_SEED,
                       (uint32_t)r->vocab_size,
                       (uint32_t)o->seq_len,
                       (uint32_t)r->lower_case};
  char why[4800];
  if (!cache_usable(r, st, &key, why, sizeof why)) {
    uint64_t bytes = 0;
    int rc = el__inputs_check(o->inputs, o->n_inputs, &bytes, err);
    if (rc) return rc;
    fprintf(stderr, "tokenizing %d file(s), %.1f MB, into %s (%s)\n", o->n_inputs,
            (double)bytes / 1e6, r->cache_path, why);
    el__corpus_stats cs;
    if ((rc = el__corpus_build(r->cache_path, o->inputs, o->n_inputs, r->tok, &key, &cs, err)))
      return rc;
    fprintf(stderr,
            "  %llu lines, %llu documents -> %llu examples, %llu tokens in %.1fs (%.1f MB/s)%s\n",
            (unsigned long long)cs.lines, (unsigned long long)cs.documents,
            (unsigned long long)cs.examples, (unsigned long long)cs.tokens, cs.seconds,
            (double)cs.bytes / 1e6 / (cs.seconds > 0 ? cs.seconds : 1),
            cs.bad_utf8_lines ? " (some lines had invalid UTF-8 bytes, dropped)" : "");
  }
  int rc = el__dataset_open(&r->data, r->cache_path, st ? NULL : &key, o->val_fraction,
                            (uint64_t)o->val_examples, (uint64_t)o->seed, err);
  if (rc) return rc;
  if (st && r->data.cache.h.content_hash != st->data_hash)
    return el_error_set(err, EL_ESHAPE,
                        "the training data differs from the data %s was trained on (token cache "
                        "%s)",
                        r->run_dir, r->cache_path);
  return EL_OK;
}


int el__pt_setup_model(el__pt_run *r, el__state *st, el_error *err) {
  el__pt_opts *o = r->o;
  el_config dc, gc;
  memset(&gc, 0, sizeof gc);
  int rc = el__pt_model_config(o, r->vocab_size, r->mc.pad_id, r->lower_case, &dc, err);
  if (rc) return rc;
  if (o->mlm) {
    rc = el__params_new_single(&r->p, &dc, err);
  } else {
    if ((rc = el__generator_config(&dc, (float)o->gen_size, &gc, err))) return rc;
    if (o->tie_generator) gc.num_heads = dc.num_heads; /* one encoder: the same heads */
    rc = el__params_new_pair_tied(&r->p, &dc, &gc, o->tie_generator, err);
    el__config_free(&gc);
  }
  if (rc) return rc;
  /* each copy's models hold one micro-batch; masking and corruption work on
   * the rank's whole share (copies x accumulate micro-batches) */
  const int share = r->micro * r->accumulate * r->copies;
  el__tmodel_limits lim = {(int)(r->micro * o->seq_len), r->micro, (int)o->seq_len,
                          r->micro * r->mc.max_pred};
  if ((rc = el__replicas_new(&r->reps, &r->p, r->copies, err))) return rc;
  for (int i = 0; i < r->copies && !rc; i++) {
    el__params *c = el__replicas_params(&r->reps, i);
    if (o->mlm) rc = el__tmodel_new(&c->cfg[0], &c->w[0], &c->g[0], &lim, &r->mlm[i], err);
    else rc = el__electra_new(c, &lim, &r->electra[i], err);
  }
  if (rc) return rc;
  r->eo = el__electra_default_opts(r->mc.mask_id);
  r->eo.disc_weight = (float)o->disc_weight;
  if (o->disc_skip_special) {
    r->eo.skip_cls_id = r->mc.cls_id;
    r->eo.skip_sep_id = r->mc.sep_id;
  }
  r->adam = el__adamw_defaults();
  r->adam.weight_decay = (float)o->weight_decay;
  size_t P = (size_t)share * r->mc.max_pred, T = (size_t)share * o->seq_len;
  r->pos = malloc(P * sizeof *r->pos);
  r->targets = malloc(P * sizeof *r->targets);
  r->use_mask = malloc(P);
  r->corrupt = malloc(T * sizeof *r->corrupt);
  if (!r->pos || !r->targets || !r->use_mask || !r->corrupt)
    return el_error_set(err, EL_ENOMEM, "out of memory");
  if (o->corruption_rate > 0) {
    if ((rc = el__lids_load(NULL, r->tok, &r->lids, err))) return rc;
    int nc, ns;
    el__lids_stats(r->lids, &nc, &ns);
    if (r->rank == 0) /* said once for all ranks */
      fprintf(stderr, "learner errors: %g per word before masking; %d vocabulary words with "
                    "confusable forms, %d with misspellings\n", o->corruption_rate, nc, ns);
  }
  el__rng_seed(&r->base, (uint64_t)o->seed);
  if (st) {
    free(st->settings_json); /* from el__state_peek; the load reads it again */
    st->settings_json = NULL;
    if ((rc = el__state_load(r->state_dir, st, &r->p, err))) return rc;
    r->step = st->step;
    r->base = st->rng;
    r->tokens_seen = st->tokens_seen;
    r->train_seconds = st->train_seconds;
    el__data_pos pos = {st->data_epoch, st->data_offset};
    el__dataset_seek(&r->data, pos);
  } else {
    el__rng init = el__rng_split(&r->base, 0x1A17ULL);
    if ((rc = el__params_init_random(&r->p, 0.0f, 1, &init, err))) return rc;
    if (!o->bias_init_zero && (rc = el__prior_init(&r->p, &r->data, &r->mc, o->corruption_rate, err))) return rc;
  }
  return EL_OK;
}

void el__pt_run_free(el__pt_run *r) {
  for (int i = 0; i < EL_MAX_REPLICAS; i++) {
    el__electra_free(r->electra[i]);
    el__tmodel_free(r->mlm[i]);
  }
  el__replicas_free(&r->reps);
  el__params_free(&r->p);
  el__dataset_close(&r->data);
  el__lids_free(r->lids);
  el__lids_batch_free(&r->lb);
  el_tokenizer_free(r->tok);
  el__mlog_close(&r->mlog);
  free(r->pos);
  free(r->targets);
  free(r->use_mask);
  free(r->corrupt);
  memset(r, 0, sizeof *r);
}
