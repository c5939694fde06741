"""The API contract of electra-server, checked on every exchange of the e2e suites.

server_lib.Server.request (and .raw, for a single request) hands each exchange to record();
done() calls report(), which validates them all against the /openapi.json the server itself
served (fetched once, on the first exchange) with a JSON Schema validator (Debian
python3-jsonschema; OpenAPI 3.1 schemas are JSON Schema 2020-12):

- answers: the path and method are described (a known path with an undescribed method must
  answer 405; an unknown path a 4xx Error), the status is listed for the operation, the
  Content-Type is the documented one, a JSON body matches its schema, and every header the
  response object lists as required is present;
- requests: a JSON body sent to an operation with a request schema must match it when the
  server answered 2xx; one the schema refuses must get a 4xx; one the schema accepts must not
  get 400 invalid_request (the schema would be too loose), except the limits JSON Schema cannot
  state (a \\u0000 escape; a key repeated in an object, which must get 400).

Exchanges are validated once per distinct content, after the suite (no time is taken from the
load the tests generate)."""
import http.client
import json
import re
import threading
import urllib.parse

_lock = threading.Lock()
_state = {"spec": None, "records": {}, "n": 0, "fetch_error": None, "bad_headers": []}


def record(srv, method, path, req_headers, body, status, headers, data):
    """One exchange: the request as sent (headers dict, body bytes or None) and the answer
    (status, lower-case headers dict, body bytes)."""
    if _state["spec"] is None:
        _fetch_spec(srv, req_headers)
    ctype = ""
    for k, v in (req_headers or {}).items():
        if k.lower() == "content-type":
            ctype = v
    hdr_names = tuple(sorted(headers))
    rid = headers.get("x-request-id")
    if rid is not None and not re.fullmatch(r"[!-~]{1,128}", rid):
        with _lock:
            _state["bad_headers"].append("%s %s: X-Request-Id %r" % (method, path[:60], rid[:140]))
    key = (method.upper(), path, ctype, bytes(body) if body is not None else None, status,
           headers.get("content-type", ""), bytes(data), hdr_names)
    with _lock:
        _state["n"] += 1
        _state["records"][key] = _state["records"].get(key, 0) + 1


def _fetch_spec(srv, req_headers):
    h = {}
    for k, v in (req_headers or {}).items():
        if k.lower() == "authorization":
            h["Authorization"] = v
    try:
        c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        c.request("GET", "/openapi.json", headers=h)
        r = c.getresponse()
        data = r.read()
        c.close()
        if r.status == 200:
            _state["spec"] = json.loads(data)
        else:
            _state["fetch_error"] = "GET /openapi.json answered %d" % r.status
    except (OSError, ValueError) as e:
        _state["fetch_error"] = "GET /openapi.json: %r" % e


def _deref(spec, o):
    while isinstance(o, dict) and "$ref" in o:
        node = spec
        for part in o["$ref"].lstrip("#/").split("/"):
            node = node[part]
        o = node
    return o


class _Checker:
    def __init__(self, spec):
        from jsonschema import Draft202012Validator, RefResolver
        self.spec = spec
        self.resolver = RefResolver.from_schema(spec)
        self.V = Draft202012Validator
        self.cache = {}

    def validator(self, schema):
        k = json.dumps(schema, sort_keys=True)
        if k not in self.cache:
            self.cache[k] = self.V(schema, resolver=self.resolver)
        return self.cache[k]

    def errors(self, schema, doc):
        v = self.validator(schema)
        best = None
        for e in v.iter_errors(doc):
            best = e
            break
        if best is None:
            return None
        where = "/".join(str(p) for p in best.absolute_path)
        return "%s (at /%s)" % (best.message[:200], where)


def _status_error(spec, chk, name, status, ctype, data, error_only=False):
    """Checks an answer against the Error schema when it should be one."""
    if status < 400:
        return "%s: %d where an error was due" % (name, status)
    if not ctype.startswith("application/json"):
        return "%s: error answer with Content-Type %r" % (name, ctype)
    try:
        doc = json.loads(data)
    except ValueError:
        return "%s: error answer is not JSON" % name
    e = chk.errors(spec["components"]["schemas"]["Error"], doc)
    return "%s: error body: %s" % (name, e) if e else None


def _check(chk, key):
    """The contract violations of one exchange (a list of strings)."""
    spec = chk.spec
    method, path, req_ctype, body, status, ctype, data, hdr_names = key
    out = []
    decoded = urllib.parse.unquote(path.split("?")[0])
    name = "%s %s -> %d" % (method, path[:60], status)
    item = spec["paths"].get(decoded)
    if item is None:
        e = _status_error(spec, chk, name + " (undescribed path)", status, ctype, data)
        return [e] if e else []
    op = item.get(method.lower())
    if op is None:
        if status != 405:
            out.append("%s: the operation is not described, yet the answer is not 405" % name)
        e = _status_error(spec, chk, name, status, ctype, data)
        return out + ([e] if e else [])
    resp = op["responses"].get(str(status))
    if resp is None:
        return ["%s: status %d is not listed for %s %s" % (name, status, method, decoded)]
    resp = _deref(spec, resp)
    for h, spec_h in (resp.get("headers") or {}).items():
        spec_h = _deref(spec, spec_h)
        if spec_h.get("required") and h.lower() not in hdr_names:
            out.append("%s: header %s missing" % (name, h))
    content = resp.get("content")
    if content and method != "HEAD":
        mt = ctype.split(";")[0].strip()
        if mt not in content:
            out.append("%s: Content-Type %r, documented %s" % (name, ctype, list(content)))
        elif mt == "application/json":
            try:
                doc = json.loads(data)
            except ValueError:
                doc = None
                out.append("%s: body is not JSON" % name)
            if doc is not None:
                e = chk.errors(content[mt]["schema"], doc)
                if e:
                    out.append("%s: answer: %s" % (name, e))
    elif not content and data and method != "HEAD":
        out.append("%s: a body where none is documented" % name)
    # the request body against the operation's request schema
    rb = op.get("requestBody")
    form = "application/x-www-form-urlencoded"
    if rb and body is not None and req_ctype.lower().startswith(form) and form in rb["content"]:
        # a form (/v2/check): its fields, first values, against the schema; a
        # 2xx answer must come from a request the schema allows
        fields = {k: v[0] for k, v in urllib.parse.parse_qs(
            body.decode("utf-8", "replace"), keep_blank_values=True).items()}
        e = chk.errors(rb["content"][form]["schema"], fields)
        if 200 <= status < 300 and e:
            out.append("%s: answered %d, but the request schema refuses it: %s" % (name, status, e))
        return out
    if rb and body is not None and req_ctype.lower().startswith("application/json") and \
            "application/json" in rb["content"]:
        try:
            # strict: no surrogates, as the server
            req = json.loads(body.decode("utf-8"), object_pairs_hook=_no_repeats)
        except _RepeatedKey:
            # a limit JSON Schema cannot state: the server refuses a repeated key
            if status != 400:
                out.append("%s: a body repeating a key answered %d, not 400" % (name, status))
            return out
        except (ValueError, RecursionError):
            return out  # not JSON for Python either: nothing to validate
        e = chk.errors(rb["content"]["application/json"]["schema"], req)
        if 200 <= status < 300 and e:
            out.append("%s: answered %d, but the request schema refuses it: %s" % (name, status, e))
        if e and not 400 <= status < 500:
            out.append("%s: the request schema refuses it (%s), yet the answer is not 4xx" % (name, e))
        if not e and status == 400:
            try:
                err = json.loads(data)["error"]
            except (ValueError, KeyError, TypeError):
                err = {}
            if err.get("type") == "invalid_request" and "\\u0000" not in err.get("message", ""):
                out.append("%s: the request schema accepts %s, the server refused it: %s"
                           % (name, body[:120], err.get("message")))
    return out


class _RepeatedKey(ValueError):
    pass


def _no_repeats(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise _RepeatedKey()
    return dict(pairs)


def report(ok, skip):
    """Validates every recorded exchange; one TAP line (ok/skip callbacks of server_lib)."""
    n, distinct = _state["n"], len(_state["records"])
    if not n:
        return
    try:
        import jsonschema  # noqa: F401
    except ImportError:
        skip("python3-jsonschema missing: %d exchanges not checked against /openapi.json" % n)
        return
    if _state["spec"] is None:
        ok(False, "openapi: the served /openapi.json for checking %d exchanges" % n,
           _state["fetch_error"])
        return
    chk = _Checker(_state["spec"])
    bad = list(_state["bad_headers"])
    covered = set()
    for key in _state["records"]:
        v = _check(chk, key)
        bad += v
        covered.add("%s %s %d" % (key[0], key[1].split("?")[0][:40], key[4]))
    print("# openapi: covered %s" % ", ".join(sorted(covered)), flush=True)
    ok(not bad, "openapi: %d exchanges (%d distinct) match the served /openapi.json (request "
       "and answer schemas, statuses, content types, required headers)" % (n, distinct),
       "\n".join(bad[:12]))
