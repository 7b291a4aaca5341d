//! A `.sol` file compiled on the spot: `solc --standard-json`, solcjs, or
//! npm's `solc` package through node, whichever is found first.

use super::{ArtifactError, Project, imports, solc};
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
        let ranges: Vec<(String, String)> = (sources.iter())
            .flat_map(|(name, s)| {
                let text = s["content"].as_str().unwrap_or_default();
                solc::pragmas(text)
                    .into_iter()
                    .map(move |r| (name.clone(), r))
            })
            .collect();
        let compilers = solc::found()
            .and_then(|found| solc::choose(found, &ranges))
            .map_err(|errors| ArtifactError::Compile {
                path: path.to_path_buf(),
                errors,
            })?;
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
        let output = run_compiler(path, &input.to_string(), &compilers)?;
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

/// Runs the first of `compilers` that answers on `input` (see
/// [`solc::found`] for their order). solcjs is driven through a script of
/// ours that writes the output to a file: the `solcjs` command exits before
/// a pipe takes more than 64 KiB of its output, and a big contract's JSON
/// was cut short.
fn run_compiler(
    path: &Path,
    input: &str,
    compilers: &[solc::Found],
) -> Result<String, ArtifactError> {
    let out_file = OutFile::new();
    for found in compilers {
        let (mut cmd, to_file) = match &found.compiler {
            solc::Compiler::SolcJs(dir) => {
                let script = "const fs=require('fs');const s=require(process.argv[1]);\
                              fs.writeFileSync(process.argv[2], s.compile(fs.readFileSync(0,'utf8')));";
                let mut c = Command::new("node");
                c.arg("-e").arg(script).arg(dir).arg(&out_file.0);
                (c, true)
            }
            solc::Compiler::Native(solc) => {
                let mut c = Command::new(solc);
                c.arg("--standard-json");
                (c, false)
            }
        };
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
        if !out.status.success() {
            continue;
        }
        let text = if to_file {
            std::fs::read_to_string(&out_file.0).unwrap_or_default()
        } else {
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        if !text.is_empty() {
            return Ok(text);
        }
    }
    Err(ArtifactError::NoCompiler {
        path: path.to_path_buf(),
    })
}

/// A scratch file for a compiler's output, removed when dropped.
struct OutFile(PathBuf);

impl OutFile {
    fn new() -> Self {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        OutFile(std::env::temp_dir().join(format!("rudder-solc-{}-{n}.json", std::process::id())))
    }
}

impl Drop for OutFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
