//! Arbitrary bytes into the call parser and resolver: never panics, and every
//! error's span lies inside the input on character boundaries.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rudder_calls::parser::{CallDefaults, format_template, parse_sequence, parse_templates, parse_txs};
use std::sync::{Arc, OnceLock};

fn abi() -> &'static Vec<Arc<alloy_json_abi::Function>> {
    static ABI: OnceLock<Vec<Arc<alloy_json_abi::Function>>> = OnceLock::new();
    ABI.get_or_init(|| {
        [
            "poke(uint8)",
            "poke(uint256,bool)",
            "poke(address)",
            "ints(int8,int64,int256)",
            "blobs(bytes,bytes4,bytes32,string)",
            "arrays(uint16[],address[2],bool[][])",
            "mix((int16,uint8,address,bool),uint32)",
            "pay()",
        ]
        .iter()
        .map(|s| Arc::new(alloy_json_abi::Function::parse(s).unwrap()))
        .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let defaults = CallDefaults {
        sender: alloy_primitives::address!("0000000000000000000000000000000000010000"),
        ..Default::default()
    };
    if let Err(e) = parse_sequence(src) {
        assert!(
            e.span.start <= e.span.end && e.span.end <= src.len(),
            "{e:?} in {src:?}"
        );
        assert!(src.is_char_boundary(e.span.start) && src.is_char_boundary(e.span.end));
        assert!(!e.expected.is_empty());
    }
    if let Err(e) = parse_txs(src, abi(), &defaults) {
        let s = e.span();
        assert!(s.start <= s.end && s.end <= src.len(), "{e:?} in {src:?}");
    }
    // Calls with `?` wildcards: errors point into the text; what parses
    // prints back to text that parses to the same calls and holes.
    match parse_templates(src, abi(), &defaults) {
        Err(e) => {
            let s = e.span();
            assert!(s.start <= s.end && s.end <= src.len(), "{e:?} in {src:?}");
        }
        Ok(calls) => {
            for (tx, holes) in calls {
                let text = format_template(
                    &tx,
                    &holes,
                    rudder_calls::tx::Abis::target_only(abi()),
                    Some(defaults.sender),
                );
                let mut back = parse_templates(&text, abi(), &defaults)
                    .unwrap_or_else(|e| panic!("{src:?} printed as {text:?}: {e}"));
                assert_eq!(back.len(), 1, "{text}");
                assert_eq!(back.remove(0), (tx, holes), "{src:?} printed as {text:?}");
            }
        }
    }
});
