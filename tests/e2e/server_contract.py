"""electra-server's API contract, end to end.

- Paths: a control character in the path, raw or %-escaped (GET /%00, /health%00x,
  POST /score%00), is 400 invalid_request; a route matches only its whole path.
- Strict requests: an unknown field is 400 naming it (with the field it is a likely typo of);
  a value out of range is 422 naming the range; the same did-you-mean for electra-server's
  command-line options."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_lib import (BIN, SMALL, Server, done, error_type, make_models, ok,  # noqa: E402
                        scratch, status_line)

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

# ------------------------------------------------------------------ paths
JSON = {"Content-Type": "application/json"}
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

rc = srv.stop()
ok(rc == 0, "SIGTERM: exit status 0 (got %s)" % rc)
done()
