//! Constructor arguments from the config (`constructorArgs`): Solidity
//! literals in order, a list, or a mapping by parameter name, parsed as calls
//! are and ABI-encoded for the deployment.

use crate::artifacts::Contract;
use alloy_json_abi::Function;
use alloy_primitives::Address;
use std::sync::Arc;

/// The ABI-encoded constructor arguments of `c` from `given` (empty when
/// the constructor takes none). A constructor that takes arguments needs
/// them; values are parsed as in calls (`1 ether`, `0x…`, `"text"`, tuples).
pub fn constructor_input(
    c: &Contract,
    given: Option<&crate::config::ConstructorArgs>,
    deployer: Address,
) -> Result<Vec<u8>, String> {
    use crate::config::ConstructorArgs;
    let inputs = c
        .abi
        .constructor
        .as_ref()
        .map(|k| k.inputs.clone())
        .unwrap_or_default();
    let params = || {
        inputs
            .iter()
            .map(|p| {
                if p.name.is_empty() {
                    p.selector_type().into_owned()
                } else {
                    format!("{} {}", p.selector_type(), p.name)
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let given = match (inputs.is_empty(), given) {
        (true, None) => return Ok(Vec::new()),
        (true, Some(_)) => {
            return Err(format!(
                "constructorArgs gives arguments for {}, whose constructor takes none",
                c.name
            ));
        }
        (false, None) => {
            return Err(format!(
                "the constructor takes ({}); give them in the config, e.g. `constructorArgs: {{{}: \"…\"}}` (Solidity literals in order, a list, or a mapping by parameter name)",
                params(),
                c.name
            ));
        }
        (false, Some(g)) => g,
    };
    // One literal per parameter: a `string` parameter's plain value is
    // that string (quoted here); anything else is read as written.
    let typed = |p: &alloy_json_abi::Param, raw: &str| {
        if p.ty == "string" && !raw.trim_start().starts_with(['"', '\'']) {
            let mut s = String::new();
            crate::tx::write_value(&mut s, &alloy_dyn_abi::DynSolValue::String(raw.to_string()));
            s
        } else {
            raw.to_string()
        }
    };
    let text = match given {
        ConstructorArgs::Text(t) => t.clone(),
        ConstructorArgs::List(values) => {
            if values.len() != inputs.len() {
                return Err(format!(
                    "constructorArgs gives {} values; the constructor takes {}: ({})",
                    values.len(),
                    inputs.len(),
                    params()
                ));
            }
            inputs
                .iter()
                .zip(values)
                .map(|(p, v)| typed(p, v))
                .collect::<Vec<_>>()
                .join(", ")
        }
        ConstructorArgs::Named(pairs) => {
            if let Some((unknown, _)) = pairs
                .iter()
                .find(|(n, _)| !inputs.iter().any(|p| p.name == *n))
            {
                return Err(format!(
                    "constructorArgs names {unknown:?}, not a parameter of the constructor ({})",
                    params()
                ));
            }
            let mut out = Vec::new();
            for p in &inputs {
                let Some((_, v)) = pairs.iter().find(|(n, _)| *n == p.name) else {
                    return Err(format!(
                        "constructorArgs has no value for {:?} (the constructor takes ({}))",
                        p.name,
                        params()
                    ));
                };
                out.push(typed(p, v));
            }
            out.join(", ")
        }
    };
    let ctor = Arc::new(Function {
        name: "constructor".into(),
        inputs: inputs.clone(),
        outputs: Vec::new(),
        state_mutability: alloy_json_abi::StateMutability::NonPayable,
    });
    let defaults = crate::parser::CallDefaults {
        sender: deployer,
        ..Default::default()
    };
    let txs = crate::parser::parse_txs(&format!("constructor({text})"), &[ctor], &defaults)
        .map_err(|e| format!("constructorArgs {text:?}: {e}"))?;
    let [tx] = txs.as_slice() else {
        return Err(format!(
            "constructorArgs {text:?}: expected one argument list"
        ));
    };
    Ok(alloy_dyn_abi::DynSolValue::Tuple(tx.args.clone()).abi_encode_params())
}
