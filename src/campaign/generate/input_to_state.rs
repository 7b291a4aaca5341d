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
