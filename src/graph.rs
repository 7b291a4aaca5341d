//! The code graph of the target's Solidity, built from the
//! compiler's AST that the artifacts already hold, and joined live with the
//! campaign's coverage; and the execution trace graph (ETG) of what an agent
//! tried ([`etg`]).
//!
//! Nodes: files, contracts (kind, bases), functions and modifiers (canonical
//! signature, selector, visibility, mutability, modifiers, parameters, source
//! span), state variables (type, constant value). Edges: inheritance,
//! internal / external / library calls, modifier uses, contract creation,
//! state reads and writes. Each function also lists its *decisions* (`if`,
//! `require`, `assert`, loops, `?:`) with the condition's source text and
//! what the condition depends on: parameters, state variables, constants
//! (named, with their values, and literals), locals (followed to their
//! initial value) and the environment (`msg.sender`, `block.timestamp`).
//!
//! [`join::Coverage`] ties decisions to the `JUMPI`s the source maps put on
//! them and says, per decision, how often it was evaluated and whether its
//! condition was ever true and ever false: an uncovered branch with what it
//! depends on is what an agent needs to choose what to prioritize or inject.

use crate::artifacts::{Project, Source};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

mod ast;
use ast::*;
pub mod etg;
pub mod join;
pub mod rows;
pub mod store;
pub mod vacuity;

pub use store::GraphStore;

/// A byte range of a source with its (1-based) first and last line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Span {
    pub start: u32,
    pub end: u32,
    pub line_start: u32,
    pub line_end: u32,
}

/// A source file of the graph.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileNode {
    /// The path as compiled (the standard-JSON key).
    pub path: String,
    pub language: &'static str,
    /// keccak256 of the text the AST was built from (or of the AST when the
    /// text is missing), hex, first 16 bytes.
    pub hash: String,
    pub lines: u32,
    /// Whether the running campaign executes this compilation of the file
    /// (its coverage can be joined); false for a file indexed from another
    /// artifact.
    pub live: bool,
    #[serde(skip)]
    pub source_id: u32,
}

/// A contract, interface or library.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContractNode {
    pub name: String,
    pub file: String,
    /// `contract`, `abstract`, `interface` or `library`.
    pub kind: String,
    /// Direct bases, as written.
    pub bases: Vec<String>,
    /// The C3 linearization, most derived first (from the compiler).
    pub linearized: Vec<String>,
    pub span: Span,
}

/// A function parameter or return value.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
}

/// What a call edge is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallKind {
    Internal,
    External,
    Library,
    Modifier,
    Create,
}

impl CallKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CallKind::Internal => "internal",
            CallKind::External => "external",
            CallKind::Library => "library",
            CallKind::Modifier => "modifier",
            CallKind::Create => "create",
        }
    }
}

/// A call from a function: the callee's qualified name (`Contract.f`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct CallEdge {
    pub callee: String,
    pub kind: CallKind,
}

/// A call with its arguments as written (internal and external calls to a
/// function of the project), so a writer reached through a helper can be
/// read with the values its caller passes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CallSite {
    pub callee: String,
    pub args: Vec<String>,
}

/// An assignment to a state variable (`x = e`, `x[k] += e`, `x++`,
/// `delete x`) as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Assignment {
    /// The variable written, qualified.
    pub var: String,
    pub text: String,
    /// The named constants the assigned value uses, with their values.
    pub constants: Vec<Constant>,
}

/// A local a condition goes through, with its initial value as written.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct LocalDef {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub init: Option<String>,
}

/// A constant a condition compares against: a literal (`name` absent) or a
/// named constant with the value it is declared with.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Constant {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub value: String,
}

impl Constant {
    /// As answers write it: `NAME=value`, or a literal as written.
    pub fn text(&self) -> String {
        match &self.name {
            Some(n) => format!("{n}={}", self.value),
            None => self.value.clone(),
        }
    }
}

/// A decision of the source: an `if`, `require`, `assert`, loop condition or
/// ternary, with what its condition depends on.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// `if`, `require`, `assert`, `while`, `for`, `do` or `ternary`.
    pub kind: &'static str,
    /// The whole statement (or call).
    pub span: Span,
    /// The condition's source text.
    pub condition: String,
    #[serde(skip)]
    pub cond: (u32, u32),
    /// The range that runs when the condition holds (body, true branch).
    #[serde(skip)]
    pub then: Option<(u32, u32)>,
    pub params: Vec<String>,
    /// State variables, qualified (`Contract.name`).
    pub state: Vec<String>,
    pub constants: Vec<Constant>,
    pub locals: Vec<String>,
    /// The locals with their initial values (source text), in name order.
    #[serde(skip)]
    pub local_defs: Vec<LocalDef>,
    pub env: Vec<String>,
    /// Functions the condition calls.
    pub calls: Vec<String>,
}

/// A function, modifier, constructor, fallback or receive function.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionNode {
    pub contract: String,
    pub name: String,
    /// `function`, `constructor`, `fallback`, `receive` or `modifier`.
    pub kind: &'static str,
    /// Canonical signature for public and external functions (the ABI's),
    /// the declared types otherwise.
    pub signature: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    pub visibility: String,
    pub mutability: String,
    pub modifiers: Vec<String>,
    pub params: Vec<Param>,
    pub returns: Vec<Param>,
    pub file: String,
    pub span: Span,
    pub implemented: bool,
    /// State variables read and written, qualified.
    pub reads: Vec<String>,
    pub writes: Vec<String>,
    pub calls: Vec<CallEdge>,
    /// Calls to project functions with their arguments as written.
    #[serde(skip)]
    pub call_sites: Vec<CallSite>,
    /// Assignments to state variables, in source order.
    #[serde(skip)]
    pub assignments: Vec<Assignment>,
    pub decisions: Vec<Decision>,
}

impl FunctionNode {
    /// `Contract.name`.
    pub fn qualified(&self) -> String {
        format!("{}.{}", self.contract, self.name)
    }

    pub fn is_entry_point(&self) -> bool {
        matches!(self.visibility.as_str(), "public" | "external")
            && matches!(self.kind, "function" | "fallback" | "receive")
    }
}

/// A state variable.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StateVarNode {
    pub contract: String,
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub constant: bool,
    pub immutable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    pub file: String,
    pub span: Span,
}

impl StateVarNode {
    pub fn qualified(&self) -> String {
        format!("{}.{}", self.contract, self.name)
    }
}

/// The graph of a set of sources.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CodeGraph {
    /// Changes whenever a file's content changes: `cg-` and 16 hex digits.
    pub version: String,
    pub files: Vec<FileNode>,
    pub contracts: Vec<ContractNode>,
    pub functions: Vec<FunctionNode>,
    pub state_vars: Vec<StateVarNode>,
}

/// An edge of the graph, as stored and counted.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edge {
    pub src: String,
    pub dst: String,
    pub kind: &'static str,
}

impl CodeGraph {
    /// Builds the graph of `sources` (each with the project it comes from and
    /// whether the campaign runs that compilation).
    pub fn build(sources: &[(&Project, &Source, bool)]) -> CodeGraph {
        let mut decls = Decls::default();
        for (project, s, _) in sources {
            if let Some(ast) = &s.ast {
                decls.collect(ast, &SourceCtx::new(project, s));
            }
        }
        let mut g = CodeGraph::default();
        let mut version = alloy_primitives::Keccak256::new();
        for (project, s, live) in sources {
            let hash = match (&s.text, &s.ast) {
                (Some(t), _) => alloy_primitives::keccak256(t.as_bytes()),
                (None, Some(a)) => alloy_primitives::keccak256(a.to_string().as_bytes()),
                (None, None) => alloy_primitives::keccak256(s.path.as_bytes()),
            };
            version.update(s.path.as_bytes());
            version.update(hash);
            g.files.push(FileNode {
                path: s.path.clone(),
                language: "solidity",
                hash: alloy_primitives::hex::encode(&hash[..16]),
                lines: s.lines.lines() as u32,
                live: *live,
                source_id: s.id,
            });
            if let Some(ast) = &s.ast {
                let ctx = SourceCtx::new(project, s);
                Builder {
                    decls: &decls,
                    ctx: &ctx,
                    graph: &mut g,
                }
                .source_unit(ast);
            }
        }
        g.version = format!(
            "cg-{}",
            alloy_primitives::hex::encode(&version.finalize()[..8])
        );
        g
    }

    /// Every edge: file → symbol, contract → base, function → callee,
    /// function → state variable read or written, contract → member.
    pub fn edges(&self) -> Vec<Edge> {
        let mut out = Vec::new();
        for c in &self.contracts {
            out.push(Edge {
                src: c.file.clone(),
                dst: c.name.clone(),
                kind: "file_has_symbol",
            });
            for b in &c.bases {
                out.push(Edge {
                    src: c.name.clone(),
                    dst: b.clone(),
                    kind: "inherits",
                });
            }
        }
        for f in &self.functions {
            let me = f.qualified();
            out.push(Edge {
                src: f.contract.clone(),
                dst: me.clone(),
                kind: "contract_has_function",
            });
            for call in &f.calls {
                out.push(Edge {
                    src: me.clone(),
                    dst: call.callee.clone(),
                    kind: match call.kind {
                        CallKind::Internal => "calls_internal",
                        CallKind::External => "calls_external",
                        CallKind::Library => "calls_library",
                        CallKind::Modifier => "uses_modifier",
                        CallKind::Create => "creates",
                    },
                });
            }
            for r in &f.reads {
                out.push(Edge {
                    src: me.clone(),
                    dst: r.clone(),
                    kind: "reads",
                });
            }
            for w in &f.writes {
                out.push(Edge {
                    src: me.clone(),
                    dst: w.clone(),
                    kind: "writes",
                });
            }
        }
        for v in &self.state_vars {
            out.push(Edge {
                src: v.contract.clone(),
                dst: v.qualified(),
                kind: "contract_has_variable",
            });
        }
        out.sort();
        out.dedup();
        out
    }

    /// The functions whose qualified name, name or signature is `name`.
    pub fn functions_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a FunctionNode> {
        self.functions.iter().filter(move |f| {
            f.qualified() == name
                || f.name == name
                || f.signature == name
                || format!("{}.{}", f.contract, f.signature) == name
        })
    }

    /// Functions that call `qualified` (callers), by qualified name.
    pub fn callers_of(&self, qualified: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .functions
            .iter()
            .filter(|f| f.calls.iter().any(|c| c.callee == qualified))
            .map(FunctionNode::qualified)
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Entry points (public or external) that write state variable `var`,
    /// themselves or through the functions they call (a private helper, a
    /// function of another contract they call).
    pub fn writers_of(&self, var: &str) -> Vec<String> {
        join::Reach::new(self).writers_of(var)
    }
}

/// What a source is, for the walk.
struct SourceCtx<'a> {
    source: &'a Source,
    /// Canonical signatures of the project's ABIs, by selector hex.
    abi: HashMap<String, String>,
}

impl<'a> SourceCtx<'a> {
    fn new(project: &Project, source: &'a Source) -> Self {
        let mut abi = HashMap::new();
        for c in &project.contracts {
            for f in c.abi.functions() {
                abi.insert(alloy_primitives::hex::encode(f.selector()), f.signature());
            }
        }
        SourceCtx { source, abi }
    }

    fn span(&self, src: &str) -> Option<Span> {
        let (start, len) = parse_src(src)?;
        let end = start + len;
        Some(Span {
            start,
            end,
            line_start: self.source.lines.line(start as usize),
            line_end: self
                .source
                .lines
                .line(end.saturating_sub(1).max(start) as usize),
        })
    }

    fn text(&self, start: u32, end: u32) -> String {
        self.source
            .text
            .as_deref()
            .and_then(|t| t.get(start as usize..end as usize))
            .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    }
}

fn parse_src(src: &str) -> Option<(u32, u32)> {
    let mut it = src.split(':');
    Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
}

/// A declaration an identifier can refer to.
#[derive(Clone, Debug)]
enum Decl {
    Contract {
        name: String,
        kind: String,
    },
    Function {
        qualified: String,
    },
    StateVar {
        qualified: String,
        constant: bool,
        value: Option<String>,
    },
    Param {
        name: String,
    },
    Local {
        name: String,
        init: Option<Arc<Value>>,
    },
}

#[derive(Default)]
struct Decls {
    by_id: HashMap<i64, Decl>,
}

impl Decls {
    /// First pass: every declaration with an id, across all sources.
    fn collect(&mut self, node: &Value, ctx: &SourceCtx<'_>) {
        self.walk(node, ctx, "");
    }

    fn walk(&mut self, node: &Value, ctx: &SourceCtx<'_>, contract: &str) {
        let Some(obj) = node.as_object() else {
            for c in children(node) {
                self.walk(c, ctx, contract);
            }
            return;
        };
        let kind = obj.get("nodeType").and_then(Value::as_str).unwrap_or("");
        let id = obj.get("id").and_then(Value::as_i64);
        let name = obj.get("name").and_then(Value::as_str).unwrap_or("");
        let mut contract = contract.to_string();
        match kind {
            "ContractDefinition" => {
                contract = name.to_string();
                if let Some(id) = id {
                    self.by_id.insert(
                        id,
                        Decl::Contract {
                            name: name.to_string(),
                            kind: contract_kind(node),
                        },
                    );
                }
            }
            "FunctionDefinition" | "ModifierDefinition" => {
                if let Some(id) = id {
                    self.by_id.insert(
                        id,
                        Decl::Function {
                            qualified: format!("{contract}.{}", function_name(node)),
                        },
                    );
                }
                for p in params(node, "parameters") {
                    if let Some(pid) = p["id"].as_i64() {
                        self.by_id.insert(
                            pid,
                            Decl::Param {
                                name: p["name"].as_str().unwrap_or("").to_string(),
                            },
                        );
                    }
                }
                for p in params(node, "returnParameters") {
                    if let Some(pid) = p["id"].as_i64() {
                        self.by_id.insert(
                            pid,
                            Decl::Local {
                                name: p["name"].as_str().unwrap_or("").to_string(),
                                init: None,
                            },
                        );
                    }
                }
            }
            "VariableDeclaration" if obj.get("stateVariable") == Some(&Value::Bool(true)) => {
                if let Some(id) = id {
                    let constant = obj.get("constant") == Some(&Value::Bool(true));
                    let value = obj
                        .get("value")
                        .and_then(|v| v["src"].as_str())
                        .and_then(parse_src)
                        .map(|(s, l)| ctx.text(s, s + l))
                        .filter(|t| !t.is_empty());
                    self.by_id.insert(
                        id,
                        Decl::StateVar {
                            qualified: if contract.is_empty() {
                                name.to_string() // a file-level constant
                            } else {
                                format!("{contract}.{name}")
                            },
                            constant,
                            value,
                        },
                    );
                }
            }
            "VariableDeclarationStatement" => {
                let init = obj.get("initialValue").filter(|v| v.is_object());
                for d in obj
                    .get("declarations")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Some(did) = d["id"].as_i64() {
                        self.by_id.insert(
                            did,
                            Decl::Local {
                                name: d["name"].as_str().unwrap_or("").to_string(),
                                init: init.map(|v| Arc::new(v.clone())),
                            },
                        );
                    }
                }
            }
            _ => {}
        }
        for c in children(node) {
            self.walk(c, ctx, &contract);
        }
    }
}

/// Per-file lookups the graph family answers from.
pub fn by_file(graph: &CodeGraph) -> BTreeMap<&str, Vec<&FunctionNode>> {
    let mut out: BTreeMap<&str, Vec<&FunctionNode>> = BTreeMap::new();
    for f in &graph.functions {
        out.entry(f.file.as_str()).or_default().push(f);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abi_types_drop_locations_and_map_contracts() {
        assert_eq!(abi_type("uint256[] memory"), "uint256[]");
        assert_eq!(abi_type("contract IOracle"), "address");
        assert_eq!(abi_type("contract IOracle[2]"), "address[2]");
        assert_eq!(abi_type("enum Bank.State"), "uint8");
        assert_eq!(abi_type("address payable"), "address");
        assert_eq!(abi_type("string calldata"), "string");
    }
}
