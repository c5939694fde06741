#!/usr/bin/env bash
# Numbers stated in more than one place agree. Each number has one source —
# the code that sets it, or the one document that records its measurement —
# and every other place that states it (README.md, docs/*.md,
# tests/fuzz/README.md, the Makefile's and .ci/run's comments, and the
# --help texts of electra-train COMMAND and electra-server) must state the
# same value, or better, link to the source instead:
#   - fuzz seconds per target: Makefile FUZZ_SECONDS ?= N (make fuzz-smoke),
#     .ci/run ${FUZZ_SECONDS:-N} (what CI runs);
#   - the default model's time budget: deploy/run.sh ELECTRA_DEFAULT_MODEL_TIME;
#   - recipe ged's default --time-limit: electra-train recipe --help;
#   - the default port: electra-server --help (--port);
#   - the default model's FCE dev F0.5: docs/RESULTS.md ("what `/score`
#     flags: **X**" in "The default model of `make run`");
#   - the number of end-to-end scripts: ls tests/e2e/test_*.sh;
#   - int8's speed-up on AVX2: docs/QUANT.md.
# Each check also fails when its source can no longer be read, so a moved
# number cannot silently end the check. Runtime: a second.
set -u
cd "$(dirname "$0")/../.."
. tests/tap.sh
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
for b in electra-train electra-server; do
  [ -x "$BUILD/bin/$b" ] || { nok "$BUILD/bin/$b not built"; exit 1; }
done
# Files read: every --help text goes into one file, each block headed by its command.
help=$(mktemp)
trap 'rm -f "$help"' EXIT
cmds=$("$BUILD/bin/electra-train" --help | awk '/^commands:/{f=1;next} f&&NF{print $1}')
for c in $cmds recipe; do
  { echo "### electra-train $c --help"; "$BUILD/bin/electra-train" "$c" --help 2>&1; } >>"$help"
done
{ echo "### electra-train --help"; "$BUILD/bin/electra-train" --help; } >>"$help"
{ echo "### electra-server --help"; "$BUILD/bin/electra-server" --help; } >>"$help"
EL_DOC_EXTRA=${EL_DOC_EXTRA:-} HELP_FILE="$help" "$PY" - <<'EOF'
import glob, os, re, sys

fails = 0
def ok(cond, name, detail=""):
    global fails
    print(("ok - " if cond else "not ok - ") + name)
    if not cond:
        fails += 1
        for line in str(detail).splitlines()[:15]:
            print("#   " + line)

def read(p):
    return open(p, encoding="utf-8").read()

# The places that state numbers. EL_DOC_EXTRA (a file) adds one, for the
# test's own failure demonstration.
docs = ["README.md", "tests/fuzz/README.md"] + sorted(glob.glob("docs/*.md"))
texts = {p: read(p) for p in docs if os.path.exists(p)}
texts["--help texts"] = read(os.environ["HELP_FILE"])
texts["Makefile"] = "\n".join(l for l in read("Makefile").splitlines() if l.lstrip().startswith("#"))
texts[".ci/run"] = "\n".join(l for l in read(".ci/run").splitlines() if l.lstrip().startswith("#"))
extra = os.environ.get("EL_DOC_EXTRA")
if extra:
    texts[extra] = read(extra)

def paragraphs(t):
    """Paragraphs with their lines joined (a sentence may wrap)."""
    return [re.sub(r"\s+", " ", p) for p in re.split(r"\n\s*\n", t)]

def sentences(t):
    out = []
    for p in paragraphs(t):
        out += re.split(r"(?<=[.;])\s+(?=[A-Z`(*])", p)
    return out

def stated(pattern, want, name, where=lambda s: True, before=None):
    """Every match of pattern (group 1) in a sentence `where` accepts, in
    every place, must equal want; before(path, text) filters on the 60 characters
    in front of the match."""
    bad, n = [], 0
    for path, t in texts.items():
        for s in sentences(t):
            if not where(s):
                continue
            for m in re.finditer(pattern, s):
                if before is not None and not before(path, s[max(0, m.start() - 60):m.start()]):
                    continue
                n += 1
                if m.group(1) != want:
                    bad.append("%s: %r says %s, the source says %s" % (path, m.group(0), m.group(1), want))
    ok(not bad, "%s: %d statement(s) agree with %s" % (name, n, want), "\n".join(bad))
    return n

# 1. fuzz seconds per target
mk = re.search(r"^FUZZ_SECONDS \?= (\d+)$", read("Makefile"), re.M)
ci = re.search(r"FUZZ_SECONDS:-(\d+)", read(".ci/run"))
ok(mk and ci, "fuzz seconds: sources found (Makefile FUZZ_SECONDS ?=, .ci/run FUZZ_SECONDS:-)")
if mk and ci:
    is_ci = lambda path, b: path == ".ci/run" or re.search(r"\bCI\b|\.ci/run", b) is not None
    fuzzy = lambda s: re.search(r"fuzz|FUZZ_SECONDS|target", s, re.I) is not None
    pats = [r"(\d+) s per target", r"each (?:fuzz )?target (?:for )?(\d+) s\b", r"FUZZ_SECONDS[=\s(]+(\d+)",
            r"target for (\d+) s\b"]
    n = 0
    for p in pats:
        n += stated(p, mk.group(1), "fuzz seconds per target of make fuzz-smoke (%s)" % p,
                    fuzzy, lambda path, b: not is_ci(path, b))
        n += stated(p, ci.group(1), "fuzz seconds per target in CI (%s)" % p,
                    fuzzy, is_ci)
    ok(n >= 2, "fuzz seconds are stated somewhere (%d statements)" % n)

# 2. the default model's time budget (deploy/run.sh)
m = re.search(r"ELECTRA_DEFAULT_MODEL_TIME:-(\d+)m\}", read("deploy/run.sh"))
ok(m, "default model budget: source found (deploy/run.sh)")
if m:
    mins = m.group(1)
    dm = lambda s: re.search(r"default model|make run", s) is not None
    n = stated(r"ELECTRA_DEFAULT_MODEL_TIME`?\s*\|?[^|=\n]{0,40}?\(default (\d+)m", mins,
               "default model budget (ELECTRA_DEFAULT_MODEL_TIME default)")
    n += stated(r"(\d+)[- ]minute (?:default )?model", mins, "default model budget (N-minute model)", dm)
    n += stated(r"(?:default model|make run)[^.]{0,60}?\b(?:in|takes) (\d+) minutes", mins,
                "default model budget (in N minutes)")
    ok(n >= 1, "the default model's budget is stated somewhere (%d statements)" % n)

# 3. recipe ged's default --time-limit
m = re.search(r"### electra-train recipe --help.*?--time-limit T\s+[^\n]*\((\d+m)\)", texts["--help texts"], re.S)
ok(m, "recipe --time-limit default: source found (electra-train recipe --help)")
if m:
    stated(r"recipe[^.]*--time-limit`?[^.(]{0,40}\(default (\d+m)\)", m.group(1), "recipe --time-limit default")

# 4. the default port (electra-server --help)
m = re.search(r"--port N\s+TCP port \((\d+)", texts["--help texts"])
ok(m, "default port: source found (electra-server --help)")
if m:
    port = m.group(1)
    n = stated(r"(?:localhost|127\.0\.0\.1):(\d+)", port, "default port (host:port)")
    n += stated(r"ELECTRA_PORT`?\s*\|?\s*[^|\n]{0,20}?\(default (\d+)\)", port, "default port (ELECTRA_PORT default)")
    n += stated(r"\bport \((\d+)[;)]", port, "default port (port (N))")
    n += stated(r"-p (\d+):\d+", port, "default port (docker -p)")
    ok(n >= 2, "the default port is stated somewhere (%d statements)" % n)

# 5. the default model's FCE dev F0.5 (docs/RESULTS.md)
res = read("docs/RESULTS.md")
sec = res.split("### The default model of `make run`", 1)
m = re.search(r"what `/score` flags: \*\*(0\.\d+)\*\*", sec[1].split("\n### ", 1)[0]) if len(sec) > 1 else None
ok(m, "default model F0.5: source found (docs/RESULTS.md, The default model of `make run`)")
if m:
    f = m.group(1)
    bad, n = [], 0
    for path, t in texts.items():
        if path == "docs/RESULTS.md":
            continue
        for s in sentences(t):
            if re.search(r"F0\.5", s) and re.search(r"default model|make run", s) \
               and re.search(r"\bdev\b|FCE", s) and not re.search(r"int8|correction", s):
                nums = re.findall(r"\b0\.\d{3}\b", s)
                if not nums:
                    continue
                n += 1
                if f not in nums:
                    bad.append("%s: %r states %s, docs/RESULTS.md says %s" % (path, s[:160], nums, f))
    ok(not bad, "default model FCE dev F0.5: %d statement(s) agree with %s" % (n, f), "\n".join(bad))
    ok(n >= 1, "the README states the default model's F0.5 (%d statements)" % n)

# 6. the number of e2e scripts
count = str(len(glob.glob("tests/e2e/test_*.sh")))
stated(r"\b(\d+) (?:end-to-end |e2e |test |shell )*scripts\b", count, "number of e2e scripts",
       lambda s: re.search(r"e2e|end-to-end|test", s) is not None)

# 7. int8 on AVX2: the ratios anywhere must be QUANT.md's
quant = read("docs/QUANT.md")
qnums = set(re.findall(r"(\d\.\d+)x", quant))
bad, n = [], 0
for path, t in texts.items():
    if path == "docs/QUANT.md":
        continue
    for s in sentences(t):
        if re.search(r"int8", s) and re.search(r"AVX2", s):
            for x in re.findall(r"(\d\.\d+)\s*(?:x|×)", s):
                n += 1
                if x not in qnums:
                    bad.append("%s: %r: %sx is not in docs/QUANT.md" % (path, s[:160], x))
            for a, b in re.findall(r"(\d\.\d+)\s*(?:-|–|to)\s*(\d\.\d+)\s*(?:x|×)", s):
                if a not in qnums:
                    bad.append("%s: %r: %sx is not in docs/QUANT.md" % (path, s[:160], a))
ok(not bad, "int8 AVX2 speed-ups: %d statement(s) outside docs/QUANT.md agree with it" % n, "\n".join(bad))
sys.exit(1 if fails else 0)
EOF
rc=$?
exit $rc
