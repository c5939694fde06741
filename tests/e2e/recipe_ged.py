"""electra-train recipe ged end to end, as `make run` uses it (issue 14): a tiny GED model
from plain text in ~40 s (vocabulary, pretraining with learner errors, the synthetic GED
stage), then served:
- every stage ran and left its run in DIR.work/; DIR is an ElectraForPreTraining model
  with a calibrated score_threshold and its synthetic-data record in eval.json;
- pretraining saw learner errors (settings.json records the corruption);
- /score without a threshold flags exactly the words whose prob >= the model's
  score_threshold, a request's own threshold wins, /info reports the model's threshold;
- bad invocations are refused before any work (missing --corpus, --train without --dev,
  an unknown recipe).
The corpus is the English text of Debian's wordnet-base (installed by deploy/install-deps.sh);
the test SKIPs without it."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_lib import ROOT, Server, done, ok, scratch, skip  # noqa: E402

BUILD = os.environ.get("BUILD", "build")
TRAIN = os.path.join(ROOT, BUILD, "bin", "electra-train")
GLOSSES = "/usr/share/wordnet/data.verb"


def corpus(path, n):
    """n WordNet verb glosses, one per line (definitions and example sentences)."""
    k = 0
    with open(GLOSSES, encoding="utf-8", errors="replace") as f, open(path, "w") as out:
        for line in f:
            if not line[:1].isdigit() or " | " not in line:
                continue
            g = line.split(" | ", 1)[1].replace('"', "").strip()
            for part in g.split("; "):
                if len(part.split()) >= 3:
                    out.write(part + "\n\n")
                    k += 1
            if k >= n:
                break


def run(*args):
    return subprocess.run([TRAIN] + list(args), capture_output=True, text=True)


def main():
    if not os.path.exists(GLOSSES):
        skip("no %s (Debian wordnet-base): no corpus for the recipe" % GLOSSES)
        done()
        return
    work = scratch("electra-e2e-recipe-")
    text = os.path.join(work, "corpus.txt")
    corpus(text, 6000)
    out = os.path.join(work, "ged")

    r = run("recipe", "ged", "--out", out)
    ok(r.returncode == 2 and "--corpus is required" in r.stderr, "recipe without --corpus: exit 2 naming it",
       r.stderr)
    r = run("recipe", "ged", "--out", out, "--corpus", text, "--train", text)
    ok(r.returncode == 2 and "--train needs --dev" in r.stderr, "recipe --train without --dev: exit 2",
       r.stderr)
    r = run("recipe", "nosuch")
    ok(r.returncode == 2 and "recipe ged" in r.stderr, "an unknown recipe: exit 2 naming the one there is",
       r.stderr)
    ok(not os.path.exists(out + ".work"), "refused invocations did no work")

    # make run's agreement pairs (deploy/run.sh); relative positions are the recipe's default
    r = run("recipe", "ged", "--out", out, "--corpus", text, "--time-limit", "40s",
            "--vocab-size", "2000", "--threads", "2", "--synthetic-agreement-pairs", "0.7")
    ok(r.returncode == 0, "recipe ged --time-limit 40s exits 0", r.stderr[-2000:])
    if r.returncode != 0:
        done()
        return
    for stage in ("vocabulary", "pretraining", "synthetic GED"):
        ok(("stage" in r.stderr and stage in r.stderr), "the recipe ran and announced stage '%s'" % stage)
    ok("serve it: electra-server --model ged=" + out in r.stderr, "the final report says how to serve it")
    cfg = json.load(open(os.path.join(out, "config.json")))
    ok(cfg.get("architectures") == ["ElectraForPreTraining"], "the model is ElectraForPreTraining",
       cfg.get("architectures"))
    ok(cfg.get("position_embedding_type") == "relative_key",
       "relative positions (the recipe's default) reached the served model's config.json",
       cfg.get("position_embedding_type"))
    th = cfg.get("score_threshold")
    ok(isinstance(th, float) and 0 < th < 1, "config.json has a calibrated score_threshold (%s)" % th)
    ev = json.load(open(os.path.join(out, "eval.json")))
    ok(ev.get("synthetic", {}).get("from") == [text] and ev.get("dev_file") is None,
       "eval.json records the synthetic stage (calibrated on held-out synthetic sentences)",
       json.dumps(ev)[:400])
    st = json.load(open(os.path.join(out + ".work", "pretrain", "state", "settings.json")))
    ok(st.get("corruption") == "learner" and st.get("corruption_rate", 0) > 0,
       "pretraining ran with learner errors (%s:%s)" % (st.get("corruption"), st.get("corruption_rate")))
    ok(st.get("position_embedding") == "relative_key", "pretraining ran with relative positions",
       st.get("position_embedding"))
    ok("--synthetic-agreement-pairs 0.7" in r.stderr,
       "the synthetic stage's command (printed by the recipe) has --synthetic-agreement-pairs 0.7",
       r.stderr[-1500:])

    srv = Server([("ged", out)], workdir=work)
    srv.start()
    sent = "She go to school yesterday and then he eat it in the the garden ."
    s, _, j = srv.post("/score", {"text": sent})
    ok(s == 200 and j["words"], "/score answers", j)
    same = all(w["flagged"] == (w["prob"] >= th) for w in j["words"])
    ok(same, "/score without a threshold flags exactly the words with prob >= score_threshold %.4f" % th,
       json.dumps(j["words"])[:600])
    s, _, j1 = srv.post("/score", {"text": sent, "threshold": 1.0})
    ok(s == 200 and not any(w["flagged"] for w in j1["words"] if w["prob"] < 1.0),
       "a request's own threshold wins")
    s, _, info = srv.get("/info")
    m = [x for x in json.loads(info)["models"] if x.get("name") == "ged"]
    ok(m and abs(m[0].get("score_threshold", -1) - th) < 1e-6 and m[0].get("score_threshold_source") == "model",
       "/info reports the model's threshold", json.dumps(m)[:400])
    srv.stop()
    done()


main()
