//! Values one call of a sequence hands to a later one: `createMarket(?)`
//! then `deposit($1, 100)` uses the id the first call returned;
//! `deposit(5 ether)` then `redeem($1.shares)` uses the output (or the
//! emitted event argument) named `shares`.
//!
//! A reference is written `$n` (call `n`'s only return value), `$n.name`
//! (an output, else an argument of an event the call emitted, by name) or
//! `$n.k` (output `k`, from 0). Parsing leaves a placeholder and a
//! [`Reference`] where it stood; [`bind`] checks each against the earlier
//! calls' ABIs once the whole sequence is known; [`apply`] fills a call's
//! references from what the earlier calls produced, just before it runs.

use crate::tx::{Holes, Tx};
use alloy_dyn_abi::{DynSolType, DynSolValue, EventExt, FunctionExt, Specifier};
use alloy_json_abi::Event;
use alloy_primitives::{I256, Log, U256};
use std::ops::Range;
use std::sync::Arc;

/// Where a `$n` stands in a call and what it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// The argument's index, then indices into nested arrays and tuples.
    pub path: Vec<usize>,
    /// The earlier call, from 0 in the sequence's order (`$1` is 0).
    pub call: usize,
    /// The field as written after the `.`.
    pub field: Option<String>,
    /// Where it was written in the call's text.
    pub span: Range<usize>,
    /// What it reads, once [`bind`] checked it against the earlier call.
    pub source: Option<Source>,
}

impl Reference {
    /// As written: `$2`, `$2.shares`.
    pub fn text(&self) -> String {
        match &self.field {
            Some(f) => format!("${}.{f}", self.call + 1),
            None => format!("${}", self.call + 1),
        }
    }
}

/// What a bound reference reads from its call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Output `k` of the call's return data.
    Output(usize),
    /// An argument of the first log the call emitted that one of these
    /// events decodes: (the event, the argument's index among its inputs).
    Event(Vec<(Arc<Event>, usize)>),
}

/// A reference that does not fit the sequence, on call `call` (from 0).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at {}..{}: {message}", span.start, span.end)]
pub struct BindError {
    pub call: usize,
    pub span: Range<usize>,
    pub message: String,
}

/// What one call produced for later ones: its decoded outputs and its
/// logs (kept as `None` for a call that failed, or did not run).
#[derive(Clone, Debug, Default)]
pub struct Produced {
    /// `None` when the return data does not decode as the outputs.
    pub outputs: Option<Vec<DynSolValue>>,
    pub logs: Vec<Log>,
}

impl Produced {
    /// What a successful call of `tx` that returned `output` and emitted
    /// `logs` produced.
    pub fn of(tx: &Tx, output: &[u8], logs: &[Log]) -> Self {
        Produced {
            outputs: tx.function.abi_decode_output(output).ok(),
            logs: logs.to_vec(),
        }
    }
}

/// Checks every reference of `calls` against the earlier call it names
/// and the project's `events`, and records what each reads.
pub fn bind(calls: &mut [(Tx, Holes)], events: &[Arc<Event>]) -> Result<(), BindError> {
    let functions: Vec<_> = calls.iter().map(|(t, _)| t.function.clone()).collect();
    for (i, (tx, holes)) in calls.iter_mut().enumerate() {
        for r in &mut holes.refs {
            let fail = |message: String| BindError {
                call: i,
                span: r.span.clone(),
                message,
            };
            if r.call >= i {
                return Err(fail(format!(
                    "`{}` names no earlier call: this is call {} of the sequence, and `$n` reads call n before it (from $1)",
                    r.text(),
                    i + 1
                )));
            }
            let want = param_type(tx, &r.path).ok_or_else(|| fail("no parameter here".into()))?;
            let from = &functions[r.call];
            let (source, ty) = source_of(from, r.field.as_deref(), events)
                .map_err(|m| fail(format!("`{}`: {m}", r.text())))?;
            if !compatible(&ty, &want) {
                return Err(fail(format!(
                    "`{}` is {} where {} is expected",
                    r.text(),
                    article(&ty.sol_type_name()),
                    article(&want.sol_type_name())
                )));
            }
            r.source = Some(source);
        }
    }
    Ok(())
}

/// What `field` of a call to `f` reads, and its type.
fn source_of(
    f: &alloy_json_abi::Function,
    field: Option<&str>,
    events: &[Arc<Event>],
) -> Result<(Source, DynSolType), String> {
    let outputs: Vec<DynSolType> = f
        .outputs
        .iter()
        .map(|p| p.resolve().map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let fields = || {
        let mut names: Vec<String> = (0..outputs.len()).map(|k| k.to_string()).collect();
        names.extend(
            f.outputs
                .iter()
                .filter(|p| !p.name.is_empty())
                .map(|p| p.name.clone()),
        );
        names
    };
    let Some(field) = field else {
        return match outputs.as_slice() {
            [one] => Ok((Source::Output(0), one.clone())),
            [] => Err(format!(
                "`{}` returns nothing; name an argument of an event it emits (`$n.name`)",
                f.signature()
            )),
            _ => Err(format!(
                "`{}` returns {} values; name one: {}",
                f.signature(),
                outputs.len(),
                fields().join(", ")
            )),
        };
    };
    if let Ok(k) = field.parse::<usize>() {
        return outputs
            .get(k)
            .map(|t| (Source::Output(k), t.clone()))
            .ok_or_else(|| {
                format!(
                    "`{}` returns {} value{}; outputs are numbered from 0",
                    f.signature(),
                    outputs.len(),
                    if outputs.len() == 1 { "" } else { "s" }
                )
            });
    }
    if let Some(k) = f.outputs.iter().position(|p| p.name == field) {
        return Ok((Source::Output(k), outputs[k].clone()));
    }
    // An event argument of that name: the first log of the call that one
    // of these events decodes gives it.
    let mut found: Vec<(Arc<Event>, usize)> = Vec::new();
    let mut ty: Option<DynSolType> = None;
    for e in events {
        let Some(k) = e.inputs.iter().position(|p| p.name == field) else {
            continue;
        };
        let Ok(t) = e.inputs[k].resolve() else {
            continue;
        };
        // An indexed string, bytes, array or tuple is only its hash.
        if e.inputs[k].indexed
            && !matches!(
                t,
                DynSolType::Bool
                    | DynSolType::Int(_)
                    | DynSolType::Uint(_)
                    | DynSolType::FixedBytes(_)
                    | DynSolType::Address
            )
        {
            continue;
        }
        if ty.as_ref().is_some_and(|have| have != &t) {
            continue;
        }
        ty = Some(t);
        found.push((e.clone(), k));
    }
    match ty {
        Some(t) => Ok((Source::Event(found), t)),
        None => {
            let mut names = fields();
            let mut event_args: Vec<String> = events
                .iter()
                .flat_map(|e| e.inputs.iter().map(|p| p.name.clone()))
                .filter(|n| !n.is_empty())
                .collect();
            event_args.sort();
            event_args.dedup();
            names.extend(event_args);
            Err(format!(
                "no output or event argument named `{field}`; {} has: {}",
                f.signature(),
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ))
        }
    }
}

/// `a uint256`, `an address`.
fn article(name: &str) -> String {
    let an = name.starts_with(['a', 'e', 'i', 'o']);
    format!("{} {name}", if an { "an" } else { "a" })
}

/// The type of the parameter at `path` of `tx`'s function.
fn param_type(tx: &Tx, path: &[usize]) -> Option<DynSolType> {
    let (&i, rest) = path.split_first()?;
    let mut ty = tx.function.inputs.get(i)?.resolve().ok()?;
    for &j in rest {
        ty = match ty {
            DynSolType::Array(t) | DynSolType::FixedArray(t, _) => *t,
            DynSolType::Tuple(ts) => ts.into_iter().nth(j)?,
            _ => return None,
        };
    }
    Some(ty)
}

/// Whether a `have` value can stand where a `want` is expected: the same
/// type, or integers (checked to fit when the call runs).
fn compatible(have: &DynSolType, want: &DynSolType) -> bool {
    have == want
        || (matches!(have, DynSolType::Uint(_) | DynSolType::Int(_))
            && matches!(want, DynSolType::Uint(_) | DynSolType::Int(_)))
}

/// Fills `tx`'s references from what the earlier calls produced
/// (`produced[k]` for call `k`; `None` where it failed). An error says
/// which reference could not be filled and why; the call should not run.
pub fn apply(tx: &mut Tx, holes: &Holes, produced: &[Option<Produced>]) -> Result<(), String> {
    for r in &holes.refs {
        let Some(source) = &r.source else {
            return Err(format!("`{}` was not checked against its call", r.text()));
        };
        let Some(Some(p)) = produced.get(r.call) else {
            return Err(format!(
                "`{}`: call {} failed, so it produced nothing",
                r.text(),
                r.call + 1
            ));
        };
        let value = read(source, p, r)?;
        let want = param_type(tx, &r.path).ok_or("no parameter here")?;
        let value = convert(value, &want).ok_or_else(|| {
            format!(
                "`{}` does not fit a {} here",
                r.text(),
                want.sol_type_name()
            )
        })?;
        let (&i, rest) = r.path.split_first().ok_or("no parameter here")?;
        let slot = tx
            .args
            .get_mut(i)
            .and_then(|v| slot_at(v, rest))
            .ok_or("no argument here")?;
        *slot = value;
    }
    Ok(())
}

/// The value `source` names in what a call produced.
fn read(source: &Source, p: &Produced, r: &Reference) -> Result<DynSolValue, String> {
    match source {
        Source::Output(k) => p
            .outputs
            .as_ref()
            .and_then(|o| o.get(*k).cloned())
            .ok_or_else(|| {
                format!(
                    "`{}`: call {} returned data that does not decode as its outputs",
                    r.text(),
                    r.call + 1
                )
            }),
        Source::Event(events) => {
            for log in &p.logs {
                for (e, k) in events {
                    if e.anonymous || log.topics().first() != Some(&e.selector()) {
                        continue;
                    }
                    let Ok(d) = e.decode_log(&log.data) else {
                        continue;
                    };
                    let (mut indexed, mut body) = (d.indexed.into_iter(), d.body.into_iter());
                    let value = e.inputs.iter().take(k + 1).map(|p| {
                        if p.indexed {
                            indexed.next()
                        } else {
                            body.next()
                        }
                    });
                    if let Some(Some(v)) = value.last() {
                        return Ok(v);
                    }
                }
            }
            Err(format!(
                "`{}`: call {} emitted no event with that argument",
                r.text(),
                r.call + 1
            ))
        }
    }
}

/// `v` as a `want` (integers converted when the value fits).
fn convert(v: DynSolValue, want: &DynSolType) -> Option<DynSolValue> {
    if want.matches(&v) {
        return Some(v);
    }
    let (magnitude, negative) = match &v {
        DynSolValue::Uint(x, _) => (*x, false),
        DynSolValue::Int(x, _) => (x.unsigned_abs(), x.is_negative()),
        _ => return None,
    };
    match *want {
        DynSolType::Uint(bits) if !negative && magnitude.bit_len() <= bits => {
            Some(DynSolValue::Uint(magnitude, bits))
        }
        DynSolType::Int(bits) => {
            let limit = U256::from(1) << (bits - 1);
            let fits = if negative {
                magnitude <= limit
            } else {
                magnitude < limit
            };
            // Two's complement, so that the most negative value fits too.
            let raw = if negative {
                magnitude.wrapping_neg()
            } else {
                magnitude
            };
            fits.then(|| DynSolValue::Int(I256::from_raw(raw), bits))
        }
        _ => None,
    }
}

/// The value at `rest` under `v`.
fn slot_at<'a>(v: &'a mut DynSolValue, rest: &[usize]) -> Option<&'a mut DynSolValue> {
    let Some((&j, rest)) = rest.split_first() else {
        return Some(v);
    };
    match v {
        DynSolValue::Array(items) | DynSolValue::FixedArray(items) | DynSolValue::Tuple(items) => {
            slot_at(items.get_mut(j)?, rest)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests;
