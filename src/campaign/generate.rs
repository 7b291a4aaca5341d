//! Random calls: ABI-typed arguments that draw on a dictionary of constants
//! (PUSH immediates of the target's code, number literals of its sources) and
//! of values seen at run time (return data, log words), plus mutations of
//! corpus sequences and the simplifications the shrinker tries.
//!
//! Comparison feedback: the operands of the comparison behind each branch a
//! worker has seen go one way only are turned into values for the parameter
//! they came from (the one equal to an operand gets the other operand, ±1
//! for orderings; one the operand is an offset of gets the same offset),
//! kept per function and parameter, and drawn for that parameter first.

use crate::executor::{CmpKind, Comparison};
use crate::tx::{Delay, Holes, Tx};
use alloy_dyn_abi::{DynSolType, DynSolValue};
use alloy_json_abi::{Function, StateMutability};
use alloy_primitives::{Address, B256, I256, Selector, U256};
use rand::Rng;
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use std::collections::HashMap;
use std::sync::Arc;

/// A function the workers may call, with its resolved parameter types.
#[derive(Clone, Debug)]
pub struct Callable {
    pub function: Arc<Function>,
    pub selector: Selector,
    pub types: Vec<DynSolType>,
    pub payable: bool,
    /// The contract called when not the target (`allContracts`), and its
    /// name.
    pub to: Option<Address>,
    pub contract: Option<Arc<str>>,
}

impl Callable {
    pub fn new(function: Arc<Function>) -> Result<Self, String> {
        use alloy_dyn_abi::Specifier;
        let types = function
            .inputs
            .iter()
            .map(|p| {
                p.resolve()
                    .map_err(|e| format!("{}: {e}", function.signature()))
            })
            .collect::<Result<_, _>>()?;
        Ok(Callable {
            payable: function.state_mutability == StateMutability::Payable,
            selector: function.selector(),
            function,
            types,
            to: None,
            contract: None,
        })
    }
}

/// Values worth trying: constants of the target and values seen at run time.
#[derive(Clone, Debug, Default)]
pub struct Dictionary {
    constants: Vec<U256>,
    seen: Vec<U256>,
    seen_next: usize,
    pub addresses: Vec<Address>,
    /// String and hex literals of the sources (for `string` and `bytes`).
    pub strings: Vec<Vec<u8>>,
    /// Values comparisons asked for, per function and parameter.
    params: HashMap<Selector, Vec<Pool>>,
}

/// Values for one parameter: those an operand equal to the parameter asked
/// for (few, and the surest), and those an offset of it asked for; in each,
/// newest replacing oldest.
#[derive(Clone, Debug, Default)]
struct Pool {
    exact: Ring,
    offset: Ring,
}

#[derive(Clone, Debug, Default)]
struct Ring {
    values: Vec<DynSolValue>,
    next: usize,
}

/// How far above a parameter's value an operand may be and still be taken
/// for the parameter plus an offset.
const OFFSET_LIMIT: U256 = U256::from_limbs([1 << 32, 0, 0, 0]);

/// Values kept per parameter and kind at most.
const POOL_CAP: usize = 16;

impl Ring {
    fn add(&mut self, v: DynSolValue) {
        if self.values.contains(&v) {
            return;
        }
        if self.values.len() < POOL_CAP {
            self.values.push(v);
        } else {
            self.values[self.next] = v;
            self.next = (self.next + 1) % POOL_CAP;
        }
    }
}

impl Pool {
    fn len(&self) -> usize {
        self.exact.values.len() + self.offset.values.len()
    }

    fn pick(&self, rng: &mut SmallRng) -> Option<&DynSolValue> {
        if self.offset.values.is_empty() || (!self.exact.values.is_empty() && rng.random_bool(0.5))
        {
            self.exact.values.choose(rng)
        } else {
            self.offset.values.choose(rng)
        }
    }
}

/// The ABI word of a scalar argument (what comparisons see), if it is one.
fn word_of(v: &DynSolValue) -> Option<U256> {
    match v {
        DynSolValue::Uint(x, _) => Some(*x),
        DynSolValue::Int(x, _) => Some(x.into_raw()),
        DynSolValue::Address(a) => Some(U256::from_be_slice(a.as_slice())),
        DynSolValue::FixedBytes(w, _) => Some(U256::from_be_bytes(w.0)),
        _ => None,
    }
}

/// `word` as a value of `like`'s type, if it is one (in range for its width).
fn fit(word: U256, like: &DynSolValue) -> Option<DynSolValue> {
    match like {
        DynSolValue::Uint(_, bits) => {
            (mask(word, *bits) == word).then_some(DynSolValue::Uint(word, *bits))
        }
        DynSolValue::Int(_, bits) => {
            let v = I256::from_raw(word);
            let shift = 256 - *bits;
            (*bits == 256 || (v << shift).asr(shift) == v).then_some(DynSolValue::Int(v, *bits))
        }
        DynSolValue::Address(_) => (mask(word, 160) == word)
            .then(|| DynSolValue::Address(Address::from_word(B256::from(word)))),
        DynSolValue::FixedBytes(_, n) => {
            let b = B256::from(word);
            b[*n..]
                .iter()
                .all(|x| *x == 0)
                .then_some(DynSolValue::FixedBytes(b, *n))
        }
        _ => None,
    }
}

/// The values of `arg`'s type that would flip comparison `c`, each with
/// whether it came from an operand equal to the argument (`true`) or from
/// an operand that is an offset or residue of it (`false`): the other
/// operand, and for orderings its neighbours and a margin past it on each
/// side (so that a later equality moving the value a little keeps it on the
/// right side of the bound).
pub fn flips(arg: &DynSolValue, c: &Comparison) -> Vec<(DynSolValue, bool)> {
    let Some(w) = word_of(arg) else {
        return Vec::new();
    };
    let exact = w == c.a || w == c.b;
    let targets: [Option<U256>; 2] = if w == c.a {
        [Some(c.b), None]
    } else if w == c.b {
        [Some(c.a), None]
    } else if c.kind == CmpKind::Eq {
        // An operand may be `w + k` for a small k, or `w mod m` (below `w`):
        // move `w` by the difference. (Not for orderings: the ABI decoder's
        // and dispatcher's length checks are orderings that stay half
        // covered, and their operands would pass for offsets of every small
        // value.)
        let related = |x: U256| x < w || x.wrapping_sub(w) < OFFSET_LIMIT;
        [
            related(c.a).then(|| w.wrapping_add(c.b).wrapping_sub(c.a)),
            related(c.b).then(|| w.wrapping_add(c.a).wrapping_sub(c.b)),
        ]
    } else {
        [None, None]
    };
    let signed = matches!(arg, DynSolValue::Int(..));
    let mut out = Vec::new();
    for t in targets.into_iter().flatten() {
        let mut push = |x: U256| {
            if let Some(v) = fit(x, arg)
                && !out.iter().any(|(o, _)| *o == v)
            {
                out.push((v, exact));
            }
        };
        push(t);
        if c.kind == CmpKind::Order {
            push(t.wrapping_add(U256::ONE));
            push(t.wrapping_sub(U256::ONE));
            // A margin of an eighth of the bound's magnitude, plus one.
            let magnitude = if signed {
                I256::from_raw(t).unsigned_abs()
            } else {
                t
            };
            let m = (magnitude >> 3usize).saturating_add(U256::ONE);
            push(t.wrapping_add(m));
            push(t.wrapping_sub(m));
        }
    }
    out
}

/// The largest value of `arg`'s type (the positive half of a signed one),
/// for unsigned and signed integers.
fn type_max(arg: &DynSolValue) -> Option<U256> {
    match arg {
        DynSolValue::Uint(_, bits) => Some(mask(U256::MAX, *bits)),
        DynSolValue::Int(_, bits) => Some(mask(U256::MAX, bits - 1)),
        _ => None,
    }
}

/// Divisions tried at most to factor one product (a guard `a * b == k`).
const FACTOR_TRIES: u64 = 1 << 17;

/// Candidates for an equality one of whose operands is the sum or the
/// product of two arguments (`a + b == k`, `a * b == k`, the maze's and
/// real code's "two parameters together" guards), each a set of argument
/// changes: for a sum, one argument moved by the gap, or both set to halves
/// of `k`; for a product, both set to a factor pair of `k`, each factor at
/// least 2 and within its argument's type (found by trial division, at most
/// [`FACTOR_TRIES`] of them).
pub fn pair_flips(args: &[DynSolValue], c: &Comparison) -> Vec<Vec<(usize, DynSolValue)>> {
    let mut out = Vec::new();
    if c.kind != CmpKind::Eq {
        return out;
    }
    let words: Vec<Option<U256>> = args
        .iter()
        .map(|a| type_max(a).and_then(|_| word_of(a)))
        .collect();
    for i in 0..args.len() {
        for j in 0..args.len() {
            let (Some(wi), Some(wj)) = (words[i], words[j]) else {
                continue;
            };
            if i == j {
                continue;
            }
            let other = |x: U256| {
                if c.a == x {
                    Some(c.b)
                } else if c.b == x {
                    Some(c.a)
                } else {
                    None
                }
            };
            let mut push = |changes: Vec<(usize, U256)>| {
                let fitted: Option<Vec<_>> = changes
                    .into_iter()
                    .map(|(k, w)| fit(w, &args[k]).map(|v| (k, v)))
                    .collect();
                if let Some(f) = fitted
                    && !out.contains(&f)
                {
                    out.push(f);
                }
            };
            if i < j
                && let Some(k) = other(wi.wrapping_add(wj))
            {
                push(vec![(j, k.wrapping_sub(wi))]);
                push(vec![(i, k.wrapping_sub(wj))]);
                let half = k >> 1usize;
                push(vec![(i, half), (j, k - half)]);
            }
            let product = wi.checked_mul(wj);
            if i < j
                && product.is_some_and(|p| !p.is_zero())
                && let Some(k) = product.and_then(other)
            {
                let (mi, mj) = (type_max(&args[i]), type_max(&args[j]));
                if let (Some(mi), Some(mj)) = (mi, mj) {
                    for (d, e) in factor_pairs(k, mi, mj, 2) {
                        push(vec![(i, d), (j, e)]);
                    }
                }
            }
        }
    }
    out
}

/// Up to `max` pairs `(d, k / d)` with `d * (k / d) == k`, `2 <= d <= dmax`
/// and `2 <= k / d <= emax`, the factor nearest the square root first.
fn factor_pairs(k: U256, dmax: U256, emax: U256, max: usize) -> Vec<(U256, U256)> {
    let mut out = Vec::new();
    // Plain integers: the division loop is the cost.
    let (Ok(k), Ok(dmax), Ok(emax)) = (
        u128::try_from(k),
        u128::try_from(dmax.min(U256::from(u128::MAX))),
        u128::try_from(emax.min(U256::from(u128::MAX))),
    ) else {
        return out;
    };
    // d ranges over [max(2, ceil(k / emax)), min(dmax, k / 2)]; from the
    // square root down, then up, so that both factors are moderate.
    let lo = 2u128.max(k.div_ceil(emax.max(1)));
    let hi = dmax.min(k / 2);
    if lo > hi {
        return out;
    }
    let root = k.isqrt().clamp(lo, hi);
    let mut tries = 0u64;
    let mut down = Some(root);
    let mut up = root.checked_add(1).filter(|u| *u <= hi);
    while out.len() < max && tries < FACTOR_TRIES && (down.is_some() || up.is_some()) {
        for d in [down, up].into_iter().flatten() {
            tries += 1;
            if k % d == 0 && out.len() < max && !out.contains(&(U256::from(d), U256::from(k / d))) {
                out.push((U256::from(d), U256::from(k / d)));
            }
        }
        down = down.and_then(|d| d.checked_sub(1)).filter(|d| *d >= lo);
        up = up.and_then(|u| u.checked_add(1)).filter(|u| *u <= hi);
    }
    out
}

/// Input-to-state candidates for a call that met `cmps` on its path (the
/// deepest first): `tx` with one scalar argument replaced by a value that
/// would flip one comparison ([`flips`]), or two replaced where the
/// comparison's operand is their sum or product ([`pair_flips`]), and with
/// `flip_bools`, `tx` with one boolean argument negated (a guard on a
/// boolean compares nothing). At most `max`.
pub fn input_to_state(tx: &Tx, cmps: &[Comparison], flip_bools: bool, max: usize) -> Vec<Tx> {
    let mut out: Vec<Tx> = Vec::new();
    let offer = |i: usize, v: DynSolValue, out: &mut Vec<Tx>| {
        if out.len() < max && tx.args[i] != v {
            let mut t = tx.clone();
            t.args[i] = v;
            out.push(t);
        }
    };
    if flip_bools {
        for (i, arg) in tx.args.iter().enumerate() {
            if let DynSolValue::Bool(b) = arg {
                offer(i, DynSolValue::Bool(!b), &mut out);
            }
        }
    }
    for c in cmps.iter().rev() {
        for (i, arg) in tx.args.iter().enumerate() {
            for (v, _) in flips(arg, c) {
                offer(i, v, &mut out);
            }
        }
        for changes in pair_flips(&tx.args, c) {
            let mut t = tx.clone();
            for (i, v) in changes {
                t.args[i] = v;
            }
            if out.len() < max && t.args != tx.args && !out.iter().any(|o| o.args == t.args) {
                out.push(t);
            }
        }
    }
    out
}

/// Addresses a worker remembers at most (senders, deployed and run-time
/// created contracts).
pub const ADDRESS_CAP: usize = 128;

/// The string (`"…"`, `'…'`) and hex (`hex"…"`) literals of a source, with
/// simple escapes decoded; at most 256 of them, each at most 256 bytes.
fn string_literals(text: &str) -> Vec<Vec<u8>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() && out.len() < 256 {
        // Skip comments, which hold prose rather than values.
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
            continue;
        }
        if b[i] == b'"' || b[i] == b'\'' {
            let quote = b[i];
            let hex = i >= 3 && &b[i - 3..i] == b"hex";
            let mut j = i + 1;
            let mut lit = Vec::new();
            while j < b.len() && b[j] != quote && b[j] != b'\n' {
                if b[j] == b'\\' && j + 1 < b.len() {
                    j += 1;
                    lit.push(match b[j] {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'r' => b'\r',
                        b'0' => 0,
                        c => c,
                    });
                } else {
                    lit.push(b[j]);
                }
                j += 1;
            }
            if hex {
                let digits: String = lit
                    .iter()
                    .map(|&c| c as char)
                    .filter(|c| *c != '_')
                    .collect();
                if let Ok(bytes) = alloy_primitives::hex::decode(digits) {
                    lit = bytes;
                }
            }
            if lit.len() <= 256 && !out.contains(&lit) {
                out.push(lit);
            }
            i = j + 1;
            continue;
        }
        i += 1;
    }
    out
}

const SEEN_CAP: usize = 512;

impl Dictionary {
    /// Mines `code` (PUSH immediates) and `sources` (decimal and hex literals).
    pub fn mine(codes: &[&[u8]], sources: &[&str], addresses: Vec<Address>) -> Self {
        let mut set = std::collections::BTreeSet::new();
        for code in codes {
            for (pc, op) in crate::coverage::sourcemap::instruction_starts(code) {
                if (0x60..=0x7f).contains(&op) {
                    let n = (op - 0x5f) as usize;
                    let start = pc as usize + 1;
                    if let Some(bytes) = code.get(start..start + n) {
                        let v = U256::from_be_slice(bytes);
                        // Skip jump targets and memory offsets: small PUSH2s
                        // are mostly code locations.
                        if n != 2 || v < U256::from(256) {
                            set.insert(v);
                        }
                    }
                }
            }
        }
        let mut strings: Vec<Vec<u8>> = Vec::new();
        for text in sources {
            for lit in string_literals(text) {
                if !strings.contains(&lit) && strings.len() < 512 {
                    strings.push(lit);
                }
            }
            for word in text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_') {
                let w = word.replace('_', "");
                let parsed = if let Some(h) = w.strip_prefix("0x") {
                    U256::from_str_radix(h, 16).ok()
                } else if w.bytes().all(|b| b.is_ascii_digit()) && !w.is_empty() {
                    w.parse::<U256>().ok()
                } else {
                    None
                };
                if let Some(v) = parsed {
                    set.insert(v);
                }
            }
        }
        let mut constants: Vec<U256> = Vec::with_capacity(set.len() * 3);
        for v in &set {
            constants.push(*v);
            constants.push(v.wrapping_add(U256::from(1)));
            constants.push(v.wrapping_sub(U256::from(1)));
        }
        constants.sort();
        constants.dedup();
        let mut addresses = addresses;
        addresses.dedup();
        addresses.truncate(ADDRESS_CAP);
        Dictionary {
            constants,
            seen: Vec::new(),
            seen_next: 0,
            addresses,
            strings,
            params: HashMap::new(),
        }
    }

    /// Learns from the comparisons behind half-covered branches of a call of
    /// `selector` with `args`: for each scalar parameter, the values that
    /// would flip each comparison if the operand is the parameter itself or
    /// an offset of it ([`flips`]).
    pub fn learn(&mut self, selector: Selector, args: &[DynSolValue], cmps: &[Comparison]) {
        if cmps.is_empty() || args.is_empty() {
            return;
        }
        let pools = self
            .params
            .entry(selector)
            .or_insert_with(|| vec![Pool::default(); args.len()]);
        for (arg, pool) in args.iter().zip(pools.iter_mut()) {
            for c in cmps {
                for (v, exact) in flips(arg, c) {
                    if exact {
                        pool.exact.add(v);
                    } else {
                        pool.offset.add(v);
                    }
                }
            }
        }
    }

    /// A value comparisons asked for parameter `i` of `selector`, if any.
    fn asked(&self, rng: &mut SmallRng, selector: Selector, i: usize) -> Option<&DynSolValue> {
        self.params.get(&selector)?.get(i)?.pick(rng)
    }

    /// Values kept from comparison feedback (every parameter of every
    /// function).
    pub fn asked_len(&self) -> usize {
        self.params.values().flatten().map(Pool::len).sum()
    }

    /// Adds constants worth trying (the initial timestamp and block number).
    pub fn add_constants(&mut self, values: impl IntoIterator<Item = U256>) {
        self.constants.extend(values);
        self.constants.sort();
        self.constants.dedup();
    }

    /// Remembers an address (a contract created at run time), bounded.
    pub fn add_address(&mut self, a: Address) {
        if self.addresses.len() < ADDRESS_CAP && !self.addresses.contains(&a) {
            self.addresses.push(a);
        }
    }

    /// A constant no larger than `max` (for ether values and delays).
    fn pick_at_most(&self, rng: &mut SmallRng, max: U256) -> Option<U256> {
        let n = self.constants.partition_point(|c| *c <= max);
        (n > 0).then(|| self.constants[rng.random_range(0..n)])
    }

    /// Remembers a run-time value (bounded; oldest replaced).
    pub fn add_seen(&mut self, v: U256) {
        if self.seen.len() < SEEN_CAP {
            if !self.seen.contains(&v) {
                self.seen.push(v);
            }
        } else {
            self.seen[self.seen_next] = v;
            self.seen_next = (self.seen_next + 1) % SEEN_CAP;
        }
    }

    /// Remembers the 32-byte words of return data or logs.
    pub fn add_words(&mut self, data: &[u8]) {
        for chunk in data.chunks(32).take(8) {
            if chunk.len() == 32 {
                self.add_seen(U256::from_be_slice(chunk));
            }
        }
    }

    pub fn add_b256(&mut self, w: B256) {
        self.add_seen(U256::from_be_bytes(w.0));
    }

    pub fn len(&self) -> usize {
        self.constants.len() + self.seen.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn pick(&self, rng: &mut SmallRng) -> Option<U256> {
        let n = self.len();
        if n == 0 {
            return None;
        }
        let i = rng.random_range(0..n);
        Some(if i < self.constants.len() {
            self.constants[i]
        } else {
            self.seen[i - self.constants.len()]
        })
    }
}

/// Everything needed to draw a call.
pub struct GenContext<'a> {
    pub senders: &'a [Address],
    pub max_value: U256,
    pub max_time_delay: u64,
    pub max_block_delay: u64,
    /// Largest gas price drawn (`maxGasprice`; 0: every call at price 0).
    pub max_gas_price: u128,
}

impl<'a> GenContext<'a> {
    /// The limits `config` sets.
    pub fn of(config: &'a crate::config::Config) -> Self {
        GenContext {
            senders: &config.senders,
            max_value: config.max_value,
            max_time_delay: config.max_time_delay,
            max_block_delay: config.max_block_delay,
            max_gas_price: config.max_gas_price,
        }
    }
}

fn mask(v: U256, bits: usize) -> U256 {
    if bits >= 256 {
        v
    } else {
        v & ((U256::from(1) << bits) - U256::from(1))
    }
}

fn random_uint(rng: &mut SmallRng, dict: &Dictionary, bits: usize) -> U256 {
    let r = rng.random_range(0..100);
    let v = if r < 35 {
        dict.pick(rng).unwrap_or(U256::ZERO)
    } else if r < 50 {
        U256::from(rng.random_range(0..=16u64))
    } else if r < 58 {
        // Edges: max and max - small.
        let max = mask(U256::MAX, bits);
        max - U256::from(rng.random_range(0..=2u64)).min(max)
    } else {
        // Uniform over a random width, so small and large values both appear.
        let width = rng.random_range(1..=bits);
        let limbs: [u64; 4] = rng.random();
        mask(U256::from_limbs(limbs), width)
    };
    mask(v, bits)
}

fn random_int(rng: &mut SmallRng, dict: &Dictionary, bits: usize) -> I256 {
    let u = random_uint(rng, dict, bits);
    // Reinterpret the low `bits` as two's complement of that width.
    let v = I256::from_raw(u);
    let v = if bits < 256 {
        let shift = 256 - bits;
        (v << shift).asr(shift)
    } else {
        v
    };
    let v = if rng.random_bool(0.2) {
        v.wrapping_neg()
    } else {
        v
    };
    // Negating the type's minimum (-128 for int8) leaves the type: wrap it
    // back into `bits` (found by the print_parse_roundtrip fuzz target).
    if bits < 256 {
        let shift = 256 - bits;
        (v << shift).asr(shift)
    } else {
        v
    }
}

fn random_bytes(rng: &mut SmallRng, dict: &Dictionary, max: usize) -> Vec<u8> {
    let len = if rng.random_bool(0.2) {
        0
    } else {
        rng.random_range(0..=max)
    };
    if rng.random_bool(0.3)
        && let Some(w) = dict.pick(rng)
    {
        let b = w.to_be_bytes::<32>();
        return b[32 - len.min(32)..].to_vec();
    }
    (0..len).map(|_| rng.random()).collect()
}

/// A random value of type `ty`.
pub fn random_value(rng: &mut SmallRng, dict: &Dictionary, ty: &DynSolType) -> DynSolValue {
    match ty {
        DynSolType::Bool => DynSolValue::Bool(rng.random()),
        DynSolType::Uint(bits) => DynSolValue::Uint(random_uint(rng, dict, *bits), *bits),
        DynSolType::Int(bits) => DynSolValue::Int(random_int(rng, dict, *bits), *bits),
        DynSolType::Address => {
            let a = if rng.random_bool(0.8) && !dict.addresses.is_empty() {
                *dict.addresses.choose(rng).expect("non-empty")
            } else {
                let v = random_uint(rng, dict, 160);
                Address::from_word(B256::from(v))
            };
            DynSolValue::Address(a)
        }
        DynSolType::FixedBytes(n) => {
            let mut w = [0u8; 32];
            if rng.random_bool(0.4)
                && let Some(v) = dict.pick(rng)
            {
                let b = v.to_be_bytes::<32>();
                // Constants are right-aligned words; bytesN are left-aligned.
                w[..*n].copy_from_slice(&b[32 - n..]);
            } else if rng.random_bool(0.8) {
                rng.fill(&mut w[..*n]);
            }
            DynSolValue::FixedBytes(B256::from(w), *n)
        }
        DynSolType::Bytes if !dict.strings.is_empty() && rng.random_bool(0.25) => {
            DynSolValue::Bytes(dict.strings.choose(rng).expect("non-empty").clone())
        }
        DynSolType::Bytes => DynSolValue::Bytes(random_bytes(rng, dict, 64)),
        DynSolType::String if !dict.strings.is_empty() && rng.random_bool(0.4) => {
            let lit = dict.strings.choose(rng).expect("non-empty");
            string_value(lit.clone())
        }
        // A `string` on chain is any bytes: one in ten is not UTF-8
        // (contracts that hash, slice or compare strings byte by byte
        // see what Echidna sends them too).
        DynSolType::String if rng.random_bool(0.1) => {
            let mut b = random_bytes(rng, dict, 16);
            if std::str::from_utf8(&b).is_ok() {
                let at = rng.random_range(0..=b.len());
                b.insert(at, rng.random_range(0x80..=0xff));
            }
            DynSolValue::Bytes(b)
        }
        DynSolType::String => {
            let len = rng.random_range(0..=16);
            let s: String = (0..len)
                .map(|_| {
                    if rng.random_bool(0.9) {
                        rng.random_range(b'a'..=b'z') as char
                    } else {
                        rng.random_range(' '..='~')
                    }
                })
                .collect();
            DynSolValue::String(s)
        }
        DynSolType::Array(inner) => {
            let len = if rng.random_bool(0.1) {
                rng.random_range(0..=32)
            } else {
                rng.random_range(0..=4)
            };
            DynSolValue::Array((0..len).map(|_| random_value(rng, dict, inner)).collect())
        }
        DynSolType::FixedArray(inner, n) => {
            DynSolValue::FixedArray((0..*n).map(|_| random_value(rng, dict, inner)).collect())
        }
        DynSolType::Tuple(items) => {
            DynSolValue::Tuple(items.iter().map(|t| random_value(rng, dict, t)).collect())
        }
        DynSolType::Function => {
            let mut w = [0u8; 24];
            rng.fill(&mut w[..]);
            DynSolValue::Function(alloy_primitives::Function::from(w))
        }
        #[allow(unreachable_patterns)]
        _ => DynSolValue::Uint(U256::ZERO, 256),
    }
}

/// Share of fresh arguments drawn from what comparisons asked for.
const ASKED_SHARE: f64 = 0.25;

/// A new value for argument `i` of a call of `selector` (now `v`; its
/// siblings `args`): what a comparison asked for, a small move, a bit flip,
/// a sibling's value nearby, or a fresh draw.
fn mutate_arg(
    rng: &mut SmallRng,
    dict: &Dictionary,
    selector: Selector,
    args: &[DynSolValue],
    i: usize,
) -> DynSolValue {
    let v = &args[i];
    let word = word_of(v);
    let r = rng.random_range(0..100);
    if r < 50
        && let Some(a) = dict.asked(rng, selector, i)
    {
        return a.clone();
    }
    if let Some(w) = word {
        let moved = if r < 62 {
            // ±k, small or a power of two.
            let k = if rng.random_bool(0.7) {
                U256::from(rng.random_range(1..=16u64))
            } else {
                U256::ONE << rng.random_range(0..256usize)
            };
            Some(if rng.random_bool(0.5) {
                w.wrapping_add(k)
            } else {
                w.wrapping_sub(k)
            })
        } else if r < 70 {
            Some(w ^ (U256::ONE << rng.random_range(0..256usize)))
        } else if r < 80 && args.len() > 1 {
            // A sibling's value, maybe a little off.
            let j = rng.random_range(0..args.len());
            word_of(&args[j]).map(|s| s.wrapping_add(U256::from(rng.random_range(0..=2u64))))
        } else {
            None
        };
        if let Some(m) = moved.and_then(|m| fit(m, v)) {
            return m;
        }
    }
    match v.as_type() {
        Some(ty) => random_value(rng, dict, &ty),
        None => v.clone(),
    }
}

/// The value of a `string` argument holding `b`: text when it is UTF-8,
/// else the bytes themselves (which encode the same).
pub fn string_value(b: Vec<u8>) -> DynSolValue {
    match String::from_utf8(b) {
        Ok(s) => DynSolValue::String(s),
        Err(e) => DynSolValue::Bytes(e.into_bytes()),
    }
}

/// A random call of `callable`.
pub fn random_tx(
    rng: &mut SmallRng,
    dict: &Dictionary,
    ctx: &GenContext<'_>,
    callable: &Callable,
) -> Tx {
    let args = callable
        .types
        .iter()
        .enumerate()
        .map(|(i, t)| {
            if rng.random_bool(ASKED_SHARE)
                && let Some(v) = dict.asked(rng, callable.selector, i)
            {
                return v.clone();
            }
            random_value(rng, dict, t)
        })
        .collect();
    let value = if callable.payable && rng.random_bool(0.5) && !ctx.max_value.is_zero() {
        random_call_value(rng, dict, ctx.max_value)
    } else {
        U256::ZERO
    };
    let delay_of = |rng: &mut SmallRng, max: u64| -> u64 {
        match dict.pick_at_most(rng, U256::from(max)) {
            Some(v) if rng.random_bool(0.3) => v.saturating_to(),
            _ => rng.random_range(0..=max),
        }
    };
    let delay = if rng.random_bool(0.5) {
        Delay::NONE
    } else {
        Delay {
            seconds: delay_of(rng, ctx.max_time_delay),
            blocks: delay_of(rng, ctx.max_block_delay),
        }
    };
    // As Echidna: a price drawn per call up to `maxGasprice`.
    let gas_price = if ctx.max_gas_price == 0 {
        0
    } else {
        rng.random_range(0..=ctx.max_gas_price)
    };
    Tx {
        function: callable.function.clone(),
        args,
        sender: *ctx.senders.choose(rng).expect("at least one sender"),
        value,
        delay,
        gas_price,
        to: callable.to,
    }
}

/// A value `value` of the payable `function` may send: the contract's own
/// constants first (thresholds, prices), then any up to `maxValue`.
fn random_call_value(rng: &mut SmallRng, dict: &Dictionary, max: U256) -> U256 {
    if max.is_zero() {
        return U256::ZERO;
    }
    match dict.pick_at_most(rng, max) {
        Some(v) if rng.random_bool(0.3) => v,
        _ => {
            let limbs: [u64; 4] = rng.random();
            U256::from_limbs(limbs) % (max + U256::from(1))
        }
    }
}

/// The value at `path` under `v` (of type `ty`), with its type.
fn slot_at<'a>(
    v: &'a mut DynSolValue,
    ty: DynSolType,
    path: &[usize],
) -> Option<(&'a mut DynSolValue, DynSolType)> {
    let Some((&j, rest)) = path.split_first() else {
        return Some((v, ty));
    };
    let inner = match ty {
        DynSolType::Array(t) | DynSolType::FixedArray(t, _) => *t,
        DynSolType::Tuple(mut ts) if j < ts.len() => ts.swap_remove(j),
        _ => return None,
    };
    match v {
        DynSolValue::Array(items) | DynSolValue::FixedArray(items) | DynSolValue::Tuple(items) => {
            slot_at(items.get_mut(j)?, inner, rest)
        }
        _ => None,
    }
}

/// `tx` with each `?` of `holes` drawn anew from this worker's generator
/// (the dictionary, values comparisons asked for, the ABI type): an
/// injected call with wildcards, as one run of it.
pub fn fill_holes(
    rng: &mut SmallRng,
    dict: &Dictionary,
    ctx: &GenContext<'_>,
    tx: &Tx,
    holes: &Holes,
) -> Tx {
    use alloy_dyn_abi::Specifier;
    let mut out = tx.clone();
    for path in &holes.args {
        let Some((&i, rest)) = path.split_first() else {
            continue;
        };
        let Some(ty) = tx.function.inputs.get(i).and_then(|p| p.resolve().ok()) else {
            continue;
        };
        let Some((slot, ty)) = out.args.get_mut(i).and_then(|v| slot_at(v, ty, rest)) else {
            continue;
        };
        let top = rest.is_empty();
        // A whole argument may be what a comparison asked for.
        if top
            && rng.random_bool(ASKED_SHARE)
            && let Some(v) = dict.asked(rng, tx.selector(), i)
        {
            *slot = v.clone();
            continue;
        }
        *slot = random_value(rng, dict, &ty);
    }
    if holes.value {
        out.value = if tx.function.state_mutability == StateMutability::Payable {
            random_call_value(rng, dict, ctx.max_value)
        } else {
            U256::ZERO
        };
    }
    if holes.sender
        && let Some(s) = ctx.senders.choose(rng)
    {
        out.sender = *s;
    }
    out
}

/// A simpler version of `v` (toward zero, shorter), or `None` if it is as
/// simple as it gets.
pub fn simplify(rng: &mut SmallRng, v: &DynSolValue) -> Option<DynSolValue> {
    match v {
        DynSolValue::Bool(true) => Some(DynSolValue::Bool(false)),
        DynSolValue::Uint(x, bits) if !x.is_zero() => {
            let y = match rng.random_range(0..3) {
                0 => U256::ZERO,
                1 => *x >> 1,
                _ => *x - U256::from(1),
            };
            Some(DynSolValue::Uint(y, *bits))
        }
        DynSolValue::Int(x, bits) if !x.is_zero() => {
            let y = match rng.random_range(0..3) {
                0 => I256::ZERO,
                1 => x.asr(1),
                _ => {
                    if x.is_negative() {
                        *x + I256::ONE
                    } else {
                        *x - I256::ONE
                    }
                }
            };
            Some(DynSolValue::Int(y, *bits))
        }
        DynSolValue::Bytes(b) if !b.is_empty() => {
            let keep = rng.random_range(0..b.len());
            Some(DynSolValue::Bytes(b[..keep].to_vec()))
        }
        DynSolValue::String(s) if !s.is_empty() => {
            let mut t = s.clone();
            t.pop();
            Some(DynSolValue::String(t))
        }
        DynSolValue::FixedBytes(w, n) if !w.is_zero() => {
            Some(DynSolValue::FixedBytes(B256::ZERO, *n))
        }
        // Addresses shrink toward the default sender, then zero.
        DynSolValue::Address(a) if *a != crate::executor::DEFAULT_SENDERS[0] && !a.is_zero() => {
            Some(DynSolValue::Address(crate::executor::DEFAULT_SENDERS[0]))
        }
        DynSolValue::Array(items) if !items.is_empty() => {
            let mut items = items.clone();
            if rng.random_bool(0.5) {
                items.remove(rng.random_range(0..items.len()));
            } else {
                let i = rng.random_range(0..items.len());
                items[i] = simplify(rng, &items[i])?;
            }
            Some(DynSolValue::Array(items))
        }
        DynSolValue::FixedArray(items) | DynSolValue::Tuple(items) if !items.is_empty() => {
            let mut items = items.clone();
            let i = rng.random_range(0..items.len());
            items[i] = simplify(rng, &items[i])?;
            Some(if matches!(v, DynSolValue::Tuple(_)) {
                DynSolValue::Tuple(items)
            } else {
                DynSolValue::FixedArray(items)
            })
        }
        _ => None,
    }
}

/// A mutation of a corpus sequence, at most `max_len` calls long.
pub fn mutate(
    rng: &mut SmallRng,
    dict: &Dictionary,
    ctx: &GenContext<'_>,
    base: &[Tx],
    other: Option<&[Tx]>,
    fresh: Tx,
    max_len: usize,
) -> Vec<Tx> {
    let mut seq: Vec<Tx> = base.to_vec();
    match rng.random_range(0..9) {
        // Keep a prefix, let the worker append fresh calls.
        0 => seq.truncate(rng.random_range(0..=seq.len())),
        // Splice with another entry.
        1 => {
            if let Some(o) = other {
                let cut = rng.random_range(0..=seq.len());
                seq.truncate(cut);
                let from = rng.random_range(0..=o.len());
                seq.extend_from_slice(&o[from..]);
            }
        }
        // Change one argument of one call: most often of the last call,
        // the one that reached new coverage (corpus entries end there).
        2..=4 => {
            if !seq.is_empty() {
                let i = if rng.random_bool(0.6) {
                    seq.len() - 1
                } else {
                    rng.random_range(0..seq.len())
                };
                let tx = &mut seq[i];
                if !tx.args.is_empty() {
                    let a = rng.random_range(0..tx.args.len());
                    let selector = tx.selector();
                    tx.args[a] = mutate_arg(rng, dict, selector, &tx.args, a);
                }
            }
        }
        // Insert a fresh call.
        5 => {
            let at = rng.random_range(0..=seq.len());
            seq.insert(at, fresh);
        }
        // Drop a call.
        6 => {
            if !seq.is_empty() {
                seq.remove(rng.random_range(0..seq.len()));
            }
        }
        // Change senders and delays.
        _ => {
            for tx in seq.iter_mut() {
                if rng.random_bool(0.3) {
                    tx.sender = *ctx.senders.choose(rng).expect("sender");
                }
                if rng.random_bool(0.3) {
                    tx.delay = Delay {
                        seconds: rng.random_range(0..=ctx.max_time_delay),
                        blocks: rng.random_range(0..=ctx.max_block_delay),
                    };
                }
            }
        }
    }
    seq.truncate(max_len);
    seq
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn mines_push_constants_and_source_literals() {
        // PUSH1 7, PUSH32 <big>, PUSH2 0x0100 (a small PUSH2 is skipped only below 256)
        let mut code = vec![0x60, 7, 0x7f];
        code.extend([0xab; 32]);
        code.extend([0x61, 0x01, 0x00]);
        let d = Dictionary::mine(&[&code], &["x == 42 && y == 0x10_00"], vec![]);
        for v in [7u64, 6, 8, 42, 0x1000] {
            assert!(d.constants.contains(&U256::from(v)), "{v}");
        }
        assert!(!d.constants.contains(&U256::from(0x100)));
    }

    #[test]
    fn string_and_hex_literals_are_mined_comments_are_not() {
        let d = Dictionary::mine(
            &[],
            &[
                "// \"not me\"\nrequire(keccak256(bytes(s)) == keccak256(\"open sesame\"), 'no\\n');\nbytes x = hex\"beef\";",
            ],
            vec![],
        );
        assert!(
            d.strings.contains(&b"open sesame".to_vec()),
            "{:?}",
            d.strings
        );
        assert!(d.strings.contains(&b"no\n".to_vec()));
        assert!(d.strings.contains(&vec![0xbe, 0xef]));
        assert!(!d.strings.iter().any(|s| s == b"not me"));
    }

    #[test]
    fn signed_values_stay_inside_their_width() {
        let d = Dictionary::mine(&[], &["128 255 32768"], vec![]);
        let mut rng = SmallRng::seed_from_u64(4);
        for bits in [8usize, 16, 24, 64, 128] {
            let lo = -(I256::ONE << (bits - 1));
            let hi = (I256::ONE << (bits - 1)) - I256::ONE;
            for _ in 0..20_000 {
                let v = random_int(&mut rng, &d, bits);
                assert!(v >= lo && v <= hi, "int{bits}: {v}");
            }
        }
    }

    #[test]
    fn random_values_have_their_types() {
        let mut rng = SmallRng::seed_from_u64(3);
        let d = Dictionary::mine(&[], &["1000"], vec![Address::ZERO]);
        for ty in [
            "uint8",
            "int16",
            "address",
            "bool",
            "bytes4",
            "bytes",
            "string",
            "uint16[]",
            "address[2]",
            "bool[][]",
            "(int16,uint8,address,bool)",
        ] {
            let t: DynSolType = ty.parse().unwrap();
            for _ in 0..200 {
                let v = random_value(&mut rng, &d, &t);
                // A `string` that is not UTF-8 is held as bytes.
                let raw_string = ty == "string"
                    && matches!(&v, DynSolValue::Bytes(b) if std::str::from_utf8(b).is_err());
                assert!(t.matches(&v) || raw_string, "{ty}: {v:?}");
                // Values must encode (range-correct for their width).
                let _ = v.abi_encode();
                if let DynSolValue::Uint(x, 8) = v {
                    assert!(x < U256::from(256));
                }
                if let DynSolValue::Int(x, 16) = v {
                    assert!(
                        x >= I256::try_from(-32768).unwrap() && x <= I256::try_from(32767).unwrap()
                    );
                }
            }
        }
    }

    fn cmp(kind: CmpKind, a: U256, b: U256) -> Comparison {
        Comparison {
            kind,
            a,
            b,
            site: 1,
        }
    }

    fn pool_of(d: &Dictionary, sel: Selector, i: usize) -> (Vec<DynSolValue>, Vec<DynSolValue>) {
        let p = &d.params[&sel][i];
        (p.exact.values.clone(), p.offset.values.clone())
    }

    #[test]
    fn comparisons_become_values_of_the_parameter_they_came_from() {
        let mut d = Dictionary::default();
        let sel = Selector::from([1, 2, 3, 4]);
        let u = |x: u64| U256::from(x);
        let args = vec![
            DynSolValue::Uint(u(7), 16),
            DynSolValue::Int(I256::try_from(-5).unwrap(), 32),
            DynSolValue::Uint(u(5_000_000), 64),
            DynSolValue::Bool(true),
        ];
        let minus = |x: i64| I256::try_from(x).unwrap().into_raw();
        d.learn(
            sel,
            &args,
            &[
                // b == 31337 (equal operand: the other one)
                cmp(CmpKind::Eq, u(7), u(31337)),
                // c < -40000 (signed ordering: the bound and its neighbours)
                cmp(CmpKind::Order, minus(-5), minus(-40000)),
                // e % 977 == 611 (an operand below e: e moved by the gap)
                cmp(CmpKind::Eq, u(5_000_000 % 977), u(611)),
                // a bound far out of uint16's range fits nobody
                cmp(CmpKind::Eq, u(7), U256::MAX - u(3)),
            ],
        );
        let (exact, _) = pool_of(&d, sel, 0);
        assert_eq!(exact, vec![DynSolValue::Uint(u(31337), 16)]);
        let (exact, _) = pool_of(&d, sel, 1);
        for v in [-40001i64, -40000, -39999] {
            assert!(
                exact.contains(&DynSolValue::Int(I256::try_from(v).unwrap(), 32)),
                "{v}: {exact:?}"
            );
        }
        let (_, offset) = pool_of(&d, sel, 2);
        let e = 5_000_000 - 5_000_000 % 977 + 611;
        assert!(offset.contains(&DynSolValue::Uint(u(e), 64)), "{offset:?}");
        assert_eq!(e % 977, 611);
        // Booleans learn nothing; every value has its parameter's type.
        assert!(pool_of(&d, sel, 3).0.is_empty() && pool_of(&d, sel, 3).1.is_empty());
        let ty: DynSolType = "int32".parse().unwrap();
        assert!(pool_of(&d, sel, 1).0.iter().all(|v| ty.matches(v)));
        // And they are drawn for that parameter.
        let mut rng = SmallRng::seed_from_u64(1);
        let drawn = (0..50)
            .filter_map(|_| d.asked(&mut rng, sel, 0).cloned())
            .collect::<Vec<_>>();
        let hits = drawn
            .iter()
            .filter(|v| **v == DynSolValue::Uint(u(31337), 16))
            .count();
        assert!(hits >= 15, "{drawn:?}");
        let ty: DynSolType = "uint16".parse().unwrap();
        assert!(drawn.iter().all(|v| ty.matches(v)));
        assert!(d.asked(&mut rng, Selector::from([9, 9, 9, 9]), 0).is_none());
    }

    #[test]
    fn sums_and_products_of_two_arguments_are_solved_for_both() {
        let u = |x: u64| U256::from(x);
        let args = vec![
            DynSolValue::Uint(u(1000), 32),
            DynSolValue::Uint(u(3), 32),
            DynSolValue::Uint(u(20), 16),
            DynSolValue::Uint(u(30), 16),
        ];
        // `uint64(a) + uint64(b) == 4080061783` with a = 1000, b = 3: one
        // moved by the gap, or both set to halves.
        let sum = pair_flips(&args, &cmp(CmpKind::Eq, u(1003), u(4_080_061_783)));
        assert!(sum.contains(&vec![(1, DynSolValue::Uint(u(4_080_060_783), 32))]));
        assert!(sum.contains(&vec![
            (0, DynSolValue::Uint(u(2_040_030_891), 32)),
            (1, DynSolValue::Uint(u(2_040_030_892), 32)),
        ]));
        // `uint32(c) * uint32(d) == 1363015290 && c > 1 && d > 1` for
        // uint16s: a factor pair that fits both, each at least 2.
        let k = 1_363_015_290u64;
        let prod = pair_flips(&args, &cmp(CmpKind::Eq, u(600), u(k)));
        assert!(!prod.is_empty());
        for p in &prod {
            let [(2, DynSolValue::Uint(c, 16)), (3, DynSolValue::Uint(d, 16))] = p[..] else {
                panic!("{p:?}");
            };
            assert_eq!(c * d, u(k));
            assert!(c >= u(2) && d >= u(2));
        }
        // A prime above both types' reach has no pair; orderings none.
        assert!(pair_flips(&args, &cmp(CmpKind::Eq, u(600), u(4_294_967_291))).is_empty());
        assert!(pair_flips(&args, &cmp(CmpKind::Order, u(600), u(k))).is_empty());
        // Candidates carry both changes.
        let f: Function = Function::parse("f(uint32,uint32,uint16,uint16)").unwrap();
        let tx = Tx {
            function: Arc::new(f),
            args,
            sender: Address::ZERO,
            value: U256::ZERO,
            delay: Delay::NONE,
            gas_price: 0,
            to: None,
        };
        let c = input_to_state(&tx, &[cmp(CmpKind::Eq, u(600), u(k))], false, 12);
        assert!(c.iter().any(|t| {
            let (DynSolValue::Uint(a, _), DynSolValue::Uint(b, _)) = (&t.args[2], &t.args[3])
            else {
                return false;
            };
            *a * *b == u(k)
        }));
    }

    #[test]
    fn input_to_state_replaces_one_argument_per_candidate_deepest_comparison_first() {
        let u = |x: u64| U256::from(x);
        let f: Function = Function::parse("f(uint16,bool,uint64)").unwrap();
        let tx = Tx {
            function: Arc::new(f),
            args: vec![
                DynSolValue::Uint(u(7), 16),
                DynSolValue::Bool(true),
                DynSolValue::Uint(u(17), 64),
            ],
            sender: Address::ZERO,
            value: U256::ZERO,
            delay: Delay::NONE,
            gas_price: 0,
            to: None,
        };
        let cmps = [
            cmp(CmpKind::Eq, u(7), u(31337)),
            // `e > 40000` with e = 17: the bound, its neighbours and a
            // margin past it each way.
            cmp(CmpKind::Order, u(17), u(40000)),
        ];
        let c = input_to_state(&tx, &cmps, true, 64);
        let firsts: Vec<_> = c.iter().map(|t| t.args.clone()).collect();
        // The boolean first, then the deepest comparison, then the earlier.
        assert_eq!(firsts[0][1], DynSolValue::Bool(false));
        let e: Vec<_> = c[1..6].iter().map(|t| t.args[2].clone()).collect();
        for v in [40000u64, 40001, 39999, 40000 + 5001, 40000 - 5001] {
            assert!(e.contains(&DynSolValue::Uint(u(v), 64)), "{v}: {e:?}");
        }
        assert!(
            c.iter()
                .any(|t| t.args[0] == DynSolValue::Uint(u(31337), 16))
        );
        // Each candidate changes exactly one argument.
        for t in &c {
            let changed = t.args.iter().zip(&tx.args).filter(|(a, b)| a != b).count();
            assert_eq!(changed, 1, "{:?}", t.args);
        }
        assert_eq!(input_to_state(&tx, &cmps, true, 3).len(), 3);
        // Signed bounds keep their sign in the margin.
        let minus = |x: i64| I256::try_from(x).unwrap();
        let v = flips(
            &DynSolValue::Int(minus(-5), 32),
            &cmp(
                CmpKind::Order,
                minus(-5).into_raw(),
                minus(-40000).into_raw(),
            ),
        );
        for x in [-40000i64, -39999, -40001, -45001, -34999] {
            assert!(
                v.contains(&(DynSolValue::Int(minus(x), 32), true)),
                "{x}: {v:?}"
            );
        }
    }

    #[test]
    fn values_out_of_a_parameters_range_do_not_fit() {
        let u = |x: u64| U256::from(x);
        assert!(fit(u(256), &DynSolValue::Uint(u(0), 8)).is_none());
        assert!(fit(u(255), &DynSolValue::Uint(u(0), 8)).is_some());
        let minus_129 = I256::try_from(-129).unwrap().into_raw();
        let minus_128 = I256::try_from(-128).unwrap().into_raw();
        assert!(fit(minus_129, &DynSolValue::Int(I256::ZERO, 8)).is_none());
        assert!(fit(minus_128, &DynSolValue::Int(I256::ZERO, 8)).is_some());
        assert!(fit(U256::MAX, &DynSolValue::Address(Address::ZERO)).is_none());
        let left = U256::from_be_bytes(B256::left_padding_from(&[0xab; 4]).0);
        assert!(fit(left, &DynSolValue::FixedBytes(B256::ZERO, 4)).is_none());
        let right = U256::from_be_bytes(B256::right_padding_from(&[0xab; 4]).0);
        assert!(fit(right, &DynSolValue::FixedBytes(B256::ZERO, 4)).is_some());
    }

    #[test]
    fn simplify_goes_toward_zero_and_ends() {
        let mut rng = SmallRng::seed_from_u64(9);
        let mut v = DynSolValue::Uint(U256::from(1_000_000u64), 256);
        let mut steps = 0;
        while let Some(s) = simplify(&mut rng, &v) {
            v = s;
            steps += 1;
            assert!(steps < 1000);
        }
        assert_eq!(v, DynSolValue::Uint(U256::ZERO, 256));
    }
}
