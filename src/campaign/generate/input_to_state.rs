//! Input-to-state: the comparisons a call's arguments met, turned into calls
//! that meet them the other way (the operand of a comparison put where the
//! argument was; pairs of arguments whose product or sum is compared).

use super::*;

/// The ABI word of a scalar argument (what comparisons see), if it is one.
pub(super) fn word_of(v: &DynSolValue) -> Option<U256> {
    match v {
        DynSolValue::Uint(x, _) => Some(*x),
        DynSolValue::Int(x, _) => Some(x.into_raw()),
        DynSolValue::Address(a) => Some(U256::from_be_slice(a.as_slice())),
        DynSolValue::FixedBytes(w, _) => Some(U256::from_be_bytes(w.0)),
        _ => None,
    }
}

/// `word` as a value of `like`'s type, if it is one (in range for its width).
pub(super) fn fit(word: U256, like: &DynSolValue) -> Option<DynSolValue> {
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
    // An operand a constant multiple of the argument in its own width (`13 *
    // x == k`, wrapping or not): the argument that makes the multiple `k`.
    let multiple = (c.kind == CmpKind::Eq && !exact)
        .then(|| multiple_solution(arg, w, c))
        .flatten();
    for t in targets.into_iter().flatten().chain(multiple) {
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

/// The width of an integer argument, in bits.
pub(super) fn width(arg: &DynSolValue) -> Option<usize> {
    match arg {
        DynSolValue::Uint(_, bits) | DynSolValue::Int(_, bits) => Some(*bits),
        _ => None,
    }
}

/// `y`, an `n`-bit two's complement value, as the word of `arg`'s type
/// (sign-extended for a signed one).
fn widen(y: U256, n: usize, arg: &DynSolValue) -> U256 {
    if matches!(arg, DynSolValue::Int(..)) && n < 256 {
        let shift = 256 - n;
        (I256::from_raw(y) << shift).asr(shift).into_raw()
    } else {
        y
    }
}

/// The inverse of odd `x` modulo 2^256 (Newton's iteration: `x` is its own
/// inverse modulo 8, and each step doubles the bits that are right).
fn inverse_odd(x: U256) -> U256 {
    let two = U256::from(2);
    let mut y = x;
    for _ in 0..7 {
        y = y.wrapping_mul(two.wrapping_sub(x.wrapping_mul(y)));
    }
    y
}

/// The smallest `y` with `m * y ≡ k (mod 2^n)`, if there is one: the
/// argument that makes a product with `m` equal `k` in `n`-bit arithmetic
/// (Solidity's `uint64(a * b)`, unchecked, wraps there). With `m = 2^t * o`
/// (`o` odd) there is one exactly when `k` is a multiple of `2^t`.
pub(super) fn solve_mul(m: U256, k: U256, n: usize) -> Option<U256> {
    if n <= 64 {
        // The common widths, in machine words (this runs for every
        // comparison a call meets).
        let low = |x: U256| x.as_limbs()[0];
        return solve_mul_u64(low(m), low(k), n as u32).map(U256::from);
    }
    let (m, k) = (mask(m, n), mask(k, n));
    if m.is_zero() {
        return None;
    }
    let t = m.trailing_zeros();
    if !k.is_zero() && k.trailing_zeros() < t {
        return None;
    }
    Some(mask((k >> t).wrapping_mul(inverse_odd(m >> t)), n - t))
}

/// [`solve_mul`] for `n <= 64`.
fn solve_mul_u64(m: u64, k: u64, n: u32) -> Option<u64> {
    let mask = |x: u64, bits: u32| {
        if bits >= 64 {
            x
        } else {
            x & ((1u64 << bits) - 1)
        }
    };
    let (m, k) = (mask(m, n), mask(k, n));
    if m == 0 {
        return None;
    }
    let t = m.trailing_zeros();
    if k != 0 && k.trailing_zeros() < t {
        return None;
    }
    let o = m >> t;
    let mut inv = o;
    for _ in 0..5 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(o.wrapping_mul(inv)));
    }
    Some(mask((k >> t).wrapping_mul(inv), n - t))
}

/// For an equality one of whose operands is `c * w` in the argument's width
/// for a constant `2 <= c < 2^16` (`uint64(13 * x) == k`), the argument that
/// makes it the other operand, wrapping if it must. (A larger multiplier is
/// more likely a coincidence than a constant of the code.)
pub(super) fn multiple_solution(arg: &DynSolValue, w: U256, c: &Comparison) -> Option<U256> {
    let n = width(arg)?;
    let w = mask(w, n);
    let fits = |x: U256| mask(x, n) == x;
    if w < U256::from(2) {
        return None;
    }
    // (The multiplier `solve_mul` finds makes `m * w` equal `x` by
    // construction: nothing to check but its size.)
    let small = |m: u128| (2..1 << 16).contains(&m);
    [(c.a, c.b), (c.b, c.a)].into_iter().find_map(|(x, k)| {
        if x == w || !fits(x) || !fits(k) {
            return None;
        }
        if n <= 64 {
            // In machine words: this runs for every comparison a call meets.
            let low = |v: U256| v.as_limbs()[0];
            let m = solve_mul_u64(low(w), low(x), n as u32)?;
            if !small(m as u128) {
                return None;
            }
            return solve_mul_u64(m, low(k), n as u32).map(|y| widen(U256::from(y), n, arg));
        }
        // Wider arguments: only a product that did not wrap (a wide type
        // wraps only for values near its top), in machine words while they
        // fit.
        if x < w || x.bit_len() > w.bit_len() + 16 {
            return None;
        }
        let (Ok(x), Ok(w)) = (u128::try_from(x), u128::try_from(w)) else {
            return None;
        };
        if x % w != 0 || !small(x / w) {
            return None;
        }
        solve_mul(U256::from(x / w), k, n).map(|y| widen(y, n, arg))
    })
}

/// If an operand of `c` is `full` (the 256-bit result of an operation on
/// two `n`-bit arguments) cut to the width it was computed in: the other
/// operand (the value it must take) and that width, `n` or a narrower one.
fn result_width(c: &Comparison, full: U256, n: usize) -> Option<(U256, usize)> {
    [(c.a, c.b), (c.b, c.a)].into_iter().find_map(|(x, k)| {
        // A value wider than the arguments was computed wider (`uint32(a)
        // * uint32(b)` of two uint16s): not this width's result.
        if mask(k, n) != k {
            return None;
        }
        // In the arguments' own width (Solidity's type of `a * b`), wrapped
        // or not.
        if mask(full, n) == x {
            return Some((k, n));
        }
        // Else the widest whole-byte width below which `full` agrees with
        // it in every bit (`uint64(a) * uint64(b)` of wider arguments: the
        // bits above the product's width are those of a wider product, the
        // first of them differs with even odds).
        let m = (full ^ x).trailing_zeros() / 8 * 8;
        (m >= 8 && m < n && m >= x.bit_len()).then_some((k, m))
    })
}

/// The largest value of `arg`'s type (the positive half of a signed one),
/// for unsigned and signed integers.
pub(super) fn type_max(arg: &DynSolValue) -> Option<U256> {
    match arg {
        DynSolValue::Uint(_, bits) => Some(mask(U256::MAX, *bits)),
        DynSolValue::Int(_, bits) => Some(mask(U256::MAX, bits - 1)),
        _ => None,
    }
}

/// Divisions tried at most to factor one product (a guard `a * b == k`).
pub(super) const FACTOR_TRIES: u64 = 1 << 17;

/// Candidates for an equality one of whose operands is the sum or the
/// product of two arguments (`a + b == k`, `a * b == k`, the maze's and
/// real code's "two parameters together" guards), each a set of argument
/// changes: for a sum, one argument moved by the gap (modulo the width it
/// was computed in), or both set to halves of `k`; for a
/// product of two arguments of at least 2, one solved for with the other
/// kept, modulo that width (the only way when it wraps), and
/// both set to a factor pair of `k` within their types (found by trial
/// division, at most `FACTOR_TRIES` of them).
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
        for j in i + 1..args.len() {
            let (Some(wi), Some(wj)) = (words[i], words[j]) else {
                continue;
            };
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
            // The width the two are added or multiplied in: the narrower
            // argument's, or where the result wrapped.
            let n = width(&args[i])
                .zip(width(&args[j]))
                .map_or(256, |(a, b)| a.min(b));
            let (vi, vj) = (mask(wi, n), mask(wj, n));
            let at = |y: U256, m: usize, k: usize| widen(mask(y, m), m, &args[k]);
            if let Some((k, m)) = result_width(c, vi.wrapping_add(vj), n) {
                push(vec![(j, at(k.wrapping_sub(vi), m, j))]);
                push(vec![(i, at(k.wrapping_sub(vj), m, i))]);
                let half = k >> 1usize;
                push(vec![(i, half), (j, k - half)]);
            }
            // A product, wrapping or not: one of the two solved for with
            // the other kept (`p7 * p4 == k` in uint64 has a solution for
            // `p4` whenever `p7` is odd), and when it did not wrap, both set
            // to a factor pair of `k`. Both at least 2: a product with 0 or
            // 1 is one argument's own value.
            let two = U256::from(2);
            if vi < two || vj < two {
                continue;
            }
            if let Some((k, m)) = result_width(c, vi.wrapping_mul(vj), n) {
                // i solved for with j kept, and j with i kept.
                for (kept, solved) in [(vj, i), (vi, j)] {
                    if let Some(y) = solve_mul(kept, k, m) {
                        push(vec![(solved, widen(y, m, &args[solved]))]);
                    }
                }
            }
            if let Some(k) = wi.checked_mul(wj).and_then(other)
                && let (Some(mi), Some(mj)) = (type_max(&args[i]), type_max(&args[j]))
            {
                for (d, e) in factor_pairs(k, mi, mj, 2) {
                    push(vec![(i, d), (j, e)]);
                }
            }
        }
    }
    out
}

/// Up to `max` pairs `(d, k / d)` with `d * (k / d) == k`, `2 <= d <= dmax`
/// and `2 <= k / d <= emax`, the factor nearest the square root first.
pub(super) fn factor_pairs(k: U256, dmax: U256, emax: U256, max: usize) -> Vec<(U256, U256)> {
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
