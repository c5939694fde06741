#!/usr/bin/env python3
"""Writes server/openapi.c (the body of GET /openapi.json) from the spec below.
Run after changing a route or a body: python3 server/gen_openapi.py

OpenAPI 3.1, whose schemas are JSON Schema 2020-12, so a JSON Schema validator
checks bodies against them as they are (tests/e2e/server_lib.py validates every
request and response of the server e2e suites). The schemas are exact: every
object lists its required fields and allows no others; a route's single and
batch answers are told apart by their required fields (tokens/label/value/
answers vs results), so a body matches exactly one of them; every route has an
example of its request and answer (checked against the schemas by the tests).
Optional request fields may be null (= absent)."""
import json
import os
import sys

ERR = {"$ref": "#/components/responses/Error"}
UNAVAILABLE = {"$ref": "#/components/responses/Unavailable"}
RID = {"X-Request-Id": {"$ref": "#/components/headers/X-Request-Id"}}


def opt(t):
    """An optional request field: t, or null (= absent)."""
    t = dict(t)
    t["type"] = [t["type"], "null"]
    return t


def obj(props, required=None, **kw):
    """An exact object: every property in required (default: all), no others."""
    o = {"type": "object", "properties": props,
         "required": list(props) if required is None else required,
         "additionalProperties": False}
    o.update(kw)
    return o


def arr(items, **kw):
    a = {"type": "array", "items": items}
    a.update(kw)
    return a


def ref(name):
    return {"$ref": "#/components/schemas/" + name}


S = {"type": "string"}
# a text must hold a token: not empty, not only whitespace
NONEMPTY = {"type": "string", "minLength": 1, "pattern": "\\S"}
I = {"type": "integer"}
OFFSET = {"type": "integer", "minimum": 0, "description": "Unicode code-point offset, end exclusive"}
N = {"type": "number"}
PROB = {"type": "number", "minimum": 0, "maximum": 1}
B = {"type": "boolean"}
MODEL = {"type": ["string", "null"],
         "description": "a model name from --model; default: the first model of the route's task"}
SPECIALS = opt({"type": "boolean",
                "description": "true: \"[SEP]\", \"[CLS]\", \"[MASK]\", \"[PAD]\", \"[UNK]\" typed in the text are special tokens (Hugging Face's default); false: plain text ([ sep ]). Default: the server's --special-tokens-in-text (special)"})
TRUNCATE = opt({"type": "boolean", "default": False,
                "description": "cut inputs longer than the model's max_seq_len instead of 422"})


def ok_json(schema, example, desc="OK"):
    return {"description": desc, "headers": RID,
            "content": {"application/json": {"schema": schema, "example": example}}}


def post(summary, desc, req_schema, req_example, resp_schema, resp_example):
    r = {"200": ok_json(resp_schema, resp_example)}
    r.update({str(c): ERR for c in (400, 401, 404, 405, 413, 415, 422, 429, 500, 504)})
    r["503"] = UNAVAILABLE
    return {"post": {"summary": summary, "description": desc,
                     "security": [{"bearer": []}, {}],
                     "requestBody": {"required": True, "content": {"application/json": {
                         "schema": req_schema, "example": req_example}}},
                     "responses": r},
            "options": preflight("POST")}


def get(summary, content_type, schema, example, extra=(), open_=True, desc=""):
    r = {"200": {"description": "OK", "headers": RID,
                 "content": {content_type: {"schema": schema, "example": example}}}}
    for c in extra:
        r[str(c)] = ERR
    r["405"] = ERR
    r["500"] = ERR
    op = {"summary": summary, "description": desc, "responses": r}
    if not open_:
        op["security"] = [{"bearer": []}, {}]
        r["401"] = ERR
    return {"get": op, "head": dict(op, summary=summary + " (headers only)"),
            "options": preflight("GET, HEAD")}


def preflight(methods):
    return {"summary": "CORS preflight: Allow: %s, OPTIONS (Access-Control-Allow-* for an "
                       "allowed Origin)" % methods,
            "responses": {"204": {"description": "No content", "headers": RID}}}


# ---- LanguageTool's API (/v2/check, /v2/languages; docs/CHECKER.md) ---------

LT_IDS = {"type": "string", "description": "comma-separated ids; repeats are joined"}
LT_CHECK_REQ = obj({
    "text": {"type": "string", "description": "the text to check (or data)"},
    "data": {"type": "string", "description": "LanguageTool's annotated text as JSON: {\"annotation\": [{\"text\": ..}, {\"markup\": .., \"interpretAs\": ..}]}; markup is skipped, offsets count it"},
    "language": {"type": "string", "enum": ["en", "en-US", "en-GB", "auto"],
                 "description": "any case, '_' for '-'; others are 400. The spelling checked: "
                                "en-GB British (hunspell's en_GB alone: 'favorite' is misspelt), "
                                "en-US American (en_US alone: 'favourite' is), en and auto either"},
    "level": {"type": "string", "enum": ["default", "picky"],
              "description": "picky: replacements for every flagged word (default: for misspellings "
                             "and words at P(error) >= the suggestion threshold, 0.7); more "
                             "suggestions, less precise, a slower check"},
    "enabledOnly": {"type": "string", "enum": ["true", "false"]},
    "enabledRules": LT_IDS, "disabledRules": LT_IDS,
    "enabledCategories": LT_IDS, "disabledCategories": LT_IDS,
    "motherTongue": S, "preferredVariants": S, "username": S, "apiKey": S},
    required=["language"], additionalProperties=True)
UTF16 = {"type": "integer", "minimum": 0, "description": "UTF-16 code units of the whole document"}
LT_MATCH = obj({
    "message": S, "shortMessage": S, "offset": UTF16, "length": UTF16,
    "replacements": arr(obj({"value": S})),
    "context": obj({"text": S, "offset": UTF16, "length": UTF16}),
    "sentence": S,
    "type": obj({"typeName": {"type": "string", "enum": ["UnknownWord", "Other"]}}),
    "rule": obj({"id": {"type": "string", "pattern": "^ELECTRA_[A-Z_]+$"}, "description": S,
                 "issueType": {"type": "string", "enum": ["misspelling", "grammar", "typographical", "style", "uncategorized"]},
                 "category": obj({"id": {"type": "string", "enum": ["TYPOS", "GRAMMAR", "PUNCTUATION", "STYLE", "MISC"]},
                                  "name": S})})})
LT_LANG = obj({"name": S, "code": S})
LT_CHECK = obj({
    "software": obj({"name": {"type": "string", "enum": ["electra.c"]}, "version": S,
                     "buildDate": S, "apiVersion": {"type": "integer", "enum": [1]},
                     "premium": B, "status": S}),
    "warnings": obj({"incompleteResults": B}),
    "language": obj({"name": S, "code": S,
                     "detectedLanguage": obj({"name": S, "code": S, "confidence": N})}),
    "matches": arr(LT_MATCH)})
LT_CHECK_EXAMPLE = {
    "software": {"name": "electra.c", "version": "0.1.0", "buildDate": "2026-11-27",
                 "apiVersion": 1, "premium": False, "status": ""},
    "warnings": {"incompleteResults": False},
    "language": {"name": "English (US)", "code": "en-US",
                 "detectedLanguage": {"name": "English (US)", "code": "en-US", "confidence": 1}},
    "matches": [{"message": "Possible agreement error: \"goes\"?", "shortMessage": "Agreement",
                 "offset": 4, "length": 2, "replacements": [{"value": "goes"}],
                 "context": {"text": "She go to school.", "offset": 4, "length": 2},
                 "sentence": "She go to school.", "type": {"typeName": "Other"},
                 "rule": {"id": "ELECTRA_VERB_SVA", "description": "Subject-verb agreement",
                          "issueType": "grammar",
                          "category": {"id": "GRAMMAR", "name": "Grammar"}}}]}
LT_LANGUAGES = arr(obj({"name": S, "code": S, "longCode": S}))


def lt_check():
    """POST (form) and GET (query string) /v2/check, as LanguageTool serves it."""
    desc = ("LanguageTool's check (docs/CHECKER.md): give text or data and language; "
            "the form fields of LanguageTool's API. Offsets and lengths are UTF-16 code units "
            "of the whole document (markup of data included). Neither text nor data, both, a "
            "field given twice (but the rule/category lists), an unknown language or level: "
            "400. 503 when no /score model has a checker. GET takes the same fields in the "
            "query string.")
    r = {"200": ok_json(LT_CHECK, LT_CHECK_EXAMPLE)}
    r.update({str(c): ERR for c in (400, 401, 404, 405, 413, 415, 429, 500, 504)})
    r["503"] = UNAVAILABLE
    post_op = {"summary": "Check a text for grammar and spelling (LanguageTool's API)",
               "description": desc, "security": [{"bearer": []}, {}],
               "requestBody": {"required": True, "content": {
                   "application/x-www-form-urlencoded": {
                       "schema": LT_CHECK_REQ,
                       "example": {"text": "She go to school.", "language": "en-US"}}}},
               "responses": r}
    params = [{"name": k, "in": "query", "required": k == "language", "schema": v}
              for k, v in LT_CHECK_REQ["properties"].items()]
    get_op = {"summary": post_op["summary"] + " (fields in the query string)",
              "description": desc, "security": post_op["security"], "parameters": params,
              "responses": r}
    return {"post": post_op, "get": get_op, "options": preflight("GET, POST")}


# ---- bodies ------------------------------------------------------------------

STATUS_OK = obj({"status": {"type": "string", "enum": ["ok"]}})
STATUS_READY = obj({"status": {"type": "string", "enum": ["ready"]}})

INFO_MODEL = obj({
    "name": S,
    "task": {"type": "string", "enum": ["score", "classify", "qa", "tokenize"]},
    "route": {"type": "string", "enum": ["/score", "/classify", "/qa", "/tokenize"]},
    "architecture": S, "default": B,
    "max_seq_len": I, "num_parameters": I, "vocab_size": I, "hidden_size": I, "num_layers": I,
    "do_lower_case": B,
    "dtype": {"type": "string", "enum": ["fp32", "int8"],
              "description": "arithmetic of the dense layers (--dtype, --model-dtype)"},
    "weight_bytes": {"type": "integer",
                     "description": "parameter memory the loaded model keeps (int8: its dense layers as int8)"},
    "labels": {"type": ["array", "null"], "items": S,
               "description": "id2label names of a sequence or token classifier, else null"},
    "regression": {"type": "boolean", "description": "sequence classifiers only"},
    "null_threshold": {"type": ["number", "null"], "description": "QA models only"},
    "score_threshold": {"type": "number",
                        "description": "/score models: the threshold used when a request gives none"},
    "score_threshold_source": {"type": "string", "enum": ["model", "model_with_dictionary", "default"],
                               "description": "model: the checkpoint's config.json score_threshold; model_with_dictionary: its score_dictionary_threshold (the model read beside hunspell); default: 0.5"},
    "score_dictionary_weight": {"type": ["number", "null"],
                                "description": "/score models read beside hunspell (config.json score_dictionary_weight, unless --no-dictionary): a word the dictionary rejects gets prob 1 - (1 - p)(1 - weight); null: the model alone"},
    "score_dictionary_name_weight": {"type": ["number", "null"],
                                     "description": "/score models read beside hunspell: a word the dictionary reads as a name (capitalised mid-sentence, its lower-case form unknown) gets prob p * name_weight (config.json score_dictionary_name_weight, 1 when absent); null: the model alone"},
    "score_dictionary_ngram": {"type": ["boolean", "null"],
                               "description": "/score models read beside hunspell: true when the English n-gram model (pocketsphinx-en-us) reads beside it too (config.json score_dictionary_ngram): a word for which another preposition, another form of it or an article before it is far likelier counts as a rejected one; null: the model alone"},
    "quality": {"type": ["string", "null"],
                "description": "what the model says it is (quality.json beside config.json, written by electra-train recipe): its class (demo or detector) and dev F0.5 beside hunspell's; null when it has none"},
    "checker": {"type": ["object", "null"],
                "properties": {
                    "generator": dict(B, description="a generator proposes corrections (DIR/generator/ or --generator)"),
                    "verify_dtype": {"type": "string", "enum": ["fp32", "int8"],
                                     "description": "arithmetic of the verification pass (--verify-dtype)"},
                    "verifier_weight_bytes": dict(I, description="memory of the detector's second copy that verifies in verify_dtype; 0 when the detector itself verifies")},
                "required": ["generator", "verify_dtype", "verifier_weight_bytes"],
                "additionalProperties": False,
                "description": "/score models: the grammar checker behind /v2/check and /score's suggestions; null without one (--no-checker, or it could not be made: /v2/check answers 503 with the reason)"},
    "score_aggregation": {"type": "string", "enum": ["max", "first", "mean"],
                          "description": "/score models: how a word's prob comes from its pieces' (config.json score_aggregation, default max)"},
    "correct_label": {"type": "string",
                      "description": "ElectraForTokenClassification: the label meaning no error; a piece's prob is 1 - P(correct_label)"},
    "correct_label_source": {"type": "string", "enum": ["option", "label_name"],
                             "description": "option: --correct-label; label_name: the one label named CORRECT, C, O, OK or KEEP (any case)"},
}, required=["name", "task", "route", "architecture", "default", "max_seq_len", "num_parameters",
             "vocab_size", "hidden_size", "num_layers", "do_lower_case", "dtype",
             "weight_bytes", "labels"])
INFO = obj({
    "version": S,
    "pid": dict(I, description="the server's process id: a script that started it can tell its own "
                               "server from another process holding the port (make run does)"),
    "ready": B,
    "limits": obj({k: I for k in ("max_batch_tokens", "max_batch_size", "max_wait_us", "max_queue",
                                  "max_queue_tokens", "max_inputs", "max_qa_windows",
                                  "max_body_bytes", "max_bytes_in_flight", "max_response_bytes",
                                  "max_connections", "max_connections_per_client")}
                  | {"request_timeout": N, "header_timeout": N, "body_timeout": N}),
    "models": arr(INFO_MODEL),
    "reload": obj({
        "in_progress": B, "queued": B, "ok": I, "failed": I,
        "last": {"type": ["object", "null"], "properties": {
            "time": S, "result": {"type": "string", "enum": ["ok", "failed"]},
            "reason": {"type": ["string", "null"]}, "seconds": N},
            "required": ["time", "result", "reason", "seconds"], "additionalProperties": False,
            "description": "the last SIGHUP reload, null before the first"}},
        description="SIGHUP reloads: one running, one queued behind it, counts by result")},
    required=["version", "pid", "ready", "limits", "models"])
INFO_EXAMPLE = {
    "version": "0.1.0", "pid": 4242, "ready": True,
    "limits": {"max_batch_tokens": 8192, "max_batch_size": 64, "max_wait_us": 0, "max_queue": 1024,
               "max_queue_tokens": 262144, "max_inputs": 64, "max_qa_windows": 256,
               "max_body_bytes": 1048576, "max_bytes_in_flight": 268435456,
               "max_response_bytes": 8388608, "max_connections": 1000,
               "max_connections_per_client": 256, "request_timeout": 30, "header_timeout": 10,
               "body_timeout": 30},
    "models": [{"name": "default", "task": "score", "route": "/score",
                "architecture": "ElectraForPreTraining", "default": True, "max_seq_len": 512,
                "num_parameters": 13548800, "vocab_size": 30522, "hidden_size": 256,
                "num_layers": 12, "do_lower_case": True, "dtype": "int8",
                "weight_bytes": 24811776, "labels": None, "score_threshold": 0.5,
                "score_threshold_source": "default", "score_aggregation": "max",
                "score_dictionary_weight": None, "score_dictionary_name_weight": None,
                "score_dictionary_ngram": None,
                "checker": {"generator": False, "verify_dtype": "int8", "verifier_weight_bytes": 0},
                "quality": None},
               {"name": "sst2", "task": "classify", "route": "/classify",
                "architecture": "ElectraForSequenceClassification", "default": True,
                "max_seq_len": 512, "num_parameters": 13549314, "vocab_size": 30522,
                "hidden_size": 256, "num_layers": 12, "do_lower_case": True,
                "dtype": "fp32", "weight_bytes": 54197256, "regression": False, "labels": ["negative", "positive"]}]}

TOKENIZE_REQ = obj({"text": NONEMPTY, "model": MODEL,
                    "add_special_tokens": opt({"type": "boolean", "default": True}),
                    "special_tokens_in_text": SPECIALS},
                   required=["text"])
TOKENIZE = obj({"model": S, "tokens": arr(obj({"id": I, "token": S, "start": OFFSET,
                                               "end": OFFSET, "special": dict(B, description=(
    "true for a special token: [CLS], [SEP], [PAD] or [MASK], whether added around the text "
    "(add_special_tokens; start = end = 0) or typed in it and read as special "
    "(special_tokens_in_text; start and end locate it); false for word pieces, [UNK] included "
    "(it stands for a word of the text)"))}))})
TOKENIZE_EXAMPLE = {"model": "default", "tokens": [
    {"id": 101, "token": "[CLS]", "start": 0, "end": 0, "special": True},
    {"id": 14477, "token": "una", "start": 0, "end": 3, "special": False},
    {"id": 7011, "token": "##ffa", "start": 3, "end": 6, "special": False},
    {"id": 3468, "token": "##ble", "start": 6, "end": 9, "special": False},
    {"id": 999, "token": "!", "start": 9, "end": 10, "special": False},
    {"id": 102, "token": "[SEP]", "start": 0, "end": 0, "special": True}]}

SCORE_FIELDS = {
    "tokens": arr(obj({"token": S, "start": OFFSET, "end": OFFSET, "prob": PROB})),
    "words": arr(obj({
        "word": S, "start": OFFSET, "end": OFFSET, "prob": PROB, "flagged": B,
        "suggestions": arr(S, description="with \"suggestions\": true, on flagged words only: "
                           "the grammar checker's replacements for the word's text, best "
                           "first (may be empty)"),
        "type": {"type": ["string", "null"],
                 "description": "with \"suggestions\": true, on flagged words only: the "
                                "checker's ERRANT coarse type (SPELL, VERB:SVA, ... as in "
                                "docs/CHECKER.md), null when it found nothing there"}},
        required=["word", "start", "end", "prob", "flagged"],
        dependentRequired={"suggestions": ["type"], "type": ["suggestions"]})),
    "max_prob": PROB}
SCORE_ITEM = obj(SCORE_FIELDS)
SCORE_SINGLE = obj({"model": S} | SCORE_FIELDS)
SCORE_BATCH = obj({"model": S, "results": arr(ref("ScoreResult"))})
SCORE_REQ = obj({
    "text": opt(NONEMPTY),
    "texts": {"type": ["array", "null"], "items": NONEMPTY, "minItems": 1,
              "description": "1 to --max-inputs texts (GET /info limits.max_inputs)"},
    "model": MODEL,
    "threshold": opt({"type": "number", "minimum": 0, "maximum": 1,
                      "description": "default: the model's score_threshold (GET /info), 0.5 when it has none"}),
    "truncate": TRUNCATE,
    "suggestions": opt({"type": "boolean", "default": False,
                        "description": "true: each flagged word also carries suggestions and type from the grammar checker (as /v2/check's); costs a check's passes per text; 503 when the model has no checker"}),
    "special_tokens_in_text": SPECIALS}, required=[],
    oneOf=[{"required": ["text"], "properties": {"text": {"type": "string"}}},
           {"required": ["texts"], "properties": {"texts": {"type": "array"}}}])
SCORE_RESULT_EXAMPLE = {
    "tokens": [{"token": "she", "start": 0, "end": 3, "prob": 0.02},
               {"token": "go", "start": 4, "end": 6, "prob": 0.91},
               {"token": "to", "start": 7, "end": 9, "prob": 0.03},
               {"token": "school", "start": 10, "end": 16, "prob": 0.01},
               {"token": "yesterday", "start": 17, "end": 26, "prob": 0.05},
               {"token": ".", "start": 26, "end": 27, "prob": 0.01}],
    "words": [{"word": "She", "start": 0, "end": 3, "prob": 0.02, "flagged": False},
              {"word": "go", "start": 4, "end": 6, "prob": 0.91, "flagged": True,
               "suggestions": ["went", "goes"], "type": "VERB:TENSE"},
              {"word": "to", "start": 7, "end": 9, "prob": 0.03, "flagged": False},
              {"word": "school", "start": 10, "end": 16, "prob": 0.01, "flagged": False},
              {"word": "yesterday", "start": 17, "end": 26, "prob": 0.05, "flagged": False},
              {"word": ".", "start": 26, "end": 27, "prob": 0.01, "flagged": False}],
    "max_prob": 0.91}

LABEL_FIELDS = {"label": S, "score": PROB,
                "scores": arr(obj({"label": S, "score": PROB}),
                              description="every label, highest score first")}
CLASSIFY_ITEM = {"oneOf": [obj(LABEL_FIELDS), obj({"value": N})],
                 "description": "label, score and scores; a regression model answers value"}
CLASSIFY_SINGLE = {"oneOf": [obj({"model": S} | LABEL_FIELDS), obj({"model": S, "value": N})]}
CLASSIFY_BATCH = obj({"model": S, "results": arr(ref("ClassifyResult"))})
CLASSIFY_REQ = obj({
    "text": opt(NONEMPTY),
    "text_pair": opt(dict(NONEMPTY, description="the second sequence of a pair (with text)")),
    "inputs": {"type": ["array", "null"], "minItems": 1,
               "items": obj({"text": NONEMPTY, "text_pair": opt(NONEMPTY)}, required=["text"]),
               "description": "1 to --max-inputs inputs"},
    "model": MODEL, "truncate": TRUNCATE, "special_tokens_in_text": SPECIALS}, required=[],
    oneOf=[{"required": ["text"], "properties": {"text": {"type": "string"}}},
           {"required": ["inputs"], "properties": {"inputs": {"type": "array"},
                                                   "text_pair": {"type": "null"}}}])

QA_FIELDS = {"answers": arr(obj({"text": S, "start": OFFSET, "end": OFFSET, "score": PROB}),
                            description="best first; the empty answer (text \"\", start = end = 0) "
                                        "only with handle_impossible_answer")}
QA_ITEM = obj(QA_FIELDS)
QA_SINGLE = obj({"model": S} | QA_FIELDS)
QA_BATCH = obj({"model": S, "results": arr(ref("QaResult"))})
BIG = 1 << 20
QA_REQ = obj({
    "question": opt(NONEMPTY), "context": opt(NONEMPTY),
    "inputs": {"type": ["array", "null"], "minItems": 1,
               "items": obj({"question": NONEMPTY, "context": NONEMPTY}),
               "description": "1 to --max-inputs inputs"},
    "model": MODEL,
    "top_k": opt({"type": "integer", "default": 1, "minimum": 1, "maximum": 100}),
    "max_answer_len": opt({"type": "integer", "default": 30, "minimum": 1, "maximum": BIG,
                           "description": "in tokens"}),
    "doc_stride": opt({"type": "integer", "default": 128, "minimum": 1, "maximum": BIG,
                       "description": "context tokens between the starts of consecutive windows"}),
    "max_seq_len": opt({"type": "integer", "default": 384, "minimum": 8,
                        "description": "tokens per window, at most the model's max_seq_len (more is 422)"}),
    "max_question_len": opt({"type": "integer", "default": 64, "minimum": 1, "maximum": BIG}),
    "handle_impossible_answer": opt({"type": "boolean", "default": False}),
    "special_tokens_in_text": SPECIALS}, required=[],
    oneOf=[{"required": ["question", "context"],
            "properties": {"question": {"type": "string"}, "context": {"type": "string"}}},
           {"required": ["inputs"], "properties": {"inputs": {"type": "array"},
                                                   "question": {"type": "null"},
                                                   "context": {"type": "null"}}}])

ERROR = obj({"error": obj({
    "code": {"type": "integer", "enum": [400, 401, 404, 405, 413, 415, 422, 429, 500, 503, 504]},
    "type": {"type": "string", "enum": ["invalid_json", "invalid_request", "unauthorized",
                                       "not_found", "method_not_allowed", "payload_too_large",
                                       "unsupported_media_type", "validation_error", "overloaded",
                                       "internal", "unavailable", "timeout"]},
    "message": S})})

spec = {
 "openapi": "3.1.0",
 "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
 "info": {"title": "electra-server", "version": "0.1.0",
          "description": "Batched REST inference for ELECTRA checkpoints. Offsets are Unicode code-point offsets into the request strings, end exclusive. Request bodies take only the fields listed (an unknown field is 400 naming it); a value out of range is 422 naming the range. Every non-2xx answer is an Error object. Every answer carries X-Request-Id: the request's own (1 to 128 printable ASCII characters, no spaces), else one the server generated; the access log line carries it and the client's address. When the server runs with --api-key-file, every route except /, /health, /ready, /v2/health/live, /v2/health/ready and /metrics needs Authorization: Bearer KEY."},
 "paths": {
  "/": get("A grammar checker for writers over /v2/check (self-contained HTML)", "text/html", S,
           "<!doctype html><html>...</html>"),
  "/health": get("Liveness: 200 while the process runs", "application/json", STATUS_OK,
                 {"status": "ok"}),
  "/v2/health/live": get("Liveness (KServe v2 name)", "application/json", STATUS_OK,
                         {"status": "ok"}),
  "/ready": get("Readiness: 200 when every model is loaded and warm; 503 until then and while draining",
                "application/json", STATUS_READY, {"status": "ready"}, [503]),
  "/v2/health/ready": get("Readiness (KServe v2 name)", "application/json", STATUS_READY,
                          {"status": "ready"}, [503]),
  "/info": get("Version, limits and models", "application/json", INFO, INFO_EXAMPLE, open_=False),
  "/metrics": get("Prometheus metrics (text format 0.0.4)", "text/plain", S,
                  "# TYPE electra_requests_total counter\nelectra_requests_total{route=\"/score\",status=\"200\"} 12\n"),
  "/openapi.json": get("This document", "application/json", {"type": "object"},
                       {"openapi": "3.1.0"}, open_=False),
  "/tokenize": post("WordPiece tokens of a text",
      "Special tokens ([CLS], [SEP]) have start = end = 0. Any model may be named.",
      TOKENIZE_REQ, {"text": "Unaffable!"}, TOKENIZE, TOKENIZE_EXAMPLE),
  "/score": post("Per-token error probabilities (ElectraForPreTraining and ElectraForTokenClassification models)",
      "Give text or texts. A token's prob is the discriminator's replaced-token probability (ElectraForPreTraining) or 1 - P(correct label) under the softmax over the labels (ElectraForTokenClassification). [CLS]/[SEP] are left out; a word is a writer's word (a contraction, possessive or hyphenated word is one word: \"don't\"; FCE's pre-split \"do n't\" two; a URL, path, file name, identifier or option one: \"config.json\"; punctuation alone), its prob by the model's score_aggregation over its pieces: max (default), first or mean; flagged = prob >= threshold. A model read beside hunspell (GET /info: score_dictionary_weight not null) gives a word the dictionary rejects prob 1 - (1 - p)(1 - weight) and a word it reads as a name p * name_weight, and its default threshold is the one chosen for the two. With suggestions: true each flagged word also carries suggestions and type from the grammar checker run on the same text (the latency of a /v2/check on top). A threshold outside [0, 1] or a text longer than the model's max_seq_len without truncate: 422. text answers ScoreSingle, texts answers ScoreBatch.",
      SCORE_REQ, {"text": "She go to school yesterday.", "threshold": 0.5, "suggestions": True},
      ref("ScoreResponse"), dict(model="default", **SCORE_RESULT_EXAMPLE)),
  "/classify": post("Sequence classification or regression (ElectraForSequenceClassification models)",
      "Give text (+ text_pair) or inputs. scores are softmax probabilities sorted highest first; a regression model answers value instead. text answers one result object with model, inputs answers ClassifyBatch.",
      CLASSIFY_REQ, {"text": "A gripping, beautifully made film."},
      ref("ClassifyResponse"),
      {"model": "sst2", "label": "positive", "score": 0.97,
       "scores": [{"label": "positive", "score": 0.97}, {"label": "negative", "score": 0.03}]}),
  "/v2/check": lt_check(),
  "/v2/languages": get("The languages /v2/check takes (LanguageTool's API)", "application/json",
                       LT_LANGUAGES, [{"name": "English (US)", "code": "en", "longCode": "en-US"}],
                       open_=False),
  "/qa": post("Extractive question answering (ElectraForQuestionAnswering models)",
      "Give question + context or inputs. Long contexts are split into windows; a request needing more than --max-qa-windows windows in all is 422. score = p_start * p_end (softmax over the window's context tokens, plus [CLS] with handle_impossible_answer). With handle_impossible_answer the empty answer (text \"\", start = end = 0) appears: first when the model's null threshold says unanswerable, else ranked by its probability when the model has no threshold. question + context answers QaSingle, inputs answers QaBatch.",
      QA_REQ, {"question": "Who wrote Hamlet?",
               "context": "Hamlet is a tragedy written by William Shakespeare.", "top_k": 2},
      ref("QaResponse"),
      {"model": "squad2", "answers": [{"text": "William Shakespeare", "start": 32, "end": 51, "score": 0.93},
                                      {"text": "Shakespeare", "start": 40, "end": 51, "score": 0.04}]}),
 },
 "components": {
  "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
  "headers": {"X-Request-Id": {
      "description": "The request's X-Request-Id when it sent a usable one (1 to 128 printable ASCII characters, no spaces), else 32 hex digits the server generated; the access log line carries it.",
      "required": True, "schema": {"type": "string", "pattern": "^[!-~]{1,128}$"}}},
  "schemas": {
      "Error": ERROR,
      "ScoreResult": SCORE_ITEM, "ScoreSingle": SCORE_SINGLE, "ScoreBatch": SCORE_BATCH,
      "ScoreResponse": {"oneOf": [ref("ScoreSingle"), ref("ScoreBatch")]},
      "ClassifyResult": CLASSIFY_ITEM, "ClassifySingle": CLASSIFY_SINGLE,
      "ClassifyBatch": CLASSIFY_BATCH,
      "ClassifyResponse": {"oneOf": [ref("ClassifySingle"), ref("ClassifyBatch")]},
      "QaResult": QA_ITEM, "QaSingle": QA_SINGLE, "QaBatch": QA_BATCH,
      "QaResponse": {"oneOf": [ref("QaSingle"), ref("QaBatch")]}},
  "responses": {"Error": {
      "description": "An error (see error.type)", "headers": RID,
      "content": {"application/json": {"schema": ref("Error"), "example": {
          "error": {"code": 400, "type": "invalid_request",
                    "message": "unknown field \"treshold\" (did you mean \"threshold\"?)"}}}}},
      "Unavailable": {
      "description": "unavailable: models are loading, the server is draining, or the request's "
                     "body or answer would pass --max-bytes-in-flight (the memory of the "
                     "requests in flight, a body counting 40 times its size until answered; a "
                     "body whose Content-Length does not fit is refused before it is read). "
                     "Retry after Retry-After seconds.",
      "headers": RID | {"Retry-After": {"required": True, "schema": {"type": "string"},
                                        "description": "seconds to wait: 1"}},
      "content": {"application/json": {"schema": ref("Error"), "example": {
          "error": {"code": 503, "type": "unavailable",
                    "message": "the requests in flight fill --max-bytes-in-flight "
                               "(268435456 bytes); retry"}}}}}},
 },
}

text = json.dumps(spec, separators=(",", ":"))
out = ['/* GET /openapi.json: OpenAPI 3.1 description of every route (compact JSON).\n'
       ' * Generated by server/gen_openapi.py: edit that, not this. tests/e2e checks that its\n'
       ' * paths and methods match the served routes and validates every request and answer of\n'
       ' * the e2e suites against its schemas. */\n#include "srv_http.h"\n\nconst char el__openapi_json[] =\n']
for i in range(0, len(text), 90):
    chunk = text[i:i + 90].replace('\\', '\\\\').replace('"', '\\"')
    out.append('    "%s"\n' % chunk)
out.append('    ;\n')
# `gen_openapi.py --check`: exit 1 when server/openapi.c is not what this
# script writes (tests/e2e/test_layers.sh), instead of writing it.
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'openapi.c')
if sys.argv[1:] == ['--check']:
    with open(path) as f:
        same = f.read() == ''.join(out)
    print('server/openapi.c matches gen_openapi.py' if same else
          'server/openapi.c differs from what gen_openapi.py writes: run python3 server/gen_openapi.py')
    sys.exit(0 if same else 1)
with open(path, 'w') as f:
    f.write(''.join(out))
print(len(text))
