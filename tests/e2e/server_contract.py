"""electra-server's API contract, end to end.

- OpenAPI: the served /openapi.json is OpenAPI 3.1 whose schemas compile as JSON Schema
  2020-12 and are exact (objects list required fields, allow no others); every route has an
  example request and answer that match their schemas; each route's single and batch answers
  are told apart (a body matches exactly one alternative); every route, method and shape is
  exercised here, and server_lib checks every exchange against the spec (openapi_check.py),
  which is itself shown to catch a wrong body.
- Paths: a control character in the path, raw or %-escaped (GET /%00, /health%00x,
  POST /score%00), is 400 invalid_request; a route matches only its whole path.
- Strict requests: an unknown field is 400 naming it (with the field it is a likely typo of);
  a value out of range is 422 naming the range; the same did-you-mean for electra-server's
  command-line options.
- Operations: X-Request-Id (the client's, else generated) on every answer and in the access
  log with the client's address (text and JSON logs); /metrics has the Prometheus process
  metrics and latency by model; the warm-up passes are not counted."""
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_lib import (BIN, SMALL, Server, done, error_type, make_models, ok,  # noqa: E402
                        scratch, skip, status_line)

work = scratch("electra-e2e-contract-")
M = make_models(os.path.join(work, "models"), {
    "disc": ["--arch", "pretraining", "--seed", "1"] + SMALL,
    "cls": ["--arch", "cls", "--num-labels", "2", "--labels", "negative,positive", "--seed", "2"]
    + SMALL,
    "reg": ["--arch", "cls", "--regression", "--seed", "3"] + SMALL,
    "qa": ["--arch", "qa", "--seed", "4"] + SMALL,
    "gen": ["--arch", "mlm", "--seed", "5"] + SMALL,
})
srv = Server([(n, M[n]) for n in ("disc", "cls", "reg", "qa", "gen")], ["--max-inputs", "4"],
             workdir=work).start()

JSON = {"Content-Type": "application/json"}

# ------------------------------------------------------------------ OpenAPI
import openapi_check  # noqa: E402
try:
    from jsonschema import Draft202012Validator, RefResolver
except ImportError:
    Draft202012Validator = None
st, h, data = srv.get("/openapi.json")
spec = json.loads(data)
ok(st == 200 and spec["openapi"] == "3.1.0" and h["content-type"] == "application/json",
   "GET /openapi.json: OpenAPI 3.1")


def walk(o, path=""):
    """(path, node) of every dict in the spec."""
    if isinstance(o, dict):
        yield path, o
        for k, v in o.items():
            yield from walk(v, path + "/" + k)
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from walk(v, "%s/%d" % (path, i))


def objects_exact(schema_root):
    bad = []
    for p, node in walk(schema_root):
        if node.get("type") == "object" or (isinstance(node.get("type"), list) and
                                            "object" in node["type"]):
            # a form body (LanguageTool's /v2/check) allows the fields of LanguageTool's
            # clients that it does not use; JSON bodies and every answer are exact
            if "x-www-form-urlencoded" in p:
                continue
            if "properties" in node and (node.get("additionalProperties") is not False or
                                         "required" not in node):
                bad.append(p)
    return bad


if Draft202012Validator is None:
    skip("python3-jsonschema missing: the spec's schemas and examples are not checked")
else:
    resolver = RefResolver.from_schema(spec)
    bad_schema, bad_example, n_examples = [], [], 0
    for p, node in walk(spec):
        if "schema" in node and isinstance(node["schema"], dict):
            try:
                Draft202012Validator.check_schema(node["schema"])
            except Exception as e:  # noqa: BLE001
                bad_schema.append("%s: %s" % (p, str(e)[:200]))
            if "example" in node:
                n_examples += 1
                errs = list(Draft202012Validator(node["schema"], resolver=resolver)
                            .iter_errors(node["example"]))
                if errs:
                    bad_example.append("%s: %s" % (p, errs[0].message[:200]))
    for name, sch in spec["components"]["schemas"].items():
        try:
            Draft202012Validator.check_schema(sch)
        except Exception as e:  # noqa: BLE001
            bad_schema.append("components/schemas/%s: %s" % (name, str(e)[:200]))
    ok(not bad_schema, "openapi: every schema is valid JSON Schema 2020-12", bad_schema[:5])
    ok(n_examples >= 17 and not bad_example,
       "openapi: %d examples, each valid against its schema" % n_examples, bad_example[:5])
    loose = objects_exact(spec["components"]["schemas"]) + \
        [q for p, item in spec["paths"].items() for q in objects_exact(item)]
    ok(not loose, "openapi: every object schema lists its required fields and allows no others",
       loose[:8])
    missing = []
    for p, item in spec["paths"].items():
        for m, op in item.items():
            if m == "options":
                continue
            if "example" not in list(op["responses"]["200"]["content"].values())[0]:
                missing.append("%s %s answer" % (m, p))
            # (a request's one content type: JSON, or /v2/check's form)
            if m == "post" and "example" not in list(op["requestBody"]["content"].values())[0]:
                missing.append("%s %s request" % (m, p))
    ok(not missing, "openapi: every route has an example answer (and request)", missing)

    def matches(schema_name, doc):
        v = Draft202012Validator(spec["components"]["schemas"][schema_name], resolver=resolver)
        return v.is_valid(doc)

    # every POST route's example request, sent as it is, answers 200 (checked by the hook)
    for route in ("/tokenize", "/score", "/classify", "/qa"):
        ex = spec["paths"][route]["post"]["requestBody"]["content"]["application/json"]["example"]
        st, _, j = srv.post(route, ex)
        ok(st == 200, "POST %s with the spec's example request: 200" % route, (st, j))
    # every shape: single and batch of each route, regression, the empty QA answer
    shapes = [
        ("/score", {"text": "The chef cooked."}, "ScoreSingle", "ScoreBatch"),
        ("/score", {"texts": ["The chef cooked.", "a"]}, "ScoreBatch", "ScoreSingle"),
        ("/classify", {"text": "a film", "text_pair": "a movie"}, "ClassifySingle",
         "ClassifyBatch"),
        ("/classify", {"text": "a film", "model": "reg"}, "ClassifySingle", "ClassifyBatch"),
        ("/classify", {"inputs": [{"text": "a"}, {"text": "b", "text_pair": "c"}]},
         "ClassifyBatch", "ClassifySingle"),
        ("/classify", {"inputs": [{"text": "a"}], "model": "reg"}, "ClassifyBatch",
         "ClassifySingle"),
        ("/qa", dict(question="Who?", context="The chef cooked.", handle_impossible_answer=True,
                     top_k=3), "QaSingle", "QaBatch"),
        ("/qa", {"inputs": [{"question": "Who?", "context": "The chef cooked."}] * 2},
         "QaBatch", "QaSingle"),
    ]
    for route, body, want, other in shapes:
        st, _, j = srv.post(route, body)
        ok(st == 200 and matches(want, j) and not matches(other, j),
           "POST %s %s: 200, a %s and not a %s" % (route, json.dumps(body)[:50], want, other),
           (st, str(j)[:300]))
    st, _, j = srv.post("/classify", {"text": "x", "model": "reg"})
    ok(st == 200 and set(j) == {"model", "value"}, "regression answer: model and value only", j)
    # the checker itself catches a body off the contract
    chk = openapi_check._Checker(spec)
    good = json.dumps({"model": "disc", "tokens": [], "words": [], "max_prob": 0}).encode()
    wrong = json.dumps({"model": "disc", "tokens": [], "words": [], "max_prob": 0,
                        "extra": 1}).encode()
    key = ("POST", "/score", "application/json", b'{"text": "a"}', 200, "application/json")
    rid = ("x-request-id",)
    ok(not openapi_check._check(chk, key + (good, rid)) and
       openapi_check._check(chk, key + (wrong, rid)) and
       openapi_check._check(chk, key + (good, ())) and
       openapi_check._check(chk, ("POST", "/score", "application/json", b'{"text": "a", "x": 1}',
                                  200, "application/json", good, rid)) and
       openapi_check._check(chk, ("GET", "/health", "", None, 418, "application/json",
                                  b'{"status": "ok"}', rid)),
       "openapi check: refuses an extra answer field, a missing X-Request-Id, a 200 for a "
       "request the schema refuses, an undocumented status")
# every method of every path: GET routes also answer HEAD, all OPTIONS
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
for p, item in spec["paths"].items():
    for m in item:
        form = m == "post" and "application/x-www-form-urlencoded" in item[m]["requestBody"]["content"]
        body = b"text=a&language=en-US" if form else b"{}" if m == "post" else None
        st, _, _ = srv.request(m.upper(), p, body, FORM if form else JSON if body else None)
        # a GET whose fields are required query parameters (GET /v2/check) is 400 without them
        needs_query = any(q.get("required") for q in item[m].get("parameters", []) if q.get("in") == "query")
        ok(st in (200, 204, 400) if m == "post" or needs_query else st in (200, 204),
           "%s %s: answered %d" % (m.upper(), p, st))
# error statuses reachable without special set-up
for method, path, body, hdrs, want in (
        ("POST", "/score", b'{"text": ', JSON, 400), ("POST", "/score", b"{}", JSON, 400),
        ("POST", "/score", b'{"text": "a", "model": "nope"}', JSON, 404),
        ("GET", "/score", None, None, 405), ("POST", "/score", b'{"text": "a"}',
                                             {"Content-Type": "text/plain"}, 415),
        ("POST", "/score", b'{"text": "a", "model": "cls"}', JSON, 422),
        ("POST", "/classify", b'{"text": "a"}', JSON, 200),
        ("POST", "/tokenize", b'{"text": ""}', JSON, 400)):
    st, _, _ = srv.request(method, path, body, hdrs)
    ok(st == want, "%s %s %s: %d" % (method, path, (body or b"")[:30], want), st)

# ------------------------------------------------------------------ paths
for method, path in (("GET", "/%00"), ("GET", "/health%00x"), ("GET", "/health%00"),
                     ("GET", "/%1f"), ("GET", "/info%0A"), ("GET", "/metrics%7f"),
                     ("POST", "/score%00"), ("POST", "/score%00/x"), ("GET", "/%00/health")):
    st, _, data = srv.request(method, path, b'{"text": "a"}' if method == "POST" else None,
                              JSON if method == "POST" else None)
    ok(st == 400 and error_type(json.loads(data)) == "invalid_request" and
       "control character" in json.loads(data)["error"]["message"],
       "%s %s: 400 invalid_request (a control character in the path)" % (method, path),
       (st, data[:200]))
for raw_path in (b"/health\x01", b"/\x7f"):
    raw = srv.raw(b"GET " + raw_path + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    ok(status_line(raw) == 400, "GET %r (a raw control byte): 400" % raw_path, raw[:200])
for path, want in (("/health", 200), ("/he%61lth", 200), ("/health?x=%00", 200),
                   ("/healthz", 404), ("/health/", 404), ("//health", 404), ("/health/x", 404),
                   ("/HEALTH", 404)):
    st, _, data = srv.request("GET", path)
    ok(st == want, "GET %s: %d (routes match the whole decoded path; the query is not the path)"
       % (path, want), (st, data[:200]))
st, _, data = srv.request("GET", "/health")
ok(st == 200 and json.loads(data) == {"status": "ok"}, "after them: /health still 200")

# ------------------------------------------------------------------ strict requests
Q = {"question": "Who cooked?", "context": "The chef cooked the meal."}


def refused(name, path, body, status, etype, *needles):
    st, _, j = srv.post(path, body)
    msg = j["error"]["message"] if j and "error" in j else ""
    ok(st == status and j["error"]["type"] == etype and all(n in msg for n in needles),
       "%s: %d %s naming %s" % (name, status, etype, ", ".join(needles)), (st, j))


refused("/score \"treshold\"", "/score", {"text": "a b", "treshold": 0.1}, 400, "invalid_request",
        '"treshold"', 'did you mean "threshold"?')
refused("/score an unknown field far from any", "/score", {"text": "a", "colour": 1}, 400,
        "invalid_request", '"colour"', "text, texts, model, threshold, truncate")
refused("/score \"Text\" (case)", "/score", {"Text": "a"}, 400, "invalid_request", '"Text"',
        'did you mean "text"?')
refused("/tokenize unknown field", "/tokenize", {"text": "a", "add_special": False}, 400,
        "invalid_request", '"add_special"', "add_special_tokens")
refused("/classify \"text_par\"", "/classify", {"text": "a", "text_par": "b"}, 400,
        "invalid_request", '"text_par"', 'did you mean "text_pair"?')
refused("/classify unknown field in an input", "/classify",
        {"inputs": [{"text": "a"}, {"text": "b", "txt_pair": "c"}]}, 400, "invalid_request",
        '"inputs"[1]."txt_pair"', 'did you mean "text_pair"?')
refused("/classify text_pair beside inputs", "/classify",
        {"inputs": [{"text": "a"}], "text_pair": "b"}, 400, "invalid_request", '"text_pair"',
        '"inputs"')
refused("/qa \"topk\"", "/qa", dict(Q, topk=2), 400, "invalid_request", '"topk"',
        'did you mean "top_k"?')
refused("/qa unknown field in an input", "/qa", {"inputs": [dict(Q, answer="x")]}, 400,
        "invalid_request", '"inputs"[0]."answer"', "question, context")
refused("/qa context beside inputs", "/qa", {"inputs": [Q], "context": "c"}, 400,
        "invalid_request", '"context"', '"inputs"')
for value in (2, -0.1, 1.0001):
    refused("/score threshold %s" % value, "/score", {"text": "a", "threshold": value}, 422,
            "validation_error", '"threshold"', "between 0 and 1")
for field, value, rng in (("top_k", 0, "between 1 and 100"), ("top_k", 101, "between 1 and 100"),
                          ("max_seq_len", 4, "between 8 and 64"),
                          ("max_seq_len", 65, "between 8 and 64"),
                          ("max_answer_len", 0, "between 1 and"), ("doc_stride", 0, "between 1 and"),
                          ("max_question_len", 0, "between 1 and")):
    refused("/qa %s %s" % (field, value), "/qa", dict(Q, **{field: value}), 422,
            "validation_error", '"%s"' % field, rng)
refused("/score more texts than --max-inputs", "/score", {"texts": ["a"] * 5}, 422,
        "validation_error", "at most 4")
st, _, j = srv.post("/qa", dict(Q, model="qa", top_k=2, max_answer_len=5, doc_stride=16,
                                max_seq_len=32, max_question_len=8, handle_impossible_answer=True))
ok(st == 200, "/qa with every field it takes: 200", j)
st, _, j = srv.post("/score", {"text": "a b", "model": "disc", "threshold": 0, "truncate": True})
ok(st == 200, "/score with every field it takes (threshold 0 is in range): 200", j)
st, _, j = srv.post("/score", {"text": "a b", "threshold": None, "texts": None})
ok(st == 200, "/score: null fields count as absent", j)
st, _, j = srv.post("/classify", {"text": "a", "text_pair": "b", "model": "cls", "truncate": False})
ok(st == 200, "/classify with every field it takes: 200", j)
st, _, j = srv.post("/tokenize", {"text": "a", "model": "gen", "add_special_tokens": False})
ok(st == 200, "/tokenize with every field it takes: 200", j)

# the command line: a near-miss option gets a suggestion, exit 2
r = subprocess.run([BIN, "--model", "d=" + M["disc"], "--max-batchsize", "4"],
                   capture_output=True, text=True, timeout=30)
ok(r.returncode == 2 and "unknown option '--max-batchsize' (did you mean --max-batch-size?"
   in r.stderr, "electra-server --max-batchsize: exit 2, did you mean --max-batch-size?",
   (r.returncode, r.stderr))

# ------------------------------------------------------------------ operations
st, h, _ = srv.post("/score", {"text": "with an id"}, headers={"X-Request-Id": "trace-42.a_b"})
ok(st == 200 and h.get("x-request-id") == "trace-42.a_b", "X-Request-Id sent: echoed", h)
ids = []
for i in range(3):
    st, h, _ = srv.post("/score", {"text": "no id %d" % i})
    ids.append(h.get("x-request-id", ""))
ok(all(re.fullmatch(r"[0-9a-f]{32}", x) for x in ids) and len(set(ids)) == 3,
   "no X-Request-Id: a generated one, 32 hex digits, different each time", ids)
for bad in ("has space", "x" * 129, "tab\there"):
    st, h, _ = srv.request("GET", "/health", headers={"X-Request-Id": bad})
    ok(re.fullmatch(r"[0-9a-f]{32}", h.get("x-request-id", "")) is not None,
       "an unusable X-Request-Id (%r...) is replaced by a generated one" % bad[:12], h)
for method, path, body in (("GET", "/nope", None), ("POST", "/score", b"{"), ("OPTIONS", "/score", None),
                           ("GET", "/%00", None), ("DELETE", "/qa", None)):
    st, h, _ = srv.request(method, path, body, JSON if body else None)
    ok("x-request-id" in h, "%s %s (%d): carries X-Request-Id" % (method, path, st), h)
st, h, _ = srv.request("GET", "/health", headers={"X-Request-Id": "find-me-in-the-log"})
time.sleep(0.2)
log = srv.log().decode(errors="replace")
line = [x for x in log.splitlines() if "id=find-me-in-the-log" in x]
ok(len(line) == 1 and " access GET /health 200 " in line[0] and
   line[0].endswith("id=find-me-in-the-log client=127.0.0.1"),
   "text access log: the request id and the client address", line or log[-600:])
gen = [x for x in log.splitlines() if "id=" + ids[0] in x]
ok(len(gen) == 1 and "model=disc" in gen[0], "a generated id is logged too", gen)

# /metrics: process metrics, latency by model
st, _, data = srv.get("/metrics")
text = data.decode()


def metric(name):
    m = re.search(r"^%s (\S+)$" % re.escape(name), text, re.M)
    return float(m.group(1)) if m else None


with open("/proc/%d/status" % srv.proc.pid) as f:
    rss_kb = int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))
n_fds = len(os.listdir("/proc/%d/fd" % srv.proc.pid))
start = metric("process_start_time_seconds")
rss = metric("process_resident_memory_bytes")
fds = metric("process_open_fds")
cpu = metric("process_cpu_seconds_total")
ok(start and abs(start - os.stat("/proc/%d" % srv.proc.pid).st_mtime) < 120 and
   time.time() - 600 < start <= time.time() + 1,
   "process_start_time_seconds: the process's start (%s)" % start)
ok(rss and 0.5 < rss / (rss_kb * 1024) < 2, "process_resident_memory_bytes ~ VmRSS (%s vs %d KiB)"
   % (rss, rss_kb))
ok(fds is not None and abs(fds - n_fds) <= 3, "process_open_fds ~ /proc/PID/fd (%s vs %d)"
   % (fds, n_fds))
ok(cpu is not None and cpu > 0 and metric("process_virtual_memory_bytes") and
   metric("process_max_fds"), "process_cpu_seconds_total, process_virtual_memory_bytes, "
   "process_max_fds present (cpu %s s)" % cpu)
ok(re.search(r'^electra_request_duration_seconds_count\{route="/score",model="disc"\} \d+$', text,
             re.M) and
   re.search(r'^electra_request_duration_seconds_count\{route="/classify",model="reg"\} \d+$',
             text, re.M) and
   re.search(r'^electra_request_duration_seconds_count\{route="/score"\} \d+$', text, re.M) and
   not re.search(r'route="/health",model=', text),
   "latency by route, and by route and model for requests that ran on one")

rc = srv.stop()
ok(rc == 0, "SIGTERM: exit status 0 (got %s)" % rc)

# warm-up is not a request: a fresh server's counters are all 0; JSON access log fields
srv = Server([("disc", M["disc"]), ("cls", M["cls"])], ["--log-format", "json"], workdir=work,
             log_name="fresh.log").start()
st, _, data = srv.get("/metrics")
text = data.decode()
ok(st == 200 and metric("electra_batches_total") == 0 and metric("electra_sequences_total") == 0
   and metric("electra_tokens_total") == 0 and metric("electra_queue_duration_seconds_count") == 0
   and metric("electra_inference_duration_seconds_count") == 0,
   "after the warm-up of 2 models: no batch, sequence, token, queue or inference counted",
   "\n".join(x for x in text.splitlines() if x.startswith("electra_") and "_bucket" not in x))
st, _, _ = srv.post("/score", {"text": "now one"}, headers={"X-Request-Id": "json-7"})
st, _, data = srv.get("/metrics")
text = data.decode()
ok(metric("electra_batches_total") == 1 and metric("electra_sequences_total") == 1,
   "then one request: one batch, one sequence")
time.sleep(0.2)
rec = [json.loads(x) for x in srv.log().decode().splitlines() if '"request_id":"json-7"' in x]
ok(len(rec) == 1 and rec[0]["msg"] == "access" and rec[0]["client"] == "127.0.0.1" and
   rec[0]["route"] == "/score" and rec[0]["model"] == "disc",
   "JSON access log: request_id and client fields", rec)
rc = srv.stop()
ok(rc == 0, "SIGTERM: exit status 0 (got %s)" % rc)
done()
