//! Medusa's call sequences, as its corpus directory holds them: one JSON
//! array of sequence elements per file, under `call_sequences/immutable/`
//! and `call_sequences/mutable/` (older versions: `call_sequences/`) and
//! `test_results/` (falsified tests).
//!
//! An element is `{call, blockNumberDelay, blockTimestampDelay}`; `call`
//! is the message Medusa sends: `from`, `to`, `value` and `gasPrice` as
//! `0x` hex quantities, `gasLimit`, `nonce`, and `data`, the calldata
//! (Medusa packs it from `dataAbiValues` whenever those are set, so it is
//! always there for a call it generated). The calldata names the function
//! by its selector; `to` is the target when it is the target's address,
//! else a deployed contract the campaign calls (`allContracts`), else —
//! Medusa deploys at its own addresses — the target, when the selector is
//! one of the target's functions.

use crate::tx::{Abis, Delay, Tx, decode_args};
use alloy_primitives::{Address, U256};
use serde_json::{Value, json};

/// The calls of one Medusa call-sequence file, against `abis`, with
/// `target` the address the campaign deployed the target at. An error
/// names the element (from 1) and what does not fit.
pub fn read(bytes: &[u8], abis: Abis<'_>, target: Address) -> Result<Vec<Tx>, String> {
    let v: Value = serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
    let elements = v
        .as_array()
        .ok_or("not a Medusa call sequence (expected a JSON array)")?;
    (elements.iter().enumerate())
        .map(|(i, e)| read_element(e, abis, target).map_err(|e| format!("element {}: {e}", i + 1)))
        .collect()
}

/// `txs` as a Medusa call-sequence file's JSON: calls to the target go to
/// `target`, each with `gas`.
pub fn write(txs: &[Tx], target: Address, gas: u64) -> Value {
    Value::Array(
        txs.iter()
            .map(|tx| {
                json!({
                    "call": {
                        "from": tx.sender.to_checksum(None),
                        "to": tx.to.unwrap_or(target).to_checksum(None),
                        "nonce": 0,
                        "value": quantity(tx.value),
                        "gasLimit": gas,
                        "gasPrice": quantity(U256::from(tx.gas_price)),
                        "gasFeeCap": "0x0",
                        "gasTipCap": "0x0",
                        "data": alloy_primitives::hex::encode_prefixed(tx.calldata()),
                    },
                    "blockNumberDelay": tx.delay.blocks,
                    "blockTimestampDelay": tx.delay.seconds,
                })
            })
            .collect(),
    )
}

/// A hex quantity as go-ethereum writes it (`0x0`, `0x2a`).
fn quantity(v: U256) -> String {
    format!("{v:#x}")
}

fn read_element(e: &Value, abis: Abis<'_>, target: Address) -> Result<Tx, String> {
    let call = e.get("call").ok_or("no `call`")?;
    let field = |k: &str| call.get(k).ok_or_else(|| format!("call: no `{k}`"));
    let address = |k: &str| -> Result<Address, String> {
        let v = field(k)?;
        let s = v
            .as_str()
            .ok_or_else(|| format!("{k}: expected an address, found {v}"))?;
        s.parse::<Address>().map_err(|e| format!("{k}: {s:?}: {e}"))
    };
    let big = |k: &str| -> Result<U256, String> {
        match call.get(k) {
            None | Some(Value::Null) => Ok(U256::ZERO),
            Some(Value::String(s)) => {
                let h = s
                    .strip_prefix("0x")
                    .ok_or_else(|| format!("{k}: {s:?} is not 0x hex"))?;
                U256::from_str_radix(if h.is_empty() { "0" } else { h }, 16)
                    .map_err(|e| format!("{k}: {s:?}: {e}"))
            }
            Some(v) => Err(format!("{k}: expected a hex quantity, found {v}")),
        }
    };
    let delay = |k: &str| -> Result<u64, String> {
        match e.get(k) {
            None => Ok(0),
            Some(v) => v
                .as_u64()
                .ok_or_else(|| format!("{k}: expected a number, found {v}")),
        }
    };
    let sender = address("from")?;
    let to = address("to")?;
    let value = big("value")?;
    let gas_price =
        u128::try_from(big("gasPrice")?).map_err(|_| "gasPrice: over 128 bits".to_string())?;
    let data = match call.get("data") {
        Some(Value::String(s)) => {
            alloy_primitives::hex::decode(s).map_err(|e| format!("data: not hex: {e}"))?
        }
        _ => return Err("call: no `data` (calldata)".into()),
    };
    if data.len() < 4 {
        return Err("data: shorter than a selector (a plain transfer is not replayed)".into());
    }
    let of = |functions: &[std::sync::Arc<alloy_json_abi::Function>]| {
        functions
            .iter()
            .find(|f| f.selector()[..] == data[..4])
            .cloned()
    };
    // The target, another contract calls may go to, or (Medusa's own
    // address for its target) the target again when it has the function.
    let (to, function) = if to == target {
        (None, of(abis.target))
    } else if let Some(fs) = abis.at(Some(to)) {
        (Some(to), of(fs))
    } else {
        (None, of(abis.target))
    };
    let function = function.ok_or_else(|| {
        format!(
            "calldata selector 0x{} matches no function of {}",
            alloy_primitives::hex::encode(&data[..4]),
            match to {
                None => "the target".to_string(),
                Some(a) => format!("the contract at {a}"),
            }
        )
    })?;
    let args = decode_args(&function, &data[4..])
        .map_err(|e| format!("calldata does not decode as {}: {e}", function.signature()))?;
    Ok(Tx {
        function,
        args,
        sender,
        value,
        delay: Delay {
            seconds: delay("blockTimestampDelay")?,
            blocks: delay("blockNumberDelay")?,
        },
        gas_price,
        to,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_json_abi::Function;
    use std::sync::Arc;

    const TARGET: Address = alloy_primitives::address!("00a329c0648769a73afac7f9381e08fb43dbea72");

    #[test]
    fn medusas_sequences_are_read_and_written_back_as_they_were() {
        let functions: Vec<Arc<Function>> = [
            "function transfer(address to, uint256 amount)",
            "function put(string s, uint8[] k)",
        ]
        .iter()
        .map(|s| Arc::new(Function::parse(s).unwrap()))
        .collect();
        let abis = Abis::target_only(&functions);
        // transfer(0xdeadbeef, 100) sent by 0x10000 to Medusa's own address
        // for the target, with 7 wei, an hour and two blocks later.
        let file = r#"[{"call":{"from":"0x0000000000000000000000000000000000010000",
          "to":"0x7fa9385be102ac3eac297483dd6233d62b3e1496","nonce":3,"value":"0x7","gasLimit":12500000,
          "gasPrice":"0x1","gasFeeCap":"0x0","gasTipCap":"0x0",
          "data":"0xa9059cbb00000000000000000000000000000000000000000000000000000000deadbeef0000000000000000000000000000000000000000000000000000000000000064",
          "dataAbiValues":{"methodName":"transfer","inputValues":["0x00000000000000000000000000000000DeaDBeef","100"]},
          "AccessList":null,"SkipNonceChecks":false},"blockNumberDelay":2,"blockTimestampDelay":3600}]"#;
        let txs = read(file.as_bytes(), abis, TARGET).unwrap();
        assert_eq!(txs.len(), 1);
        assert_eq!(
            txs[0].call_string().split('{').next().unwrap(),
            "transfer(0x00000000000000000000000000000000DeaDBeef, 100)"
        );
        assert_eq!((txs[0].delay.seconds, txs[0].delay.blocks), (3600, 2));
        assert_eq!(
            (txs[0].value, txs[0].gas_price, txs[0].to),
            (U256::from(7), 1, None)
        );
        let again = write(&txs, TARGET, 12_500_000).to_string();
        assert_eq!(read(again.as_bytes(), abis, TARGET).unwrap(), txs);
        for (bad, want) in [
            ("{}", "not a Medusa call sequence"),
            (r#"[{"blockNumberDelay":1}]"#, "element 1: no `call`"),
            (
                r#"[{"call":{"from":"0x0000000000000000000000000000000000010000","to":"0x00a329c0648769a73afac7f9381e08fb43dbea72","data":"0x12345678"}}]"#,
                "selector 0x12345678 matches no function of the target",
            ),
        ] {
            let e = read(bad.as_bytes(), abis, TARGET).unwrap_err();
            assert!(e.contains(want), "{e} lacks {want}");
        }
    }
}
