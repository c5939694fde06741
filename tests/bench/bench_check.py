#!/usr/bin/python3
"""/v2/check against /score on a 200-word paragraph of learner English with
errors, on one electra-server: BENCH_ROUNDS (20) rounds, each a /score then a
/v2/check of the same text (alternating, so both see the same machine), after
3 warm-up rounds. Prints median and p90 latency of each, the ratio of the
medians, how many words /score flagged and /v2/check matched, and the first
/v2/check's time: later ones find hunspell's suggestions for the paragraph's
misspellings cached (lang/dict.c), as an editor re-checking a document does.
Beside it, in the same rounds, /v2/check on a second server verifying in
fp32 (--verify-dtype fp32) where the first verifies in int8 (its default where
the engine's own int8 kernels run), so the two are compared on the same
machine state."""
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request

PARAGRAPH = (
    "Dear Mrs Smith, I am writing to you becouse I want to complain about the trip to London "
    "which I have went last week. First of all, the bus was late and we has to wait for two "
    "hours in the rain. When we arrive to the hotel, the rooms was not ready and nobody "
    "could tell us why. The guide said that the museum is closed, so we goes to a shopping "
    "centre instead, wich was not in the programme. In the evening we had dinner in a "
    "restaurant, but the food were cold and the waiter was very rude with us. I think that "
    "the advertisement was not true, because it says that the trip include a visit to the "
    "theatre and a boat trip on the river, but we did not do neither of them. My friends and "
    "me were very disappointed, and we want to have our money back. I hope you will "
    "understand our problem and give us an answer as soon as possible. I am looking forward "
    "to hear from you. Yours sincerely, Maria Lopez. P.S. I also lost my umbrella on the bus "
    "and I would be gratefull if you could help me to find it, becouse it was a present from "
    "my mother and it is very important to me. Thank you very much for you help and your time."
)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def post(url, body, ctype):
    req = urllib.request.Request(url, data=body, headers={"Content-Type": ctype})
    t = time.perf_counter()
    with urllib.request.urlopen(req, timeout=120) as r:
        data = r.read()
    return time.perf_counter() - t, json.loads(data)


def start(build, model, extra):
    port = free_port()
    srv = subprocess.Popen([f"{build}/bin/electra-server", "--model", f"ged={model}", "--port",
                            str(port), "--no-access-log"] + extra, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            with urllib.request.urlopen(base + "/ready", timeout=1) as r:
                if r.status == 200:
                    return srv, base
        except Exception:
            time.sleep(0.1)
    srv.terminate()
    sys.exit(f"bench_check: the server with {extra} did not get ready")


def main(model):
    build = os.environ.get("BUILD", "build")
    rounds = int(os.environ.get("BENCH_ROUNDS", "20"))
    srv, base = start(build, model, [])
    srv32, base32 = start(build, model, ["--verify-dtype", "fp32"])
    try:
        score_body = json.dumps({"text": PARAGRAPH}).encode()
        check_body = urllib.parse.urlencode({"text": PARAGRAPH, "language": "en-GB"}).encode()
        form = "application/x-www-form-urlencoded"
        ts, tc, t32, flagged, matched, cold = [], [], [], 0, 0, 0.0
        for i in range(rounds + 3):
            a, s = post(base + "/score", score_body, "application/json")
            b, c = post(base + "/v2/check", check_body, form)
            d, c32 = post(base32 + "/v2/check", check_body, form)
            if i == 0:
                cold = b
            if i >= 3:
                ts.append(a)
                tc.append(b)
                t32.append(d)
            flagged = sum(w["flagged"] for w in s["words"])
            matched = len(c["matches"])
            same = [m["offset"] for m in c["matches"]] == [m["offset"] for m in c32["matches"]]
    finally:
        for p in (srv, srv32):
            p.terminate()
            p.wait(timeout=30)
    med = lambda v: statistics.median(v) * 1e3
    p90 = lambda v: sorted(v)[int(0.9 * (len(v) - 1))] * 1e3
    words = len(PARAGRAPH.split())
    print(f"bench_check: {words}-word paragraph, model {model}, {rounds} alternating rounds")
    print(f"{'route':<12}{'median ms':>12}{'p90 ms':>10}")
    print(f"{'/score':<12}{med(ts):>12.1f}{p90(ts):>10.1f}   {flagged} words flagged")
    print(f"{'/v2/check':<12}{med(tc):>12.1f}{p90(tc):>10.1f}   {matched} matches")
    print(f"{'fp32 verify':<12}{med(t32):>12.1f}{p90(t32):>10.1f}   "
          f"{len(c32['matches'])} matches ({'the same' if same else 'not the same'} words)")
    print(f"ratio /v2/check / /score (medians): {med(tc) / med(ts):.2f}x (target <= 2x); "
          f"verifying in fp32 {med(t32) / med(ts):.2f}x")
    print(f"first /v2/check (hunspell's suggestions not yet cached): {cold * 1e3:.1f} ms")


if __name__ == "__main__":
    main(sys.argv[1])
