//! A `.sol` file compiled on the spot: `solc --standard-json`, solcjs, or
//! npm's `solc` package through node, whichever is found first.

use super::{ArtifactError, Project, imports};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

impl Project {
    /// Compiles a `.sol` file with `solc --standard-json`, or solcjs.
    pub(super) fn compile(path: &Path) -> Result<Project, ArtifactError> {
        let text = std::fs::read_to_string(path).map_err(|source| ArtifactError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let key = path.to_string_lossy().to_string();
        // Every imported file goes in with the target: solcjs has no import
        // callback, and solc would need its paths allowed.
        let sources: serde_json::Map<String, Value> = imports::closure(&key, text)
            .map_err(|errors| ArtifactError::Compile {
                path: path.to_path_buf(),
                errors,
            })?
            .into_iter()
            .map(|(name, content)| (name, serde_json::json!({ "content": content })))
            .collect();
        let input = serde_json::json!({
            "language": "Solidity",
            "sources": sources,
            "settings": {
                "optimizer": { "enabled": false },
                "outputSelection": { "*": {
                    "": ["ast"],
                    "*": ["abi", "evm.bytecode.object", "evm.bytecode.sourceMap",
                          "evm.deployedBytecode.object", "evm.deployedBytecode.sourceMap"]
                } }
            }
        });
        let output = run_compiler(path, &input.to_string())?;
        let json = compiler_json(&output).map_err(|e| match e {
            Some(source) => ArtifactError::Json {
                path: path.to_path_buf(),
                source,
            },
            // No JSON at all: what the compiler printed is its error.
            None => ArtifactError::Compile {
                path: path.to_path_buf(),
                errors: output.trim().to_string(),
            },
        })?;
        let errors: Vec<String> = json["errors"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["severity"] == "error")
            .map(|e| {
                e["formattedMessage"]
                    .as_str()
                    .unwrap_or("unknown error")
                    .to_string()
            })
            .collect();
        if !errors.is_empty() {
            return Err(ArtifactError::Compile {
                path: path.to_path_buf(),
                errors: errors.join("\n"),
            });
        }
        Self::from_standard_json(&json, Some(&input), path)
    }
}

/// The standard-JSON object in a compiler's output, past any banner lines
/// (solcjs prints `>>> Cannot retry compilation with SMT…` before it).
/// `Err(None)`: there is no JSON object at all.
pub(super) fn compiler_json(output: &str) -> Result<Value, Option<serde_json::Error>> {
    let start = if output.trim_start().starts_with('{') {
        output.len() - output.trim_start().len()
    } else {
        output.find("\n{").map(|i| i + 1).ok_or(None)?
    };
    let mut values = serde_json::Deserializer::from_str(&output[start..]).into_iter::<Value>();
    match values.next() {
        Some(Ok(v)) if v.is_object() => Ok(v),
        Some(Err(e)) => Err(Some(e)),
        _ => Err(None),
    }
}

/// Runs `solc --standard-json`, or solcjs through node, on `input`.
fn run_compiler(path: &Path, input: &str) -> Result<String, ArtifactError> {
    let mut candidates: Vec<Command> = Vec::new();
    candidates.push({
        let mut c = Command::new("solc");
        c.arg("--standard-json");
        c
    });
    candidates.push({
        let mut c = Command::new("solcjs");
        c.arg("--standard-json");
        c
    });
    for dir in ["node_modules/solc", "contracts/.tools/node_modules/solc"] {
        if Path::new(dir).join("package.json").is_file() {
            let script = format!(
                "const s=require('{}');let d='';process.stdin.on('data',c=>d+=c);\
                 process.stdin.on('end',()=>process.stdout.write(s.compile(d)));",
                std::fs::canonicalize(dir)
                    .unwrap_or_else(|_| PathBuf::from(dir))
                    .display()
            );
            let mut c = Command::new("node");
            c.arg("-e").arg(script);
            candidates.push(c);
        }
    }
    for mut cmd in candidates {
        let child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let Ok(mut child) = child else { continue };
        use std::io::Write;
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(input.as_bytes());
        }
        let out = child
            .wait_with_output()
            .map_err(|source| ArtifactError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        if out.status.success() && !out.stdout.is_empty() {
            return Ok(String::from_utf8_lossy(&out.stdout).into_owned());
        }
    }
    Err(ArtifactError::NoCompiler {
        path: path.to_path_buf(),
    })
}
