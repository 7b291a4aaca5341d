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

/// The name of the pseudo-function that stands for a call with empty
/// calldata (a contract's `receive` or `fallback`).
pub const FALLBACK: &str = "fallback";

/// Whether `f` is the empty-calldata pseudo-function.
pub fn is_fallback(f: &Function) -> bool {
    f.name == FALLBACK && f.inputs.is_empty() && f.outputs.is_empty()
}

/// `function`'s selector, hashed once per function and thread. Computed
/// per call (encoding, statistics, property checks), the signature's
/// keccak was 18.6% of a campaign's instructions (callgrind, Token). The
/// cache holds the `Arc` so that its address is not reused while cached.
pub fn selector_of(function: &Arc<Function>) -> alloy_primitives::Selector {
    use std::cell::RefCell;
    use std::collections::HashMap;
    type Cache = HashMap<usize, (Arc<Function>, alloy_primitives::Selector)>;
    thread_local! {
        static CACHE: RefCell<Cache> = RefCell::new(HashMap::new());
    }
    let key = Arc::as_ptr(function) as usize;
    CACHE.with(|c| {
        if let Some((_, s)) = c.borrow().get(&key) {
            return *s;
        }
        let s = function.selector();
        let mut c = c.borrow_mut();
        if c.len() >= 4096 {
            c.clear();
        }
        c.insert(key, (function.clone(), s));
        s
    })
}

/// A deployed contract other than the target that calls may go to
/// (`allContracts`): found after deployment by its runtime code.
#[derive(Clone, Debug, PartialEq)]
pub struct Callee {
    pub name: String,
    pub address: Address,
    pub functions: Vec<Arc<Function>>,
}

/// The functions calls may name: the target's, and those of the other
/// contracts a call can be sent to with `to`.
#[derive(Clone, Copy, Debug)]
pub struct Abis<'a> {
    pub target: &'a [Arc<Function>],
    pub others: &'a [Callee],
    /// Functions of the contracts calls may create (a Foundry suite's
    /// targets found at run time): what an address known to no one else
    /// may be called through.
    pub created: &'a [Arc<Function>],
}

impl<'a> Abis<'a> {
    pub fn target_only(target: &'a [Arc<Function>]) -> Self {
        Abis {
            target,
            others: &[],
            created: &[],
        }
    }

    /// The functions of the contract at `to` (`None`: the target).
    pub fn at(&self, to: Option<Address>) -> Option<&'a [Arc<Function>]> {
        match to {
            None => Some(self.target),
            Some(a) => self
                .others
                .iter()
                .find(|c| c.address == a)
                .map(|c| c.functions.as_slice())
                .or_else(|| (!self.created.is_empty()).then_some(self.created)),
        }
    }
}

/// Where a call's `?` wildcards are: each worker draws these anew every
/// time it runs the call (`transfer(?, 7)`, `deposit{value: ?}()`); and
/// where its `$n` references are (`redeem($1.shares)`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Holes {
    /// Paths of the `?` arguments: the argument's index, then indices into
    /// nested arrays and tuples.
    pub args: Vec<Vec<usize>>,
    /// `{value: ?}`.
    pub value: bool,
    /// `{from: ?}`.
    pub sender: bool,
    /// The `$n` references: values earlier calls of the sequence produced,
    /// filled in when the call runs ([`crate::reference::apply`]).
    pub refs: Vec<crate::reference::Reference>,
}

impl Holes {
    pub fn is_empty(&self) -> bool {
        self.args.is_empty() && !self.value && !self.sender && self.refs.is_empty()
    }

    /// The reference at `path`, if one stands there.
    pub fn reference_at(&self, path: &[usize]) -> Option<&crate::reference::Reference> {
        self.refs.iter().find(|r| r.path == path)
    }

    /// Whether the value at `path` is a `?`.
    pub fn at(&self, path: &[usize]) -> bool {
        self.args.iter().any(|p| p == path)
    }

    /// Whether some `?` or `$n` lies at or under `path`.
    pub fn under(&self, path: &[usize]) -> bool {
        self.args.iter().any(|p| p.starts_with(path))
            || self.refs.iter().any(|r| r.path.starts_with(path))
    }
}

/// One call against the target (or, with `to`, another deployed contract).
#[derive(Clone, Debug, PartialEq)]
pub struct Tx {
    pub function: Arc<Function>,
    pub args: Vec<DynSolValue>,
    pub sender: Address,
    pub value: U256,
    pub delay: Delay,
    /// Gas price in wei (`tx.gasprice`); 0 unless `maxGasprice` is set.
    pub gas_price: u128,
    /// Another deployed contract the call goes to (`allContracts`);
    /// `None`: the target.
    pub to: Option<Address>,
}

impl Tx {
    /// The canonical signature, e.g. `transfer(address,uint256)`.
    pub fn signature(&self) -> String {
        self.function.signature()
    }

    /// The function's selector (cached: see [`selector_of`]).
    pub fn selector(&self) -> alloy_primitives::Selector {
        selector_of(&self.function)
    }

    /// Selector followed by the ABI-encoded arguments.
    pub fn calldata(&self) -> Vec<u8> {
        if is_fallback(&self.function) {
            return Vec::new();
        }
        let mut data = self.selector().to_vec();
        match self.function.abi_encode_input_raw(&self.args) {
            Ok(args) => data.extend(args),
            // A `string` argument that is not UTF-8 is held as bytes (same
            // encoding), which the typed encoder refuses.
            Err(_) if self.args.len() == self.function.inputs.len() => {
                data.extend(DynSolValue::Tuple(self.args.clone()).abi_encode_params())
            }
            Err(_) => {}
        }
        data
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

/// The options block's entries of `tx` (`value: …`, `from: …`, …) that
/// differ from the defaults; `holes` prints `?` for a wildcard value or
/// sender.
pub fn call_options(
    tx: &Tx,
    default_sender: Option<Address>,
    holes: Option<&Holes>,
) -> Vec<String> {
    let mut opts = Vec::new();
    if holes.is_some_and(|h| h.value) {
        opts.push("value: ?".to_string());
    } else if !tx.value.is_zero() {
        opts.push(format!("value: {}", tx.value));
    }
    if holes.is_some_and(|h| h.sender) {
        opts.push("from: ?".to_string());
    } else if default_sender != Some(tx.sender) {
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
    if let Some(to) = tx.to {
        opts.push(format!("to: {}", to.to_checksum(None)));
    }
    opts
}

impl fmt::Display for TxDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tx = self.tx;
        let opts = call_options(tx, self.default_sender, None);
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
    /// The contract called when not the target (`allContracts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<Address>,
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
            to: tx.to,
        }
    }

    /// Rebuilds the call against `abis` (the target's ABI, or that of the
    /// contract at `to`).
    pub fn to_tx(&self, abis: Abis<'_>) -> Result<Tx, String> {
        let functions = abis.at(self.to).ok_or_else(|| {
            format!(
                "the call goes to {}, which is not one of the contracts this campaign calls (is allContracts on?)",
                self.to.unwrap_or_default()
            )
        })?;
        let function = functions
            .iter()
            .find(|f| f.signature() == self.signature)
            .ok_or_else(|| match self.to {
                None => format!("no function {} in the target's ABI", self.signature),
                Some(a) => format!(
                    "no function {} in the ABI of the contract at {a}",
                    self.signature
                ),
            })?;
        let data = alloy_primitives::hex::decode(&self.calldata)
            .map_err(|e| format!("calldata is not hex: {e}"))?;
        if data.len() < 4 || data[..4] != function.selector()[..] {
            return Err(format!(
                "calldata does not start with {}'s selector",
                self.signature
            ));
        }
        let args = decode_args(function, &data[4..])
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
            to: self.to,
        })
    }
}

impl StoredTx {
    /// Rebuilds the call from its own signature alone (no ABI needed: a
    /// corpus exported to another fuzzer's format, read without the
    /// target). The function's parameters are unnamed.
    pub fn to_tx_by_signature(&self) -> Result<Tx, String> {
        let function = Function::parse(&self.signature)
            .map_err(|e| format!("signature {:?}: {e}", self.signature))?;
        let functions = [Arc::new(function)];
        StoredTx {
            to: None,
            ..self.clone()
        }
        .to_tx(Abis::target_only(&functions))
        .map(|tx| Tx { to: self.to, ..tx })
    }
}

/// The arguments in `data` (calldata after the selector) as `function`'s
/// parameters. A `string` that is not UTF-8 comes back as the bytes it
/// was (the typed decoder would replace them with U+FFFD): any value is
/// worth sending, and a stored call must replay exactly.
pub fn decode_args(function: &Function, data: &[u8]) -> Result<Vec<DynSolValue>, String> {
    use alloy_dyn_abi::{DynSolType, Specifier};
    let types: Vec<DynSolType> = function
        .inputs
        .iter()
        .map(|p| p.resolve())
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    fn has_string(t: &DynSolType) -> bool {
        match t {
            DynSolType::String => true,
            DynSolType::Array(t) | DynSolType::FixedArray(t, _) => has_string(t),
            DynSolType::Tuple(ts) => ts.iter().any(has_string),
            _ => false,
        }
    }
    if !types.iter().any(has_string) {
        return function.abi_decode_input(data).map_err(|e| e.to_string());
    }
    fn as_bytes(t: &DynSolType) -> DynSolType {
        match t {
            DynSolType::String => DynSolType::Bytes,
            DynSolType::Array(t) => DynSolType::Array(Box::new(as_bytes(t))),
            DynSolType::FixedArray(t, n) => DynSolType::FixedArray(Box::new(as_bytes(t)), *n),
            DynSolType::Tuple(ts) => DynSolType::Tuple(ts.iter().map(as_bytes).collect()),
            t => t.clone(),
        }
    }
    fn restore(t: &DynSolType, v: DynSolValue) -> DynSolValue {
        match (t, v) {
            (DynSolType::String, DynSolValue::Bytes(b)) => match String::from_utf8(b) {
                Ok(s) => DynSolValue::String(s),
                Err(e) => DynSolValue::Bytes(e.into_bytes()),
            },
            (DynSolType::Array(t), DynSolValue::Array(vs)) => {
                DynSolValue::Array(vs.into_iter().map(|v| restore(t, v)).collect())
            }
            (DynSolType::FixedArray(t, _), DynSolValue::FixedArray(vs)) => {
                DynSolValue::FixedArray(vs.into_iter().map(|v| restore(t, v)).collect())
            }
            (DynSolType::Tuple(ts), DynSolValue::Tuple(vs)) => {
                DynSolValue::Tuple(ts.iter().zip(vs).map(|(t, v)| restore(t, v)).collect())
            }
            (_, v) => v,
        }
    }
    let raw = DynSolType::Tuple(types.iter().map(as_bytes).collect())
        .abi_decode_params(data)
        .map_err(|e| e.to_string())?;
    let DynSolValue::Tuple(vs) = raw else {
        return Err("arguments do not decode as a tuple".into());
    };
    Ok(types.iter().zip(vs).map(|(t, v)| restore(t, v)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::{CallDefaults, parse_txs};

    #[test]
    fn a_string_that_is_not_utf8_is_sent_printed_parsed_and_reloaded_as_it_was() {
        let f = Arc::new(Function::parse("function put(string s, uint8 k, string[] t)").unwrap());
        let raw = vec![0x61, 0xff, 0xfe, 0x00];
        let tx = Tx {
            function: f.clone(),
            args: vec![
                DynSolValue::Bytes(raw.clone()),
                DynSolValue::Uint(U256::from(7), 8),
                DynSolValue::Array(vec![
                    DynSolValue::String("ok".into()),
                    DynSolValue::Bytes(vec![0xc3]),
                ]),
            ],
            sender: Address::ZERO,
            value: U256::ZERO,
            delay: Delay::NONE,
            gas_price: 0,
            to: None,
        };
        // On chain: exactly what a `string` of those bytes is.
        let as_text = |b: &[u8]| DynSolValue::String(String::from_utf8_lossy(b).into_owned());
        let same_shape = f
            .abi_encode_input(&[
                as_text(&[0x61, 0x62, 0x63, 0x64]),
                DynSolValue::Uint(U256::from(7), 8),
                DynSolValue::Array(vec![as_text(b"ok"), as_text(b"x")]),
            ])
            .unwrap();
        let data = tx.calldata();
        assert_eq!(data.len(), same_shape.len());
        assert_eq!(&data[..4], &same_shape[..4]);
        assert!(data.windows(4).any(|w| w == raw.as_slice()));
        // Decoded back without U+FFFD.
        assert_eq!(decode_args(&f, &data[4..]).unwrap(), tx.args);
        // Stored and reloaded.
        let stored = StoredTx::from_tx(&tx, None);
        assert_eq!(
            stored
                .to_tx(Abis::target_only(std::slice::from_ref(&f)))
                .unwrap(),
            tx
        );
        // Printed as hex"…" and parsed back to the same bytes.
        let text = tx.call_string();
        assert_eq!(text, r#"put(hex"61fffe00", 7, ["ok", hex"c3"])"#);
        let defaults = CallDefaults {
            sender: Address::ZERO,
            value: U256::ZERO,
            others: Default::default(),
        };
        let parsed = parse_txs(&text, std::slice::from_ref(&f), &defaults).unwrap();
        assert_eq!(parsed[0].args, tx.args);
        assert_eq!(parsed[0].calldata(), data);
        // hex"…" that is UTF-8 is text again.
        let parsed = parse_txs(
            r#"put(hex"6869", 1, [])"#,
            std::slice::from_ref(&f),
            &defaults,
        )
        .unwrap();
        assert_eq!(parsed[0].args[0], DynSolValue::String("hi".into()));
    }
}
