#!/usr/bin/python3
"""The two Docker-engine jobs tests/fresh/docker_check.sh needs, without Docker.

  dockerfile.py plan Dockerfile
      Prints the Dockerfile's instructions, one per line, for the shell to
      carry out in debootstrapped roots:
        STAGE <n> <name or -> <image>
        RUN <base64 shell command>
        WORKDIR <path>
        ENV <name> <base64 value>
        COPY <stage name, number or .> <base64 JSON [src..., dest]>
        USER <user>        EXPOSE <port...>      VOLUME <path...>
        HEALTHCHECK <base64 JSON {"options": {...}, "cmd": [...] or "shell string"}>
        ENTRYPOINT <base64 JSON list or shell string>     CMD <same>
      Line continuations and comments are handled; any instruction this
      emulation does not carry out (ADD, ARG, SHELL, ONBUILD, ...) or a
      variable reference outside RUN is an error, so the check cannot
      silently pass a Dockerfile it did not really run.

  dockerfile.py context SRC DEST
      Copies the build context SRC to DEST leaving out what SRC/.dockerignore
      excludes (Docker's rules: patterns relative to the context root, `*`
      and `?` within one path element, `**` across elements, a leading `!`
      re-includes, the last matching pattern wins, an excluded directory
      excludes everything below it unless a later `!` pattern names it).
"""
import base64
import fnmatch
import json
import os
import re
import shlex
import shutil
import sys


def b64(s):
    return base64.b64encode(s.encode()).decode()


def logical_lines(text):
    """Joins continuation lines; drops comments and blank lines."""
    out, cur = [], ""
    for raw in text.splitlines():
        line = raw.rstrip()
        if not cur and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if cur and line.lstrip().startswith("#"):  # comment inside a continuation
            continue
        if line.endswith("\\"):
            cur += line[:-1] + " "
            continue
        cur += line
        out.append(cur.strip())
        cur = ""
    if cur.strip():
        out.append(cur.strip())
    return out


def json_or_shell(arg):
    arg = arg.strip()
    if arg.startswith("["):
        try:
            v = json.loads(arg)
            if isinstance(v, list) and all(isinstance(x, str) for x in v):
                return v
        except ValueError:
            pass
    return arg


def no_vars(instr, arg):
    if re.search(r"\$(\{|[A-Za-z_])", arg):
        sys.exit(f"dockerfile.py: {instr} {arg}: variables outside RUN are not emulated")


def plan(path):
    text = open(path, encoding="utf-8").read()
    stage = -1
    for line in logical_lines(text):
        instr, _, arg = line.partition(" ")
        instr = instr.upper()
        arg = arg.strip()
        if instr == "FROM":
            parts = arg.split()
            if len(parts) not in (1, 3) or (len(parts) == 3 and parts[1].upper() != "AS"):
                sys.exit(f"dockerfile.py: FROM {arg}: want IMAGE [AS NAME]")
            stage += 1
            print("STAGE", stage, parts[2] if len(parts) == 3 else "-", parts[0])
        elif stage < 0:
            sys.exit(f"dockerfile.py: {instr} before FROM")
        elif instr == "RUN":
            if arg.startswith("--"):
                sys.exit(f"dockerfile.py: RUN {arg.split()[0]}: RUN flags are not emulated")
            v = json_or_shell(arg)
            print("RUN", b64(v if isinstance(v, str) else " ".join(shlex.quote(x) for x in v)))
        elif instr == "WORKDIR":
            no_vars(instr, arg)
            print("WORKDIR", arg)
        elif instr == "ENV":
            no_vars(instr, arg)
            toks = shlex.split(arg)
            if toks and "=" not in toks[0]:  # legacy "ENV NAME value"
                print("ENV", toks[0], b64(arg.split(None, 1)[1] if len(toks) > 1 else ""))
            else:
                for t in toks:
                    k, _, v = t.partition("=")
                    print("ENV", k, b64(v))
        elif instr == "COPY":
            no_vars(instr, arg)
            toks = shlex.split(arg)
            src = "."
            while toks and toks[0].startswith("--"):
                flag = toks.pop(0)
                if flag.startswith("--from="):
                    src = flag[len("--from="):]
                else:
                    sys.exit(f"dockerfile.py: COPY {flag}: not emulated")
            if len(toks) < 2:
                sys.exit(f"dockerfile.py: COPY {arg}: want SRC... DEST")
            print("COPY", src, b64(json.dumps(toks)))
        elif instr in ("USER", "EXPOSE", "VOLUME"):
            v = json_or_shell(arg)
            print(instr, v if isinstance(v, str) else " ".join(v))
        elif instr == "HEALTHCHECK":
            opts = {}
            toks = arg.split()
            while toks and toks[0].startswith("--"):
                k, _, v = toks.pop(0)[2:].partition("=")
                opts[k] = v
            rest = " ".join(toks)
            if rest.upper() == "NONE":
                cmd = None
            elif rest.upper().startswith("CMD "):
                cmd = json_or_shell(rest[4:])
            else:
                sys.exit(f"dockerfile.py: HEALTHCHECK {arg}: want [OPTIONS] CMD ... or NONE")
            print("HEALTHCHECK", b64(json.dumps({"options": opts, "cmd": cmd})))
        elif instr in ("ENTRYPOINT", "CMD"):
            print(instr, b64(json.dumps(json_or_shell(arg))))
        elif instr in ("LABEL", "STOPSIGNAL"):
            pass  # metadata only
        else:
            sys.exit(f"dockerfile.py: {instr}: not emulated by this check")


def ignore_rules(src):
    rules = []
    p = os.path.join(src, ".dockerignore")
    if os.path.exists(p):
        for line in open(p, encoding="utf-8"):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            neg = line.startswith("!")
            pat = os.path.normpath(line[1:] if neg else line).lstrip("/")
            rules.append((neg, pat))
    return rules


def pattern_match(pat, rel):
    """Docker's match: `**` spans elements, `*`/`?` stay within one."""
    rx = ""
    i = 0
    while i < len(pat):
        if pat.startswith("**", i):
            rx += ".*"
            i += 2
            if pat.startswith("/", i):
                rx = rx[:-2] + "(.*/)?"
                i += 1
        else:
            c = pat[i]
            rx += "[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c)
            i += 1
    return re.fullmatch(rx, rel) is not None


def excluded(rules, rel):
    # A path is excluded when it or one of its parent directories is.
    parts = rel.split("/")
    state = False
    for neg, pat in rules:
        for k in range(1, len(parts) + 1):
            if pattern_match(pat, "/".join(parts[:k])):
                state = not neg
                break
    return state


def context(src, dest):
    rules = ignore_rules(src)
    n = 0
    for dirpath, dirnames, filenames in os.walk(src):
        reldir = os.path.relpath(dirpath, src)
        reldir = "" if reldir == "." else reldir
        keep = []
        for d in dirnames:
            rel = os.path.join(reldir, d)
            # Descend into an excluded directory only if a `!` rule may
            # re-include something below it.
            if not excluded(rules, rel) or any(neg and p.startswith(rel + "/") for neg, p in rules):
                keep.append(d)
        dirnames[:] = keep
        for f in filenames:
            rel = os.path.join(reldir, f)
            if excluded(rules, rel):
                continue
            s, d = os.path.join(src, rel), os.path.join(dest, rel)
            os.makedirs(os.path.dirname(d), exist_ok=True)
            if os.path.islink(s):
                os.symlink(os.readlink(s), d)
            else:
                shutil.copy2(s, d)
            n += 1
    print(n)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "plan":
        plan(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "context":
        context(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
