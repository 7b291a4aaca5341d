//! Arbitrary bytes into the call parser and resolver: never panics, and every
//! error's span lies inside the input on character boundaries.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rudder_calls::parser::{CallDefaults, format_template, parse_sequence, parse_templates, parse_txs};
use rudder_calls::tx::{Abis, Holes, Tx};
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
            "function make(uint8 k) returns (uint256 id, address who)",
        ]
        .iter()
        .map(|s| Arc::new(alloy_json_abi::Function::parse(s).unwrap()))
        .collect()
    })
}

fn events() -> &'static Vec<Arc<alloy_json_abi::Event>> {
    static EVENTS: OnceLock<Vec<Arc<alloy_json_abi::Event>>> = OnceLock::new();
    EVENTS.get_or_init(|| {
        ["event Made(uint256 indexed id, int64 amount, string note)"]
            .iter()
            .map(|s| Arc::new(alloy_json_abi::Event::parse(s).unwrap()))
            .collect()
    })
}

/// Calls and holes with the references' spans (positions in the text they
/// were parsed from) left out.
fn unplaced(mut calls: Vec<(Tx, Holes)>) -> Vec<(Tx, Holes)> {
    for (_, h) in &mut calls {
        for r in &mut h.refs {
            r.span = 0..0;
        }
    }
    calls
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
    // Calls with `?` wildcards and `$n` references: errors point into the
    // text; what parses prints back to text that parses to the same calls,
    // holes and references.
    match parse_templates(src, abi(), &defaults, events()) {
        Err(e) => {
            let s = e.span();
            assert!(s.start <= s.end && s.end <= src.len(), "{e:?} in {src:?}");
        }
        Ok(calls) => {
            let text: Vec<String> = calls
                .iter()
                .map(|(tx, holes)| {
                    format_template(tx, holes, Abis::target_only(abi()), Some(defaults.sender))
                })
                .collect();
            let text = text.join("\n");
            let back = parse_templates(&text, abi(), &defaults, events())
                .unwrap_or_else(|e| panic!("{src:?} printed as {text:?}: {e}"));
            assert_eq!(unplaced(back), unplaced(calls), "{src:?} printed as {text:?}");
        }
    }
});
