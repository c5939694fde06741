/* SQuAD v1.1 / v2.0 JSON reader. answer_start counts code points (Python
 * string indices); each answer is checked against its context. An answer
 * whose text is not at its offset is kept as a gold text for evaluation (the
 * official script compares texts only) but not used for training; the counts
 * go to n_bad_answers / n_untrainable and the first case to first_skip. */
#include <cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "electra/tokenizer.h"
#include "json_num.h"
#include "task_data.h"
#include "trainer_api.h"

void el__squad_free(el__squad_data *d) {
  if (!d) return;
  for (int i = 0; i < d->n_ctx; i++) free(d->contexts[i]);
  free(d->contexts);
  for (int i = 0; i < d->n_q; i++) {
    el__squad_q *q = &d->q[i];
    free(q->id);
    free(q->question);
    for (int j = 0; j < q->n_answers; j++) free(q->answers[j].text);
    free(q->answers);
  }
  free(d->q);
  memset(d, 0, sizeof *d);
}

static char *read_file(const char *path, size_t *len, el_error *err) {
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    el_error_set(err, EL_EIO, "%s: %s", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t k = fread(buf + n, 1, cap - n, fp);
    n += k;
    if (n < cap) break;
    char *nb = realloc(buf, cap *= 2);
    if (!nb) {
      free(buf);
      buf = NULL;
    } else {
      buf = nb;
    }
  }
  int bad = ferror(fp);
  fclose(fp);
  if (!buf) {
    el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
    return NULL;
  }
  if (bad) {
    free(buf);
    el_error_set(err, EL_EIO, "%s: read error", path);
    return NULL;
  }
  *len = n;
  return buf;
}

static const char *jstr(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int push_q(el__squad_data *d) {
  if (el__grow((void **)&d->q, &d->cap_q, (size_t)d->n_q + 1, sizeof *d->q)) return -1;
  memset(&d->q[d->n_q], 0, sizeof d->q[0]);
  d->n_q++;
  return 0;
}

static int push_ctx(el__squad_data *d, const char *ctx) {
  if (el__grow((void **)&d->contexts, &d->cap_ctx, (size_t)d->n_ctx + 1, sizeof *d->contexts))
    return -1;
  if (!(d->contexts[d->n_ctx] = strdup(ctx))) return -1;
  d->n_ctx++;
  return 0;
}

static el__squad_q *sort_base_;
static int cmp_qid(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  int c = strcmp(sort_base_[x].id, sort_base_[y].id);
  return c ? c : x - y;
}

/* Makes ids unique: the 2nd, 3rd... use of an id becomes "id#2", "id#3". */
static int unique_ids(el__squad_data *d) {
  if (d->n_q < 2) return 0;
  int *idx = malloc((size_t)d->n_q * sizeof *idx);
  if (!idx) return -1;
  for (int i = 0; i < d->n_q; i++) idx[i] = i;
  sort_base_ = d->q;
  qsort(idx, (size_t)d->n_q, sizeof *idx, cmp_qid);
  /* within each run of equal ids, rename all but the first */
  int start = 0;
  for (int i = 1; i <= d->n_q; i++) {
    if (i < d->n_q && !strcmp(d->q[idx[i]].id, d->q[idx[start]].id)) continue;
    for (int k = start + 1; k < i; k++) {
      el__squad_q *q = &d->q[idx[k]];
      size_t n = strlen(q->id) + 16;
      char *nid = malloc(n);
      if (!nid) {
        free(idx);
        return -1;
      }
      snprintf(nid, n, "%s#%d", q->id, k - start + 1);
      free(q->id);
      q->id = nid;
      d->n_renamed_ids++;
    }
    start = i;
  }
  free(idx);
  return 0;
}

static int no_memory(el_error *err, const char *path) {
  return el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
}

/* The answers of one question (none for an impossible one: v2.0 dev keeps
 * plausible answers elsewhere); an answer whose text is not at its
 * answer_start is kept for evaluation but not trained on. -1: out of memory. */
static int read_answers(el__squad_data *out, el__squad_q *q, const cJSON *qa, const char *ctx,
                        const char *path) {
  const cJSON *ans = cJSON_GetObjectItemCaseSensitive(qa, "answers");
  int na = cJSON_IsArray(ans) ? cJSON_GetArraySize(ans) : 0;
  if (q->impossible) na = 0;
  if (na && !(q->answers = calloc((size_t)na, sizeof *q->answers))) return -1;
  const cJSON *a;
  int k = 0;
  cJSON_ArrayForEach(a, ans) {
    if (k >= na) break;
    const char *text = jstr(a, "text");
    if (!text) continue;
    el__squad_answer *x = &q->answers[q->n_answers];
    if (!(x->text = strdup(text))) return -1;
    /* an offset that is not a whole number from 0 to INT_MAX (1e300, found by
     * fuzz_data; -1, 2.5, a string, none) is no offset: kept for evaluation,
     * not trained on, and the first one described */
    char where[200];
    snprintf(where, sizeof where, "question id %.40s: answer '%.40s'", q->id, text);
    int64_t sd = -1;
    el_error bad = {0};
    if (el__json_int(a, "answer_start", EL_JN_REQUIRED, 0, INT_MAX, &sd, where, &bad)) sd = -1;
    x->start = (int)sd;
    /* past the context's end the offset is its end, where no text matches */
    long b = x->start >= 0 ? (long)el_utf8_byte_offset(ctx, strlen(ctx), (size_t)x->start) : -1;
    x->ok = b >= 0 && *text && strncmp(ctx + b, text, strlen(text)) == 0;
    if (!x->ok && out->n_bad_answers++ == 0 && !out->first_skip[0]) {
      if (bad.msg[0])
        snprintf(out->first_skip, sizeof out->first_skip, "%s: %.250s", path, bad.msg);
      else
        snprintf(out->first_skip, sizeof out->first_skip,
                 "%s: question id %s: answer '%.40s' is not at character %d of its context", path,
                 q->id, text, x->start);
    }
    if (x->ok && q->train_answer < 0) q->train_answer = q->n_answers;
    q->n_answers++;
    k++;
  }
  return 0;
}

/* data[ai].paragraphs[pi].qas[qi]: a question about the last context. */
static int read_question(el__squad_data *out, const cJSON *qa, const char *ctx, const char *path,
                         int ai, int pi, int qi, el_error *err) {
  const char *question = jstr(qa, "question");
  if (!question)
    return el_error_set(err, EL_EFORMAT, "%s: data[%d].paragraphs[%d].qas[%d] has no \"question\"",
                        path, ai, pi, qi);
  if (push_q(out)) return no_memory(err, path);
  el__squad_q *q = &out->q[out->n_q - 1];
  q->ctx = out->n_ctx - 1;
  q->train_answer = -1;
  const char *id = jstr(qa, "id");
  char idbuf[32];
  if (!id) {
    snprintf(idbuf, sizeof idbuf, "q%d", out->n_q - 1);
    id = idbuf;
  }
  q->id = strdup(id);
  q->question = strdup(question);
  if (!q->id || !q->question) return no_memory(err, path);
  q->impossible = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(qa, "is_impossible"));
  if (q->impossible) out->v2 = 1;
  if (read_answers(out, q, qa, ctx, path)) return no_memory(err, path);
  if (!q->impossible && q->train_answer < 0) out->n_untrainable++;
  return EL_OK;
}

/* Every article's paragraphs: a context and its questions. */
static int read_articles(el__squad_data *out, const cJSON *data, const char *path, el_error *err) {
  int ai = 0, rc;
  const cJSON *art;
  cJSON_ArrayForEach(art, data) {
    const cJSON *paras = cJSON_GetObjectItemCaseSensitive(art, "paragraphs");
    if (!cJSON_IsArray(paras))
      return el_error_set(err, EL_EFORMAT, "%s: data[%d] has no \"paragraphs\" array", path, ai);
    int pi = 0;
    const cJSON *para;
    cJSON_ArrayForEach(para, paras) {
      const char *ctx = jstr(para, "context");
      const cJSON *qas = cJSON_GetObjectItemCaseSensitive(para, "qas");
      if (!ctx || !cJSON_IsArray(qas))
        return el_error_set(err, EL_EFORMAT,
                            "%s: data[%d].paragraphs[%d] lacks \"context\" or \"qas\"", path, ai,
                            pi);
      if (push_ctx(out, ctx)) return no_memory(err, path);
      int qi = 0;
      const cJSON *qa;
      cJSON_ArrayForEach(qa, qas) {
        if ((rc = read_question(out, qa, ctx, path, ai, pi, qi, err))) return rc;
        qi++;
      }
      pi++;
    }
    ai++;
  }
  return EL_OK;
}

int el__squad_read(const char *path, el__squad_data *out, el_error *err) {
  memset(out, 0, sizeof *out);
  size_t len = 0;
  char *buf = read_file(path, &len, err);
  if (!buf) return err ? err->code : EL_EIO;
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
  if (!root) {
    long line = 1;
    const char *at = end ? end : buf;
    for (const char *p = buf; p < at && p < buf + len; p++) line += *p == '\n';
    long byte = (long)(at - buf);
    free(buf);
    return el_error_set(err, EL_EFORMAT, "%s:%ld: invalid JSON near byte %ld", path, line, byte);
  }
  int rc = EL_OK;
  const char *ver = jstr(root, "version");
  if (ver && strstr(ver, "2.0")) out->v2 = 1;
  const cJSON *data = cJSON_GetObjectItemCaseSensitive(root, "data");
  if (!cJSON_IsArray(data))
    rc = el_error_set(err, EL_EFORMAT, "%s: no \"data\" array (not SQuAD JSON)", path);
  if (!rc) rc = read_articles(out, data, path, err);
  if (!rc && out->n_q == 0) rc = el_error_set(err, EL_EFORMAT, "%s: no questions", path);
  if (!rc && unique_ids(out)) rc = no_memory(err, path);
  cJSON_Delete(root);
  free(buf);
  if (rc) el__squad_free(out);
  return rc;
}
