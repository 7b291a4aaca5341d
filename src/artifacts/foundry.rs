//! Foundry's and Hardhat's output folders: full build-info (input and
//! output) when forge wrote it, else the per-contract artifacts rebuilt into
//! one standard-JSON output.

use super::{ArtifactError, Project, read_json};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::BTreeMap;
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
        // The newest full build-info is used when it still describes the
        // per-contract artifacts; a plain `forge test` after `forge build
        // --build-info` leaves newer artifacts and a minimal build-info.
        let mut infos: Vec<PathBuf> = std::fs::read_dir(&info_dir)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        infos.sort();
        // Each file read once: the newest full one kept as text.
        let mut full: Option<(std::time::SystemTime, &PathBuf, String)> = None;
        for p in &infos {
            let when = p.metadata().and_then(|m| m.modified()).ok();
            if let (Some(when), Ok(text)) = (when, std::fs::read_to_string(p))
                && text.contains("\"output\"")
                && full.as_ref().is_none_or(|(w, _, _)| when >= *w)
            {
                full = Some((when, p, text));
            }
        }
        let artifacts = artifact_paths(dir)?;
        let loaded = (artifacts.iter())
            .map(|p| read_json(p))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some((_, info, text)) = full {
            let json: Value =
                serde_json::from_str(&text).map_err(|source| ArtifactError::Json {
                    path: info.clone(),
                    source,
                })?;
            if current(&json, &loaded) {
                return Self::from_build_info(&json, info);
            }
        }
        Self::from_forge_artifacts(dir, &infos, loaded)
    }

    /// Loads forge's per-contract artifacts (`out/File.sol/Name.json`: abi,
    /// bytecode with source maps and link references, metadata, source id).
    /// Without an AST, a contract's position and kind come from its source
    /// text, and functions are not listed in LCOV (lines and branches are).
    fn from_forge_artifacts(
        dir: &Path,
        infos: &[PathBuf],
        loaded: Vec<Value>,
    ) -> Result<Project, ArtifactError> {
        // Each compilation numbers its sources its own way (a build-info's
        // `source_id_to_path`); an artifact's source maps and AST use the
        // numbers of the compilation that wrote it. They are renumbered
        // into one space (`ids`) here.
        let mut builds: Vec<(std::time::SystemTime, BTreeMap<u32, String>)> = Vec::new();
        for f in infos {
            if let Ok(info) = read_json(f) {
                let map = (info["source_id_to_path"].as_object().into_iter().flatten())
                    .filter_map(|(id, p)| Some((id.parse::<u32>().ok()?, p.as_str()?.to_string())))
                    .collect();
                let when = f
                    .metadata()
                    .and_then(|m| m.modified())
                    .unwrap_or(std::time::UNIX_EPOCH);
                builds.push((when, map));
            }
        }
        if loaded.is_empty() {
            return Err(ArtifactError::Format {
                path: dir.to_path_buf(),
                what: "no contract artifacts (out/File.sol/Name.json, or a build-info folder); run `forge build` (Foundry) or `npx hardhat compile` (Hardhat) first".into(),
            });
        }
        // Newest first: an artifact belongs to the newest compilation that
        // fits it (below).
        builds.sort_by_key(|b| std::cmp::Reverse(b.0));
        // Numbered as solc numbers one compilation: by path, in order.
        let ids = SourceIds::default();
        let mut all: Vec<&str> = (builds.iter())
            .flat_map(|(_, m)| m.values().map(String::as_str))
            .chain(loaded.iter().filter_map(|a| {
                let target = a["metadata"]["settings"]["compilationTarget"].as_object()?;
                target.keys().next().map(String::as_str)
            }))
            .collect();
        all.sort_unstable();
        all.dedup();
        for p in all {
            ids.get(p);
        }
        let mut out_sources = serde_json::Map::new();
        let mut out_contracts = serde_json::Map::new();
        let mut optimized = false;
        let mut asts: std::collections::HashMap<String, Value> = Default::default();
        for a in &loaded {
            let Some(target) = a["metadata"]["settings"]["compilationTarget"].as_object() else {
                continue; // not a contract artifact
            };
            let Some((spath, name)) = target.iter().next() else {
                continue;
            };
            let name = name.as_str().unwrap_or_default().to_string();
            optimized |= a["metadata"]["settings"]["optimizer"]["enabled"] == true;
            let own = a["id"].as_u64().map(|id| id as u32);
            // Its compilation gave its source its id, and every file its
            // code maps to is one of its own sources (an id past a
            // compilation's sources is generated code: in another
            // compilation the same id may name a file it never imported).
            // Modification times alone cannot tell: a fresh clone gives
            // every file the same one.
            let deps = a["metadata"]["sources"].as_object();
            let mapped = mapped_ids(a);
            let build = own.and_then(|id| {
                (builds.iter())
                    .filter(|(_, m)| m.get(&id) == Some(spath))
                    .find(|(_, m)| {
                        (mapped.iter().filter_map(|k| m.get(k)))
                            .all(|p| deps.is_none_or(|d| d.contains_key(p)))
                    })
                    .map(|(_, m)| m)
            });
            let renumber = |local: u32| match build {
                Some(m) => m.get(&local).map(|path| ids.get(path)),
                // No build-info names it: its own id stands for its path.
                None => (Some(local) == own).then(|| ids.get(spath)),
            };
            // forge keeps the source's AST in each of its artifacts (unless
            // `ast = false`): the code graph needs it.
            if a["ast"].is_object() && !asts.contains_key(spath) {
                let mut ast = a["ast"].clone();
                renumber_ast(&mut ast, &renumber);
                asts.insert(spath.clone(), ast);
            }
            let strip = |v: &Value| -> Value {
                let mut v = v.clone();
                if let Some(o) = v["object"].as_str() {
                    v["object"] = Value::String(o.trim_start_matches("0x").to_string());
                }
                if let Some(m) = v["sourceMap"].as_str() {
                    v["sourceMap"] = Value::String(renumber_map(m, &renumber));
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
        for (p, id) in ids.0.borrow().iter() {
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

/// One numbering of the project's sources, by path, in the order met.
#[derive(Default)]
struct SourceIds(RefCell<BTreeMap<String, u32>>);

impl SourceIds {
    fn get(&self, path: &str) -> u32 {
        let mut m = self.0.borrow_mut();
        let next = m.len() as u32;
        *m.entry(path.to_string()).or_insert(next)
    }
}

/// The file indices an artifact's source maps (creation and runtime) use.
fn mapped_ids(artifact: &Value) -> std::collections::BTreeSet<u32> {
    ["bytecode", "deployedBytecode"]
        .iter()
        .filter_map(|b| artifact[*b]["sourceMap"].as_str())
        .flat_map(|m| m.split(';'))
        .filter_map(|entry| entry.split(':').nth(2)?.parse::<u32>().ok())
        .collect()
}

/// A source map (`s:l:f:j:m;…`, fields left out when unchanged) with each
/// file index `f` renumbered (`-1`, no source, and unknown ones stay -1).
fn renumber_map(map: &str, renumber: &impl Fn(u32) -> Option<u32>) -> String {
    map.split(';')
        .map(|entry| {
            let mut fields: Vec<String> = entry.split(':').map(str::to_string).collect();
            if let Some(f) = fields.get_mut(2)
                && let Ok(local) = f.parse::<u32>()
            {
                *f = renumber(local).map_or("-1".to_string(), |g| g.to_string());
            }
            fields.join(":")
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// An AST with each location (`src`, `nameLocation`, `nameLocations`:
/// `start:length:file`) renumbered.
fn renumber_ast(node: &mut Value, renumber: &impl Fn(u32) -> Option<u32>) {
    let location = |v: &mut Value| {
        if let Some((head, file)) = v.as_str().and_then(|s| s.rsplit_once(':'))
            && let Ok(local) = file.parse::<u32>()
        {
            let g = renumber(local).map_or("-1".to_string(), |g| g.to_string());
            *v = Value::String(format!("{head}:{g}"));
        }
    };
    match node {
        Value::Object(o) => {
            for (k, v) in o.iter_mut() {
                match (k.as_str(), v) {
                    ("src" | "nameLocation", v @ Value::String(_)) => location(v),
                    ("nameLocations", Value::Array(a)) => a.iter_mut().for_each(location),
                    (_, v) => renumber_ast(v, renumber),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|v| renumber_ast(v, renumber)),
        _ => {}
    }
}

/// The per-contract artifacts of a Foundry `out/` (`File.sol/Name.json`),
/// in path order.
fn artifact_paths(dir: &Path) -> Result<Vec<PathBuf>, ArtifactError> {
    let entries = std::fs::read_dir(dir).map_err(|source| ArtifactError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut artifacts: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|f| f.is_dir() && f.file_name().is_some_and(|n| n != "build-info"))
        .flat_map(|f| std::fs::read_dir(f).into_iter().flatten().flatten())
        .map(|f| f.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    artifacts.sort();
    Ok(artifacts)
}

/// Whether full build-info `json` still describes every per-contract
/// artifact (same deployed code): a later compilation (a plain `forge test`
/// after `forge build --build-info`) rewrites the artifacts of what it
/// recompiled, and leaves only a minimal build-info of its own.
fn current(json: &Value, artifacts: &[Value]) -> bool {
    let code = |v: &Value| v.as_str().map(|s| s.trim_start_matches("0x").to_string());
    artifacts.iter().all(|a| {
        let Some((path, name)) = (a["metadata"]["settings"]["compilationTarget"].as_object())
            .and_then(|t| t.iter().next())
        else {
            return true;
        };
        let built = &json["output"]["contracts"][path][name.as_str().unwrap_or_default()];
        code(&built["evm"]["deployedBytecode"]["object"]) == code(&a["deployedBytecode"]["object"])
    })
}
