//! Resolution of parsed calls against the target's ABI: pick the function by
//! name and arity, resolve overloads by which parameter types the literals
//! fit, range-check every value, and build the [`Tx`].
//!
//! Each literal fits a type with a score: an exact shape scores higher
//! (`0x` + 40 digits is an address before it is a uint160; `hex"…"` is bytes;
//! a decimal is a uint before an int). The overload with the highest total
//! wins; a tie is an ambiguity error listing the signatures. The selector
//! always comes from the chosen ABI signature.

use super::syntax::{CallExpr, Expr, ExprKind};
use crate::reference::Reference;
use crate::tx::{Delay, Holes, Tx};
use alloy_dyn_abi::{DynSolType, DynSolValue, Specifier};
use alloy_json_abi::Function;
use alloy_primitives::{Address, B256, I256, U256};
use std::ops::Range;
use std::sync::Arc;

/// A call that parsed but does not fit the ABI.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at {}..{}: {message}", span.start, span.end)]
pub struct ResolveError {
    pub span: Range<usize>,
    pub message: String,
    /// Signatures that were considered.
    pub candidates: Vec<String>,
}

/// Defaults for what a call does not say.
#[derive(Clone, Debug, Default)]
pub struct CallDefaults {
    pub sender: Address,
    pub value: U256,
    /// The contracts besides the target a call may name with `to`
    /// (`allContracts`); empty: calls go to the target only.
    pub others: std::sync::Arc<[crate::tx::Callee]>,
}

struct Misfit {
    span: Range<usize>,
    message: String,
}

fn misfit<T>(span: &Range<usize>, message: impl Into<String>) -> Result<T, Misfit> {
    Err(Misfit {
        span: span.clone(),
        message: message.into(),
    })
}

fn type_name(ty: &DynSolType) -> String {
    ty.sol_type_name().into_owned()
}

/// Checks an address literal's EIP-55 checksum when it is mixed case.
fn address_from_hex(hex: &str, span: &Range<usize>) -> Result<Address, Misfit> {
    checked_address_hex(hex).map_err(|message| Misfit {
        span: span.clone(),
        message,
    })
}

/// `hex` (up to 40 digits, no `0x`) as an address; a mixed-case 40-digit
/// address must carry a valid EIP-55 checksum.
fn checked_address_hex(hex: &str) -> Result<Address, String> {
    if hex.is_empty() || hex.len() > 40 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("0x{hex} is not an address"));
    }
    let padded = format!("{hex:0>40}");
    let a: Address = padded
        .parse()
        .map_err(|_| format!("0x{hex} is not an address"))?;
    let has_lower = hex.bytes().any(|b| b.is_ascii_lowercase());
    let has_upper = hex.bytes().any(|b| b.is_ascii_uppercase());
    if hex.len() == 40 && has_lower && has_upper {
        let good = a.to_checksum(None);
        if good[2..] != *hex {
            return Err(format!(
                "0x{hex} has a wrong EIP-55 checksum (expected {good})"
            ));
        }
    }
    Ok(a)
}

/// A full `0x` + 40-hex-digit address as accepted everywhere an address is
/// given as text (tool arguments, config): all lower case, all upper case,
/// or a valid EIP-55 checksum.
pub fn parse_address(s: &str) -> Result<Address, String> {
    let hex = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .filter(|h| h.len() == 40)
        .ok_or_else(|| format!("{s:?} is not a 0x-prefixed 20-byte address"))?;
    checked_address_hex(hex)
}

/// Fits `e` to `ty`: the value and a score (higher is a more exact fit).
fn fit(e: &Expr, ty: &DynSolType) -> Result<(DynSolValue, u32), Misfit> {
    let want = type_name(ty);
    match (&e.kind, ty) {
        // Any value: a placeholder of the type (workers draw the real one);
        // it decides no overload.
        (ExprKind::Hole, _) => Ok((zero_of(ty), 0)),
        // A reference: a placeholder too, filled when the call runs; its
        // type is checked against the earlier call once the sequence is
        // known (`reference::bind`).
        (ExprKind::Ref { .. }, _) => Ok((zero_of(ty), 0)),
        (ExprKind::Cast(name, inner), _) => {
            let cast: DynSolType = name.parse().map_err(|_| Misfit {
                span: e.span.clone(),
                message: format!("unknown type {name}"),
            })?;
            if &cast != ty {
                return misfit(&e.span, format!("{name}(…) where {want} is expected"));
            }
            let (v, _) = fit(inner, ty)?;
            Ok((v, 10))
        }
        (
            ExprKind::Int {
                value,
                negative,
                hex_digits,
                ..
            },
            DynSolType::Uint(bits),
        ) => {
            if *negative {
                return misfit(&e.span, format!("-{value} does not fit {want} (negative)"));
            }
            if *bits < 256 && *value >> *bits != U256::ZERO {
                return misfit(
                    &e.span,
                    format!(
                        "{value} does not fit {want} (max {})",
                        (U256::from(1) << *bits) - U256::from(1)
                    ),
                );
            }
            let score = match hex_digits {
                None => 3,
                Some(40) => 1,
                Some(_) => 2,
            };
            Ok((DynSolValue::Uint(*value, *bits), score))
        }
        (
            ExprKind::Int {
                value,
                negative,
                hex_digits,
                ..
            },
            DynSolType::Int(bits),
        ) => {
            let max = (U256::from(1) << (*bits - 1)) - U256::from(1);
            let limit = if *negative { max + U256::from(1) } else { max };
            if *value > limit {
                let sign = if *negative { "-" } else { "" };
                return misfit(&e.span, format!("{sign}{value} does not fit {want}"));
            }
            let raw = I256::from_raw(*value);
            let v = if *negative { raw.wrapping_neg() } else { raw };
            let score = if *negative {
                3
            } else if hex_digits.is_some() {
                1
            } else {
                2
            };
            Ok((DynSolValue::Int(v, *bits), score))
        }
        (
            ExprKind::Int {
                hex: Some(h),
                negative: false,
                ..
            },
            DynSolType::Address,
        ) => {
            let a = address_from_hex(h, &e.span)?;
            Ok((DynSolValue::Address(a), if h.len() == 40 { 4 } else { 1 }))
        }
        (ExprKind::Int { .. }, DynSolType::Address) => misfit(
            &e.span,
            "an address is written 0x followed by 40 hex digits",
        ),
        (
            ExprKind::Int {
                hex: Some(h),
                negative: false,
                ..
            },
            DynSolType::FixedBytes(n),
        ) => {
            if h.len() != n * 2 {
                return misfit(
                    &e.span,
                    format!("0x{h} has {} bytes; {want} needs exactly {n}", h.len() / 2),
                );
            }
            let bytes = alloy_primitives::hex::decode(h).map_err(|_| Misfit {
                span: e.span.clone(),
                message: "bad hex".into(),
            })?;
            let mut w = [0u8; 32];
            w[..*n].copy_from_slice(&bytes);
            Ok((DynSolValue::FixedBytes(B256::from(w), *n), 3))
        }
        (
            ExprKind::Int {
                hex: Some(h),
                negative: false,
                ..
            },
            DynSolType::Bytes,
        ) => {
            if h.len() % 2 != 0 {
                return misfit(
                    &e.span,
                    format!("0x{h} has an odd number of hex digits for bytes"),
                );
            }
            let bytes = alloy_primitives::hex::decode(h).map_err(|_| Misfit {
                span: e.span.clone(),
                message: "bad hex".into(),
            })?;
            Ok((DynSolValue::Bytes(bytes), 1))
        }
        (ExprKind::Bytes(b), DynSolType::Bytes) => Ok((DynSolValue::Bytes(b.clone()), 4)),
        (ExprKind::Bytes(b), DynSolType::FixedBytes(n)) => {
            if b.len() != *n {
                return misfit(
                    &e.span,
                    format!("hex\"…\" has {} bytes; {want} needs exactly {n}", b.len()),
                );
            }
            let mut w = [0u8; 32];
            w[..*n].copy_from_slice(b);
            Ok((DynSolValue::FixedBytes(B256::from(w), *n), 3))
        }
        (ExprKind::Str(s), DynSolType::String) => Ok((DynSolValue::String(s.clone()), 4)),
        // A `string` is any bytes on chain: `hex"…"` gives the ones that
        // are not UTF-8 (held as bytes, which encode the same).
        (ExprKind::Bytes(b), DynSolType::String) => Ok((
            match std::str::from_utf8(b) {
                Ok(s) => DynSolValue::String(s.to_owned()),
                Err(_) => DynSolValue::Bytes(b.clone()),
            },
            1,
        )),
        (ExprKind::Str(s), DynSolType::Bytes) => Ok((DynSolValue::Bytes(s.as_bytes().to_vec()), 1)),
        (ExprKind::Str(s), DynSolType::FixedBytes(n)) => {
            if s.len() > *n {
                return misfit(
                    &e.span,
                    format!("{s:?} is {} bytes; {want} holds {n}", s.len()),
                );
            }
            let mut w = [0u8; 32];
            w[..s.len()].copy_from_slice(s.as_bytes());
            Ok((DynSolValue::FixedBytes(B256::from(w), *n), 1))
        }
        (ExprKind::Bool(b), DynSolType::Bool) => Ok((DynSolValue::Bool(*b), 4)),
        (ExprKind::Array(items), DynSolType::Array(inner)) => {
            let (vals, score) = fit_all(items, std::iter::repeat(inner.as_ref()))?;
            Ok((DynSolValue::Array(vals), score.max(1)))
        }
        (ExprKind::Array(items), DynSolType::FixedArray(inner, n)) => {
            if items.len() != *n {
                return misfit(
                    &e.span,
                    format!("{} elements where {want} needs {n}", items.len()),
                );
            }
            let (vals, score) = fit_all(items, std::iter::repeat(inner.as_ref()))?;
            Ok((DynSolValue::FixedArray(vals), score.max(1)))
        }
        (ExprKind::Tuple(items), DynSolType::Tuple(types)) => {
            if items.len() != types.len() {
                return misfit(
                    &e.span,
                    format!(
                        "a tuple of {} where {want} has {}",
                        items.len(),
                        types.len()
                    ),
                );
            }
            let (vals, score) = fit_all(items, types.iter())?;
            Ok((DynSolValue::Tuple(vals), score.max(1)))
        }
        (kind, _) => {
            let what = match kind {
                ExprKind::Int { .. } => "a number",
                ExprKind::Bool(_) => "a boolean",
                ExprKind::Str(_) => "a string",
                ExprKind::Bytes(_) => "hex bytes",
                ExprKind::Array(_) => "an array",
                ExprKind::Tuple(_) => "a tuple",
                ExprKind::Cast(..) => "a cast",
                ExprKind::Hole => "?",
                ExprKind::Ref { .. } => "a reference",
            };
            misfit(&e.span, format!("{what} where {want} is expected"))
        }
    }
}

fn fit_all<'a>(
    items: &[Expr],
    types: impl Iterator<Item = &'a DynSolType>,
) -> Result<(Vec<DynSolValue>, u32), Misfit> {
    let mut vals = Vec::with_capacity(items.len());
    let mut score = 0;
    for (e, t) in items.iter().zip(types) {
        let (v, s) = fit(e, t)?;
        vals.push(v);
        score += s;
    }
    Ok((vals, score))
}

fn uint_option(e: &Expr, field: &str) -> Result<U256, ResolveError> {
    match fit(e, &DynSolType::Uint(256)) {
        Ok((DynSolValue::Uint(v, _), _)) => Ok(v),
        Ok(_) => unreachable!("uint fit gives a uint"),
        Err(m) => Err(ResolveError {
            span: m.span,
            message: format!("{field}: {}", m.message),
            candidates: vec![],
        }),
    }
}

fn u64_option(e: &Expr, field: &str) -> Result<u64, ResolveError> {
    let v = uint_option(e, field)?;
    u64::try_from(v).map_err(|_| ResolveError {
        span: e.span.clone(),
        message: format!("{field}: {v} is too large"),
        candidates: vec![],
    })
}

/// The address an option (`from`, `to`) gives.
fn address_option(e: &Expr, field: &str) -> Result<Address, ResolveError> {
    match fit(e, &DynSolType::Address) {
        Ok((DynSolValue::Address(a), _)) => Ok(a),
        Ok(_) => unreachable!("address fit gives an address"),
        Err(m) => Err(ResolveError {
            span: m.span,
            message: format!("{field}: {}", m.message),
            candidates: vec![],
        }),
    }
}

/// The zero value of `ty` (a wildcard's placeholder).
pub fn zero_of(ty: &DynSolType) -> DynSolValue {
    match ty {
        DynSolType::Bool => DynSolValue::Bool(false),
        DynSolType::Int(b) => DynSolValue::Int(alloy_primitives::I256::ZERO, *b),
        DynSolType::Uint(b) => DynSolValue::Uint(U256::ZERO, *b),
        DynSolType::FixedBytes(n) => DynSolValue::FixedBytes(Default::default(), *n),
        DynSolType::Address => DynSolValue::Address(Address::ZERO),
        DynSolType::Function => DynSolValue::Function(Default::default()),
        DynSolType::Bytes => DynSolValue::Bytes(Vec::new()),
        DynSolType::String => DynSolValue::String(String::new()),
        DynSolType::Array(_) => DynSolValue::Array(Vec::new()),
        DynSolType::FixedArray(t, n) => DynSolValue::FixedArray(vec![zero_of(t); *n]),
        DynSolType::Tuple(ts) => DynSolValue::Tuple(ts.iter().map(zero_of).collect()),
        #[allow(unreachable_patterns)]
        _ => DynSolValue::Uint(U256::ZERO, 256),
    }
}

/// The paths of the `?`s in `e` (at `path`).
fn hole_paths(e: &Expr, path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    match &e.kind {
        ExprKind::Hole => out.push(path.clone()),
        ExprKind::Array(items) | ExprKind::Tuple(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(i);
                hole_paths(item, path, out);
                path.pop();
            }
        }
        ExprKind::Cast(_, inner) => hole_paths(inner, path, out),
        _ => {}
    }
}

/// The `$n` references in `e` (at `path`), not yet bound.
fn ref_paths(e: &Expr, path: &mut Vec<usize>, out: &mut Vec<Reference>) {
    match &e.kind {
        ExprKind::Ref { call, field } => out.push(Reference {
            path: path.clone(),
            call: call - 1,
            field: field.clone(),
            span: e.span.clone(),
            source: None,
        }),
        ExprKind::Array(items) | ExprKind::Tuple(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(i);
                ref_paths(item, path, out);
                path.pop();
            }
        }
        ExprKind::Cast(_, inner) => ref_paths(inner, path, out),
        _ => {}
    }
}

fn is_hole(e: Option<&Expr>) -> bool {
    e.is_some_and(|e| e.kind == ExprKind::Hole)
}

/// Resolves `call` against `functions` into a transaction. A `?` is
/// refused here (only injections take wildcards: [`resolve_template`]).
pub fn resolve(
    call: &CallExpr,
    functions: &[Arc<Function>],
    defaults: &CallDefaults,
) -> Result<Tx, ResolveError> {
    let o = &call.options;
    let hole = call.args.iter().find(|a| a.has_hole()).or_else(|| {
        [
            o.value.as_ref(),
            o.from.as_ref(),
            o.to.as_ref(),
            o.delay.as_ref(),
            o.blocks.as_ref(),
            o.gas_price.as_ref(),
        ]
        .into_iter()
        .flatten()
        .find(|e| e.has_hole())
    });
    if let Some(e) = hole {
        return Err(ResolveError {
            span: e.span.clone(),
            message: "`?` (any value) is taken by inject_transaction only; give a value here"
                .into(),
            candidates: vec![],
        });
    }
    if let Some(e) = call.args.iter().find(|a| a.has_ref()) {
        return Err(ResolveError {
            span: e.span.clone(),
            message: "`$n` (a value an earlier call produced) is taken by inject_transaction and run_sequence only; give a value here".into(),
            candidates: vec![],
        });
    }
    resolve_template(call, functions, defaults).map(|(tx, _)| tx)
}

/// Resolves `call`, which may hold `?` wildcards (in arguments, at any
/// depth, and as `value` or `from`), into a transaction with placeholder
/// values where the `?`s are, and where they are.
pub fn resolve_template(
    call: &CallExpr,
    functions: &[Arc<Function>],
    defaults: &CallDefaults,
) -> Result<(Tx, Holes), ResolveError> {
    let o = &call.options;
    // Workers draw `?` for arguments, `value` and `from`; references stand
    // for arguments only.
    for (name, e) in [
        ("value", &o.value),
        ("from", &o.from),
        ("to", &o.to),
        ("delay", &o.delay),
        ("blocks", &o.blocks),
        ("gasprice", &o.gas_price),
    ] {
        let Some(e) = e else { continue };
        let why = if e.has_ref() {
            "a `$n` reference is taken in arguments only"
        } else if e.has_hole() && !matches!(name, "value" | "from") {
            "`?` is taken in arguments, `value` and `from` only"
        } else {
            continue;
        };
        return Err(ResolveError {
            span: e.span.clone(),
            message: format!("{name}: {why}"),
            candidates: vec![],
        });
    }
    let mut holes = Holes {
        value: is_hole(o.value.as_ref()),
        sender: is_hole(o.from.as_ref()),
        ..Holes::default()
    };
    for (i, a) in call.args.iter().enumerate() {
        hole_paths(a, &mut vec![i], &mut holes.args);
        ref_paths(a, &mut vec![i], &mut holes.refs);
    }
    let to = match &o.to {
        None => None,
        Some(e) => {
            let a = address_option(e, "to")?;
            let Some(c) = defaults.others.iter().find(|c| c.address == a) else {
                let known: Vec<String> = defaults
                    .others
                    .iter()
                    .map(|c| format!("{} at {}", c.name, c.address.to_checksum(None)))
                    .collect();
                return Err(ResolveError {
                    span: e.span.clone(),
                    message: if known.is_empty() {
                        format!(
                            "to: {a} is not a contract calls can go to; calls go to the target only (set `allContracts: true` to call the other deployed contracts)"
                        )
                    } else {
                        format!(
                            "to: {a} is not a contract calls can go to; leave `to` out for the target, or use one of: {}",
                            known.join(", ")
                        )
                    },
                    candidates: known,
                });
            };
            Some(c)
        }
    };
    let functions: &[Arc<Function>] = to.map_or(functions, |c| &c.functions);
    let named: Vec<&Arc<Function>> = functions.iter().filter(|f| f.name == call.name).collect();
    if named.is_empty() {
        let mut names: Vec<String> = functions.iter().map(|f| f.signature()).collect();
        names.sort();
        names.dedup();
        let whose = to.map_or_else(|| "the target".to_string(), |c| c.name.clone());
        return Err(ResolveError {
            span: call.name_span.clone(),
            message: format!(
                "no function named `{}`; {whose} has: {}",
                call.name,
                names.join(", ")
            ),
            candidates: names,
        });
    }
    let same_arity: Vec<&Arc<Function>> = named
        .iter()
        .copied()
        .filter(|f| f.inputs.len() == call.args.len())
        .collect();
    if same_arity.is_empty() {
        let sigs: Vec<String> = named.iter().map(|f| f.signature()).collect();
        return Err(ResolveError {
            span: call.span.clone(),
            message: format!(
                "`{}` takes {} argument{} here, but no overload has that many: {}",
                call.name,
                call.args.len(),
                if call.args.len() == 1 { "" } else { "s" },
                sigs.join(", ")
            ),
            candidates: sigs,
        });
    }
    let mut fits: Vec<(&Arc<Function>, Vec<DynSolValue>, u32)> = Vec::new();
    let mut misfits: Vec<(String, Misfit)> = Vec::new();
    for f in &same_arity {
        let types: Result<Vec<DynSolType>, _> = f.inputs.iter().map(|p| p.resolve()).collect();
        let Ok(types) = types else { continue };
        match fit_all(&call.args, types.iter()) {
            Ok((vals, score)) => fits.push((f, vals, score)),
            Err(m) => misfits.push((f.signature(), m)),
        }
    }
    let sigs: Vec<String> = same_arity.iter().map(|f| f.signature()).collect();
    let best = fits.iter().map(|f| f.2).max();
    let winners: Vec<_> = fits.iter().filter(|f| Some(f.2) == best).collect();
    let (function, args) = match winners.as_slice() {
        [one] => (one.0.clone(), one.1.clone()),
        [] => {
            if misfits.len() == 1 {
                let (sig, m) = misfits.remove(0);
                return Err(ResolveError {
                    span: m.span,
                    message: format!("{} (calling {sig})", m.message),
                    candidates: sigs,
                });
            }
            let detail: Vec<String> = misfits
                .iter()
                .map(|(s, m)| format!("{s}: {} at {}..{}", m.message, m.span.start, m.span.end))
                .collect();
            return Err(ResolveError {
                span: call.span.clone(),
                message: format!(
                    "no overload of `{}` fits these arguments ({})",
                    call.name,
                    detail.join("; ")
                ),
                candidates: sigs,
            });
        }
        many => {
            let amb: Vec<String> = many.iter().map(|f| f.0.signature()).collect();
            return Err(ResolveError {
                span: call.span.clone(),
                message: format!(
                    "`{}` is ambiguous between {}; pin a type with a cast like uint8(…)",
                    call.name,
                    amb.join(" and ")
                ),
                candidates: amb,
            });
        }
    };
    let sender = match &o.from {
        Some(_) if holes.sender => defaults.sender,
        Some(e) => address_option(e, "from")?,
        None => defaults.sender,
    };
    let value = match &o.value {
        Some(e) => uint_option(e, "value")?,
        None => defaults.value,
    };
    if o.value.is_some()
        && !value.is_zero()
        && function.state_mutability != alloy_json_abi::StateMutability::Payable
    {
        let span = o
            .value
            .as_ref()
            .map_or(call.span.clone(), |e| e.span.clone());
        return Err(ResolveError {
            span,
            message: format!(
                "{} is not payable, so it cannot receive value {value}",
                function.signature()
            ),
            candidates: vec![function.signature()],
        });
    }
    let delay = Delay {
        seconds: o
            .delay
            .as_ref()
            .map(|e| u64_option(e, "delay"))
            .transpose()?
            .unwrap_or(0),
        blocks: o
            .blocks
            .as_ref()
            .map(|e| u64_option(e, "blocks"))
            .transpose()?
            .unwrap_or(0),
    };
    let gas_price = match &o.gas_price {
        None => 0,
        Some(e) => {
            let v = uint_option(e, "gasprice")?;
            u128::try_from(v).map_err(|_| ResolveError {
                span: e.span.clone(),
                message: format!("gasprice: {v} is too large"),
                candidates: vec![],
            })?
        }
    };
    Ok((
        Tx {
            function,
            args,
            sender,
            value,
            delay,
            gas_price,
            to: to.map(|c| c.address),
        },
        holes,
    ))
}
