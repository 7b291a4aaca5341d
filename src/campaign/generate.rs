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

mod input_to_state;
mod solve;
pub use input_to_state::*;
pub use solve::{Effort, SOLVE_TARGETS, Solved, solve_branches};

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
    /// Functions a `bytes` argument may encode a call to (Echidna fills
    /// `bytes` with calls, so a contract that calls itself or a target
    /// back with data it was given reaches functions no sender can).
    callbacks: Vec<(Selector, Vec<DynSolType>)>,
}

/// Callback functions kept at most.
const CALLBACKS: usize = 256;

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
            callbacks: Vec::new(),
        }
    }

    /// Adds functions a `bytes` argument may encode a call to (those that
    /// change state; their types must parse), bounded.
    pub fn add_callbacks<'f>(&mut self, functions: impl IntoIterator<Item = &'f Function>) {
        use alloy_dyn_abi::Specifier;
        use alloy_json_abi::StateMutability::{Pure, View};
        for f in functions {
            if self.callbacks.len() >= CALLBACKS || matches!(f.state_mutability, View | Pure) {
                continue;
            }
            let Ok(types) = f
                .inputs
                .iter()
                .map(|p| p.resolve())
                .collect::<Result<Vec<_>, _>>()
            else {
                continue;
            };
            let selector = f.selector();
            if !self.callbacks.iter().any(|(s, _)| *s == selector) {
                self.callbacks.push((selector, types));
            }
        }
    }

    /// Calldata of a call to one of the callback functions, with random
    /// arguments.
    fn callback_call(&self, rng: &mut SmallRng) -> Option<Vec<u8>> {
        let (selector, types) = self.callbacks.choose(rng)?;
        let args: Vec<DynSolValue> = types.iter().map(|t| random_value(rng, self, t)).collect();
        let mut data = selector.to_vec();
        data.extend(DynSolValue::Tuple(args).abi_encode_params());
        Some(data)
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
        DynSolType::Bytes if !dict.callbacks.is_empty() && rng.random_bool(0.25) => {
            DynSolValue::Bytes(dict.callback_call(rng).unwrap_or_default())
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
/// Puts `v` into one of `tx`'s numbers, chosen at random: an integer
/// argument wide enough to hold it, or its time delay (when `v` is within
/// `max_time_delay`). False, and `tx` unchanged, when none can hold it.
pub fn set_a_number(rng: &mut SmallRng, tx: &mut Tx, v: U256, max_time_delay: u64) -> bool {
    let holds = |a: &DynSolValue| match a {
        DynSolValue::Uint(_, bits) => v.bit_len() <= *bits,
        DynSolValue::Int(_, bits) => v.bit_len() < *bits,
        _ => false,
    };
    let args: Vec<usize> = (0..tx.args.len()).filter(|&i| holds(&tx.args[i])).collect();
    let delay = v <= U256::from(max_time_delay);
    let n = args.len() + usize::from(delay);
    if n == 0 {
        return false;
    }
    match args.get(rng.random_range(0..n)) {
        Some(&i) => {
            tx.args[i] = match &tx.args[i] {
                DynSolValue::Int(_, bits) => DynSolValue::Int(I256::from_raw(v), *bits),
                DynSolValue::Uint(_, bits) => DynSolValue::Uint(v, *bits),
                _ => unreachable!("only integers hold it"),
            }
        }
        None => tx.delay.seconds = v.saturating_to(),
    }
    true
}

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
        // Addresses shrink toward zero, or the default sender where zero
        // is refused (a `require(to != address(0))`), then zero from it: an
        // argument that does not matter reads 0x0.
        DynSolValue::Address(a) if !a.is_zero() => {
            let sender = crate::executor::DEFAULT_SENDERS[0];
            let to_zero = *a == sender || rng.random_bool(0.5);
            Some(DynSolValue::Address(if to_zero {
                Address::ZERO
            } else {
                sender
            }))
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
mod tests;
