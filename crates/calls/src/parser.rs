//! Solidity-style calls, the way engineers type them:
//! `transfer(0xAbC…, 100)`, `deposit{value: 1 ether}()`,
//! `set((-5, 3, 0x…, true)); go()`.
//!
//! [`syntax`] lexes and parses text into calls with byte spans; [`resolve()`]
//! fits them to the target's ABI (overloads, ranges, checksums);
//! [`format_call`] prints a [`Tx`] back so that parsing the text gives the
//! same call (round trip), adding casts only where overloads would otherwise
//! be ambiguous.

pub mod resolve;
pub mod syntax;

pub use resolve::{CallDefaults, ResolveError, parse_address, resolve, resolve_template, zero_of};
pub use syntax::{CallExpr, Expr, ExprKind, ParseError, parse_call, parse_sequence};

use crate::tx::{Abis, Holes, Tx, TxDisplay, write_value};
use alloy_dyn_abi::{DynSolType, DynSolValue};
use alloy_json_abi::Function;
use alloy_primitives::Address;
use std::ops::Range;
use std::sync::Arc;

/// Any error turning text into transactions, with the byte span it concerns.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    #[error("{0}")]
    Parse(#[from] ParseError),
    #[error("{0}")]
    Resolve(#[from] ResolveError),
    #[error("{0}")]
    Reference(#[from] crate::reference::BindError),
}

impl CallError {
    pub fn span(&self) -> Range<usize> {
        match self {
            CallError::Parse(e) => e.span.clone(),
            CallError::Resolve(e) => e.span.clone(),
            CallError::Reference(e) => e.span.clone(),
        }
    }
}

/// Parses `src` (one call or a sequence) and resolves every call.
pub fn parse_txs(
    src: &str,
    functions: &[Arc<Function>],
    defaults: &CallDefaults,
) -> Result<Vec<Tx>, CallError> {
    parse_with(src, functions, defaults, resolve)
}

/// Parses `src` (one call or a sequence) whose calls may hold `?`
/// wildcards and `$n` references, and resolves every call: each with where
/// its `?`s and references are, the references checked against the earlier
/// calls and `events` (the project's events, for `$n.argument`).
pub fn parse_templates(
    src: &str,
    functions: &[Arc<Function>],
    defaults: &CallDefaults,
    events: &[Arc<alloy_json_abi::Event>],
) -> Result<Vec<(Tx, Holes)>, CallError> {
    let mut calls = parse_template_calls(src, functions, defaults)?;
    crate::reference::bind(&mut calls, events)?;
    Ok(calls)
}

/// [`parse_templates`] without checking the references: for a sequence
/// given in parts, whose references [`crate::reference::bind`] checks once
/// every part is parsed.
pub fn parse_template_calls(
    src: &str,
    functions: &[Arc<Function>],
    defaults: &CallDefaults,
) -> Result<Vec<(Tx, Holes)>, CallError> {
    parse_with(src, functions, defaults, resolve_template)
}

/// How one parsed call is fitted to the ABI ([`resolve`] or [`resolve_template`]).
type Resolver<T> = fn(&CallExpr, &[Arc<Function>], &CallDefaults) -> Result<T, ResolveError>;

/// Parses `src` and resolves each call with `resolve_one`.
fn parse_with<T>(
    src: &str,
    functions: &[Arc<Function>],
    defaults: &CallDefaults,
    resolve_one: Resolver<T>,
) -> Result<Vec<T>, CallError> {
    parse_sequence(src)?
        .iter()
        .map(|c| resolve_one(c, functions, defaults).map_err(CallError::from))
        .collect()
}

/// Prints a call with wildcards: [`format_call`] with `?` where `holes`
/// are, such that parsing the text gives the same call and holes back.
pub fn format_template(
    tx: &Tx,
    holes: &Holes,
    abis: Abis<'_>,
    default_sender: Option<Address>,
) -> String {
    if holes.is_empty() {
        return format_call(tx, abis, default_sender);
    }
    let functions = abis.at(tx.to).unwrap_or(abis.target);
    let overloaded = functions
        .iter()
        .filter(|f| f.name == tx.function.name && f.inputs.len() == tx.args.len())
        .count()
        > 1;
    let opts = crate::tx::call_options(tx, default_sender, Some(holes));
    let mut s = tx.function.name.clone();
    if !opts.is_empty() {
        s.push('{');
        s.push_str(&opts.join(", "));
        s.push('}');
    }
    s.push('(');
    for (i, a) in tx.args.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        use alloy_dyn_abi::Specifier;
        // An overloaded function's arguments carry their types, so that
        // `?` picks the same overload back.
        let ty = overloaded
            .then(|| tx.function.inputs.get(i).and_then(|p| p.resolve().ok()))
            .flatten();
        match ty {
            Some(t) if holes.at(&[i]) => {
                s.push_str(&t.sol_type_name());
                s.push_str("(?)");
            }
            Some(t) if holes.reference_at(&[i]).is_some() => {
                let r = holes.reference_at(&[i]).expect("guarded");
                s.push_str(&t.sol_type_name());
                s.push('(');
                s.push_str(&r.text());
                s.push(')');
            }
            Some(t) if !holes.under(&[i]) => write_cast(&mut s, a, Some(t)),
            _ => write_holes(&mut s, a, &mut vec![i], holes),
        }
    }
    s.push(')');
    s
}

/// Appends `v` with `?` wherever `holes` has a path.
fn write_holes(s: &mut String, v: &DynSolValue, path: &mut Vec<usize>, holes: &Holes) {
    if holes.at(path) {
        s.push('?');
        return;
    }
    if let Some(r) = holes.reference_at(path) {
        s.push_str(&r.text());
        return;
    }
    if !holes.under(path) {
        write_value(s, v);
        return;
    }
    let (open, close, items) = match v {
        DynSolValue::Array(items) | DynSolValue::FixedArray(items) => ('[', ']', items),
        DynSolValue::Tuple(items) => ('(', ')', items),
        _ => {
            write_value(s, v);
            return;
        }
    };
    s.push(open);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        path.push(i);
        write_holes(s, item, path, holes);
        path.pop();
    }
    s.push(close);
}

/// `v` cast to `ty` (the parameter's type; else the value's own).
fn write_cast(s: &mut String, v: &DynSolValue, ty: Option<DynSolType>) {
    match ty.or_else(|| v.as_type()) {
        Some(t)
            if !matches!(
                v,
                DynSolValue::Array(_) | DynSolValue::FixedArray(_) | DynSolValue::Tuple(_)
            ) =>
        {
            s.push_str(&t.sol_type_name());
            s.push('(');
            write_value(s, v);
            s.push(')');
        }
        _ => write_value(s, v),
    }
}

/// Prints `tx` in call syntax such that resolving the text against
/// `functions` gives `tx` back. The sender is printed when it differs from
/// `default_sender`.
pub fn format_call(tx: &Tx, abis: Abis<'_>, default_sender: Option<Address>) -> String {
    let plain = TxDisplay { tx, default_sender }.to_string();
    let functions = abis.at(tx.to).unwrap_or(abis.target);
    let overloaded = functions
        .iter()
        .filter(|f| f.name == tx.function.name && f.inputs.len() == tx.args.len())
        .count()
        > 1;
    if !overloaded {
        return plain;
    }
    let defaults = CallDefaults {
        sender: default_sender.unwrap_or(tx.sender),
        value: Default::default(),
        others: abis.others.into(),
    };
    let same = parse_call(&plain)
        .ok()
        .and_then(|c| resolve(&c, abis.target, &defaults).ok())
        .is_some_and(|t| t.function.selector() == tx.function.selector());
    if same {
        return plain;
    }
    let name_len = tx.function.name.len();
    let open = plain[name_len..]
        .find('(')
        .map_or(name_len, |i| name_len + i);
    let mut s = plain[..open].to_string();
    s.push('(');
    for (i, a) in tx.args.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        use alloy_dyn_abi::Specifier;
        let ty = tx.function.inputs.get(i).and_then(|p| p.resolve().ok());
        write_cast(&mut s, a, ty);
    }
    s.push(')');
    s
}

#[cfg(test)]
mod tests;
