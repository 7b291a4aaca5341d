//! Which compiler compiles a `.sol` file: those found (`RUDDER_SOLC` alone
//! when set; else a project-local solcjs, the native `solc`, a global
//! `solcjs`), each with its version, in that order, the ones every
//! `pragma solidity` of the sources allows first.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable (and `--solc`) that names the one compiler to use: a solc
/// binary, or an npm `solc` package folder (solcjs).
pub const SOLC_VAR: &str = "RUDDER_SOLC";

/// A compiler rudder can run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Compiler {
    /// `solc --standard-json` (a command name or a path).
    Native(PathBuf),
    /// An npm `solc` package folder, loaded with node.
    SolcJs(PathBuf),
}

/// A compiler found, where, and its version when it says.
#[derive(Clone, Debug)]
pub(super) struct Found {
    pub compiler: Compiler,
    pub version: Option<semver::Version>,
    /// Where it was found, for messages (`node_modules/solc`, `PATH`, …).
    pub origin: String,
}

impl std::fmt::Display for Found {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.version {
            Some(v) => write!(f, "{v} ({})", self.origin),
            None => write!(f, "unknown version ({})", self.origin),
        }
    }
}

/// The compiler a campaign's config named (`solc`, `--solc`), over
/// [`SOLC_VAR`].
static CHOSEN: parking_lot::RwLock<Option<PathBuf>> = parking_lot::RwLock::new(None);

/// Makes `path` (a solc binary, or an npm `solc` package folder) the one
/// compiler of this process from now on (a campaign's `solc`).
pub fn use_compiler(path: PathBuf) {
    *CHOSEN.write() = Some(path);
}

/// Every compiler found, in the order they are tried; `Err` when the one
/// named (`--solc`, [`SOLC_VAR`]) is none.
pub(super) fn found() -> Result<Vec<Found>, String> {
    let chosen = (CHOSEN.read().clone().map(|p| (p, "solc")))
        .or_else(|| Some((PathBuf::from(std::env::var_os(SOLC_VAR)?), SOLC_VAR)))
        .filter(|(p, _)| !p.as_os_str().is_empty());
    if let Some((p, by)) = chosen {
        let origin = format!("{by} {}", p.display());
        let f = if p.join("package.json").is_file() {
            solcjs(&p, origin)
        } else {
            native(p.clone(), origin)
        };
        if f.version.is_none() {
            return Err(format!(
                "{by} {}: neither a solc binary that answers `--version` nor an npm solc package \
                 folder (with its package.json)",
                p.display()
            ));
        }
        return Ok(vec![f]);
    }
    let mut out = Vec::new();
    for dir in ["node_modules/solc", "contracts/.tools/node_modules/solc"] {
        if Path::new(dir).join("package.json").is_file() {
            let abs = std::fs::canonicalize(dir).unwrap_or_else(|_| PathBuf::from(dir));
            out.push(solcjs(&abs, dir.to_string()));
        }
    }
    let solc = native(PathBuf::from("solc"), "solc on PATH".into());
    if solc.version.is_some() {
        out.push(solc);
    }
    if let Some(dir) = global_solcjs_module() {
        out.push(solcjs(&dir, "solcjs on PATH".into()));
    }
    Ok(out)
}

fn solcjs(dir: &Path, origin: String) -> Found {
    let version = std::fs::read_to_string(dir.join("package.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| semver::Version::parse(v["version"].as_str()?).ok());
    Found {
        compiler: Compiler::SolcJs(dir.to_path_buf()),
        version,
        origin,
    }
}

/// A native solc, its version from `--version` (`Version: 0.8.30+commit…`);
/// none when it does not run.
fn native(cmd: PathBuf, origin: String) -> Found {
    let version = Command::new(&cmd)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| {
            let text = String::from_utf8_lossy(&o.stdout).into_owned();
            let v = text
                .split("Version:")
                .nth(1)?
                .trim()
                .split(['+', '-', ' ', '\n'])
                .next()?
                .to_string();
            semver::Version::parse(&v).ok()
        });
    Found {
        compiler: Compiler::Native(cmd),
        version,
        origin,
    }
}

/// The solc package behind a `solcjs` command on `PATH` (npm links
/// `bin/solcjs` to the package's `solc.js`): its folder, to load it with
/// node.
fn global_solcjs_module() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).find_map(|dir| {
        let script = std::fs::canonicalize(dir.join("solcjs")).ok()?;
        let module = script.parent()?;
        module
            .join("package.json")
            .is_file()
            .then(|| module.to_path_buf())
    })
}

/// The version ranges of a source's `pragma solidity` statements, as
/// written (`^0.8.0`, `>=0.6.0 <0.9.0`).
pub(super) fn pragmas(text: &str) -> Vec<String> {
    let code = super::imports::without_comments(text);
    let mut out = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("pragma") {
        let after = &rest[at + "pragma".len()..];
        let boundary = at == 0 || !rest.as_bytes()[at - 1].is_ascii_alphanumeric();
        let trimmed = after.trim_start();
        if boundary
            && trimmed.starts_with("solidity")
            && let Some(end) = trimmed.find(';')
        {
            out.push(trimmed["solidity".len()..end].trim().to_string());
        }
        rest = after;
    }
    out
}

/// Whether Solidity's version range `range` (npm-style: `^0.8.0`,
/// `>=0.6.0 <0.9.0`, `0.8.7`, `a || b`) allows `v`; `None` when the range
/// does not parse.
pub(super) fn allows(range: &str, v: &semver::Version) -> Option<bool> {
    // Pre-release and build tags are not part of a compiler's match.
    let v = semver::Version::new(v.major, v.minor, v.patch);
    let mut any = false;
    for alternative in range.split("||") {
        let mut parts: Vec<String> = Vec::new();
        let mut words = alternative.split_whitespace().peekable();
        while let Some(w) = words.next() {
            // `>= 0.8.0`: an operator and its version apart.
            let w = if matches!(w, ">" | ">=" | "<" | "<=" | "=" | "^" | "~") {
                format!("{w}{}", words.next()?)
            } else {
                w.to_string()
            };
            // A bare version is exact in Solidity (a caret in Cargo's syntax).
            let w = if w.starts_with(|c: char| c.is_ascii_digit()) {
                format!("={w}")
            } else {
                w
            };
            parts.push(w);
        }
        if parts.is_empty() {
            return None;
        }
        let req = semver::VersionReq::parse(&parts.join(", ")).ok()?;
        any |= req.matches(&v);
    }
    Some(any)
}

/// The compilers to try for sources with `ranges` (file, range): those
/// every range allows first, then those of unknown version; `Err` names a
/// range none allows, with the versions found.
pub(super) fn choose(found: Vec<Found>, ranges: &[(String, String)]) -> Result<Vec<Found>, String> {
    let fits = |f: &Found| -> Option<bool> {
        let v = f.version.as_ref()?;
        let mut all = true;
        for (_, r) in ranges {
            all &= allows(r, v)?;
        }
        Some(all)
    };
    let (mut good, mut unknown) = (Vec::new(), Vec::new());
    for f in &found {
        match fits(f) {
            Some(true) => good.push(f.clone()),
            Some(false) => {}
            None => unknown.push(f.clone()),
        }
    }
    if good.is_empty() && unknown.is_empty() && !found.is_empty() {
        let v0 = found.iter().find_map(|f| f.version.as_ref());
        let (file, range) = (ranges.iter())
            .find(|(_, r)| v0.is_some_and(|v| allows(r, v) == Some(false)))
            .or(ranges.first())
            .cloned()
            .unwrap_or_default();
        let list: Vec<String> = found.iter().map(ToString::to_string).collect();
        return Err(format!(
            "`pragma solidity {range}` ({file}) allows none of the compilers found: {}; install \
             one it allows where rudder runs (`npm install solc@VERSION`), or point --solc (the \
             config's `solc`, or {SOLC_VAR}) at a solc binary or an npm solc package folder",
            list.join(", ")
        ));
    }
    good.extend(unknown);
    Ok(good)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> semver::Version {
        semver::Version::parse(s).unwrap()
    }

    #[test]
    fn solidity_ranges_read_as_solc_reads_them() {
        assert_eq!(allows("^0.8.0", &v("0.8.30")), Some(true));
        assert_eq!(allows("^0.8.0", &v("0.7.5")), Some(false));
        assert_eq!(allows("^0.8.0", &v("0.9.0")), Some(false));
        assert_eq!(allows("0.8.7", &v("0.8.7")), Some(true));
        assert_eq!(allows("0.8.7", &v("0.8.8")), Some(false));
        assert_eq!(allows(">=0.6.0 <0.9.0", &v("0.8.25")), Some(true));
        assert_eq!(allows(">= 0.6.0 < 0.8.0", &v("0.8.25")), Some(false));
        assert_eq!(allows("^0.4.24 || ^0.8.0", &v("0.8.1")), Some(true));
        assert_eq!(allows("~0.7.0", &v("0.7.6")), Some(true));
        assert_eq!(allows(">=0.8.0", &v("0.8.25+commit.b61c2a91")), Some(true));
        assert_eq!(allows("^x.y", &v("0.8.0")), None);
    }

    #[test]
    fn pragmas_are_read_past_comments() {
        let text = "// pragma solidity 0.4.0;\n/* pragma solidity ^0.5.0; */\n\
                    pragma solidity >=0.6.0 <0.9.0;\npragma abicoder v2;\ncontract C {}";
        assert_eq!(pragmas(text), [">=0.6.0 <0.9.0"]);
    }

    #[test]
    fn the_compilers_a_range_allows_come_first_and_none_is_an_error_naming_it() {
        let at = |version: &str, origin: &str| Found {
            compiler: Compiler::Native(PathBuf::from(origin)),
            version: (!version.is_empty()).then(|| v(version)),
            origin: origin.into(),
        };
        let ranges = [("a.sol".to_string(), "^0.8.0".to_string())];
        let got = choose(
            vec![at("0.7.5", "old"), at("", "odd"), at("0.8.25", "new")],
            &ranges,
        )
        .unwrap();
        let order: Vec<&str> = got.iter().map(|f| f.origin.as_str()).collect();
        assert_eq!(order, ["new", "odd"]);
        let e = choose(vec![at("0.7.5", "node_modules/solc")], &ranges).unwrap_err();
        assert!(e.contains("`pragma solidity ^0.8.0` (a.sol)"), "{e}");
        assert!(e.contains("0.7.5 (node_modules/solc)"), "{e}");
        assert!(e.contains(SOLC_VAR), "{e}");
    }
}
