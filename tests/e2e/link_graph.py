#!/usr/bin/python3
"""The link graph of the built archives: `link_graph.py ARCHIVE...` prints
one line per problem and exits 1 when there is one:
  - `duplicate NAME: A, B`  a global function or object defined in more than
    one member of the archives (a program would silently link one of them);
  - `circle A -> B -> ... -> A`  source files that call each other round a
    circle (a file-level cycle of calls, from each member's undefined symbols
    to the member that defines them).
tests/e2e/test_layers.sh runs it on build/libelectra*.a."""
import collections
import subprocess
import sys


def symbols(archives):
    """(defined name -> [members], member -> set of undefined names)"""
    defs, uses = collections.defaultdict(list), collections.defaultdict(set)
    for lib in archives:
        out = subprocess.run(["nm", "-A", lib], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            # "LIB:MEMBER:ADDRESS T name", or "LIB:MEMBER: U name" for an undefined one
            parts = line.split()
            if len(parts) != 3:
                continue
            member = f"{lib.rsplit('/', 1)[-1]}({parts[0].split(':')[1]})"
            if parts[1] in "TDBRV":
                defs[parts[2]].append(member)
            elif parts[1] == "U":
                uses[member].add(parts[2])
    return defs, uses


def circles(graph):
    """strongly connected components of more than one member (Tarjan)"""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(100000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main(archives):
    defs, uses = symbols(archives)
    problems = [f"duplicate {name}: {', '.join(sorted(m))}" for name, m in sorted(defs.items())
                if len(m) > 1]
    graph = collections.defaultdict(set)
    for member, names in uses.items():
        for name in names:
            for d in defs.get(name, []):
                if d != member:
                    graph[member].add(d)
    problems += ["circle " + " <-> ".join(c) for c in circles(graph)]
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
