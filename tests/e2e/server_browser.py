"""GET / (the grammar checker's page) in headless Chromium, driven over the
DevTools protocol (a minimal WebSocket client below, stdlib only): type a
sentence with errors, click Check, see the errors underlined in their
category's colour, click an underline, click its suggestion and see the text
corrected and checked again.

Two servers: the checker's test double (build/tests/electra-server-checkdouble,
EL_DOUBLE_BIN: it flags "go" after "She" -> "goes" and "becouse" ->
"because", so every step is exact) on a random model; then the real checker
on a trained model when one is present (ELECTRA_CHECK_MODEL=DIR, its generator in
DIR/generator/ or ELECTRA_CHECK_GENERATOR=GEN_DIR; default: `make run`'s
models/default when trained at least as long as make run's recipe,
tests/e2e/trained_model.py), which must underline something in "She go to school
yesterday." and correct it by its first suggestion; SKIPped with the reason
without such a model. Screenshots go to /tmp (not the repo). SKIPs when
/usr/bin/chromium is missing (Debian package `chromium`)."""
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
from server_lib import ROOT, BUILD, scratch, SLOW, SMALL, Server, done, make_models, ok, skip  # noqa: E402
from trained_model import trained_model  # noqa: E402

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SHOT = os.path.join(tempfile.gettempdir(), "electra-server-page%s.png")
DOUBLE_BIN = os.environ.get("EL_DOUBLE_BIN") or os.path.join(ROOT, BUILD, "tests",
                                                             "electra-server-checkdouble")


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


class Browser:
    """Headless Chromium with one page, driven over the DevTools protocol."""

    def __init__(self):
        self.profile = scratch("electra-chromium-")
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-dev-shm-usage", "--user-data-dir=" + self.profile,
             "--remote-debugging-port=0", "--window-size=1000,700", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.time() + 30 * SLOW
        while time.time() < deadline and not os.path.exists(port_file):
            time.sleep(0.05)
        time.sleep(0.1)
        with open(port_file) as f:
            devport = int(f.read().split()[0])
        targets = json.loads(urllib.request.urlopen("http://127.0.0.1:%d/json/list"
                                                    % devport).read())
        page = [t for t in targets if t["type"] == "page"][0]
        self.ws = WebSocket(page["webSocketDebuggerUrl"])
        self.ws.call("Page.enable")
        self.ws.call("Runtime.enable")

    def open(self, url):
        self.ws.call("Page.navigate", url=url)
        return self.ws.wait("document.readyState === 'complete' && "
                            "!!document.getElementById('text')")

    def click(self, selector):
        """A real mouse click at the middle of the first element matching selector."""
        box = self.ws.js("(() => {const e = document.querySelector(%s); if (!e) return null;"
                         " const r = e.getBoundingClientRect();"
                         " return [r.x + r.width / 2, r.y + r.height / 2];})()"
                         % json.dumps(selector))
        if not box:
            return False
        for kind in ("mousePressed", "mouseReleased"):
            self.ws.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1],
                         button="left", clickCount=1)
        return True

    def type(self, text):
        self.ws.js("(() => {const t = document.getElementById('text'); t.value = '';"
                   " t.focus();})()")
        self.ws.call("Input.insertText", text=text)  # as a user types (input events)

    def issues(self):
        return self.ws.js("Array.from(document.querySelectorAll('#result .issue')).map(s => "
                          "({w: s.textContent, cls: s.className, "
                          "color: getComputedStyle(s).textDecorationColor}))")

    def checked(self):
        """Waits for the check's answer: the status says how many problems (or an error)."""
        return self.ws.wait("(() => {const s = document.getElementById('status');"
                            " return /problem|error/i.test(s.textContent + ' ' + s.className)"
                            " && s.textContent;})()", timeout=60)

    def screenshot(self, tag):
        shot = self.ws.call("Page.captureScreenshot", format="png")
        path = SHOT % tag
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        return path

    def close(self):
        try:
            self.ws.call("Browser.close")
        except (EOFError, OSError, RuntimeError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def status(b):
    return b.ws.js("document.getElementById('status').textContent")


def with_double(b, work):
    """Every step exact, with the checker's double."""
    if not os.access(DOUBLE_BIN, os.X_OK):
        return ok(False, "%s is missing (make %s)" % (DOUBLE_BIN, DOUBLE_BIN))
    M = make_models(os.path.join(work, "models"),
                    {"disc": ["--arch", "pretraining", "--seed", "11"] + SMALL})
    srv = Server([("disc", M["disc"])], workdir=work, binary=DOUBLE_BIN).start()
    try:
        ok(b.open("http://127.0.0.1:%d/" % srv.port), "double: the page loads in Chromium")
        page = b.ws.js("document.body.innerText")
        ok("p(replaced)" not in page and "Check" in page,
           "the page speaks to writers (a Check button, no p(replaced))")
        text = "She go home becouse it rains."
        b.type(text)
        ok(b.ws.js("document.getElementById('text').value") == text, "text typed into the box")
        ok(b.click("#check"), "Check clicked")
        msg = b.checked()
        ok(msg == "2 possible problems.", "the check reports 2 problems (%r)" % msg)
        got = b.issues()
        ok(got and [(g["w"], g["cls"].split()[1]) for g in got] ==
           [("go", "grammar"), ("becouse", "spelling")],
           "go underlined as grammar, becouse as spelling", got)
        ok(got and len(got) == 2 and got[0]["color"] != got[1]["color"],
           "grammar and spelling underlines differ in colour (%s, %s)"
           % tuple(g["color"] for g in (got or [{"color": None}] * 2)[:2]))
        ok(b.ws.js("document.getElementById('result').textContent") == text,
           "the checked text reads as the typed text")
        b.screenshot("-underlined")
        ok(b.click("#result .issue"), "the go underline clicked")
        pop = b.ws.wait("(() => {const p = document.getElementById('popup');"
                        " return !p.hidden && {msg: p.querySelector('.message').textContent,"
                        " sugg: Array.from(p.querySelectorAll('.suggestion')).map(x => "
                        "x.textContent)};})()")
        ok(pop and "agreement" in pop["msg"] and pop["sugg"] == ["goes"],
           "the popup shows the message and the suggestion goes", pop)
        b.screenshot("-popup")
        ok(b.click("#popup .suggestion"), "the suggestion clicked")
        fixed = "She goes home becouse it rains."
        ok(b.ws.wait("document.getElementById('text').value === %s" % json.dumps(fixed)),
           "the text is corrected in place: %r" % fixed,
           b.ws.js("document.getElementById('text').value"))
        ok(b.ws.wait("document.querySelectorAll('#result .issue').length === 1 && "
                     "document.getElementById('status').textContent === '1 possible problem.'"),
           "checked again: only becouse is left", (b.issues(), status(b)))
        b.click("#result .issue")
        b.ws.wait("!document.getElementById('popup').hidden")
        b.click("#popup .suggestion")
        ok(b.ws.wait("document.getElementById('status').textContent === 'No problems found.'"),
           "becouse -> because: no problems found", status(b))
        ok(b.ws.js("document.getElementById('text').value") == "She goes home because it rains.",
           "the text reads She goes home because it rains.")
        ok(os.path.getsize(b.screenshot("")) > 1000, "screenshot written to %s" % (SHOT % ""))
        b.type("   ")
        b.click("#check")
        msg = b.ws.wait("document.getElementById('status').className === 'error' && "
                        "document.getElementById('status').textContent")
        ok(msg, "empty input shows an error message (%r)" % msg)
    finally:
        srv.stop()


def with_real_checker(b, work):
    d, why = trained_model()
    if not d:
        return skip("the real checker in the page: %s; a random model flags nothing a writer "
                    "would recognise" % why)
    gen = os.environ.get("ELECTRA_CHECK_GENERATOR")
    args = ["--generator", "ged=" + gen] if gen else []
    srv = Server([("ged", d)], args=args, workdir=work, log_name="real.log").start()
    try:
        ok(b.open("http://127.0.0.1:%d/" % srv.port), "real checker: the page loads")
        text = "She go to school yesterday."
        b.type(text)
        b.click("#check")
        msg = b.checked()
        if msg and "error" in b.ws.js("document.getElementById('status').className"):
            return ok(False, "real checker: the check failed: %s" % msg)
        got = b.issues()
        ok(got, "real checker (%s): %r underlined (%s)" % (d, text, msg), got)
        b.screenshot("-real")
        if not got:
            return
        b.click("#result .issue")
        sugg = b.ws.wait("(() => {const p = document.getElementById('popup'); return !p.hidden &&"
                         " Array.from(p.querySelectorAll('.suggestion')).map(x => "
                         "x.textContent);})()")
        if not sugg:
            return skip("real checker: the first underline has no suggestion to click")
        b.click("#popup .suggestion")
        after = b.ws.wait("(() => {const v = document.getElementById('text').value;"
                          " return v !== %s && v;})()" % json.dumps(text))
        ok(after and sugg[0].replace("(delete)", "") in after,
           "real checker: clicking %r corrects the text: %r" % (sugg[0], after))
        ok(b.checked(), "real checker: the corrected text is checked again (%s)" % status(b))
    finally:
        srv.stop()


if not os.access(CHROMIUM, os.X_OK):
    skip("%s not found: install the Debian package `chromium` to test GET / in a browser"
         % CHROMIUM)
    done()

work = scratch("electra-e2e-browser-")
browser = Browser()
try:
    with_double(browser, work)
    with_real_checker(browser, work)
finally:
    browser.close()
done()
