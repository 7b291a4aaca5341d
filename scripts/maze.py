#!/usr/bin/env python3
"""Seeded generator of maze contracts for the search-power benchmark (#16).

A maze is a grid with walls and a position (x, y) starting at (0, 0). Four
moves (north, south, east, west) each take typed parameters behind one guard
and step into the next cell unless it is a wall or off the grid. Bug cells
are probes `probeK(...)`: at their cell, behind 1 to 4 nested guards over
typed parameters (ranges, equalities to constants, offsets, multiples,
orderings between parameters, sums, products, residues with a bound,
negative bounds, wrap-around near 2^64, booleans), they set bit K of `bugs`;
`echidna_bug_K()` returns false once it is set (Echidna's and forge's
convention alike). With `--assert` a bug cell is `assert(false)` instead
(no flags, no properties: for assertion mode, where each probe is a test). Some bugs are infeasible by construction: their cell is
walled off, or one guard can never hold.

The generator is reproducible from its seed: `maze.py SEED` prints the same
Solidity every time; `--manifest` prints the JSON manifest (cells, guards,
which bugs are feasible and why not).

usage: maze.py SEED [--size N] [--bugs K] [--assert] [--manifest] [--out DIR]
"""
import argparse
import json
import os
import random
from collections import deque

U64_MAX = 2**64 - 1


class Guard:
    """One guard: Solidity condition, parameters it declares, feasibility."""

    def __init__(self, cond, params, feasible=True, kind=""):
        self.cond = cond
        self.params = params  # [(type, name)]
        self.feasible = feasible
        self.kind = kind


def guard(rng, prefix, infeasible=False):
    """A random guard over fresh parameters named `prefix`0, `prefix`1, ..."""
    p, q = prefix + "0", prefix + "1"
    if infeasible:
        c = rng.randrange(10, 200)
        return Guard(f"{p} > {c} && {p} < {c + 1}", [("uint8", p)], False, "empty range")
    kind = rng.choice(
        [
            "range", "eq", "negative", "offset", "multiple", "between", "sum",
            "product", "residue", "wrap", "bool",
        ]
    )
    if kind == "range":
        bits = rng.choice([8, 16, 32])
        lo = rng.randrange(0, 2**bits - 64)
        w = rng.randrange(3, 40)
        return Guard(f"{p} > {lo} && {p} < {lo + w}", [(f"uint{bits}", p)], kind=kind)
    if kind == "eq":
        bits = rng.choice([16, 32, 64, 128])
        c = rng.randrange(1, 2**bits)
        return Guard(f"{p} == {c}", [(f"uint{bits}", p)], kind=kind)
    if kind == "negative":
        bits = rng.choice([16, 32, 64])
        c = rng.randrange(100, 2 ** (bits - 2))
        return Guard(f"{p} < -{c}", [(f"int{bits}", p)], kind=kind)
    if kind == "offset":
        k = rng.randrange(1, 10**6)
        return Guard(
            f"{q} < 2**32 && {p} == {q} + {k}", [("uint64", p), ("uint64", q)], kind=kind
        )
    if kind == "multiple":
        m = rng.randrange(3, 5000)
        t = rng.randrange(20, 200)
        # The multiple clashes with a bound on the factor checked after it.
        return Guard(
            f"{p} == uint64({q}) * {m} + 7 && {q} >= {t}", [("uint64", p), ("uint8", q)],
            kind=kind,
        )
    if kind == "between":
        d = rng.randrange(1000, 10**9)
        return Guard(
            f"{p} > {q} && {p} - {q} < {d} && {q} > {d}",
            [("uint64", p), ("uint64", q)], kind=kind,
        )
    if kind == "sum":
        c = rng.randrange(2**20, 2**33)
        return Guard(
            f"uint64({p}) + uint64({q}) == {c}", [("uint32", p), ("uint32", q)], kind=kind
        )
    if kind == "product":
        a, b = rng.randrange(2, 2**16), rng.randrange(2, 2**16)
        return Guard(
            f"uint32({p}) * uint32({q}) == {a * b} && {p} > 1 && {q} > 1",
            [("uint16", p), ("uint16", q)], kind=kind,
        )
    if kind == "residue":
        m = rng.randrange(7, 2000)
        r = rng.randrange(0, m)
        b = rng.randrange(10**6, 10**15)
        return Guard(f"{p} % {m} == {r} && {p} > {b}", [("uint64", p)], kind=kind)
    if kind == "wrap":
        k = rng.randrange(2, 1000)
        return Guard(f"{p} > {U64_MAX - k}", [("uint64", p)], kind=kind)
    return Guard(f"{'' if rng.random() < 0.5 else '!'}{p}", [("bool", p)], kind="bool")


def generate(seed, size, bugs):
    rng = random.Random(seed)
    walls = set()
    for x in range(size):
        for y in range(size):
            if (x, y) != (0, 0) and rng.random() < 0.22:
                walls.add((x, y))
    # Reachable cells (breadth first from the start).
    seen = {(0, 0)}
    todo = deque([(0, 0)])
    while todo:
        x, y = todo.popleft()
        for dx, dy in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            n = (x + dx, y + dy)
            if 0 <= n[0] < size and 0 <= n[1] < size and n not in walls and n not in seen:
                seen.add(n)
                todo.append(n)
    moves = []
    for name, dx, dy in (("north", 0, 1), ("south", 0, -1), ("east", 1, 0), ("west", -1, 0)):
        g = guard(rng, "m")
        while g.kind in ("product", "between", "multiple"):
            g = guard(rng, "m")
        moves.append((name, dx, dy, g))
    free = [c for c in sorted(seen) if c != (0, 0)]
    walled = [(x, y) for x in range(size) for y in range(size) if (x, y) not in seen and (x, y) not in walls]
    probes = []
    for k in range(bugs):
        # One bug in six is infeasible: an unreachable cell or an empty guard.
        infeasible = rng.random() < 1 / 6
        if infeasible and walled and rng.random() < 0.5:
            cell, why = rng.choice(walled), "cell walled off"
            empty = False
        else:
            cell = rng.choice(free or [(0, 0)])
            why, empty = ("a guard can never hold", True) if infeasible else (None, False)
        n = rng.randrange(1, 5)
        guards = [guard(rng, f"g{i}_") for i in range(n)]
        if empty:
            guards.insert(rng.randrange(0, n + 1), guard(rng, f"g{n}_", infeasible=True))
        probes.append({"cell": cell, "guards": guards, "why": why})
    return walls, seen, moves, probes


def solidity(seed, size, walls, moves, probes, asserts=False):
    wall_bits = sum(1 << (y * size + x) for (x, y) in walls)
    name = f"Maze{seed}"
    out = [
        "// SPDX-License-Identifier: MIT",
        f"// Generated by scripts/maze.py {seed} --size {size} --bugs {len(probes)}"
        + (" --assert" if asserts else "")
        + ": do not edit.",
        "pragma solidity ^0.8.0;",
        "",
        f"contract {name} {{",
        "    uint8 public x;",
        "    uint8 public y;",
        *([] if asserts else ["    uint256 public bugs;"]),
        f"    uint256 constant WALLS = {hex(wall_bits)};",
        f"    uint8 constant SIZE = {size};",
        "",
        "    function step(int8 dx, int8 dy) internal {",
        "        int16 nx = int16(uint16(x)) + dx;",
        "        int16 ny = int16(uint16(y)) + dy;",
        "        if (nx < 0 || ny < 0 || nx >= int16(uint16(SIZE)) || ny >= int16(uint16(SIZE))) return;",
        "        uint256 cell = uint256(uint16(ny)) * SIZE + uint256(uint16(nx));",
        "        if ((WALLS >> cell) & 1 == 1) return;",
        "        x = uint8(uint16(nx));",
        "        y = uint8(uint16(ny));",
        "    }",
        "",
    ]
    for name_, dx, dy, g in moves:
        params = ", ".join(f"{t} {n}" for t, n in g.params)
        out += [
            f"    function {name_}({params}) public {{",
            f"        if ({g.cond}) step({dx}, {dy});",
            "    }",
            "",
        ]
    for k, p in enumerate(probes):
        params = ", ".join(f"{t} {n}" for g in p["guards"] for t, n in g.params)
        cx, cy = p["cell"]
        out.append(f"    function probe{k}({params}) public {{")
        out.append(f"        if (x != {cx} || y != {cy}) return;")
        depth = 2
        for g in p["guards"]:
            out.append("    " * depth + f"if ({g.cond}) {{")
            depth += 1
        out.append("    " * depth + ("assert(false);" if asserts else f"bugs |= {1 << k};"))
        for d in range(depth - 1, 1, -1):
            out.append("    " * d + "}")
        out += ["    }", ""]
    for k in range(0 if asserts else len(probes)):
        out += [
            f"    function echidna_bug_{k}() public view returns (bool) {{",
            f"        return bugs & {1 << k} == 0;",
            "    }",
            "",
        ]
    out[-1] = "}"
    return name, "\n".join(out) + "\n"


def manifest(seed, size, walls, seen, moves, probes, asserts=False):
    bugs = []
    for k, p in enumerate(probes):
        feasible = p["why"] is None
        bugs.append(
            {
                # The test that fails at the bug: the property, or the
                # probe's own assertion test (named by its signature).
                "property": None if asserts else f"echidna_bug_{k}",
                "probe": f"probe{k}",
                "cell": list(p["cell"]),
                "feasible": feasible,
                "why_not": p["why"],
                "guards": [g.kind or "empty range" for g in p["guards"]],
            }
        )
    return {
        "seed": seed,
        "size": size,
        "walls": sorted(list(w) for w in walls),
        "reachable_cells": len(seen),
        "moves": {m[0]: m[3].kind for m in moves},
        "bugs": bugs,
        "feasible": sum(b["feasible"] for b in bugs),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--size", type=int, default=5)
    ap.add_argument("--bugs", type=int, default=12)
    ap.add_argument("--assert", dest="asserts", action="store_true",
                    help="assert(false) at bug cells instead of flags and echidna_bug_K properties")
    ap.add_argument("--manifest", action="store_true", help="print the manifest instead")
    ap.add_argument("--out", help="write MazeSEED.sol and MazeSEED.json into this directory")
    a = ap.parse_args()
    if not 2 <= a.size <= 15:
        ap.error("--size: between 2 and 15 (the walls are one 256-bit word)")
    if not 1 <= a.bugs <= 255:
        ap.error("--bugs: between 1 and 255")
    walls, seen, moves, probes = generate(a.seed, a.size, a.bugs)
    name, sol = solidity(a.seed, a.size, walls, moves, probes, a.asserts)
    man = manifest(a.seed, a.size, walls, seen, moves, probes, a.asserts)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, f"{name}.sol"), "w") as f:
            f.write(sol)
        with open(os.path.join(a.out, f"{name}.manifest.json"), "w") as f:
            json.dump(man, f, indent=1)
            f.write("\n")
    elif a.manifest:
        print(json.dumps(man, indent=1))
    else:
        print(sol, end="")


if __name__ == "__main__":
    main()
