//! The campaign's value generator, the printer and the parser together:
//! every value a worker can draw prints as text that parses back to it.

use alloy_dyn_abi::DynSolType;
use alloy_json_abi::Function;
use alloy_primitives::U256;
use proptest::prelude::*;
use rand::SeedableRng;
use rudder::campaign::generate::{Dictionary, random_value};
use rudder::parser::{CallDefaults, format_call, parse_txs};
use rudder::tx::Tx;
use std::sync::Arc;

fn defaults() -> CallDefaults {
    CallDefaults {
        sender: rudder::executor::DEFAULT_SENDERS[0],
        ..Default::default()
    }
}

fn ty_strategy() -> impl Strategy<Value = DynSolType> {
    let leaf = prop_oneof![
        (1usize..=32).prop_map(|n| DynSolType::Uint(n * 8)),
        (1usize..=32).prop_map(|n| DynSolType::Int(n * 8)),
        Just(DynSolType::Address),
        Just(DynSolType::Bool),
        Just(DynSolType::String),
        Just(DynSolType::Bytes),
        (1usize..=32).prop_map(DynSolType::FixedBytes),
    ];
    leaf.prop_recursive(3, 12, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(|t| DynSolType::Array(Box::new(t))),
            (inner.clone(), 1usize..4).prop_map(|(t, n)| DynSolType::FixedArray(Box::new(t), n)),
            prop::collection::vec(inner, 1..4).prop_map(DynSolType::Tuple),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    /// Random ABI types, random values of them: printing then parsing
    /// gives the same call.
    #[test]
    fn print_then_parse_is_identity(types in prop::collection::vec(ty_strategy(), 0..4), seed: u64) {
        let sig = format!("f({})", types.iter().map(|t| t.sol_type_name().into_owned()).collect::<Vec<_>>().join(","));
        let function = Arc::new(Function::parse(&sig).unwrap());
        let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
        let dict = Dictionary::mine(&[], &["7 255 65535"], vec![rudder::executor::DEFAULT_SENDERS[0]]);
        let args: Vec<_> = types.iter().map(|t| random_value(&mut rng, &dict, t)).collect();
        let tx = Tx { function: function.clone(), args, sender: rudder::executor::DEFAULT_SENDERS[0], value: U256::ZERO, delay: rudder::tx::Delay::NONE, gas_price: 0, to: None };
        let functions = vec![function];
        let text = format_call(&tx, rudder::tx::Abis::target_only(&functions), Some(rudder::executor::DEFAULT_SENDERS[0]));
        let back = parse_txs(&text, &functions, &defaults());
        prop_assert!(back.is_ok(), "{} -> {:?}", text, back.err());
        prop_assert_eq!(&back.unwrap()[0], &tx, "{}", text);
    }
}
