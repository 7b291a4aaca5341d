//! Reading YAML values as config keys want them: each reader names the key
//! in its error and says what it found instead.

use super::{ConfigError, ConstructorArgs};
use alloy_primitives::{Address, U256};
use serde_yaml_ng::Value;

/// A YAML value as the literal the call parser reads (lists as `[a, b]`).
fn literal_text(key: &str, v: &Value) -> Result<String, ConfigError> {
    Ok(match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Sequence(items) => {
            let parts = items
                .iter()
                .map(|i| literal_text(key, i))
                .collect::<Result<Vec<_>, _>>()?;
            format!("[{}]", parts.join(", "))
        }
        other => {
            return Err(key_err(
                key,
                format!(
                    "expected a number, string, boolean or list, found {}",
                    describe(other)
                ),
            ));
        }
    })
}

pub(super) fn constructor_args(
    key: &str,
    v: &Value,
) -> Result<Vec<(String, ConstructorArgs)>, ConfigError> {
    let map = v.as_mapping().ok_or_else(|| {
        key_err(
            key,
            format!(
                "expected a mapping of contract name to arguments, found {}",
                describe(v)
            ),
        )
    })?;
    map.iter()
        .map(|(name, args)| {
            let name = as_string(key, name)?;
            let args = match args {
                Value::String(t) => ConstructorArgs::Text(t.clone()),
                Value::Sequence(items) => ConstructorArgs::List(
                    items
                        .iter()
                        .map(|i| literal_text(key, i))
                        .collect::<Result<_, _>>()?,
                ),
                Value::Mapping(m) => ConstructorArgs::Named(
                    m.iter()
                        .map(|(k, v)| Ok((as_string(key, k)?, literal_text(key, v)?)))
                        .collect::<Result<_, ConfigError>>()?,
                ),
                other => {
                    return Err(key_err(
                        key,
                        format!(
                            "{name}: expected a string of Solidity literals, a list or a mapping of parameter names, found {}",
                            describe(other)
                        ),
                    ));
                }
            };
            Ok((name, args))
        })
        .collect()
}

pub(super) fn key_err(key: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::Key {
        key: key.into(),
        message: message.into(),
    }
}

pub(super) fn describe(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}

pub(super) fn as_u64(key: &str, v: &Value) -> Result<u64, ConfigError> {
    match v {
        Value::Number(n) => n
            .as_u64()
            .ok_or_else(|| key_err(key, format!("expected a non-negative integer, found {n}"))),
        other => Err(key_err(
            key,
            format!("expected a non-negative integer, found {}", describe(other)),
        )),
    }
}

pub(super) fn as_bool(key: &str, v: &Value) -> Result<bool, ConfigError> {
    v.as_bool().ok_or_else(|| {
        key_err(
            key,
            format!("expected true or false, found {}", describe(v)),
        )
    })
}

pub(super) fn as_string(key: &str, v: &Value) -> Result<String, ConfigError> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| key_err(key, format!("expected a string, found {}", describe(v))))
}

/// An address written as hex of any length up to 40 digits (`0x10000`), or
/// as a YAML integer.
pub fn parse_address(key: &str, v: &Value) -> Result<Address, ConfigError> {
    let hex = match v {
        Value::String(s) => s
            .strip_prefix("0x")
            .or_else(|| s.strip_prefix("0X"))
            .ok_or_else(|| key_err(key, format!("expected a 0x-prefixed address, found {s:?}")))?
            .to_string(),
        Value::Number(n) => {
            let n = n
                .as_u64()
                .ok_or_else(|| key_err(key, format!("expected an address, found {n}")))?;
            format!("{n:x}")
        }
        other => {
            return Err(key_err(
                key,
                format!("expected an address, found {}", describe(other)),
            ));
        }
    };
    if hex.is_empty() || hex.len() > 40 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(key_err(
            key,
            format!("expected up to 40 hex digits after 0x, found {hex:?}"),
        ));
    }
    let padded = format!("{hex:0>40}");
    padded
        .parse::<Address>()
        .map_err(|e| key_err(key, format!("bad address: {e}")))
}

/// YAML readers refuse integers past 128 bits (and round past 64), but
/// Echidna configs write `maxValue` and balances as plain 10^30-style
/// integers or as hex literals past 64 bits (`balanceAddr:
/// 0x1043561a8829300000`): such scalars are quoted before parsing and read
/// as U256 (an address, 40 hex digits, reads the same quoted).
pub(super) fn quote_big_integers(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let ending = &line[body.len()..];
        if let Some((key, rest)) = body.split_once(':') {
            let (value, comment) = match rest.find('#') {
                Some(i) => (&rest[..i], &rest[i..]),
                None => (rest, ""),
            };
            let v = value.trim();
            if is_big_integer(v) && !key.contains(['"', '\'', '[']) {
                out.push_str(&format!("{key}: \"{v}\" {comment}"));
                out.push_str(ending);
                continue;
            }
        }
        out.push_str(line);
    }
    out
}

/// A YAML integer scalar a reader may not hold in 64 bits: more than 18
/// decimal digits, or more than 16 hex digits after `0x`.
fn is_big_integer(v: &str) -> bool {
    match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(hex) => hex.len() > 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()),
        None => v.len() > 18 && v.bytes().all(|b| b.is_ascii_digit()),
    }
}

pub(super) fn as_u256(key: &str, v: &Value) -> Result<U256, ConfigError> {
    match v {
        Value::Number(n) => n.as_u64().map(U256::from).ok_or_else(|| {
            key_err(
                key,
                format!("expected a non-negative integer of at most 256 bits, found {n}"),
            )
        }),
        Value::String(s) => s
            .parse::<U256>()
            .map_err(|e| key_err(key, format!("expected an integer, found {s:?} ({e})"))),
        other => Err(key_err(
            key,
            format!("expected an integer, found {}", describe(other)),
        )),
    }
}

pub(super) fn string_list(key: &str, v: &Value) -> Result<Vec<String>, ConfigError> {
    v.as_sequence()
        .ok_or_else(|| {
            key_err(
                key,
                format!("expected a list of strings, found {}", describe(v)),
            )
        })?
        .iter()
        .map(|s| as_string(key, s))
        .collect()
}

/// `[[address, x], …]` (Echidna's `deployContracts` / `deployBytecodes`).
pub(super) fn pairs(key: &str, v: &Value) -> Result<Vec<(Address, Value)>, ConfigError> {
    let list = v.as_sequence().ok_or_else(|| {
        key_err(
            key,
            format!(
                "expected a list of [address, value] pairs, found {}",
                describe(v)
            ),
        )
    })?;
    list.iter()
        .map(|p| match p.as_sequence().map(Vec::as_slice) {
            Some([a, x]) => Ok((parse_address(key, a)?, x.clone())),
            _ => Err(key_err(
                key,
                format!(
                    "each item must be an [address, value] pair, found {}",
                    describe(p)
                ),
            )),
        })
        .collect()
}
