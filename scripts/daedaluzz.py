#!/usr/bin/env python3
"""Daedaluzz mazes (Consensys' public maze benchmark), read for scripts/maze_bench.sh.

The mazes are not ours: the script reads a checkout given by path and writes nothing
into it. Three verbs:

  feasible MAZE.sol           the maze's sites (its `emit AssertionFailed("K")` cells), one
                              JSON object: {"sites": [...], "feasible": [...], "walls": N}.
                              A site is feasible when its cell can be walked to from (0, 0)
                              around the walls and its path condition has a solution in
                              64-bit unsigned arithmetic (decided by z3, exactly: the maze's
                              `unchecked` uint64 expressions are bit-vector terms).
  lcov-sites LCOV MAZE.sol    the sites whose emit line LCOV shows executed (Echidna's own
                              way of counting a maze in exploration mode), as JSON.
  forge-sites OUTPUT...       the sites whose invariant_K forge reported failing in
                              `forge test` outputs, as JSON.
  timeline-sites TIMELINE MAZE.sol
                              when rudder first reached each site: {site: seconds}, from
                              `rudder fuzz --timeline` (the emit line's first-reach time).
  forge-times OUTPUT...       when forge first reported each site failing: {site: seconds},
                              from outputs whose lines maze_bench.sh prefixed with `@SECS `
                              (seconds since the tool started) as forge printed them.

Needs z3 (`z3-solver` from PyPI) for `feasible` only; scripts/maze_bench.sh installs it
into the project's venv.
"""

import json
import re
import sys
from collections import deque

CELL = re.compile(r"^\s*if \(x == (\d+) && y == (\d+)\) \{$")
COND = re.compile(r"^\s*if \((.*)\) \{$")
SITE = re.compile(r'emit AssertionFailed\("(\d+)"\)')
WALL = re.compile(r"require\(false\);\s*// wall")
CLOSE = re.compile(r"^\s*\}$")


def parse(path):
    """Cells, walls and each site's (cell, conditions) of a plain (non-foundry) maze."""
    cells, walls, sites = set(), set(), {}
    cell, conds, depth_of_cell = None, [], None
    depth = 0
    for line in open(path, encoding="utf-8"):
        m = CELL.match(line)
        if m:
            cell = (int(m[1]), int(m[2]))
            cells.add(cell)
            conds, depth_of_cell = [], depth
            depth += 1
            continue
        if cell is not None:
            m = COND.match(line)
            if m:
                conds.append(m[1])
                depth += 1
                continue
            m = SITE.search(line)
            if m:
                sites[int(m[1])] = (cell, list(conds))
                continue
            if WALL.search(line):
                walls.add(cell)
                continue
            if CLOSE.match(line):
                depth -= 1
                if depth == depth_of_cell:
                    cell = None
                else:
                    conds.pop()
    return cells, walls, sites


def reachable(cells, walls):
    """Cells a walk from (0, 0) reaches: a move into a wall reverts."""
    seen, todo = {(0, 0)}, deque([(0, 0)])
    while todo:
        x, y = todo.popleft()
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            c = (nx, ny)
            if c in cells and c not in walls and c not in seen:
                seen.add(c)
                todo.append(c)
    return seen


def term(tokens, z3, params):
    """One operand: pK, NUMBER, or uint64(EXPR) where EXPR is `A op B` or an operand."""
    t = tokens.pop(0)
    if t.startswith("p"):
        return params[int(t[1:])]
    if t.isdigit():
        return z3.BitVecVal(int(t), 64)
    if t == "uint64":
        assert tokens.pop(0) == "("
        a = term(tokens, z3, params)
        if tokens[0] in ("+", "*", "-"):
            op = tokens.pop(0)
            b = term(tokens, z3, params)
            a = {"+": a + b, "*": a * b, "-": a - b}[op]
        assert tokens.pop(0) == ")"
        return a
    raise ValueError(f"unexpected token {t!r}")


def condition(text, z3, params):
    tokens = re.findall(r"p\d+|\d+|uint64|[()+*-]|[<>!=]=|[<>]", text)
    a = term(tokens, z3, params)
    op = tokens.pop(0)
    b = term(tokens, z3, params)
    if tokens:
        raise ValueError(f"left over in {text!r}: {tokens}")
    return {
        "<": z3.ULT(a, b),
        "<=": z3.ULE(a, b),
        ">": z3.UGT(a, b),
        ">=": z3.UGE(a, b),
        "==": a == b,
        "!=": a != b,
    }[op]


def feasible(path):
    import z3

    cells, walls, sites = parse(path)
    reach = reachable(cells, walls)
    params = [z3.BitVec(f"p{i}", 64) for i in range(8)]
    ok, undecided, witness = [], [], {}
    for k, (cell, conds) in sorted(sites.items()):
        if cell not in reach:
            continue
        terms = [condition(c, z3, params) for c in conds]
        # Small arguments first (a model there is a witness; bit-blasting 64-bit
        # products is what makes the unbounded query slow), then the exact question.
        small = [z3.ULT(p, 1 << 12) for p in params]
        answer = None
        for extra, ms in ((small, 30_000), ([], 300_000)):
            s = z3.SolverFor("QF_BV")
            s.set("timeout", ms)
            s.add(*terms, *extra)
            answer = s.check()
            if answer == z3.sat:
                m = s.model()
                witness[k] = [m.eval(p, model_completion=True).as_long() for p in params]
                break
            if answer == z3.unsat and not extra:
                break
        if answer == z3.sat:
            ok.append(k)
        elif answer == z3.unknown:
            undecided.append(k)
    return {"sites": sorted(sites), "feasible": ok, "undecided": undecided,
            "walls": len(walls), "witness": witness}


def lcov_sites(lcov, maze):
    """Sites whose emit line has a non-zero DA count in the record of MAZE's file."""
    lines = site_lines(maze)
    name = maze.rsplit("/", 1)[-1]
    hit, current = set(), None
    for line in open(lcov, encoding="utf-8"):
        line = line.strip()
        if line.startswith("SF:"):
            current = line[3:]
        elif line.startswith("DA:") and current and current.rsplit("/", 1)[-1] == name:
            n, count = line[3:].split(",")[:2]
            if int(count) > 0 and int(n) in lines:
                hit.add(lines[int(n)])
    return sorted(hit)


# The summary's `[FAIL: …] invariant_K()` and the live `"event":"failure"` lines forge 1.7
# prints as each campaign breaks (a run cut by the time limit has no summary).
FORGE_FAIL = (
    re.compile(r"\[FAIL[^\n]*\][^\n]*invariant_(\d+)\(\)"),
    re.compile(r'"event":"failure","invariant":"invariant_(\d+)"'),
)


def forge_sites(outputs):
    hit = set()
    for out in outputs:
        text = open(out, encoding="utf-8", errors="replace").read()
        for pattern in FORGE_FAIL:
            hit.update(int(k) for k in pattern.findall(text))
    return sorted(hit)


def site_lines(maze):
    """{emit line number: site} of a maze source."""
    lines = {}
    for n, line in enumerate(open(maze, encoding="utf-8"), 1):
        m = SITE.search(line)
        if m:
            lines[n] = int(m[1])
    return lines


def timeline_sites(timeline, maze):
    """{site: seconds} from rudder's --timeline: when its emit line first ran."""
    lines, name = site_lines(maze), maze.rsplit("/", 1)[-1]
    times = {}
    for entry in json.load(open(timeline, encoding="utf-8"))["lines"]:
        if entry["file"].rsplit("/", 1)[-1] == name and entry["line"] in lines:
            site = lines[entry["line"]]
            times[site] = min(times.get(site, entry["secs"]), entry["secs"])
    return dict(sorted(times.items()))


def forge_times(outputs):
    """{site: seconds} from forge outputs whose lines start with `@SECS `."""
    times = {}
    for out in outputs:
        for line in open(out, encoding="utf-8", errors="replace"):
            stamp, _, rest = line.partition(" ")
            if not stamp.startswith("@"):
                continue
            secs = float(stamp[1:])
            for pattern in FORGE_FAIL:
                for k in pattern.findall(rest):
                    times[int(k)] = min(times.get(int(k), secs), secs)
    return dict(sorted(times.items()))


def main(argv):
    if len(argv) >= 2 and argv[0] == "feasible":
        print(json.dumps(feasible(argv[1])))
    elif len(argv) == 3 and argv[0] == "lcov-sites":
        print(json.dumps(lcov_sites(argv[1], argv[2])))
    elif len(argv) >= 2 and argv[0] == "forge-sites":
        print(json.dumps(forge_sites(argv[1:])))
    elif len(argv) == 3 and argv[0] == "timeline-sites":
        print(json.dumps(timeline_sites(argv[1], argv[2])))
    elif len(argv) >= 2 and argv[0] == "forge-times":
        print(json.dumps(forge_times(argv[1:])))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
