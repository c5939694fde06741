"""Helpers for the electra-server end-to-end tests: random checkpoints, a
daemon on a free loopback port, raw HTTP, TAP lines.

Every exchange through Server.request (and Server.raw, for one request) is
checked against the server's own /openapi.json when the suite ends
(openapi_check.py): done() adds one line for it.

Environment: BUILD (build dir, default "build"), SERVER_WRAPPER (e.g.
"valgrind --error-exitcode=99 --leak-check=full" to run the daemon under a
tool; timeouts stretch by SLOW, default 1, 20 under valgrind)."""
import atexit
import shutil
import http.client
import json
import os
import re
import shlex
import signal as signals
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import openapi_check  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("BUILD", "build")
# EL_SERVER_BIN: another build of the daemon (test_server_ltapi.sh's, with a
# test double of the checker)
BIN = os.environ.get("EL_SERVER_BIN") or os.path.join(ROOT, BUILD, "bin", "electra-server")
PY = "/usr/bin/python3"
WRAPPER = shlex.split(os.environ.get("SERVER_WRAPPER", ""))
SLOW = float(os.environ.get("SLOW", "20" if WRAPPER else "1"))

_failed = 0
_passed = 0


def ok(cond, name, detail=""):
    global _failed, _passed
    if cond:
        _passed += 1
        print("ok - " + name, flush=True)
    else:
        _failed += 1
        print("not ok - " + name, flush=True)
        if detail:
            for line in str(detail).splitlines()[:12]:
                print("#   " + line, flush=True)
    return cond


def skip(reason):
    print("ok - # SKIP " + reason, flush=True)


_servers = []
_scratch = []


def scratch(prefix):
    """A temporary directory removed by done() when every check passed
    (kept on failure, or always with EL_KEEP_TMP=1, for the logs)."""
    d = tempfile.mkdtemp(prefix=prefix)
    _scratch.append(d)
    return d


@atexit.register
def _kill_leftovers():
    # a test that dies half-way must not leave its daemons running
    for srv in _servers:
        if srv.proc and srv.proc.poll() is None:
            srv.proc.kill()
            srv.proc.wait()
def _links_sanitizer(path):
    """Whether the binary was built with -fsanitize=address/undefined: its
    dynamic section names GCC's runtime libraries (libasan, libubsan)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return False
    return b"libasan.so" in data or b"libubsan.so" in data


# any BUILD directory name: the server binary itself says whether it is sanitized
SANITIZED = ("asan" in BUILD or "san" in os.environ.get("SANITIZE", "") or
             _links_sanitizer(BIN))


def done():
    # every daemon's log must be free of sanitizer and valgrind reports
    for srv in _servers:
        if srv.proc and srv.proc.poll() is None:
            srv.stop()
        text = srv.log().decode(errors="replace")
        bad = [line for line in text.splitlines()
               if "runtime error:" in line or "AddressSanitizer" in line or
               "LeakSanitizer" in line or re.search(r"ERROR SUMMARY: [1-9]", line) or
               re.search(r"definitely lost: [1-9]", line)]
        if WRAPPER or SANITIZED:
            ok(not bad, "no sanitizer/valgrind report in %s" % os.path.basename(srv.log_path),
               "\n".join(bad[:10]))
    openapi_check.report(ok, skip)
    print("# %d passed, %d failed" % (_passed, _failed), flush=True)
    if not _failed and not os.environ.get("EL_KEEP_TMP"):
        for d in _scratch + [srv.workdir for srv in _servers]:
            shutil.rmtree(d, ignore_errors=True)
    sys.exit(1 if _failed else 0)


def make_models(workdir, specs):
    """specs: {name: [make_checkpoint args]} -> {name: dir}. Small random models."""
    out = {}
    for name, args in specs.items():
        d = os.path.join(workdir, name)
        if not os.path.exists(os.path.join(d, "model.safetensors")):
            cmd = [PY, os.path.join(ROOT, "tests", "reference", "make_checkpoint.py"),
                   "--out", d] + list(args)
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode:
                raise RuntimeError("make_checkpoint failed: %s\n%s" % (cmd, r.stderr))
        out[name] = d
    return out


SMALL = ["--hidden", "32", "--layers", "2", "--heads", "2", "--intermediate", "64",
         "--embedding", "16", "--max-position", "64", "--std", "0.3"]
# 512 positions: long texts make forward passes slow enough to queue behind
BIGGER = ["--hidden", "64", "--layers", "2", "--heads", "2", "--intermediate", "128",
          "--embedding", "32", "--max-position", "512", "--std", "0.3"]


class Server:
    def __init__(self, models, args=(), env=None, workdir=None, log_name="server.log",
                 binary=None, preexec_fn=None):
        self.models = models  # list of (name, dir)
        self.binary = binary or BIN  # another build of the daemon (e.g. the checker's double)
        self.args = list(args)
        self.env = dict(os.environ)
        self.env.update(env or {})
        self.workdir = workdir or tempfile.mkdtemp(prefix="electra-e2e-")
        self.log_path = os.path.join(self.workdir, log_name)
        self.proc = None
        self.port = None
        self.preexec_fn = preexec_fn  # run in the child before exec (a prctl, say)
        _servers.append(self)

    def start(self, wait_ready=True):
        cmd = list(WRAPPER) + [self.binary, "--host", "127.0.0.1", "--port", "0"]
        for name, d in self.models:
            cmd += ["--model", "%s=%s" % (name, d)]
        cmd += self.args
        self.logf = open(self.log_path, "wb")
        self.proc = subprocess.Popen(cmd, stdout=self.logf, stderr=subprocess.STDOUT,
                                     env=self.env, preexec_fn=self.preexec_fn)
        deadline = time.time() + 30 * SLOW
        while time.time() < deadline:
            m = re.search(rb"listening on 127\.0\.0\.1:(\d+)", self.log())
            if m:
                self.port = int(m.group(1))
                break
            if self.proc.poll() is not None:
                raise RuntimeError("server exited: %s" % self.log().decode(errors="replace"))
            time.sleep(0.02)
        if not self.port:
            raise RuntimeError("server did not start: %s" % self.log().decode(errors="replace"))
        if wait_ready:
            self.wait_ready()
        return self

    def wait_ready(self, timeout=30):
        deadline = time.time() + timeout * SLOW
        while time.time() < deadline:
            try:
                st, _, _ = self.request("GET", "/ready")
                if st == 200:
                    return True
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError("server exited: %s" % self.log().decode(errors="replace"))
            time.sleep(0.05)
        raise RuntimeError("server not ready: %s" % self.log().decode(errors="replace"))

    def log(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read()
        except OSError:
            return b""

    def conn(self, timeout=10):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout * SLOW)

    def request(self, method, path, body=None, headers=None, conn=None, timeout=10):
        c = conn or self.conn(timeout)
        h = {}
        if body is not None and not isinstance(body, (bytes, bytearray)):
            body = json.dumps(body).encode()
            h["Content-Type"] = "application/json"
        h.update(headers or {})
        c.request(method, path, body=body, headers=h)
        r = c.getresponse()
        data = r.read()
        hdrs = {k.lower(): v for k, v in r.getheaders()}
        if conn is None:
            c.close()
        openapi_check.record(self, method, path, h, body, r.status, hdrs, data)
        return r.status, hdrs, data

    def post(self, path, obj, **kw):
        st, h, data = self.request("POST", path, obj, **kw)
        try:
            j = json.loads(data)
        except ValueError:
            j = None
        return st, h, j

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def raw(self, data, read=True, timeout=5, shut=False):
        """Sends raw bytes on a new connection; returns what came back."""
        s = socket.create_connection(("127.0.0.1", self.port), timeout=timeout * SLOW)
        try:
            s.sendall(data)
            if shut:
                s.shutdown(socket.SHUT_WR)
            if not read:
                return b""
            out = b""
            while True:
                try:
                    b = s.recv(65536)
                except socket.timeout:
                    break
                if not b:
                    break
                out += b
                if b"\r\n\r\n" in out:
                    head, _, rest = out.partition(b"\r\n\r\n")
                    m = re.search(rb"(?i)content-length:\s*(\d+)", head)
                    if m and len(rest) >= int(m.group(1)):
                        break
            self._record_raw(data, out)
            return out
        finally:
            s.close()

    def _record_raw(self, sent, got):
        """Hands a raw exchange of one request and one answer to openapi_check."""
        m = re.match(rb"([A-Z]+) (\S+) HTTP/1\.[01]\r\n", sent)
        if not m or sent.count(b" HTTP/1.1\r\n") + sent.count(b" HTTP/1.0\r\n") != 1:
            return
        st = status_line(got)
        if st is None or got.count(b"\r\nHTTP/1.") or got.count(b"HTTP/1.") != 1:
            return
        head, _, body = sent.partition(b"\r\n\r\n")
        req_h = {}
        for line in head.split(b"\r\n")[1:]:
            k, _, v = line.decode("latin-1").partition(":")
            req_h[k.strip()] = v.strip()
        if any(k.lower() == "transfer-encoding" for k in req_h):
            body = None  # chunked framing: the JSON is not the bytes sent
        rhead, _, rbody = got.partition(b"\r\n\r\n")
        hdrs = {}
        for line in rhead.split(b"\r\n")[1:]:
            k, _, v = line.decode("latin-1").partition(":")
            hdrs[k.strip().lower()] = v.strip()
        openapi_check.record(self, m.group(1).decode(), m.group(2).decode("latin-1"), req_h,
                             body, st, hdrs, rbody)

    def rss_kb(self):
        try:
            with open("/proc/%d/status" % self.proc.pid) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return -1

    def signal(self, sig):
        self.proc.send_signal(sig)

    def stop(self, sig=signals.SIGTERM, timeout=30):
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=timeout * SLOW)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return "killed"
        finally:
            self.logf.close()


def status_line(raw):
    m = re.match(rb"HTTP/1\.[01] (\d+)", raw)
    return int(m.group(1)) if m else None


def body_of(raw):
    return raw.partition(b"\r\n\r\n")[2]


def error_type(raw_or_json):
    try:
        j = raw_or_json if isinstance(raw_or_json, dict) else json.loads(body_of(raw_or_json))
        return j["error"]["type"]
    except (ValueError, KeyError, TypeError):
        return None
