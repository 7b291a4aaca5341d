#!/usr/bin/env python3
"""Checks that src/'s modules import each other without a circle.

Reads every `crate::a::b` path in src/ (use lines and inline paths alike),
maps it to the top-level module it names (`campaign`, `config`, `executor`,
...), and prints the layers in import order. Exits 1, naming the modules and
one file:line per edge, when the graph between top-level modules has a cycle.
A module's own files (`campaign.rs` and `campaign/*.rs`) are one node; the
re-exported crates (`parser`, `tx`, `appendvec`, `priority`) are leaves.

Usage: python3 scripts/imports.py [--verbose]
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
PATH = re.compile(r"\bcrate::([a-z_][a-z0-9_]*)")
USE_GROUP = re.compile(r"\buse crate::\{([^;]*)\}", re.S)


def module_of(rel):
    first = rel.split(os.sep)[0]
    return first[:-3] if first.endswith(".rs") else first


def edges():
    found = {}
    for dirpath, _, files in os.walk(ROOT):
        for f in files:
            if not f.endswith(".rs"):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, ROOT)
            if rel in ("lib.rs", "main.rs"):
                continue
            src = open(path, encoding="utf-8").read()
            # Tests may reach anywhere: they are not layers.
            cut = src.find("#[cfg(test)]")
            if cut >= 0:
                src = src[:cut]
            # Comments (doc links included) are not imports.
            src = re.sub(r"//[^\n]*", "", src)
            me = module_of(rel)
            targets = []
            for m in PATH.finditer(src):
                targets.append((m.group(1), m.start()))
            for m in USE_GROUP.finditer(src):
                for name in re.findall(r"(?:^|[,{\s])([a-z_][a-z0-9_]*)(?=::|\s*[,}]|$)", m.group(1)):
                    targets.append((name, m.start()))
            for target, at in targets:
                if target == me or target in ("self", "super"):
                    continue
                line = src.count("\n", 0, at) + 1
                found.setdefault((me, target), f"src/{rel}:{line}")
    return found


def main():
    e = edges()
    nodes = sorted({a for a, _ in e} | {b for _, b in e})
    graph = {n: sorted(b for a, b in e if a == n) for n in nodes}
    # Tarjan's strongly connected components.
    index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
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
            sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for n in nodes:
        if n not in index:
            visit(n)
    cycles = [c for c in sccs if len(c) > 1]
    if "--verbose" in sys.argv or cycles:
        for a, b in sorted(e):
            print(f"{a} -> {b}  ({e[(a, b)]})")
    if cycles:
        for c in cycles:
            print("import circle: " + " <-> ".join(c))
            for a in c:
                for b in graph[a]:
                    if b in c:
                        print(f"  {a} -> {b}  ({e[(a, b)]})")
        return 1
    # Tarjan emits components leaves first: that is the layer order.
    print("no import circle between src/'s modules; layers, lowest first:")
    print("  " + " < ".join(c[0] for c in sccs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
