//! The project's custom errors by selector: why a call or a property
//! reverted, said in the words of its source (`TooMuch(101)`), not in hex.

use super::{Outcome, RevertReason};
use crate::artifacts::Project;
use crate::tx::write_value;
use alloy_dyn_abi::ErrorExt;
use alloy_json_abi::Error as AbiError;
use std::collections::HashMap;

/// Every custom error the project's contracts declare, by selector (one
/// per distinct parameter list).
#[derive(Debug, Default)]
pub struct ErrorBook {
    by_selector: HashMap<[u8; 4], Vec<AbiError>>,
}

impl ErrorBook {
    pub fn of(project: &Project) -> Self {
        let mut by_selector: HashMap<[u8; 4], Vec<AbiError>> = HashMap::new();
        let abis = project
            .contracts
            .iter()
            .map(|c| &c.abi)
            .chain(project.interfaces.iter().map(|i| &i.abi));
        for abi in abis {
            for e in abi.errors() {
                let v = by_selector.entry(e.selector().0).or_default();
                if !v.iter().any(|k| k.inputs == e.inputs) {
                    v.push(e.clone());
                }
            }
        }
        ErrorBook { by_selector }
    }

    /// Revert data `data` as `Name(arg, …)` when a declared error decodes it.
    pub fn decode(&self, data: &[u8]) -> Option<String> {
        let selector: [u8; 4] = data.get(..4)?.try_into().ok()?;
        self.by_selector.get(&selector)?.iter().find_map(|e| {
            let d = e.decode_error(data).ok()?;
            let mut args = String::new();
            for (i, v) in d.body.iter().enumerate() {
                if i > 0 {
                    args.push_str(", ");
                }
                write_value(&mut args, v);
            }
            Some(format!("{}({args})", e.name))
        })
    }

    /// What `outcome` says, a custom error decoded.
    pub fn describe(&self, outcome: &Outcome) -> String {
        if let Outcome::Revert {
            reason: RevertReason::Raw(data),
        } = outcome
            && let Some(e) = self.decode(data)
        {
            return format!("reverted with {e}");
        }
        outcome.to_string()
    }
}
