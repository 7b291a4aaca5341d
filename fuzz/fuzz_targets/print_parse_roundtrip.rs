//! Structured: arbitrary ABI types and values, printed in call syntax, then
//! parsed and resolved: the call must come back identical.
#![no_main]

use alloy_dyn_abi::{DynSolType, DynSolValue};
use alloy_primitives::{Address, B256, I256, U256, address};
use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use rudder_calls::parser::{CallDefaults, format_call, format_template, parse_templates, parse_txs, zero_of};
use rudder_calls::tx::{Abis, Delay, Holes, Tx};
use std::sync::Arc;

/// Echidna's three default senders (the first is the calls' default).
const SENDERS: [Address; 3] = [
    address!("0000000000000000000000000000000000010000"),
    address!("0000000000000000000000000000000000020000"),
    address!("0000000000000000000000000000000000030000"),
];

/// A value of `ty` drawn from the fuzzer's bytes, edges (0, 1, the type's
/// extremes) as likely as anything else.
fn value(u: &mut Unstructured<'_>, ty: &DynSolType) -> DynSolValue {
    let word = |u: &mut Unstructured<'_>, bits: usize| -> U256 {
        let raw = match u.int_in_range(0u8..=3).unwrap_or(0) {
            0 => U256::ZERO,
            1 => U256::from(1),
            2 => U256::MAX,
            _ => U256::from_be_bytes(u.arbitrary::<[u8; 32]>().unwrap_or_default()),
        };
        if bits == 256 { raw } else { raw & ((U256::from(1) << bits) - U256::from(1)) }
    };
    match ty {
        DynSolType::Bool => DynSolValue::Bool(u.arbitrary().unwrap_or_default()),
        DynSolType::Uint(bits) => DynSolValue::Uint(word(u, *bits), *bits),
        DynSolType::Int(bits) => {
            let raw = word(u, *bits);
            // Sign-extend the low `bits` bits.
            let negative = raw.bit(*bits - 1);
            let full = if negative && *bits < 256 { raw | (U256::MAX << *bits) } else { raw };
            DynSolValue::Int(I256::from_raw(full), *bits)
        }
        DynSolType::Address => {
            DynSolValue::Address(Address::from(u.arbitrary::<[u8; 20]>().unwrap_or_default()))
        }
        DynSolType::FixedBytes(n) => {
            let mut w = [0u8; 32];
            let _ = u.fill_buffer(&mut w[..*n]);
            DynSolValue::FixedBytes(B256::from(w), *n)
        }
        DynSolType::Bytes => {
            let n = u.int_in_range(0usize..=40).unwrap_or(0);
            DynSolValue::Bytes(u.bytes(n).map(|b| b.to_vec()).unwrap_or_default())
        }
        DynSolType::String => {
            let s: String = u.arbitrary().unwrap_or_default();
            DynSolValue::String(s.chars().take(40).collect())
        }
        DynSolType::Array(t) => {
            let n = u.int_in_range(0usize..=3).unwrap_or(0);
            DynSolValue::Array((0..n).map(|_| value(u, t)).collect())
        }
        DynSolType::FixedArray(t, n) => DynSolValue::FixedArray((0..*n).map(|_| value(u, t)).collect()),
        DynSolType::Tuple(ts) => DynSolValue::Tuple(ts.iter().map(|t| value(u, t)).collect()),
        other => panic!("no values of {other} here"),
    }
}

#[derive(Arbitrary, Debug)]
enum Ty {
    Uint(u8),
    Int(u8),
    Address,
    Bool,
    String,
    Bytes,
    Fixed(u8),
    Array(Box<Ty>),
    FixedArray(Box<Ty>, u8),
    Tuple(Vec<Ty>),
}

fn build(t: &Ty, depth: u8) -> DynSolType {
    let leaf = depth > 3;
    match t {
        Ty::Uint(n) => DynSolType::Uint((*n as usize % 32 + 1) * 8),
        Ty::Int(n) => DynSolType::Int((*n as usize % 32 + 1) * 8),
        Ty::Address => DynSolType::Address,
        Ty::Bool => DynSolType::Bool,
        Ty::String => DynSolType::String,
        Ty::Bytes => DynSolType::Bytes,
        Ty::Fixed(n) => DynSolType::FixedBytes(*n as usize % 32 + 1),
        _ if leaf => DynSolType::Bool,
        Ty::Array(i) => DynSolType::Array(Box::new(build(i, depth + 1))),
        Ty::FixedArray(i, n) => {
            DynSolType::FixedArray(Box::new(build(i, depth + 1)), *n as usize % 3 + 1)
        }
        Ty::Tuple(items) if items.is_empty() => DynSolType::Bool,
        Ty::Tuple(items) => {
            DynSolType::Tuple(items.iter().take(4).map(|i| build(i, depth + 1)).collect())
        }
    }
}

#[derive(Arbitrary, Debug)]
struct Input {
    types: Vec<Ty>,
    /// The bytes argument values are drawn from.
    values: Vec<u8>,
    seed: u64,
    value: u64,
    delay: u32,
}

fuzz_target!(|input: Input| {
    let types: Vec<DynSolType> = input.types.iter().take(5).map(|t| build(t, 0)).collect();
    let sig = format!(
        "f({})",
        types
            .iter()
            .map(|t| t.sol_type_name().into_owned())
            .collect::<Vec<_>>()
            .join(",")
    );
    let mut function = alloy_json_abi::Function::parse(&sig).unwrap();
    function.state_mutability = alloy_json_abi::StateMutability::Payable;
    let function = Arc::new(function);
    let mut u = Unstructured::new(&input.values);
    let args = types.iter().map(|t| value(&mut u, t)).collect();
    let sender = SENDERS[(input.seed % 3) as usize];
    let tx = Tx {
        function: function.clone(),
        args,
        sender,
        value: alloy_primitives::U256::from(input.value),
        delay: Delay {
            seconds: input.delay as u64,
            blocks: (input.delay / 7) as u64,
        },
        gas_price: (input.value as u128) << 3,
        to: None,
    };
    let functions = vec![function];
    let text = format_call(&tx, Abis::target_only(&functions), Some(SENDERS[0]));
    let defaults = CallDefaults {
        sender: SENDERS[0],
        ..Default::default()
    };
    let back = parse_txs(&text, &functions, &defaults).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(back.len(), 1);
    assert_eq!(back[0], tx, "{text}");
    // The same call with wildcards where the seed's bits say: top-level
    // arguments, the value and the sender.
    let mut holes = Holes::default();
    let mut template = tx.clone();
    for (i, t) in types.iter().enumerate() {
        if input.seed >> (8 + i) & 1 == 1 {
            holes.args.push(vec![i]);
            template.args[i] = zero_of(t);
        }
    }
    if input.seed >> 20 & 1 == 1 {
        holes.value = true;
        template.value = alloy_primitives::U256::ZERO;
    }
    if input.seed >> 21 & 1 == 1 {
        holes.sender = true;
        template.sender = defaults.sender;
    }
    let text = format_template(&template, &holes, Abis::target_only(&functions), Some(defaults.sender));
    let mut back = parse_templates(&text, &functions, &defaults, &[]).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(back.len(), 1);
    assert_eq!(back.remove(0), (template.clone(), holes.clone()), "{text}");
    // After a call that returns an id and an address, the integer and
    // address arguments the seed picks read them (`$1.id`, `$1.who`).
    let make = Arc::new(
        alloy_json_abi::Function::parse("function make() returns (uint256 id, address who)").unwrap(),
    );
    let mut functions = functions;
    functions.push(make.clone());
    let first = Tx {
        function: make,
        args: vec![],
        sender: SENDERS[0],
        value: U256::ZERO,
        delay: Delay::default(),
        gas_price: 0,
        to: None,
    };
    let mut refs = holes;
    for (i, t) in types.iter().enumerate() {
        let field = match t {
            DynSolType::Uint(_) | DynSolType::Int(_) => "id",
            DynSolType::Address => "who",
            _ => continue,
        };
        if input.seed >> (24 + i % 8) & 1 == 1 && !refs.at(&[i]) {
            refs.refs.push(rudder_calls::reference::Reference {
                path: vec![i],
                call: 0,
                field: Some(field.into()),
                span: 0..0,
                source: None,
            });
            template.args[i] = zero_of(t);
        }
    }
    let abis = Abis::target_only(&functions);
    let text = format!(
        "{}; {}",
        format_template(&first, &Holes::default(), abis, Some(defaults.sender)),
        format_template(&template, &refs, abis, Some(defaults.sender))
    );
    let back = parse_templates(&text, &functions, &defaults, &[]).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(back.len(), 2);
    let (tx, mut got) = back[1].clone();
    assert_eq!(tx, template, "{text}");
    for r in &mut got.refs {
        assert!(r.source.is_some(), "{text}: {r:?} not bound");
        r.span = 0..0;
        r.source = None;
    }
    assert_eq!(got, refs, "{text}");
});
