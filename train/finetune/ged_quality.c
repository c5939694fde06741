/* quality.json (ged_quality.h). */
#include "ged_quality.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>

static double num(const cJSON *o, const char *name) {
  return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, name));
}

/* The figures, the class and the one-line summary. */
static cJSON *quality_object(const cJSON *dev, double seconds, const char *dev_file) {
  const cJSON *d = cJSON_GetObjectItemCaseSensitive(dev, "dictionary");
  double model = num(dev, "f0.5"), with = d ? num(d, "f0.5") : model;
  double alone = d ? num(cJSON_GetObjectItemCaseSensitive(d, "alone"), "f0.5") : -1;
  const cJSON *h = d ? cJSON_GetObjectItemCaseSensitive(d, "hunspell") : NULL;
  double spell = h ? num(h, "f0.5") : alone;
  int demo = seconds < EL__QUALITY_MIN_SECONDS || (spell >= 0 && with < EL__QUALITY_MARGIN * spell);
  const char *on = dev_file ? dev_file : "its synthetic dev data";
  char sum[640], hs[160] = "";
  int ngram = d && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "ngram"));
  if (spell >= 0 && ngram)
    snprintf(hs, sizeof hs, "; hunspell alone %.2f, with the n-gram model %.2f, the model alone %.2f",
             spell, alone, model);
  else if (spell >= 0)
    snprintf(hs, sizeof hs, "; hunspell alone %.2f, the model alone %.2f", spell, model);
  int min = seconds >= 120;
  snprintf(sum, sizeof sum, "%s: F0.5 %.2f on %s%s; a %.0f-%s recipe%s", demo ? "demo" : "detector",
           with, on, hs, min ? seconds / 60 : seconds, min ? "minute" : "second",
           dev_file ? "" : " without learner data");
  cJSON *q = cJSON_CreateObject();
  if (!q) return NULL;
  cJSON_AddStringToObject(q, "class", demo ? "demo" : "detector");
  cJSON_AddStringToObject(q, "summary", sum);
  cJSON_AddStringToObject(q, "dev", dev_file ? dev_file : "synthetic");
  cJSON_AddNumberToObject(q, "f0.5", with);
  cJSON_AddNumberToObject(q, "model_alone_f0.5", model);
  if (alone >= 0) cJSON_AddNumberToObject(q, "dictionary_alone_f0.5", alone);
  if (spell >= 0) cJSON_AddNumberToObject(q, "hunspell_alone_f0.5", spell);
  cJSON_AddNumberToObject(q, "recipe_seconds", seconds);
  return q;
}

int el__ged_quality_write(const char *dir, const cJSON *dev, double seconds, const char *dev_file,
                          el_error *err) {
  if (!dev) return el_error_set(err, EL_EINVAL, "%s: no dev scores to describe the model by", dir);
  cJSON *q = quality_object(dev, seconds, dev_file);
  char *txt = q ? cJSON_Print(q) : NULL;
  cJSON_Delete(q);
  if (!txt) return el_error_set(err, EL_ENOMEM, "quality.json: out of memory");
  char path[4200];
  snprintf(path, sizeof path, "%s/quality.json", dir);
  FILE *f = fopen(path, "w");
  int ok = f && fputs(txt, f) >= 0 && fputc('\n', f) != EOF;
  if (f && fclose(f)) ok = 0;
  free(txt);
  return ok ? EL_OK : el_error_set(err, EL_EIO, "%s: cannot write", path);
}
