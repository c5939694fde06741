#!/usr/bin/env python3
"""Writes server/openapi.c (the body of GET /openapi.json) from the spec below.
Run after changing a route: python3 server/gen_openapi.py"""
import os
import json
err = {"$ref": "#/components/responses/Error"}
def errs(*codes):
    return {str(c): err for c in codes}
model_prop = {"type": "string", "description": "a model name from --model; default: the first model of the route's task"}
def post(summary, req_schema, resp_schema, desc=""):
    r = {"200": {"description": "OK", "content": {"application/json": {"schema": resp_schema}}}}
    r.update(errs(400, 401, 404, 405, 413, 415, 422, 429, 500, 503, 504))
    return {"post": {"summary": summary, "description": desc,
                     "security": [{"bearer": []}, {}],
                     "requestBody": {"required": True, "content": {"application/json": {"schema": req_schema}}},
                     "responses": r}}
def get(summary, content_type, schema, extra=None, open_=True, desc=""):
    r = {"200": {"description": "OK", "content": {content_type: {"schema": schema}}}}
    for c in (extra or []): r[str(c)] = err
    r["405"] = err
    op = {"summary": summary, "description": desc, "responses": r}
    if not open_:
        op["security"] = [{"bearer": []}, {}]
        r["401"] = err
    return {"get": op}
S = {"type": "string"}; I = {"type": "integer"}; N = {"type": "number"}; B = {"type": "boolean"}
def obj(props, req=None):
    o = {"type": "object", "properties": props}
    if req: o["required"] = req
    return o
def arr(x): return {"type": "array", "items": x}
score_one = obj({"tokens": arr(obj({"token": S, "start": I, "end": I, "prob": N})),
                 "words": arr(obj({"word": S, "start": I, "end": I, "prob": N, "flagged": B})),
                 "max_prob": N})
cls_one = obj({"label": S, "score": N, "scores": arr(obj({"label": S, "score": N})),
               "value": {"type": "number", "description": "regression models only (then no label/score/scores)"}})
qa_one = obj({"answers": arr(obj({"text": S, "start": I, "end": I, "score": N}))})
def single_or_batch(one):
    m = dict(one); m = {"oneOf": [
        {"allOf": [obj({"model": S}), one]},
        obj({"model": S, "results": arr(one)})]}
    return m
spec = {
 "openapi": "3.0.3",
 "info": {"title": "electra-server", "version": "0.1.0",
          "description": "Batched REST inference for ELECTRA checkpoints. Offsets are Unicode code-point offsets into the request strings, end exclusive. Every non-2xx answer is an Error object. When the server runs with --api-key-file, every route except /, /health, /ready, /v2/health/live, /v2/health/ready and /metrics needs Authorization: Bearer KEY."},
 "paths": {
  "/": get("Interactive page for /score (self-contained HTML)", "text/html", S),
  "/health": get("Liveness: 200 while the process runs", "application/json", obj({"status": {"type": "string", "enum": ["ok"]}})),
  "/v2/health/live": get("Liveness (KServe v2 name)", "application/json", obj({"status": {"type": "string", "enum": ["ok"]}})),
  "/ready": get("Readiness: 200 when every model is loaded and warm; 503 while loading or draining", "application/json", obj({"status": {"type": "string", "enum": ["ready"]}}), [503]),
  "/v2/health/ready": get("Readiness (KServe v2 name)", "application/json", obj({"status": {"type": "string", "enum": ["ready"]}}), [503]),
  "/info": get("Version, limits and models", "application/json", obj({
      "version": S, "ready": B,
      "limits": obj({"max_batch_tokens": I, "max_batch_size": I, "max_wait_us": I, "max_queue": I, "max_inputs": I, "max_qa_windows": I, "max_body_bytes": I, "request_timeout": N}),
      "models": arr(obj({"name": S, "task": {"type": "string", "enum": ["score", "classify", "qa", "tokenize"]}, "route": S, "architecture": S, "default": B,
                         "max_seq_len": I, "num_parameters": I, "vocab_size": I, "hidden_size": I, "num_layers": I, "do_lower_case": B,
                         "labels": {"type": "array", "items": S, "nullable": True, "description": "id2label names of a sequence or token classifier, else null"},
                         "regression": B, "null_threshold": {"type": "number", "nullable": True},
                         "score_threshold": {"type": "number", "description": "/score models: the threshold used when a request gives none"},
                         "score_threshold_source": {"type": "string", "enum": ["model", "default"], "description": "model: the checkpoint's config.json score_threshold; default: 0.5"},
                         "score_aggregation": {"type": "string", "enum": ["max", "first", "mean"], "description": "/score models: how a word's prob comes from its pieces' (config.json score_aggregation, default max)"},
                         "correct_label": {"type": "string", "description": "ElectraForTokenClassification: the label meaning no error; a piece's prob is 1 - P(correct_label)"},
                         "correct_label_source": {"type": "string", "enum": ["option", "label_name"], "description": "option: --correct-label; label_name: the one label named CORRECT, C, O, OK or KEEP (any case)"}}))}), open_=False),
  "/metrics": get("Prometheus metrics (text format 0.0.4)", "text/plain", S),
  "/openapi.json": get("This document", "application/json", {"type": "object"}, open_=False),
  "/tokenize": post("WordPiece tokens of a text", obj({"text": S, "model": model_prop, "add_special_tokens": {"type": "boolean", "default": True}}, ["text"]),
      obj({"model": S, "tokens": arr(obj({"id": I, "token": S, "start": I, "end": I, "special": B}))}),
      "Special tokens ([CLS], [SEP]) have start = end = 0. Any model may be named."),
  "/score": post("Per-token error probabilities (ElectraForPreTraining and ElectraForTokenClassification models)",
      obj({"text": S, "texts": {"type": "array", "items": S, "description": "1 to --max-inputs texts"}, "model": model_prop,
           "threshold": {"type": "number", "minimum": 0, "maximum": 1, "description": "default: the model's score_threshold (GET /info), 0.5 when it has none"},
           "truncate": {"type": "boolean", "default": False}}),
      single_or_batch(score_one),
      "Give text or texts. A token's prob is the discriminator's replaced-token probability (ElectraForPreTraining) or 1 - P(correct label) under the softmax over the labels (ElectraForTokenClassification). [CLS]/[SEP] are left out; a word is a BasicTokenizer word, its prob by the model's score_aggregation over its pieces: max (default), first or mean; flagged = prob >= threshold. A threshold outside [0, 1] or a text longer than the model's max_seq_len without truncate: 422."),
  "/classify": post("Sequence classification or regression (ElectraForSequenceClassification models)",
      obj({"text": S, "text_pair": S, "inputs": arr(obj({"text": S, "text_pair": S}, ["text"])), "model": model_prop,
           "truncate": {"type": "boolean", "default": False}}),
      single_or_batch(cls_one),
      "Give text (+ text_pair) or inputs. scores are softmax probabilities sorted highest first; a regression model answers value instead."),
  "/qa": post("Extractive question answering (ElectraForQuestionAnswering models)",
      obj({"question": S, "context": S, "inputs": arr(obj({"question": S, "context": S}, ["question", "context"])), "model": model_prop,
           "top_k": {"type": "integer", "default": 1, "minimum": 1, "maximum": 100},
           "max_answer_len": {"type": "integer", "default": 30, "minimum": 1, "description": "in tokens"},
           "doc_stride": {"type": "integer", "default": 128, "minimum": 1, "description": "context tokens between the starts of consecutive windows"},
           "max_seq_len": {"type": "integer", "default": 384, "minimum": 8, "description": "tokens per window, at most the model's max_seq_len"},
           "max_question_len": {"type": "integer", "default": 64, "minimum": 1},
           "handle_impossible_answer": {"type": "boolean", "default": False}}),
      single_or_batch(qa_one),
      "Give question + context or inputs. Long contexts are split into windows; a request needing more than --max-qa-windows windows in all is 422. score = p_start * p_end (softmax over the window's context tokens, plus [CLS] with handle_impossible_answer). With handle_impossible_answer the empty answer (text \"\", start = end = 0) appears: first when the model's null threshold says unanswerable, else ranked by its probability when the model has no threshold."),
 },
 "components": {
  "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
  "schemas": {"Error": obj({"error": obj({"code": I, "type": {"type": "string", "enum": ["invalid_json", "invalid_request", "unauthorized", "not_found", "method_not_allowed", "payload_too_large", "unsupported_media_type", "validation_error", "overloaded", "internal", "unavailable", "timeout"]}, "message": S}, ["code", "type", "message"])}, ["error"])},
  "responses": {"Error": {"description": "An error (see error.type)", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}
 }
}
text = json.dumps(spec, separators=(",", ":"))
out = ['/* GET /openapi.json: OpenAPI 3 description of every route (compact JSON).\n * Generated by server/gen_openapi.py: edit that, not this. tests/e2e checks that its paths and methods match the served routes. */\n#include "srv_server.h"\n\nconst char el__openapi_json[] =\n']
for i in range(0, len(text), 90):
    chunk = text[i:i+90].replace('\\', '\\\\').replace('"', '\\"')
    out.append('    "%s"\n' % chunk)
out.append('    ;\n')
open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'openapi.c'), 'w').write(''.join(out))
print(len(text))
