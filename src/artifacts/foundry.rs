//! Foundry's and Hardhat's output folders: full build-info (input and
//! output) when forge wrote it, else the per-contract artifacts rebuilt into
//! one standard-JSON output.

use super::{ArtifactError, Project, read_json};
use serde_json::Value;
use std::path::{Path, PathBuf};

impl Project {
    pub(super) fn from_foundry_out(dir: &Path) -> Result<Project, ArtifactError> {
        // A project folder (with foundry.toml) stands for its out/ folder.
        if dir.join("foundry.toml").is_file() && dir.join("out").is_dir() {
            return Self::from_foundry_out(&dir.join("out"));
        }
        let info_dir = dir.join("build-info");
        // forge writes full build-info (input + output) only with
        // `build_info = true`; by default it holds just the id → path map,
        // and the per-contract artifacts carry the rest.
        let full_info = std::fs::read_dir(&info_dir)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .any(|p| std::fs::read_to_string(&p).is_ok_and(|t| t.contains("\"output\"")));
        if !full_info {
            return Self::from_forge_artifacts(dir);
        }
        let mut infos: Vec<PathBuf> = std::fs::read_dir(&info_dir)
            .map_err(|e| ArtifactError::Format {
                path: dir.to_path_buf(),
                what: format!(
                    "no build-info directory ({e}); rebuild with `forge build --build-info`"
                ),
            })?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        infos.sort();
        let newest = infos
            .iter()
            .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
            .ok_or_else(|| ArtifactError::Format {
                path: info_dir.clone(),
                what: "no build-info JSON files".into(),
            })?;
        let json = read_json(newest)?;
        Self::from_build_info(&json, newest)
    }

    /// Loads forge's per-contract artifacts (`out/File.sol/Name.json`: abi,
    /// bytecode with source maps and link references, metadata, source id).
    /// Without an AST, a contract's position and kind come from its source
    /// text, and functions are not listed in LCOV (lines and branches are).
    fn from_forge_artifacts(dir: &Path) -> Result<Project, ArtifactError> {
        let fmt = |what: String| ArtifactError::Format {
            path: dir.to_path_buf(),
            what,
        };
        let mut paths: std::collections::BTreeMap<u32, String> = Default::default();
        let mut artifacts = Vec::new();
        let entries = std::fs::read_dir(dir).map_err(|source| ArtifactError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        for folder in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            if folder.file_name().is_some_and(|n| n == "build-info") {
                for f in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
                    if let Ok(info) = read_json(&f.path()) {
                        for (id, p) in info["source_id_to_path"].as_object().into_iter().flatten() {
                            if let (Ok(id), Some(p)) = (id.parse::<u32>(), p.as_str()) {
                                paths.insert(id, p.to_string());
                            }
                        }
                    }
                }
                continue;
            }
            if !folder.is_dir() {
                continue;
            }
            for f in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
                let p = f.path();
                if p.extension().is_some_and(|e| e == "json") {
                    artifacts.push(p);
                }
            }
        }
        artifacts.sort();
        if artifacts.is_empty() {
            return Err(fmt(
                "no contract artifacts (out/File.sol/Name.json, or a build-info folder); run `forge build` (Foundry) or `npx hardhat compile` (Hardhat) first".into(),
            ));
        }
        let mut out_sources = serde_json::Map::new();
        let mut out_contracts = serde_json::Map::new();
        let mut optimized = false;
        let mut asts: std::collections::HashMap<String, Value> = Default::default();
        for p in &artifacts {
            let a = read_json(p)?;
            let Some(target) = a["metadata"]["settings"]["compilationTarget"].as_object() else {
                continue; // not a contract artifact
            };
            let Some((spath, name)) = target.iter().next() else {
                continue;
            };
            let name = name.as_str().unwrap_or_default().to_string();
            optimized |= a["metadata"]["settings"]["optimizer"]["enabled"] == true;
            if let Some(id) = a["id"].as_u64() {
                paths.entry(id as u32).or_insert_with(|| spath.clone());
            }
            // forge keeps the source's AST in each of its artifacts (unless
            // `ast = false`): the code graph needs it.
            if a["ast"].is_object() {
                asts.entry(spath.clone())
                    .or_insert_with(|| a["ast"].clone());
            }
            let strip = |v: &Value| -> Value {
                let mut v = v.clone();
                if let Some(o) = v["object"].as_str() {
                    v["object"] = Value::String(o.trim_start_matches("0x").to_string());
                }
                v
            };
            let entry = out_contracts
                .entry(spath.clone())
                .or_insert_with(|| Value::Object(Default::default()));
            entry[name.as_str()] = serde_json::json!({
                "abi": a["abi"],
                "evm": {
                    "bytecode": strip(&a["bytecode"]),
                    "deployedBytecode": strip(&a["deployedBytecode"]),
                },
            });
        }
        for (id, p) in &paths {
            let mut s = serde_json::json!({ "id": id });
            if let Some(ast) = asts.remove(p) {
                s["ast"] = ast;
            }
            out_sources.insert(p.clone(), s);
        }
        let out = serde_json::json!({
            "sources": out_sources,
            "contracts": out_contracts,
            "settings": { "optimizer": { "enabled": optimized } },
        });
        let mut project = Self::from_standard_json(&out, None, dir)?;
        // No AST: where each contract is defined, and which are libraries,
        // from the source text.
        for c in &mut project.contracts {
            if let Some(text) = project
                .sources
                .iter()
                .find(|s| s.path == c.source)
                .and_then(|s| s.text.as_deref())
            {
                for (kw, library) in [
                    ("contract", false),
                    ("library", true),
                    ("abstract contract", false),
                ] {
                    if let Some(at) = find_definition(text, kw, &c.name) {
                        c.position = at as u32;
                        c.is_library = library;
                        break;
                    }
                }
            }
        }
        Ok(project)
    }

    pub(super) fn from_build_info(json: &Value, path: &Path) -> Result<Project, ArtifactError> {
        Self::from_standard_json(&json["output"], Some(&json["input"]), path)
    }
}

/// Byte offset of `kw Name` (followed by a non-identifier character).
fn find_definition(text: &str, kw: &str, name: &str) -> Option<usize> {
    let needle = format!("{kw} {name}");
    text.match_indices(&needle).map(|(i, _)| i).find(|&i| {
        let before = text[..i].chars().next_back();
        let after = text[i + needle.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}
