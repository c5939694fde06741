"""electra-server end to end: how /score reads each model.

- config.json "score_threshold": X is the threshold of a request that gives none (X chosen
  from the fixture text so its flags differ from 0.5's); a request's own threshold still wins;
  /info shows X and where it came from; a threshold outside [0, 1] is 422.
- config.json "score_aggregation": "first" / "mean": a multi-piece word's prob is its first
  piece's / the mean of its pieces'; /info shows the rule.
- ElectraForTokenClassification: each piece's prob is 1 - softmax(logits)[correct] computed
  here from the PyTorch reference (tests/reference/electra_ref.py) on the server's token ids;
  the correct label found by name (any case) or given by --correct-label; /info lists the
  labels and which one is correct; models whose correct label cannot be told are refused
  with a message naming the option."""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_lib import SMALL, Server, done, make_models, ok, scratch  # noqa: E402
from server_lib import ROOT  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tests", "reference"))
import torch  # noqa: E402
import electra_ref as er  # noqa: E402

TOL = 1e-4  # fp32 engine vs PyTorch, absolute, on probabilities
TEXT = "The chefs cooked walking meals and some teachers write letters."

work = scratch("electra-e2e-score-")
mdir = os.path.join(work, "models")
TOK = ["--arch", "tokcls"] + SMALL
M = make_models(mdir, {
    "disc": ["--arch", "pretraining", "--seed", "1"] + SMALL,
    # 3 labels, the correct one in the middle and in lower case: found by its name
    "tok": TOK + ["--labels", "INCORRECT,correct,OTHER", "--score-aggregation", "mean",
                  "--seed", "2"],
    # HF's default names: needs --correct-label
    "tok_opt": TOK + ["--seed", "3"],
    "tok_two": TOK + ["--labels", "C,correct", "--seed", "4"],
})


def with_config(name, src, **extra):
    """A copy of checkpoint src whose config.json carries extra keys."""
    d = os.path.join(mdir, name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(src, d)
    p = os.path.join(d, "config.json")
    with open(p) as f:
        c = json.load(f)
    c.update(extra)
    with open(p, "w") as f:
        json.dump(c, f, indent=2, sort_keys=True)
    return d


def score(srv, model, threshold=None, text=TEXT):
    body = {"text": text, "model": model}
    if threshold is not None:
        body["threshold"] = threshold
    st, _, j = srv.post("/score", body)
    assert st == 200, (st, j)
    return j


def pieces_of(res, w):
    return [t["prob"] for t in res["tokens"] if t["start"] >= w["start"] and t["end"] <= w["end"]]


def flags(res):
    return [w["flagged"] for w in res["words"]]


# ---- a threshold that flags the fixture text differently from 0.5 ----------------------
probe = Server([("disc", M["disc"])], workdir=work, log_name="probe.log").start()
base = score(probe, "disc")
probe.stop()
word_probs = sorted(w["prob"] for w in base["words"])
X = None
for a, b in zip([0.0] + word_probs, word_probs + [1.0]):
    x = round((a + b) / 2, 4)
    if not 0 < x < 1 or any(abs(x - p) < 1e-3 for p in word_probs):
        continue
    fl = [p >= x for p in word_probs]
    if any(fl) and not all(fl) and fl != [p >= 0.5 for p in word_probs]:
        X = x
        break
if not ok(X is not None, "the fixture text's word probs admit a threshold X whose flags differ "
          "from 0.5's", word_probs):
    done()

M["disc_th"] = with_config("disc_th", M["disc"], score_threshold=X)
M["disc_first"] = with_config("disc_first", M["disc"], score_aggregation="first")
M["disc_mean"] = with_config("disc_mean", M["disc"], score_aggregation="mean")
names = ["disc", "disc_th", "disc_first", "disc_mean", "tok", "tok_opt"]
srv = Server([(n, M[n]) for n in names], ["--correct-label", "tok_opt=label_1"],
             workdir=work).start()

# ---- score_threshold --------------------------------------------------------------------
plain = score(srv, "disc")
th = score(srv, "disc_th")
ok([t["prob"] for t in th["tokens"]] == [t["prob"] for t in plain["tokens"]],
   "threshold: same weights, same token probs")
ok(all(w["flagged"] == (w["prob"] >= X) for w in th["words"]) and flags(th) != flags(plain),
   "threshold: without \"threshold\" the model's score_threshold %g flags the words "
   "(%d flagged; %d at 0.5)" % (X, sum(flags(th)), sum(flags(plain))), th["words"])
ok(all(w["flagged"] == (w["prob"] >= 0.5) for w in plain["words"]),
   "threshold: a model without score_threshold flags at 0.5")
own = score(srv, "disc_th", threshold=0.5)
ok(flags(own) == flags(plain), "threshold: the request's own threshold wins over the model's")
for bad in (1.5, -0.1):
    st, _, j = srv.post("/score", {"text": TEXT, "model": "disc_th", "threshold": bad})
    ok(st == 422 and j["error"]["type"] == "validation_error" and "threshold" in
       j["error"]["message"], "threshold %g: 422 validation_error" % bad, j)

st, _, data = srv.get("/info")
info = {m["name"]: m for m in json.loads(data)["models"]} if st == 200 else {}
ok(info.get("disc_th", {}).get("score_threshold") == X and
   info["disc_th"]["score_threshold_source"] == "model",
   "/info: disc_th score_threshold %g from the model" % X, info.get("disc_th"))
ok(info.get("disc", {}).get("score_threshold") == 0.5 and
   info["disc"]["score_threshold_source"] == "default" and
   info["disc"]["score_aggregation"] == "max" and "correct_label" not in info["disc"],
   "/info: disc threshold 0.5 by default, rule max, no correct label", info.get("disc"))

# ---- score_aggregation ------------------------------------------------------------------
multi = [w for w in plain["words"] if len(pieces_of(plain, w)) > 1]
ok(len(multi) >= 2, "aggregation: the text has multi-piece words (%s)" %
   ", ".join(w["word"] for w in multi))
first = score(srv, "disc_first")
mean = score(srv, "disc_mean")
ok(all(abs(w["prob"] - max(pieces_of(plain, w))) < 1e-6 for w in plain["words"]),
   "aggregation max (default): word prob = max of its pieces")
ok(all(abs(w["prob"] - pieces_of(first, w)[0]) < 1e-6 and w["flagged"] == (w["prob"] >= 0.5)
       for w in first["words"]),
   "aggregation first: word prob = its first piece's prob", first["words"])
ok(any(abs(w["prob"] - max(pieces_of(first, w))) > 1e-4 for w in first["words"]),
   "aggregation first: differs from max on some word of the text")
ok(all(abs(w["prob"] - sum(pieces_of(mean, w)) / len(pieces_of(mean, w))) < 1e-6
       for w in mean["words"]),
   "aggregation mean: word prob = mean of its pieces", mean["words"])
ok(info.get("disc_first", {}).get("score_aggregation") == "first" and
   info.get("disc_mean", {}).get("score_aggregation") == "mean",
   "/info: score_aggregation first / mean")


# ---- ElectraForTokenClassification ------------------------------------------------------
def tokens_of(model, text=TEXT):
    st, _, j = srv.post("/tokenize", {"text": text, "model": model})
    assert st == 200, (st, j)
    return j["tokens"]


def ref_error_probs(model, correct, text=TEXT):
    """1 - softmax(token logits)[correct] from the PyTorch reference, [CLS]/[SEP] dropped."""
    ref = er.load(M[model])
    ids = torch.tensor([[t["id"] for t in tokens_of(model, text)]], dtype=torch.long)
    with torch.no_grad():
        lg = ref(ids, torch.zeros_like(ids), torch.ones_like(ids))["token_logits"][0]
    return (1.0 - torch.softmax(lg.double(), dim=-1)[:, correct]).tolist()[1:-1]


for model, correct, rule in (("tok", 1, "mean"), ("tok_opt", 1, "max")):
    res = score(srv, model)
    want = ref_error_probs(model, correct)
    got = [t["prob"] for t in res["tokens"]]
    d = max(abs(a - b) for a, b in zip(got, want)) if len(got) == len(want) else 1.0
    ok(len(got) == len(want) and d <= TOL,
       "%s: token probs = 1 - softmax(PyTorch logits)[%d] (max diff %.2g)" % (model, correct, d))
    ok(max(want) - min(want) > 0.05, "%s: the reference probs vary (%.3f..%.3f)" %
       (model, min(want), max(want)))
    agg = (lambda v: sum(v) / len(v)) if rule == "mean" else max
    ok(all(abs(w["prob"] - agg(pieces_of(res, w))) < 1e-6 and w["flagged"] == (w["prob"] >= 0.5)
           for w in res["words"]),
       "%s: words by rule %s, flagged at 0.5" % (model, rule), res["words"])
    ok(res["max_prob"] == max(got), "%s: max_prob" % model)
st, _, batch = srv.post("/score", {"texts": [TEXT, "a"], "model": "tok"})
single = score(srv, "tok")
ok(st == 200 and [t["prob"] for t in batch["results"][0]["tokens"]] ==
   [t["prob"] for t in single["tokens"]], "tok: texts batch equals the single answer")
ok(info.get("tok", {}).get("labels") == ["INCORRECT", "correct", "OTHER"] and
   info["tok"]["correct_label"] == "correct" and
   info["tok"]["correct_label_source"] == "label_name" and
   info["tok"]["task"] == "score" and info["tok"]["route"] == "/score" and
   info["tok"]["architecture"] == "ElectraForTokenClassification" and
   info["tok"]["score_aggregation"] == "mean",
   "/info: tok labels, correct label found by its name, task score", info.get("tok"))
ok(info.get("tok_opt", {}).get("labels") == ["LABEL_0", "LABEL_1"] and
   info["tok_opt"]["correct_label"] == "LABEL_1" and
   info["tok_opt"]["correct_label_source"] == "option",
   "/info: tok_opt correct label from --correct-label (label_1 matched ignoring case)",
   info.get("tok_opt"))


# ---- electra-train eval --task ged reads a token classifier as /score does --------------
def run_eval(model, *extra):
    import subprocess
    gold = os.path.join(work, "ged.txt")
    with open(gold, "w") as f:  # FCE token layout: the server's words, every 3rd marked
        for i, w in enumerate(single["words"]):
            f.write("%s %s\n" % (w["word"], "i" if i % 3 == 0 else "c"))
        f.write("\n")
    out = os.path.join(work, "ged_pred_%s.tsv" % model)
    trainer = os.path.join(ROOT, os.environ.get("BUILD", "build"), "bin", "electra-train")
    p = subprocess.run([trainer, "eval", "--task", "ged", "--data", gold, "--model", M[model],
                        "--out", out, "--threshold", "0.5"] + list(extra),
                       capture_output=True, text=True)
    rows = [l.rstrip("\n").split("\t") for l in open(out)] if p.returncode == 0 else []
    return p, [r for r in rows if len(r) >= 4]


for model, extra, res in (("tok", [], single), ("tok_opt", ["--correct-label", "LABEL_1"],
                                                score(srv, "tok_opt"))):
    p, rows = run_eval(model, *extra)
    got = [float(r[3]) for r in rows]
    want = [w["prob"] for w in res["words"]]
    ok(p.returncode == 0 and len(got) == len(want) and
       all(abs(a - b) < 1e-4 for a, b in zip(got, want)),
       "eval --task ged on %s: word probs equal /score's (%d words)" % (model, len(want)),
       (p.stderr[-300:], got, want))
p, _ = run_eval("tok_opt")
ok(p.returncode != 0 and "cannot tell which" in p.stderr and "LABEL_0" in p.stderr,
   "eval on tok_opt without --correct-label: refused naming the labels", p.stderr[-300:])
p, _ = run_eval("disc", "--correct-label", "C")
ok(p.returncode != 0 and "applies to --task ged with an ElectraForTokenClassification" in p.stderr,
   "eval --correct-label on a discriminator: refused as the server refuses it", p.stderr[-300:])
p, _ = run_eval("tok", "--correct-label", "KEEP")
ok(p.returncode != 0 and "\"KEEP\" is not one of the labels" in p.stderr,
   "eval --correct-label KEEP on tok: refused", p.stderr[-300:])

st, _, j = srv.post("/classify", {"text": TEXT, "model": "tok"})
ok(st == 422 and j["error"]["type"] == "validation_error",
   "tok on /classify: 422 (a token classifier serves /score)", j)
srv.stop()


# ---- refusals ---------------------------------------------------------------------------
def refused(models, args, needles, what):
    s = Server(models, args, workdir=work, log_name="refused-%d.log" % refused.n)
    refused.n += 1
    try:
        s.start()
        s.stop()
        ok(False, "refused: %s" % what, "the server started")
    except RuntimeError as e:
        msg = str(e)
        ok(all(n in msg for n in needles), "refused: %s" % what, msg[-600:])


refused.n = 0
refused([("t", M["tok_opt"])], [], ["cannot tell which", "\"LABEL_0\", \"LABEL_1\"",
                                    "--correct-label t=LABEL"],
        "LABEL_0/LABEL_1 without --correct-label names the option")
refused([("t", M["tok_two"])], [], ["several are", "--correct-label t=LABEL"],
        "two labels that both read as correct")
refused([("t", M["tok"])], ["--correct-label", "t=KEEP"], ["--correct-label t=KEEP", "\"KEEP\" is not one of the labels",
                                                           "\"INCORRECT\""],
        "--correct-label naming a label the model lacks")
refused([("d", M["disc"])], ["--correct-label", "d=C"],
        ["applies to ElectraForTokenClassification", "ElectraForPreTraining"],
        "--correct-label on a discriminator")
refused([("d", M["disc"])], ["--correct-label", "x=C"], ["no model is named \"x\""],
        "--correct-label naming no model")
bad_th = with_config("bad_th", M["disc"], score_threshold=1.5)
refused([("d", bad_th)], [], ["config.json", "\"score_threshold\"", "[0, 1]"],
        "config.json score_threshold 1.5")
bad_rule = with_config("bad_rule", M["disc"], score_aggregation="median")
refused([("d", bad_rule)], [], ["config.json", "\"score_aggregation\"", "median"],
        "config.json score_aggregation median")

done()
