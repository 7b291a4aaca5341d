//! Invariants added while the campaign runs (`submit_new_spec`): relations
//! between view calls and constants, written in the call syntax —
//! `totalSupply() == 1000000`, `balanceOf(0x10000) <= totalSupply()`.
//!
//! A spec holds when none of its exemptions holds or all of its conditions
//! hold. Workers check open specs after every call like an `echidna_`
//! property (same oracle, same shrinking, same reproducers); specs are kept
//! in `{corpusDir}/specs.json` and come back on resume.

use crate::parser::{CallDefaults, parse_txs};
use alloy_dyn_abi::DynSolType;
use alloy_json_abi::{Function, StateMutability};
use alloy_primitives::{Address, Bytes, I256, U256};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// `==`, `!=`, `<`, `<=`, `>`, `>=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Relation {
    pub fn as_str(self) -> &'static str {
        match self {
            Relation::Eq => "==",
            Relation::Ne => "!=",
            Relation::Lt => "<",
            Relation::Le => "<=",
            Relation::Gt => ">",
            Relation::Ge => ">=",
        }
    }

    fn holds(self, o: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::*;
        match self {
            Relation::Eq => o == Equal,
            Relation::Ne => o != Equal,
            Relation::Lt => o == Less,
            Relation::Le => o != Greater,
            Relation::Gt => o == Greater,
            Relation::Ge => o != Less,
        }
    }
}

/// A view call whose first return value is one word.
#[derive(Clone, Debug)]
pub struct ViewCall {
    pub function: Arc<Function>,
    pub calldata: Bytes,
    /// Signed comparison (`intN` return).
    pub signed: bool,
    pub text: String,
}

#[derive(Clone, Debug)]
pub enum Operand {
    Word(U256),
    Call(ViewCall),
}

/// `lhs rel rhs`.
#[derive(Clone, Debug)]
pub struct Condition {
    pub lhs: ViewCall,
    pub rel: Relation,
    pub rhs: Operand,
    pub text: String,
}

/// What a spec is submitted with, and what `specs.json` keeps.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct SpecSource {
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub indicators: Vec<String>,
    pub entry_conditions: Vec<String>,
    #[serde(default)]
    pub exit_conditions: Vec<String>,
    #[serde(default)]
    pub parameters: Vec<serde_json::Value>,
    #[serde(default)]
    pub reasoning: String,
    #[serde(default)]
    pub submitted_ms: u64,
}

/// A parsed spec.
#[derive(Clone, Debug)]
pub struct Spec {
    pub source: SpecSource,
    pub conditions: Vec<Condition>,
    pub exemptions: Vec<Condition>,
    /// Signatures of the view functions it reads.
    pub reads: Vec<String>,
}

/// A refused spec: which field and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct SpecError {
    /// `INVALID_NAME`, `INVALID_INDICATORS`, `INVALID_CONDITIONS`.
    pub code: &'static str,
    pub field: String,
    pub message: String,
}

fn err(code: &'static str, field: impl Into<String>, message: impl Into<String>) -> SpecError {
    SpecError {
        code,
        field: field.into(),
        message: message.into(),
    }
}

/// Longest spec name (it names a reproducer file).
pub const MAX_NAME: usize = 64;
/// Conditions per list at most.
pub const MAX_CONDITIONS: usize = 16;

impl Spec {
    /// Parses and resolves `src` against the target's functions.
    pub fn parse(src: SpecSource, functions: &[Arc<Function>]) -> Result<Spec, SpecError> {
        let name = src.name.trim();
        if name.is_empty()
            || name.len() > MAX_NAME
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
        {
            return Err(err(
                "INVALID_NAME",
                "name",
                format!(
                    "{:?}: 1 to {MAX_NAME} characters of [A-Za-z0-9_.-]",
                    src.name
                ),
            ));
        }
        if src.entry_conditions.is_empty() {
            return Err(err(
                "INVALID_CONDITIONS",
                "entry_conditions",
                "needs at least one condition (`view() == value`)",
            ));
        }
        for (field, list) in [
            ("entry_conditions", &src.entry_conditions),
            ("exit_conditions", &src.exit_conditions),
        ] {
            if list.len() > MAX_CONDITIONS {
                return Err(err(
                    "INVALID_CONDITIONS",
                    field,
                    format!("has {} conditions; at most {MAX_CONDITIONS}", list.len()),
                ));
            }
        }
        let parse_all = |field: &str, list: &[String]| -> Result<Vec<Condition>, SpecError> {
            list.iter()
                .enumerate()
                .map(|(i, t)| {
                    parse_condition(t, functions)
                        .map_err(|m| err("INVALID_CONDITIONS", format!("{field}[{i}]"), m))
                })
                .collect()
        };
        let conditions = parse_all("entry_conditions", &src.entry_conditions)?;
        let exemptions = parse_all("exit_conditions", &src.exit_conditions)?;
        let mut reads: Vec<String> = conditions
            .iter()
            .chain(&exemptions)
            .flat_map(|c| {
                let mut v = vec![c.lhs.function.signature()];
                if let Operand::Call(r) = &c.rhs {
                    v.push(r.function.signature());
                }
                v
            })
            .collect();
        reads.sort();
        reads.dedup();
        // Indicators name the view functions the spec watches: each must be
        // one (by name or signature).
        for (i, ind) in src.indicators.iter().enumerate() {
            let known = functions
                .iter()
                .any(|f| is_view(f) && (f.name == *ind || f.signature() == *ind));
            if !known {
                let views: Vec<String> = functions
                    .iter()
                    .filter(|f| is_view(f))
                    .map(|f| f.signature())
                    .collect();
                return Err(err(
                    "INVALID_INDICATORS",
                    format!("indicators[{i}]"),
                    format!(
                        "{ind:?} is not a view function of the target; view functions: {}",
                        views.join(", ")
                    ),
                ));
            }
        }
        Ok(Spec {
            source: SpecSource {
                name: name.to_string(),
                ..src
            },
            conditions,
            exemptions,
            reads,
        })
    }

    /// Why the spec fails in the current state, given a way to run view
    /// calls (`None`: it holds, or an exemption holds).
    pub fn fails(&self, mut call: impl FnMut(&ViewCall) -> Result<U256, String>) -> Option<String> {
        for e in &self.exemptions {
            if matches!(e.eval(&mut call), Ok(true)) {
                return None;
            }
        }
        for c in &self.conditions {
            match c.eval(&mut call) {
                Ok(true) => {}
                Ok(false) => {
                    let lhs = call(&c.lhs).ok();
                    let rhs = match &c.rhs {
                        Operand::Word(w) => Some(*w),
                        Operand::Call(v) => call(v).ok(),
                    };
                    let show = |w: Option<U256>| match w {
                        Some(w) if c.lhs.signed => I256::from_raw(w).to_string(),
                        Some(w) => w.to_string(),
                        None => "?".into(),
                    };
                    return Some(format!(
                        "{} is false ({} vs {})",
                        c.text,
                        show(lhs),
                        show(rhs)
                    ));
                }
                Err(e) => return Some(format!("{}: {e}", c.text)),
            }
        }
        None
    }
}

impl Condition {
    fn eval(
        &self,
        call: &mut impl FnMut(&ViewCall) -> Result<U256, String>,
    ) -> Result<bool, String> {
        let a = call(&self.lhs)?;
        let b = match &self.rhs {
            Operand::Word(w) => *w,
            Operand::Call(v) => call(v)?,
        };
        let o = if self.lhs.signed {
            I256::from_raw(a).cmp(&I256::from_raw(b))
        } else {
            a.cmp(&b)
        };
        Ok(self.rel.holds(o))
    }
}

fn is_view(f: &Function) -> bool {
    matches!(
        f.state_mutability,
        StateMutability::View | StateMutability::Pure
    )
}

/// The relation at depth 0 of `text`: (byte offset, relation, its length).
fn find_relation(text: &str) -> Option<(usize, Relation, usize)> {
    let b = text.as_bytes();
    let mut depth = 0i32;
    let mut quote = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if let Some(q) = quote {
            if c == b'\\' {
                i += 2;
                continue;
            }
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        match c {
            b'"' | b'\'' => quote = Some(c),
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'=' | b'!' | b'<' | b'>' if depth == 0 => {
                let two = b.get(i + 1) == Some(&b'=');
                let rel = match (c, two) {
                    (b'=', true) => Relation::Eq,
                    (b'!', true) => Relation::Ne,
                    (b'<', true) => Relation::Le,
                    (b'>', true) => Relation::Ge,
                    (b'<', false) => Relation::Lt,
                    (b'>', false) => Relation::Gt,
                    _ => return None,
                };
                return Some((i, rel, if two { 2 } else { 1 }));
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Parses `view(args) REL value-or-view(args)`.
pub fn parse_condition(text: &str, functions: &[Arc<Function>]) -> Result<Condition, String> {
    let (at, rel, len) = find_relation(text).ok_or_else(|| {
        format!("{text:?}: no relation; write `view(args) OP value` with OP one of == != < <= > >=")
    })?;
    let (l, r) = (text[..at].trim(), text[at + len..].trim());
    if l.is_empty() || r.is_empty() {
        return Err(format!(
            "{text:?}: both sides of {} are needed",
            rel.as_str()
        ));
    }
    let lhs = view_call(l, functions)?;
    let rhs = if r.contains('(') {
        let v = view_call(r, functions)?;
        if v.signed != lhs.signed {
            return Err(format!(
                "{text:?}: {l} and {r} return a signed and an unsigned value"
            ));
        }
        Operand::Call(v)
    } else {
        Operand::Word(constant(r, &lhs)?)
    };
    Ok(Condition {
        lhs,
        rel,
        rhs,
        text: text.trim().to_string(),
    })
}

fn view_call(text: &str, functions: &[Arc<Function>]) -> Result<ViewCall, String> {
    let defaults = CallDefaults {
        sender: Address::ZERO,
        value: U256::ZERO,
        others: Default::default(),
    };
    let txs = parse_txs(text, functions, &defaults).map_err(|e| format!("{text:?}: {e}"))?;
    let [tx] = txs.as_slice() else {
        return Err(format!("{text:?}: one call per side"));
    };
    let f = &tx.function;
    if !is_view(f) {
        return Err(format!(
            "{text:?}: {} is not view or pure; a spec only reads state",
            f.signature()
        ));
    }
    let Some(out) = f.outputs.first() else {
        return Err(format!("{text:?}: {} returns nothing", f.signature()));
    };
    let ty: DynSolType = out
        .ty
        .parse()
        .map_err(|e| format!("{text:?}: return type {}: {e}", out.ty))?;
    let signed = match ty {
        DynSolType::Int(_) => true,
        DynSolType::Uint(_)
        | DynSolType::Bool
        | DynSolType::Address
        | DynSolType::FixedBytes(_) => false,
        other => {
            return Err(format!(
                "{text:?}: returns {other}; a spec compares one-word values (integers, bool, address, bytesN)"
            ));
        }
    };
    Ok(ViewCall {
        function: f.clone(),
        calldata: Bytes::from(tx.calldata()),
        signed,
        text: text.to_string(),
    })
}

fn constant(text: &str, lhs: &ViewCall) -> Result<U256, String> {
    let t = text.trim();
    match t {
        "true" => return Ok(U256::from(1)),
        "false" => return Ok(U256::ZERO),
        _ => {}
    }
    let (neg, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d.trim()),
        None => (false, t),
    };
    let digits = digits.replace('_', "");
    let magnitude = if let Some(h) = digits.strip_prefix("0x") {
        U256::from_str_radix(h, 16)
    } else {
        U256::from_str_radix(&digits, 10)
    }
    .map_err(|e| format!("{t:?}: not a number, bool or address ({e})"))?;
    if !neg {
        if lhs.signed && magnitude > U256::from(I256::MAX.into_raw()) {
            return Err(format!("{t:?}: out of range of int256"));
        }
        return Ok(magnitude);
    }
    if !lhs.signed {
        return Err(format!(
            "{t:?}: negative, but {} returns an unsigned value",
            lhs.function.signature()
        ));
    }
    let v = I256::checked_from_sign_and_abs(alloy_primitives::Sign::Negative, magnitude)
        .ok_or_else(|| format!("{t:?}: out of range of int256"))?;
    Ok(v.into_raw())
}

/// The first return word of a successful view call.
pub fn first_word(output: &[u8]) -> Result<U256, String> {
    if output.len() < 32 {
        return Err(format!("returned {} bytes, not a word", output.len()));
    }
    Ok(U256::from_be_slice(&output[..32]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn functions() -> Vec<Arc<Function>> {
        [
            "function totalSupply() view returns (uint256)",
            "function balanceOf(address) view returns (uint256)",
            "function delta() view returns (int256)",
            "function paused() view returns (bool)",
            "function name() view returns (string)",
            "function transfer(address,uint256) returns (bool)",
        ]
        .iter()
        .map(|s| Arc::new(Function::parse(s).unwrap()))
        .collect()
    }

    fn src(entry: &[&str], exit: &[&str]) -> SpecSource {
        SpecSource {
            name: "supply_capped".into(),
            entry_conditions: entry.iter().map(|s| s.to_string()).collect(),
            exit_conditions: exit.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn conditions_parse_and_evaluate() {
        let fs = functions();
        let s = Spec::parse(
            src(
                &[
                    "totalSupply() <= 1_000",
                    "delta() > -5",
                    "balanceOf(0x10) <= totalSupply()",
                ],
                &["paused() == true"],
            ),
            &fs,
        )
        .unwrap();
        assert_eq!(s.reads.len(), 4);
        let mut values = |supply: u64, delta: i64, paused: bool| {
            move |v: &ViewCall| -> Result<U256, String> {
                Ok(match v.function.name.as_str() {
                    "totalSupply" => U256::from(supply),
                    "balanceOf" => U256::from(3),
                    "delta" => I256::try_from(delta).unwrap().into_raw(),
                    "paused" => U256::from(paused as u8),
                    _ => unreachable!(),
                })
            }
        };
        assert_eq!(s.fails(values(1000, -4, false)), None);
        let why = s.fails(values(1001, 0, false)).unwrap();
        assert!(why.contains("1001 vs 1000"), "{why}");
        assert!(s.fails(values(5, -5, false)).unwrap().contains("-5 vs -5"));
        // An exemption that holds: nothing is checked.
        assert_eq!(s.fails(values(1001, -9, true)), None);
        // A view that reverts fails the spec, with the reason.
        let reverting = |_: &ViewCall| -> Result<U256, String> { Err("reverted".into()) };
        assert!(s.fails(reverting).unwrap().contains("reverted"));
        let _ = &mut values;
    }

    #[test]
    fn bad_specs_name_the_field() {
        let fs = functions();
        let e = |entry: &[&str]| Spec::parse(src(entry, &[]), &fs).unwrap_err();
        assert_eq!(e(&[]).field, "entry_conditions");
        let x = e(&["totalSupply() 5"]);
        assert_eq!(
            (x.code, x.field.as_str()),
            ("INVALID_CONDITIONS", "entry_conditions[0]")
        );
        assert!(
            e(&["transfer(0x1, 2) == true"])
                .message
                .contains("not view")
        );
        assert!(e(&["name() == 1"]).message.contains("one-word"));
        assert!(e(&["totalSupply() == -1"]).message.contains("unsigned"));
        assert!(e(&["totalSupply() == delta()"]).message.contains("signed"));
        assert!(e(&["nope() == 1"]).message.contains("nope"));
        assert!(e(&["totalSupply() == "]).message.contains("both sides"));
        let mut bad = src(&["totalSupply() == 1"], &[]);
        bad.name = "a/b".into();
        assert_eq!(Spec::parse(bad, &fs).unwrap_err().code, "INVALID_NAME");
        let mut bad = src(&["totalSupply() == 1"], &[]);
        bad.indicators = vec!["transfer".into()];
        let x = Spec::parse(bad, &fs).unwrap_err();
        assert_eq!(
            (x.code, x.field.as_str()),
            ("INVALID_INDICATORS", "indicators[0]")
        );
    }
}
