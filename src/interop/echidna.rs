//! Echidna's transaction JSON, as its corpus directory holds it: one JSON
//! array of transactions per file, under `coverage/` (sequences that found
//! new coverage) and `reproducers/` (falsified tests), files named
//! `HASH.txt`.
//!
//! A transaction is `{call, src, dst, gas, gasprice, value, delay}` (the
//! older `_call`, `_src`, … form is read too). `call` is tagged:
//! `SolCall` holds the function's name and its arguments as hevm's ABI
//! values (`{"tag": "AbiUInt", "contents": [256, "42"]}`), `SolCalldata`
//! raw calldata, `NoCall` only lets time pass (its delay is added to the
//! next call's), `SolCreate` a deployment (not replayed). Words (`value`,
//! `gasprice`, the delay's seconds and blocks) are `0x`-prefixed hex;
//! integers inside ABI values are decimal; byte strings are Haskell's
//! `show` of a `ByteString` (`"\"ab\\NUL\\255\""`).
//!
//! A call goes to the target when `dst` is the target's address, else to
//! the deployed contract at `dst` (`allContracts`), and names its function
//! by the signature its values' types spell (`transfer(address,uint256)`).

use crate::tx::{Abis, Delay, Tx, decode_args};
use alloy_dyn_abi::{DynSolType, DynSolValue, Specifier};
use alloy_primitives::{Address, B256, I256, U256};
use serde_json::{Value, json};

/// The calls of one Echidna corpus or reproducer file, against `abis`,
/// with `target` the address Echidna's `dst` names the target by.
/// An error names the transaction (from 1) and what does not fit.
pub fn read(bytes: &[u8], abis: Abis<'_>, target: Address) -> Result<Vec<Tx>, String> {
    let v: Value = serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
    let txs = v
        .as_array()
        .ok_or("not a list of Echidna transactions (expected a JSON array)")?;
    let mut out = Vec::with_capacity(txs.len());
    // Time a `NoCall` let pass, carried to the next call.
    let mut wait = Delay::NONE;
    for (i, t) in txs.iter().enumerate() {
        let tx = read_tx(t, abis, target).map_err(|e| format!("transaction {}: {e}", i + 1))?;
        match tx {
            Read::Wait(d) => wait = add(wait, d),
            Read::Call(mut tx) => {
                tx.delay = add(wait, tx.delay);
                wait = Delay::NONE;
                out.push(tx);
            }
        }
    }
    Ok(out)
}

/// `txs` as an Echidna file's JSON: calls to the target go to `target`,
/// each with `gas`.
pub fn write(txs: &[Tx], target: Address, gas: u64) -> Value {
    Value::Array(txs.iter().map(|t| write_tx(t, target, gas)).collect())
}

enum Read {
    Call(Tx),
    Wait(Delay),
}

fn add(a: Delay, b: Delay) -> Delay {
    Delay {
        seconds: a.seconds.saturating_add(b.seconds),
        blocks: a.blocks.saturating_add(b.blocks),
    }
}

/// The field `name`, or its older spelling.
fn field<'a>(o: &'a Value, name: &str, legacy: &str) -> Result<&'a Value, String> {
    o.get(name)
        .or_else(|| o.get(legacy))
        .ok_or_else(|| format!("no `{name}`"))
}

fn read_tx(t: &Value, abis: Abis<'_>, target: Address) -> Result<Read, String> {
    if !t.is_object() {
        return Err("not a transaction object".into());
    }
    let src = address(field(t, "src", "_src")?).map_err(|e| format!("src: {e}"))?;
    let dst = address(field(t, "dst", "_dst")?).map_err(|e| format!("dst: {e}"))?;
    let value = word(field(t, "value", "_value")?).map_err(|e| format!("value: {e}"))?;
    let gas_price = word(field(t, "gasprice", "_gasprice'")?)
        .and_then(|w| u128::try_from(w).map_err(|_| "over 128 bits".to_string()))
        .map_err(|e| format!("gasprice: {e}"))?;
    let delay = match field(t, "delay", "_delay")?.as_array().map(Vec::as_slice) {
        Some([s, b]) => {
            let small = |v: &Value| {
                word(v).and_then(|w| u64::try_from(w).map_err(|_| "over 64 bits".to_string()))
            };
            Delay {
                seconds: small(s).map_err(|e| format!("delay: {e}"))?,
                blocks: small(b).map_err(|e| format!("delay: {e}"))?,
            }
        }
        _ => return Err("delay: expected [seconds, blocks]".into()),
    };
    let call = field(t, "call", "_call")?;
    if tag(call)? == "NoCall" {
        return Ok(Read::Wait(delay));
    }
    let to = (dst != target).then_some(dst);
    let functions = abis.at(to).ok_or_else(|| {
        format!("dst {dst} is neither the target ({target}) nor a contract this campaign calls (is allContracts on?)")
    })?;
    let where_ = || match to {
        None => "the target's ABI".to_string(),
        Some(a) => format!("the ABI of the contract at {a}"),
    };
    let (function, args) = match tag(call)? {
        "SolCreate" => return Err("a contract creation (SolCreate) is not replayed".into()),
        "SolCall" => {
            let Some([name, values]) = call
                .get("contents")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
            else {
                return Err("SolCall: expected [name, [values]]".into());
            };
            let name = name.as_str().ok_or("SolCall: the name is not a string")?;
            let values = values
                .as_array()
                .ok_or("SolCall: the values are not a list")?;
            let (args, types): (Vec<_>, Vec<_>) = (values.iter().enumerate())
                .map(|(k, v)| abi_value(v).map_err(|e| format!("{name} argument {}: {e}", k + 1)))
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .unzip();
            let signature = format!(
                "{name}({})",
                types
                    .iter()
                    .map(|t| t.sol_type_name())
                    .collect::<Vec<_>>()
                    .join(",")
            );
            let function = (functions.iter())
                .find(|f| f.signature() == signature)
                .ok_or_else(|| format!("no function {signature} in {}", where_()))?;
            (function.clone(), args)
        }
        "SolCalldata" => {
            let data = unshow(string(call.get("contents"))?)?;
            let function = (functions.iter())
                .find(|f| data.len() >= 4 && f.selector()[..] == data[..4])
                .ok_or_else(|| format!("calldata matches no function of {}", where_()))?;
            let args = decode_args(function, &data[4..]).map_err(|e| {
                format!("calldata does not decode as {}: {e}", function.signature())
            })?;
            (function.clone(), args)
        }
        other => return Err(format!("unknown call tag {other:?}")),
    };
    Ok(Read::Call(Tx {
        function,
        args,
        sender: src,
        value,
        delay,
        gas_price,
        to,
    }))
}

fn tag(v: &Value) -> Result<&str, String> {
    v.get("tag")
        .and_then(Value::as_str)
        .ok_or_else(|| "expected an object with a `tag`".to_string())
}

fn string(v: Option<&Value>) -> Result<&str, String> {
    v.and_then(Value::as_str)
        .ok_or_else(|| "expected a string".to_string())
}

/// A 256-bit word: hevm writes `0x` and 64 hex digits; a decimal string
/// or a JSON number is taken too (older files write gas as a number).
fn word(v: &Value) -> Result<U256, String> {
    match v {
        Value::String(s) => match s.strip_prefix("0x") {
            Some("") => Ok(U256::ZERO),
            Some(h) => U256::from_str_radix(h, 16).map_err(|e| format!("{s:?}: {e}")),
            None => s.parse::<U256>().map_err(|e| format!("{s:?}: {e}")),
        },
        Value::Number(n) => n
            .as_u64()
            .map(U256::from)
            .ok_or_else(|| format!("{n} is not a word")),
        _ => Err(format!("expected a hex word, found {v}")),
    }
}

fn address(v: &Value) -> Result<Address, String> {
    let s = v
        .as_str()
        .ok_or_else(|| format!("expected an address, found {v}"))?;
    s.parse::<Address>().map_err(|e| format!("{s:?}: {e}"))
}

/// `{"tag": "AbiUIntType", "contents": 256}` as a type.
fn abi_type(v: &Value) -> Result<DynSolType, String> {
    let c = v.get("contents");
    let size = |c: Option<&Value>| {
        c.and_then(Value::as_u64)
            .map(|n| n as usize)
            .ok_or_else(|| format!("{}: expected a size", tag(v).unwrap_or("?")))
    };
    Ok(match tag(v)? {
        "AbiUIntType" => DynSolType::Uint(size(c)?),
        "AbiIntType" => DynSolType::Int(size(c)?),
        "AbiAddressType" => DynSolType::Address,
        "AbiBoolType" => DynSolType::Bool,
        "AbiBytesType" => DynSolType::FixedBytes(size(c)?),
        "AbiBytesDynamicType" => DynSolType::Bytes,
        "AbiStringType" => DynSolType::String,
        "AbiFunctionType" => DynSolType::Function,
        "AbiArrayDynamicType" => DynSolType::Array(Box::new(abi_type(
            c.ok_or("AbiArrayDynamicType: no element type")?,
        )?)),
        "AbiArrayType" => match c.and_then(Value::as_array).map(Vec::as_slice) {
            Some([n, t]) => DynSolType::FixedArray(Box::new(abi_type(t)?), size(Some(n))?),
            _ => return Err("AbiArrayType: expected [size, type]".into()),
        },
        "AbiTupleType" => DynSolType::Tuple(
            (c.and_then(Value::as_array)
                .ok_or("AbiTupleType: expected a list")?
                .iter())
            .map(abi_type)
            .collect::<Result<_, _>>()?,
        ),
        other => return Err(format!("unknown ABI type {other:?}")),
    })
}

/// One of hevm's ABI values, with its type.
fn abi_value(v: &Value) -> Result<(DynSolValue, DynSolType), String> {
    let c = v.get("contents");
    let pair = || match c.and_then(Value::as_array).map(Vec::as_slice) {
        Some([n, x]) => n
            .as_u64()
            .map(|n| (n as usize, x))
            .ok_or_else(|| "expected [size, value]".to_string()),
        _ => Err("expected [size, value]".to_string()),
    };
    Ok(match tag(v)? {
        "AbiUInt" => {
            let (n, x) = pair()?;
            let x = string(Some(x))?;
            let u = x.parse::<U256>().map_err(|e| format!("{x:?}: {e}"))?;
            (DynSolValue::Uint(u, n), DynSolType::Uint(n))
        }
        "AbiInt" => {
            let (n, x) = pair()?;
            let x = string(Some(x))?;
            let i = I256::from_dec_str(x).map_err(|e| format!("{x:?}: {e}"))?;
            (DynSolValue::Int(i, n), DynSolType::Int(n))
        }
        "AbiAddress" => (
            DynSolValue::Address(address(c.unwrap_or(&Value::Null))?),
            DynSolType::Address,
        ),
        "AbiBool" => (
            DynSolValue::Bool(c.and_then(Value::as_bool).ok_or("expected a bool")?),
            DynSolType::Bool,
        ),
        "AbiBytes" => {
            let (n, x) = pair()?;
            let b = unshow(string(Some(x))?)?;
            if b.len() != n || n > 32 {
                return Err(format!("bytes{n} holding {} bytes", b.len()));
            }
            let mut w = B256::ZERO;
            w[..n].copy_from_slice(&b);
            (DynSolValue::FixedBytes(w, n), DynSolType::FixedBytes(n))
        }
        "AbiBytesDynamic" => (DynSolValue::Bytes(unshow(string(c)?)?), DynSolType::Bytes),
        "AbiString" => {
            // A string that is not UTF-8 is sent as the bytes it was (the
            // encoding is the same).
            let s = match String::from_utf8(unshow(string(c)?)?) {
                Ok(s) => DynSolValue::String(s),
                Err(e) => DynSolValue::Bytes(e.into_bytes()),
            };
            (s, DynSolType::String)
        }
        "AbiArrayDynamic" => match c.and_then(Value::as_array).map(Vec::as_slice) {
            Some([t, xs]) => {
                let t = abi_type(t)?;
                let xs = elements(xs, &t)?;
                (DynSolValue::Array(xs), DynSolType::Array(Box::new(t)))
            }
            _ => return Err("AbiArrayDynamic: expected [type, values]".into()),
        },
        "AbiArray" => match c.and_then(Value::as_array).map(Vec::as_slice) {
            Some([n, t, xs]) => {
                let n = n.as_u64().ok_or("AbiArray: expected a size")? as usize;
                let t = abi_type(t)?;
                let xs = elements(xs, &t)?;
                if xs.len() != n {
                    return Err(format!("AbiArray of {n} holding {}", xs.len()));
                }
                (
                    DynSolValue::FixedArray(xs),
                    DynSolType::FixedArray(Box::new(t), n),
                )
            }
            _ => return Err("AbiArray: expected [size, type, values]".into()),
        },
        "AbiTuple" => {
            let (xs, ts): (Vec<_>, Vec<_>) = (c
                .and_then(Value::as_array)
                .ok_or("AbiTuple: expected a list")?
                .iter())
            .map(abi_value)
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .unzip();
            (DynSolValue::Tuple(xs), DynSolType::Tuple(ts))
        }
        "AbiFunction" => match c.and_then(Value::as_array).map(Vec::as_slice) {
            Some([a, sel]) => {
                let a = address(a)?;
                let sel = string(Some(sel))?;
                let s = u32::from_str_radix(sel.trim_start_matches("0x"), 16)
                    .map_err(|e| format!("selector {sel:?}: {e}"))?;
                let mut f = [0u8; 24];
                f[..20].copy_from_slice(a.as_slice());
                f[20..].copy_from_slice(&s.to_be_bytes());
                (
                    DynSolValue::Function(alloy_primitives::Function::from(f)),
                    DynSolType::Function,
                )
            }
            _ => return Err("AbiFunction: expected [address, selector]".into()),
        },
        other => return Err(format!("unknown ABI value {other:?}")),
    })
}

/// An array's values, each of type `t`.
fn elements(xs: &Value, t: &DynSolType) -> Result<Vec<DynSolValue>, String> {
    (xs.as_array().ok_or("expected a list of values")?.iter())
        .map(|x| {
            let (v, vt) = abi_value(x)?;
            if &vt != t {
                return Err(format!(
                    "a {} in an array of {}",
                    vt.sol_type_name(),
                    t.sol_type_name()
                ));
            }
            Ok(v)
        })
        .collect()
}

fn write_tx(tx: &Tx, target: Address, gas: u64) -> Value {
    let types: Vec<DynSolType> = (tx.function.inputs.iter())
        .map(|p| p.resolve())
        .collect::<Result<_, _>>()
        .unwrap_or_else(|_| tx.args.iter().filter_map(DynSolValue::as_type).collect());
    let values: Vec<Value> = (tx.args.iter().zip(&types))
        .map(|(v, t)| write_value(v, t))
        .collect();
    json!({
        "call": {"tag": "SolCall", "contents": [tx.function.name, values]},
        "src": tx.sender.to_checksum(None),
        "dst": tx.to.unwrap_or(target).to_checksum(None),
        "gas": gas,
        "gasprice": hex_word(U256::from(tx.gas_price)),
        "value": hex_word(tx.value),
        "delay": [hex_word(U256::from(tx.delay.seconds)), hex_word(U256::from(tx.delay.blocks))],
    })
}

fn hex_word(w: U256) -> String {
    alloy_primitives::hex::encode_prefixed(w.to_be_bytes::<32>())
}

fn write_type(t: &DynSolType) -> Value {
    match t {
        DynSolType::Uint(n) => json!({"tag": "AbiUIntType", "contents": n}),
        DynSolType::Int(n) => json!({"tag": "AbiIntType", "contents": n}),
        DynSolType::Address => json!({"tag": "AbiAddressType"}),
        DynSolType::Bool => json!({"tag": "AbiBoolType"}),
        DynSolType::FixedBytes(n) => json!({"tag": "AbiBytesType", "contents": n}),
        DynSolType::Bytes => json!({"tag": "AbiBytesDynamicType"}),
        DynSolType::String => json!({"tag": "AbiStringType"}),
        DynSolType::Function => json!({"tag": "AbiFunctionType"}),
        DynSolType::Array(t) => json!({"tag": "AbiArrayDynamicType", "contents": write_type(t)}),
        DynSolType::FixedArray(t, n) => {
            json!({"tag": "AbiArrayType", "contents": [n, write_type(t)]})
        }
        DynSolType::Tuple(ts) => {
            json!({"tag": "AbiTupleType", "contents": ts.iter().map(write_type).collect::<Vec<_>>()})
        }
        #[allow(unreachable_patterns)]
        other => json!({"tag": "AbiTupleType", "contents": other.sol_type_name()}),
    }
}

fn write_value(v: &DynSolValue, t: &DynSolType) -> Value {
    let inner = |t: &DynSolType| match t {
        DynSolType::Array(e) | DynSolType::FixedArray(e, _) => (**e).clone(),
        t => t.clone(),
    };
    match v {
        DynSolValue::Uint(u, n) => json!({"tag": "AbiUInt", "contents": [n, u.to_string()]}),
        DynSolValue::Int(i, n) => json!({"tag": "AbiInt", "contents": [n, i.to_string()]}),
        DynSolValue::Address(a) => json!({"tag": "AbiAddress", "contents": a.to_checksum(None)}),
        DynSolValue::Bool(b) => json!({"tag": "AbiBool", "contents": b}),
        DynSolValue::FixedBytes(w, n) => {
            json!({"tag": "AbiBytes", "contents": [n, show(&w[..*n])]})
        }
        // A string held as bytes (not UTF-8) is still a string to the ABI.
        DynSolValue::Bytes(b) if *t == DynSolType::String => {
            json!({"tag": "AbiString", "contents": show(b)})
        }
        DynSolValue::Bytes(b) => json!({"tag": "AbiBytesDynamic", "contents": show(b)}),
        DynSolValue::String(s) => json!({"tag": "AbiString", "contents": show(s.as_bytes())}),
        DynSolValue::Array(xs) => {
            let e = inner(t);
            let xs: Vec<Value> = xs.iter().map(|x| write_value(x, &e)).collect();
            json!({"tag": "AbiArrayDynamic", "contents": [write_type(&e), xs]})
        }
        DynSolValue::FixedArray(xs) => {
            let e = inner(t);
            let items: Vec<Value> = xs.iter().map(|x| write_value(x, &e)).collect();
            json!({"tag": "AbiArray", "contents": [xs.len(), write_type(&e), items]})
        }
        DynSolValue::Tuple(xs) => {
            let ts: Vec<DynSolType> = match t {
                DynSolType::Tuple(ts) => ts.clone(),
                _ => xs.iter().filter_map(DynSolValue::as_type).collect(),
            };
            let items: Vec<Value> = xs.iter().zip(&ts).map(|(x, t)| write_value(x, t)).collect();
            json!({"tag": "AbiTuple", "contents": items})
        }
        DynSolValue::Function(f) => {
            let (a, s) = f.as_address_and_selector();
            json!({"tag": "AbiFunction", "contents": [a.to_checksum(None), format!("0x{:x}", u32::from_be_bytes(s.0))]})
        }
        #[allow(unreachable_patterns)]
        other => json!({"tag": "AbiBytesDynamic", "contents": show(&other.abi_encode())}),
    }
}

/// The ASCII control characters' names, as Haskell escapes them.
const CONTROL: [&str; 32] = [
    "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR",
    "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC",
    "FS", "GS", "RS", "US",
];

/// Haskell's `show` of a byte string: printable ASCII as itself, `\"` and
/// `\\`, `\n`-style and `\NUL`-style escapes for control characters,
/// `\DEL`, and bytes over 127 in decimal (`\255`); `\&` separates an
/// escape from a character that would extend it.
pub fn show(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() + 2);
    s.push('"');
    // The previous escape was numeric (a digit would extend it) or `\SO`
    // (an `H` would make it `\SOH`).
    let mut numeric = false;
    let mut so = false;
    for &b in bytes {
        if (numeric && b.is_ascii_digit()) || (so && b == b'H') {
            s.push_str("\\&");
        }
        numeric = false;
        so = false;
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(b as char),
            7 => s.push_str("\\a"),
            8 => s.push_str("\\b"),
            9 => s.push_str("\\t"),
            10 => s.push_str("\\n"),
            11 => s.push_str("\\v"),
            12 => s.push_str("\\f"),
            13 => s.push_str("\\r"),
            0x7f => s.push_str("\\DEL"),
            0..=31 => {
                s.push('\\');
                s.push_str(CONTROL[b as usize]);
                so = b == 14;
            }
            _ => {
                s.push('\\');
                s.push_str(&b.to_string());
                numeric = true;
            }
        }
    }
    s.push('"');
    s
}

/// The bytes of a Haskell string literal as `show` writes them (the
/// inverse of [`show`], and of every escape Haskell reads: numeric in
/// decimal, `\x` hex and `\o` octal, `\^A`, and the ASCII names).
pub fn unshow(s: &str) -> Result<Vec<u8>, String> {
    let inner = s
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .ok_or_else(|| format!("{s:?}: not a quoted byte string"))?;
    let b = inner.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let bad = |why: &str| format!("{s:?}: {why}");
    while i < b.len() {
        if b[i] != b'\\' {
            let c = inner[i..].chars().next().unwrap_or('\0');
            let code = u32::from(c);
            if code > 255 {
                return Err(bad("a character over 255 in a byte string"));
            }
            out.push(code as u8);
            i += c.len_utf8();
            continue;
        }
        i += 1;
        let Some(&e) = b.get(i) else {
            return Err(bad("ends with a lone backslash"));
        };
        let digits = |i: &mut usize, radix: u32| -> Result<u8, String> {
            let start = *i;
            while *i < b.len() && (b[*i] as char).is_digit(radix) {
                *i += 1;
            }
            u32::from_str_radix(&inner[start..*i], radix)
                .ok()
                .and_then(|n| u8::try_from(n).ok())
                .ok_or_else(|| bad("a numeric escape over 255 or without digits"))
        };
        match e {
            b'0'..=b'9' => out.push(digits(&mut i, 10)?),
            b'x' => {
                i += 1;
                out.push(digits(&mut i, 16)?);
            }
            b'o' => {
                i += 1;
                out.push(digits(&mut i, 8)?);
            }
            b'^' => {
                let c = *b.get(i + 1).ok_or_else(|| bad("`\\^` at the end"))?;
                if !(b'@'..=b'_').contains(&c) {
                    return Err(bad("`\\^` before a character outside @..._"));
                }
                out.push(c - b'@');
                i += 2;
            }
            b'&' => i += 1,
            _ => {
                let simple = match e {
                    b'a' => Some(7),
                    b'b' => Some(8),
                    b't' => Some(9),
                    b'n' => Some(10),
                    b'v' => Some(11),
                    b'f' => Some(12),
                    b'r' => Some(13),
                    b'\\' | b'"' | b'\'' => Some(e),
                    _ => None,
                };
                if let Some(c) = simple {
                    out.push(c);
                    i += 1;
                    continue;
                }
                // The longest name that matches (`\SOH` before `\SO`).
                let rest = &inner[i..];
                let named = (CONTROL.iter().enumerate())
                    .map(|(k, n)| (*n, k as u8))
                    .chain([("SP", b' '), ("DEL", 0x7f)])
                    .filter(|(n, _)| rest.starts_with(n))
                    .max_by_key(|(n, _)| n.len())
                    .ok_or_else(|| bad("an unknown escape"))?;
                out.push(named.1);
                i += named.0.len();
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_json_abi::Function;
    use std::sync::Arc;

    #[test]
    fn byte_strings_read_as_haskell_shows_them_and_back() {
        for (text, bytes) in [
            (r#""""#, &b""[..]),
            (r#""ab""#, b"ab"),
            (r#""\NUL\SOH\DEL\255""#, b"\x00\x01\x7f\xff"),
            (r#""\200\&2""#, b"\xc82"),
            (r#""\SO\&H""#, b"\x0eH"),
            (r#""\SOH""#, b"\x01"),
            (r#""\"\\\n\t""#, b"\"\\\n\t"),
        ] {
            assert_eq!(unshow(text).unwrap(), bytes, "{text}");
            assert_eq!(show(bytes), text, "{text}");
        }
        assert_eq!(
            unshow(r#""\x41\o101\^A\SP\1\&2""#).unwrap(),
            b"AA\x01 \x012"
        );
        for bad in [r#"ab"#, r#""\256""#, r#""\Q""#, r#""\""#] {
            assert!(unshow(bad).is_err(), "{bad}");
        }
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(unshow(&show(&all)).unwrap(), all);
    }

    fn abi() -> Vec<Arc<Function>> {
        [
            "function transfer(address to, uint256 amount)",
            "function put(bytes3 k, bytes b, string s, int8 i, bool f)",
            "function many(uint256[] a, (uint8,address)[2] t)",
        ]
        .iter()
        .map(|s| Arc::new(Function::parse(s).unwrap()))
        .collect()
    }

    const TARGET: Address = alloy_primitives::address!("00a329c0648769a73afac7f9381e08fb43dbea72");

    #[test]
    fn echidnas_transactions_are_read_and_written_back_as_they_were() {
        let functions = abi();
        let abis = Abis::target_only(&functions);
        let file = r#"[
          {"call":{"tag":"NoCall"},"src":"0x0000000000000000000000000000000000010000",
           "dst":"0x0000000000000000000000000000000000000000","gas":12500000,
           "gasprice":"0x0000000000000000000000000000000000000000000000000000000000000000",
           "value":"0x0000000000000000000000000000000000000000000000000000000000000000",
           "delay":["0x0000000000000000000000000000000000000000000000000000000000000005","0x0000000000000000000000000000000000000000000000000000000000000001"]},
          {"call":{"tag":"SolCall","contents":["transfer",[{"tag":"AbiAddress","contents":"0x00000000000000000000000000000000DeaDBeef"},{"tag":"AbiUInt","contents":[256,"100"]}]]},
           "src":"0x0000000000000000000000000000000000020000","dst":"0x00a329c0648769A73afAc7F9381E08FB43dBEA72","gas":12500000,
           "gasprice":"0x0000000000000000000000000000000000000000000000000000000000000000",
           "value":"0x0000000000000000000000000000000000000000000000000000000000000007",
           "delay":["0x0000000000000000000000000000000000000000000000000000000000000010","0x0000000000000000000000000000000000000000000000000000000000000002"]},
          {"_call":{"tag":"SolCall","contents":["put",[{"tag":"AbiBytes","contents":[3,"\"a\\NULb\""]},{"tag":"AbiBytesDynamic","contents":"\"\\255\""},{"tag":"AbiString","contents":"\"hi\""},{"tag":"AbiInt","contents":[8,"-3"]},{"tag":"AbiBool","contents":true}]]},
           "_src":"0x0000000000000000000000000000000000030000","_dst":"0x00a329c0648769A73afAc7F9381E08FB43dBEA72","_gas'":"0xbebc20",
           "_gasprice'":"0x00","_value":"0x00","_delay":["0x00","0x00"]},
          {"call":{"tag":"SolCall","contents":["many",[{"tag":"AbiArrayDynamic","contents":[{"tag":"AbiUIntType","contents":256},[{"tag":"AbiUInt","contents":[256,"1"]}]]},{"tag":"AbiArray","contents":[2,{"tag":"AbiTupleType","contents":[{"tag":"AbiUIntType","contents":8},{"tag":"AbiAddressType"}]},[{"tag":"AbiTuple","contents":[{"tag":"AbiUInt","contents":[8,"1"]},{"tag":"AbiAddress","contents":"0x0000000000000000000000000000000000000001"}]},{"tag":"AbiTuple","contents":[{"tag":"AbiUInt","contents":[8,"2"]},{"tag":"AbiAddress","contents":"0x0000000000000000000000000000000000000002"}]}]]}]]},
           "src":"0x0000000000000000000000000000000000010000","dst":"0x00a329c0648769A73afAc7F9381E08FB43dBEA72","gas":1,
           "gasprice":"0x0000000000000000000000000000000000000000000000000000000000000003","value":"0x00","delay":["0x00","0x00"]}
        ]"#;
        let txs = read(file.as_bytes(), abis, TARGET).unwrap();
        let calls: Vec<String> = txs.iter().map(|t| t.call_string()).collect();
        assert_eq!(calls.len(), 3, "{calls:?}");
        assert!(
            calls[0].starts_with("transfer(0x00000000000000000000000000000000DeaDBeef, 100)"),
            "{}",
            calls[0]
        );
        // The NoCall's time passes before the next call.
        assert_eq!((txs[0].delay.seconds, txs[0].delay.blocks), (21, 3));
        assert_eq!(txs[0].value, U256::from(7));
        assert_eq!(
            txs[0].sender,
            alloy_primitives::address!("0000000000000000000000000000000000020000")
        );
        assert_eq!(txs[0].to, None);
        let mut w = B256::ZERO;
        w[..3].copy_from_slice(b"a\0b");
        assert_eq!(txs[1].args[0], DynSolValue::FixedBytes(w, 3));
        assert_eq!(txs[1].args[1], DynSolValue::Bytes(vec![0xff]));
        assert_eq!(
            txs[1].args[3],
            DynSolValue::Int(I256::try_from(-3).unwrap(), 8)
        );
        assert_eq!(txs[2].gas_price, 3);
        // Written back and read again: the same calls.
        let again = write(&txs, TARGET, 12_500_000);
        let back = read(again.to_string().as_bytes(), abis, TARGET).unwrap();
        assert_eq!(back, txs);
    }

    #[test]
    fn what_does_not_fit_is_named_with_its_transaction() {
        let functions = abi();
        let abis = Abis::target_only(&functions);
        let one = |call: &str, dst: &str| {
            format!(
                r#"[{{"call":{call},"src":"0x0000000000000000000000000000000000010000","dst":"{dst}","gas":1,"gasprice":"0x00","value":"0x00","delay":["0x00","0x00"]}}]"#
            )
        };
        let t = "0x00a329c0648769A73afAc7F9381E08FB43dBEA72";
        for (file, want) in [
            (
                one(r#"{"tag":"SolCall","contents":["nope",[]]}"#, t),
                "transaction 1: no function nope() in the target's ABI",
            ),
            (
                one(
                    r#"{"tag":"SolCall","contents":["transfer",[{"tag":"AbiUInt","contents":[256,"1"]}]]}"#,
                    t,
                ),
                "no function transfer(uint256)",
            ),
            (
                one(r#"{"tag":"SolCreate","contents":"\"\""}"#, t),
                "SolCreate",
            ),
            (
                one(
                    r#"{"tag":"SolCall","contents":["nope",[]]}"#,
                    "0x0000000000000000000000000000000000000009",
                ),
                "dst 0x0000000000000000000000000000000000000009 is neither the target",
            ),
            (
                one(
                    r#"{"tag":"SolCall","contents":["transfer",[{"tag":"AbiWhat","contents":1}]]}"#,
                    t,
                ),
                "unknown ABI value \"AbiWhat\"",
            ),
            ("{}".to_string(), "not a list of Echidna transactions"),
            ("[{\"call\": 1}]".to_string(), "transaction 1: no `src`"),
        ] {
            let e = read(file.as_bytes(), abis, TARGET).unwrap_err();
            assert!(e.contains(want), "{e} lacks {want}");
        }
    }
}
