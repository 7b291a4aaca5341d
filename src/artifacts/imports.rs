//! The import closure of a `.sol` file, read from disk, so the compiler gets
//! every source in its standard-JSON input and needs no import callback
//! (solcjs has none: "File import callback not supported"; native solc
//! would need `--base-path` and `--allow-paths`).
//!
//! Source unit names follow solc's rules: a relative import (`./x.sol`,
//! `../x.sol`) names a unit relative to the importing unit's directory; any
//! other import is the unit name itself, found on disk through the
//! project's remappings (`remappings.txt`, `foundry.toml`'s `remappings`),
//! then `node_modules/` and `lib/` in the file's directory or an ancestor.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// Files read at most (a runaway closure is a mistake, not a project).
pub const MAX_SOURCES: usize = 2_000;

/// Every source the root imports, directly or not: unit name → content.
/// `root_name` is the root's unit name (as given on the command line).
pub fn closure(root_name: &str, root_text: String) -> Result<BTreeMap<String, String>, String> {
    let root_path = PathBuf::from(root_name);
    let base = root_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let remappings = remappings(&base);
    let mut out = BTreeMap::new();
    let mut todo = vec![(root_name.to_string(), root_path, root_text)];
    while let Some((name, path, text)) = todo.pop() {
        if out.contains_key(&name) {
            continue;
        }
        for import in imports(&text) {
            let unit = if import.starts_with("./") || import.starts_with("../") {
                normalize(
                    &Path::new(&name)
                        .parent()
                        .unwrap_or(Path::new(""))
                        .join(&import),
                )
            } else {
                import.clone()
            };
            if out.contains_key(&unit) || todo.iter().any(|(n, _, _)| *n == unit) {
                continue;
            }
            let file = if import.starts_with("./") || import.starts_with("../") {
                Some(normalize_path(
                    &path.parent().unwrap_or(Path::new("")).join(&import),
                ))
            } else {
                find(&unit, &base, &remappings)
            };
            let Some(file) = file else {
                return Err(format!(
                    "{name} imports {import:?}, which is not on disk (looked beside it, in the \
                     project's remappings, node_modules/ and lib/)"
                ));
            };
            let text = std::fs::read_to_string(&file)
                .map_err(|e| format!("{name} imports {import:?}: {}: {e}", file.display()))?;
            todo.push((unit, file, text));
        }
        out.insert(name, text);
        if out.len() > MAX_SOURCES {
            return Err(format!("more than {MAX_SOURCES} imported files"));
        }
    }
    Ok(out)
}

/// The import paths of a Solidity source (comments and strings skipped).
pub fn imports(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b'"' | b'\'' => i = skip_string(b, i),
            b'i' if text[i..].starts_with("import")
                && (i == 0 || !is_ident(b[i - 1]))
                && !b.get(i + 6).copied().is_some_and(is_ident) =>
            {
                // The first string literal before the statement's `;`.
                let mut j = i + 6;
                while j < b.len() && b[j] != b';' && b[j] != b'"' && b[j] != b'\'' {
                    j += 1;
                }
                if j < b.len() && b[j] != b';' {
                    let end = skip_string(b, j);
                    out.push(text[j + 1..end.saturating_sub(1)].to_string());
                    i = end;
                } else {
                    i = j;
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// `text` with its comments blanked (strings kept): what a statement
/// search may read.
pub fn without_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let start = i;
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i = (i + 2).min(b.len());
                for c in &mut out[start..i] {
                    if *c != b'\n' {
                        *c = b' ';
                    }
                }
            }
            b'"' | b'\'' => i = skip_string(b, i),
            _ => i += 1,
        }
    }
    // Only ASCII bytes were replaced, by ASCII: still UTF-8 where it was.
    String::from_utf8(out).unwrap_or_default()
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// The index just past the string literal starting at `i`.
fn skip_string(b: &[u8], i: usize) -> usize {
    let q = b[i];
    let mut j = i + 1;
    while j < b.len() && b[j] != q {
        j += if b[j] == b'\\' { 2 } else { 1 };
    }
    (j + 1).min(b.len())
}

/// `a/./b/../c` → `a/c` (unit names are not resolved against the disk).
fn normalize(p: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if parts.last().is_some_and(|l| l != "..") {
                    parts.pop();
                } else {
                    parts.push("..".into());
                }
            }
            Component::RootDir => parts.push(String::new()),
            other => parts.push(other.as_os_str().to_string_lossy().into_owned()),
        }
    }
    parts.join("/")
}

fn normalize_path(p: &Path) -> PathBuf {
    PathBuf::from(normalize(p))
}

/// The project's remappings (`prefix=target`), from `remappings.txt` or
/// `foundry.toml` in `dir` or an ancestor; targets relative to that folder.
fn remappings(dir: &Path) -> Vec<(String, PathBuf)> {
    let start = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let start = std::fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
    for d in start.ancestors() {
        let mut lines = Vec::new();
        if let Ok(t) = std::fs::read_to_string(d.join("remappings.txt")) {
            lines.extend(t.lines().map(str::to_string));
        } else if let Ok(t) = std::fs::read_to_string(d.join("foundry.toml")) {
            // `remappings = ["a/=b/", …]`, on one line or several.
            if let Some(start) = t.find("remappings") {
                let rest = &t[start..];
                if let (Some(open), Some(close)) = (rest.find('['), rest.find(']')) {
                    lines.extend(
                        rest[open + 1..close]
                            .split(',')
                            .map(|s| s.trim().trim_matches(|c| c == '"' || c == '\'').to_string()),
                    );
                }
            }
        } else {
            continue;
        }
        return lines
            .iter()
            .filter_map(|l| {
                let l = l.trim();
                // `context:prefix=target`: the context is dropped.
                let l = l.split_once(':').map_or(l, |(_, r)| r);
                let (from, to) = l.split_once('=')?;
                (!from.is_empty()).then(|| (from.to_string(), d.join(to)))
            })
            .collect();
    }
    Vec::new()
}

/// Where source unit `unit` (a non-relative import as compiled, e.g.
/// `@openzeppelin/contracts/token/ERC20/ERC20.sol`) lives on disk, for a
/// build found in `dir`: through the project's remappings, `node_modules/`
/// and `lib/` of `dir` or an ancestor.
pub(super) fn locate(unit: &str, dir: &Path) -> Option<PathBuf> {
    find(unit, dir, &remappings(dir))
}

/// Where a non-relative import lives on disk.
fn find(unit: &str, base: &Path, remappings: &[(String, PathBuf)]) -> Option<PathBuf> {
    // The longest matching prefix wins, as in solc.
    if let Some((from, to)) = remappings
        .iter()
        .filter(|(from, _)| unit.starts_with(from.as_str()))
        .max_by_key(|(from, _)| from.len())
    {
        let p = to.join(&unit[from.len()..]);
        if p.is_file() {
            return Some(p);
        }
    }
    let start = if base.as_os_str().is_empty() {
        Path::new(".")
    } else {
        base
    };
    let start = std::fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
    let direct = PathBuf::from(unit);
    if direct.is_file() {
        return Some(direct);
    }
    for d in start.ancestors() {
        for candidate in [
            d.join(unit),
            d.join("node_modules").join(unit),
            d.join("lib").join(unit),
        ] {
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_paths_are_read_past_comments_strings_and_every_form() {
        let src = r#"
            // import "commented.sol";
            /* import "block.sol"; */
            import "./A.sol";
            import {B, C as D} from "../lib/B.sol";
            import * as E from 'forge-std/Test.sol';
            import "x.sol" as X;
            string constant s = "import \"no.sol\";";
            contract importer { uint important; }
        "#;
        assert_eq!(
            imports(src),
            ["./A.sol", "../lib/B.sol", "forge-std/Test.sol", "x.sol"]
        );
    }

    #[test]
    fn relative_unit_names_follow_solc() {
        assert_eq!(
            normalize(Path::new("contracts/sub/../A.sol")),
            "contracts/A.sol"
        );
        assert_eq!(normalize(Path::new("./a/./b.sol")), "a/b.sol");
        assert_eq!(normalize(Path::new("../x/y.sol")), "../x/y.sol");
    }

    #[test]
    fn the_closure_reads_relative_remapped_and_library_imports() {
        let d = tempfile::tempdir().unwrap();
        let w = |p: &str, t: &str| {
            let p = d.path().join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, t).unwrap();
        };
        w(
            "src/Main.sol",
            "import \"./lib/Util.sol\";\nimport \"dep/Dep.sol\";\ncontract M {}",
        );
        w(
            "src/lib/Util.sol",
            "import \"../Shared.sol\";\ncontract U {}",
        );
        w("src/Shared.sol", "contract S {}");
        w(
            "vendor/dep/Dep.sol",
            "import \"@oz/Oz.sol\";\ncontract Dp {}",
        );
        w("node_modules/@oz/Oz.sol", "contract Oz {}");
        w("remappings.txt", "dep/=vendor/dep/\n");
        let root = d.path().join("src/Main.sol");
        let name = root.to_string_lossy().to_string();
        let text = std::fs::read_to_string(&root).unwrap();
        let all = closure(&name, text).unwrap();
        let names: Vec<String> = all
            .keys()
            .map(|k| {
                k.strip_prefix(&*d.path().to_string_lossy())
                    .unwrap_or(k)
                    .to_string()
            })
            .collect();
        assert!(
            names.contains(&"/src/lib/Util.sol".to_string()),
            "{names:?}"
        );
        assert!(names.contains(&"/src/Shared.sol".to_string()), "{names:?}");
        assert!(
            all.contains_key("dep/Dep.sol") && all.contains_key("@oz/Oz.sol"),
            "{names:?}"
        );
        assert_eq!(all.len(), 5);
        // A missing import names the file and the import.
        w("src/Bad.sol", "import \"./Nope.sol\";");
        let bad = d.path().join("src/Bad.sol");
        let e = closure(
            &bad.to_string_lossy(),
            std::fs::read_to_string(&bad).unwrap(),
        )
        .unwrap_err();
        assert!(e.contains("Nope.sol"), "{e}");
    }
}
