#!/usr/bin/env python3
"""How many of Echidna's own test cases does rudder match?

Parses the cases in an Echidna checkout's src/test/Tests/*.hs (Common.hs's
testContract, testContractV, testContract', testContractNamed and
checkConstructorConditions, with expectations such as solved, passed,
solvedLen, solvedWith, optimized), runs `rudder fuzz` on each case's contract
in tests/solidity/ and checks the expectations against rudder's JSON report.

    python3 scripts/echidna_cases.py ECHIDNA_CHECKOUT [--solc 0.8.25] [--only basic/]

Echidna is AGPL: its checkout is fetched for measurement only and never
committed; nothing of it is copied here. Solc is npm's solc@VERSION, installed
once in ${XDG_CACHE_HOME:-~/.cache}/rudder/echidna-cases/solc-VERSION; each
case runs in a fresh temporary directory linking its node_modules (rudder
compiles with ./node_modules/solc first) and tests/solidity's folders, so that
configs' relative paths resolve as under Echidna. Standard library only.
"""
import argparse
import ast
import functools
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, namedtuple
from dataclasses import dataclass
from pathlib import Path

# Common.hs's case helpers and their parameters, in order.
CASE_ARGS = {"testContract": ("fp", "cfg", "exps"), "testContractV": ("fp", "v", "cfg", "exps"),
             "testContract'": ("fp", "n", "v", "cfg", "s", "w", "exps"),
             "testContractNamed": ("label", "fp", "n", "v", "cfg", "s", "w", "exps"),
             "checkConstructorConditions": ("fp", "msg")}
# Echidna's built-in call tests, which rudder reports as one test per function.
ALIASES = {"AssertionFailed(..)": lambda t: t["kind"] == "assertion" and "AssertionFailed" in t.get("reason", ""),
           "Integer (over/under)flow": lambda t: t["kind"] == "overflow"}
TEST_PREDICATES = {"solved": 1, "passed": 1, "verified": 1, "notPresent": 1, "solvedLen": 2,
                   "solvedWith": 2, "solvedWithout": 2, "solvedUsing": 2, "optimized": 2}
GRACE = 90  # seconds past --timeout before a run is killed (compiling, last shrinking)
MATCH, MISS, UNSUPPORTED, SKIP = "MATCH", "MISS", "UNSUPPORTED", "SKIP"
log = functools.partial(print, file=sys.stderr, flush=True)  # progress

# ------------------------------------------------------- a subset of Haskell
Tok = namedtuple("Tok", "kind val line col")  # keywords and punctuation are their own kinds
Group = namedtuple("Group", "kind items line col")  # a bracketed part: "(", "[" or "{"
Val = namedtuple("Val", "value")  # a part already evaluated
Guard = namedtuple("Guard", "desc pred then")  # `if c then t else …` whose c was not evaluated
KEYWORDS = {"if", "then", "else", "where", "do", "case", "of", "let", "in"}
CMPS = {"==", "/=", "<", "<=", ">", ">="}
OPS = {"$": (0, "r"), "&": (1, "l"), "<&>": (1, "l"), ">>=": (1, "l"), "=<<": (1, "r"), "||": (2, "r"),
       "&&": (3, "r"), **{c: (4, "l") for c in CMPS}, "<$>": (4, "l"), "++": (5, "r"), ":": (5, "r"),
       "<>": (6, "r"), "+": (6, "l"), "-": (6, "l"), "*": (7, "l"), ".": (9, "r")}
RESERVED = {"=", "->", "<-", "|", "=>", "@", "~"}
SYM = r"-!#$%&*+./<=>?@\\^|~:"
TOKEN = re.compile(rf"""(?P<ws>\s+|--+(?![{SYM}])[^\n]*|\{{-.*?-\}}) | (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<char>'(?:[^'\\]|\\[^']+)') | (?P<num>0[xX][0-9a-fA-F]+|\d+(?:\.\d+)?)
  | (?P<id>[A-Za-z_][\w']*(?:\.[A-Za-z_][\w']*)*) | (?P<tick>`[\w.']+`) | (?P<sym>[{SYM}]+)
  | (?P<punct>[()\[\]{{}},;])""", re.X | re.S)
ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "&": ""}
EVAL_ERRORS = (TypeError, ValueError, IndexError, KeyError, RecursionError)  # Haskell not understood


@dataclass
class App:
    """An unknown function or constructor applied to arguments (test helpers, expectations, Just, SolCall)."""
    name: str
    args: tuple = ()
    line: int = 0


def unescape(s):
    """A Haskell string literal's body, its escapes decoded."""
    return re.sub(r"\\(x[0-9a-fA-F]+|\d+|.)", lambda m: chr(int(m[1][1:], 16) if m[1][0] == "x" else int(m[1]))
                  if re.match(r"x[0-9a-fA-F]|\d", m[1]) else ESCAPES.get(m[1], m[1]), s)


def tokenize(text):
    """Tokens nested at brackets: a list of Tok and Group. Block comments do not nest."""
    stack, i = [Group("", [], 0, 0)], 0
    while i < len(text):
        m, line, col = TOKEN.match(text, i), text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i) - 1
        if not m:
            raise ValueError(f"line {line}: unexpected {text[i]!r}")
        kind, val, i = m.lastgroup, m.group(), m.end()
        if kind in ("str", "char"):
            kind, val = "str", unescape(val[1:-1])
        elif kind == "num":
            val = float(val) if "." in val else int(val, 0 if val[1:2] in "xX" else 10)
        elif kind in ("tick", "sym"):
            kind, val = ("lam", val) if val == "\\" else ("op", val.strip("`"))
        elif kind == "punct" or val in KEYWORDS:
            kind = val
        if kind in ("(", "[", "{"):
            stack.append(Group(kind, [], line, col))
        elif kind in (")", "]", "}"):
            if "([{"[")]}".index(kind)] != stack[-1].kind:
                raise ValueError(f"line {line}: unbalanced {kind!r}")
            stack[-2].items.append(stack.pop())
        elif kind != "ws":
            stack[-1].items.append(Tok(kind, val, line, col))
    if len(stack) > 1:
        raise ValueError(f"line {stack[-1].line}: {stack[-1].kind!r} not closed")
    return stack[0].items


def text(items):
    out = " ".join(x.kind + text(x.items) + ")]}"["([{".index(x.kind)] if isinstance(x, Group)
                   else json.dumps(x.val) if x.kind == "str" else str(x.val) for x in items)
    return re.sub(r"(?<=[(\[\\]) | (?=[)\],])", "", out)


def fn(f, src=""):
    """A Haskell function value: a Python function of one argument."""
    f.src = src
    return f


def render(v):
    if isinstance(v, App):
        return " ".join([v.name] + [f"({render(a)})" if isinstance(a, App) and a.args or isinstance(a, int) and a < 0
                                    else render(a) for a in v.args])
    if callable(v):
        return getattr(v, "src", "") or "<function>"
    if isinstance(v, (tuple, list)):
        return ("({})" if isinstance(v, tuple) else "[{}]").format(", ".join(map(render, v)))
    return json.dumps(v) if isinstance(v, str) else str(v)


def apply(f, x):
    if isinstance(f, App):
        return App(f.name, f.args + (x,), f.line)
    if callable(f):
        return f(x)
    raise ValueError(f"cannot apply {render(f)}")


def fmap(f, x):
    if isinstance(x, list):
        return [apply(f, v) for v in x]
    if isinstance(x, App) and x.name in ("Just", "Nothing"):
        return App(x.name, tuple(apply(f, v) for v in x.args), x.line)
    return App("fmap", (f, x))


def binop(op, a, b):
    same = type(a) is type(b) and type(a) in (int, str, tuple, list, bool)
    if op in ("$", "&"):
        return apply(a, b) if op == "$" else apply(b, a)
    if op in (".", "<$>", "<&>"):
        return fn(lambda x: apply(a, apply(b, x))) if op == "." else fmap(a, b) if op == "<$>" else fmap(b, a)
    if op in ("++", "&&", "||") and same and type(a) in ((list, str) if op == "++" else (bool,)):
        return a + b if op == "++" else a and b if op == "&&" else a or b
    if op in CMPS and same:
        return {"==": a == b, "/=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    return [a] + b if op == ":" and isinstance(b, list) else App(op, (a, b))


BUILTINS = {"True": True, "False": False, "Nothing": App("Nothing"), "solcV": fn(lambda v: v),
            "unpack": fn(lambda x: x), "pack": fn(lambda x: x), "id": fn(lambda x: x),
            "map": fn(lambda f: fn(lambda xs: fmap(f, xs))), "fmap": fn(lambda f: fn(lambda x: fmap(f, x)))}


class Module:
    """One Tests/*.hs file, evaluated on demand: application, operators, sections, lambdas, tuples,
    lists, if. do/case/let, records, where-bound names and list items that fail (comprehensions) are
    opaque; so are local functions, but those leading to a case helper (wrappers) are evaluated."""

    def __init__(self, path):
        self.decls, self.sigs, self.memo, groups = {}, {}, {}, []
        for x in tokenize(path.read_text()):
            if x.col == 0 or not groups:
                groups.append([])
            groups[-1].append(x)
        for g in groups:  # `name :: type` and `name params = body [where …]`
            eq = next((k for k, x in enumerate(g) if x.kind == "op" and x.val in ("=", "::", "|")), 0)
            if not eq or any(x.kind != "id" for x in g[:eq]) or g[eq].val == "|":
                continue
            if g[eq].val == "::" and eq == 1:
                self.sigs[g[0].val] = text(g[2:])
            elif g[eq].val == "=" and g[0].val not in self.decls:
                end = next((k for k, x in enumerate(g) if x.kind == "where"), len(g))
                self.decls[g[0].val] = ([x.val for x in g[1:eq]], g[eq + 1:end], g)
        uses = {n: set(re.findall(r"[\w']+", text(d[2]))) for n, d in self.decls.items()}
        self.inline = {n for n, u in uses.items() if u & CASE_ARGS.keys()}
        while grown := {n for n, u in uses.items() if u & self.inline} - self.inline:
            self.inline |= grown
        self.roots = [n for n, s in self.sigs.items() if s == "TestTree" and n in self.decls]

    def curry(self, params, body, env, src="", line=0):
        """A function, curried; the case a local function returns is placed at its call site (line)."""
        if params:
            return fn(lambda x: self.curry(params[1:], body, {**env, params[0]: x}, src, line), src)
        v = self.ev(body, env)
        if line and isinstance(case := v.then if isinstance(v, Guard) else v, App) and case.name in CASE_ARGS:
            case.line = line
        return v

    def lookup(self, name, env, line):
        if name in env:
            return env[name]
        params, body, _ = self.decls.get(name, (None, None, None))
        if params and name in self.inline:
            return self.curry(params, body, {}, line=line)
        if params == [] and name not in self.memo:
            self.memo[name] = self.item(body, {}, name)
        return self.memo[name] if params == [] else BUILTINS[name] if name in BUILTINS else App(name, (), line)

    def item(self, seq, env, what=None):
        """ev, an error giving an opaque value."""
        try:
            return self.ev(seq, env)
        except EVAL_ERRORS as e:
            return App(what or f"<not evaluated: {e}>", (), seq[0].line if seq else 0)

    def ev(self, seq, env):
        """The value of a sequence of tokens and groups (no top-level commas)."""
        kinds = [x.kind if isinstance(x, Tok) else "" for x in seq]
        typed = next((k for k, x in enumerate(seq) if kinds[k] == "op" and x.val == "::"), 0)
        special = next((k for k, kind in enumerate(kinds) if kind in ("lam", "if", "do", "case", "let")), None)
        if typed:  # a type annotation: dropped
            return self.ev(seq[:typed], env)
        if special:  # a lambda (or if, do …) running to the end
            return self.ev(seq[:special] + [Val(self.ev(seq[special:], env))], env)
        if special == 0 and kinds[0] == "lam":
            arrow = next((k for k, x in enumerate(seq) if kinds[k] == "op"), 0)
            if arrow < 2 or seq[arrow].val != "->" or set(kinds[1:arrow]) != {"id"}:
                return App("<lambda with patterns>", (), seq[0].line)
            return self.curry([x.val for x in seq[1:arrow]], seq[arrow + 1:], env, text(seq))
        if special == 0 and kinds[0] == "if":
            then = kinds.index("then")
            other = next(k for k in range(then, len(kinds)) if kinds[k] == "else"
                         and kinds[then:k].count("if") == kinds[then:k].count("else"))
            cond = self.ev(seq[1:then], env)
            if isinstance(cond, bool):
                return self.ev(seq[then + 1:other] if cond else seq[other + 1:], env)
            return Guard(*self.guard(text(seq[1:then])), self.ev(seq[then + 1:other], env))
        if special == 0:
            return App(f"<{kinds[0]} block>", (), seq[0].line)
        ops = [k for k in range(1, len(seq)) if kinds[k] == "op" and kinds[k - 1] != "op"]
        if any(seq[k].val in RESERVED for k in ops):
            raise ValueError(f"line {seq[0].line}: {' '.join(seq[k].val for k in ops)} not understood")
        if ops:  # split at the loosest operator: the first one if it binds to the right, else the last
            low = min(OPS.get(seq[k].val, (9, "l")) for k in ops)
            at = [k for k in ops if OPS.get(seq[k].val, (9, "l"))[0] == low[0]]
            k = at[0] if low[1] == "r" else at[-1]
            return binop(seq[k].val, self.ev(seq[:k], env), self.ev(seq[k + 1:], env))
        if kinds[0] == "op" and seq[0].val == "-":
            return -self.ev(seq[1:], env)
        return functools.reduce(lambda f, x: apply(f, self.term(x, env)), seq[1:], self.term(seq[0], env))

    def term(self, x, env):
        if isinstance(x, Val):
            return x.value
        if isinstance(x, Tok):
            if x.kind not in ("str", "num", "id"):
                raise ValueError(f"line {x.line}: unexpected {x.val!r}")
            return self.lookup(x.val, env, x.line) if x.kind == "id" else x.val
        parts = [list(p) for comma, p in itertools.groupby(x.items, lambda y: y.kind == ",") if not comma]
        if x.kind == "{":
            return App("<record>", (), x.line)
        if x.kind == "[":
            return [self.item(p, env) for p in parts]
        if len(parts) != 1:
            return tuple(self.ev(p, env) for p in parts)
        if isinstance(x.items[0], Tok) and x.items[0].kind == "op" and x.items[0].val != "-":  # (>= solcV (0,5,0))
            return fn(lambda v: binop(x.items[0].val, v, self.ev(x.items[1:], env)), text([x]))
        return self.ev(x.items, env)

    def guard(self, cond):
        """(description, solc predicate or None) of a condition such as `solc >= (0, 8, 13)`."""
        m = re.search(r"([<>=/]=?) \((\d+), (\d+), (\d+)\)", text(self.decls.get(cond, (0, 0, []))[2]))
        if not m:
            return f"{cond} (not evaluated: assumed true)", None
        want = tuple(map(int, m.groups()[1:]))
        return f"{cond}: solc {m[1]} {'.'.join(m.groups()[1:])}", fn(lambda v: binop(m[1], v, want))


def make_case(app, hs, guards):
    a = dict(zip(CASE_ARGS[app.name], app.args))

    def maybe(key):
        v = a.get(key, App("Nothing"))
        if isinstance(v, App) and v.name in ("Just", "Nothing") and len(v.args) == (v.name == "Just"):
            return v.args[0] if v.args else None
        raise ValueError(f"expected Just or Nothing, found {render(v)}")
    exps, v = a["exps"] if "exps" in a else [(a["msg"], App("constructorConditions"))], maybe("v")
    if not (isinstance(exps, list) and all(isinstance(e, tuple) and len(e) == 2 and isinstance(e[0], str)
                                           and isinstance(e[1], App) for e in exps)):
        raise ValueError(f"expectations not a list of (message, predicate): {render(exps)[:120]}")
    return {"id": f"{hs}:{app.line}", "helper": app.name, "sol": a["fp"], "contract": maybe("n"),
            "config": maybe("cfg"), "override": a.get("s", "msg" not in a),
            "worker": render(a.get("w", App("FuzzWorker"))), "exps": exps,
            "solc": ([(render(v), v)] if v is not None else []) + [(g.desc, g.pred) for g in guards if g.pred],
            "guards": [g.desc for g in guards if not g.pred]}


def collect(value, hs, guards, out):
    """The cases of a test tree; other tests become unsupported entries."""
    if isinstance(value, list):
        for v in value:
            collect(v, hs, guards, out)
    elif isinstance(value, Guard):
        collect(value.then, hs, guards + [value], out)
    elif isinstance(value, App) and value.name == "testGroup" and len(value.args) == 2:
        collect(value.args[1], hs, guards, out)
    elif isinstance(value, App) and value.name in CASE_ARGS and len(value.args) == len(CASE_ARGS[value.name]):
        try:
            out.append(make_case(value, hs, guards))
        except ValueError as e:
            out.append({"id": f"{hs}:{value.line}", "sol": "?", "exps": [], "unsupported": str(e)})
    else:
        title, line = next((a for a in getattr(value, "args", ()) if isinstance(a, str)), ""), getattr(value, "line", 0)
        out.append({"id": f"{hs}:{line}" if line else hs, "sol": title or "-", "exps": [], "unsupported":
                    f"{getattr(value, 'name', render(value))}{(' ' + json.dumps(title)) * bool(title)}: "
                    "not a testContract-style case"})


def parse_checkout(checkout):
    cases, per_file = [], {}
    for path in sorted((checkout / "src/test/Tests").glob("*.hs")):
        found = []
        try:
            module = Module(path)
            for root in module.roots:
                collect(module.lookup(root, {}, 0), path.name, [], found)
        except EVAL_ERRORS as e:
            found.append({"id": path.name, "sol": "-", "exps": [], "unsupported": f"file not parsed: {e}"})
        per_file[path.name] = {"cases": sum("unsupported" not in c for c in found),
                               "expectations": sum(len(c["exps"]) for c in found),
                               "other tests": sum("unsupported" in c for c in found)}
        cases += found
    return cases, per_file


# ------------------------------------------------------- rudder's report
RUDDER_LITERALS = re.compile(r'hex"(?P<hex>[0-9a-fA-F]*)"|(?P<str>"(?:[^"\\]|\\.)*")|\b(?P<bool>true|false)\b'
                             r'|\b[a-z]\w*(?=\()')  # see parse_call


def parse_call(call):
    """`name{from: …}(1, 0xAb…, hex"00", [2])` → (name, [values]); values None if unreadable."""
    m = re.match(r"([^({]*)(?:\{[^}]*\})?\((.*)\)$", call, re.S)

    def python(w):  # hex"00" → b"\x00", true → True, uint8(5) → (5); strings as they are
        return repr(bytes.fromhex(w["hex"])) if w["hex"] is not None else w["str"] or (w["bool"] or "").title()

    def lists(v):
        return [lists(x) for x in v] if isinstance(v, (list, tuple)) else v
    try:
        return m[1], lists(ast.literal_eval(f"[{RUDDER_LITERALS.sub(python, m[2])}]"))
    except (TypeError, ValueError, SyntaxError):
        return (m[1] if m else call), None


def abi_value(v):
    """Echidna's AbiValue as the Python value parse_call gives for it."""
    if isinstance(v, App) and len(v.args) == 2 and v.name in ("AbiUInt", "AbiInt", "AbiBytes"):
        return v.args[1] if v.name != "AbiBytes" else int.from_bytes(v.args[1].encode("latin-1"), "big")
    if isinstance(v, App) and len(v.args) == 1 and v.name in ("AbiAddress", "AbiBool", "AbiString", "AbiBytesDynamic"):
        return v.args[0].encode("latin-1") if v.name == "AbiBytesDynamic" else v.args[0]
    raise ValueError(f"cannot compare {render(v)}")


def describe(tests):
    out = " | ".join(f"{t['name']} {t['status']}" + (f" [{len(t['sequence'])}: {'; '.join(t['sequence'])}]"
                     if t["status"] in ("falsified", "shrinking") else "")
                     + (f" value {t['value']}" if t.get("value") is not None else "") for t in tests) or "absent"
    return out if len(out) < 200 else out[:197] + "..."


def check(pred, report, cwd):
    """An expectation: (True, False or None if unsupported; what rudder reported; why it misses)."""
    name, a = pred.name, pred.args
    if name == "gasConsumedGt" and len(a) == 1:
        if "totalGas" not in report:
            return None, "-", "the report has no total gas"
        gas = int(report["totalGas"])
        return gas > a[0], f"total gas {gas}", f"total gas {gas}, wanted > {a[0]}"
    if name == "countCorpus" and len(a) == 1:
        return report["corpusSequences"] == a[0], f"{report['corpusSequences']} corpus sequences", "corpus count"
    if name == "checkCoverageUsesCorpusDir" and len(a) == 1:  # the config's corpusDir, as rudder took it
        return (cwd / report["corpusDir"]).resolve() == (cwd / a[0]).resolve(), report["corpusDir"], "another corpusDir"
    if name == "constructorConditions":
        bad = [t for t in report["tests"] if t.get("foundBy") == "deployment"]
        return not bad, describe(bad) if bad else "all hold after deployment", "false after deployment"
    if TEST_PREDICATES.get(name) != len(a):
        return None, "-", f"predicate {render(pred)} not mapped"
    test = a[0] if name == "optimized" else a[-1]
    match = ALIASES.get(test) or (lambda t: test in (t["name"], t["name"].split("(")[0]))
    tests = [t for t in report["tests"] if match(t)]
    got = describe(tests) + (" (Echidna's call test, as rudder's tests per function)" if test in ALIASES else "")
    if name == "notPresent":
        return not tests, got, "test present"
    if not tests:
        return False, "absent", f"no test {test!r} (reported: {', '.join(t['name'] for t in report['tests'])})"
    seqs = [[parse_call(c) for c in t["sequence"]] for t in tests if t["status"] in ("falsified", "shrinking")]
    if name in ("passed", "verified"):
        return not seqs, got, "falsified"
    if name == "optimized":
        best = max((int(t["value"]) for t in tests if t.get("value") is not None), default=None)
        return best is not None and best >= a[1], got, f"best value {best}, wanted >= {a[1]}"
    if not seqs or name == "solved":
        return bool(seqs), got, "not falsified"
    if name == "solvedLen":
        return any(len(s) == a[0] for s in seqs), got, f"{'/'.join(str(len(s)) for s in seqs)} calls"
    if name == "solvedUsing":
        return any(c[0] == a[0] for s in seqs for c in s), got, f"no call to {a[0]}"
    try:
        if any(c[1] is None for s in seqs for c in s):
            raise ValueError("a call of the sequence could not be read")
        tx = a[0].args[0] if a[0].name == "SolCall" else (None, [])  # NoCall: rudder has none
        has = [any(c[0] == tx[0] and c[1] == [abi_value(v) for v in tx[1]] for c in s) for s in seqs]
    except ValueError as e:
        return None, got, str(e)
    if name == "solvedWith":
        return any(has), got, f"no call {render(a[0])}"
    return not all(has), got, f"the sequence has {render(a[0])}"  # solvedWithout


# ------------------------------------------------------- running
def ensure_solc(version):
    """The folder whose node_modules/solc is npm's solc@VERSION (installed once)."""
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rudder/echidna-cases" / f"solc-{version}"
    pkg = root / "node_modules/solc/package.json"
    if not (pkg.is_file() and json.loads(pkg.read_text()).get("version") == version):
        root.mkdir(parents=True, exist_ok=True)
        (root / "package.json").write_text(json.dumps({"name": "echidna-cases-solc", "private": True}) + "\n")
        log(f"installing solc@{version} into {root}")
        r = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent", f"solc@{version}"],
                           cwd=root, capture_output=True, text=True)
        if r.returncode or not pkg.is_file():
            sys.exit(f"npm install solc@{version} failed: {r.stderr.strip()}")
    return root


def missing_dependency(sol):
    """A remapped import (remappings.txt beside the contract) whose folder is missing (a submodule)."""
    remaps = sol.parent / "remappings.txt"
    imports = re.findall(r"""import\s+(?:[^"';]*\bfrom\s+)?["']([^"']+)""", sol.read_text(errors="replace"))
    for prefix, _, target in (x.strip().partition("=") for x in (remaps.read_text() if remaps.is_file() else "")
                              .splitlines()):
        folder = sol.parent / target
        if target and any(i.startswith(prefix) for i in imports) and not (folder.is_dir() and any(folder.iterdir())):
            return f"{folder} is missing (a git submodule not checked out: git submodule update --init)"
    return None


def run_case(case, args, solidity, solc_dir):
    """Runs rudder on the case and checks its expectations (fills case)."""
    with tempfile.TemporaryDirectory(prefix="echidna-case-") as tmp:
        tmp = Path(tmp)
        for entry in list(solidity.iterdir()) + [solc_dir / "node_modules"]:
            (tmp / entry.name).symlink_to(entry)
        config = solidity / case["config"] if case["config"] else None
        if case["override"]:  # Common.hs's overrideLimits: testLimit 10000, shrinkLimit 4000
            kept = [x for x in (config.read_text() if config else "").splitlines()
                    if not re.match(r"(testLimit|shrinkLimit)\s*:", x)]
            config = tmp / "echidna-case.yaml"
            config.write_text("\n".join(kept + ["testLimit: 10000", "shrinkLimit: 4000"]) + "\n")
        # checkConstructorConditions: the tests' values right after deployment, before any call
        limit = 0 if case["helper"] == "checkConstructorConditions" else 10000 if case["override"] else None
        # Echidna's default 50,000 calls when the case's config sets none
        # (rudder's --timeout alone would fuzz to the timeout).
        if limit is None and not (config and re.search(r"(?m)^\s*testLimit\s*:", config.read_text())):
            limit = 50000
        cmd = [args.rudder, "fuzz", str(solidity / case["sol"]), "--format", "json", "--no-ui", "--workers", "1",
               "--seed", str(args.seed), "--out-dir", str(tmp / "rudder-out"), "--timeout", str(args.timeout)]
        for flag, value in (("--contract", case["contract"]), ("--config", config), ("--test-limit", limit)):
            cmd += [flag, str(value)] if value is not None else []
        case["command"], started = " ".join(cmd), time.monotonic()
        try:
            r = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=args.timeout + GRACE)
        except subprocess.TimeoutExpired:
            r = subprocess.CompletedProcess(cmd, None, "", f"killed: no answer after {args.timeout + GRACE}s")
        case["elapsed"], case["rc"] = round(time.monotonic() - started, 2), r.returncode
        case["warnings"] = [x.split(" WARN ", 1)[1] for x in r.stderr.splitlines() if " WARN " in x]
        try:
            report = json.loads(r.stdout) if r.returncode in (0, 1) else None  # 1: a test was falsified
        except json.JSONDecodeError:
            report = None
        if report is None:
            why = " / ".join(x for x in r.stderr.splitlines() if x.strip() and " WARN " not in x)[:600]
            why = why.replace(str(tmp / "echidna-case.yaml"), f"{case['config'] or 'defaults'} + overrideLimits")
            case["status"], case["reason"] = "error", f"exit code {r.returncode}: {why or 'no message'}"
            case["results"] = [(MISS, "-", case["reason"]) for _ in case["exps"]]
        else:
            case["status"], case["tests"] = "run", report["tests"]
            case["results"] = [({True: MATCH, False: MISS, None: UNSUPPORTED}[ok], got, why)
                               for ok, got, why in (check(pred, report, tmp) for _, pred in case["exps"])]


def classify(case, solidity, solc):
    """Sets the status and reason of a case that is not run."""
    preds = [apply(p, solc) for _, p in case.get("solc", [])]
    if "unsupported" in case:
        case["status"], case["reason"] = "unsupported", case["unsupported"]
    elif any(not isinstance(p, bool) for p in preds):
        case["status"], case["reason"] = "unsupported", "solc version predicate not evaluated"
    elif not all(preds):
        case["status"] = "skipped (solc)"
        case["reason"] = f"solc {'.'.join(map(str, solc))} rejected by " + " and ".join(d for d, _ in case["solc"])
    elif not (solidity / case["sol"]).is_file():
        case["status"], case["reason"] = "unsupported", f"{case['sol']} is not in the checkout"
    elif why := missing_dependency(solidity / case["sol"]):
        case["status"], case["reason"] = "unsupported", why


def label(c):
    return f"{c['id']} {c['sol']}" + f":{c.get('contract')}" * bool(c.get("contract")) \
        + f" [{c.get('config')}]" * bool(c.get("config"))


def tally(cases):
    verdicts = Counter(r[0] for c in cases for r in c["results"])
    by = Counter((pred.name, r[0]) for c in cases for (_, pred), r in zip(c["exps"], c["results"]))
    return {"cases": len(cases), "errors": sum(c["status"] == "error" for c in cases),
            "cases_matched": sum(all(r[0] == MATCH for r in c["results"]) for c in cases),
            "cases_matched_ignoring_unsupported": sum(all(r[0] != MISS for r in c["results"]) for c in cases),
            "expectations": sum(verdicts.values()), "matched": verdicts[MATCH], "missed": verdicts[MISS],
            "unsupported": verdicts[UNSUPPORTED],
            "by_predicate": {p: {v: n for (q, v), n in sorted(by.items()) if q == p} for p, _ in sorted(by)}}


def report(cases, per_file, args):
    def cut(s, n):
        return str(s) if len(str(s)) <= n else str(s)[:n - 1] + "…"
    print(f"{'VERDICT':<11} {'CASE':<60} {'MESSAGE':<34} {'EXPECTED':<40} {'RUDDER':<50} REASON")
    for c in cases:
        rows = zip(c["exps"], c["results"]) if c["status"] in ("run", "error") else \
            [(("", ""), (SKIP if c["status"].startswith("skipped") else UNSUPPORTED, "", c["reason"]))]
        for (msg, pred), (v, got, why) in rows:
            print(f"{v:<11} {cut(label(c), 60):<60} {cut(msg, 34):<34} {cut(render(pred) if pred else '', 40):<40} "
                  f"{cut(got, 50):<50} {'' if v == MATCH else why}")
    ran = [c for c in cases if c["status"] in ("run", "error")]
    summary = {"solc": args.solc, "seed": args.seed, "timeout": args.timeout, "found": len(cases),
               "status": dict(Counter(c["status"] for c in cases)), "per_file": per_file,
               "fuzz": tally([c for c in ran if c["worker"] != "SymbolicWorker"]),
               "symbolic": tally([c for c in ran if c["worker"] == "SymbolicWorker"])}
    print(f"\nEchidna tests found: {len(cases)} (" + ", ".join(f"{k} {v}" for k, v in sorted(summary["status"].items()))
          + f"); solc {args.solc}, seed {args.seed}, timeout {args.timeout}s")
    for kind, what in (("fuzz", "FuzzWorker"), ("symbolic", "SymbolicWorker, run by rudder's fuzzer")):
        t = summary[kind]
        print(f"{kind} cases ({what}) run: {t['cases']}, {t['errors']} of them failed to run; cases matched "
              f"{t['cases_matched']}/{t['cases']} (ignoring unsupported expectations: "
              f"{t['cases_matched_ignoring_unsupported']}); expectations matched {t['matched']}/{t['expectations']}, "
              f"missed {t['missed']}, unsupported {t['unsupported']}")
        for pred, counts in t["by_predicate"].items():
            print(f"    {pred:<28} " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return summary


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Progress goes to stderr, the table and the summary to stdout.")
    ap.add_argument("checkout", type=Path, help="an Echidna checkout (src/test/Tests/*.hs, tests/solidity/)")
    ap.add_argument("--rudder", default="target/release/rudder", metavar="BIN", help="default: %(default)s")
    ap.add_argument("--solc", default="0.8.25", metavar="VERSION", help="solc from npm (default: %(default)s); "
                    "cases whose version predicate rejects it are skipped, as by Echidna's withSolcVersion")
    ap.add_argument("--only", metavar="SUBSTRING", help="only the cases whose FILE.hs:LINE, contract path, "
                    "contract name or config contains this")
    ap.add_argument("--seed", type=int, default=1, metavar="N", help="rudder's seed (default: %(default)s)")
    ap.add_argument("--json", type=Path, metavar="OUT", help="also write cases, results and summary here as JSON")
    ap.add_argument("--timeout", type=float, default=120, metavar="SECS", help="rudder's --timeout for each case "
                    f"(default: %(default)s; a run is killed {GRACE}s later)")
    ap.add_argument("--list", action="store_true", help="print the parsed cases and exit (runs nothing)")
    args = ap.parse_args()
    checkout = args.checkout.resolve()
    if not (checkout / "src/test/Tests").is_dir():
        sys.exit(f"{checkout}: no src/test/Tests (not an Echidna checkout)")
    solidity, solc = checkout / "tests/solidity", tuple(int(x) for x in args.solc.split("."))
    cases, per_file = parse_checkout(checkout)
    log("\n".join(f"{name}: " + ", ".join(f"{v} {k}" for k, v in n.items()) for name, n in per_file.items()))
    cases = [c for c in cases if not args.only or args.only in label(c)]
    if args.list:
        for c in cases:
            print(f"{label(c)}  (" + (c.get("unsupported") or ", ".join(
                [c["helper"], c["worker"], f"overrideLimits {c['override']}"] + [d for d, _ in c["solc"]])) + ")")
            print("".join(f"    {msg!r}: {render(pred)}\n" for msg, pred in c["exps"]), end="")
        return
    args.rudder = str(Path(args.rudder).resolve())
    if not os.access(args.rudder, os.X_OK):
        sys.exit(f"{args.rudder}: no rudder binary (cargo build --release, or --rudder BIN)")
    solc_dir = None
    for k, case in enumerate(cases, 1):
        log(f"[{k}/{len(cases)}] {label(case)}")
        classify(case, solidity, solc)
        if "status" not in case:
            solc_dir = solc_dir or ensure_solc(args.solc)
            run_case(case, args, solidity, solc_dir)
        matched = sum(r[0] == MATCH for r in case.get("results", []))
        log(f"    {case['status']}" + (f", {matched}/{len(case['exps'])} match in {case['elapsed']}s" if "elapsed" in
                                      case else "") + (f": {case['reason']}" if case.get("reason") else ""))
    summary = report(cases, per_file, args)
    if args.json:  # exps as [message, predicate]; results as [verdict, rudder's answer, reason]
        args.json.write_text(json.dumps({"checkout": str(checkout), "rudder": args.rudder, "summary": summary,
                                         "cases": cases}, indent=1, default=render) + "\n")
        log(f"wrote {args.json}")


if __name__ == "__main__":
    main()
