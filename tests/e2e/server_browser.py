"""GET / in headless Chromium, driven over the DevTools protocol (a minimal
WebSocket client below, stdlib only): load the page, type a sentence, click
Score, and check the rendered words against /score; move the threshold slider
and check the flagged words follow. A screenshot goes to /tmp (not the repo).
SKIPs when /usr/bin/chromium is missing (Debian package `chromium`)."""
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_lib import scratch, SLOW, SMALL, Server, done, make_models, ok, skip  # noqa: E402

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SHOT = os.path.join(tempfile.gettempdir(), "electra-server-page.png")


class WebSocket:
    """Just enough RFC 6455 for the DevTools protocol: text frames, client masking."""

    def __init__(self, url):
        m = re.match(r"ws://([^:/]+):(\d+)(/.*)", url)
        self.s = socket.create_connection((m.group(1), int(m.group(2))), timeout=30 * SLOW)
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall(("GET %s HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\n"
                        "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                        "Sec-WebSocket-Version: 13\r\n\r\n" % (m.group(3), m.group(1), m.group(2),
                                                                key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.s.recv(1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError("websocket handshake failed: %r" % head)
        self.next_id = 0

    def _exact(self, n):
        b = b""
        while len(b) < n:
            c = self.s.recv(n - len(b))
            if not c:
                raise EOFError
            b += c
        return b

    def send(self, text):
        data = text.encode()
        n = len(data)
        head = bytes([0x81])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        self.s.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def recv(self):
        msg = b""
        while True:
            b0, b1 = self._exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._exact(8))[0]
            payload = self._exact(n)
            op = b0 & 0x0F
            if op == 8:
                raise EOFError
            if op in (0, 1, 2):
                msg += payload
                if b0 & 0x80:
                    return msg.decode()

    def call(self, method, **params):
        self.next_id += 1
        mid = self.next_id
        self.send(json.dumps({"id": mid, "method": method, "params": params}))
        while True:
            m = json.loads(self.recv())
            if m.get("id") == mid:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})

    def js(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError("js: %s" % r["exceptionDetails"])
        return r["result"].get("value")

    def wait(self, expr, timeout=15):
        deadline = time.time() + timeout * SLOW
        while time.time() < deadline:
            v = self.js(expr)
            if v:
                return v
            time.sleep(0.05)
        return None


if not os.access(CHROMIUM, os.X_OK):
    skip("%s not found: install the Debian package `chromium` to test GET / in a browser"
         % CHROMIUM)
    done()

work = scratch("electra-e2e-browser-")
M = make_models(os.path.join(work, "models"),
                {"disc": ["--arch", "pretraining", "--seed", "11"] + SMALL})
srv = Server([("disc", M["disc"])], workdir=work).start()
profile = scratch("electra-chromium-")
browser = subprocess.Popen(
    [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
     "--disable-background-networking", "--disable-component-update", "--disable-sync",
     "--disable-dev-shm-usage", "--user-data-dir=" + profile, "--remote-debugging-port=0",
     "--window-size=1000,700", "about:blank"],
    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
try:
    port_file = os.path.join(profile, "DevToolsActivePort")
    deadline = time.time() + 30 * SLOW
    while time.time() < deadline and not os.path.exists(port_file):
        time.sleep(0.05)
    time.sleep(0.1)
    with open(port_file) as f:
        devport = int(f.read().split()[0])
    targets = json.loads(urllib.request.urlopen("http://127.0.0.1:%d/json/list" % devport).read())
    page = [t for t in targets if t["type"] == "page"][0]
    ws = WebSocket(page["webSocketDebuggerUrl"])
    ws.call("Page.enable")
    ws.call("Runtime.enable")
    url = "http://127.0.0.1:%d/" % srv.port
    ws.call("Page.navigate", url=url)
    loaded = ws.wait("document.readyState === 'complete' && !!document.getElementById('text')")
    ok(loaded, "page loads in Chromium")
    ok(ws.wait("document.getElementById('model').options.length === 1 && "
               "document.getElementById('model').value === 'disc'"),
       "model list filled from /info")

    text = "The chef cooked the meal, then Zoë ate it."
    ws.js("document.getElementById('text').focus()")
    ws.call("Input.insertText", text=text)  # typed as a user would (input events)
    ok(ws.js("document.getElementById('text').value") == text, "text typed into the box")
    box = ws.js("(() => {const r = document.getElementById('submit').getBoundingClientRect();"
                " return [r.x + r.width / 2, r.y + r.height / 2];})()")
    for kind in ("mousePressed", "mouseReleased"):
        ws.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left",
                clickCount=1)
    got = ws.wait("document.querySelectorAll('#result .word').length > 0")
    ok(got, "clicking Score renders words")
    shown = ws.js("Array.from(document.querySelectorAll('#result .word')).map(s => "
                  "({w: s.textContent, p: parseFloat(s.dataset.prob), "
                  "f: s.classList.contains('flagged'), bg: s.style.backgroundColor}))")
    st, _, ref = srv.post("/score", {"text": text, "truncate": True})
    words = ref["words"]
    ok(shown and [s["w"] for s in shown] == [w["word"] for w in words],
       "the page shows exactly /score's words", (shown, words))
    ok(shown and all(abs(s["p"] - w["prob"]) < 1e-4 for s, w in zip(shown, words)),
       "each word carries its replaced probability")
    ok(shown and all(s["f"] == (w["prob"] >= 0.5) for s, w in zip(shown, words)),
       "words at or above the default threshold 0.5 are flagged")

    def alpha(bg):
        m = re.match(r"rgba\([^,]+,[^,]+,[^,]+,\s*([\d.]+)\)", bg)
        return float(m.group(1)) if m else None

    pairs = sorted((s["p"], alpha(s["bg"])) for s in shown)
    ok(all(a is not None for _, a in pairs) and
       all(pairs[i][1] <= pairs[i + 1][1] + 1e-9 for i in range(len(pairs) - 1)) and
       pairs[-1][1] > pairs[0][1],
       "shading grows with the probability (alpha %.3f .. %.3f)" % (pairs[0][1], pairs[-1][1]))
    rendered = ws.js("document.getElementById('result').textContent")
    ok(rendered == text, "the rendered result reads as the typed text", rendered)

    probs = sorted(w["prob"] for w in words)
    th = (probs[len(probs) // 2 - 1] + probs[len(probs) // 2]) / 2  # between two words
    ws.js("(() => {const t = document.getElementById('threshold'); t.value = %r;"
          " t.dispatchEvent(new Event('input'));})()" % round(th, 2))
    th_set = ws.js("parseFloat(document.getElementById('threshold').value)")
    flagged = ws.js("Array.from(document.querySelectorAll('#result .word')).map(s => "
                    "s.classList.contains('flagged'))")
    ok(flagged == [w["prob"] >= th_set for w in words] and any(flagged) and not all(flagged),
       "moving the threshold to %.2f re-marks the flagged words (%d of %d)"
       % (th_set, sum(flagged), len(flagged)))
    ok(ws.js("document.getElementById('threshold-value').textContent") == "%.2f" % th_set,
       "the threshold value is shown")
    shot = ws.call("Page.captureScreenshot", format="png")
    with open(SHOT, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    ok(os.path.getsize(SHOT) > 1000, "screenshot written to %s" % SHOT)

    # an error from the server is shown, not swallowed
    ws.js("document.getElementById('text').value = '   '")
    ws.js("document.getElementById('submit').click()")
    msg = ws.wait("document.getElementById('status').className === 'error' && "
                  "document.getElementById('status').textContent")
    ok(msg, "empty input shows an error message (%r)" % msg)
    try:
        ws.call("Browser.close")
    except (EOFError, OSError, RuntimeError):
        pass
finally:
    try:
        browser.wait(timeout=10)
    except subprocess.TimeoutExpired:
        browser.kill()
        browser.wait()
    shutil.rmtree(profile, ignore_errors=True)
    srv.stop()
done()
