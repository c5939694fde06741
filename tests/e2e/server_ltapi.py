"""/v2/check and /v2/languages end to end (test_server_ltapi.sh). With
EL_CHECK_DOUBLE=1 the server's checker is tests/double/check_double.c: it
flags "go" after "She"/"He" (ELECTRA_VERB_SVA -> "goes") and "becouse"
(ELECTRA_SPELL -> "because"), and "favorite" in a British check, "favourite"
in an American one, so offsets and the language the server hands the
checker are checked exactly."""
import json
import os
import subprocess
import urllib.parse

from server_lib import ROOT, SMALL, Server, done, ok, make_models, scratch, skip

FORM = {"Content-Type": "application/x-www-form-urlencoded"}
DOUBLE = os.environ.get("EL_CHECK_DOUBLE") == "1"


def check(srv, fields, method="POST"):
    q = urllib.parse.urlencode(fields, doseq=True)
    if method == "GET":
        st, _, data = srv.request("GET", "/v2/check?" + q)
    else:
        st, _, data = srv.request("POST", "/v2/check", q.encode(), headers=FORM)
    try:
        return st, json.loads(data)
    except ValueError:
        return st, None


def rules(j):
    return [(m["offset"], m["length"], m["rule"]["id"]) for m in j["matches"]]


def test_contract(srv):
    st, j = check(srv, {"text": "\U0001F600 She go home becouse.", "language": "en-US"})
    ok(st == 200 and j["software"]["name"] == "electra.c" and j["software"]["apiVersion"] == 1,
       "POST /v2/check: 200, software", j)
    if DOUBLE:
        ok(rules(j) == [(7, 2, "ELECTRA_VERB_SVA"), (15, 7, "ELECTRA_SPELL")],
           "UTF-16 offsets: the emoji before the errors counts 2", rules(j))
        m = j["matches"][0]
        ok(m["replacements"] == [{"value": "goes"}] and m["rule"]["category"]["id"] == "GRAMMAR"
           and m["rule"]["issueType"] == "grammar", "replacements, category, issueType", m)
        ok(j["matches"][1]["type"]["typeName"] == "UnknownWord" and
           j["matches"][1]["rule"]["category"]["id"] == "TYPOS", "spelling: UnknownWord, TYPOS")
    if DOUBLE:
        st, j = check(srv, {"text": "She go home.", "language": "en", "level": "picky"})
        got = [r["value"] for r in j["matches"][0]["replacements"]] if st == 200 and j["matches"] else j
        ok(got == ["goes", "went"], "level=picky reaches the checker (the double adds \"went\")", got)
    st, j = check(srv, {"text": "He go home.", "language": "en-GB"}, method="GET")
    ok(st == 200 and j["language"]["code"] == "en-GB", "GET /v2/check with a query string", j)
    if DOUBLE:
        ok(rules(j) == [(3, 2, "ELECTRA_VERB_SVA")], "GET finds the same error", j)
    st, _, data = srv.get("/v2/languages")
    codes = [x["longCode"] for x in json.loads(data)] if st == 200 else []
    ok(codes == ["en", "en-US", "en-GB"], "/v2/languages: en, en-US, en-GB", data)


def test_variants(srv):
    """The request's language is the spelling checked: the same text, a
    British and an American spelling in it, gets the other variant's word
    flagged under en-GB and en-US, neither under en or auto."""
    text = "My favorite and my favourite."
    want = {"en-GB": ([(3, 8, "ELECTRA_SPELL")], "favourite", "British English"),
            "en-US": ([(19, 9, "ELECTRA_SPELL")], "favorite", "American English"),
            "en": ([], None, None), "auto": ([], None, None)}
    code = {"en-GB": "en-GB", "en-US": "en-US", "en": "en", "auto": "en-US"}
    for lang, (spans, repl, english) in want.items():
        st, j = check(srv, {"text": text, "language": lang})
        ok(st == 200 and j["language"]["code"] == code[lang] and
           j["language"]["detectedLanguage"]["code"] == code[lang],
           "language=%s: the answer's language is %s" % (lang, code[lang]), j)
        if not DOUBLE:
            continue
        ok(rules(j) == spans, "language=%s: %s" % (lang, spans or "no match"), rules(j))
        if repl:
            m = j["matches"][0]
            ok(m["replacements"][0]["value"] == repl and english in m["message"],
               "language=%s: %s, the message names %s" % (lang, repl, english), m)


def test_data(srv):
    data = {"annotation": [{"text": "A "}, {"markup": "<b>"}, {"text": "test"},
                           {"markup": "</b>"}, {"markup": "<p>", "interpretAs": "\n\n"},
                           {"text": "She go home."}]}
    st, j = check(srv, {"data": json.dumps(data), "language": "auto"})
    ok(st == 200 and j["language"]["code"] == "en-US", "annotated data, language=auto", j)
    if DOUBLE:
        # document "A <b>test</b><p>She go home.": "go" at 2+3+4+4+3+4 = 20
        ok(rules(j) == [(20, 2, "ELECTRA_VERB_SVA")], "offsets count the markup", rules(j))
        ok(j["matches"][0]["sentence"] == "She go home.", "sentence of the checked text")


def test_errors(srv):
    for fields, what in [({"language": "en-US"}, "neither text nor data"),
                         ({"text": "x", "language": "fr"}, "unknown language"),
                         ({"text": "x"}, "no language"),
                         ({"text": ["a", "b"], "language": "en"}, "text twice"),
                         ({"data": "{\"x\":1}", "language": "en"}, "data not annotation"),
                         ({"text": "x", "language": "en", "level": "max"}, "bad level")]:
        st, j = check(srv, fields)
        ok(st == 400 and j["error"]["type"] == "invalid_request", "400: " + what, j)
    st, _, data = srv.request("POST", "/v2/check", b"text=%zz&language=en", headers=FORM)
    ok(st == 400, "400: bad percent escape", data)
    st, _, data = srv.request("POST", "/v2/check", {"text": "x", "language": "en"})
    ok(st == 415, "JSON body: 415 (LanguageTool takes forms)", data)


def test_filters(srv):
    if not DOUBLE:
        return skip("filters need the test double's known matches")
    text = "She go home becouse."
    cases = [({"disabledRules": "ELECTRA_SPELL"}, ["ELECTRA_VERB_SVA"]),
             ({"disabledRules": "MORFOLOGIK_RULE_EN_US"}, ["ELECTRA_VERB_SVA"]),
             ({"disabledCategories": "GRAMMAR"}, ["ELECTRA_SPELL"]),
             ({"enabledOnly": "true", "enabledCategories": "TYPOS"}, ["ELECTRA_SPELL"]),
             ({"enabledOnly": "true", "enabledRules": "ELECTRA_VERB_SVA"}, ["ELECTRA_VERB_SVA"])]
    for extra, want in cases:
        fields = dict(text=text, language="en-US", **extra)
        st, j = check(srv, fields)
        got = [m["rule"]["id"] for m in j["matches"]] if st == 200 else None
        ok(got == want, "filter %s -> %s" % (extra, want), got)


def test_npm_client(srv):
    node_path = os.environ.get("EL_LT_NODE_PATH")
    if not node_path:
        return skip("node/npm or npm's languagetool-api unavailable: independent client not run")
    js = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lt_client.js")
    r = subprocess.run(["node", js, str(srv.port), "She go home becouse."],
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, NODE_PATH=node_path))
    try:
        out = json.loads(r.stdout)
    except ValueError:
        out = None
    ok(r.returncode == 0 and out is not None, "languagetool-api reads the answer", r.stderr)
    if out and DOUBLE:
        ok(out["mistakes"] == ["go", "becouse"], "showMistakes: go, becouse", out)
        ok(out["suggestions"] == [{"mistake": "go", "bestSuggestion": "goes"},
                                  {"mistake": "becouse", "bestSuggestion": "because"}],
           "bestSuggestion: goes, because", out)
    if out:
        ok("en-US" in out["codes"] and out["language"] == "en-US", "codes() and language", out)


def test_score_suggestions(srv):
    """/score's opt-in suggestions: the checker's replacements and type on flagged words."""
    def words(body):
        st, _, j = srv.post("/score", body)
        return st, j if st != 200 else j["words"]

    text = "She go home becouse."
    check(srv, {"text": text, "language": "en", "level": "picky"})  # must not stick to /score
    st, ws = words({"text": text, "threshold": 0, "suggestions": True})
    ok(st == 200 and all(w["flagged"] and "suggestions" in w and "type" in w for w in ws),
       "/score suggestions at threshold 0: every word flagged carries suggestions and type", ws)
    if st == 200 and DOUBLE:
        got = {w["word"]: (w["suggestions"], w["type"]) for w in ws}
        ok(got == {"She": ([], None), "go": (["goes"], "VERB:SVA"), "home": ([], None),
                   "becouse": (["because"], "SPELL"), ".": ([], None)},
           "/score suggestions: go -> goes (VERB:SVA), becouse -> because (SPELL), others none",
           got)
    st, ws = words({"text": text, "threshold": 1, "suggestions": True})
    ok(st == 200 and all("suggestions" not in w for w in ws if not w["flagged"]),
       "/score suggestions: words not flagged carry none", ws)
    st, ws = words({"text": text, "threshold": 0})
    ok(st == 200 and all("suggestions" not in w and "type" not in w for w in ws),
       "/score without \"suggestions\": no suggestions or type (no check run)", ws)
    st, _, j = srv.post("/score", {"texts": [text, "He go."], "threshold": 0, "suggestions": True})
    if ok(st == 200 and len(j["results"]) == 2, "/score texts with suggestions: 200", j) and DOUBLE:
        second = {w["word"]: w["suggestions"] for w in j["results"][1]["words"]}
        ok(second == {"He": [], "go": ["goes"], ".": []},
           "/score texts: each text checked on its own", second)
    st, _, j = srv.post("/score", {"text": text, "suggestions": "yes"})
    ok(st in (400, 422), "/score suggestions not a boolean: refused", j)


def test_corrupt_word_counts(work, model):
    """A model whose word_counts.txt is corrupt gets no checker: /v2/check is
    503 naming the file and line, /score still serves. The real server (the
    double replaces the checker)."""
    real = os.path.join(ROOT, os.environ.get("BUILD", "build"), "bin", "electra-server")
    if not os.access(real, os.X_OK):
        skip("no %s: the corrupt word_counts.txt check needs the real server" % real)
        return
    d = os.path.join(work, "ged-badcounts")
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(model):
        if os.path.isfile(os.path.join(model, f)):
            with open(os.path.join(model, f), "rb") as src, open(os.path.join(d, f), "wb") as dst:
                dst.write(src.read())
    with open(os.path.join(d, "word_counts.txt"), "w") as f:
        f.write("the\t10\nschool\n")
    srv = Server([("ged", d)], workdir=work, binary=real).start()
    st, _, data = srv.request("POST", "/v2/check", b"text=She+go+to+school.&language=en-US", headers=FORM)
    msg = data.decode("utf-8", "replace")
    ok(st == 503 and "word_counts.txt:2: no word and tab" in msg,
       "a corrupt word_counts.txt: /v2/check 503 naming the file and line", (st, msg[:300]))
    st, _, j = srv.post("/score", {"text": "She go to school."})
    ok(st == 200, "... and /score still serves", st)
    srv.stop()


def test_verifier(work, model):
    """The verification pass's dtype (--verify-dtype): /info tells it and the
    memory of the detector's int8 copy; fp32 verifies on the detector itself
    (no copy); a value the build cannot run is refused at start. The real
    server (the double has no verification pass)."""
    real = os.path.join(ROOT, os.environ.get("BUILD", "build"), "bin", "electra-server")
    if not os.access(real, os.X_OK):
        skip("no %s: the verifier check needs the real server" % real)
        return
    body = b"text=She+go+to+school+yesterday.&language=en-US"
    seen = {}
    for dtype in ("fp32", "int8", None, "auto"):
        args = ["--verify-dtype", dtype] if dtype else []
        srv = Server([("ged", model)], args=args, workdir=work, binary=real, log_name="verify.log")
        try:
            srv.start()
        except RuntimeError as e:
            ok(dtype == "int8" and "no int8 path" in str(e),
               "--verify-dtype %s: the server starts, or refuses int8 the build lacks" % dtype, str(e)[-300:])
            continue
        st, _, data = srv.get("/info")
        j = json.loads(data)
        ck = j["models"][0].get("checker") if st == 200 else None
        want = dtype if dtype in ("fp32", "int8") else ck and ck["verify_dtype"]
        ok(ck is not None and ck["verify_dtype"] == want and ck["generator"] is False,
           "--verify-dtype %s: /info checker %s" % (dtype or "(default)", ck), j)
        copy = ck and ck["verify_dtype"] != "fp32"  # the detector is fp32 here
        ok(ck is not None and (ck["verifier_weight_bytes"] > 0) == bool(copy) and
           ck["verifier_weight_bytes"] < j["models"][0]["weight_bytes"],
           "... its verifier's memory: %s (the detector's %d)" % (ck and ck["verifier_weight_bytes"],
                                                                  j["models"][0]["weight_bytes"]))
        st, _, data = srv.request("POST", "/v2/check", body, headers=FORM)
        ok(st == 200, "... /v2/check answers", (st, data[:200]))
        seen[dtype] = ck and ck["verify_dtype"]
        srv.stop()
    flags = open("/proc/cpuinfo").read()
    own = " avx2 " in flags and " fma " in flags and seen.get("int8") is not None \
        and not os.environ.get("ELECTRA_QGEMM") and not os.environ.get("ELECTRA_GEMM")
    ok(seen.get(None) in ("int8", "fp32") and (not own or seen[None] == "int8"),
       "the default verifies in int8 where the engine's own int8 kernels run (%s)" % seen.get(None))
    ok(seen.get("auto") == seen.get(None), "--verify-dtype auto is the default (%s)" % seen.get("auto"))
    if seen.get("int8") is not None:  # oneDNN's generated kernels: the default stays fp32
        srv = Server([("ged", model)], workdir=work, binary=real, log_name="verify-onednn.log",
                     env={"ELECTRA_QGEMM": "onednn"}).start()
        st, _, data = srv.get("/info")
        ck = json.loads(data)["models"][0]["checker"]
        ok(ck["verify_dtype"] == "fp32" and ck["verifier_weight_bytes"] == 0,
           "with int8 on oneDNN's kernels (ELECTRA_QGEMM=onednn) the default verifies in fp32", ck)
        srv.stop()
    srv = Server([("ged", model)], args=["--verify-dtype", "fp16"], workdir=work, binary=real,
                 log_name="verify-bad.log")
    try:
        srv.start()
        ok(False, "--verify-dtype fp16 is refused")
        srv.stop()
    except RuntimeError as e:
        ok("--verify-dtype must be one of auto|fp32|int8" in str(e), "--verify-dtype fp16 is refused", str(e)[-300:])


def main():
    work = scratch("electra-ltapi-")
    models = make_models(work, {"ged": ["--arch", "pretraining"] + SMALL})
    srv = Server([("ged", models["ged"])], workdir=work).start()
    test_contract(srv)
    test_variants(srv)
    test_data(srv)
    test_errors(srv)
    test_filters(srv)
    test_npm_client(srv)
    test_score_suggestions(srv)
    srv.stop()
    test_corrupt_word_counts(work, models["ged"])
    test_verifier(work, models["ged"])
    done()


main()
