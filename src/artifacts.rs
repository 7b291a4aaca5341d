//! Compiled targets: solc standard-JSON output, a Foundry `out/` directory
//! (its `build-info`), or a `.sol` file compiled on the spot with `solc` or
//! npm's solcjs. Everything downstream (executor, coverage, LCOV) reads a
//! [`Project`].

mod compile;
mod foundry;
pub mod functions;
pub mod imports;
pub mod solc;
pub mod sourcemap;

use alloy_json_abi::JsonAbi;
use alloy_primitives::Bytes;
use serde_json::Value;
use sourcemap::LineIndex;
use std::path::{Path, PathBuf};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ArtifactError {
    #[error("target {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("target {path}: not JSON: {source}")]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("target {path}: {what}")]
    Format { path: PathBuf, what: String },
    #[error(
        "cannot compile {path}: no Solidity compiler found. Install `solc` on PATH, or npm's solcjs \
         (`npm install solc` here or globally, or run contracts/build.sh), or pass compiled \
         output (solc standard-JSON or a Foundry out/ directory)"
    )]
    NoCompiler { path: PathBuf },
    #[error("compiling {path} failed:\n{errors}")]
    Compile { path: PathBuf, errors: String },
    #[error("--contract {name:?}: no deployable contract of that name; candidates: {candidates}")]
    NoSuchContract { name: String, candidates: String },
    #[error(
        "target {path}: no deployable contract (every contract is abstract, an interface or a library)"
    )]
    NoContract { path: PathBuf },
    #[error(
        "contract {name}: links library placeholder {placeholder}, which names no library of this compilation (compile the library with it, or deploy it with `deployContracts`)"
    )]
    Unlinked { name: String, placeholder: String },
}

/// Where a contract's bytecode needs a library's address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// The library's fully qualified name, `path:Name`.
    pub library: String,
    /// Byte offsets of the 20-byte placeholder in the creation code.
    pub offsets: Vec<usize>,
}

/// A function or modifier definition in a source, from the AST.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionSpan {
    pub name: String,
    pub contract: String,
    pub start: u32,
    pub len: u32,
}

/// A source file of the compilation.
#[derive(Clone, Debug)]
pub struct Source {
    /// solc's source id (the `f` of source maps).
    pub id: u32,
    /// The path as compiled (the standard-JSON key), relative to the project root.
    pub path: String,
    /// The text, when found (needed for lines).
    pub text: Option<String>,
    /// The file on disk, absolute, when it was found (LCOV's `SF:`, so that
    /// genhtml finds it from any directory).
    pub file: Option<PathBuf>,
    pub lines: LineIndex,
    pub functions: Vec<FunctionSpan>,
    /// solc's compact AST of the source, when the output holds it (the
    /// code graph reads it; see [`crate::graph`]).
    pub ast: Option<std::sync::Arc<Value>>,
}

/// A deployable contract.
#[derive(Clone, Debug)]
pub struct Contract {
    pub name: String,
    /// Path of the source that defines it.
    pub source: String,
    pub abi: JsonAbi,
    pub creation_code: Bytes,
    pub runtime_code: Bytes,
    pub creation_map: Option<String>,
    pub runtime_map: Option<String>,
    /// Byte offset of the definition in its source (to pick the last one).
    pub position: u32,
    /// A `library` (deployed for others to link, never the target by default).
    pub is_library: bool,
    /// Libraries the creation code must be linked against (zeros until then).
    pub links: Vec<Link>,
}

impl Contract {
    /// `path:Name`, the key solc links by.
    pub fn qualified_name(&self) -> String {
        format!("{}:{}", self.source, self.name)
    }

    /// The creation code with every library placeholder replaced by the
    /// address `address_of` gives for it.
    pub fn linked_creation_code(
        &self,
        address_of: impl Fn(&str) -> Option<alloy_primitives::Address>,
    ) -> Result<Bytes, ArtifactError> {
        let mut code = self.creation_code.to_vec();
        for link in &self.links {
            let a = address_of(&link.library).ok_or_else(|| ArtifactError::Unlinked {
                name: self.name.clone(),
                placeholder: link.library.clone(),
            })?;
            for &at in &link.offsets {
                code[at..at + 20].copy_from_slice(a.as_slice());
            }
        }
        Ok(code.into())
    }
}

/// Hex bytecode whose library placeholders (`__$…$__` since solc 0.5,
/// `__path:Name___…` before) are replaced by zeros; the placeholders are
/// returned with their byte offsets.
/// Byte offsets of library placeholders with their text.
type Holes = Vec<(usize, String)>;

fn decode_linkable(hex: &str) -> Result<(Vec<u8>, Holes), String> {
    let hex = hex.strip_prefix("0x").unwrap_or(hex);
    let mut clean = String::with_capacity(hex.len());
    let mut holes = Vec::new();
    let mut i = 0;
    while i < hex.len() {
        if hex[i..].starts_with("__") {
            let end = (i + 40).min(hex.len());
            if end - i < 40 || !hex.is_char_boundary(end) {
                return Err(format!("truncated library placeholder at {}", i / 2));
            }
            holes.push((i / 2, hex[i..end].to_string()));
            clean.push_str(&"0".repeat(40));
            i = end;
        } else {
            let c = &hex[i..i + 1];
            clean.push_str(c);
            i += 1;
        }
    }
    let bytes = alloy_primitives::hex::decode(&clean).map_err(|e| e.to_string())?;
    Ok((bytes, holes))
}

/// Which library (fully qualified name) a placeholder stands for.
fn placeholder_library<'a>(placeholder: &str, libraries: &'a [String]) -> Option<&'a String> {
    if let Some(hash) = placeholder
        .strip_prefix("__$")
        .and_then(|p| p.strip_suffix("$__"))
    {
        return libraries.iter().find(|fq| {
            let h = alloy_primitives::keccak256(fq.as_bytes());
            alloy_primitives::hex::encode(&h[..17]) == hash.to_ascii_lowercase()
        });
    }
    // Legacy: the (possibly truncated) name, padded with underscores.
    let text = placeholder.trim_start_matches("__").trim_end_matches('_');
    if text.is_empty() {
        return None;
    }
    libraries
        .iter()
        .find(|fq| fq.as_str() == text)
        .or_else(|| libraries.iter().find(|fq| fq.starts_with(text)))
        .or_else(|| {
            libraries
                .iter()
                .find(|fq| fq.rsplit(':').next().is_some_and(|n| n.starts_with(text)))
        })
}

/// A compilation: its sources and deployable contracts.
#[derive(Clone, Debug)]
pub struct Project {
    pub sources: Vec<Source>,
    pub contracts: Vec<Contract>,
    /// Interfaces and abstract contracts (no code): their ABI.
    pub interfaces: Vec<Interface>,
    /// Where the target was loaded from.
    pub origin: PathBuf,
    /// What the user should know (sources not found, optimizer-on coverage).
    pub warnings: Vec<String>,
    /// Whether the compilation ran solc's optimizer (coverage is then
    /// approximate: merged blocks keep one source location).
    pub optimized: bool,
}

/// An interface or abstract contract of the project: a name and an ABI.
#[derive(Clone, Debug)]
pub struct Interface {
    pub name: String,
    pub source: String,
    pub abi: JsonAbi,
}

/// The files that make a folder a Hardhat project.
const HARDHAT_CONFIGS: [&str; 4] = [
    "hardhat.config.js",
    "hardhat.config.ts",
    "hardhat.config.cjs",
    "hardhat.config.mjs",
];

impl Project {
    /// Loads `path`: a `.sol` file, a standard-JSON output file, a build-info
    /// file (Foundry's or Hardhat's), a Foundry project or its `out/`
    /// directory, or a Hardhat project or its `artifacts/` directory.
    pub fn load(path: &Path) -> Result<Project, ArtifactError> {
        if path.is_dir() {
            if let Some(config) = HARDHAT_CONFIGS.iter().find(|c| path.join(c).is_file()) {
                let artifacts = path.join("artifacts");
                if !artifacts.join("build-info").is_dir() {
                    return Err(ArtifactError::Format {
                        path: path.to_path_buf(),
                        what: format!(
                            "a Hardhat project ({config}) without artifacts/build-info: run `npx hardhat compile` first"
                        ),
                    });
                }
                return Self::from_foundry_out(&artifacts);
            }
            return Self::from_foundry_out(path);
        }
        if path.extension().is_some_and(|e| e == "sol") {
            return Self::compile(path);
        }
        let json = read_json(path)?;
        if json.get("output").is_some() && json.get("input").is_some() {
            return Self::from_build_info(&json, path);
        }
        Self::from_standard_json(&json, None, path)
    }

    /// The contract to fuzz: `name`, or the one defined last (Echidna's default).
    pub fn contract(&self, name: Option<&str>) -> Result<&Contract, ArtifactError> {
        match name {
            Some(n) => self.contracts.iter().find(|c| c.name == n).ok_or_else(|| {
                ArtifactError::NoSuchContract {
                    name: n.to_string(),
                    candidates: self
                        .contracts
                        .iter()
                        .map(|c| c.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                }
            }),
            None => self.default_contract(None),
        }
    }

    /// The contract a campaign fuzzes when none is named: the last one
    /// defined (a harness comes after the contracts it builds on), of the
    /// `.sol` file itself when one was compiled (not of a file it imports),
    /// and, given the test prefix, the last one that has a `prefix*`
    /// function when another has none (a file's properties are in its
    /// harness, wherever it stands). A contract another candidate creates
    /// (`new T()`: its creation code is inside the other's) is what a
    /// harness deploys, not the harness, wherever it stands in the file.
    pub fn default_contract(&self, prefix: Option<&str>) -> Result<&Contract, ArtifactError> {
        let root = self.origin.to_string_lossy();
        let in_root = |c: &&Contract| c.source == root;
        let all = || self.contracts.iter().filter(|c| !c.is_library);
        let own = all().any(|c| in_root(&c));
        let listed = || all().filter(move |c| !own || in_root(c));
        let created = |c: &Contract| {
            !c.creation_code.is_empty()
                && listed().any(|o| {
                    o.name != c.name
                        && (o.creation_code.windows(c.creation_code.len()))
                            .any(|w| w == &c.creation_code[..])
                })
        };
        let roots: Vec<&Contract> = listed().filter(|c| !created(c)).collect();
        let roots = &roots;
        let candidates = || {
            let all_created = roots.is_empty();
            listed().filter(move |c| all_created || roots.iter().any(|r| std::ptr::eq(*r, *c)))
        };
        let id_of = |c: &Contract| {
            self.sources
                .iter()
                .find(|s| s.path == c.source)
                .map_or(0, |s| s.id)
        };
        let has_tests = |c: &&Contract| {
            prefix.is_some_and(|p| c.abi.functions().any(|f| f.name.starts_with(p)))
        };
        let last = |with_tests: bool| {
            candidates()
                .filter(|c| !with_tests || has_tests(c))
                .max_by_key(|c| (id_of(c), c.position))
        };
        last(true)
            .or_else(|| last(false))
            .ok_or_else(|| ArtifactError::NoContract {
                path: self.origin.clone(),
            })
    }

    /// Where function `name` is defined, as its source and 1-based line:
    /// in `contract` when it defines it, else in the first source that
    /// defines a function of that name (an inherited function lives in a
    /// base contract). `None` without function spans (no AST, no text).
    pub fn function_line(&self, contract: &str, name: &str) -> Option<(&Source, u32)> {
        let spans = || {
            self.sources
                .iter()
                .flat_map(|s| s.functions.iter().map(move |f| (s, f)))
                // A span's name is `Contract.function`.
                .filter(|(_, f)| f.name.rsplit('.').next() == Some(name))
        };
        let (source, f) = spans()
            .find(|(_, f)| f.contract == contract)
            .or_else(|| spans().next())?;
        Some((source, source.lines.line(f.start as usize)))
    }

    pub fn source_by_id(&self, id: u32) -> Option<&Source> {
        self.sources.iter().find(|s| s.id == id)
    }

    /// The contract with this fully qualified (`path:Name`) or plain name.
    pub fn by_name(&self, name: &str) -> Option<&Contract> {
        self.contracts
            .iter()
            .find(|c| c.qualified_name() == name)
            .or_else(|| self.contracts.iter().find(|c| c.name == name))
    }

    /// The libraries `contract` needs, transitively, dependencies first.
    pub fn link_order<'a>(
        &'a self,
        contract: &'a Contract,
    ) -> Result<Vec<&'a Contract>, ArtifactError> {
        fn visit<'a>(
            p: &'a Project,
            c: &'a Contract,
            seen: &mut Vec<String>,
            out: &mut Vec<&'a Contract>,
            depth: usize,
        ) -> Result<(), ArtifactError> {
            for link in &c.links {
                if seen.contains(&link.library) {
                    continue;
                }
                let lib = p
                    .by_name(&link.library)
                    .ok_or_else(|| ArtifactError::Unlinked {
                        name: c.name.clone(),
                        placeholder: link.library.clone(),
                    })?;
                if depth > 64 {
                    return Err(ArtifactError::Format {
                        path: p.origin.clone(),
                        what: format!("library links of {} are cyclic", c.name),
                    });
                }
                seen.push(link.library.clone());
                visit(p, lib, seen, out, depth + 1)?;
                out.push(lib);
            }
            Ok(())
        }
        let mut out = Vec::new();
        visit(self, contract, &mut Vec::new(), &mut out, 0)?;
        Ok(out)
    }

    /// Reads solc standard-JSON output; source texts come from `input` when
    /// given, else from disk (the path as compiled, relative to the current
    /// directory or to an ancestor of the artifact's directory).
    pub fn from_standard_json(
        out: &Value,
        input: Option<&Value>,
        path: &Path,
    ) -> Result<Project, ArtifactError> {
        let fmt = |what: String| ArtifactError::Format {
            path: path.to_path_buf(),
            what,
        };
        let srcs = out["sources"].as_object().ok_or_else(|| {
            fmt("no `sources` object (is this solc standard-JSON output?)".into())
        })?;
        let mut sources = Vec::new();
        let mut warnings = Vec::new();
        let mut missing: Vec<&str> = Vec::new();
        for (spath, s) in srcs {
            let id = s["id"]
                .as_u64()
                .ok_or_else(|| fmt(format!("source {spath} has no id")))?
                as u32;
            let text = input
                .and_then(|i| i["sources"][spath]["content"].as_str().map(str::to_string))
                .or_else(|| {
                    out["sources"][spath]["content"]
                        .as_str()
                        .map(str::to_string)
                })
                .or_else(|| find_source_text(spath, path));
            let file = find_source_file(spath, path);
            if text.is_none() {
                missing.push(spath);
            }
            let lines = text.as_deref().map(LineIndex::new).unwrap_or_default();
            let mut functions = Vec::new();
            collect_functions(&s["ast"], "", &mut functions);
            // Without an AST (Foundry's per-contract artifacts), from the
            // text: LCOV's function records on every loader.
            if !s["ast"].is_object()
                && let Some(t) = &text
            {
                functions = functions::scan(t);
            }
            let ast = s["ast"]
                .is_object()
                .then(|| std::sync::Arc::new(s["ast"].clone()));
            sources.push(Source {
                id,
                path: spath.clone(),
                text,
                file,
                lines,
                functions,
                ast,
            });
        }
        sources.sort_by_key(|s| s.id);
        // One warning for every source not found (a dependency's folder
        // that is not there names dozens).
        if !missing.is_empty() {
            let shown: Vec<&str> = missing.iter().take(3).copied().collect();
            let more = match missing.len() - shown.len() {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            warnings.push(format!(
                "{} source{} not found ({}{more}; looked relative to the current directory and to each folder above {}): {} lines and branches are left out of coverage and LCOV. Run rudder from the project root, or pass a Foundry build-info file (it embeds the sources)",
                missing.len(),
                if missing.len() == 1 { " was" } else { "s were" },
                shown.join(", "),
                path.display(),
                if missing.len() == 1 { "its" } else { "their" },
            ));
        }
        let mut positions = std::collections::HashMap::new();
        for s in srcs.values() {
            collect_contract_positions(&s["ast"], &mut positions);
        }
        let mut pending: Vec<(Contract, Holes)> = Vec::new();
        let mut interfaces = Vec::new();
        let mut contracts = Vec::new();
        let files = out["contracts"]
            .as_object()
            .ok_or_else(|| fmt("no `contracts` object".into()))?;
        for (spath, file) in files {
            for (name, c) in file.as_object().into_iter().flatten() {
                let creation = c["evm"]["bytecode"]["object"].as_str().unwrap_or("");
                let runtime = c["evm"]["deployedBytecode"]["object"]
                    .as_str()
                    .unwrap_or("");
                if creation.is_empty() || runtime.is_empty() {
                    // An abstract contract or interface: its ABI alone (a
                    // Foundry suite may call an address through it).
                    if let Ok(abi) = serde_json::from_value::<JsonAbi>(c["abi"].clone())
                        && abi.functions().next().is_some()
                    {
                        interfaces.push(Interface {
                            name: name.clone(),
                            source: spath.clone(),
                            abi,
                        });
                    }
                    continue;
                }
                let abi: JsonAbi = serde_json::from_value(c["abi"].clone())
                    .map_err(|e| fmt(format!("contract {name}: bad ABI: {e}")))?;
                let decode = |hex: &str| {
                    decode_linkable(hex)
                        .map_err(|e| fmt(format!("contract {name}: bytecode is not hex: {e}")))
                };
                let (creation_code, holes) = decode(creation)?;
                let (runtime_code, _) = decode(runtime)?;
                let map = |v: &Value| v.as_str().filter(|s| !s.is_empty()).map(str::to_string);
                let (position, is_library) = positions
                    .get(&(spath.clone(), name.clone()))
                    .copied()
                    .unwrap_or((0, false));
                pending.push((
                    Contract {
                        name: name.clone(),
                        source: spath.clone(),
                        abi,
                        creation_code: creation_code.into(),
                        runtime_code: runtime_code.into(),
                        creation_map: map(&c["evm"]["bytecode"]["sourceMap"]),
                        runtime_map: map(&c["evm"]["deployedBytecode"]["sourceMap"]),
                        position,
                        is_library,
                        links: Vec::new(),
                    },
                    holes,
                ));
            }
        }
        let libraries: Vec<String> = pending.iter().map(|(c, _)| c.qualified_name()).collect();
        for (mut c, holes) in pending {
            for (offset, placeholder) in holes {
                let lib = placeholder_library(&placeholder, &libraries).ok_or_else(|| {
                    ArtifactError::Unlinked {
                        name: c.name.clone(),
                        placeholder: placeholder.clone(),
                    }
                })?;
                match c.links.iter_mut().find(|l| &l.library == lib) {
                    Some(l) => l.offsets.push(offset),
                    None => c.links.push(Link {
                        library: lib.clone(),
                        offsets: vec![offset],
                    }),
                }
            }
            contracts.push(c);
        }
        let optimized = input
            .and_then(|i| i["settings"]["optimizer"]["enabled"].as_bool())
            .unwrap_or(false)
            || out["settings"]["optimizer"]["enabled"]
                .as_bool()
                .unwrap_or(false);
        Ok(Project {
            sources,
            contracts,
            interfaces,
            origin: path.to_path_buf(),
            warnings,
            optimized,
        })
    }
}

fn read_json(path: &Path) -> Result<Value, ArtifactError> {
    let text = std::fs::read_to_string(path).map_err(|source| ArtifactError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| ArtifactError::Json {
        path: path.to_path_buf(),
        source,
    })
}

fn find_source_text(spath: &str, artifact: &Path) -> Option<String> {
    find_source_file(spath, artifact).and_then(|p| std::fs::read_to_string(p).ok())
}

/// Where source `spath` is on disk, absolute: relative to the current
/// directory or to a folder above the artifact (a project root), else, for
/// a remapped import kept under its import string
/// (`@openzeppelin/…`), where the project's remappings, `node_modules/` or
/// `lib/` put it.
fn find_source_file(spath: &str, artifact: &Path) -> Option<PathBuf> {
    let parent = std::path::absolute(artifact)
        .ok()
        .and_then(|a| a.parent().map(Path::to_path_buf));
    let mut bases: Vec<PathBuf> = vec![PathBuf::from(".")];
    let mut dir = parent.clone();
    while let Some(d) = dir {
        bases.push(d.clone());
        dir = d.parent().map(Path::to_path_buf);
    }
    bases
        .iter()
        .map(|b| b.join(spath))
        .find(|p| p.is_file())
        .or_else(|| {
            let relative = spath.starts_with("./") || spath.starts_with("../");
            (!relative && !Path::new(spath).is_absolute())
                .then(|| imports::locate(spath, parent.as_deref()?))
                .flatten()
        })
        .and_then(|p| p.canonicalize().ok())
}

fn parse_src(src: &str) -> Option<(u32, u32)> {
    let mut it = src.split(':');
    Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
}

fn collect_functions(node: &Value, contract: &str, out: &mut Vec<FunctionSpan>) {
    let kind = node["nodeType"].as_str().unwrap_or("");
    let contract = if kind == "ContractDefinition" {
        node["name"].as_str().unwrap_or(contract)
    } else {
        contract
    };
    if (kind == "FunctionDefinition" || kind == "ModifierDefinition")
        && node["body"].is_object()
        && let Some((start, len)) = node["src"].as_str().and_then(parse_src)
    {
        let name = match node["kind"].as_str() {
            Some("constructor") => "constructor".to_string(),
            Some("fallback") => "fallback".to_string(),
            Some("receive") => "receive".to_string(),
            _ => node["name"].as_str().unwrap_or("").to_string(),
        };
        out.push(FunctionSpan {
            name: format!("{contract}.{name}"),
            contract: contract.to_string(),
            start,
            len,
        });
    }
    for key in ["nodes", "body"] {
        match &node[key] {
            Value::Array(children) => {
                for c in children {
                    collect_functions(c, contract, out);
                }
            }
            Value::Object(_) if key == "nodes" => collect_functions(&node[key], contract, out),
            _ => {}
        }
    }
}

/// `(path, name)` → (offset of the definition, whether it is a library).
fn collect_contract_positions(
    node: &Value,
    out: &mut std::collections::HashMap<(String, String), (u32, bool)>,
) {
    if node["nodeType"] == "SourceUnit" {
        let path = node["absolutePath"].as_str().unwrap_or("").to_string();
        for c in node["nodes"].as_array().into_iter().flatten() {
            if c["nodeType"] == "ContractDefinition"
                && let (Some(name), Some((start, _))) =
                    (c["name"].as_str(), c["src"].as_str().and_then(parse_src))
            {
                let library = c["contractKind"] == "library";
                out.insert((path.clone(), name.to_string()), (start, library));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::compile::compiler_json;
    use super::*;

    #[test]
    fn compiler_output_is_read_past_banner_lines() {
        let banner = ">>> Cannot retry compilation with SMT because there are no SMT solvers available.\n{\"sources\": {}}\n";
        assert_eq!(
            compiler_json(banner).unwrap(),
            serde_json::json!({"sources": {}})
        );
        assert_eq!(
            compiler_json("  {\"a\": 1}").unwrap(),
            serde_json::json!({"a": 1})
        );
        assert!(matches!(compiler_json("Error: no input"), Err(None)));
        assert!(matches!(compiler_json("x\n{\"a\": "), Err(Some(_))));
    }

    #[test]
    fn loads_the_bundled_standard_json() {
        let p = Project::load(Path::new("contracts/out/SetSeven.json")).unwrap();
        let c = p.contract(None).unwrap();
        assert_eq!(c.name, "SetSeven");
        assert!(!c.runtime_code.is_empty());
        assert!(c.runtime_map.is_some());
        let src = &p.sources[0];
        assert_eq!(src.path, "contracts/SetSeven.sol");
        assert!(src.text.as_ref().unwrap().contains("contract SetSeven"));
        let names: Vec<_> = src.functions.iter().map(|f| f.name.as_str()).collect();
        assert!(names.contains(&"SetSeven.set"), "{names:?}");
        assert!(matches!(
            p.contract(Some("Nope")),
            Err(ArtifactError::NoSuchContract { .. })
        ));
    }

    #[test]
    fn compiles_a_sol_file_with_solcjs() {
        if !Path::new("contracts/.tools/node_modules/solc/package.json").is_file() {
            println!("SKIPPED: no solcjs in contracts/.tools (run contracts/build.sh)");
            return;
        }
        let p = Project::load(Path::new("contracts/SetSeven.sol")).unwrap();
        let c = p.contract(None).unwrap();
        assert_eq!(c.name, "SetSeven");
        assert!(c.runtime_map.is_some());
        assert!(p.sources[0].text.is_some());
    }

    #[test]
    fn compiles_a_sol_file_whose_imports_are_relative() {
        if !Path::new("contracts/.tools/node_modules/solc/package.json").is_file() {
            println!("SKIPPED: no solcjs in contracts/.tools (run contracts/build.sh)");
            return;
        }
        // solcjs has no import callback: the imports go in with the target.
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("src/lib")).unwrap();
        std::fs::write(
            d.path().join("src/Target.sol"),
            "// SPDX-License-Identifier: MIT\npragma solidity ^0.8.0;\n\
             import {Counter} from \"./lib/Counter.sol\";\n\
             contract Target is Counter { function echidna_low() public view returns (bool) \
             { return n < 10; } }\n",
        )
        .unwrap();
        std::fs::write(
            d.path().join("src/lib/Counter.sol"),
            "// SPDX-License-Identifier: MIT\npragma solidity ^0.8.0;\n\
             contract Counter { uint256 public n; function bump() public { n += 1; } }\n",
        )
        .unwrap();
        let p = Project::load(&d.path().join("src/Target.sol")).unwrap();
        let c = p.contract(Some("Target")).unwrap();
        assert!(c.abi.function("bump").is_some() && c.abi.function("echidna_low").is_some());
        assert_eq!(
            p.sources.len(),
            2,
            "both files are sources (coverage maps to each)"
        );
    }

    #[test]
    fn a_missing_file_names_the_path() {
        let err = Project::load(Path::new("contracts/out/Missing.json")).unwrap_err();
        assert!(err.to_string().contains("Missing.json"), "{err}");
    }
}
