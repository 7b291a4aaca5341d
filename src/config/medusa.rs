//! Medusa's project config (`medusa.json`), read as rudder's: recognised
//! by its shape (a JSON object with a `fuzzing` object), its fuzzing,
//! testing, chain (fork) and compilation keys mapped to the campaign's,
//! under the YAML's policy: a wrong type is an error naming the key's path
//! (`fuzzing.testLimit`), an unknown key a warning naming it (with the
//! nearest known key), a key of Medusa's older schema an error saying what
//! replaced it, a Medusa setting rudder has no counterpart for a warning.

use super::words::nearest_key;
use super::yaml::{as_bool, as_string, as_u64, describe, key_err, parse_address, string_list};
use super::{Config, ConfigError, TestMode};
use serde_yaml_ng::Value;
use std::path::PathBuf;

/// Whether `doc` has Medusa's shape.
pub(super) fn is_medusa(doc: &Value) -> bool {
    doc.get("fuzzing").is_some_and(Value::is_mapping)
}

/// Keys of Medusa's older schemas, with what replaced them.
const OLDER: [(&str, &str); 4] = [
    ("fuzzing.deploymentOrder", "fuzzing.targetContracts"),
    ("fuzzing.maxBlockNumberDelay", "fuzzing.blockNumberDelayMax"),
    (
        "fuzzing.maxBlockTimestampDelay",
        "fuzzing.blockTimestampDelayMax",
    ),
    (
        "fuzzing.testing.testViewMethods",
        "fuzzing.testing.assertionTesting.testViewMethods",
    ),
];

/// Medusa's keys rudder reads, by path (what each sets is in
/// [`from_value`]).
const READ: [&str; 29] = [
    "fuzzing.workers",
    "fuzzing.timeout",
    "fuzzing.testLimit",
    "fuzzing.shrinkLimit",
    "fuzzing.callSequenceLength",
    "fuzzing.corpusDirectory",
    "fuzzing.coverageEnabled",
    "fuzzing.coverageFormats",
    "fuzzing.targetContracts",
    "fuzzing.deployerAddress",
    "fuzzing.senderAddresses",
    "fuzzing.blockNumberDelayMax",
    "fuzzing.blockTimestampDelayMax",
    "fuzzing.transactionGasLimit",
    "fuzzing.testing.stopOnFailedTest",
    "fuzzing.testing.testAllContracts",
    "fuzzing.testing.targetFunctionSignatures",
    "fuzzing.testing.excludeFunctionSignatures",
    "fuzzing.testing.assertionTesting.enabled",
    "fuzzing.testing.propertyTesting.enabled",
    "fuzzing.testing.propertyTesting.testPrefixes",
    "fuzzing.testing.optimizationTesting.enabled",
    "fuzzing.testing.optimizationTesting.testPrefixes",
    "fuzzing.chainConfig.cheatCodes.enableFFI",
    "fuzzing.chainConfig.forkConfig.forkModeEnabled",
    "fuzzing.chainConfig.forkConfig.rpcUrl",
    "fuzzing.chainConfig.forkConfig.rpcBlock",
    "compilation.platformConfig.target",
    "compilation.platform",
];

/// Medusa's keys that shape how Medusa itself runs (its workers' chain
/// resets, logs, Slither, trace output…): known, nothing to map, no word.
const MEDUSA_ONLY: [&str; 25] = [
    "fuzzing.workerResetLimit",
    "fuzzing.revertReporterEnabled",
    "fuzzing.predeployedContracts",
    "fuzzing.targetContractsBalances",
    "fuzzing.constructorArgs",
    "fuzzing.blockGasLimit",
    "fuzzing.useValueGeneration",
    "fuzzing.pruneFrequency",
    "fuzzing.testing.stopOnFailedContractMatching",
    "fuzzing.testing.stopOnNoTests",
    "fuzzing.testing.traceAll",
    "fuzzing.testing.verbosity",
    "fuzzing.testing.assertionTesting.testViewMethods",
    "fuzzing.testing.assertionTesting.panicCodeConfig",
    "fuzzing.chainConfig.codeSizeCheckDisabled",
    "fuzzing.chainConfig.skipAccountChecks",
    "fuzzing.chainConfig.cheatCodes.cheatCodesEnabled",
    "fuzzing.chainConfig.forkConfig.poolSize",
    "compilation.platformConfig.solcVersion",
    "compilation.platformConfig.exportDirectory",
    "compilation.platformConfig.args",
    "compilation.platformConfig.buildDirectory",
    "compilation.platformConfig.useFullPaths",
    "slither",
    "logging",
];

/// Reads a Medusa config's document into a config (Echidna's defaults
/// under it), with the warnings to print.
pub(super) fn from_value(doc: &Value) -> Result<(Config, Vec<String>), ConfigError> {
    let mut leaves = Vec::new();
    flatten(doc, String::new(), &mut leaves);
    let mut c = Config::default();
    let mut warnings = Vec::new();
    let get = |path: &str| leaves.iter().find(|(p, _)| p == path).map(|(_, v)| *v);
    for (path, _) in &leaves {
        if let Some((_, new)) = OLDER.iter().find(|(old, _)| old == path) {
            return Err(key_err(
                path,
                format!(
                    "a key of Medusa's older config schema: it is `{new}` now (rename it, as Medusa would ask)"
                ),
            ));
        }
        let known = READ.contains(&path.as_str())
            || MEDUSA_ONLY
                .iter()
                .any(|k| path == k || path.starts_with(&format!("{k}.")));
        if !known {
            let all: Vec<&'static str> = READ.iter().chain(MEDUSA_ONLY.iter()).copied().collect();
            warnings.push(match nearest_key(path, &all) {
                Some(near) => format!(
                    "medusa.json key `{path}` is not a Medusa key rudder knows: did you mean `{near}`? (the key is ignored)"
                ),
                None => format!("medusa.json key `{path}` is not a Medusa key rudder knows (ignored)"),
            });
        }
    }
    let u64_at = |path: &str| get(path).map(|v| as_u64(path, v)).transpose();
    let bool_at = |path: &str| get(path).map(|v| as_bool(path, v)).transpose();
    if let Some(w) = u64_at("fuzzing.workers")? {
        c.workers = Some(w.min(usize::MAX as u64) as usize);
    }
    // 0 is Medusa's "no limit" for both.
    if let Some(t) = u64_at("fuzzing.timeout")? {
        c.timeout = (t > 0).then(|| std::time::Duration::from_secs(t));
    }
    if let Some(n) = u64_at("fuzzing.testLimit")? {
        c.test_limit = if n == 0 { u64::MAX } else { n };
        c.limit_given = true;
    }
    if let Some(n) = u64_at("fuzzing.shrinkLimit")? {
        c.shrink_limit = n;
    }
    if let Some(n) = u64_at("fuzzing.callSequenceLength")? {
        c.seq_len = n.min(usize::MAX as u64) as usize;
        c.seq_len_given = true;
    }
    if let Some(v) = get("fuzzing.corpusDirectory") {
        let dir = as_string("fuzzing.corpusDirectory", v)?;
        c.corpus_dir = (!dir.is_empty()).then(|| PathBuf::from(dir));
    }
    if bool_at("fuzzing.coverageEnabled")? == Some(false) {
        warnings.push(
            "medusa.json `fuzzing.coverageEnabled: false`: rudder always fuzzes with coverage"
                .into(),
        );
    }
    if let Some(v) = get("fuzzing.coverageFormats") {
        let path = "fuzzing.coverageFormats";
        c.coverage_formats = string_list(path, v)?;
        if let Some(f) =
            (c.coverage_formats.iter()).find(|f| !super::COVERAGE_FORMATS.contains(&f.as_str()))
        {
            return Err(key_err(
                path,
                format!("{f:?} is not a coverage format: expected \"html\" or \"lcov\""),
            ));
        }
    }
    if let Some(v) = get("fuzzing.targetContracts") {
        let path = "fuzzing.targetContracts";
        let names = string_list(path, v)?;
        if names.len() > 1 {
            warnings.push(format!(
                "medusa.json `{path}` names {} contracts: rudder fuzzes {} (the others are called when the target deploys them and `fuzzing.testing.testAllContracts` is on; --contract picks another)",
                names.len(),
                names[0]
            ));
        }
        c.target_contract = names.into_iter().next();
    }
    if let Some(v) = get("fuzzing.deployerAddress") {
        c.deployer = parse_address("fuzzing.deployerAddress", v)?;
    }
    if let Some(v) = get("fuzzing.senderAddresses") {
        let path = "fuzzing.senderAddresses";
        let list = v.as_sequence().ok_or_else(|| {
            key_err(
                path,
                format!("expected a list of addresses, found {}", describe(v)),
            )
        })?;
        c.senders = list
            .iter()
            .map(|a| parse_address(path, a))
            .collect::<Result<_, _>>()?;
    }
    if let Some(n) = u64_at("fuzzing.blockNumberDelayMax")? {
        c.max_block_delay = n;
    }
    if let Some(n) = u64_at("fuzzing.blockTimestampDelayMax")? {
        c.max_time_delay = n;
    }
    if let Some(n) = u64_at("fuzzing.transactionGasLimit")? {
        c.test_max_gas = n;
    }
    if let Some(b) = bool_at("fuzzing.testing.stopOnFailedTest")? {
        c.stop_on_fail = b;
    }
    if let Some(b) = bool_at("fuzzing.testing.testAllContracts")? {
        c.all_contracts = b;
    }
    let target = get("fuzzing.testing.targetFunctionSignatures")
        .map(|v| string_list("fuzzing.testing.targetFunctionSignatures", v))
        .transpose()?
        .unwrap_or_default();
    let exclude = get("fuzzing.testing.excludeFunctionSignatures")
        .map(|v| string_list("fuzzing.testing.excludeFunctionSignatures", v))
        .transpose()?
        .unwrap_or_default();
    match (target.is_empty(), exclude.is_empty()) {
        (true, true) => {}
        (false, _) => {
            c.filter_functions = target;
            c.filter_blacklist = false;
            if !exclude.is_empty() {
                warnings.push("medusa.json gives both `targetFunctionSignatures` and `excludeFunctionSignatures`: rudder calls only the targeted ones".into());
            }
        }
        (true, false) => {
            c.filter_functions = exclude;
            c.filter_blacklist = true;
        }
    }
    // Medusa runs several test kinds at once; a rudder campaign runs one.
    let assertion = bool_at("fuzzing.testing.assertionTesting.enabled")?.unwrap_or(true);
    let property = bool_at("fuzzing.testing.propertyTesting.enabled")?.unwrap_or(true);
    let optimization = bool_at("fuzzing.testing.optimizationTesting.enabled")?.unwrap_or(false);
    let mut prefixes = |path: &str| -> Result<Option<String>, ConfigError> {
        let Some(v) = get(path) else { return Ok(None) };
        let list = string_list(path, v)?;
        if list.len() > 1 {
            warnings.push(format!(
                "medusa.json `{path}` lists {} prefixes: rudder uses the first, {:?}",
                list.len(),
                list[0]
            ));
        }
        Ok(list.into_iter().next())
    };
    let property_prefix = prefixes("fuzzing.testing.propertyTesting.testPrefixes")?;
    let optimization_prefix = prefixes("fuzzing.testing.optimizationTesting.testPrefixes")?;
    let enabled: Vec<&str> = [
        (property, "property"),
        (assertion, "assertion"),
        (optimization, "optimization"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, w)| *w)
    .collect();
    c.test_mode = match enabled.first() {
        Some(&"assertion") => TestMode::Assertion,
        Some(&"optimization") => TestMode::Optimization,
        _ => TestMode::Property,
    };
    if enabled.len() > 1 {
        warnings.push(format!(
            "medusa.json enables {} testing: rudder runs one test mode per campaign, {} (run again with --test-mode {} for the other)",
            enabled.join(" and "),
            enabled[0],
            enabled[1]
        ));
    }
    // Medusa's default property prefix is `property_`, not Echidna's.
    c.prefix = match c.test_mode {
        TestMode::Optimization => optimization_prefix.unwrap_or_else(|| "optimize_".into()),
        _ => property_prefix.unwrap_or_else(|| "property_".into()),
    };
    if let Some(b) = bool_at("fuzzing.chainConfig.cheatCodes.enableFFI")? {
        c.allow_ffi = b;
    }
    if bool_at("fuzzing.chainConfig.forkConfig.forkModeEnabled")? == Some(true) {
        let url = get("fuzzing.chainConfig.forkConfig.rpcUrl")
            .map(|v| as_string("fuzzing.chainConfig.forkConfig.rpcUrl", v))
            .transpose()?
            .filter(|u| !u.is_empty())
            .ok_or_else(|| {
                key_err(
                    "fuzzing.chainConfig.forkConfig.rpcUrl",
                    "fork mode is enabled but no RPC URL is given",
                )
            })?;
        c.rpc_url = Some(url);
        // Medusa's block 0 is "the latest": pinned once at start.
        c.rpc_block = u64_at("fuzzing.chainConfig.forkConfig.rpcBlock")?.filter(|b| *b > 0);
    }
    if let Some(v) = get("compilation.platform") {
        let p = as_string("compilation.platform", v)?;
        if p != "crytic-compile" && p != "solc" {
            warnings.push(format!(
                "medusa.json `compilation.platform: {p}`: rudder reads solc's output, a Foundry or Hardhat build, or a .sol file"
            ));
        }
    }
    // What to fuzz when the command line names nothing.
    if let Some(v) = get("compilation.platformConfig.target") {
        let t = as_string("compilation.platformConfig.target", v)?;
        c.compilation_target = (!t.is_empty()).then(|| PathBuf::from(t));
    }
    c.validate().map_err(|e| match e {
        ConfigError::Key { key, message } => key_err(&medusa_path(&key), message),
        other => other,
    })?;
    Ok((c, warnings))
}

/// The Medusa path of the rudder key `validate` names.
fn medusa_path(key: &str) -> String {
    match key {
        "workers" => "fuzzing.workers",
        "seqLen" => "fuzzing.callSequenceLength",
        "sender" => "fuzzing.senderAddresses",
        other => other,
    }
    .to_string()
}

/// Every leaf of `v` with its dotted path (a list or a scalar is a leaf;
/// an empty object too, so that an unknown one is still named).
fn flatten<'a>(v: &'a Value, path: String, out: &mut Vec<(String, &'a Value)>) {
    match v {
        Value::Mapping(m) if !m.is_empty() => {
            for (k, x) in m {
                let k = k
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("{k:?}"));
                let p = if path.is_empty() {
                    k
                } else {
                    format!("{path}.{k}")
                };
                flatten(x, p, out);
            }
        }
        _ => out.push((path, v)),
    }
}
