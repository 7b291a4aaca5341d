//! The path-condition solver: arguments for a traced call (see
//! [`crate::executor::symbolic`]) that keep the branches before a target as
//! they went and turn the target the other way.
//!
//! A local search over the call's static arguments, as bit-vector solvers
//! that propagate wanted values do: while some condition fails, one of its
//! arguments takes the value that makes it hold, found by walking down the
//! condition's term and inverting each operation on the way (`a + b == r`
//! gives `a = r - b`; `13 * a == r` gives `a = r * 13⁻¹ mod 2^256`; `a < b`
//! gives `b - 1` or a value below), or a neighbour of its value; a move is
//! kept when fewer conditions fail, or as many by a smaller distance. It
//! needs no solver library, handles wrapped sums and products exactly, and
//! a solution is run for real before it counts.
//!
//! Where the local search fails, the conditions are bit-blasted and handed
//! to a SAT solver within a fixed budget ([`blast`]): guards that hold only
//! together, whose roots the local search must choose blindly, are solved
//! there exactly.

mod blast;

use super::input_to_state::solve_mul;
use super::*;
use crate::coverage::CodeId;
use crate::executor::symbolic::{
    self, ADD, AND, DIV, EQ, GT, ISZERO, LT, MOD, MUL, OR, SGT, SHL, SHR, SIGNEXTEND, SLT, SUB,
    SymTrace, Term, TermId, XOR,
};

/// Branches turned per traced call at most (the last ones on the path
/// first: the frontier).
pub const SOLVE_TARGETS: usize = 4;

/// Moves tried per target at most.
const SOLVE_STEPS: usize = 300;

/// Conditions one move mends at most after the value it tried broke them.
const REPAIRS: usize = 4;

/// Moves without a better score before the search starts again from the
/// traced call's arguments (one of them drawn afresh).
const RESTART_AFTER: usize = 60;

/// Evaluations one bit-by-bit search for an equality's root may spend.
const LIFT_EVALS: usize = 256;

/// The values one argument word can hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Domain {
    Uint(usize),
    Int(usize),
    Bool,
    Address,
    Fixed(usize),
}

impl Domain {
    fn of(v: &DynSolValue) -> Option<Domain> {
        Some(match v {
            DynSolValue::Uint(_, bits) => Domain::Uint(*bits),
            DynSolValue::Int(_, bits) => Domain::Int(*bits),
            DynSolValue::Bool(_) => Domain::Bool,
            DynSolValue::Address(_) => Domain::Address,
            DynSolValue::FixedBytes(_, n) => Domain::Fixed(*n),
            _ => return None,
        })
    }

    /// The nearest word of the domain to `w` (its low bits, sign-extended
    /// for a signed type; its high bytes for `bytesN`).
    fn fit(self, w: U256) -> U256 {
        let low = |bits: usize| {
            if bits >= 256 {
                U256::MAX
            } else {
                (U256::ONE << bits) - U256::ONE
            }
        };
        match self {
            Domain::Uint(bits) => w & low(bits),
            Domain::Int(bits) if bits >= 256 => w,
            Domain::Int(bits) => symbolic::sign_extend(U256::from(bits / 8 - 1), w),
            Domain::Bool => w & U256::ONE,
            Domain::Address => w & low(160),
            Domain::Fixed(n) => w & !low(256 - 8 * n),
        }
    }

    fn value(self, w: U256) -> DynSolValue {
        match self {
            Domain::Uint(bits) => DynSolValue::Uint(w, bits),
            Domain::Int(bits) => DynSolValue::Int(I256::from_raw(w), bits),
            Domain::Bool => DynSolValue::Bool(!w.is_zero()),
            Domain::Address => DynSolValue::Address(Address::from_word(B256::from(w))),
            Domain::Fixed(n) => DynSolValue::FixedBytes(B256::from(w), n),
        }
    }
}

/// Head words an argument takes (a static tuple or array is inline).
fn head_words(v: &DynSolValue) -> usize {
    match v {
        DynSolValue::Tuple(vs) | DynSolValue::FixedArray(vs) if !v.is_dynamic() => {
            vs.iter().map(head_words).sum()
        }
        _ => 1,
    }
}

/// What a condition's term should be.
#[derive(Clone, Copy, Debug)]
enum Want {
    Value(U256),
    NonZero,
}

impl Want {
    fn truthy(self) -> bool {
        match self {
            Want::Value(v) => !v.is_zero(),
            Want::NonZero => true,
        }
    }

    fn value(self, rng: &mut SmallRng) -> U256 {
        match self {
            Want::Value(v) => v,
            Want::NonZero => match rng.random_range(0..3) {
                0 => U256::ONE,
                1 => U256::from(rng.random::<u64>() | 1),
                _ => U256::MAX,
            },
        }
    }
}

/// A random word of at most `bits` bits (small widths more often).
fn random_word(rng: &mut SmallRng, bits: usize) -> U256 {
    let bits = rng.random_range(1..=bits.clamp(1, 256));
    let w = U256::from_limbs([rng.random(), rng.random(), rng.random(), rng.random()]);
    if bits >= 256 {
        w
    } else {
        w & ((U256::ONE << bits) - U256::ONE)
    }
}

/// A value `x` with `x < o` (`below`) or `x >= o`, the boundary half the
/// time; none if there is no such value.
fn on_side(rng: &mut SmallRng, o: U256, below: bool) -> Option<U256> {
    if below {
        if o.is_zero() {
            return None;
        }
        Some(if rng.random_bool(0.5) {
            o - U256::ONE
        } else {
            random_word(rng, o.bit_len()) % o
        })
    } else {
        Some(if rng.random_bool(0.5) {
            o
        } else {
            o.saturating_add(random_word(rng, 16))
        })
    }
}

/// The search over one traced call.
struct Search<'a> {
    trace: &'a SymTrace,
    deps: &'a [u64],
    /// The conditions to meet: term and whether it must be nonzero.
    conds: Vec<(TermId, bool)>,
    /// The domain of each head word that is an argument of its own.
    domains: &'a [Option<Domain>],
    /// Those head words (the arguments the search may change).
    vars: u64,
    /// Arguments an equality on the path defines: `var` takes the value of
    /// the term on the equality's other side, computed before the
    /// conditions are evaluated, each definition after those it reads. The
    /// equality then holds by construction and the search moves the other
    /// arguments (this is how a cycle of equalities, `a == b + c`,
    /// `b == 3 * d`, `c == a * d`, closes: one root of one equation in `d`).
    defs: Vec<(usize, TermId)>,
    /// The arguments `defs` defines.
    defined: u64,
    /// The first term reading each head word.
    first: [TermId; 64],
    upto: TermId,
    vals: Vec<U256>,
    /// The values of a bit-by-bit search's evaluations (`vals` stays the
    /// current words').
    scratch: Vec<U256>,
    /// The conditions the last evaluation found failing.
    failing: Vec<usize>,
    /// Terms evaluated so far (the work done).
    work: u64,
}

impl Search<'_> {
    /// How far the current values are from meeting a condition (zero: it
    /// holds): the gap between an ordering's or equality's operands.
    fn distance(&self, t: TermId, want: bool) -> U256 {
        let v = |t: TermId| self.vals[t as usize];
        let signed = |x: U256| x ^ (U256::ONE << 255);
        match self.trace.terms[t as usize] {
            Term::Un(ISZERO, a) => self.distance(a, !want),
            Term::Bin(EQ, a, b) if (v(a) == v(b)) != want => {
                if want {
                    let d = v(a).wrapping_sub(v(b));
                    d.min(v(b).wrapping_sub(v(a)))
                } else {
                    U256::ONE
                }
            }
            Term::Bin(op @ (LT | GT | SLT | SGT), a, b) => {
                let (mut x, mut y) = (v(a), v(b));
                if op == SLT || op == SGT {
                    (x, y) = (signed(x), signed(y));
                }
                if op == GT || op == SGT {
                    (x, y) = (y, x);
                }
                // Now the condition is x < y.
                match (x < y, want) {
                    (true, true) | (false, false) => U256::ZERO,
                    (false, true) => (x - y).saturating_add(U256::ONE),
                    (true, false) => y - x,
                }
            }
            _ => {
                let x = v(t);
                match (x.is_zero(), want) {
                    (false, true) | (true, false) => U256::ZERO,
                    (true, true) => U256::ONE,
                    (false, false) => x.min(x.wrapping_neg()),
                }
            }
        }
    }

    /// Gives the defined arguments of `words` their definitions' values.
    fn settle(&mut self, words: &mut [U256]) {
        self.work += settle(
            self.trace,
            &self.defs,
            self.domains,
            &self.first,
            words,
            &mut self.vals,
        );
    }

    /// The arguments term `t` depends on, directly or through a definition.
    fn reach(&self, t: TermId) -> u64 {
        let mut d = self.deps[t as usize] & self.vars;
        loop {
            let mut n = d;
            for &(v, dt) in &self.defs {
                if d & 1 << v != 0 {
                    n |= self.deps[dt as usize] & self.vars;
                }
            }
            if n == d {
                return d;
            }
            d = n;
        }
    }

    /// The sides of condition `t` if it holds when they are equal (`a ==
    /// b`, or `x == 0`: no second side).
    fn equation(&self, mut t: TermId, mut want: bool) -> Option<(TermId, Option<TermId>)> {
        loop {
            match self.trace.terms[t as usize] {
                Term::Un(ISZERO, a) => (t, want) = (a, !want),
                Term::Bin(EQ, a, b) if want => return Some((a, Some(b))),
                Term::Bin(SUB | XOR, a, b) if !want => return Some((a, Some(b))),
                _ if !want => return Some((t, None)),
                _ => return None,
            }
        }
    }

    /// The argument a side of an equality is (`word k`, or `word k` under a
    /// mask).
    fn word_of(&self, t: TermId) -> Option<usize> {
        let k = match self.trace.terms[t as usize] {
            Term::Word(k) => k,
            Term::Bin(AND, a, b) => {
                match (self.trace.terms[a as usize], self.trace.terms[b as usize]) {
                    (Term::Word(k), Term::Const(_)) | (Term::Const(_), Term::Word(k)) => k,
                    _ => return None,
                }
            }
            _ => return None,
        } as usize;
        (k < 64 && self.vars & 1 << k != 0).then_some(k)
    }

    /// Chooses `defs` from the equalities the conditions want (the first on
    /// the path first): an argument one side is, defined by the other side
    /// when that does not depend on it (through the definitions so far).
    fn define(&mut self) {
        self.defs.clear();
        self.defined = 0;
        for i in 0..self.conds.len() {
            let (t, want) = self.conds[i];
            let Some((a, Some(b))) = self.equation(t, want) else {
                continue;
            };
            for (side, other) in [(a, b), (b, a)] {
                let Some(k) = self.word_of(side) else {
                    continue;
                };
                if self.defined & 1 << k == 0 && self.reach(other) & 1 << k == 0 {
                    self.defs.push((k, other));
                    self.defined |= 1 << k;
                    break;
                }
            }
        }
        // Each definition after those it reads (there is no cycle: a new
        // one never reads, even through others, what it defines).
        let mut order = Vec::with_capacity(self.defs.len());
        let mut placed = 0u64;
        while order.len() < self.defs.len() {
            let before = order.len();
            for &(v, t) in &self.defs {
                let reads = self.deps[t as usize] & self.defined & !placed;
                if placed & 1 << v == 0 && reads == 0 {
                    order.push((v, t));
                    placed |= 1 << v;
                }
            }
            if order.len() == before {
                // Unreachable (no cycle); defining nothing is always sound.
                order.clear();
                self.defined = 0;
                break;
            }
        }
        self.defs = order;
    }

    /// Evaluates the conditions for `words` (their defined arguments
    /// settled first): how many fail, then how far (the failing ones in
    /// `failing`).
    fn score(&mut self, words: &mut [U256]) -> f64 {
        self.vals.clear();
        self.settle(words);
        self.work += self.trace.eval_more(words, self.upto, &mut self.vals);
        self.failing.clear();
        let mut s = 0.0;
        for i in 0..self.conds.len() {
            let (t, want) = self.conds[i];
            let d = self.distance(t, want);
            if !d.is_zero() {
                // Below 1 for any distance: one condition more that fails
                // always weighs more.
                s += 1.0 + d.bit_len() as f64 / 512.0;
                self.failing.push(i);
            }
        }
        s
    }

    /// The value of word `var` that would make term `t` what `want` says,
    /// the other words kept (the current values in `vals`).
    fn propagate(
        &mut self,
        rng: &mut SmallRng,
        words: &[U256],
        t: TermId,
        want: Want,
        var: usize,
        lift: bool,
    ) -> Option<U256> {
        let bit = 1u64 << var;
        let (mut node, mut want) = (t, want);
        for _ in 0..64 {
            match self.trace.terms[node as usize] {
                Term::Word(k) if k as usize == var => return Some(want.value(rng)),
                // A defined argument is its definition's value.
                Term::Word(k) => {
                    node = self.defs.iter().find(|d| d.0 == k as usize)?.1;
                }
                Term::Const(_) => return None,
                Term::Un(ISZERO, a) => {
                    want = if want.truthy() {
                        Want::Value(U256::ZERO)
                    } else {
                        Want::NonZero
                    };
                    node = a;
                }
                Term::Un(_, a) => {
                    want = Want::Value(!want.value(rng));
                    node = a;
                }
                Term::Bin(op, a, b) => {
                    let (in_a, in_b) = (self.reach(a) & bit != 0, self.reach(b) & bit != 0);
                    let left = match (in_a, in_b) {
                        // The argument on both sides of a sum or product
                        // (`p5 + 34 * p5`): a root of term == want.
                        (true, true)
                            if lift
                                && !matches!(op, EQ | LT | GT | SLT | SGT)
                                && let Some(Domain::Uint(bits)) = self.domains[var]
                                && let Some(v) = {
                                    let want = want.value(rng);
                                    self.lift(rng, words, (node, None), want, var, bits)
                                } =>
                        {
                            return Some(v);
                        }
                        (true, true) => rng.random_bool(0.5),
                        (true, false) => true,
                        (false, true) => false,
                        (false, false) => return None,
                    };
                    let (c, o) = if left { (a, b) } else { (b, a) };
                    let (cur, o) = (self.vals[c as usize], self.vals[o as usize]);
                    let r = match op {
                        EQ | LT | GT | SLT | SGT => {
                            compare_inverse(rng, op, left, want.truthy(), o)?
                        }
                        _ => arith_inverse(op, left, want.value(rng), o, cur)?,
                    };
                    want = Want::Value(r);
                    node = c;
                }
            }
        }
        None
    }
}

/// A value for one side of comparison `op` (the left one, `a` of `a < b`,
/// if `left`) that makes it `truth`, the other side being `o`.
fn compare_inverse(rng: &mut SmallRng, op: u8, left: bool, truth: bool, o: U256) -> Option<U256> {
    let sign = U256::ONE << 255;
    let signed = op == SLT || op == SGT;
    if op == EQ {
        return Some(if truth {
            o
        } else {
            o.wrapping_add(U256::from(rng.random_range(1..=3u8)))
        });
    }
    let o = if signed { o ^ sign } else { o };
    // The side is the left one of a `<` (`a < b`, or `b > a`): true wants
    // it below the other, false at or above; otherwise true wants it
    // above, false at or below.
    let less_side = matches!(op, LT | SLT) == left;
    let x = match (less_side, truth) {
        (true, true) => on_side(rng, o, true)?,
        (true, false) => on_side(rng, o, false)?,
        (false, true) => on_side(rng, o.checked_add(U256::ONE)?, false)?,
        (false, false) => on_side(rng, o.saturating_add(U256::ONE), true)?,
    };
    Some(if signed { x ^ sign } else { x })
}

/// A value for one operand of arithmetic `op` (the top one, `a`, if `left`)
/// that makes it `r`, the other operand being `o` and this one now `cur`.
fn arith_inverse(op: u8, left: bool, r: U256, o: U256, cur: U256) -> Option<U256> {
    Some(match (op, left) {
        (ADD, _) => r.wrapping_sub(o),
        (SUB, true) => r.wrapping_add(o),
        (SUB, false) => o.wrapping_sub(r),
        (MUL, _) => solve_mul(o, r, 256)?,
        (DIV, true) => {
            let a = r.checked_mul(o)?;
            (a.checked_div(o)? == r).then_some(a)?
        }
        (DIV, false) if r.is_zero() => o.checked_add(U256::ONE)?,
        (DIV, false) => {
            let b = o / r;
            (!b.is_zero() && o / b == r).then_some(b)?
        }
        (MOD, true) => (r < o).then_some(r)?,
        (AND, _) => (r & !o == U256::ZERO).then_some(r | (cur & !o))?,
        (OR, _) => (o & !r == U256::ZERO).then_some(r & !o)?,
        (XOR, _) => r ^ o,
        (SHL, false) if o < U256::from(256) => {
            let s = o.to::<usize>();
            let v = r >> s;
            (v << s == r).then_some(v)?
        }
        (SHR, false) if o < U256::from(256) => {
            let s = o.to::<usize>();
            let v = r << s;
            (v >> s == r).then_some(v)?
        }
        (SIGNEXTEND, false) => (symbolic::sign_extend(o, r) == r).then_some(r)?,
        _ => return None,
    })
}

/// How hard to look for arguments that turn one target branch way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effort {
    /// Not at all this time.
    Skip,
    /// The local search.
    Search,
    /// The local search, then, if it fails, the SAT solver over the
    /// conditions bit-blasted (exact, and hundreds of times as costly),
    /// with this many times its base budget.
    Exact(u32),
}

/// What [`solve_branches`] found and what it took.
#[derive(Debug, Default)]
pub struct Solved {
    /// Calls that turn a target, the deepest first.
    pub found: Vec<Tx>,
    /// Terms evaluated, or their equivalent in the SAT solver's work.
    pub work: u64,
    /// Targets handed to the SAT solver, and those it turned (answers that
    /// meet every condition when evaluated); of the others, those it proved
    /// out of reach as modelled, and those it ran out of budget on (or
    /// whose formula grew too large).
    pub blasts: u64,
    pub blasts_found: u64,
    pub blasts_unsat: u64,
    pub blasts_cut: u64,
}

/// Calls that turn branches of `tx`'s traced path the other way: for each
/// target (a branch on the arguments this worker has seen go one way only,
/// the last ones first, at most `max`, each searched for as hard as
/// `effort` says for its `(code, pc, way)`), arguments that keep the
/// branches before it as they went and turn it.
pub fn solve_branches(
    rng: &mut SmallRng,
    tx: &Tx,
    trace: &SymTrace,
    max: usize,
    mut effort: impl FnMut(CodeId, u32, bool) -> Effort,
) -> Solved {
    let mut out = Solved::default();
    if trace.branches.is_empty() {
        return out;
    }
    // Head words that are arguments of their own, and the calldata's words.
    let mut domains: Vec<Option<Domain>> = Vec::new();
    let mut arg_of: Vec<usize> = Vec::new();
    for (i, a) in tx.args.iter().enumerate() {
        let n = head_words(a);
        let d = if n == 1 { Domain::of(a) } else { None };
        for _ in 0..n {
            domains.push(d);
            arg_of.push(i);
        }
    }
    let calldata = tx.calldata();
    let words: Vec<U256> = calldata
        .get(4..)
        .unwrap_or_default()
        .chunks(32)
        .map(|c| {
            let mut w = [0u8; 32];
            w[..c.len()].copy_from_slice(c);
            U256::from_be_bytes(w)
        })
        .collect();
    let vars: u64 = domains
        .iter()
        .enumerate()
        .filter(|(k, d)| *k < 64 && d.is_some())
        .fold(0, |m, (k, _)| m | 1 << k);
    let deps = trace.dependencies();
    let mut search = Search {
        trace,
        deps: &deps,
        conds: Vec::new(),
        domains: &domains,
        vars,
        defs: Vec::new(),
        defined: 0,
        first: trace.first_reads(),
        upto: 0,
        vals: Vec::new(),
        scratch: Vec::new(),
        failing: Vec::new(),
        work: 0,
    };
    let mut targets = 0;
    for t in (0..trace.branches.len()).rev() {
        let b = trace.branches[t];
        if targets >= max {
            break;
        }
        if !b.half
            || deps[b.cond as usize] & vars == 0
            || encoding_check(trace, &domains, b.cond)
            || trace.branches[t + 1..]
                .iter()
                .any(|l| l.code == b.code && l.pc == b.pc)
        {
            continue;
        }
        let effort = effort(b.code, b.pc, !b.taken);
        if effort == Effort::Skip {
            continue;
        }
        targets += 1;
        search.conds.clear();
        search.conds.extend(
            trace.branches[..t]
                .iter()
                .filter(|p| deps[p.cond as usize] & vars != 0)
                .map(|p| (p.cond, p.taken)),
        );
        search.conds.push((b.cond, !b.taken));
        search.upto = search.conds.iter().map(|c| c.0).max().unwrap_or(0);
        search.define();
        let mut found = search.run(rng, &words);
        if found.is_none()
            && let Effort::Exact(scale) = effort
        {
            out.blasts += 1;
            let outcome;
            (found, outcome) = search.blast(&words, scale);
            out.blasts_found += found.is_some() as u64;
            out.blasts_unsat += (outcome == blast::Outcome::Unsatisfiable) as u64;
            out.blasts_cut += matches!(
                outcome,
                blast::Outcome::OutOfBudget | blast::Outcome::TooLarge
            ) as u64;
        }
        tracing::trace!(
            code = b.code.0,
            pc = b.pc,
            way = !b.taken,
            conds = search.conds.len(),
            effort = ?effort,
            found = found.is_some(),
            "solve target"
        );
        if let Some(found) = found {
            let mut c = tx.clone();
            for (k, w) in found.iter().enumerate() {
                if words.get(k) != Some(w)
                    && let Some(d) = domains.get(k).copied().flatten()
                {
                    c.args[arg_of[k]] = d.value(*w);
                }
            }
            if c.args != tx.args && !out.found.iter().any(|o| o.args == c.args) {
                out.found.push(c);
            }
        }
    }
    out.work = search.work;
    out
}

impl Search<'_> {
    /// Words meeting every condition, from the SAT solver over the
    /// conditions bit-blasted ([`blast`]; the bits they do not read keep
    /// their values in `start`; `scale` times its base budget), checked as
    /// the local search's are; and how the solver ended.
    fn blast(&mut self, start: &[U256], scale: u32) -> (Option<Vec<U256>>, blast::Outcome) {
        let b = blast::solve(
            self.trace,
            &self.conds,
            self.domains,
            self.vars,
            start,
            scale,
        );
        self.work += b.work;
        let found = b
            .words
            .and_then(|mut x| (self.score(&mut x) == 0.0).then_some(x));
        (found, b.outcome)
    }

    /// Words meeting every condition, from `start`, changing only the
    /// arguments (the defined ones through their definitions).
    ///
    /// Each step takes a failing condition and one of its arguments, and
    /// tries values for it: those that would make the condition hold (each
    /// followed by repairs: a condition the new value broke takes, through
    /// another argument not yet moved, the value that makes it hold again,
    /// as `a == 13 * c + 7` does after `c` moved), and neighbours. The best
    /// is kept when no more conditions fail than before (sometimes even
    /// so); a search stuck for a while starts again from `start`.
    fn run(&mut self, rng: &mut SmallRng, start: &[U256]) -> Option<Vec<U256>> {
        let vars = self.vars & !self.defined;
        let mut x = start.to_vec();
        let (mut best, mut stale) = (f64::MAX, 0);
        let mut cands: Vec<(U256, bool)> = Vec::with_capacity(12);
        let mut moves: Vec<(usize, U256, bool)> = Vec::with_capacity(12);
        let mut before: Vec<usize> = Vec::new();
        for _ in 0..SOLVE_STEPS {
            let score = self.score(&mut x);
            if score == 0.0 {
                return Some(x);
            }
            if score < best {
                (best, stale) = (score, 0);
            } else {
                stale += 1;
                if stale >= RESTART_AFTER {
                    // Again from the traced call's arguments, one of them
                    // drawn afresh: where an earlier choice doomed a later
                    // condition (which root of `x >= x + 43` the path
                    // took), the search makes it again.
                    x.copy_from_slice(start);
                    if vars != 0 {
                        let k = random_bit(rng, vars);
                        let dom = self.domains[k].expect("a variable has a domain");
                        x[k] = dom.fit(random_word(rng, 64));
                    }
                    (best, stale) = (f64::MAX, 0);
                    continue;
                }
            }
            before.clone_from(&self.failing);
            // A failing condition and an argument it depends on.
            let &i = before.choose(rng)?;
            let (t, want) = self.conds[i];
            let all = self.reach(t);
            if all & vars == 0 {
                // A condition no argument changes fails: no solution here.
                return None;
            }
            // A defined argument now and then: its value moves through a
            // free one its definition reads (below).
            let mine = if rng.random_ratio(1, 4) {
                all
            } else {
                all & vars
            };
            let var = random_bit(rng, mine);
            let free = vars & 1 << var != 0;
            let dom = self.domains[var].expect("a variable has a domain");
            cands.clear();
            for n in 0..3 {
                if let Some(v) = self.propagate(rng, &x, t, want_of(want), var, n == 0) {
                    cands.push((v, true));
                }
            }
            // An equality the argument is on both sides of (or that no
            // inversion solved): its root, bit by bit.
            if free
                && let Some((a, b)) = self.equation(t, want)
                && let Domain::Uint(bits) = dom
                && (cands.is_empty()
                    || self.reach(a) & b.map_or(0, |b| self.reach(b)) & 1 << var != 0)
                && let Some(v) = self.lift(rng, &x, (a, b), U256::ZERO, var, bits)
            {
                cands.push((v, true));
            }
            let cur = x[var];
            let k = rng.random_range(0..64);
            cands.extend(
                [
                    cur.wrapping_add(U256::ONE),
                    cur.wrapping_sub(U256::ONE),
                    cur.wrapping_add(U256::ONE << k),
                    cur.wrapping_sub(U256::ONE << k),
                    cur ^ (U256::ONE << rng.random_range(0..256)),
                    random_word(rng, 64),
                    // The top of the range, where wrapped sums turn
                    // (`x >= x + 43` holds for x = -43..-1 only).
                    random_word(rng, 8).wrapping_neg(),
                ]
                .map(|v| (v, false)),
            );
            moves.clear();
            for &(c, propagated) in &cands {
                let c = dom.fit(c);
                if c == cur {
                    continue;
                }
                if free {
                    moves.push((var, c, propagated));
                    continue;
                }
                // The free argument that gives the defined one this value.
                let def = self.defs.iter().find(|d| d.0 == var).expect("defined").1;
                let reads = self.reach(def) & vars;
                if reads == 0 {
                    continue;
                }
                let f = random_bit(rng, reads);
                if let Some(v) = self.propagate(rng, &x, def, Want::Value(c), f, true) {
                    let v = self.domains[f].expect("a variable has a domain").fit(v);
                    moves.push((f, v, propagated));
                }
            }
            let mut pick: Option<(f64, Vec<U256>)> = None;
            for &(var, c, propagated) in &moves {
                let mut y = x.clone();
                y[var] = c;
                let mut s = self.score(&mut y);
                if propagated {
                    s = self.repair(rng, &mut y, s, &before, vars, 1 << var);
                }
                if pick.as_ref().is_none_or(|p| s < p.0) {
                    pick = Some((s, y));
                }
            }
            if let Some((s, y)) = pick
                && (s <= score || rng.random_ratio(1, 20))
            {
                x = y;
            }
        }
        (self.score(&mut x) == 0.0).then_some(x)
    }

    /// A value of argument `var` (of `bits` bits) under which the sides of
    /// an equality agree (`a == b`, or `a == k` without `b`), the other
    /// arguments as in `x`, found from the
    /// lowest bit up: sums, differences, products, masks and left shifts
    /// give their result's low `i` bits from their operands' low `i` bits
    /// only, so a choice of the low bits under which the sides already
    /// differ there is abandoned with everything above it (as roots of a
    /// polynomial modulo 2^k are lifted). Terms without that property only
    /// make it miss; what it answers is checked.
    fn lift(
        &mut self,
        rng: &mut SmallRng,
        x: &[U256],
        (a, b): (TermId, Option<TermId>),
        k: U256,
        var: usize,
        bits: usize,
    ) -> Option<U256> {
        let mut y = x.to_vec();
        let upto = a.max(b.unwrap_or(0));
        let mut todo = vec![(0usize, U256::ZERO)];
        let mut evals = 0;
        // Only `var` changes between evaluations (and what it defines).
        self.scratch.clear();
        while let Some((i, v)) = todo.pop() {
            if i == bits {
                return Some(v);
            }
            let mask = if i + 1 >= bits.min(256) {
                U256::MAX
            } else {
                (U256::ONE << (i + 1)) - U256::ONE
            };
            let first = rng.random_bool(0.5);
            for bit in [first, !first] {
                if evals == LIFT_EVALS {
                    return None;
                }
                evals += 1;
                y[var] = if bit { v | U256::ONE << i } else { v };
                let buf = &mut self.scratch;
                buf.truncate(self.first[var] as usize);
                self.work += settle(
                    self.trace,
                    &self.defs,
                    self.domains,
                    &self.first,
                    &mut y,
                    buf,
                );
                self.work += self.trace.eval_more(&y, upto, buf);
                let other = b.map_or(k, |b| buf[b as usize]);
                if ((buf[a as usize] ^ other) & mask).is_zero() {
                    todo.push((i + 1, y[var]));
                }
            }
        }
        None
    }

    /// Mends, through arguments not in `moved`, up to [`REPAIRS`]
    /// conditions that fail now and did not in `before` (`score` is `y`'s,
    /// the values of its last evaluation); returns the new score.
    fn repair(
        &mut self,
        rng: &mut SmallRng,
        y: &mut [U256],
        mut score: f64,
        before: &[usize],
        vars: u64,
        mut moved: u64,
    ) -> f64 {
        for _ in 0..REPAIRS {
            let Some(&j) = self.failing.iter().find(|j| !before.contains(j)) else {
                break;
            };
            let (t, want) = self.conds[j];
            let free = self.reach(t) & vars & !moved;
            if free == 0 {
                break;
            }
            let var = random_bit(rng, free);
            let Some(v) = self.propagate(rng, y, t, want_of(want), var, true) else {
                break;
            };
            y[var] = self.domains[var].expect("a variable has a domain").fit(v);
            moved |= 1 << var;
            score = self.score(y);
        }
        score
    }
}

/// Whether `t` is the ABI decoder's check that an argument is clean (`x ==
/// x & mask`, `x == signextend(n, x)`, with every value of the argument's
/// type passing): nothing the search may choose turns it, so it is never a
/// target.
fn encoding_check(trace: &SymTrace, domains: &[Option<Domain>], mut t: TermId) -> bool {
    while let Term::Un(ISZERO, a) = trace.terms[t as usize] {
        t = a;
    }
    let Term::Bin(EQ, a, b) = trace.terms[t as usize] else {
        return false;
    };
    let term = |t: TermId| trace.terms[t as usize];
    let cleaned = |w: TermId, c: TermId| {
        let Term::Word(k) = term(w) else {
            return false;
        };
        let Some(d) = domains.get(k as usize).copied().flatten() else {
            return false;
        };
        match term(c) {
            Term::Bin(AND, x, y) => {
                let mask = match (term(x), term(y)) {
                    (Term::Const(m), o) | (o, Term::Const(m)) if o == term(w) => m,
                    _ => return false,
                };
                d.fit(U256::MAX) & !mask == U256::ZERO
            }
            Term::Bin(SIGNEXTEND, n, x) => match (term(n), d) {
                (Term::Const(n), Domain::Int(bits)) if term(x) == term(w) => {
                    n < U256::from(32) && 8 * (n.to::<usize>() + 1) >= bits
                }
                _ => false,
            },
            _ => false,
        }
    };
    cleaned(a, b) || cleaned(b, a)
}

/// Gives each defined argument of `words` its definition's value (`defs` in
/// order), evaluating into `buf`, which holds these words' values of a
/// prefix of the terms (it is cut back to the first term reading a word
/// that changes); returns the terms evaluated.
fn settle(
    trace: &SymTrace,
    defs: &[(usize, TermId)],
    domains: &[Option<Domain>],
    first: &[TermId; 64],
    words: &mut [U256],
    buf: &mut Vec<U256>,
) -> u64 {
    let mut work = 0;
    for &(var, t) in defs {
        work += trace.eval_more(words, t, buf);
        let v = domains[var]
            .expect("a variable has a domain")
            .fit(buf[t as usize]);
        if words[var] != v {
            words[var] = v;
            buf.truncate(first[var] as usize);
        }
    }
    work
}

/// What a condition's term must be for the branch to go way `taken`.
fn want_of(taken: bool) -> Want {
    if taken {
        Want::NonZero
    } else {
        Want::Value(U256::ZERO)
    }
}

/// The index of one of `m`'s set bits (`m` not zero), each as likely.
fn random_bit(rng: &mut SmallRng, mut m: u64) -> usize {
    for _ in 0..rng.random_range(0..m.count_ones()) {
        m &= m - 1;
    }
    m.trailing_zeros() as usize
}

#[cfg(test)]
mod tests;
