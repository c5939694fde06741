"""electra-server --dtype int8 end to end.

- --dtype int8 with --model-dtype NAME=fp32 for one model: /info shows each model's dtype
  and an int8 model's smaller weight_bytes; /metrics' electra_model_info carries a dtype
  label;
- the same checkpoint served int8 and fp32: /score per-token probabilities within 0.02,
  word flags and /classify labels the same on the test texts, /classify probabilities
  within 0.02;
- SIGHUP reload rebuilds the quantized copy: still int8, the same answers;
- ELECTRA_DTYPE works like the flag; a bad dtype is a start-up error (exit 2) naming the
  option. In a build without oneDNN, --dtype int8 must be refused at start-up with a
  message naming oneDNN, and the rest SKIPs."""
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_lib import BIN, Server, done, make_models, ok, scratch, skip  # noqa: E402

TOL = 0.02
TEXTS = ["The chefs cooked walking meals and some teachers write letters.",
         "she go to school yesterday and buyed three apple",
         "A short one."]
# a trained model's weight scale (the fixtures' 0.3 is chaotic for int8: see
# tests/reference/ref_fixtures.py INT8_MODELS)
MID = ["--hidden", "64", "--layers", "2", "--heads", "4", "--intermediate", "256",
       "--embedding", "32", "--max-position", "64", "--std", "0.1"]

work = scratch("electra-e2e-int8-")
M = make_models(os.path.join(work, "models"), {
    "disc": ["--arch", "pretraining", "--seed", "5"] + MID,
    "cls": ["--arch", "cls", "--num-labels", "2", "--seed", "6"] + MID,
})


def run_exit(args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run([BIN, "--port", "0"] + args, capture_output=True, text=True, env=e,
                       timeout=60)
    return r.returncode, r.stdout + r.stderr


# ---- a bad dtype, from the flag and from the environment -----------------------------------
rc, out = run_exit(["--model", "d=" + M["disc"], "--dtype", "int4"])
ok(rc == 2 and "--dtype must be one of fp32|int8" in out, "--dtype int4: exit 2, names the option",
   out)
rc, out = run_exit(["--model", "d=" + M["disc"]], env={"ELECTRA_DTYPE": "fp16"})
ok(rc == 2 and "ELECTRA_DTYPE" in out and "fp32|int8" in out, "ELECTRA_DTYPE=fp16: exit 2", out)

probe = Server([("d", M["disc"])], args=["--dtype", "int8"], workdir=work, log_name="probe.log")
try:
    probe.start()
    has_int8 = True
    probe.stop()
except RuntimeError as e:
    has_int8 = False
    msg = str(e)
    ok("oneDNN" in msg and "--dtype int8" in msg,
       "a build without oneDNN refuses --dtype int8 at start-up, naming oneDNN", msg[-600:])
if not has_int8:
    skip("int8 serving: this build has no oneDNN (libdnnl-dev absent or make DNNL=0)")
    done()

# ---- no writable+executable memory (the unit's MemoryDenyWriteExecute) ----------------
# The kernel's own switch, prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN), set in the child
# before exec. oneDNN's int8 kernels are written at run time: with them (ELECTRA_QGEMM=onednn)
# int8 is refused at start-up with the reason and the systemd drop-in that lifts it. The
# engine's own kernels (AVX2 or AVX-512 VNNI) are compiled ahead: int8 starts and serves
# under the restriction. fp32 starts as ever.
PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN = 65, 1


def mdwe():
    import ctypes
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0):
        os._exit(77)


def mdwe_supported():
    try:
        r = subprocess.run(["true"], preexec_fn=mdwe, timeout=10)
        return r.returncode == 0
    except OSError:
        return False


def cpu_has_avx2():
    try:
        with open("/proc/cpuinfo") as f:
            return " avx2" in f.read()
    except OSError:
        return False


if mdwe_supported():
    env = dict(os.environ, ELECTRA_QGEMM="onednn")
    r = subprocess.run([BIN, "--port", "0", "--model", "d=" + M["disc"], "--dtype", "int8"],
                       capture_output=True, text=True, timeout=60, preexec_fn=mdwe, env=env)
    out = r.stdout + r.stderr
    ok(r.returncode == 1 and "may not map writable and executable memory" in out and
       "electra-server-int8.conf" in out,
       "int8 on oneDNN's kernels without writable+executable memory: exit 1, the reason and the "
       "drop-in named", out[-600:])
    if cpu_has_avx2() and os.environ.get("ELECTRA_QGEMM") != "onednn":
        own = Server([("d", M["disc"])], args=["--dtype", "int8"], workdir=work,
                     log_name="mdwe-int8.log", preexec_fn=mdwe)
        try:
            own.start()
            st, _, j = own.post("/score", {"text": TEXTS[1]})
            served = st == 200 and j and j["words"] and all(0 <= w["prob"] <= 1 for w in j["words"])
            detail = json.dumps(j)[:300] if j else own.log().decode(errors="replace")[-600:]
        except RuntimeError as e:
            served, detail = False, str(e)[-600:]
        finally:
            own.stop()
        ok(served, "int8 on the engine's own kernels without writable+executable memory: starts "
           "and scores", detail)
    else:
        skip("int8 under MDWE on the engine's own kernels: no AVX2 here (or ELECTRA_QGEMM=onednn)")
    mdwe_srv = subprocess.Popen([BIN, "--port", "0", "--model", "d=" + M["disc"]],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=mdwe)
    time.sleep(3)
    alive = mdwe_srv.poll() is None
    mdwe_srv.terminate()
    mdwe_srv.wait(timeout=30)
    ok(alive, "fp32 under the same restriction starts and serves")
else:
    skip("PR_SET_MDWE: this kernel cannot deny writable+executable memory (Linux 6.3+)")

models = [("disc", M["disc"]), ("disc32", M["disc"]), ("cls", M["cls"]),
          ("cls32", M["cls"])]
srv = Server(models, args=["--dtype", "int8", "--model-dtype", "disc32=fp32",
                           "--model-dtype", "cls32=fp32"], workdir=work).start()


def info():
    st, _, j = srv.get("/info")
    assert st == 200, (st, j)
    j = json.loads(j)
    return {m["name"]: m for m in j["models"]}


i = info()
ok([i[n]["dtype"] for n in ("disc", "disc32", "cls", "cls32")] == ["int8", "fp32", "int8", "fp32"],
   "/info: dtype per model (--dtype int8, --model-dtype NAME=fp32)", i)
ok(i["disc"]["weight_bytes"] < 0.6 * i["disc32"]["weight_bytes"],
   "/info: the int8 model keeps fewer parameter bytes (%d vs %d)" %
   (i["disc"]["weight_bytes"], i["disc32"]["weight_bytes"]))
st, _, metrics = srv.request("GET", "/metrics")
metrics = metrics.decode() if isinstance(metrics, bytes) else str(metrics)
ok(re.search(r'electra_model_info\{name="disc",architecture="ElectraForPreTraining",'
             r'dtype="int8"\} 1', metrics) and
   re.search(r'electra_model_info\{name="disc32",[^}]*dtype="fp32"\} 1', metrics),
   "/metrics: electra_model_info has a dtype label", metrics[-800:])


def answers():
    out = {}
    for name in ("disc", "disc32"):
        st, _, j = srv.post("/score", {"texts": TEXTS, "model": name})
        assert st == 200, (st, j)
        out[name] = j["results"]
    for name in ("cls", "cls32"):
        st, _, j = srv.post("/classify", {"inputs": [{"text": t} for t in TEXTS],
                                          "model": name})
        assert st == 200, (st, j)
        out[name] = j["results"]
    return out


a = answers()
dprob = max(abs(t8["prob"] - t32["prob"])
            for r8, r32 in zip(a["disc"], a["disc32"])
            for t8, t32 in zip(r8["tokens"], r32["tokens"]))
ok(0 < dprob <= TOL, "/score: int8 per-token probabilities within %g of fp32 (max %.4f)" %
   (TOL, dprob))
spread = max(t["prob"] for r in a["disc32"] for t in r["tokens"]) - \
    min(t["prob"] for r in a["disc32"] for t in r["tokens"])
ok(spread > 0.1, "the fp32 probabilities vary (spread %.3f), so the comparison means something"
   % spread)
ok([r["label"] for r in a["cls"]] == [r["label"] for r in a["cls32"]],
   "/classify: int8 labels equal fp32's", (a["cls"], a["cls32"]))
dcls = max(abs(p8["score"] - {p["label"]: p["score"] for p in r32["scores"]}[p8["label"]])
           for r8, r32 in zip(a["cls"], a["cls32"]) for p8 in r8["scores"])
ok(dcls <= TOL, "/classify: int8 probabilities within %g of fp32 (max %.4f)" % (TOL, dcls))

# ---- SIGHUP: the quantized copy is rebuilt, answers unchanged ----------------------------
srv.signal(signal.SIGHUP)
deadline = time.time() + 60
while time.time() < deadline and srv.log().count(b"reload done") < 1:
    time.sleep(0.05)
ok(srv.log().count(b"reload done") == 1, "SIGHUP reload done", srv.log()[-600:])
i = info()
ok(i["disc"]["dtype"] == "int8" and i["disc32"]["dtype"] == "fp32",
   "after the reload: dtypes kept", i)
b = answers()
ok(b["disc"] == a["disc"] and b["cls"] == a["cls"],
   "after the reload: the int8 answers are the same (the same quantization)")
srv.stop()

# ---- ELECTRA_DTYPE as the flag ------------------------------------------------------------
env_srv = Server([("disc", M["disc"])], env={"ELECTRA_DTYPE": "int8"}, workdir=work,
                 log_name="env.log").start()
st, _, j = env_srv.get("/info")
j = json.loads(j)
ok(st == 200 and j["models"][0]["dtype"] == "int8", "ELECTRA_DTYPE=int8 serves int8", j)
env_srv.stop()
done()
