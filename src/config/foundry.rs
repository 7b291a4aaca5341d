//! A Foundry project's invariant settings: the `[invariant]` table of its
//! `foundry.toml` (`[profile.default.invariant]`, or the top-level
//! `[invariant]` older projects use), read with Foundry's defaults for an
//! invariant suite: 256 runs of depth 500.

use super::{Config, ConfigError};
use std::path::{Path, PathBuf};

/// Foundry's default number of runs of an invariant test.
pub const FORGE_RUNS: u64 = 256;
/// Foundry's default calls per run.
pub const FORGE_DEPTH: u64 = 500;

/// The `[invariant]` keys rudder reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InvariantSettings {
    pub runs: Option<u64>,
    pub depth: Option<u64>,
    pub fail_on_revert: Option<bool>,
    pub call_override: Option<bool>,
    /// `[rpc_endpoints]`: alias and URL, for the fork cheatcodes.
    pub rpc_endpoints: Vec<(String, String)>,
    /// The file they came from.
    pub file: Option<PathBuf>,
}

/// The `foundry.toml` of the project `origin` was loaded from (the project
/// folder, or its `out/`), if there is one.
pub fn project_toml(origin: &Path) -> Option<PathBuf> {
    let dir = if origin.is_dir() {
        origin
    } else {
        origin.parent()?
    };
    dir.ancestors()
        .take(3)
        .map(|d| d.join("foundry.toml"))
        .find(|p| p.is_file())
}

/// Reads the `[invariant]` keys of `path`; a key of the wrong type is an
/// error naming it.
pub fn read(path: &Path) -> Result<InvariantSettings, ConfigError> {
    let err = |message: String| ConfigError::File {
        path: path.to_path_buf(),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
    let doc: toml_edit::Document<String> = text.parse().map_err(|e| err(format!("{e}")))?;
    let root = doc.as_table();
    let table = root
        .get("profile")
        .and_then(|p| p.get("default"))
        .and_then(|d| d.get("invariant"))
        .or_else(|| root.get("invariant"));
    let mut out = InvariantSettings {
        file: Some(path.to_path_buf()),
        ..InvariantSettings::default()
    };
    let endpoints = root.get("rpc_endpoints").or_else(|| {
        root.get("profile")
            .and_then(|p| p.get("default"))
            .and_then(|d| d.get("rpc_endpoints"))
    });
    if let Some(t) = endpoints.and_then(|e| e.as_table_like()) {
        for (alias, url) in t.iter() {
            let url = url.as_str().ok_or_else(|| ConfigError::Key {
                key: format!("rpc_endpoints.{alias}"),
                message: format!(
                    "{} where a URL belongs ({})",
                    url.type_name(),
                    path.display()
                ),
            })?;
            out.rpc_endpoints.push((alias.to_string(), url.to_string()));
        }
    }
    let Some(t) = table else {
        return Ok(out);
    };
    let int = |key: &str| -> Result<Option<u64>, ConfigError> {
        match t.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_integer()
                .and_then(|i| u64::try_from(i).ok())
                .filter(|i| *i > 0)
                .map(Some)
                .ok_or_else(|| ConfigError::Key {
                    key: format!("invariant.{key}"),
                    message: format!(
                        "{} where a whole number ≥ 1 belongs ({})",
                        v.type_name(),
                        path.display()
                    ),
                }),
        }
    };
    let boolean = |key: &str| -> Result<Option<bool>, ConfigError> {
        match t.get(key) {
            None => Ok(None),
            Some(v) => v.as_bool().map(Some).ok_or_else(|| ConfigError::Key {
                key: format!("invariant.{key}"),
                message: format!(
                    "{} where true or false belongs ({})",
                    v.type_name(),
                    path.display()
                ),
            }),
        }
    };
    out.runs = int("runs")?;
    out.depth = int("depth")?;
    out.fail_on_revert = boolean("fail_on_revert")?;
    out.call_override = boolean("call_override")?;
    Ok(out)
}

impl Config {
    /// Applies a suite's invariant settings where the user set nothing
    /// else: `depth` is the sequence length, `runs × depth` the test limit
    /// (neither replaces a `--seq-len`/`seqLen` or `--test-limit`/`testLimit`,
    /// nor an agent campaign's unlimited fuzzing). Returns what the user
    /// should know about keys rudder does not follow.
    pub fn apply_invariant_settings(
        &mut self,
        s: &InvariantSettings,
    ) -> Result<Vec<String>, ConfigError> {
        let defaults = Config::default();
        let file = s
            .file
            .as_ref()
            .map(|f| f.display().to_string())
            .unwrap_or_else(|| "foundry.toml".into());
        if s.call_override == Some(true) {
            return Err(ConfigError::Key {
                key: "invariant.call_override".into(),
                message: format!(
                    "true in {file}: rudder does not run reentrancy call overrides; set it to false to fuzz this suite"
                ),
            });
        }
        let depth = s.depth.unwrap_or(FORGE_DEPTH);
        if !self.seq_len_given && self.seq_len == defaults.seq_len {
            self.seq_len = depth as usize;
        }
        // forge's runs × depth, unless a limit was given; `--timeout` alone
        // (a budget in time, no call limit) keeps it only when foundry.toml
        // names its `runs` (an agent's campaign fuzzes until it leaves).
        let timed = self.test_limit == crate::config::UNLIMITED
            && self.timeout.is_some()
            && !self.keep_alive
            && s.runs.is_some();
        if !self.limit_given && (self.test_limit == defaults.test_limit || timed) {
            self.test_limit = s.runs.unwrap_or(FORGE_RUNS).saturating_mul(depth);
        }
        if s.fail_on_revert == Some(true) {
            self.fail_on_revert = true;
            // forge moves no time and sends no value between calls: a
            // deadline or a payable guard must not revert where it would
            // not (unless the config asks for delays or value).
            if self.max_time_delay == defaults.max_time_delay {
                self.max_time_delay = 0;
            }
            if self.max_block_delay == defaults.max_block_delay {
                self.max_block_delay = 0;
            }
            if self.max_value == defaults.max_value {
                self.max_value = alloy_primitives::U256::ZERO;
            }
        }
        Ok(Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(toml: &str) -> Result<InvariantSettings, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("foundry.toml");
        std::fs::write(&p, toml).unwrap();
        read(&p)
    }

    #[test]
    fn invariant_keys_are_read_and_applied_with_foundrys_defaults() {
        let s = settings("[profile.default]\nsrc = \"src\"\n[profile.default.invariant]\nruns = 10\ndepth = 20\n").unwrap();
        assert_eq!((s.runs, s.depth), (Some(10), Some(20)));
        let mut c = Config::default();
        assert!(c.apply_invariant_settings(&s).unwrap().is_empty());
        assert_eq!((c.test_limit, c.seq_len), (200, 20));
        // Older projects: a top-level [invariant].
        let s = settings("[invariant]\ndepth = 7\n").unwrap();
        assert_eq!(s.depth, Some(7));
        // None: forge's defaults.
        let mut c = Config::default();
        c.apply_invariant_settings(&settings("").unwrap()).unwrap();
        assert_eq!(
            (c.test_limit, c.seq_len),
            (FORGE_RUNS * FORGE_DEPTH, FORGE_DEPTH as usize)
        );
        // What the user gave stays.
        let mut c = Config {
            test_limit: 5,
            limit_given: true,
            seq_len: 3,
            ..Config::default()
        };
        c.apply_invariant_settings(&s).unwrap();
        assert_eq!((c.test_limit, c.seq_len), (5, 3));
        // `--timeout` alone (no call limit): foundry.toml's own `runs` still
        // bound the run; without them, the time does; an agent's campaign
        // fuzzes on.
        let timed = |runs: &str, keep_alive: bool| {
            let mut c = Config {
                test_limit: crate::config::UNLIMITED,
                timeout: Some(std::time::Duration::from_secs(60)),
                keep_alive,
                ..Config::default()
            };
            c.apply_invariant_settings(&settings(runs).unwrap())
                .unwrap();
            c.test_limit
        };
        assert_eq!(timed("[invariant]\nruns = 10\ndepth = 20\n", false), 200);
        assert_eq!(
            timed("[invariant]\ndepth = 20\n", false),
            crate::config::UNLIMITED
        );
        assert_eq!(
            timed("[invariant]\nruns = 10\n", true),
            crate::config::UNLIMITED
        );
    }

    #[test]
    fn bad_and_unsupported_keys_are_named() {
        let e = settings("[invariant]\nruns = \"many\"\n").unwrap_err();
        assert!(e.to_string().contains("invariant.runs"), "{e}");
        let e = settings("[invariant]\nfail_on_revert = 1\n").unwrap_err();
        assert!(e.to_string().contains("invariant.fail_on_revert"), "{e}");
        let s = settings("[invariant]\ncall_override = true\n").unwrap();
        let e = Config::default().apply_invariant_settings(&s).unwrap_err();
        assert!(e.to_string().contains("invariant.call_override"), "{e}");
        let s = settings("[invariant]\nfail_on_revert = true\n").unwrap();
        let mut c = Config::default();
        assert!(c.apply_invariant_settings(&s).unwrap().is_empty());
        assert!(c.fail_on_revert);
        assert_eq!((c.max_time_delay, c.max_block_delay), (0, 0));
        assert!(c.max_value.is_zero());
    }
}
