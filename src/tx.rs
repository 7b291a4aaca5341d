//! One call of a sequence ([`Tx`]): which function, with which arguments,
//! from whom, with how much ether, after how long a wait. Printed the way a
//! Solidity engineer writes it (see [`crate::parser`] for the syntax), and
//! stored on disk as a signature plus calldata so that it reloads exactly.

use alloy_dyn_abi::{DynSolValue, JsonAbiExt};
use alloy_json_abi::Function;
use alloy_primitives::{Address, U256};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// The wait before a call: `seconds` added to the block timestamp and
/// `blocks` to the block number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Delay {
    pub seconds: u64,
    pub blocks: u64,
}

impl Delay {
    pub const NONE: Delay = Delay {
        seconds: 0,
        blocks: 0,
    };

    pub fn is_none(&self) -> bool {
        *self == Self::NONE
    }
}

/// One call against the target.
#[derive(Clone, Debug, PartialEq)]
pub struct Tx {
    pub function: Arc<Function>,
    pub args: Vec<DynSolValue>,
    pub sender: Address,
    pub value: U256,
    pub delay: Delay,
    /// Gas price in wei (`tx.gasprice`); 0 unless `maxGasprice` is set.
    pub gas_price: u128,
}

impl Tx {
    /// The canonical signature, e.g. `transfer(address,uint256)`.
    pub fn signature(&self) -> String {
        self.function.signature()
    }

    /// Selector followed by the ABI-encoded arguments.
    pub fn calldata(&self) -> Vec<u8> {
        if crate::executor::is_fallback(&self.function) {
            return Vec::new();
        }
        self.function
            .abi_encode_input(&self.args)
            .unwrap_or_else(|_| self.function.selector().to_vec())
    }

    /// The call alone, `name(arg, …)`, without sender, value or delay.
    pub fn call_string(&self) -> String {
        let mut s = String::with_capacity(32);
        s.push_str(&self.function.name);
        s.push('(');
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            write_value(&mut s, a);
        }
        s.push(')');
        s
    }
}

/// `name{value: …, from: …, delay: …, blocks: …}(args)`: the options block is
/// printed only for what differs from `defaults` (value 0, no delay, the
/// default sender), so the common case reads as plain Solidity.
pub struct TxDisplay<'a> {
    pub tx: &'a Tx,
    pub default_sender: Option<Address>,
}

impl fmt::Display for TxDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tx = self.tx;
        let mut opts = Vec::new();
        if !tx.value.is_zero() {
            opts.push(format!("value: {}", tx.value));
        }
        if self.default_sender != Some(tx.sender) {
            opts.push(format!("from: {}", tx.sender.to_checksum(None)));
        }
        if tx.delay.seconds != 0 {
            opts.push(format!("delay: {}", tx.delay.seconds));
        }
        if tx.delay.blocks != 0 {
            opts.push(format!("blocks: {}", tx.delay.blocks));
        }
        if tx.gas_price != 0 {
            opts.push(format!("gasprice: {}", tx.gas_price));
        }
        let call = tx.call_string();
        if opts.is_empty() {
            f.write_str(&call)
        } else {
            let name_len = tx.function.name.len();
            write!(
                f,
                "{}{{{}}}{}",
                &call[..name_len],
                opts.join(", "),
                &call[name_len..]
            )
        }
    }
}

impl fmt::Display for Tx {
    /// Always prints the sender, so that the text stands on its own.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        TxDisplay {
            tx: self,
            default_sender: None,
        }
        .fmt(f)
    }
}

/// Appends `v` in the call syntax: decimal integers, checksummed addresses,
/// `hex"…"` for dynamic bytes, `0x…` for fixed bytes, escaped strings,
/// `[…]` for arrays and `(…)` for tuples.
pub fn write_value(s: &mut String, v: &DynSolValue) {
    use std::fmt::Write;
    match v {
        DynSolValue::Bool(b) => s.push_str(if *b { "true" } else { "false" }),
        DynSolValue::Int(i, _) => {
            let _ = write!(s, "{i}");
        }
        DynSolValue::Uint(u, _) => {
            let _ = write!(s, "{u}");
        }
        DynSolValue::FixedBytes(w, n) => {
            s.push_str("0x");
            for b in &w[..*n] {
                let _ = write!(s, "{b:02x}");
            }
        }
        DynSolValue::Address(a) => s.push_str(&a.to_checksum(None)),
        DynSolValue::Function(f) => {
            s.push_str("0x");
            for b in f.0.iter() {
                let _ = write!(s, "{b:02x}");
            }
        }
        DynSolValue::Bytes(b) => {
            s.push_str("hex\"");
            for x in b {
                let _ = write!(s, "{x:02x}");
            }
            s.push('"');
        }
        DynSolValue::String(t) => {
            s.push('"');
            for c in t.chars() {
                match c {
                    '"' => s.push_str("\\\""),
                    '\\' => s.push_str("\\\\"),
                    '\n' => s.push_str("\\n"),
                    '\r' => s.push_str("\\r"),
                    '\t' => s.push_str("\\t"),
                    c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                        let _ = write!(s, "\\x{:02x}", c as u32);
                    }
                    c => s.push(c),
                }
            }
            s.push('"');
        }
        DynSolValue::Array(items) | DynSolValue::FixedArray(items) => {
            s.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                write_value(s, x);
            }
            s.push(']');
        }
        DynSolValue::Tuple(items) => {
            s.push('(');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                write_value(s, x);
            }
            if items.len() == 1 {
                s.push(',');
            }
            s.push(')');
        }
    }
}

/// The on-disk form of a [`Tx`]: exact (signature + calldata) and readable (`call`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredTx {
    pub call: String,
    pub signature: String,
    pub calldata: String,
    pub sender: Address,
    /// Wei, decimal.
    pub value: String,
    #[serde(default)]
    pub delay: u64,
    #[serde(default)]
    pub blocks: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gas_used: Option<u64>,
    /// Wei per gas, decimal (absent: 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gas_price: Option<String>,
}

impl StoredTx {
    pub fn from_tx(tx: &Tx, gas_used: Option<u64>) -> Self {
        StoredTx {
            call: tx.call_string(),
            signature: tx.signature(),
            calldata: alloy_primitives::hex::encode_prefixed(tx.calldata()),
            sender: tx.sender,
            value: tx.value.to_string(),
            delay: tx.delay.seconds,
            blocks: tx.delay.blocks,
            gas_used,
            gas_price: (tx.gas_price != 0).then(|| tx.gas_price.to_string()),
        }
    }

    /// Rebuilds the call against `functions` (the target's ABI).
    pub fn to_tx(&self, functions: &[Arc<Function>]) -> Result<Tx, String> {
        let function = functions
            .iter()
            .find(|f| f.signature() == self.signature)
            .ok_or_else(|| format!("no function {} in the target's ABI", self.signature))?;
        let data = alloy_primitives::hex::decode(&self.calldata)
            .map_err(|e| format!("calldata is not hex: {e}"))?;
        if data.len() < 4 || data[..4] != function.selector()[..] {
            return Err(format!(
                "calldata does not start with {}'s selector",
                self.signature
            ));
        }
        let args = function
            .abi_decode_input(&data[4..])
            .map_err(|e| format!("calldata does not decode as {}: {e}", self.signature))?;
        let value = self
            .value
            .parse::<U256>()
            .map_err(|e| format!("value {:?}: {e}", self.value))?;
        let gas_price = match &self.gas_price {
            None => 0,
            Some(p) => p
                .parse::<u128>()
                .map_err(|e| format!("gas price {p:?}: {e}"))?,
        };
        Ok(Tx {
            function: function.clone(),
            args,
            sender: self.sender,
            value,
            delay: Delay {
                seconds: self.delay,
                blocks: self.blocks,
            },
            gas_price,
        })
    }
}
