//! Function spans read from the source text, for compilations whose
//! artifacts carry no AST (Foundry's per-contract artifacts and forge's
//! minimal build-info): what LCOV's function records need, the name and the
//! byte range of each definition with a body, as solc's `src` of its
//! `FunctionDefinition` or `ModifierDefinition` gives them (from the keyword
//! to the closing brace), so that the instructions whose source range is the
//! whole function count its calls as they do with an AST.
//!
//! A member declaration starts after `;`, `{` or `}` (comments skipped) with
//! `function`, `constructor`, `modifier`, `fallback` or `receive`; its body
//! is the first `{` outside parentheses before any `;` (a declaration
//! without one, or a function-type variable, has none and is left out).
//! Strings, comments and nested braces are skipped when matching.

use super::FunctionSpan;

/// Byte scanner over Solidity source that skips comments and string
/// literals.
struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scanner<'_> {
    /// Skips whitespace and comments; returns the next significant byte's
    /// offset (or the end).
    fn skip_trivia(&mut self) -> usize {
        loop {
            while self.i < self.b.len() && self.b[self.i].is_ascii_whitespace() {
                self.i += 1;
            }
            if self.b[self.i..].starts_with(b"//") {
                while self.i < self.b.len() && self.b[self.i] != b'\n' {
                    self.i += 1;
                }
            } else if self.b[self.i..].starts_with(b"/*") {
                self.i += 2;
                while self.i < self.b.len() && !self.b[self.i..].starts_with(b"*/") {
                    self.i += 1;
                }
                self.i = (self.i + 2).min(self.b.len());
            } else {
                return self.i;
            }
        }
    }

    /// Skips a string literal starting at the quote at `self.i`.
    fn skip_string(&mut self) {
        let quote = self.b[self.i];
        self.i += 1;
        while self.i < self.b.len() && self.b[self.i] != quote {
            if self.b[self.i] == b'\\' {
                self.i += 1;
            }
            self.i += 1;
        }
        self.i = (self.i + 1).min(self.b.len());
    }

    /// The identifier at `self.i` (empty if none), advancing past it.
    fn ident(&mut self) -> &str {
        let start = self.i;
        while self.i < self.b.len()
            && (self.b[self.i].is_ascii_alphanumeric() || matches!(self.b[self.i], b'_' | b'$'))
        {
            self.i += 1;
        }
        std::str::from_utf8(&self.b[start..self.i]).unwrap_or("")
    }

    /// The next byte of code at or after `self.i` (comments and string
    /// literals skipped), not consumed; `None` at the end.
    fn peek_code(&mut self) -> Option<u8> {
        loop {
            let b = *self.b.get(self.skip_trivia())?;
            if b == b'"' || b == b'\'' {
                self.skip_string();
            } else {
                return Some(b);
            }
        }
    }

    /// From a declaration's header, the offset of its body's `{` (outside
    /// parentheses), or `None` when a `;` or the end comes first.
    fn body_start(&mut self) -> Option<usize> {
        let mut parens = 0usize;
        while let Some(b) = self.peek_code() {
            match b {
                b'(' => parens += 1,
                b')' => parens = parens.saturating_sub(1),
                b'{' if parens == 0 => return Some(self.i),
                b';' if parens == 0 => return None,
                _ => {}
            }
            self.i += 1;
        }
        None
    }

    /// From a `{` at `self.i`, the offset of its matching `}`.
    fn matching_brace(&mut self) -> Option<usize> {
        let mut depth = 0usize;
        while let Some(b) = self.peek_code() {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(self.i);
                    }
                }
                _ => {}
            }
            self.i += 1;
        }
        None
    }
}

/// Every function, constructor, modifier, fallback and receive with a body
/// in `text`, named `Contract.name` (`.name` for a free function).
pub fn scan(text: &str) -> Vec<FunctionSpan> {
    let mut s = Scanner {
        b: text.as_bytes(),
        i: 0,
    };
    let mut out = Vec::new();
    // Open contracts: (name, brace depth of their body).
    let mut contracts: Vec<(String, usize)> = Vec::new();
    let mut pending_contract: Option<String> = None;
    let mut depth = 0usize;
    // Whether the next token starts a member declaration.
    let mut at_start = true;
    while let Some(c) = s.peek_code() {
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            let start = s.i;
            let word = s.ident().to_string();
            let member = at_start && contracts.last().map_or(0, |(_, d)| *d) == depth;
            at_start = false;
            match word.as_str() {
                "contract" | "library" | "interface" => {
                    s.skip_trivia();
                    let name = s.ident().to_string();
                    if !name.is_empty() {
                        pending_contract = Some(name);
                    }
                }
                "function" | "constructor" | "modifier" | "fallback" | "receive" if member => {
                    s.skip_trivia();
                    let name = match word.as_str() {
                        "function" => match s.ident() {
                            "" => "fallback".to_string(),
                            n => n.to_string(),
                        },
                        "modifier" => s.ident().to_string(),
                        w => w.to_string(),
                    };
                    let Some(open) = s.body_start() else {
                        continue;
                    };
                    s.i = open;
                    let Some(close) = s.matching_brace() else {
                        break;
                    };
                    s.i = close + 1;
                    at_start = true;
                    let contract = contracts.last().map_or("", |(n, _)| n.as_str());
                    out.push(FunctionSpan {
                        name: format!("{contract}.{name}"),
                        contract: contract.to_string(),
                        start: start as u32,
                        len: (close + 1 - start) as u32,
                    });
                }
                _ => {}
            }
            continue;
        }
        match c {
            b'{' => {
                depth += 1;
                if let Some(name) = pending_contract.take() {
                    contracts.push((name, depth));
                }
                at_start = true;
            }
            b'}' => {
                if contracts.last().is_some_and(|(_, d)| *d == depth) {
                    contracts.pop();
                }
                depth = depth.saturating_sub(1);
                at_start = true;
            }
            b';' => at_start = true,
            _ => at_start = false,
        }
        s.i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(text: &str) -> Vec<(String, &str)> {
        scan(text)
            .into_iter()
            .map(|f| {
                let body = &text[f.start as usize..(f.start + f.len) as usize];
                (f.name, body)
            })
            .collect()
    }

    #[test]
    fn functions_with_bodies_are_found_with_their_exact_range() {
        let text = r#"
// contract Fake { function no() public {} }
/* function alsoNo() {} */
interface I { function f() external; }
function free(uint x) pure returns (uint) { return x; }
abstract contract A is I {
    function (uint) internal pure returns (uint) hook;
    string s = "function inString() { }";
    struct S { uint a; }
    modifier only(address a) { require(msg.sender == a, "}"); _; }
    constructor() { }
    function g(function (uint) external cb) public { if (true) { } }
    function h() public virtual;
    receive() external payable {}
    fallback() external {}
}
"#;
        assert_eq!(
            spans(text),
            vec![
                (
                    ".free".to_string(),
                    "function free(uint x) pure returns (uint) { return x; }"
                ),
                (
                    "A.only".to_string(),
                    "modifier only(address a) { require(msg.sender == a, \"}\"); _; }"
                ),
                ("A.constructor".to_string(), "constructor() { }"),
                (
                    "A.g".to_string(),
                    "function g(function (uint) external cb) public { if (true) { } }"
                ),
                ("A.receive".to_string(), "receive() external payable {}"),
                ("A.fallback".to_string(), "fallback() external {}"),
            ]
        );
    }

    /// On every bundled contract the scan finds what solc's AST says.
    #[test]
    fn the_scan_agrees_with_the_ast_on_the_bundled_contracts() {
        let mut compared = 0;
        for entry in std::fs::read_dir("contracts/out").unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let Ok(project) = crate::artifacts::Project::load(&path) else {
                continue;
            };
            for source in &project.sources {
                let (Some(text), Some(_)) = (&source.text, &source.ast) else {
                    continue;
                };
                let key = |v: &[FunctionSpan]| -> Vec<(String, u32, u32)> {
                    let mut v: Vec<_> =
                        v.iter().map(|f| (f.name.clone(), f.start, f.len)).collect();
                    v.sort();
                    v
                };
                assert_eq!(
                    key(&scan(text)),
                    key(&source.functions),
                    "{} in {}",
                    source.path,
                    path.display()
                );
                compared += 1;
            }
        }
        assert!(compared >= 15, "compared {compared} sources");
    }
}
