#!/usr/bin/env python3
"""A deterministic steering policy for rudder, over MCP only (issue 32, part 1).

No LLM, no network: this script starts `rudder mcp TARGET` itself, talks to it
with the official Python `mcp` client (1.x or 2.x) over stdio, and at
call-count checkpoints does what an agent would do with the tools:

1. Watches `status`; a *plateau* is no new coverage (line or branch coverage,
   corpus size) for max(10,000 calls, 2x the previous gap between gains).
2. On a plateau reads the coverage gaps from the graph family
   (`graph_context_for_files` over every function `target` lists), ranked in a
   fixed order: never true, then never reached, then never false; then file
   and line.
3. Turns each gap's condition (its source text, parameters, state variables,
   named constants and environment) into candidate call sequences with a small
   solver over the condition's expression: a parameter compared with a
   constant or an expression of known values (c, and c±1 at an ordering's
   boundary), inverted through `+ - * / ^ << >> %` and casts; a state variable
   compared with a value (call each function that writes it with the value as
   an argument, or as msg.value when it is payable, then the function holding
   the branch); a product of two unknowns split into balanced factors;
   msg.sender, msg.value and block.timestamp as the per-call `{from, value,
   delay}` options; a state variable that records block.timestamp (found by
   calling its writer and getter with two delays through `run_sequence`) as a
   delay on its writer. What the graph says about how the state is written
   (`writes`: each assignment with the entry point reaching it and the
   arguments it passes to a helper) is inverted: `packed = ((hi << 64) | lo)
   ^ SALT` gives mix's two arguments, `price = p` reached through
   `quote(p)`'s call into an oracle gives quote's; a value a writer updates
   from itself (`trail = (trail << 4) | code`) is reached by the writers
   peeled from the target value backwards; a constant step (`n++`) is
   repeated. A local stands for its initial value (`want = f(address(this))`
   is evaluated), another contract's public variable read through its getter
   is state like any other, the gap's guards (enclosing `if`s, `require`s
   above it) are solved with it, and where both sides of a comparison are
   state, a side is first fixed to a value its writer was seen to accept in
   the corpus. Arguments the condition does not constrain keep the
   values of a corpus call that reached the branch, and that corpus entry's
   earlier calls are the prefix (`find_transaction_in_corpus`,
   `inspect_corpus_transactions`). The nested gaps of one function are solved
   together, rung by rung, in line order.
4. Screens every candidate once with `run_sequence` (new coverage points,
   tests falsified), injects the best few with `inject_transaction`, records
   each attempt in the ETG (`etg_log_event`) and asks
   `etg_query_similar_attempts` before working on a branch again (a branch
   that earlier attempts, in this run or an earlier run of the same corpus
   directory, tried three times without gain is skipped). Functions holding
   gaps that nothing solved are prioritized (`prioritize_function`); after
   three fruitless plateaus the priorities are cleared.
5. Builds precondition chains from the revert census (`revert_census`): for
   the functions that revert most, the guard their calls fail at and the
   callable functions whose writes can change what it reads (its enablers):
   an enabler before the failing call (and the enabler's own enabler before
   it), arguments from the corpus or drawn (`?`), screened with
   `run_sequence` like the gaps' candidates; the enablers are prioritized.

usage: python3 examples/steer.py [--seed S] [--timeout SECS] [--test-limit N]
           TARGET [--contract C] [--config YAML] [--workers N] [--out-dir D]
           [--budget N] [--sham] [--checkpoint CALLS] [--verbose]

The call budget (--budget, default the test limit) counts every call the
policy spends: the campaign's calls (rudder counts the injected calls it
runs among them) plus every call `run_sequence` ran once. The policy screens
no candidate that would overrun it and leaves (ending the campaign) once
calls + run-once calls reach it; `steering.spentCalls` is that sum.

--sham watches without steering, for the blind arm of a benchmark
(scripts/steer_bench.sh): the same loop polls `status` at the same rate and,
on each plateau, makes the same reads (`graph_context_for_files`,
`inspect_corpus_transactions`, `etg_query_similar_attempts`), but never runs,
injects, prioritizes or records anything, so observing costs both arms the
same.

The binary is $RUDDER (default target/release/rudder, relative to the
repository this script is in). The final report (the JSON `rudder fuzz
--format json` prints) goes to stdout, with one more field, `steering`: what
the policy did (mode, budget, calls spent, tool calls, run-once and injected
calls, each injection, the call counts at which tests were first seen
falsified, and the gaps it could not turn into candidates, with why).
Progress goes to stderr. With neither a test limit nor a timeout (and none in
the config), the campaign stops at 50,000 calls, `rudder fuzz`'s default.
"""
import argparse
import ast
import asyncio
import json
import math
import os
import re
import sys
import tempfile
import time
from fractions import Fraction

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

PLATEAU_MIN = 10_000      # calls without new coverage before the first plateau
CHECKPOINT = 2_000        # calls between two looks at the plateau test
DEFAULT_LIMIT = 50_000    # when nothing bounds the campaign
MAX_CANDIDATES = 48       # screened per gap per plateau
INJECT_BEST = 3           # injected per plateau
FRUITLESS_CLEAR = 3       # fruitless plateaus before priorities are cleared
ETG_GIVE_UP = 3           # earlier fruitless attempts on a branch before it is skipped
CORPUS_PREFIXES = 40      # corpus entries a stuck call is appended to
CENSUS_FUNCTIONS = 4      # functions that revert most, whose guards' enablers are tried per plateau
CENSUS_MIN_SHARE = 0.3    # ... when at least this share of their calls reverted in the window
CENSUS_ENABLERS = 3       # enablers tried per guard


def log(*parts):
    print("[steer]", *parts, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- call syntax

def split_top(s, sep=","):
    """Splits `s` at `sep` outside brackets and quotes."""
    out, depth, cur, quote = [], 0, [], None
    for ch in s:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    tail = "".join(cur).strip()
    if tail or out:
        out.append(tail)
    return out


def parse_call(text):
    """`f{from: 0x…, delay: 5}(1, 2)` -> (name, {option: text}, [argument text])."""
    m = re.match(r"\s*([A-Za-z_$][\w$]*)\s*(\{[^}]*\})?\s*\((.*)\)\s*$", text, re.S)
    if not m:
        return None
    opts = {}
    if m.group(2):
        for kv in split_top(m.group(2)[1:-1]):
            if ":" in kv:
                k, v = kv.split(":", 1)
                opts[k.strip()] = v.strip()
    return m.group(1), opts, split_top(m.group(3))


def render_call(name, opts, args):
    o = ""
    if opts:
        o = "{" + ", ".join(f"{k}: {v}" for k, v in opts.items()) + "}"
    return f"{name}{o}({', '.join(args)})"


def sig_name(sig):
    return sig.split("(", 1)[0].split(".")[-1]


def sig_types(sig):
    inner = sig[sig.index("(") + 1:sig.rindex(")")]
    return split_top(inner) if inner else []


def parse_int(text):
    t = text.strip()
    if t in ("true", "false"):
        return 1 if t == "true" else 0
    try:
        if re.fullmatch(r"-?0x[0-9a-fA-F]+", t):
            return int(t, 16)
        if re.fullmatch(r"-?\d+", t):
            return int(t)
    except ValueError:
        pass
    return None


def type_bits(ty):
    m = re.fullmatch(r"(u?int)(\d*)", ty)
    if m:
        return m.group(1), int(m.group(2) or 256)
    if ty == "address":
        return "uint", 160
    if ty == "bool":
        return "bool", 1
    m = re.fullmatch(r"bytes(\d+)", ty)
    if m:
        return "bytes", 8 * int(m.group(1))
    return None, None


def fit(value, ty):
    """`value` as an argument of type `ty` (in range), or None."""
    kind, bits = type_bits(ty)
    if kind is None or not isinstance(value, int):
        return None
    if kind == "bool":
        return value if value in (0, 1) else None
    if kind == "int":
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        return value if lo <= value <= hi else None
    return value if 0 <= value < (1 << bits) else None


def render_value(value, ty):
    kind, bits = type_bits(ty)
    if kind == "bool":
        return "true" if value else "false"
    if ty == "address":
        return "0x%040x" % value
    if kind == "bytes":
        return "0x%0*x" % (bits // 4, value)
    return str(value)


def zero_of(ty):
    kind, _ = type_bits(ty)
    if kind == "bool":
        return "false"
    if ty == "address":
        return "0x%040x" % 0
    if kind is not None:
        return "0"
    return "?"


# ---------------------------------------------------------------- expressions

UNITS = {"wei": 1, "gwei": 10**9, "ether": 10**18, "seconds": 1, "minutes": 60,
         "hours": 3600, "days": 86400, "weeks": 604800}
CAST = re.compile(r"(u?int\d*|address|bytes\d+|bool|payable)$")


class Unknown(Exception):
    """The expression needs a value the policy does not have."""


class Opaque(Exception):
    """The expression has something the policy cannot evaluate or control."""


class Congruence:
    """A value known modulo m (from `x % m == r`)."""

    def __init__(self, r, m):
        self.r, self.m = r, m


def number_text(text):
    """A Solidity number literal (with `_`, `e`, a unit) as an int."""
    t = text.replace("_", "").strip()
    m = re.fullmatch(r"(0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:e\d+)?)\s*(\w+)?", t)
    if not m:
        return None
    lit, unit = m.group(1), m.group(2)
    if unit and unit not in UNITS:
        return None
    v = Fraction(int(lit, 16)) if lit.startswith("0x") else Fraction(lit)
    v *= UNITS.get(unit, 1)
    return int(v) if v.denominator == 1 else None


def translate(src):
    """Solidity expression text -> Python expression text (same precedence
    for everything a condition usually holds)."""
    s = src

    def tymax(m):
        kind, bits = m.group(1), int(m.group(2) or 256)
        if kind == "uint":
            return str((1 << bits) - 1) if m.group(3) == "max" else "0"
        return str((1 << (bits - 1)) - 1) if m.group(3) == "max" else "(-%d)" % (1 << (bits - 1))

    s = re.sub(r"type\(\s*(u?int)(\d*)\s*\)\.(max|min)", tymax, s)

    def unit(m):
        v = number_text(m.group(0))
        return "(%d)" % v if v is not None else m.group(0)

    s = re.sub(r"\b(0x[0-9a-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:e\d+)?)(\s*(?:wei|gwei|ether|seconds|minutes|hours|days|weeks)\b)?",
               unit, s)
    s = s.replace("&&", " and ").replace("||", " or ")
    s = re.sub(r"!(?!=)", " not ", s)
    s = re.sub(r"\btrue\b", "True", s)
    s = re.sub(r"\bfalse\b", "False", s)
    for a, b in (("msg.sender", "msg_sender"), ("msg.value", "msg_value"),
                 ("block.timestamp", "block_timestamp"), ("block.number", "block_number"),
                 ("tx.origin", "msg_sender")):
        s = s.replace(a, b)
    s = re.sub(r"\bnow\b", "block_timestamp", s)
    s = re.sub(r"\bthis\b", "__this", s)
    return s


def parse_expr(src):
    try:
        return ast.parse(translate(src), mode="eval").body
    except SyntaxError:
        return None


def wrap(value, name):
    m = re.fullmatch(r"(u?int)(\d*)", name)
    if m:
        bits = int(m.group(2) or 256)
        v = value % (1 << bits)
        if m.group(1) == "int" and v >= 1 << (bits - 1):
            v -= 1 << bits
        return v
    if name in ("address", "payable"):
        return value % (1 << 160)
    if name == "bool":
        return int(bool(value))
    return value


def tdiv(a, b):
    if b == 0:
        raise Opaque("division by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def tmod(a, b):
    if b == 0:
        raise Opaque("modulo by zero")
    return a - b * tdiv(a, b)


BINOPS = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.Div: tdiv, ast.FloorDiv: tdiv, ast.Mod: tmod, ast.Pow: lambda a, b: a ** b,
    ast.BitXor: lambda a, b: a ^ b, ast.BitAnd: lambda a, b: a & b, ast.BitOr: lambda a, b: a | b,
    ast.LShift: lambda a, b: (a << b) % (1 << 256), ast.RShift: lambda a, b: a >> b,
}
CMPOPS = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
          ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}
NEGATE = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt,
          ast.Gt: ast.LtE, ast.LtE: ast.Gt}
MIRROR = {ast.Eq: ast.Eq, ast.NotEq: ast.NotEq, ast.Lt: ast.Gt, ast.Gt: ast.Lt,
          ast.LtE: ast.GtE, ast.GtE: ast.LtE}


class Model:
    """What the policy knows while solving one gap: constants, which names it
    controls, and the values chosen so far."""

    def __init__(self, consts, controls, defaults, bounds):
        self.consts = consts          # name -> int (also Contract.name)
        self.controls = controls      # name -> kind: param, state, value, sender, time
        self.defaults = defaults      # name -> int (a corpus call's argument)
        self.bounds = bounds          # name -> lower bound (time-derived values)

    def var_of(self, node):
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            return node.value.id
        if self.is_getter(node):
            return node.func.attr
        return None

    def is_getter(self, node):
        """`c.v(k)`: another contract's public variable `v` read through its
        getter, a name the policy controls when the graph names its writer
        (the key is taken to be the sender every call of the sequence uses)."""
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and self.controls.get(node.func.attr) == "state"

    def is_var(self, node):
        return isinstance(node, (ast.Name, ast.Subscript)) or self.is_getter(node)

    def ev(self, node, env):
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool):
                return int(node.value)
            if isinstance(node.value, int):
                return node.value
            raise Opaque(f"literal {node.value!r}")
        if self.is_var(node):
            name = self.var_of(node)
            if name is None:
                raise Opaque(ast.unparse(node))
            if name in env:
                return env[name]
            if isinstance(node, ast.Name) and name in self.consts:
                return self.consts[name]
            if name in self.controls:
                raise Unknown(name)
            raise Opaque(name)
        if isinstance(node, ast.Attribute):
            full = ast.unparse(node)
            if full in self.consts:
                return self.consts[full]
            if node.attr in self.consts:
                return self.consts[node.attr]
            raise Opaque(full)
        if isinstance(node, ast.BinOp):
            a, b = self.ev(node.left, env), self.ev(node.right, env)
            return BINOPS[type(node.op)](a, b)
        if isinstance(node, ast.UnaryOp):
            v = self.ev(node.operand, env)
            if isinstance(node.op, ast.USub):
                return -v
            if isinstance(node.op, ast.Not):
                return int(not v)
            if isinstance(node.op, ast.Invert):
                return ~v % (1 << 256)
            return v
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and CAST.match(node.func.id) \
                and len(node.args) == 1:
            return wrap(self.ev(node.args[0], env), node.func.id)
        if isinstance(node, ast.BoolOp):
            vals = [self.ev(v, env) for v in node.values]
            return int(all(vals)) if isinstance(node.op, ast.And) else int(any(vals))
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            return int(CMPOPS[type(node.ops[0])](self.ev(node.left, env), self.ev(node.comparators[0], env)))
        raise Opaque(ast.unparse(node))

    def unknowns(self, node, env):
        """Controlled names `node` needs that `env` lacks (Opaque if it needs
        something nobody controls: a local, an external call, storage no
        function writes)."""
        out = []

        def rec(n):
            if isinstance(n, ast.Constant):
                return
            if isinstance(n, ast.Attribute):
                full = ast.unparse(n)
                if full in self.consts or n.attr in self.consts:
                    return
                raise Opaque(full)
            if self.is_var(n):
                name = self.var_of(n)
                if name in env or (isinstance(n, ast.Name) and name in self.consts):
                    return
                if name in self.controls:
                    if name not in out:
                        out.append(name)
                    return
                raise Opaque(ast.unparse(n))
            if isinstance(n, ast.Call):
                if isinstance(n.func, ast.Name) and CAST.match(n.func.id):
                    for a in n.args:
                        rec(a)
                    return
                raise Opaque(ast.unparse(n))
            for child in ast.iter_child_nodes(n):
                rec(child)

        rec(node)
        return out

    def bind(self, env, name, value):
        if isinstance(value, Congruence):
            base = self.bounds.get(name, 0)
            value = base + (value.r - base) % value.m
        elif name in self.bounds and value < self.bounds[name]:
            return None
        e = dict(env)
        e[name] = value
        return e

    # -- solving --------------------------------------------------------------

    def solve(self, node, env, want=True, cap=16):
        """Environments extending `env` under which `node` is `want`."""
        try:
            if not self.unknowns(node, env):
                return [env] if bool(self.ev(node, env)) == want else []
        except (Opaque, Unknown, ZeroDivisionError, ValueError, OverflowError):
            return []
        if isinstance(node, ast.BoolOp):
            conj = isinstance(node.op, ast.And) == want
            if conj:
                # Lower bounds the conjunction sets on single names (`x > c`)
                # first: a residue or a seed must land above them.
                saved = dict(self.bounds)
                for v in node.values:
                    self.note_bound(v, env, want)
                envs = [env]
                for v in node.values:
                    envs = [e2 for e in envs for e2 in self.solve(v, e, want, cap)][:cap]
                self.bounds = saved
                return envs
            out = []
            for v in node.values:
                out += self.solve(v, env, want, cap)
            return out[:cap]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return self.solve(node.operand, env, not want, cap)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            op = type(node.ops[0])
            if not want:
                op = NEGATE[op]
            return self.solve_cmp(node.left, op, node.comparators[0], env)[:cap]
        if self.is_var(node):
            return self.solve_cmp(node, ast.Eq if want else ast.NotEq, ast.Constant(1), env)
        return []

    def note_bound(self, node, env, want):
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
            return
        op = type(node.ops[0]) if want else NEGATE[type(node.ops[0])]
        left, right = node.left, node.comparators[0]
        if isinstance(right, (ast.Name, ast.Call)) and not isinstance(left, (ast.Name, ast.Call)):
            left, right, op = right, left, MIRROR[op]
        while isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and CAST.match(left.func.id) \
                and len(left.args) == 1:
            left = left.args[0]
        if not isinstance(left, ast.Name) or left.id not in self.controls or left.id in env:
            return
        try:
            c = self.ev(right, env)
        except (Opaque, Unknown, ZeroDivisionError):
            return
        lb = {ast.Gt: c + 1, ast.GtE: c}.get(op)
        if lb is not None:
            self.bounds[left.id] = max(lb, self.bounds.get(left.id, lb))

    def solve_cmp(self, left, op, right, env):
        try:
            ul, ur = self.unknowns(left, env), self.unknowns(right, env)
        except Opaque:
            return []
        if ul and ur:
            # Both sides unknown: fix one name first (a sender is enumerated,
            # a parameter takes its corpus value, a state variable 1).
            out = []
            for name in sorted(ul + ur, key=lambda n: (self.controls[n] != "sender",
                                                       n not in self.bounds, n not in self.defaults)):
                for v in self.seeds(name):
                    e = self.bind(env, name, v)
                    if e is not None:
                        out += self.solve_cmp(left, op, right, e)
            return out
        if ur:
            left, right, op = right, left, MIRROR[op]
        try:
            target = self.ev(right, env)
        except (Opaque, Unknown, ZeroDivisionError):
            return []
        wants = {ast.Eq: [target], ast.NotEq: [target + 1, target - 1], ast.Lt: [target - 1],
                 ast.LtE: [target], ast.Gt: [target + 1], ast.GtE: [target]}[op]
        out = []
        for w in wants:
            for asg in self.invert(left, w, env):
                out.append(asg)
        return out

    def seeds(self, name):
        kind = self.controls[name]
        if kind == "sender":
            return list(self.senders)
        lb = self.bounds.get(name)
        if name in self.defaults and (lb is None or self.defaults[name] >= lb):
            return [self.defaults[name]]
        if lb is not None:
            return [lb]
        if kind == "time":
            return []
        return [1]

    def invert(self, node, want, env):
        """Environments under which `node` evaluates to `want`."""
        if self.is_var(node):
            name = self.var_of(node)
            if name in self.controls and name not in env:
                e = self.bind(env, name, want)
                return [e] if e is not None else []
            return []
        if isinstance(want, Congruence):
            # Only a name takes a congruence; elsewhere use its residue.
            if isinstance(node, ast.Call):
                return self.invert(node.args[0], want, env) if node.args else []
            want = want.r
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and CAST.match(node.func.id) \
                and len(node.args) == 1:
            out = self.invert(node.args[0], want, env)
            m = re.fullmatch(r"(u?int)(\d*)", node.func.id)
            if m and m.group(1) == "int" and want < 0:
                # int64(uint64(d)) = -5: the unsigned inside holds 2**64 - 5.
                out += self.invert(node.args[0], want % (1 << int(m.group(2) or 256)), env)
            return out
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return self.invert(node.operand, -want, env)
        if not isinstance(node, ast.BinOp):
            return []
        try:
            ul, ur = self.unknowns(node.left, env), self.unknowns(node.right, env)
        except Opaque:
            return []
        op = type(node.op)
        if ul and ur:
            return self.invert_both(node, op, want, env)
        if not ul and not ur:
            return []
        known = self.ev(node.right if ul else node.left, env)
        side = node.left if ul else node.right
        w = None
        if op is ast.Add:
            w = want - known
        elif op is ast.Sub:
            w = want + known if ul else known - want
        elif op is ast.Mult:
            if known != 0 and want % known == 0:
                w = want // known
        elif op in (ast.Div, ast.FloorDiv) and ul:
            w = want * known
        elif op is ast.Mod and ul:
            return self.invert(side, Congruence(want, known), env) if 0 <= want < known else []
        elif op is ast.BitXor:
            w = want ^ known
        elif op is ast.RShift and ul:
            w = want << known
        elif op is ast.LShift and ul:
            w = want >> known if want % (1 << known) == 0 else None
        elif op is ast.BitAnd:
            w = want if want & known == want else None
        elif op is ast.BitOr:
            w = want & ~known if want & known == known else None
        if w is None:
            return []
        return self.invert(side, w, env)

    def invert_both(self, node, op, want, env):
        """Both operands unknown: split `want` between them."""
        pairs = []
        if op is ast.Mult:
            d = balanced_divisor(want)
            if d:
                pairs.append((d, want // d))
                pairs.append((want // d, d))
        elif op is ast.Add:
            pairs += [(want // 2, want - want // 2), (want, 0)]
        elif op is ast.BitXor:
            pairs += [(want, 0)]
        elif op is ast.BitOr:
            # Fields packed side by side (`(hi << 64) | lo`): split `want` at
            # the shifts the expression makes, then at common widths.
            cuts = [c.right.value for c in ast.walk(node) if isinstance(c, ast.BinOp) and isinstance(c.op, ast.LShift)
                    and isinstance(c.right, ast.Constant) and isinstance(c.right.value, int)]
            for k in dict.fromkeys(cuts + [8, 16, 32, 64, 128, 160]):
                if 0 < k < 256:
                    low = want & ((1 << k) - 1)
                    pairs += [(want - low, low), (low, want - low)]
            pairs += [(want, 0), (0, want)]
        out = []
        for a, b in pairs:
            for e in self.invert(node.left, a, env):
                out += self.invert(node.right, b, e)
        if not out:
            # Fix one side's names at their seeds and solve for the other.
            for name in self.unknowns(node.left, env):
                for v in self.seeds(name):
                    e = self.bind(env, name, v)
                    if e is not None:
                        out += self.invert(node, want, e)
                break
        return out


def balanced_divisor(n, limit=200_000):
    """The divisor of n closest to sqrt(n) from below, when trial division
    by primes up to `limit` factors n completely; else None."""
    if n <= 1:
        return None
    factors, m, p = [], n, 2
    while p * p <= m and p <= limit:
        while m % p == 0:
            factors.append(p)
            m //= p
        p += 1 if p == 2 else 2
    if m > 1:
        if m > limit * limit and p > limit:
            return None
        factors.append(m)
    root = math.isqrt(n)
    divisors = {1}
    for f in factors:
        divisors |= {d * f for d in divisors if d * f <= root}
    return max(divisors)


# ---------------------------------------------------------------- the policy

class Steer:
    def __init__(self, session, opts):
        self.s = session
        self.opts = opts
        self.tool_calls = 0
        self.by_tool = {}
        self.run_once_calls = 0
        self.calls = 0            # the campaign's calls at the last status
        self.budget = budget_of(opts)
        self.sham = bool(getattr(opts, "sham", False))
        self.budget_spent = False
        self.injected_calls = 0
        self.injections = []
        self.unsolved = {}
        self.tried = set()
        self.good_prefixes = []   # sequences that reached new coverage when screened
        self.fruitless = 0
        self.falsified_at = {}
        self.plateaus = 0
        self.param_names = abi_param_names(opts.target, opts.contract)
        self.time_vars = {}       # state variable -> (writer signature, value at delay 0) or None
        self.accepted = {}        # state variable -> a value a writer was seen to set, or None
        self.writes_map = {}
        self.realize_why = None
        self.consts = {}
        self.not_in_graph = set()
        self.prioritized = set()

    async def call(self, name, args, errors=None):
        self.tool_calls += 1
        self.by_tool[name] = self.by_tool.get(name, 0) + 1
        r = await self.s.call_tool(name, args)
        v = answer(r)
        if is_error(r):
            if errors is not None:
                errors.append(v)
            if self.opts.verbose:
                log(f"{name} refused: {json.dumps(v)[:300]}")
            return None
        return v

    # -- the loop --------------------------------------------------------------

    async def run(self):
        tools = {t.name for t in (await self.s.list_tools()).tools}
        self.tool_calls += 1
        need = {"status", "target", "graph_context_for_files", "run_sequence", "inject_transaction"}
        if not need <= tools:
            log(f"the server lacks {sorted(need - tools)}: steering off, watching only")
        self.tools = tools
        self.target = await self.call("target", {}) or {}
        self.senders = [int(a, 16) for a in self.target.get("senders", [])] or [0x10000, 0x20000, 0x30000]
        self.functions = {f["signature"]: f for f in self.target.get("functions", [])}
        st = await self.call("status", {})
        limit = st["config"].get("testLimit") if st else None
        self.own_limit = DEFAULT_LIMIT if limit == "unlimited" and not self.opts.timeout else None
        last_sig, last_gain, prev_gap, next_check = None, 0, 0, CHECKPOINT
        t0 = time.monotonic()
        while True:
            st = await self.call("status", {})
            if st is None:
                break
            calls = int(st["calls"])
            self.calls = calls
            for t in st.get("tests", []):
                if t["status"] == "falsified" and t["name"] not in self.falsified_at:
                    self.falsified_at[t["name"]] = calls
                    log(f"{t['name']} falsified at ~{calls} calls: {t.get('counterexample')}")
            sig = (st.get("lineCoverage"), st.get("branchCoverage"), st.get("corpusSize"))
            if sig != last_sig:
                if last_sig is not None:
                    prev_gap = calls - last_gain
                last_sig, last_gain = sig, calls
            if not st.get("fuzzing", True):
                log(f"campaign ended: {st.get('endReason')} at {calls} calls")
                break
            tests = st.get("tests", [])
            if tests and all(t["status"] == "falsified" for t in tests):
                break
            if self.budget and self.spent() >= self.budget:
                self.budget_spent = True
                log(f"budget spent: {calls} campaign calls + {self.run_once_calls} run-once >= {self.budget}")
                break
            if self.own_limit and calls >= self.own_limit:
                log(f"stopping at {calls} calls (no limit given)")
                break
            if self.opts.timeout and time.monotonic() - t0 > self.opts.timeout + 5:
                break
            if calls >= next_check:
                next_check = (calls // CHECKPOINT + 1) * CHECKPOINT
                window = max(PLATEAU_MIN, 2 * prev_gap)
                if calls - last_gain >= window and need <= tools:
                    self.plateaus += 1
                    log(f"plateau {self.plateaus} at {calls} calls (no gain for {calls - last_gain})")
                    if self.sham:
                        await self.observe()
                        gained = False
                    else:
                        gained = await self.episode(calls)
                    self.fruitless = 0 if gained else self.fruitless + 1
                    if self.fruitless >= FRUITLESS_CLEAR and "clear_priorities" in tools and not self.sham:
                        await self.call("clear_priorities", {})
                        self.prioritized.clear()
                        log("three fruitless plateaus: priorities cleared")
                        self.fruitless = 0
                    last_gain = calls
            await asyncio.sleep(0.1)

    async def final_report(self):
        """The report in `rudder fuzz --format json`'s shape, from the tools
        (`rudder mcp` prints its report as text on stderr, --format json or
        not): status once no test is shrinking, show_coverage, and who found
        each falsification from read_logs."""
        deadline = time.monotonic() + 60
        while True:
            st = await self.call("status", {})
            if st is None or not any(t["status"] == "shrinking" for t in st.get("tests", [])) \
                    or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.2)
        cov = await self.call("show_coverage", {}) or {"contracts": []}
        found_by = {}
        logs = await self.call("read_logs", {"count": 2500, "eventType": "PropertyFalsified"}) or {}
        for e in reversed(logs.get("events", [])):
            found_by[e["data"].get("property")] = e["data"].get("foundBy")
        st = st or {}
        lines = sum(c.get("lines", 0) for c in cov["contracts"])
        hit = sum(c.get("linesHit", 0) for c in cov["contracts"])
        branches = sum(c.get("branches", 0) for c in cov["contracts"])
        bhit = sum(c.get("branchesHit", 0) for c in cov["contracts"])
        tests = []
        for t in st.get("tests", []):
            row = {"name": t["name"], "kind": t.get("kind"), "status": t["status"],
                   "sequence": t.get("counterexample") or []}
            if t["name"] in found_by:
                row["foundBy"] = found_by[t["name"]]
            tests.append(row)
        return {
            "contract": st.get("contract"), "mode": st.get("mode"), "runId": st.get("runId"),
            "seed": st.get("config", {}).get("seed"), "workers": st.get("workers"),
            "calls": st.get("calls"), "elapsedSecs": st.get("elapsedSeconds"),
            "callsPerSec": st.get("callsPerSecond"), "corpusSequences": st.get("corpusSequences"),
            "corpusCalls": st.get("corpusSize"), "resumed": {"corpusSequences": 0, "falsified": 0},
            "tests": tests,
            "coverage": {"lines": lines, "linesHit": hit, "linePercent": round(100 * hit / lines, 1) if lines else 0.0,
                         "branches": branches, "branchesHit": bhit,
                         "branchPercent": round(100 * bhit / branches, 1) if branches else 0.0},
            "corpusDir": st.get("config", {}).get("corpusDir"),
        }

    def spent(self):
        """Calls spent so far: the campaign's (injected ones included) and
        the run-once ones."""
        return self.calls + self.run_once_calls

    def affordable(self, n):
        """Whether `n` more run-once calls stay within the budget."""
        return not self.budget or self.spent() + n <= self.budget

    async def observe(self):
        """--sham: a plateau's reads without steering (what `episode` reads
        before it solves anything)."""
        gaps = await self.read_gaps()
        await self.read_corpus()
        if "revert_census" in self.tools:
            await self.call("revert_census", {"windowSeconds": 600, "top": 3})
        for _, chain in gaps:
            await self.given_up(chain[-1])
        log(f"{len(gaps)} gaps read (sham: no steering)")

    # -- one plateau -------------------------------------------------------------

    async def episode(self, calls):
        gaps = await self.read_gaps()
        log(f"{len(gaps)} gaps")
        corpus = await self.read_corpus()
        found = []      # (score, sequence, gap key)
        stuck = []
        found += await self.census_chains(corpus)
        for key, chain in gaps:
            g = chain[-1]
            if await self.given_up(g):
                self.unsolved.setdefault(key, "skipped: earlier attempts on this branch gained nothing (ETG)")
                continue
            attempt = f"steer:{key}:{self.plateaus}"
            await self.etg(attempt, f"plateau {self.plateaus}: solving `{g['condition']}` "
                                    f"({g['missing']}, {len(chain)} nested conditions)", g)
            cands, why = await self.candidates(chain, corpus)
            if not cands:
                self.unsolved[key] = why
                stuck.append(g)
                await self.etg(attempt, f"no candidate: {why}", g)
                continue
            self.unsolved.pop(key, None)
            if self.opts.verbose:
                log(f"{key}: candidates {cands[:6]}")
            best, screened = await self.screen(cands[:MAX_CANDIDATES])
            if best is None and corpus:
                # The call may be right and the state wrong (a maze cell, a
                # phase): append it to the corpus entries, shortest first.
                last = []
                for seq in cands:
                    if seq[-1] not in last:
                        last.append(seq[-1])
                entries = sorted(corpus.values(), key=len)[:CORPUS_PREFIXES]
                best, n = await self.screen([e + [c] for c in last[:2] for e in entries if len(e) < 99])
                screened += n
            if best:
                found.append((best[0], best[1], key, attempt, g))
                log(f"{key}: {best[1]} -> {best[0][0]} falsified, {best[0][1]} new points")
            else:
                self.unsolved[key] = f"{len(cands)} candidates ({screened} new), none reached new code"
                stuck.append(g)
                await self.etg(attempt, f"screened {screened} candidates, none reached new code", g)
        found.sort(key=lambda f: f[0], reverse=True)
        chosen = [f for f in found if f[0][0]] + [f for f in found if not f[0][0]][:INJECT_BEST]
        for score, seq, key, attempt, g in chosen:
            if not await self.inject(seq, key, score, attempt, g):
                break
            self.good_prefixes.append(seq)
        for f in found:
            if f not in chosen:
                self.tried.discard(" ; ".join(f[1]))   # found again at the next plateau
        if not found and "prioritize_function" in self.tools:
            # A branch its function reaches but the policy could not solve:
            # more calls of that function give comparison feedback more to
            # work with. (Not a branch never reached: prioritizing the probe
            # of a maze cell no sequence reaches only starves the moves.)
            # A test's own branch (the comparison that would make it fail)
            # is no function to call (prioritizing it is refused); nor are
            # the handlers writing what it reads a choice to make blindly
            # (most of a harness's handlers write its ghost state).
            sigs = []
            for g in stuck:
                sig = g.get("signature")
                if g["missing"] == "never_true" and self.functions.get(sig, {}).get("fuzzed") \
                        and sig not in sigs and sig not in self.prioritized:
                    sigs.append(sig)
            for sig in sigs[:2]:
                self.prioritized.add(sig)
                await self.call("prioritize_function", {"functionSignature": sig})
        return bool(found)

    async def census_chains(self, corpus):
        """Precondition chains from the revert census: the functions that
        revert most in the last ten minutes (at least CENSUS_MIN_SHARE of
        their calls), each one's most frequent failure with the guard that
        failed and the callable functions whose writes can change what the
        guard reads (its enablers). Candidates: an enabler (its corpus calls,
        else wildcards) before the failing function (its failing call, its
        corpus calls), and one level further when the enabler's own calls
        revert at a guard with enablers. Screened with run_sequence; what
        passes a guard (new coverage) or breaks a test is a candidate for
        injection; the enablers are prioritized."""
        if "revert_census" not in self.tools:
            return []
        census = await self.call("revert_census", {"windowSeconds": 600, "top": 3})
        if not census:
            return []
        by_sig = {f["functionSignature"]: f for f in census["functions"]}

        def enablers_of(f):
            for reason in f.get("reasons", []):
                g = reason.get("guard") or {}
                own = f["functionSignature"]
                es = [e["function"].split(".", 1)[1] for e in g.get("enablers", []) if e.get("callable")]
                es = [e for e in es if e != own and e in self.functions]
                if es:
                    return reason, g, es
            return None, None, []

        def calls_of(sig, sample=None, n=2):
            out = [c for _, c in self.base_calls(sig, corpus, n)]
            if sample and sample not in out:
                out.insert(0, sample)
            if not out:
                out = [f"{sig_name(sig)}({', '.join('?' for _ in sig_types(sig))})"]
            return out[:n + 1]

        found = []
        ranked = sorted((f for f in census["functions"]
                         if f["calls"] and f["reverts"] / f["calls"] >= CENSUS_MIN_SHARE),
                        key=lambda f: -f["reverts"])
        for f in ranked[:CENSUS_FUNCTIONS]:
            sig = f["functionSignature"]
            reason, g, enablers = enablers_of(f)
            if not enablers:
                continue
            key = f"census:{sig}:{g.get('file')}:{g.get('line')}"
            attempt = f"steer:{key}:{self.plateaus}"
            gap = {"file": g.get("file", ""), "line": g.get("line", 0), "function": g.get("function", sig),
                   "condition": g.get("condition", reason["reason"])}
            await self.etg(attempt, f"plateau {self.plateaus}: {sig} reverts {f['reverts']}/{f['calls']} "
                                    f"({reason['reason']}) at `{gap['condition']}`; enablers {enablers[:CENSUS_ENABLERS]}", gap)
            cands = []
            for e in enablers[:CENSUS_ENABLERS]:
                # One level further: the enabler's own most frequent guard.
                _, _, deeper = enablers_of(by_sig.get(e, {}))
                for ec in calls_of(e):
                    for fc in calls_of(sig, reason.get("sample")):
                        cands.append([ec, fc])
                        # The failing call reading what the enabler
                        # returned (an id, shares): `f($1.id, …)`.
                        linked = self.linked(e, sig, fc, 1)
                        if linked:
                            cands.append([ec, linked])
                        for d in deeper[:1]:
                            cands.append([calls_of(d)[0], ec, linked or fc])
            best, screened = await self.screen(cands[:MAX_CANDIDATES], passes=True)
            if best:
                found.append((best[0], best[1], key, attempt, gap))
                log(f"{key}: {best[1]} -> {best[0][0]} falsified, {best[0][1]} new points")
            else:
                self.unsolved[key] = f"{screened} enabler chains screened, none reached new code"
                await self.etg(attempt, f"screened {screened} enabler chains, none reached new code", gap)
            # The enabler is prioritized only when a chain through it was
            # seen to work: the priority set takes 90% of generated calls,
            # and on a harness of many handlers an enabler prioritized on a
            # guess starves the other steps its properties need (measured
            # on the dev set: fewer properties broken than the sham).
            if best and "prioritize_function" in self.tools:
                for e in enablers[:1]:
                    if e not in self.prioritized:
                        self.prioritized.add(e)
                        await self.call("prioritize_function", {"functionSignature": e})
        return found

    def linked(self, producer, consumer, call, n):
        """`call` (of `consumer`) with the arguments that fit an output of
        `producer` (call `n` of the sequence) replaced by a reference to it:
        an output and a parameter of the same type whose names match
        (`id` and `marketId`, `shares` and `shares`), or the producer's only
        output of the parameter's type for the consumer's first parameter
        of that type. None when nothing fits."""
        outs = self.functions.get(producer, {}).get("outputs", [])
        ins = self.functions.get(consumer, {}).get("inputs", [])
        p = parse_call(call)
        if not outs or not ins or not p or len(p[2]) != len(ins):
            return None
        norm = lambda name: name.strip("_").lower()
        args, used, changed = list(p[2]), set(), False
        for j, param in enumerate(ins):
            if not re.fullmatch(r"u?int\d*|address|bytes32", param["type"]):
                continue
            same = [k for k, o in enumerate(outs) if o["type"] == param["type"]]
            by_name = [k for k in same if outs[k]["name"] and param["name"] and
                       (norm(outs[k]["name"]) in norm(param["name"]) or norm(param["name"]) in norm(outs[k]["name"]))]
            first_of_type = all(ins[i]["type"] != param["type"] for i in range(j))
            pick = by_name[0] if by_name else (same[0] if len(same) == 1 and first_of_type else None)
            if pick is None or pick in used:
                continue
            used.add(pick)
            if len(outs) == 1:
                args[j] = f"${n}"
            elif outs[pick]["name"]:
                args[j] = f"${n}.{outs[pick]['name']}"
            else:
                args[j] = f"${n}.{pick}"
            changed = True
        return render_call(p[0], p[1], args) if changed else None

    async def screen(self, seqs, passes=False):
        """Runs each new sequence once; the best (tests falsified, new
        points, shorter) that gained anything, and how many ran. With
        `passes`, a sequence whose every call succeeded gained too (a call
        that reverted at a guard now passes it: a precondition chain that
        works, worth injecting where coverage no longer grows)."""
        best, n = None, 0
        for seq in seqs:
            text = " ; ".join(seq)
            if text in self.tried:
                continue
            if not self.affordable(len(seq)):
                log(f"budget: {self.spent()} of {self.budget} spent, screening stops")
                break
            self.tried.add(text)
            n += 1
            r = await self.call("run_sequence", {"sequence": seq})
            self.run_once_calls += len(seq)
            if not r:
                continue
            # Tests the campaign has already falsified teach nothing.
            falsified = [t for t in r.get("falsified") or [] if t not in self.falsified_at]
            points = sum(c.get("newCoveragePoints", 0) for c in r.get("calls", []))
            calls = r.get("calls", [])
            passed = passes and len(calls) == len(seq) and all(c.get("outcome") == "success" for c in calls)
            if falsified or points or passed:
                score = (len(falsified), points, -len(seq))
                if best is None or score > best[0]:
                    best = (score, seq)
                if falsified:
                    break
        return best, n

    async def etg(self, attempt, message, g):
        """Records a step of the attempt on gap `g` (and makes it this
        session's current attempt: the tool calls that follow are logged
        under it)."""
        if "etg_log_event" in self.tools:
            await self.call("etg_log_event", {"attempt_id": attempt, "kind": "checkpoint", "payload": {
                "message": message, "branch": f"{g['file']}:{g['line']}", "function": g["function"],
                "files": [g["file"]]}})

    async def inject(self, seq, key, score, attempt, g):
        await self.etg(attempt, f"inject {' ; '.join(seq)} (screened: {score[0]} tests falsified, "
                                f"{score[1]} new points)", g)
        r = await self.call("inject_transaction", {"sequence": seq, "repeat": 1})
        if r:
            workers = int(self.opts.workers or 1)
            self.injected_calls += len(seq) * workers
            self.injections.append({"gap": key, "sequence": seq,
                                    "screened": {"falsified": score[0], "newPoints": score[1]}})
            log(f"injected {seq}")
        return r is not None

    async def given_up(self, g):
        """Whether earlier attempts on this branch (this run's plateaus, or an
        earlier run on the same corpus directory) tried ETG_GIVE_UP times
        without any gain."""
        if "etg_query_similar_attempts" not in self.tools:
            return False
        branch = f"{g['file']}:{g['line']}"
        r = await self.call("etg_query_similar_attempts", {"query": f"{branch} {g['condition']}",
                                                           "files": [g["file"]], "min_score": 0.5, "top_k": 20})
        fruitless = 0
        for m in (r or {}).get("matches", []):
            o = m.get("outcome", {})
            if str(m.get("attempt_id", "")).startswith(f"steer:{branch}:") and not o.get("coverageFromInjections") \
                    and not o.get("coverageInWindow") and not o.get("falsifiedInWindow"):
                fruitless += 1
        return fruitless >= ETG_GIVE_UP

    async def read_gaps(self):
        """Gaps by function, ranked; for each gap the chain of the function's
        gaps up to it (nested conditions solved together)."""
        names = sorted({f"{f['contract']}.{sig_name(sig)}" for sig, f in self.functions.items()
                        if f.get("fuzzed")} - self.not_in_graph)
        r = None
        while names and r is None:
            errors = []
            r = await self.call("graph_context_for_files", {"project_root": os.getcwd(), "files": names,
                                                             "max_tokens": 60000}, errors)
            # A public variable's getter is a function of the target but not
            # of the graph, and one unknown name refuses the whole request.
            field = (errors[0].get("error", {}).get("details", {}).get("field", "") if errors else "")
            m = re.fullmatch(r"files\[(\d+)\]", field)
            if r is None and not m:
                break
            if r is None:
                self.not_in_graph.add(names.pop(int(m.group(1))))
        self.consts = {}
        self.writes_map = {}
        seen, gaps = set(), []
        for ctx in (r or {}).get("contexts", []):
            for line in ctx.get("summary", "").splitlines():
                m = re.match(r"(?:function|constructor) (\S+\(.*?\)) .*?; writes ([^;]+)", line)
                if m:
                    self.writes_map[m.group(1)] = {w.strip() for w in m.group(2).split(",")}
                if line.startswith("contract ") and "state:" in line:
                    cname = line.split()[1].rstrip(";")
                    for decl in line.split("state:", 1)[1].split(";"):
                        m = re.match(r"\s*[\w\[\]]+\s+(\w+)\s*=\s*(.+)$", decl)
                        if m:
                            self.add_const(f"{cname}.{m.group(1)}", m.group(2).strip())
            for g in ctx.get("gaps", []):
                k = (g["file"], g["line"], g["condition"], g["missing"])
                if k not in seen:
                    seen.add(k)
                    gaps.append(g)
        for g in gaps:
            for c in g.get("constants", []):
                if "=" in c:
                    name, text = c.split("=", 1)
                    self.add_const(name.strip(), text.strip())
        rank = {"never_true": 0, "never_reached": 1, "never_false": 2}
        gaps.sort(key=lambda g: (rank.get(g["missing"], 3), g["file"], g["line"]))
        out = []
        for g in gaps:
            chain = [h for h in gaps if h["function"] == g["function"] and h["line"] < g["line"]
                     and h["missing"] != "never_false"]
            chain.sort(key=lambda h: h["line"])
            out.append((f"{g['file']}:{g['line']}", chain + [g]))
        # Deepest chain of a function first: the rungs above are solved with it.
        out.sort(key=lambda kc: (-len(kc[1]), rank.get(kc[1][0]["missing"], 3), kc[0]))
        return out

    def add_const(self, name, text):
        v = number_text(text)
        if v is None:
            node = parse_expr(text)
            if node is not None:
                try:
                    v = Model(self.consts, {}, {}, {}).ev(node, {})
                except (Opaque, Unknown, ZeroDivisionError):
                    v = None
        if v is not None:
            self.consts[name] = v
            self.consts.setdefault(name.split(".")[-1], v)

    async def read_corpus(self):
        """Every corpus call, grouped by entry: {entryId: [call text]}."""
        if "inspect_corpus_transactions" not in self.tools:
            return {}
        entries, offset = {}, 0
        while offset < 2000:
            r = await self.call("inspect_corpus_transactions", {"limit": 100, "offset": offset})
            if not r or not r.get("transactions"):
                break
            for t in r["transactions"]:
                entries.setdefault(t["entryId"], []).append((t["position"], t["call"]))
            offset += len(r["transactions"])
            if offset >= r.get("total", 0):
                break
        return {e: [c for _, c in sorted(v)] for e, v in entries.items()}

    def base_calls(self, sig, corpus, n=4):
        """Up to `n` corpus calls of `sig` with distinct arguments, each with
        the calls of its entry before it (shortest prefixes first)."""
        name = sig_name(sig)
        arity = len(sig_types(sig))
        found = []
        for e in sorted(corpus):
            for i, c in enumerate(corpus[e]):
                p = parse_call(c)
                if p and p[0] == name and len(p[2]) == arity:
                    found.append((len(corpus[e][:i]), e, corpus[e][:i], c))
        found.sort(key=lambda f: (f[0], f[1]))
        out, seen = [], set()
        for _, _, prefix, c in found:
            args = tuple(parse_call(c)[2])
            if args not in seen:
                seen.add(args)
                out.append((prefix, c))
            if len(out) == n:
                break
        return out

    async def time_var(self, var, writers):
        """Whether state variable `var` records block.timestamp when its
        writer runs: (writer, value with no delay), found through the getter."""
        if var in self.time_vars:
            return self.time_vars[var]
        self.time_vars[var] = None
        getter = f"{var}()"
        if getter not in self.functions:
            return None
        for w in writers:
            types = sig_types(w)
            for s in self.senders:
                args = [zero_of(t) if t != "address" else "0x%040x" % next(x for x in self.senders if x != s)
                        for t in types]
                vals = []
                for delay in (0, 1000):
                    if not self.affordable(2):
                        break
                    opts = {"from": "0x%040x" % s}
                    if delay:
                        opts["delay"] = str(delay)
                    r = await self.call("run_sequence", {"sequence": [render_call(sig_name(w), opts, args), getter]})
                    self.run_once_calls += 2
                    if not r or not r.get("complete", True) or r["calls"][0]["outcome"] != "success":
                        break
                    ret = r["calls"][1].get("returns") or []
                    vals.append(parse_int(str(ret[0]["value"])) if ret else None)
                if len(vals) == 2 and None not in vals and vals[1] - vals[0] == 1000:
                    self.time_vars[var] = (w, vals[0])
                    return self.time_vars[var]
        return None

    # -- candidates --------------------------------------------------------------

    async def candidates(self, chain, corpus):
        g = chain[-1]
        # The conditions that must hold before the gap's is evaluated (an
        # enclosing `if`, a `require` above it) are solved with it, unless the
        # chain already holds them as gaps of their own; they come last, so
        # a guard's bound (`b >= 2**64`) constrains the gap's solution rather
        # than fixing a value first.
        lines = {h["line"] for h in chain}
        chain = chain + [{"line": x["line"], "condition": x["condition"], "missing": "never_true", "guard": True}
                         for x in g.get("guards", []) if x["line"] not in lines]
        sig = g["signature"]
        fn = self.functions.get(sig)
        if fn is None:
            return [], f"{g['function']} is not called by the fuzzer (internal or excluded)"
        types = sig_types(sig)
        names = self.param_names.get(sig)
        if names is None:
            if any(h.get("params") for h in chain):
                return [], "no tool names the function's parameters (the gap names them, the ABI order is unknown)"
            names = [f"_{i}" for i in range(len(types))]
        state_writers = {}
        self.assigns = {}   # (writer signature, short variable) -> [(lhs, op, rhs in the writer's scope)]
        for h in chain:
            for w in h.get("writes", []):
                for c in w.get("constants", []):
                    name, _, text = c.partition("=")
                    self.add_const(name.strip(), text.strip())
                a = parse_assignment(w.get("assignment", ""))
                w_sig = w["entryPoint"].split(".", 1)[-1]
                if a and w_sig in self.functions:
                    lhs, op, rhs = a
                    key = (w_sig, w["variable"].split(".")[-1])
                    entry = (lhs, op, substitute(rhs, bindings_of(w)))
                    if entry not in self.assigns.setdefault(key, []):
                        self.assigns[key].append(entry)
            written = sorted({w["variable"] for w in h.get("writes", [])} - set(h.get("state", [])))
            for sv in h.get("state", []) + written:
                short = sv.split(".")[-1]
                ws = state_writers.setdefault(short, [])
                # The entry points the graph says assign it; without that,
                # every writer of the gap's state the summary does not rule out.
                stated = [w["entryPoint"] for w in h.get("writes", []) if w["variable"] == sv]
                for w in stated or (h.get("state_writers", []) if sv in h.get("state", []) else []):
                    w_sig = w.split(".", 1)[-1]
                    if (stated or self.writes(w, sv)) and w_sig not in ws and w_sig in self.functions:
                        ws.append(w_sig)
        controls, bounds, time_info = {}, {}, {}
        for short, ws in state_writers.items():
            if ws:
                tv = await self.time_var(short, ws)
                if tv:
                    time_info[short] = tv
                    bounds[short] = tv[1]
                controls[short] = "state"
        for n in names:
            controls[n] = "param"
        if fn.get("mutability") == "payable":
            controls["msg_value"] = "value"
        controls["msg_sender"] = "sender"
        controls["block_timestamp"] = "time"
        if time_info:
            bounds["block_timestamp"] = min(v for _, v in time_info.values())
        seen_values = await self.accepted_values(state_writers, corpus)
        bases = self.base_calls(sig, corpus) or [([], None)]
        env0 = {"__this": int(self.target.get("address", "0x0"), 16)}
        seqs, why = [], None
        for prefix, base_text in bases:
            if base_text:
                _, base_opts, base_args = parse_call(base_text)
            else:
                base_opts, base_args = {}, [zero_of(t) for t in types]
            defaults = dict(seen_values)
            for i, n in enumerate(names):
                v = parse_int(base_args[i]) if i < len(base_args) else None
                if v is not None:
                    defaults[n] = v
            model = Model(self.consts, controls, defaults, bounds)
            model.senders = self.senders
            terms = []
            for h in chain:
                # A local the condition goes through stands for its value.
                cond = substitute(h["condition"], {l["name"]: l["init"] for l in h.get("locals", [])
                                                   if l.get("init")})
                node = parse_expr(cond)
                try:
                    if node is None:
                        raise Opaque("its syntax")
                    model.unknowns(node, env0)
                except Opaque as e:
                    if h.get("guard"):
                        continue    # left to the corpus prefix
                    why = f"`{h['condition']}` needs `{e}`, which no tool gives a value or a writer for"
                    terms = []
                    break
                terms.append(node if h["missing"] != "never_false" else ast.UnaryOp(op=ast.Not(), operand=node))
            if not terms:
                continue
            # One conjunction: every term's bounds are noted before any is solved.
            envs = model.solve(ast.BoolOp(op=ast.And(), values=terms), env0, True)
            if not envs:
                why = f"`{g['condition']}`: no solution from what the graph states"
                continue
            if envs == [env0]:
                continue
            for env in envs:
                seqs += self.realize(env, sig, names, types, base_args, base_opts, prefix,
                                     state_writers, time_info)
        out, seen = [], set()
        for s in seqs:
            k = tuple(s)
            if k not in seen:
                seen.add(k)
                out.append(s)
        return out, (why or self.realize_why or "no candidate could be written")

    async def accepted_values(self, state_writers, corpus):
        """A value each state variable takes when one of its writers runs
        without reverting (corpus calls of the writer first, then a few
        magnitudes; each checked once with run_sequence and remembered): where
        both sides of a comparison are state, the side fixed first takes it."""
        out = {}
        for var, ws in state_writers.items():
            if var in self.accepted:
                if self.accepted[var] is not None:
                    out[var] = self.accepted[var]
                continue
            self.accepted[var] = None
            for w in ws:
                names = self.param_names.get(w) or []
                types = sig_types(w)
                for lhs, op, rhs in self.assigns.get((w, var), []):
                    node = parse_expr(rhs)
                    if op not in ("=", "+=") or node is None or not types:
                        continue
                    trials = [parse_call(text) for _, text in self.base_calls(w, corpus)]
                    for v in (1, 10**3, 10**6, 10**9, 10**18):
                        trials.append((sig_name(w), {}, [render_value(fit(v, t), t) if fit(v, t) is not None
                                                         else self.addr_arg(t, None) for t in types]))
                    for name, opts, args in trials[:8]:
                        env = {n: parse_int(a) for n, a in zip(names, args) if parse_int(a) is not None}
                        try:
                            value = Model(self.consts, {}, {}, {}).ev(node, env)
                        except (Opaque, Unknown, ZeroDivisionError, ValueError, OverflowError):
                            continue
                        if not self.affordable(1):
                            break
                        r = await self.call("run_sequence", {"sequence": [render_call(name, opts, args)]})
                        self.run_once_calls += 1
                        if r and r.get("calls") and r["calls"][0].get("outcome") == "success":
                            self.accepted[var] = out[var] = value
                            break
                    if var in out:
                        break
                if var in out:
                    break
        return out

    def assigned(self, w, var, value):
        """Ways one call of writer `w` sets `var` to `value` by the assignment
        the graph states (`var = e` or `var += e` from zero, `e` over `w`'s
        parameters and msg.value): [(opts, {parameter index: value})]; a
        constant step (`var++`) as the number of calls in opts["times"]."""
        names = self.param_names.get(w) or []
        types = sig_types(w)
        controls = {n: "param" for n in names}
        if self.functions.get(w, {}).get("mutability") == "payable":
            controls["msg_value"] = "value"
        out = []
        for lhs, op, rhs in self.assigns.get((w, var), []):
            node = parse_expr(rhs)
            if op not in ("=", "+=") or node is None:
                continue
            model = Model(self.consts, controls, {}, {})
            model.senders = self.senders
            try:
                unknown = model.unknowns(node, {})
                if var in unknown:
                    continue
                if not unknown:
                    step = model.ev(node, {})
                    if op == "+=" and step > 0 and value % step == 0 and 0 < value // step <= 16:
                        out.append(({"times": value // step}, {}))
                    continue
            except (Opaque, Unknown, ZeroDivisionError, ValueError, OverflowError):
                continue
            for env in model.solve_cmp(node, ast.Eq, ast.Constant(value), {})[:4]:
                opts, args = {}, {}
                for i, (n, t) in enumerate(zip(names, types)):
                    if n in env:
                        v = fit(env[n], t)
                        if v is None:
                            break
                        args[i] = render_value(v, t)
                else:
                    if "msg_value" in env:
                        if env["msg_value"] < 0:
                            continue
                        opts["value"] = str(env["msg_value"])
                    out.append((opts, args))
        return out

    def chain_to(self, var, value, writers):
        """Calls that bring `var` from zero to `value` when its writers update
        it from its own value (`trail = (trail << 4) | code`): peeled from the
        last call backwards by inverting each writer's assignment."""
        steps = []
        for w in writers:
            for lhs, op, rhs in self.assigns.get((w, var), []):
                node = parse_expr(rhs if op == "=" else f"{lhs} {op[0]} ({rhs})")
                if node is not None and any(isinstance(n, ast.Name) and n.id == var for n in ast.walk(node)) \
                        and not sig_types(w):
                    steps.append((w, node))
        if not steps:
            return None
        stack, seen, visits = [(value, [])], set(), 0
        while stack and visits < 4000:
            cur, path = stack.pop()
            visits += 1
            if cur == 0 and path:
                return list(reversed(path))
            if len(path) >= 16:
                continue
            for w, node in steps:
                model = Model(self.consts, {var: "state"}, {}, {})
                try:
                    envs = model.invert(node, cur, {})
                except (Opaque, Unknown, ZeroDivisionError, ValueError, OverflowError):
                    continue
                for env in envs[:4]:
                    prev = env.get(var)
                    if prev is None or prev < 0 or prev == cur or (prev, len(path)) in seen:
                        continue
                    seen.add((prev, len(path)))
                    stack.append((prev, path + [w]))
        return None

    def writes(self, writer, var):
        """Whether the graph's summary says `writer` writes `var` (true when
        the summary does not say)."""
        w = self.writes_map.get(writer)
        return w is None or var in w

    def realize(self, env, sig, names, types, base_args, base_opts, prefix, state_writers, time_info):
        """Call sequences for one solution: the writers of the state it fixed
        (one call per writer: arguments for values, a delay for a recorded
        timestamp), then the call holding the branch; also after the corpus
        prefix and after sequences that reached new code before."""
        self.realize_why = None
        args = list(base_args)
        for i, (n, t) in enumerate(zip(names, types)):
            if n in env:
                v = fit(env[n], t)
                if v is None:
                    self.realize_why = f"{n} = {env[n]} does not fit {t}"
                    return []
                args[i] = render_value(v, t)
        sender = env.get("msg_sender")
        opts = {}
        if "msg_value" in env:
            if env["msg_value"] < 0:
                return []
            opts["value"] = str(env["msg_value"])
        fixed = [v for v in state_writers if v in env]
        chained = []
        for var in list(fixed):
            ch = self.chain_to(var, env[var], state_writers[var])
            if ch:
                chained += [(sig_name(w), {}, []) for w in ch]
                fixed.remove(var)
        combos = [[]]
        for var in fixed:
            combos = [c + [(var, w)] for c in combos for w in state_writers[var]][:12]
        clock = None
        writer_seqs = []
        for combo in combos:
            by_writer = {}
            for var, w in combo:
                by_writer.setdefault(w, []).append(var)
            per_writer = []
            for w, vars_ in by_writer.items():
                wtypes = sig_types(w)
                wfn = self.functions.get(w, {})
                variants = [({}, [self.addr_arg(t, sender) for t in wtypes], set())]
                for var in vars_:
                    value = env[var]
                    nxt = []
                    for o, a, used in variants:
                        for opts2, set_args in self.assigned(w, var, value):
                            if used & set(set_args) or ("value" in opts2 and "value" in o):
                                continue
                            a2 = list(a)
                            for i, v in set_args.items():
                                a2[i] = v
                            nxt.append(({**o, **opts2}, a2, used | set(set_args)))
                    if var in time_info and time_info[var][0] == w:
                        delay = value - time_info[var][1]
                        if delay >= 0:
                            clock = value
                            nxt = [({**o, "delay": str(delay)}, a, used) for o, a, used in variants]
                    else:
                        for o, a, used in variants:
                            for i, t in enumerate(wtypes):
                                v = fit(value, t)
                                if v is not None and i not in used:
                                    a2 = list(a)
                                    a2[i] = render_value(v, t)
                                    nxt.append((o, a2, used | {i}))
                            if wfn.get("mutability") == "payable" and value >= 0 and "value" not in o:
                                nxt.append(({**o, "value": str(value)}, a, used))
                    if not nxt:
                        self.realize_why = (f"{var} = {value} fits no parameter of {w}, and the graph does not "
                                            f"say how {sig_name(w)} computes {var}")
                        variants = []
                        break
                    variants = nxt[:8]
                if not variants:
                    per_writer = None
                    break
                per_writer.append([(sig_name(w), o, a) for o, a, _ in variants])
            if per_writer is None:
                continue
            seqs = [[]]
            for options in per_writer:
                seqs = [s + [o] for s in seqs for o in options][:12]
            writer_seqs += seqs
        if fixed and not writer_seqs:
            return []
        if not fixed:
            writer_seqs = [[]]
        # A constant step repeated: `times` calls of the writer.
        writer_seqs = [[c for name, o, a in ws
                        for c in [(name, {k: v for k, v in o.items() if k != "times"}, a)] * int(o.get("times", 1))]
                       for ws in writer_seqs]
        writer_seqs = [chained + ws for ws in writer_seqs]
        if "block_timestamp" in env:
            if clock is None:
                self.realize_why = "block.timestamp is compared but no tool says what time it is"
                return []
            delay = env["block_timestamp"] - clock
            if delay < 0:
                return []
            opts["delay"] = str(delay)
        out = []
        timed = "delay" in opts or any("delay" in w[1] for ws in writer_seqs for w in ws)
        # Writers send from the sender of the call holding the branch (a
        # corpus call's, when the solution does not fix it): state keyed by
        # msg.sender must be the caller's.
        first = sender
        if first is None and "from" in base_opts:
            first = parse_int(base_opts["from"])
        for ws in writer_seqs:
            for wsender in ([first] + [x for x in self.senders if x != first]) if ws else [sender]:
                seq = []
                for wname, wopts, wargs in ws:
                    o = dict(wopts)
                    if wsender is not None:
                        o = {"from": "0x%040x" % wsender, **o}
                    seq.append(render_call(wname, o, wargs))
                o = dict(opts)
                if sender is not None:
                    o = {"from": "0x%040x" % sender, **o}
                elif "from" in base_opts:
                    o = {"from": base_opts["from"], **o}
                seq.append(render_call(sig_name(sig), o, args))
                out.append(seq)
                if not timed:
                    if prefix:
                        out.append(strip_delays(prefix) + seq)
                    for good in self.good_prefixes[-3:]:
                        out.append(strip_delays(good) + seq)
        return out

    def addr_arg(self, t, sender):
        if t == "address":
            other = next((x for x in self.senders if x != sender), self.senders[0])
            return "0x%040x" % other
        return zero_of(t)


ASSIGN = re.compile(r"^(?P<lhs>[^=]+?)\s*(?P<op>[-+*/|&^]?=|\+\+|--)\s*(?P<rhs>.*)$")


def parse_assignment(text):
    """`lhs op rhs` of an assignment as the graph writes it (`x = e`,
    `m[k] += e`, `x++`, `x--`); None for anything else (`delete x`)."""
    m = ASSIGN.match(text.strip())
    if not m or text.strip().startswith("delete "):
        return None
    lhs, op, rhs = m.group("lhs").strip(), m.group("op"), m.group("rhs").strip()
    if op in ("++", "--"):
        if rhs:
            return None
        op, rhs = ("+=" if op == "++" else "-="), "1"
    return lhs, op, rhs


def substitute(text, defs):
    """`text` with each name of `defs` replaced by its definition, in
    parentheses (a helper's parameters by its caller's arguments, a local by
    its initial value), a few levels deep."""
    if not defs:
        return text
    pat = re.compile(r"(?<![\w.])(" + "|".join(re.escape(k) for k in defs) + r")\b")
    for _ in range(4):
        new = pat.sub(lambda m: f"({defs[m.group(1)]})", text)
        if new == text:
            break
        text = new
    return text


def bindings_of(write):
    """{helper parameter: argument text} of one of the graph's writes."""
    out = {}
    for b in write.get("bindings", []):
        name, _, arg = b.partition(" = ")
        if name and arg and name != arg:
            out[name] = arg
    return out


def strip_delays(seq):
    out = []
    for c in seq:
        p = parse_call(c)
        if not p:
            out.append(c)
            continue
        name, opts, args = p
        opts = {k: v for k, v in opts.items() if k not in ("delay", "blocks")}
        out.append(render_call(name, opts, args))
    return out


def budget_of(opts):
    """The call budget: --budget, else a numeric test limit, else None."""
    if getattr(opts, "budget", None):
        return int(opts.budget)
    t = str(opts.test_limit or "").replace("_", "")
    return int(t) if t.isdigit() else None


# The official SDK's two major versions name a result's fields differently:
# snake_case in mcp 2.x, camelCase (as on the wire) in 1.x.
def structured(result):
    """A tool result's structured content, None if it has none."""
    return result.structured_content if hasattr(result, "structured_content") else result.structuredContent


def is_error(result):
    """Whether a tool result is an error (a refusal)."""
    return bool(result.is_error if hasattr(result, "is_error") else result.isError)


def answer(result):
    if structured(result) is not None:
        return structured(result)
    for c in result.content:
        if getattr(c, "type", None) == "text":
            try:
                return json.loads(c.text)
            except ValueError:
                return {}
    return {}


def canonical_type(inp):
    t = inp["type"]
    if t.startswith("tuple"):
        return "(" + ",".join(canonical_type(c) for c in inp.get("components", [])) + ")" + t[5:]
    return t


def abi_param_names(target, contract):
    """{signature: [parameter names]} from the target's ABI, where the target
    is a JSON artifact (solc standard JSON, a build-info, a Foundry artifact).
    No MCP tool gives parameter names, which the graph's gaps use."""
    out = {}
    paths = []
    if os.path.isdir(target):
        for dirpath, _, files in os.walk(target):
            paths += [os.path.join(dirpath, f) for f in files if f.endswith(".json")]
    elif target.endswith(".json"):
        paths = [target]
    for p in paths[:2000]:
        try:
            with open(p) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            continue
        abis = []
        contracts = doc.get("contracts") or doc.get("output", {}).get("contracts")
        if isinstance(contracts, dict):
            for per_file in contracts.values():
                for cname, c in per_file.items():
                    if isinstance(c, dict) and "abi" in c:
                        abis.append(c["abi"])
        elif isinstance(doc.get("abi"), list):
            abis.append(doc["abi"])
        for abi in abis:
            for item in abi:
                if item.get("type") == "function":
                    sig = f"{item['name']}({','.join(canonical_type(i) for i in item['inputs'])})"
                    out.setdefault(sig, [i.get("name") or f"_{k}" for k, i in enumerate(item["inputs"])])
    return out


async def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("target")
    ap.add_argument("--seed")
    ap.add_argument("--timeout", type=int)
    ap.add_argument("--test-limit")
    ap.add_argument("--contract")
    ap.add_argument("--config")
    ap.add_argument("--workers")
    ap.add_argument("--out-dir")
    ap.add_argument("--budget", type=int, help="calls the policy may spend: the campaign's (injected ones "
                    "included) plus run-once calls (default: the test limit)")
    ap.add_argument("--sham", action="store_true", help="watch only: the same polls and reads, no steering")
    ap.add_argument("--checkpoint", type=int)
    ap.add_argument("--verbose", action="store_true")
    opts = ap.parse_args()
    global CHECKPOINT
    if opts.checkpoint:
        CHECKPOINT = opts.checkpoint
    rudder = os.environ.get("RUDDER") or os.path.join(ROOT, "target", "release", "rudder")
    out_dir = opts.out_dir or tempfile.mkdtemp(prefix="steer-")
    args = ["mcp", opts.target, "--out-dir", out_dir]
    test_limit = opts.test_limit if opts.test_limit is not None else opts.budget
    for flag, v in (("--seed", opts.seed), ("--timeout", opts.timeout), ("--test-limit", test_limit),
                    ("--contract", opts.contract), ("--config", opts.config), ("--workers", opts.workers)):
        if v is not None:
            args += [flag, str(v)]
    log(f"{rudder} {' '.join(args)}")
    err = tempfile.TemporaryFile(mode="w+")
    steer = None
    async with stdio_client(StdioServerParameters(command=rudder, args=args, cwd=os.getcwd()),
                            errlog=err) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            steer = Steer(session, opts)
            await steer.run()
            report = await steer.final_report()
    err.seek(0)
    sys.stderr.write(err.read())
    # Spent: the campaign's calls (injected ones included) and run-once calls.
    spent = int(report.get("calls") or 0) + steer.run_once_calls
    report["steering"] = {
        "mode": "sham" if steer.sham else "steer",
        "budget": steer.budget,
        "spentCalls": spent,
        "budgetSpent": steer.budget_spent or bool(steer.budget and spent >= steer.budget),
        "plateaus": steer.plateaus,
        "toolCalls": steer.tool_calls,
        "toolCallsByName": dict(sorted(steer.by_tool.items())),
        "runOnceCalls": steer.run_once_calls,
        "injectedCalls": steer.injected_calls,
        "injections": steer.injections,
        "falsifiedAtCalls": steer.falsified_at,
        "unsolvedGaps": steer.unsolved,
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(asyncio.run(main()))
    except BaseExceptionGroup as group:
        def leaves(g):
            for e in g.exceptions:
                yield from leaves(e) if isinstance(e, BaseExceptionGroup) else [e]
        for e in leaves(group):
            if isinstance(e, SystemExit):
                raise e from group
        raise
