//! Structured: arbitrary ABI types and values, printed in call syntax, then
//! parsed and resolved: the call must come back identical.
#![no_main]

use alloy_dyn_abi::DynSolType;
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use rand::SeedableRng;
use rudder::campaign::generate::{Dictionary, random_value};
use rudder::parser::{CallDefaults, format_call, format_template, parse_templates, parse_txs, zero_of};
use rudder::tx::{Delay, Tx};
use std::sync::Arc;

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
    let mut rng = rand::rngs::SmallRng::seed_from_u64(input.seed);
    let dict = Dictionary::mine(
        &[],
        &["7 255 65535"],
        vec![rudder::executor::DEFAULT_SENDERS[0]],
    );
    let args = types
        .iter()
        .map(|t| random_value(&mut rng, &dict, t))
        .collect();
    let sender = rudder::executor::DEFAULT_SENDERS[(input.seed % 3) as usize];
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
    let text = format_call(&tx, rudder::tx::Abis::target_only(&functions), Some(rudder::executor::DEFAULT_SENDERS[0]));
    let defaults = CallDefaults {
        sender: rudder::executor::DEFAULT_SENDERS[0],
        ..Default::default()
    };
    let back = parse_txs(&text, &functions, &defaults).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(back.len(), 1);
    assert_eq!(back[0], tx, "{text}");
    // The same call with wildcards where the seed's bits say: top-level
    // arguments, the value and the sender.
    let mut holes = rudder::tx::Holes::default();
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
    let text = format_template(&template, &holes, rudder::tx::Abis::target_only(&functions), Some(defaults.sender));
    let mut back = parse_templates(&text, &functions, &defaults).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(back.len(), 1);
    assert_eq!(back.remove(0), (template, holes), "{text}");
});
