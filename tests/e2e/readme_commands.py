"""The README's own commands, as a new user types them: the shell block of
"## Training your own model" (vocabulary, pretraining, three fine-tunings,
eval) in a fresh temporary directory where runs/ and models/ do not exist,
then a server on the results and the shell blocks of "## Using the server"
that run curl (those for a fresh `make run` and those that need the
fine-tuned models). The commands are read from README.md itself, so this
test breaks when the README and the programs disagree.

What is substituted, and only this (each substitution must still find its
text in the README, else the test fails and says which):
  - build/bin/           -> the build's bin directory (absolute)
  - corpus/*.txt, SST-2/, fce.*.tsv, train-v2.0.json/dev-v2.0.json: small
    generated files of the same formats, made in the temporary directory
    (the README's data is downloaded by the user; see its "Public data sets")
  - --vocab-size 30522   -> --vocab-size 300
  - --preset small       -> --preset tiny --batch-size 8 --seq-len 48
  - --time-limit 10h     -> --max-steps 6 --val-every 3
  - --save-every 1000    -> --save-every 3
  - every finetune gets  --epochs 1 --batch-size 8 --max-seq-len 64 appended
  - curl -s              -> curl -sS --fail-with-body (an HTTP error fails)
  - localhost:8080       -> the test server's address
The server serves what the training commands made: runs/small (the
pretraining run's discriminator, for /score), models/sst2, models/sst2 again
as "mrpc" (the README's pair example names an mrpc model), models/squad2."""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.abspath(os.path.join(ROOT, os.environ.get("BUILD", "build")))
BIN = os.path.join(BUILD, "bin")
fails = 0


def ok(cond, name, detail=""):
    global fails
    print(("ok - " if cond else "not ok - ") + name)
    if not cond:
        fails += 1
        for line in str(detail).splitlines()[-15:]:
            print("#   " + line)
    return cond


def section_block(text, heading):
    """The first ```sh block after the line `heading`."""
    i = text.find("\n" + heading + "\n")
    if i < 0:
        return None
    m = re.search(r"```sh\n(.*?)```", text[i:], re.S)
    return m.group(1) if m else None


def section_curl_blocks(text, heading):
    """Every ```sh block of the section `heading` (up to the next "## ") that
    runs curl, joined: the examples for a fresh `make run` and those that need
    fine-tuned models."""
    i = text.find("\n" + heading + "\n")
    if i < 0:
        return None
    j = text.find("\n## ", i + 1)
    sec = text[i:j if j >= 0 else len(text)]
    blocks = [b for b in re.findall(r"```sh\n(.*?)```", sec, re.S) if "curl " in b]
    return "".join(blocks) if blocks else None


def strip_comment(s):
    """s without a trailing " # comment" (a # inside single quotes stays)."""
    for m in re.finditer(r"\s#", s):
        if s[:m.start()].count("'") % 2 == 0:
            return s[:m.start()].rstrip()
    return s


def commands(block):
    """Shell commands of a block: continuation lines joined, comments dropped."""
    out, cur = [], ""
    for line in block.splitlines():
        s = line.strip()
        if not cur and (not s or s.startswith("#")):
            continue
        s = strip_comment(s)
        if s.endswith("\\"):
            cur += s[:-1].rstrip() + " "
            continue
        out.append(re.sub(r"\s+", " ", cur + s).strip())
        cur = ""
    return out


def substitute(cmds, subs):
    used = {k: 0 for k, _ in subs}
    res = []
    for c in cmds:
        for k, v in subs:
            if k in c:
                used[k] += 1
                c = c.replace(k, v)
        res.append(c)
    for k, n in used.items():
        ok(n > 0, "README still has %r (substituted by this test)" % k)
    return res


def make_data(d):
    r = random.Random(3)
    os.makedirs(os.path.join(d, "corpus"))
    subj = "the cat|a dog|my sister|the old farmer|our teacher|the small bird".split("|")
    verb = "sees|likes|finds|carries|paints|follows".split("|")
    obj = "the red ball|a green hat|the long road|an open door|the quiet river".split("|")
    for part in ("a", "b"):
        with open(os.path.join(d, "corpus", part + ".txt"), "w") as f:
            for _ in range(150):
                for _ in range(r.randint(1, 5)):
                    f.write("%s %s %s .\n" % (r.choice(subj), r.choice(verb), r.choice(obj)))
                f.write("\n")
    words = "the cat dog sees likes finds red ball green hat road door river old".split()

    def sent(n):
        return [r.choice(words) for _ in range(n)]
    os.makedirs(os.path.join(d, "SST-2"))
    for name, n in (("train", 48), ("dev", 16)):
        with open(os.path.join(d, "SST-2", name + ".tsv"), "w") as f:
            f.write("sentence\tlabel\n")
            for i in range(n):
                s = sent(r.randint(3, 7)) + (["good"] if i % 2 else [])
                f.write(" ".join(s) + " \t%d\n" % (i % 2))
    for name, n in (("fce.train.tsv", 48), ("fce.dev.tsv", 16)):
        with open(os.path.join(d, name), "w") as f:
            for i in range(n):
                s = sent(r.randint(3, 7)) + (["thing"] if i % 2 else [])
                for w in s:
                    f.write("%s\t%s\n" % (w, "i" if w == "thing" else "c"))
                f.write("\n")
    for name, n in (("train-v2.0.json", 32), ("dev-v2.0.json", 12)):
        data = []
        for i in range(n):
            s = sent(r.randint(5, 12))
            qa = {"id": "%s%d" % (name[:3], i), "question": "what is good", "answers": []}
            if i % 3 == 0:
                qa["is_impossible"] = True
            else:
                pos = r.randrange(len(s) + 1)
                s.insert(pos, "good")
                qa["is_impossible"] = False
                qa["answers"] = [{"text": "good",
                                  "answer_start": len(" ".join(s[:pos])) + (1 if pos else 0)}]
            data.append({"title": "t", "paragraphs": [{"context": " ".join(s), "qas": [qa]}]})
        json.dump({"version": "v2.0", "data": data}, open(os.path.join(d, name), "w"))


def run(cmd, cwd, timeout=600):
    p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", cmd], cwd=cwd, capture_output=True,
                       text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


# Development history has no place in a README for users (docs/RESULTS.md
# keeps the dated measurement records).
HISTORY = [r"until this session", r"Targets of issue", r"\bissue \d+", r"development machine",
           r"what was tried", r"came from measuring", r'see "Status"', r"\b20\d\d-\d\d-\d\d\b",
           r"\bthis session\b", r"\bwas \w+(?: \w+)? until\b"]


def main():
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    hist = [m.group(0) for pat in HISTORY for m in re.finditer(pat, readme)]
    ok(not hist, "README has no development history (%s)" % ", ".join(hist[:5]))
    train_block = section_block(readme, "## Training your own model")
    curl_block = section_curl_blocks(readme, "## Using the server")
    if not ok(train_block and curl_block, "README has the training and server shell blocks"):
        return
    work = tempfile.mkdtemp(prefix="electra-readme-")
    srv = None
    try:
        make_data(work)
        ok(not os.path.exists(os.path.join(work, "runs")) and
           not os.path.exists(os.path.join(work, "models")),
           "fresh directory: runs/ and models/ do not exist before the commands")
        cmds = substitute(commands(train_block), [
            ("build/bin/", BIN + "/"),
            ("--vocab-size 30522", "--vocab-size 300"),
            ("--preset small", "--preset tiny --batch-size 8 --seq-len 48"),
            ("--time-limit 10h", "--max-steps 6 --val-every 3"),
            ("--save-every 1000", "--save-every 3"),
        ])
        cmds = [c + " --epochs 1 --batch-size 8 --max-seq-len 64" if " finetune " in c else c
                for c in cmds]
        ok(len(cmds) >= 6 and sum(" finetune " in c for c in cmds) == 3,
           "the training block: vocab, pretrain, 3 finetune, eval (%d commands)" % len(cmds),
           "\n".join(cmds))
        for c in cmds:
            rc, out, err = run(c, work)
            short = c.replace(BIN + "/", "build/bin/")
            ok(rc == 0, "README: %s" % short[:150], err)
        for f in ("vocab.txt", "runs/small/discriminator/config.json",
                  "runs/small/generator/model.safetensors", "runs/small/metrics.jsonl",
                  "runs/small/loss.svg"):
            ok(os.path.isfile(os.path.join(work, f)), "made %s" % f)
        for m in ("sst2", "ged", "squad2"):
            for f in ("config.json", "model.safetensors", "eval.json", "metrics.jsonl",
                      "loss.svg"):
                ok(os.path.isfile(os.path.join(work, "models", m, f)), "made models/%s/%s" % (m, f))

        # the server on what was made, then the README's curl examples
        log = open(os.path.join(work, "server.log"), "wb")
        srv = subprocess.Popen([os.path.join(BIN, "electra-server"), "--host", "127.0.0.1",
                                "--port", "0", "--model", "default=runs/small", "--model",
                                "models/sst2", "--model", "mrpc=models/sst2", "--model",
                                "models/squad2"], cwd=work, stdout=log, stderr=subprocess.STDOUT)
        port = None
        deadline = time.time() + 60
        while time.time() < deadline and srv.poll() is None:
            txt = open(os.path.join(work, "server.log"), "rb").read()
            m = re.search(rb"listening on 127\.0\.0\.1:(\d+)", txt)
            if m:
                port = m.group(1).decode()
                rc, _, _ = run("curl -sf 127.0.0.1:%s/ready" % port, work)
                if rc == 0:
                    break
            time.sleep(0.1)
        if not ok(port is not None, "the server starts on the trained models",
                  open(os.path.join(work, "server.log"), "rb").read().decode(errors="replace")):
            return
        curls = substitute(commands(curl_block), [
            ("curl -s ", "curl -sS --fail-with-body "),
            ("localhost:8080", "127.0.0.1:" + port),
        ])
        ok(len(curls) >= 6, "the server block: %d commands" % len(curls), "\n".join(curls))
        for c in curls:
            rc, out, err = run(c, work, timeout=60)
            short = c.replace("127.0.0.1:" + port, "localhost:8080")
            short = short.replace("curl -sS --fail-with-body ", "curl -s ")
            good = rc == 0 and out.strip() != ""
            if good and c.count("curl ") == 1 and "/metrics" not in c:
                try:
                    body = json.loads(out)
                    good = "error" not in body
                except ValueError:
                    good = False
            ok(good, "README: %s" % short[:150], (rc, out[:800], err))
    finally:
        if srv and srv.poll() is None:
            srv.terminate()
            try:
                srv.wait(30)
            except subprocess.TimeoutExpired:
                srv.kill()
        shutil.rmtree(work, ignore_errors=True)


main()
sys.exit(1 if fails else 0)
