"""electra-server's start-up, end to end.

- --model DIR serves DIR under its base name, beside --model NAME=DIR; a pretraining run
  directory serves its discriminator/.
- A directory with only pytorch_model.bin is refused with how to convert it;
  scripts/convert_pytorch_bin.py converts it (F32 and BF16 checkpoints saved with torch.save),
  the safetensors read back equal to the original tensors, and the converted model answers
  /score exactly as the original.
- Every model is loaded and checked before "listening" is logged: a missing directory, a
  file, an empty directory, PyTorch-only weights, a broken config.json, or one bad model
  among good ones end the start-up with exit 1 and the reason, without ever listening.
- The start-up log lists every model (route, architecture, directory, labels, parameters and
  size) before "listening"."""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_lib import BIN, PY, ROOT, SMALL, Server, done, make_models, ok, scratch  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tests", "reference"))
import torch  # noqa: E402
import make_checkpoint as mc  # noqa: E402

CONVERT = os.path.join(ROOT, "scripts", "convert_pytorch_bin.py")
work = scratch("electra-e2e-startup-")
M = make_models(os.path.join(work, "models"), {
    "disc": ["--arch", "pretraining", "--seed", "1"] + SMALL,
    "disc16": ["--arch", "pretraining", "--dtype", "bf16", "--seed", "2"] + SMALL,
    "cls": ["--arch", "cls", "--labels", "negative,positive", "--seed", "3"] + SMALL,
    "gen": ["--arch", "mlm", "--seed", "4"] + SMALL,
})
TEXTS = ["The chef cooked the meal.", "Zoë's café in Köln — naïve résumé!", "a"]


def start_fails(args, name):
    """Runs electra-server with args; it must exit 1 before listening."""
    r = subprocess.run([BIN, "--port", "0"] + args, capture_output=True, text=True, timeout=60)
    out = r.stdout + r.stderr
    ok(r.returncode == 1 and "listening" not in out,
       "%s: exit 1 before listening" % name, (r.returncode, out[-600:]))
    return out


def as_pytorch(src, dst):
    """A copy of checkpoint src whose weights are only pytorch_model.bin (torch.save)."""
    os.makedirs(dst, exist_ok=True)
    for f in os.listdir(src):
        if f != "model.safetensors":
            shutil.copy(os.path.join(src, f), dst)
    state = mc.read_safetensors(os.path.join(src, "model.safetensors"))
    torch.save(state, os.path.join(dst, "pytorch_model.bin"))
    return state


# ---- PyTorch weights: refused with the way out, converted, served the same
hub = os.path.join(work, "hub", "electra-hub")
hub16 = os.path.join(work, "hub", "electra-hub16")
state = as_pytorch(M["disc"], hub)
state16 = as_pytorch(M["disc16"], hub16)
out = start_fails(["--model", hub], "only pytorch_model.bin")
ok("scripts/convert_pytorch_bin.py %s" % hub in out and "pytorch_model.bin" in out,
   "only pytorch_model.bin: the message gives the conversion command", out[-400:])
for d, st, label in ((hub, state, "F32"), (hub16, state16, "BF16")):
    r = subprocess.run([PY, CONVERT, d], capture_output=True, text=True, timeout=120)
    ok(r.returncode == 0 and os.path.isfile(os.path.join(d, "model.safetensors")),
       "convert_pytorch_bin.py (%s): exit 0, model.safetensors written" % label,
       r.stdout + r.stderr)
    back = mc.read_safetensors(os.path.join(d, "model.safetensors"))
    ok(set(back) == set(st) and all(back[k].dtype == st[k].dtype and torch.equal(back[k], st[k])
                                    for k in st),
       "convert_pytorch_bin.py (%s): every tensor back with its name, dtype and bits" % label)
r = subprocess.run([PY, CONVERT, hub], capture_output=True, text=True, timeout=120)
ok(r.returncode != 0 and "--force" in r.stderr, "convert_pytorch_bin.py: an existing output is "
   "kept unless --force", r.stderr)

srv = Server([], ["--model", M["disc"], "--model", hub, "--model", "orig16=" + M["disc16"],
                  "--model", hub16 + "/"], workdir=work, log_name="hub.log").start()
st, _, data = srv.get("/info")
names = [m["name"] for m in json.loads(data)["models"]]
ok(names == ["disc", "electra-hub", "orig16", "electra-hub16"],
   "--model DIR is named after the directory (a trailing / too), beside NAME=DIR", names)
same = True
for pair in (("disc", "electra-hub"), ("orig16", "electra-hub16")):
    for t in TEXTS:
        st1, _, a = srv.post("/score", {"text": t, "model": pair[0]})
        st2, _, b = srv.post("/score", {"text": t, "model": pair[1]})
        a.pop("model", None)
        b.pop("model", None)
        if st1 != 200 or st2 != 200 or a != b:
            same = False
ok(same, "a converted checkpoint answers /score exactly as the original (F32 and BF16, %d "
   "texts)" % len(TEXTS))
log = srv.log().decode(errors="replace")
srv.stop()

# ---- the start-up log: every model, before listening
srv = Server([], ["--model", M["cls"], "--model", "mlm=" + M["gen"], "--model", M["disc"]],
             workdir=work, log_name="list.log").start()
log = srv.log().decode(errors="replace")
srv.stop()
head = log.split("listening")[0]
lines = {m: re.search(r"model %s: (.*)" % m, head) for m in ("cls", "mlm", "disc")}
ok(all(lines.values()), "start-up log: a line per model before \"listening\"", head[-1500:])
if all(lines.values()):
    c, g, d = (lines[m].group(1) for m in ("cls", "mlm", "disc"))
    ok(c.startswith("/classify ElectraForSequenceClassification from " + M["cls"]) and
       "labels negative,positive" in c and re.search(r"\d+ parameters \((?:fp32|int8), \d+\.\d MB\)", c) and
       "default" in c,
       "start-up log: a classifier's route, architecture, directory, labels, size", c)
    ok(d.startswith("/score ElectraForPreTraining") and "threshold 0.5" in d and
       "parameters" in d and "default" in d, "start-up log: a scorer's threshold and size", d)
    ok("ElectraForMaskedLM" in g and "tokenize only" in g, "start-up log: a masked LM", g)

# ---- a pretraining run directory serves its discriminator/
run = os.path.join(work, "runs", "small")
shutil.copytree(M["disc"], os.path.join(run, "discriminator"))
shutil.copytree(M["gen"], os.path.join(run, "generator"))
srv = Server([], ["--model", run], workdir=work, log_name="run.log").start()
st, _, data = srv.get("/info")
info = json.loads(data)
st2, _, j = srv.post("/score", {"text": TEXTS[0]})
log = srv.log().decode(errors="replace")
srv.stop()
ok(st == 200 and [(m["name"], m["architecture"]) for m in info["models"]] ==
   [("small", "ElectraForPreTraining")] and st2 == 200 and j["model"] == "small" and
   "from %s/discriminator" % run in log,
   "--model RUN (a pretraining run) serves RUN/discriminator as \"small\"",
   (info["models"], log[-500:]))

# ---- bad directories: refused before listening, with the reason
empty = os.path.join(work, "empty")
os.makedirs(empty)
afile = os.path.join(work, "afile")
open(afile, "w").close()
broken = os.path.join(work, "broken")
shutil.copytree(M["disc"], broken)
with open(os.path.join(broken, "config.json"), "w") as f:
    f.write('{"architectures": ["ElectraForPreTraining"], ')
pt_only = os.path.join(work, "pt-only")
as_pytorch(M["cls"], pt_only)
for args, needle, name in (
        (["--model", os.path.join(work, "nope")], "nope: No such file or directory",
         "a missing directory"),
        (["--model", afile], "is not a directory", "a file"),
        (["--model", empty], "has no config.json", "an empty directory"),
        (["--model", broken], "config.json", "a broken config.json"),
        (["--model", M["disc"], "--model", pt_only], "convert_pytorch_bin.py",
         "a good model then a PyTorch-only one"),
        (["--model", "x=" + os.path.join(work, "nope2"), "--model", M["cls"]], "model \"x\"",
         "a missing directory before a good model")):
    out = start_fails(args, name)
    ok(needle in out and "start-up failed" in out, "%s: the reason is logged (%s)" % (name, needle),
       out[-500:])

# ---- option errors: exit 2
for args, needle, name in (
        (["--model", os.path.join(work, "my model")], "give --model NAME=DIR",
         "a base name that is no model name"),
        (["--model", M["disc"], "--model", os.path.join(work, "other", "disc")],
         "given twice (DIR alone is named after its base name", "two DIRs with one base name")):
    r = subprocess.run([BIN, "--port", "0"] + args, capture_output=True, text=True, timeout=30)
    ok(r.returncode == 2 and needle in r.stderr, "%s: exit 2, %s" % (name, needle),
       (r.returncode, r.stderr))
done()
