//! The exact fallback of the local search: a path's conditions bit-blasted
//! into a propositional formula and handed to a SAT solver (batsat,
//! MiniSat 2.2's algorithm in Rust), for the guards that hold only together
//! and that moving one argument at a time does not reach (a wrapped sum
//! that admits a handful of roots, with products of those roots bounded by
//! the guards after it: Daedaluzz's maze 3, `knotD`).
//!
//! Each term becomes 256 bits of an and-xor-inverter graph that folds
//! constants and shares equal gates, so an argument of type `uint64`
//! brings 64 free bits, not 256, and its masks and products shrink to
//! match. Operations the blaster does not model exactly (division by a
//! non-constant, `EXP`, `SDIV`, `SMOD`, a byte index or extension width
//! that is not constant) become free bits: the formula then allows more
//! than the EVM does, and the search checks every answer before it counts
//! it. The solver stops after a number of conflicts or decisions (a fixed
//! budget times the caller's scale); the graph is abandoned past a fixed
//! size (a product of two full `uint256`s).

use super::Domain;
use crate::executor::symbolic::{
    ADD, AND, BYTE, DIV, EQ, GT, ISZERO, LT, MOD, MUL, OR, SAR, SGT, SHL, SHR, SIGNEXTEND, SLT,
    SUB, SymTrace, Term, TermId, XOR, apply,
};
use alloy_primitives::U256;
use batsat::interface::SolverInterface;
use batsat::{Callbacks, ClauseKind, Lit, SolverOpts, Var, lbool};
use std::collections::HashMap;

/// Gates one formula may have at most (a product of two `uint64`s takes
/// ~25,000; of two `uint256`s, ~400,000).
const MAX_GATES: usize = 200_000;

/// Conflicts, and decisions, the solver may take before it gives up, times
/// the caller's scale (with ~100 propagations a decision, ~300 ms on
/// knotD's formula at scale 1).
const MAX_CONFLICTS: u64 = 2_000;
const MAX_DECISIONS: u64 = 20_000;

/// Work, in the search's unit (one term evaluated, ~13 ns), of one gate
/// built, one variable encoded, and one propagation of the solver:
/// measured on knotD's formula (85,000 gates built in ~20 ms, 44,000
/// encoded in ~45 ms, 1.1 million propagations in ~170 ms).
const WORK_PER_GATE: u64 = 20;
const WORK_PER_VAR: u64 = 80;
const WORK_PER_PROPAGATION: u64 = 12;

/// A literal of the graph: `node * 2`, plus one when negated. Node 0 is the
/// constant false.
type Bit = u32;
const FALSE: Bit = 0;
const TRUE: Bit = 1;

/// A node of the graph: an input bit, or a gate over two literals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Node {
    Input,
    And(Bit, Bit),
    /// Its own kind rather than three `And`s: four clauses and one variable
    /// where those take nine and three (a product's adders are mostly XORs).
    Xor(Bit, Bit),
}

/// An EVM word: its bits, the lowest first.
type Word = Vec<Bit>;

/// An and-xor-inverter graph that folds constants and shares equal gates.
struct Graph {
    nodes: Vec<Node>,
    shared: HashMap<Node, Bit>,
}

impl Graph {
    fn new() -> Graph {
        Graph {
            nodes: vec![Node::And(FALSE, FALSE)],
            shared: HashMap::new(),
        }
    }

    fn input(&mut self) -> Bit {
        self.nodes.push(Node::Input);
        (self.nodes.len() as Bit - 1) * 2
    }

    /// The gate `node`, shared with an equal one built before.
    fn gate(&mut self, node: Node) -> Bit {
        if let Some(&g) = self.shared.get(&node) {
            return g;
        }
        self.nodes.push(node);
        let g = (self.nodes.len() as Bit - 1) * 2;
        self.shared.insert(node, g);
        g
    }

    fn and(&mut self, a: Bit, b: Bit) -> Bit {
        let (a, b) = (a.min(b), a.max(b));
        if a == FALSE || a == b ^ 1 {
            return FALSE;
        }
        if a == TRUE || a == b {
            return b;
        }
        self.gate(Node::And(a, b))
    }

    fn or(&mut self, a: Bit, b: Bit) -> Bit {
        self.and(a ^ 1, b ^ 1) ^ 1
    }

    /// `a ^ b`, its operands stripped of negations (they move to the
    /// result: the constants are the negations of `FALSE`).
    fn xor(&mut self, a: Bit, b: Bit) -> Bit {
        let negated = (a ^ b) & 1;
        let (a, b) = (a & !1, b & !1);
        let (a, b) = (a.min(b), a.max(b));
        if a == b {
            return FALSE ^ negated;
        }
        if a == FALSE {
            return b ^ negated;
        }
        self.gate(Node::Xor(a, b)) ^ negated
    }

    /// `s ? t : e`.
    fn mux(&mut self, s: Bit, t: Bit, e: Bit) -> Bit {
        if t == e {
            return t;
        }
        let (x, y) = (self.and(s, t), self.and(s ^ 1, e));
        self.or(x, y)
    }

    fn any(&mut self, w: &[Bit]) -> Bit {
        w.iter().fold(FALSE, |acc, &b| self.or(acc, b))
    }

    fn word(&mut self) -> Word {
        (0..256).map(|_| self.input()).collect()
    }

    fn add(&mut self, a: &[Bit], b: &[Bit], mut carry: Bit) -> Word {
        let mut out = Vec::with_capacity(256);
        for i in 0..256 {
            let x = self.xor(a[i], b[i]);
            out.push(self.xor(x, carry));
            let (g, p) = (self.and(a[i], b[i]), self.and(carry, x));
            carry = self.or(g, p);
        }
        out
    }

    fn sub(&mut self, a: &[Bit], b: &[Bit]) -> Word {
        let nb: Word = b.iter().map(|&x| x ^ 1).collect();
        self.add(a, &nb, TRUE)
    }

    /// `a * b` modulo 2^256, one shifted row of `a` per bit of `b` that may
    /// be set: `b` is the operand with fewer free bits (a constant's set
    /// bits only), and `a * b` is built as `b * a` is (they share gates).
    fn mul(&mut self, a: &[Bit], b: &[Bit]) -> Word {
        let free = |w: &[Bit]| w.iter().filter(|&&x| x > TRUE).count();
        let (a, b) = if (free(a), a) < (free(b), b) {
            (b, a)
        } else {
            (a, b)
        };
        let mut acc = vec![FALSE; 256];
        for j in 0..256 {
            if b[j] == FALSE {
                continue;
            }
            let row: Word = (0..256)
                .map(|i| {
                    if i < j {
                        FALSE
                    } else {
                        self.and(a[i - j], b[j])
                    }
                })
                .collect();
            acc = self.add(&acc, &row, FALSE);
        }
        acc
    }

    /// `a < b`, unsigned.
    fn ult(&mut self, a: &[Bit], b: &[Bit]) -> Bit {
        let mut lt = FALSE;
        for i in 0..256 {
            let d = self.xor(a[i], b[i]);
            lt = self.mux(d, b[i], lt);
        }
        lt
    }

    fn eq(&mut self, a: &[Bit], b: &[Bit]) -> Bit {
        let d: Word = (0..256).map(|i| self.xor(a[i], b[i])).collect();
        self.any(&d) ^ 1
    }

    /// `x << s` (`left`) or `x >> s`, the vacated bits `fill`, for a shift
    /// that is a term: one stage per bit of the shift.
    fn shift(&mut self, s: &[Bit], x: &[Bit], left: bool, fill: Bit) -> Word {
        let mut w = x.to_vec();
        for (k, &sk) in s.iter().enumerate().take(8) {
            let by = 1usize << k;
            let moved: Word = (0..256)
                .map(|i: usize| match (left, i.checked_sub(by), i + by) {
                    (true, Some(j), _) => w[j],
                    (true, None, _) => fill,
                    (false, _, j) if j < 256 => w[j],
                    (false, _, _) => fill,
                })
                .collect();
            w = (0..256).map(|i| self.mux(sk, moved[i], w[i])).collect();
        }
        let over = self.any(&s[8..]);
        w.iter().map(|&b| self.mux(over, fill, b)).collect()
    }
}

fn constant(v: U256) -> Word {
    (0..256)
        .map(|i| if v.bit(i) { TRUE } else { FALSE })
        .collect()
}

/// The word's value when every bit is a constant.
fn value(w: &[Bit]) -> Option<U256> {
    let mut v = U256::ZERO;
    for (i, &b) in w.iter().enumerate() {
        match b {
            FALSE => {}
            TRUE => v.set_bit(i, true),
            _ => return None,
        }
    }
    Some(v)
}

/// Callbacks that stop the solver past [`MAX_CONFLICTS`] conflicts or
/// [`MAX_DECISIONS`] decisions, times `scale` (it asks before each one).
struct Budget {
    scale: u64,
    conflicts: u64,
    decisions: std::cell::Cell<u64>,
}

impl Callbacks for Budget {
    fn on_new_clause(&mut self, _c: &[Lit], src: ClauseKind) {
        if matches!(src, ClauseKind::Learnt) {
            self.conflicts += 1;
        }
    }

    fn stop(&self) -> bool {
        let d = self.decisions.get() + 1;
        self.decisions.set(d);
        self.conflicts >= MAX_CONFLICTS * self.scale || d > MAX_DECISIONS * self.scale
    }
}

/// What one blast found: words meeting every condition in the formula
/// (unchecked: the caller runs them), how it ended, and the work it took.
pub(super) struct Blast {
    pub(super) words: Option<Vec<U256>>,
    pub(super) outcome: Outcome,
    pub(super) work: u64,
}

/// How a blast ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    /// The formula has a model (its words are in [`Blast::words`]).
    Model,
    /// The formula has none: no arguments meet the conditions as modelled.
    Unsatisfiable,
    /// The solver ran out of its budget.
    OutOfBudget,
    /// The graph grew past [`MAX_GATES`].
    TooLarge,
}

/// Words that meet `conds` (term, whether it must be nonzero), changing
/// only the head words in `vars` (each within its domain) of `words`; the
/// bits the formula leaves free keep their values in `words`. The solver's
/// budget is `scale` times the base one.
pub(super) fn solve(
    trace: &SymTrace,
    conds: &[(TermId, bool)],
    domains: &[Option<Domain>],
    vars: u64,
    words: &[U256],
    scale: u32,
) -> Blast {
    let mut g = Graph::new();
    let (roots, args) = match formula(&mut g, trace, conds, domains, vars, words) {
        Ok(f) => f,
        Err(outcome) => {
            return Blast {
                words: None,
                outcome,
                work: g.nodes.len() as u64 * WORK_PER_GATE,
            };
        }
    };
    // Each node's value under `words`: the solver's first guess (a path
    // near the traced one).
    let mut phase = vec![false; g.nodes.len()];
    for (&k, bits) in &args {
        for (i, &b) in bits.iter().enumerate() {
            if b > TRUE && g.nodes[(b >> 1) as usize] == Node::Input {
                phase[(b >> 1) as usize] = words[k as usize].bit(i) ^ (b & 1 == 1);
            }
        }
    }
    for n in 1..g.nodes.len() {
        let v = |l: Bit| phase[(l >> 1) as usize] ^ (l & 1 == 1);
        match g.nodes[n] {
            Node::Input => {}
            Node::And(a, b) => phase[n] = v(a) && v(b),
            Node::Xor(a, b) => phase[n] = v(a) ^ v(b),
        }
    }
    let (model, cost) = satisfy(&g, &roots, &phase, scale.max(1));
    let work = g.nodes.len() as u64 * WORK_PER_GATE
        + cost.vars * WORK_PER_VAR
        + cost.propagations * WORK_PER_PROPAGATION;
    // A bit the formula does not read keeps its value.
    let outcome = cost.outcome;
    let words = model.map(|model| {
        let mut out = words.to_vec();
        for (k, bits) in args {
            let w = &mut out[k as usize];
            for (i, &b) in bits.iter().enumerate() {
                let v = match b {
                    FALSE | TRUE => b == TRUE,
                    _ => match model[(b >> 1) as usize] {
                        Some(v) => v ^ (b & 1 == 1),
                        None => w.bit(i),
                    },
                };
                w.set_bit(i, v);
            }
        }
        out
    });
    Blast {
        words,
        outcome,
        work,
    }
}

/// The literals that must hold, one per condition, and the bits of each
/// argument word (none if a condition cannot hold whatever the arguments,
/// or the graph grew too large: how, as an [`Outcome`]).
fn formula(
    g: &mut Graph,
    trace: &SymTrace,
    conds: &[(TermId, bool)],
    domains: &[Option<Domain>],
    vars: u64,
    words: &[U256],
) -> Result<(Vec<Bit>, HashMap<u16, Word>), Outcome> {
    let Some(upto) = conds.iter().map(|c| c.0 as usize).max() else {
        return Ok((Vec::new(), HashMap::new()));
    };
    // The terms the conditions read.
    let mut needed = vec![false; upto + 1];
    for &(t, _) in conds {
        needed[t as usize] = true;
    }
    for i in (0..=upto).rev() {
        if !needed[i] {
            continue;
        }
        match trace.terms[i] {
            Term::Bin(_, a, b) => {
                needed[a as usize] = true;
                needed[b as usize] = true;
            }
            Term::Un(_, a) => needed[a as usize] = true,
            _ => {}
        }
    }
    let mut args: HashMap<u16, Word> = HashMap::new();
    let mut bits: Vec<Word> = vec![Vec::new(); upto + 1];
    for i in 0..=upto {
        if !needed[i] {
            continue;
        }
        let w = match trace.terms[i] {
            Term::Word(k) => {
                let var = (k < 64 && vars & 1 << k != 0)
                    .then(|| domains.get(k as usize).copied().flatten())
                    .flatten();
                match var {
                    Some(d) => args.entry(k).or_insert_with(|| argument(g, d)).clone(),
                    None => constant(words.get(k as usize).copied().unwrap_or_default()),
                }
            }
            Term::Const(v) => constant(v),
            Term::Un(ISZERO, a) => {
                let z = g.any(&bits[a as usize]) ^ 1;
                let mut w = vec![FALSE; 256];
                w[0] = z;
                w
            }
            Term::Un(_, a) => bits[a as usize].iter().map(|&b| b ^ 1).collect(),
            Term::Bin(op, a, b) => binary(g, op, &bits[a as usize], &bits[b as usize]),
        };
        bits[i] = w;
        if g.nodes.len() > MAX_GATES {
            return Err(Outcome::TooLarge);
        }
    }
    let mut roots = Vec::with_capacity(conds.len());
    for &(t, want) in conds {
        let nz = g.any(&bits[t as usize]);
        let r = if want { nz } else { nz ^ 1 };
        match r {
            FALSE => return Err(Outcome::Unsatisfiable),
            TRUE => {}
            _ => roots.push(r),
        }
    }
    Ok((roots, args))
}

/// A head word of domain `d`: free bits where the type has them, the rest
/// as the ABI's encoding fixes them.
fn argument(g: &mut Graph, d: Domain) -> Word {
    let free = |g: &mut Graph, n: usize| -> Word { (0..n).map(|_| g.input()).collect() };
    match d {
        Domain::Uint(bits) => {
            let mut w = free(g, bits.min(256));
            w.resize(256, FALSE);
            w
        }
        Domain::Int(bits) => {
            let mut w = free(g, bits.min(256));
            let sign = *w.last().expect("a signed type has bits");
            w.resize(256, sign);
            w
        }
        Domain::Bool => {
            let mut w = free(g, 1);
            w.resize(256, FALSE);
            w
        }
        Domain::Address => {
            let mut w = free(g, 160);
            w.resize(256, FALSE);
            w
        }
        Domain::Fixed(n) => {
            let mut w = vec![FALSE; 256 - 8 * n];
            w.extend(free(g, 8 * n));
            w
        }
    }
}

/// `op(a, b)` over bits, `a` the top of the stack as in
/// [`Term::Bin`].
fn binary(g: &mut Graph, op: u8, a: &[Bit], b: &[Bit]) -> Word {
    let bool_word = |x: Bit| {
        let mut w = vec![FALSE; 256];
        w[0] = x;
        w
    };
    let flip = |w: &[Bit]| {
        let mut w = w.to_vec();
        w[255] ^= 1;
        w
    };
    if let (Some(x), Some(y)) = (value(a), value(b)) {
        return constant(apply(op, x, y));
    }
    // A shift, index or width that is a constant below 256.
    let small = |w: &[Bit]| {
        value(w)
            .filter(|v| *v < U256::from(256))
            .map(|v| v.to::<usize>())
    };
    match op {
        ADD => g.add(a, b, FALSE),
        SUB => g.sub(a, b),
        MUL => g.mul(a, b),
        AND => (0..256).map(|i| g.and(a[i], b[i])).collect(),
        OR => (0..256).map(|i| g.or(a[i], b[i])).collect(),
        XOR => (0..256).map(|i| g.xor(a[i], b[i])).collect(),
        EQ => bool_word(g.eq(a, b)),
        LT => bool_word(g.ult(a, b)),
        GT => bool_word(g.ult(b, a)),
        SLT => bool_word(g.ult(&flip(a), &flip(b))),
        SGT => bool_word(g.ult(&flip(b), &flip(a))),
        SHL | SHR | SAR => {
            let fill = if op == SAR { b[255] } else { FALSE };
            match value(a) {
                Some(s) if s >= U256::from(256) => vec![fill; 256],
                Some(s) => {
                    let s = s.to::<usize>();
                    (0..256)
                        .map(|i| match op {
                            SHL if i >= s => b[i - s],
                            SHR | SAR if i + s < 256 => b[i + s],
                            _ => fill,
                        })
                        .collect()
                }
                None => g.shift(a, b, op == SHL, fill),
            }
        }
        // By a constant power of two: a shift or a mask.
        DIV | MOD if value(b).is_some_and(|v| v.is_power_of_two()) => {
            let k = value(b).expect("constant").trailing_zeros();
            (0..256)
                .map(|i| match op {
                    DIV if i + k < 256 => a[i + k],
                    MOD if i < k => a[i],
                    _ => FALSE,
                })
                .collect()
        }
        BYTE if small(a).is_some() => {
            let i = small(a).expect("constant");
            if i >= 32 {
                return vec![FALSE; 256];
            }
            let low = 8 * (31 - i);
            (0..256)
                .map(|j| if j < 8 { b[low + j] } else { FALSE })
                .collect()
        }
        SIGNEXTEND if small(a).is_some() => {
            let k = small(a).expect("constant");
            if k >= 31 {
                return b.to_vec();
            }
            let top = 8 * k + 7;
            (0..256).map(|i| b[i.min(top)]).collect()
        }
        // Not modelled: free bits (the answer is checked by running it).
        _ => g.word(),
    }
}

/// What one call of the solver took, and how it ended.
struct Cost {
    vars: u64,
    propagations: u64,
    outcome: Outcome,
}

/// Solves the graph's `roots` (each must hold), guessing each node's value
/// first as `phase` says: the value of every node the roots read, if the
/// solver found them within its budget, and what it took.
fn satisfy(
    g: &Graph,
    roots: &[Bit],
    phase: &[bool],
    scale: u32,
) -> (Option<Vec<Option<bool>>>, Cost) {
    let mut cost = Cost {
        vars: 0,
        propagations: 0,
        outcome: Outcome::Unsatisfiable,
    };
    if roots.contains(&FALSE) {
        return (None, cost);
    }
    let roots: Vec<Bit> = roots.iter().copied().filter(|&r| r != TRUE).collect();
    let budget = Budget {
        scale: scale.into(),
        conflicts: 0,
        decisions: Default::default(),
    };
    let mut solver = batsat::Solver::new(SolverOpts::default(), budget);
    // A variable for each node the roots read (Tseitin's encoding).
    let mut vars: Vec<Option<Var>> = vec![None; g.nodes.len()];
    let mut todo: Vec<usize> = roots.iter().map(|&r| (r >> 1) as usize).collect();
    let mut gates = Vec::new();
    while let Some(n) = todo.pop() {
        if vars[n].is_some() {
            continue;
        }
        let guess = if phase[n] { lbool::TRUE } else { lbool::FALSE };
        vars[n] = Some(solver.new_var(guess, true));
        if let Node::And(a, b) | Node::Xor(a, b) = g.nodes[n] {
            todo.extend([(a >> 1) as usize, (b >> 1) as usize]);
            gates.push(n);
        }
    }
    let lit = |b: Bit| Lit::new(vars[(b >> 1) as usize].expect("encoded"), b & 1 == 0);
    let mut clause = Vec::with_capacity(3);
    let mut ok = true;
    let mut add = |c: &[Lit]| {
        clause.clear();
        clause.extend_from_slice(c);
        ok &= solver.add_clause_reuse(&mut clause);
    };
    for n in gates {
        let out = lit((n as Bit) << 1);
        match g.nodes[n] {
            Node::And(a, b) => {
                let (a, b) = (lit(a), lit(b));
                add(&[!out, a]);
                add(&[!out, b]);
                add(&[out, !a, !b]);
            }
            Node::Xor(a, b) => {
                let (a, b) = (lit(a), lit(b));
                add(&[!out, a, b]);
                add(&[!out, !a, !b]);
                add(&[out, !a, b]);
                add(&[out, a, !b]);
            }
            Node::Input => unreachable!("inputs are not gates"),
        }
    }
    for &r in &roots {
        add(&[lit(r)]);
    }
    let answer = if ok {
        solver.solve_limited(&[])
    } else {
        lbool::FALSE
    };
    cost.vars = solver.num_vars() as u64;
    cost.propagations = solver.num_propagations();
    cost.outcome = if answer == lbool::TRUE {
        Outcome::Model
    } else if answer == lbool::FALSE {
        Outcome::Unsatisfiable
    } else {
        Outcome::OutOfBudget
    };
    tracing::trace!(
        gates = g.nodes.len(),
        vars = cost.vars,
        clauses = solver.num_clauses(),
        conflicts = solver.num_conflicts(),
        decisions = solver.num_decisions(),
        propagations = cost.propagations,
        scale,
        outcome = ?cost.outcome,
        "blast"
    );
    if answer != lbool::TRUE {
        return (None, cost);
    }
    let values = vars
        .iter()
        .map(|v| v.map(|v| solver.value_var(v) == lbool::TRUE))
        .collect();
    (Some(values), cost)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::symbolic::{SDIV, SMOD};
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// A random word, often small, near a power of two, or of 64 bits.
    fn word(rng: &mut SmallRng) -> U256 {
        match rng.random_range(0..4) {
            0 => U256::from(rng.random_range(0..300u64)),
            1 => (U256::ONE << rng.random_range(0..256usize))
                .wrapping_sub(U256::from(rng.random_range(0..3u8))),
            2 => U256::from(rng.random::<u64>()),
            _ => U256::from_limbs([rng.random(), rng.random(), rng.random(), rng.random()]),
        }
    }

    /// Whether some assignment of the free words meets `roots`.
    fn sat(g: &Graph, roots: &[Bit]) -> bool {
        satisfy(g, roots, &vec![false; g.nodes.len()], 1)
            .0
            .is_some()
    }

    /// Every modelled operation, its operands pinned to values: the bits
    /// give what the EVM computes, and nothing else.
    #[test]
    fn blasted_operations_compute_what_the_evm_computes() {
        let mut rng = SmallRng::seed_from_u64(5);
        let ops = [
            ADD, SUB, MUL, AND, OR, XOR, EQ, LT, GT, SLT, SGT, SHL, SHR, SAR, DIV, MOD, BYTE,
            SIGNEXTEND,
        ];
        for round in 0..ops.len() * 12 {
            let op = ops[round % ops.len()];
            let (mut x, mut y) = (word(&mut rng), word(&mut rng));
            // The shapes the blaster models exactly: a product of 64-bit
            // words (two full words would take ~400,000 gates), a
            // power-of-two divisor, a constant index or width.
            match op {
                MUL => (x, y) = (x & U256::from(u64::MAX), y & U256::from(u64::MAX)),
                DIV | MOD => y = U256::ONE << rng.random_range(0..256usize),
                BYTE | SIGNEXTEND | SHL | SHR | SAR => x = U256::from(rng.random_range(0..270u64)),
                _ => {}
            }
            let mut g = Graph::new();
            let (a, b) = if op == MUL {
                let a = argument(&mut g, Domain::Uint(64));
                (a, argument(&mut g, Domain::Uint(64)))
            } else {
                (g.word(), g.word())
            };
            // A constant divisor, index or width stays a constant.
            let (ta, tb) = match op {
                DIV | MOD => (a.clone(), constant(y)),
                BYTE | SIGNEXTEND => (constant(x), b.clone()),
                _ => (a.clone(), b.clone()),
            };
            let r = binary(&mut g, op, &ta, &tb);
            let want = apply(op, x, y);
            let ca = g.eq(&a, &constant(x));
            let cb = g.eq(&b, &constant(y));
            let mut roots = vec![ca, cb];
            let right = g.eq(&r, &constant(want));
            let wrong = g.eq(&r, &constant(want ^ U256::ONE));
            roots.push(right);
            assert!(sat(&g, &roots), "op {op:#x} x {x} y {y}");
            *roots.last_mut().unwrap() = wrong;
            assert!(!sat(&g, &roots), "op {op:#x} x {x} y {y}: two answers");
        }
    }

    /// What the blaster does not model is free, never wrong: an answer may
    /// fail when run, but no formula excludes the EVM's value.
    #[test]
    fn unmodelled_operations_are_free() {
        let mut g = Graph::new();
        let (a, b) = (g.word(), g.word());
        for op in [SDIV, SMOD, DIV] {
            let r = binary(&mut g, op, &a, &b);
            let any = g.eq(&r, &constant(U256::from(12345)));
            assert!(sat(&g, &[any]), "op {op:#x}");
        }
    }

    /// An argument keeps its type: a `uint8` has 8 free bits, an `int16`
    /// repeats its sign, `bytes2` is its two high bytes.
    #[test]
    fn arguments_keep_their_types() {
        let mut g = Graph::new();
        let u8_ = argument(&mut g, Domain::Uint(8));
        assert!(u8_[8..].iter().all(|&b| b == FALSE));
        let i16_ = argument(&mut g, Domain::Int(16));
        assert!(i16_[15..].iter().all(|&b| b == i16_[15]));
        let b2 = argument(&mut g, Domain::Fixed(2));
        assert!(b2[..240].iter().all(|&b| b == FALSE) && b2[240..].iter().all(|&b| b > TRUE));
        // 300 does not fit a uint8: no model.
        let big = g.eq(&u8_, &constant(U256::from(300)));
        assert!(!sat(&g, &[big]));
    }

    /// An XOR gate folds constants and negations and is shared with its
    /// equals, as an AND gate is.
    #[test]
    fn xor_gates_fold_and_share() {
        let mut g = Graph::new();
        let (a, b) = (g.input(), g.input());
        assert_eq!(g.xor(a, a), FALSE);
        assert_eq!(g.xor(a, a ^ 1), TRUE);
        assert_eq!(g.xor(a, FALSE), a);
        assert_eq!(g.xor(TRUE, a), a ^ 1);
        let x = g.xor(a, b);
        let nodes = g.nodes.len();
        assert_eq!(g.xor(b, a), x);
        assert_eq!(g.xor(a ^ 1, b ^ 1), x);
        assert_eq!(g.xor(a ^ 1, b), x ^ 1);
        assert_eq!(g.nodes.len(), nodes, "one gate for all four");
    }

    /// The solver says how it ended: a model, a proof that there is none,
    /// or its budget spent (factoring a 64-bit product of two 32-bit primes
    /// of no special form takes far more than 2,000 conflicts; two primes
    /// just under 2^32 were found within it).
    #[test]
    fn the_solver_says_how_it_ended() {
        let outcome = |n: u64, bits: usize| {
            let mut g = Graph::new();
            let (x, y) = (
                argument(&mut g, Domain::Uint(bits)),
                argument(&mut g, Domain::Uint(bits)),
            );
            let product = g.mul(&x, &y);
            let one = constant(U256::ONE);
            let roots = [
                g.eq(&product, &constant(U256::from(n))),
                g.ult(&one, &x),
                g.ult(&one, &y),
            ];
            let phase = vec![false; g.nodes.len()];
            satisfy(&g, &roots, &phase, 1).1.outcome
        };
        assert_eq!(outcome(15 * 17, 8), Outcome::Model);
        // A prime has no factors above one.
        assert_eq!(outcome(251, 8), Outcome::Unsatisfiable);
        let hard = 2_654_435_761 * 3_367_900_313;
        assert_eq!(outcome(hard, 32), Outcome::OutOfBudget);
    }
}
