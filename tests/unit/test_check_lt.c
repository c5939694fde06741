/* LanguageTool's wire format (check/lt_*.h): UTF-16 offsets with an emoji
 * before the error, annotated data whose markup counts in the offsets,
 * form-urlencoded decoding, the language and level fields, the rule and
 * category filters, and the answer's fields clients read. No model. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "lt_form.h"
#include "lt_format.h"
#include "lt_request.h"
#include "lt_rules.h"

/* One match over bytes [off, off+len) with one replacement. */
static void one_match(el__matches *ms, size_t off, size_t len, int type, const char *repl) {
  memset(ms, 0, sizeof *ms);
  ms->m = calloc(1, sizeof *ms->m);
  ms->n = ms->cap = 1;
  ms->m->offset = off;
  ms->m->length = len;
  ms->m->type = type;
  ms->m->n_repl = 1;
  ms->m->repl[0] = strdup(repl);
  strcpy(ms->m->message, "Possible agreement error: \"goes\"?");
  strcpy(ms->m->short_message, "Agreement");
}

static cJSON *first_match(cJSON *root) {
  return cJSON_GetArrayItem(cJSON_GetObjectItem(root, "matches"), 0);
}

static double num(cJSON *o, const char *k) { return cJSON_GetNumberValue(cJSON_GetObjectItem(o, k)); }
static const char *str(cJSON *o, const char *k) { return cJSON_GetStringValue(cJSON_GetObjectItem(o, k)); }

static void test_utf16_emoji(void) {
  /* "😀 She go home." : the emoji is 4 bytes, 1 code point, 2 UTF-16 units */
  const char *text = "\xF0\x9F\x98\x80 She go home.";
  const char *go = strstr(text, "go");
  el__matches ms;
  one_match(&ms, (size_t)(go - text), 2, EL__ET_VERB_SVA, "goes");
  el__lt_doc d;
  el__lt_doc_from_text(text, strlen(text), &d);
  char *json = el__lt_response(&d, el__lt_lang_find("en-US"), EL__LT_ALL_TYPES, &ms);
  el__lt_doc_free(&d);
  cJSON *root = cJSON_Parse(json);
  cJSON *m = first_match(root);
  CHECK(num(m, "offset") == 7, "offset after an emoji counts it as 2 UTF-16 units (got %g)",
        num(m, "offset"));
  CHECK(num(m, "length") == 2, "length 2");
  cJSON *ctx = cJSON_GetObjectItem(m, "context");
  CHECK(num(ctx, "offset") == 7 && num(ctx, "length") == 2, "context offset in UTF-16 too");
  CHECK(!strcmp(str(m, "sentence"), "\xF0\x9F\x98\x80 She go home."), "sentence: %s",
        str(m, "sentence"));
  cJSON *rule = cJSON_GetObjectItem(m, "rule");
  CHECK(!strcmp(str(rule, "id"), "ELECTRA_VERB_SVA"), "rule id from the ERRANT type");
  CHECK(!strcmp(str(rule, "issueType"), "grammar"), "issueType grammar");
  CHECK(!strcmp(str(cJSON_GetObjectItem(rule, "category"), "id"), "GRAMMAR"), "category GRAMMAR");
  CHECK(!strcmp(str(cJSON_GetArrayItem(cJSON_GetObjectItem(m, "replacements"), 0), "value"),
                "goes"), "replacement value");
  CHECK(!strcmp(str(m, "shortMessage"), "Agreement"), "shortMessage");
  cJSON *sw = cJSON_GetObjectItem(root, "software");
  CHECK(!strcmp(str(sw, "name"), "electra.c") && num(sw, "apiVersion") == 1, "software");
  cJSON *lang = cJSON_GetObjectItem(root, "language");
  CHECK(!strcmp(str(lang, "code"), "en-US") &&
            !strcmp(str(cJSON_GetObjectItem(lang, "detectedLanguage"), "code"), "en-US"),
        "language and detectedLanguage");
  CHECK(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "warnings"),
                                          "incompleteResults")), "warnings.incompleteResults");
  cJSON_Delete(root);
  free(json);
  el__matches_free(&ms);
}

/* A request body -> the answer for one match over `word` of the checked text. */
static cJSON *check_body(const char *body, const char *word, int type, el__lt_request *r) {
  char msg[256] = "";
  if (el__lt_request_parse(body, strlen(body), r, msg, sizeof msg) < 0) {
    printf("# parse failed: %s\n", msg);
    return NULL;
  }
  const char *at = strstr(r->doc.plain, word);
  el__matches ms;
  one_match(&ms, at ? (size_t)(at - r->doc.plain) : 0, strlen(word), type, "x");
  char *json = el__lt_response(&r->doc, r->lang, r->types, &ms);
  cJSON *root = cJSON_Parse(json);
  free(json);
  el__matches_free(&ms);
  return root;
}

/* Percent-encodes s for a form body. */
static char *form_escape(const char *s) {
  char *out = malloc(strlen(s) * 3 + 1), *o = out;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))
      *o++ = (char)*p;
    else if (*p == ' ')
      *o++ = '+';
    else
      o += sprintf(o, "%%%02X", *p);
  }
  *o = 0;
  return out;
}

static void test_annotated_data(void) {
  const char *data =
      "{\"annotation\":[{\"text\":\"A \"},{\"markup\":\"<b>\"},{\"text\":\"sentence\"},"
      "{\"markup\":\"</b>\"},{\"markup\":\"<br/>\",\"interpretAs\":\"\\n\\n\"},"
      "{\"text\":\"She go home.\"}]}";
  char *esc = form_escape(data), body[1024];
  snprintf(body, sizeof body, "language=en-US&data=%s", esc);
  free(esc);
  el__lt_request r;
  cJSON *root = check_body(body, "go", EL__ET_VERB_SVA, &r);
  CHECK(root != NULL, "annotated data parses");
  CHECK(r.doc.plain && !strcmp(r.doc.plain, "A sentence\n\nShe go home."),
        "checked text: text parts + interpretAs (%s)", r.doc.plain ? r.doc.plain : "");
  /* document "A <b>sentence</b><br/>She go home.": "go" at 26 */
  cJSON *m = first_match(root);
  CHECK(num(m, "offset") == 26 && num(m, "length") == 2,
        "offset counts the markup (got %g, want 26)", num(m, "offset"));
  CHECK(!strcmp(str(m, "sentence"), "She go home."), "sentence of the checked text");
  cJSON_Delete(root);
  el__lt_request_free(&r);
  /* a word between markup: "sentence" at document offset 5, markup not swallowed */
  root = check_body(body, "sentence", EL__ET_SPELL, &r);
  m = first_match(root);
  CHECK(num(m, "offset") == 5 && num(m, "length") == 8, "word inside <b>..</b>: 5+8 (got %g+%g)",
        num(m, "offset"), num(m, "length"));
  cJSON_Delete(root);
  el__lt_request_free(&r);
  /* an error over an interpretAs spans its whole markup */
  root = check_body(body, "\n\n", EL__ET_PUNCT, &r);
  m = first_match(root);
  CHECK(num(m, "offset") == 17 && num(m, "length") == 5, "interpretAs -> its markup <br/> (17+5)");
  cJSON_Delete(root);
  el__lt_request_free(&r);
  char msg[256];
  CHECK(el__lt_request_parse("language=en&data=%7B%7D", 24, &r, msg, sizeof msg) < 0,
        "data without annotation: 400 (%s)", msg);
  CHECK(el__lt_request_parse("language=en&data=%7B%22annotation%22%3A%5B%7B%7D%5D%7D", 54, &r,
                             msg, sizeof msg) < 0, "an entry neither text nor markup: 400");
}

static void test_form(void) {
  const char *body = "text=caf%C3%A9+au%20lait%2B&a=1&&a=2&empty=&flag";
  el__form f;
  char msg[256] = "";
  CHECK(el__form_parse(body, strlen(body), &f, msg, sizeof msg) == 0, "form parses (%s)", msg);
  const el__form_field *t = el__form_get(&f, "text", NULL);
  CHECK(t && !strcmp(t->value, "caf\xC3\xA9 au lait+"), "+ is a space, %%XX a byte, %%2B a '+'");
  int count = 0;
  const el__form_field *a = el__form_get(&f, "a", &count);
  CHECK(a && !strcmp(a->value, "1") && count == 2, "repeated key: first value, count 2");
  CHECK(el__form_get(&f, "empty", NULL) && !el__form_get(&f, "empty", NULL)->value[0] &&
            el__form_get(&f, "flag", NULL), "empty values");
  el__form_free(&f);
  const char *bad[] = {"text=%zz", "text=%4", "text=%", "text=a%00b", "text=%FF", "=v",
                       "text=%C0%AF"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    CHECK(el__form_parse(bad[i], strlen(bad[i]), &f, msg, sizeof msg) < 0, "refused: %s (%s)",
          bad[i], msg);
  char many[EL__FORM_MAX_FIELDS * 4 + 8] = "";
  for (int i = 0; i <= EL__FORM_MAX_FIELDS; i++) strcat(many, "k=v&");
  CHECK(el__form_parse(many, strlen(many), &f, msg, sizeof msg) < 0, "too many fields refused");
}

static int parses(const char *body, el__lt_request *r, char *msg) {
  int rc = el__lt_request_parse(body, strlen(body), r, msg, 256);
  return rc;
}

static void test_request_fields(void) {
  el__lt_request r;
  char msg[256];
  CHECK(parses("language=en-US", &r, msg) < 0 && strstr(msg, "Missing 'text' or 'data'"),
        "neither text nor data: %s", msg);
  CHECK(parses("text=hi", &r, msg) < 0 && strstr(msg, "language"), "no language: %s", msg);
  CHECK(parses("text=hi&language=fr", &r, msg) < 0 && strstr(msg, "'fr'"), "fr: %s", msg);
  CHECK(parses("text=hi&text=ho&language=en", &r, msg) < 0, "text twice: %s", msg);
  CHECK(parses("text=hi&data=x&language=en", &r, msg) < 0, "text and data: %s", msg);
  CHECK(parses("text=hi&language=en&level=strict", &r, msg) < 0, "bad level: %s", msg);
  /* the code the answer gives, and the spelling checked: en and auto
   * either variant's, en-GB British alone, en-US American alone */
  const struct {
    const char *given, *answer;
    el__dict_variant variant;
  } ok[] = {{"en", "en", EL__DICT_EN},       {"en-US", "en-US", EL__DICT_US},
            {"en_gb", "en-GB", EL__DICT_GB}, {"EN-GB", "en-GB", EL__DICT_GB},
            {"auto", "en-US", EL__DICT_EN}};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    char body[64];
    snprintf(body, sizeof body, "text=hi&language=%s&level=picky&motherTongue=de", ok[i].given);
    int rc = parses(body, &r, msg);
    CHECK(rc == 0 && !strcmp(r.lang->long_code, ok[i].answer) && r.picky &&
              r.lang->variant == ok[i].variant,
          "language=%s -> %s, variant %d", ok[i].given, ok[i].answer, (int)ok[i].variant);
    if (!rc) el__lt_request_free(&r);
  }
}

static void test_filters(void) {
  unsigned all = EL__LT_ALL_TYPES;
  CHECK(el__lt_filter_types(NULL, NULL, NULL, NULL, 0) == all, "no filters: every type");
  CHECK(el__lt_filter_types("", "ELECTRA_SPELL", "", "", 0) == (all & ~(1u << EL__ET_SPELL)),
        "disabledRules=ELECTRA_SPELL");
  CHECK(el__lt_filter_types("", "MORFOLOGIK_RULE_EN_US", "", "", 0) ==
            (all & ~(1u << EL__ET_SPELL)), "LanguageTool's spelling rule id disables SPELL");
  CHECK(el__lt_filter_types("", "", "", "GRAMMAR", 0) & (1u << EL__ET_VERB_SVA) ? 0 : 1,
        "disabledCategories=GRAMMAR drops VERB:SVA");
  CHECK(el__lt_filter_types("ELECTRA_VERB_SVA", "", "", "GRAMMAR", 0) & (1u << EL__ET_VERB_SVA),
        "an enabled rule beats its disabled category");
  CHECK(el__lt_filter_types("", "", "TYPOS", "", 1) ==
            ((1u << EL__ET_SPELL) | (1u << EL__ET_ORTH)), "enabledOnly + TYPOS: SPELL and ORTH");
  CHECK(el__lt_filter_types("ELECTRA_DET, ELECTRA_PREP", "", "", "", 1) ==
            ((1u << EL__ET_DET) | (1u << EL__ET_PREP)), "enabledOnly + two rules (spaces ok)");
  el__lt_request r;
  char msg[256];
  CHECK(parses("text=hi&language=en&enabledOnly=true", &r, msg) < 0,
        "enabledOnly without enabled ids: %s", msg);
  cJSON *root = check_body("text=She+go+home.&language=en-US&disabledRules=WHITESPACE_RULE"
                           "&disabledRules=ELECTRA_VERB_SVA", "go", EL__ET_VERB_SVA, &r);
  CHECK(root && cJSON_GetArraySize(cJSON_GetObjectItem(root, "matches")) == 0,
        "a disabled rule's match is left out (repeated disabledRules joined)");
  cJSON_Delete(root);
  el__lt_request_free(&r);
}

static void test_languages(void) {
  char *s = el__lt_languages_json();
  cJSON *a = cJSON_Parse(s);
  CHECK(cJSON_GetArraySize(a) == 3, "three languages");
  CHECK(!strcmp(str(cJSON_GetArrayItem(a, 2), "longCode"), "en-GB") &&
            !strcmp(str(cJSON_GetArrayItem(a, 2), "code"), "en"), "en-GB entry");
  cJSON_Delete(a);
  free(s);
}

int main(void) {
  test_utf16_emoji();
  test_annotated_data();
  test_form();
  test_request_fields();
  test_filters();
  test_languages();
  return el_test_done();
}
