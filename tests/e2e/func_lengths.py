#!/usr/bin/python3
"""Function lengths of C sources: `func_lengths.py N DIR...` prints, one a line,
`LINES FILE:LINE NAME REASON` for every function longer than N lines in DIR/*.c
and DIR/*.h, where REASON is `stated` when a comment in the 15 lines above it
says "Long because", else `unstated` (tests/e2e/test_layers.sh fails on those).

A function is a brace block at file level whose head ends in `)`; comments,
strings, character constants and preprocessor lines are blanked first (line
numbers kept), so braces inside them do not count."""
import glob
import re
import sys


def blank(src):
    """comments, strings and character constants in one pass (a "/*" inside
    a string is not a comment), then preprocessor lines"""
    token = re.compile(r"""/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'""", re.S)
    src = token.sub(lambda m: "\n" * m.group(0).count("\n") if m.group(0)[0] == "/" else '""', src)
    return re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", lambda m: "\n" * m.group(0).count("\n"), src,
                  flags=re.M)


def functions(path):
    """(first line, last line, name) of each function of the file"""
    src = blank(open(path, errors="replace").read())
    depth, line, head, opened = 0, 1, "", None
    for ch in src:
        if ch == "\n":
            line += 1
        if depth == 0:
            if ch == "{":
                h = head.strip()
                names = re.findall(r"([A-Za-z_]\w*)\s*\(", h)
                is_fn = h.endswith(")") and names and "=" not in h.split("(")[0]
                opened = (line - h.count("\n"), names[0]) if is_fn else None
                depth = 1
            elif ch in ";}":
                head = ""
            else:
                head += ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                if opened:
                    yield opened[0], line, opened[1]
                head, opened = "", None


def main():
    limit = int(sys.argv[1])
    for d in sys.argv[2:]:
        for path in sorted(glob.glob(d + "/*.c") + glob.glob(d + "/*.h")):
            text = open(path, errors="replace").read().split("\n")
            for first, last, name in functions(path):
                n = last - first + 1
                if n > limit:
                    above = "\n".join(text[max(0, first - 16):first - 1])
                    why = "stated" if "Long because" in above else "unstated"
                    print(f"{n} {path}:{first} {name} {why}")


if __name__ == "__main__":
    main()
