use super::*;

#[test]
fn defaults_are_echidnas() {
    let c = Config::default();
    assert_eq!(
        (c.test_limit, c.seq_len, c.shrink_limit),
        (50_000, 100, 5_000)
    );
    assert_eq!(c.prefix, "echidna_");
    assert_eq!(c.senders.len(), 3);
}

#[test]
fn reads_echidna_yaml() {
    let (c, warnings) = Config::from_yaml_str(
        "testMode: assertion\ntestLimit: 1000\nseqLen: 5\nsender: [\"0x10000\", 0x20000]\n\
         deployer: \"0x30000\"\nfilterFunctions: [\"f\"]\nfilterBlacklist: false\n\
         maxValue: \"1000000000000000000\"\ntimeout: 30\ncoverage: true\n",
    )
    .unwrap();
    assert_eq!(c.test_mode, TestMode::Assertion);
    assert_eq!(c.test_limit, 1000);
    assert_eq!(c.senders[1], DEFAULT_SENDERS[1]);
    assert_eq!(c.deployer, DEFAULT_DEPLOYER);
    assert!(c.function_allowed("f", "f()"));
    assert!(!c.function_allowed("g", "g()"));
    assert_eq!(c.timeout, Some(std::time::Duration::from_secs(30)));
    assert_eq!(warnings.len(), 1);
    assert_eq!(
        warnings[0],
        "config key `coverage` (Echidna's) is not used by rudder: rudder always records coverage"
    );
}

#[test]
fn echidnas_older_and_unused_keys_are_named_with_what_rudder_does() {
    let (c, warnings) =
        Config::from_yaml_str("multi-abi: true\nsymExec: true\ncryticArgs: [\"--foundry\"]\n")
            .unwrap();
    assert!(c.all_contracts, "multi-abi is allContracts' older name");
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings
            .iter()
            .all(|w| w.contains("(Echidna's)") && !w.contains("known keys")),
        "{warnings:?}"
    );
}

#[test]
fn wrong_types_name_the_key() {
    let e = Config::from_yaml_str("testLimit: lots\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "config key `testLimit`: expected a non-negative integer, found a string"
    );
    let e = Config::from_yaml_str("testMode: fuzzy\n").unwrap_err();
    assert!(e.to_string().contains("`testMode`"), "{e}");
    let e = Config::from_yaml_str("sender: [\"0xzz\"]\n").unwrap_err();
    assert!(e.to_string().contains("`sender`"), "{e}");
    let e = Config::from_yaml_str("seqLen: 0\n").unwrap_err();
    assert!(e.to_string().contains("`seqLen`"), "{e}");
}

#[test]
fn a_misspelt_key_is_named_with_the_key_meant_and_ignored() {
    let (c, warnings) =
        Config::from_yaml_str("testLimt: 1000\nseqlen: 7\nfrobnicate: 1\n").unwrap();
    assert_eq!(c.test_limit, Config::default().test_limit);
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(
        warnings[0].contains("`testLimt`") && warnings[0].contains("did you mean `testLimit`?"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].contains("did you mean `seqLen`?"),
        "{warnings:?}"
    );
    assert!(warnings[2].contains("known keys:"), "{warnings:?}");
}

#[test]
fn a_timeout_is_read_as_people_write_it() {
    use std::time::Duration;
    let (c, _) = Config::from_yaml_str("timeout: 0.5\n").unwrap();
    assert_eq!(c.timeout, Some(Duration::from_millis(500)));
    let (c, _) = Config::from_yaml_str("timeout: 5m\n").unwrap();
    assert_eq!(c.timeout, Some(Duration::from_secs(300)));
    let e = Config::from_yaml_str("timeout: soon\n").unwrap_err();
    assert!(e.to_string().contains("`timeout`"), "{e}");
}

#[test]
fn hex_integers_past_64_bits_read_as_echidna_reads_them() {
    // A protocol's own echidna.yaml: 300e18 written as a 72-bit hex literal.
    let (c, warnings) = Config::from_yaml_str(
        "balanceAddr: 0x1043561a8829300000\n\
         balanceContract: 0X1043561A8829300000 # 300e18\n\
         maxValue: 0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff\n\
         deployer: 0x00a329c0648769A73afAc7F9381E08FB43dBEA72\n",
    )
    .unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let e300 = U256::from(300u64) * U256::from(10u64).pow(U256::from(18));
    assert_eq!((c.balance_addr, c.balance_contract), (e300, e300));
    assert_eq!(c.max_value, U256::MAX);
    assert_eq!(
        c.deployer,
        "0x00a329c0648769A73afAc7F9381E08FB43dBEA72"
            .parse::<Address>()
            .unwrap()
    );
    // Past 256 bits: an error naming the key, not a wrapped value.
    let e = Config::from_yaml_str(&format!("balanceAddr: 0x1{}\n", "0".repeat(64))).unwrap_err();
    assert!(e.to_string().contains("`balanceAddr`"), "{e}");
}

#[test]
fn echidna_keys_beyond_the_basics() {
    let (c, warnings) = Config::from_yaml_str(
        "testMode: overflow\npsender: \"0x20000\"\nbalanceAddr: 1000000000000000000000000000\n\
         balanceContract: 0x1000\npropMaxGas: 5000000\ntestMaxGas: 6000000\ncodeSize: 0xffff\n\
         excludeViewPure: true\nfailOnRevert: true\nallowFFI: false\nsolcLibs: [\"Score\"]\n\
         maxValue: 100000000000000000000000000000000000000\n\
         deployContracts: [[\"0x1f\", \"Score\"]]\ndeployBytecodes: [[\"0x2f\", \"0x6000\"]]\n\
         coverageFormats: [\"lcov\"]\ncoverageDir: cov\n",
    )
    .unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(c.test_mode, TestMode::Overflow);
    assert_eq!(c.psender, DEFAULT_SENDERS[1]);
    assert_eq!(
        c.balance_addr,
        "1000000000000000000000000000".parse::<U256>().unwrap()
    );
    assert_eq!(c.balance_contract, U256::from(0x1000));
    assert_eq!(
        (c.prop_max_gas, c.test_max_gas, c.code_size),
        (5_000_000, 6_000_000, 0xffff)
    );
    assert!(c.exclude_view_pure);
    assert!(c.fail_on_revert);
    assert_eq!(
        c.max_value,
        "100000000000000000000000000000000000000"
            .parse::<U256>()
            .unwrap()
    );
    assert_eq!(c.deploy_contracts[0].1, "Score");
    assert_eq!(c.deploy_bytecodes[0].1, vec![0x60, 0x00]);
    assert_eq!(c.coverage_dir, Some(PathBuf::from("cov")));
    let e = Config::from_yaml_str("coverageFormats: [\"pdf\"]\n").unwrap_err();
    assert!(e.to_string().contains("coverageFormats"), "{e}");
    let e = Config::from_yaml_str("deployContracts: [\"0x1f\"]\n").unwrap_err();
    assert!(e.to_string().contains("deployContracts"), "{e}");
}

#[test]
fn checks_are_skipped_by_what_they_read_unless_told_otherwise() {
    assert_eq!(Config::default().check_cache, CheckCacheMode::On);
    for (yaml, mode) in [
        ("checkCache: off\n", CheckCacheMode::Off),
        ("checkCache: false\n", CheckCacheMode::Off),
        ("checkCache: verify\n", CheckCacheMode::Verify),
        ("checkCache: on\n", CheckCacheMode::On),
    ] {
        assert_eq!(Config::from_yaml_str(yaml).unwrap().0.check_cache, mode);
    }
    let e = Config::from_yaml_str("checkCache: sometimes\n").unwrap_err();
    assert!(e.to_string().contains("checkCache"), "{e}");
}

#[test]
fn workers_take_a_fair_share_unless_told_to_stay_behind() {
    assert_eq!(Config::default().worker_priority, WorkerPriority::Normal);
    let (c, _) = Config::from_yaml_str("workerPriority: low\n").unwrap();
    assert_eq!(c.worker_priority, WorkerPriority::Low);
}

#[test]
fn limits_name_the_key_and_file_errors_name_the_file() {
    // Echidna's symbolic-only `workers: 0`: warned, the default kept.
    let (c, warnings) = Config::from_yaml_str("workers: 0\n").unwrap();
    assert_eq!(c.workers, Config::default().workers);
    assert!(warnings[0].contains("`workers`: 0"), "{warnings:?}");
    for (yaml, key) in [
        ("workers: 100000\n", "workers"),
        ("seqLen: 1000000000\n", "seqLen"),
        ("workerPriority: fast\n", "workerPriority"),
    ] {
        let e = Config::from_yaml_str(yaml).unwrap_err();
        assert!(e.to_string().contains(&format!("`{key}`")), "{e}");
    }
    let dir = std::env::temp_dir().join(format!("rudder-cfg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("bad.yaml");
    std::fs::write(&f, "testLimit: [1\n").unwrap();
    let e = Config::from_yaml_file(&f).unwrap_err();
    assert!(e.to_string().contains("bad.yaml"), "{e}");
    assert!(!e.to_string().contains("<yaml>"), "{e}");
}

/// The keys rudder reads are declared once, in `KNOWN`: every YAML arm
/// of `from_yaml_str` is one of them and each has an arm (so a misspelt
/// key is pointed at the right one), and the README's key table names
/// every one of them.
#[test]
fn every_yaml_key_is_known_has_an_arm_and_is_in_the_readme_table() {
    let source = include_str!("../config.rs");
    let body = &source[source.find("pub fn from_yaml_str").unwrap()..];
    let body = &body[..body.find("c.validate()?;").unwrap()];
    let mut arms = std::collections::BTreeSet::new();
    for line in body.lines() {
        let line = line.trim_start();
        if !line.starts_with('"') || !line.contains("=>") {
            continue;
        }
        let head = &line[..line.find("=>").unwrap()];
        for word in head.split('|') {
            let word = word.trim().trim_matches('"');
            if word.chars().all(|c| c.is_ascii_alphanumeric()) && !word.is_empty() {
                arms.insert(word);
            }
        }
    }
    let known: std::collections::BTreeSet<&str> = KNOWN.iter().copied().collect();
    assert_eq!(arms, known, "YAML arms and KNOWN differ");
    let readme = include_str!("../../README.md");
    let table = &readme[readme.find("| Echidna key or feature | rudder |").unwrap()..];
    let table = &table[..table.find("\n### ").unwrap()];
    for key in KNOWN {
        assert!(
            table.contains(&format!("`{key}`")),
            "README's key table does not name `{key}`"
        );
    }
}

/// Medusa's default config (as `medusa init` writes it, trimmed of keys
/// that do not matter here), with a few values changed.
const MEDUSA: &str = r#"{
  "fuzzing": {
    "workers": 3, "workerResetLimit": 50, "timeout": 0, "testLimit": 3000, "shrinkLimit": 700,
    "callSequenceLength": 25, "corpusDirectory": "medusa-corpus", "coverageEnabled": true,
    "coverageFormats": ["html", "lcov"], "targetContracts": ["OnlySender"],
    "predeployedContracts": {}, "targetContractsBalances": [], "constructorArgs": {},
    "deployerAddress": "0x40000", "senderAddresses": ["0x10000", "0x30000"],
    "blockNumberDelayMax": 60480, "blockTimestampDelayMax": 604800,
    "blockGasLimit": 125000000, "transactionGasLimit": 12500000,
    "testing": {
      "stopOnFailedTest": false, "stopOnFailedContractMatching": false, "stopOnNoTests": true,
      "testAllContracts": false, "traceAll": false,
      "targetFunctionSignatures": [], "excludeFunctionSignatures": ["OnlySender.attempts()"],
      "assertionTesting": {"enabled": false, "testViewMethods": false, "panicCodeConfig": {"failOnAssertion": true}},
      "propertyTesting": {"enabled": true, "testPrefixes": ["echidna_"]},
      "optimizationTesting": {"enabled": false, "testPrefixes": ["optimize_"]}
    },
    "chainConfig": {"codeSizeCheckDisabled": true, "cheatCodes": {"cheatCodesEnabled": true, "enableFFI": false},
      "skipAccountChecks": true,
      "forkConfig": {"forkModeEnabled": true, "rpcUrl": "http://127.0.0.1:8545", "rpcBlock": 0, "poolSize": 20}}
  },
  "compilation": {"platform": "crytic-compile", "platformConfig": {"target": ".", "solcVersion": "", "exportDirectory": "", "args": []}},
  "logging": {"level": "info", "logDirectory": "", "noColor": false}
}"#;

#[test]
fn a_medusa_config_is_read_by_its_shape_with_its_keys_mapped() {
    let (c, warnings) = Config::from_yaml_str(MEDUSA).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        (c.workers, c.test_limit, c.limit_given),
        (Some(3), 3000, true)
    );
    assert_eq!((c.shrink_limit, c.seq_len), (700, 25));
    assert_eq!(c.timeout, None);
    assert_eq!(c.corpus_dir, Some(PathBuf::from("medusa-corpus")));
    assert_eq!(c.coverage_formats, ["html", "lcov"]);
    assert_eq!(c.target_contract.as_deref(), Some("OnlySender"));
    assert_eq!(
        c.deployer,
        address!("0000000000000000000000000000000000040000")
    );
    assert_eq!(
        c.senders,
        [
            address!("0000000000000000000000000000000000010000"),
            address!("0000000000000000000000000000000000030000")
        ]
    );
    assert_eq!((c.max_block_delay, c.max_time_delay), (60480, 604800));
    assert!(!c.stop_on_fail && !c.all_contracts);
    assert_eq!(c.filter_functions, ["OnlySender.attempts()"]);
    assert!(c.filter_blacklist);
    assert_eq!(c.test_mode, TestMode::Property);
    assert_eq!(c.prefix, "echidna_");
    // Fork mode at Medusa's block 0: the node's latest, pinned at start.
    assert_eq!(c.rpc_url.as_deref(), Some("http://127.0.0.1:8545"));
    assert_eq!(c.rpc_block, None);
}

#[test]
fn a_medusa_config_names_a_wrong_key_by_its_path() {
    let with = |from: &str, to: &str| {
        assert!(MEDUSA.contains(from), "{from}");
        MEDUSA.replacen(from, to, 1)
    };
    // A wrong type: an error naming the path.
    let e =
        Config::from_yaml_str(&with(r#""testLimit": 3000"#, r#""testLimit": "lots""#)).unwrap_err();
    assert_eq!(
        e,
        ConfigError::Key {
            key: "fuzzing.testLimit".into(),
            message: "expected a non-negative integer, found a string".into()
        }
    );
    let e = Config::from_yaml_str(&with(
        r#"["0x10000", "0x30000"]"#,
        r#"["0x10000", "alice"]"#,
    ))
    .unwrap_err();
    assert!(
        matches!(&e, ConfigError::Key { key, .. } if key == "fuzzing.senderAddresses"),
        "{e}"
    );
    let e = Config::from_yaml_str(&with(
        r#""senderAddresses": ["0x10000", "0x30000"]"#,
        r#""senderAddresses": []"#,
    ))
    .unwrap_err();
    assert!(
        matches!(&e, ConfigError::Key { key, .. } if key == "fuzzing.senderAddresses"),
        "{e}"
    );
    // A key of Medusa's older schema: an error saying what replaced it.
    let e =
        Config::from_yaml_str(&with(r#""targetContracts""#, r#""deploymentOrder""#)).unwrap_err();
    assert!(
        matches!(&e, ConfigError::Key { key, message } if key == "fuzzing.deploymentOrder" && message.contains("fuzzing.targetContracts")),
        "{e}"
    );
    // A misspelt key: a warning naming it, with the nearest.
    let (c, warnings) = Config::from_yaml_str(&with(r#""testLimit""#, r#""testLimt""#)).unwrap();
    assert_eq!(c.test_limit, 50_000);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("`fuzzing.testLimt`") && warnings[0].contains("`fuzzing.testLimit`"),
        "{warnings:?}"
    );
    // Medusa's several test kinds: one mode, said so.
    let (c, warnings) = Config::from_yaml_str(&with(
        r#""enabled": false, "testViewMethods""#,
        r#""enabled": true, "testViewMethods""#,
    ))
    .unwrap();
    assert_eq!(c.test_mode, TestMode::Property);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("enables property and assertion testing")),
        "{warnings:?}"
    );
}
