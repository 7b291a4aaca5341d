//! `vm.env*` and `vm.envOr`: environment variables parsed as forge parses
//! them (decimal or `0x` hex numbers, `true`/`false`, 20-byte addresses,
//! 32-byte words, hex bytes, strings). `envOr` answers its default when the
//! variable is missing or does not parse; the others revert naming it.

use super::*;

/// The type an `env*` cheatcode reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum EnvType {
    Bool,
    Uint,
    Int,
    Address,
    Bytes32,
    String,
    Bytes,
}

impl EnvType {
    fn solidity(self) -> &'static str {
        match self {
            EnvType::Bool => "bool",
            EnvType::Uint => "uint256",
            EnvType::Int => "int256",
            EnvType::Address => "address",
            EnvType::Bytes32 => "bytes32",
            EnvType::String => "string",
            EnvType::Bytes => "bytes",
        }
    }

    fn cheat_name(self) -> &'static str {
        match self {
            EnvType::Bool => "envBool",
            EnvType::Uint => "envUint",
            EnvType::Int => "envInt",
            EnvType::Address => "envAddress",
            EnvType::Bytes32 => "envBytes32",
            EnvType::String => "envString",
            EnvType::Bytes => "envBytes",
        }
    }

    const ALL: [EnvType; 7] = [
        EnvType::Bool,
        EnvType::Uint,
        EnvType::Int,
        EnvType::Address,
        EnvType::Bytes32,
        EnvType::String,
        EnvType::Bytes,
    ];
}

/// Every `env*` signature rudder answers: `envX(string)` and
/// `envOr(string,T)` for each type, and `envExists(string)`.
pub(super) fn env_signatures() -> Vec<(String, Cheat)> {
    let mut out = vec![("envExists(string)(bool)".to_string(), Cheat::EnvExists)];
    for t in EnvType::ALL {
        let ty = t.solidity();
        out.push((format!("{}(string)({ty})", t.cheat_name()), Cheat::Env(t)));
        out.push((format!("envOr(string,{ty})({ty})"), Cheat::EnvOr(t)));
        if t != EnvType::String {
            let name = &t.cheat_name()[3..];
            out.push((format!("parse{name}(string)({ty})"), Cheat::Parse(t)));
        }
    }
    out
}

/// `parseX(text)`: `text` as `ty`, as the `env*` cheatcodes read values.
pub(super) fn parse_text(ty: EnvType, text: &str) -> Result<DynSolValue, String> {
    parse(ty, text).ok_or_else(|| {
        format!(
            "vm.parse{}: failed parsing \"{text}\" as type `{}`",
            &ty.cheat_name()[3..],
            ty.solidity()
        )
    })
}

/// The value `raw` of variable `name` as `ty`, or why not.
pub(super) fn read(ty: EnvType, name: &str, raw: Option<String>) -> Result<DynSolValue, String> {
    let cheat = ty.cheat_name();
    let raw =
        raw.ok_or_else(|| format!("vm.{cheat}: environment variable \"{name}\" not found"))?;
    parse(ty, &raw).ok_or_else(|| {
        format!(
            "vm.{cheat}: failed parsing ${name} as type `{}`",
            ty.solidity()
        )
    })
}

/// `envOr`: the variable's value `raw`, or `default` when it is missing
/// or does not parse.
pub(super) fn read_or(ty: EnvType, raw: Option<String>, default: &DynSolValue) -> DynSolValue {
    raw.and_then(|raw| parse(ty, &raw))
        .unwrap_or_else(|| default.clone())
}

fn parse(ty: EnvType, raw: &str) -> Option<DynSolValue> {
    let s = raw.trim();
    let hex_bytes = |s: &str| hex::decode(s.strip_prefix("0x").unwrap_or(s)).ok();
    Some(match ty {
        EnvType::Bool => match s.to_ascii_lowercase().as_str() {
            "true" | "1" => DynSolValue::Bool(true),
            "false" | "0" => DynSolValue::Bool(false),
            _ => return None,
        },
        EnvType::Uint => DynSolValue::Uint(parse_uint(s)?, 256),
        EnvType::Int => {
            let (neg, digits) = match s.strip_prefix('-') {
                Some(d) => (true, d),
                None => (false, s.strip_prefix('+').unwrap_or(s)),
            };
            let m = alloy_primitives::I256::try_from(parse_uint(digits)?).ok()?;
            DynSolValue::Int(if neg { -m } else { m }, 256)
        }
        EnvType::Address => {
            let b = hex_bytes(s)?;
            (b.len() == 20).then(|| DynSolValue::Address(Address::from_slice(&b)))?
        }
        EnvType::Bytes32 => {
            let b = hex_bytes(s)?;
            (b.len() == 32).then(|| DynSolValue::FixedBytes(B256::from_slice(&b), 32))?
        }
        EnvType::String => {
            let unquoted = s
                .strip_prefix('"')
                .and_then(|x| x.strip_suffix('"'))
                .unwrap_or(raw.trim_end());
            DynSolValue::String(unquoted.to_string())
        }
        EnvType::Bytes => DynSolValue::Bytes(hex_bytes(s)?),
    })
}

/// A decimal or `0x`-prefixed hexadecimal uint256.
fn parse_uint(s: &str) -> Option<U256> {
    let digits = s.trim_start_matches("0x").trim_start_matches("0X");
    if digits.is_empty() {
        return None;
    }
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => U256::from_str_radix(h, 16).ok(),
        None => U256::from_str_radix(s, 10).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_parse_as_forge_parses_them() {
        let u = |s| parse(EnvType::Uint, s);
        assert_eq!(u("42"), Some(DynSolValue::Uint(U256::from(42), 256)));
        assert_eq!(u("0x2a"), Some(DynSolValue::Uint(U256::from(42), 256)));
        assert_eq!(u("2a"), None);
        assert_eq!(u("-1"), None);
        assert_eq!(u(""), None);
        assert_eq!(u("0x"), None);
        assert_eq!(parse(EnvType::Int, "-"), None);
        assert_eq!(parse(EnvType::Bytes32, "0x12"), None);
        let i = parse(EnvType::Int, "-5").unwrap();
        assert_eq!(i.as_int().unwrap().0.to_string(), "-5");
        assert_eq!(parse(EnvType::Bool, "TRUE"), Some(DynSolValue::Bool(true)));
        assert_eq!(parse(EnvType::Bool, "yes"), None);
        let a = parse(
            EnvType::Address,
            "0x00000000000000000000000000000000000000aB",
        )
        .unwrap();
        assert_eq!(a.as_address().unwrap(), Address::with_last_byte(0xab));
        assert_eq!(parse(EnvType::Address, "0x12"), None);
        assert_eq!(
            parse(EnvType::String, "\"quoted\""),
            Some(DynSolValue::String("quoted".into()))
        );
        assert_eq!(
            parse(EnvType::Bytes, "0xdead"),
            Some(DynSolValue::Bytes(vec![0xde, 0xad]))
        );
    }

    #[test]
    fn a_missing_variable_is_named_and_env_or_falls_back() {
        let name = "RUDDER_TEST_ENV_THAT_IS_NOT_SET";
        let e = read(EnvType::Uint, name, std::env::var(name).ok()).unwrap_err();
        assert_eq!(
            e,
            format!("vm.envUint: environment variable \"{name}\" not found")
        );
        let d = DynSolValue::Uint(U256::from(7), 256);
        assert_eq!(read_or(EnvType::Uint, std::env::var(name).ok(), &d), d);
        // Every signature parses and is distinct.
        let sigs = env_signatures();
        for (s, _) in &sigs {
            Function::parse(s).unwrap();
        }
        assert_eq!(sigs.len(), 21);
    }
}
