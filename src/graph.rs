//! The code graph of the target's Solidity (seed 004), built from the
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

pub mod etg;
pub mod join;
pub mod store;

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

/// A constant a condition compares against: a literal (`name` absent) or a
/// named constant with the value it is declared with.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Constant {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub value: String,
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

    /// Entry points (public or external) that write state variable `var`.
    pub fn writers_of(&self, var: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .functions
            .iter()
            .filter(|f| f.is_entry_point() && f.writes.iter().any(|w| w == var))
            .map(|f| format!("{}.{}", f.contract, f.signature))
            .collect();
        out.sort();
        out.dedup();
        out
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

/// The child nodes of an AST value: an array's items, or an object's
/// object and array fields other than type annotations.
fn children(node: &Value) -> Box<dyn Iterator<Item = &Value> + '_> {
    match node {
        Value::Array(a) => Box::new(a.iter()),
        Value::Object(o) => Box::new(
            o.iter()
                .filter(|(k, v)| {
                    matches!(v, Value::Object(_) | Value::Array(_))
                        && !matches!(k.as_str(), "typeDescriptions" | "typeName")
                })
                .map(|(_, v)| v),
        ),
        _ => Box::new(std::iter::empty()),
    }
}

fn contract_kind(node: &Value) -> String {
    match node["contractKind"].as_str().unwrap_or("contract") {
        "contract" if node["abstract"] == true => "abstract".into(),
        "contract" if node["fullyImplemented"] == false => "abstract".into(),
        k => k.to_string(),
    }
}

fn function_name(node: &Value) -> String {
    match node["kind"].as_str() {
        Some("constructor") => "constructor".into(),
        Some("fallback") => "fallback".into(),
        Some("receive") => "receive".into(),
        _ if node["isConstructor"] == true => "constructor".into(),
        _ => {
            let n = node["name"].as_str().unwrap_or("");
            if n.is_empty() && node["nodeType"] == "FunctionDefinition" {
                "fallback".into()
            } else {
                n.to_string()
            }
        }
    }
}

fn params<'v>(node: &'v Value, key: &str) -> impl Iterator<Item = &'v Value> {
    node[key]["parameters"].as_array().into_iter().flatten()
}

/// A type string as the ABI writes it: data locations dropped, contracts
/// and enums as their ABI types.
fn abi_type(type_string: &str) -> String {
    let t = type_string
        .replace(" storage ref", "")
        .replace(" storage pointer", "")
        .replace(" memory", "")
        .replace(" calldata", "")
        .replace(" storage", "")
        .replace(" pointer", "")
        .replace("address payable", "address");
    if let Some(rest) = t.strip_prefix("contract ") {
        return format!("address{}", array_suffix(rest));
    }
    if let Some(rest) = t.strip_prefix("enum ") {
        return format!("uint8{}", array_suffix(rest));
    }
    t
}

fn array_suffix(t: &str) -> &str {
    t.find('[').map_or("", |i| &t[i..])
}

struct Builder<'a, 'b> {
    decls: &'a Decls,
    ctx: &'a SourceCtx<'b>,
    graph: &'a mut CodeGraph,
}

/// What one walk of a function body collects.
#[derive(Default)]
struct Uses {
    reads: BTreeSet<String>,
    writes: BTreeSet<String>,
    calls: BTreeSet<CallEdge>,
    decisions: Vec<Decision>,
}

/// What one condition depends on.
#[derive(Default)]
struct Deps {
    params: BTreeSet<String>,
    state: BTreeSet<String>,
    constants: BTreeSet<Constant>,
    locals: BTreeSet<String>,
    env: BTreeSet<String>,
    calls: BTreeSet<String>,
}

impl Builder<'_, '_> {
    fn source_unit(&mut self, ast: &Value) {
        for node in ast["nodes"].as_array().into_iter().flatten() {
            match node["nodeType"].as_str() {
                Some("ContractDefinition") => self.contract(node),
                Some("FunctionDefinition") => self.function(node, ""),
                Some("VariableDeclaration") => self.state_var(node, ""),
                _ => {}
            }
        }
    }

    fn path(&self) -> String {
        self.ctx.source.path.clone()
    }

    fn contract(&mut self, node: &Value) {
        let name = node["name"].as_str().unwrap_or("").to_string();
        let bases = node["baseContracts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|b| {
                b["baseName"]["name"]
                    .as_str()
                    .or_else(|| b["baseName"]["namePath"].as_str())
                    .map(str::to_string)
            })
            .collect();
        let linearized = node["linearizedBaseContracts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|id| match self.decls.by_id.get(&id.as_i64()?) {
                Some(Decl::Contract { name, .. }) => Some(name.clone()),
                _ => None,
            })
            .collect();
        self.graph.contracts.push(ContractNode {
            name: name.clone(),
            file: self.path(),
            kind: contract_kind(node),
            bases,
            linearized,
            span: self
                .ctx
                .span(node["src"].as_str().unwrap_or(""))
                .unwrap_or_default(),
        });
        for member in node["nodes"].as_array().into_iter().flatten() {
            match member["nodeType"].as_str() {
                Some("FunctionDefinition") | Some("ModifierDefinition") => {
                    self.function(member, &name)
                }
                Some("VariableDeclaration") => self.state_var(member, &name),
                _ => {}
            }
        }
    }

    fn state_var(&mut self, node: &Value, contract: &str) {
        let value = node["value"]["src"]
            .as_str()
            .and_then(parse_src)
            .map(|(s, l)| self.ctx.text(s, s + l))
            .filter(|t| !t.is_empty());
        let mutability = node["mutability"].as_str().unwrap_or("");
        self.graph.state_vars.push(StateVarNode {
            contract: contract.to_string(),
            name: node["name"].as_str().unwrap_or("").to_string(),
            ty: node["typeDescriptions"]["typeString"]
                .as_str()
                .unwrap_or("")
                .to_string(),
            constant: node["constant"] == true || mutability == "constant",
            immutable: mutability == "immutable",
            value,
            file: self.path(),
            span: self
                .ctx
                .span(node["src"].as_str().unwrap_or(""))
                .unwrap_or_default(),
        });
    }

    fn function(&mut self, node: &Value, contract: &str) {
        let name = function_name(node);
        let is_modifier = node["nodeType"] == "ModifierDefinition";
        let kind = if is_modifier {
            "modifier"
        } else {
            match name.as_str() {
                "constructor" => "constructor",
                "fallback" => "fallback",
                "receive" => "receive",
                _ => "function",
            }
        };
        let param_list = |key: &str| -> Vec<Param> {
            params(node, key)
                .map(|p| Param {
                    name: p["name"].as_str().unwrap_or("").to_string(),
                    ty: abi_type(p["typeDescriptions"]["typeString"].as_str().unwrap_or("")),
                })
                .collect()
        };
        let ps = param_list("parameters");
        let visibility = node["visibility"].as_str().unwrap_or("public").to_string();
        let mutability = node["stateMutability"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| {
                if node["constant"] == true {
                    "view".into()
                } else if node["payable"] == true {
                    "payable".into()
                } else {
                    "nonpayable".into()
                }
            });
        let declared = format!(
            "{name}({})",
            ps.iter()
                .map(|p| p.ty.as_str())
                .collect::<Vec<_>>()
                .join(",")
        );
        let mut selector = node["functionSelector"].as_str().map(str::to_string);
        if selector.is_none()
            && kind == "function"
            && matches!(visibility.as_str(), "public" | "external")
        {
            let h = alloy_primitives::keccak256(declared.as_bytes());
            let s = alloy_primitives::hex::encode(&h[..4]);
            if self.ctx.abi.contains_key(&s) {
                selector = Some(s);
            }
        }
        let signature = selector
            .as_ref()
            .and_then(|s| self.ctx.abi.get(s))
            .cloned()
            .unwrap_or(declared);
        let mut uses = Uses::default();
        for m in node["modifiers"].as_array().into_iter().flatten() {
            let mname = m["modifierName"]["name"]
                .as_str()
                .or_else(|| m["modifierName"]["namePath"].as_str())
                .unwrap_or("");
            let callee = match m["modifierName"]["referencedDeclaration"]
                .as_i64()
                .and_then(|id| self.decls.by_id.get(&id))
            {
                Some(Decl::Function { qualified }) => Some((qualified.clone(), CallKind::Modifier)),
                // A base constructor call (`constructor() Base(1)`).
                Some(Decl::Contract { name, .. }) => {
                    Some((format!("{name}.constructor"), CallKind::Internal))
                }
                _ => None,
            };
            if let Some((callee, kind)) = callee {
                uses.calls.insert(CallEdge { callee, kind });
            } else if !mname.is_empty() {
                uses.calls.insert(CallEdge {
                    callee: format!("{contract}.{mname}"),
                    kind: CallKind::Modifier,
                });
            }
            for a in m["arguments"].as_array().into_iter().flatten() {
                self.walk(a, &mut uses, false);
            }
        }
        if node["body"].is_object() {
            self.walk(&node["body"], &mut uses, false);
        }
        let modifiers = node["modifiers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| {
                m["modifierName"]["name"]
                    .as_str()
                    .or_else(|| m["modifierName"]["namePath"].as_str())
                    .map(str::to_string)
            })
            .collect();
        self.graph.functions.push(FunctionNode {
            contract: contract.to_string(),
            name,
            kind,
            signature,
            selector: selector.map(|s| format!("0x{s}")),
            visibility,
            mutability,
            modifiers,
            params: ps,
            returns: param_list("returnParameters"),
            file: self.path(),
            span: self
                .ctx
                .span(node["src"].as_str().unwrap_or(""))
                .unwrap_or_default(),
            implemented: node["body"].is_object(),
            reads: uses.reads.into_iter().collect(),
            writes: uses.writes.into_iter().collect(),
            calls: uses.calls.into_iter().collect(),
            decisions: uses.decisions,
        });
    }

    fn decl(&self, node: &Value) -> Option<&Decl> {
        node["referencedDeclaration"]
            .as_i64()
            .and_then(|id| self.decls.by_id.get(&id))
    }

    /// Walks statements and expressions: state reads and writes, calls, and
    /// decisions. `lvalue`: `node` is assigned to.
    fn walk(&self, node: &Value, uses: &mut Uses, lvalue: bool) {
        let Some(obj) = node.as_object() else {
            for c in children(node) {
                self.walk(c, uses, lvalue);
            }
            return;
        };
        match obj.get("nodeType").and_then(Value::as_str).unwrap_or("") {
            "Identifier" => {
                if let Some(Decl::StateVar {
                    qualified,
                    constant: false,
                    ..
                }) = self.decl(node)
                {
                    if lvalue {
                        uses.writes.insert(qualified.clone());
                    } else {
                        uses.reads.insert(qualified.clone());
                    }
                }
                return;
            }
            "Assignment" => {
                self.walk(&node["leftHandSide"], uses, true);
                if node["operator"] != "=" {
                    self.walk(&node["leftHandSide"], uses, false);
                }
                self.walk(&node["rightHandSide"], uses, false);
                return;
            }
            "UnaryOperation" => {
                let op = node["operator"].as_str().unwrap_or("");
                if matches!(op, "++" | "--" | "delete") {
                    self.walk(&node["subExpression"], uses, true);
                }
                self.walk(&node["subExpression"], uses, false);
                return;
            }
            "IndexAccess" => {
                self.walk(&node["baseExpression"], uses, lvalue);
                self.walk(&node["indexExpression"], uses, false);
                return;
            }
            "MemberAccess" => {
                // `s.field = x` writes `s`; `a.push(x)` writes `a`.
                let member = node["memberName"].as_str().unwrap_or("");
                let w = lvalue || matches!(member, "push" | "pop");
                self.walk(&node["expression"], uses, w);
                if let Some(Decl::StateVar {
                    qualified,
                    constant: false,
                    ..
                }) = self.decl(node)
                {
                    uses.reads.insert(qualified.clone());
                }
                return;
            }
            "FunctionCall" => {
                self.call(node, uses);
            }
            "NewExpression" => {
                if let Some(name) = node["typeName"]["pathNode"]["name"]
                    .as_str()
                    .or_else(|| node["typeName"]["name"].as_str())
                {
                    uses.calls.insert(CallEdge {
                        callee: format!("{name}.constructor"),
                        kind: CallKind::Create,
                    });
                }
            }
            "IfStatement" => self.decision(
                node,
                "if",
                &node["condition"],
                Some(&node["trueBody"]),
                uses,
            ),
            "WhileStatement" => {
                self.decision(node, "while", &node["condition"], Some(&node["body"]), uses)
            }
            "DoWhileStatement" => {
                self.decision(node, "do", &node["condition"], Some(&node["body"]), uses)
            }
            "ForStatement" if node["condition"].is_object() => {
                self.decision(node, "for", &node["condition"], Some(&node["body"]), uses)
            }
            "Conditional" => self.decision(
                node,
                "ternary",
                &node["condition"],
                Some(&node["trueExpression"]),
                uses,
            ),
            _ => {}
        }
        for c in children(node) {
            self.walk(c, uses, false);
        }
    }

    fn call(&self, node: &Value, uses: &mut Uses) {
        let callee = &node["expression"];
        match callee["nodeType"].as_str() {
            Some("Identifier") => {
                let name = callee["name"].as_str().unwrap_or("");
                if matches!(name, "require" | "assert") {
                    if let Some(cond) = node["arguments"].get(0) {
                        self.decision(
                            node,
                            if name == "require" {
                                "require"
                            } else {
                                "assert"
                            },
                            cond,
                            None,
                            uses,
                        );
                    }
                } else if let Some(Decl::Function { qualified }) = self.decl(callee) {
                    uses.calls.insert(CallEdge {
                        callee: qualified.clone(),
                        kind: CallKind::Internal,
                    });
                }
            }
            Some("MemberAccess") => {
                if let Some(Decl::Function { qualified }) = self.decl(callee) {
                    let base = &callee["expression"];
                    let kind = match base["nodeType"].as_str() {
                        Some("Identifier") if base["name"] == "super" => CallKind::Internal,
                        Some("Identifier") => match self.decl(base) {
                            Some(Decl::Contract { kind, .. }) if kind == "library" => {
                                CallKind::Library
                            }
                            Some(Decl::Contract { .. }) => CallKind::Internal,
                            _ => CallKind::External,
                        },
                        _ => CallKind::External,
                    };
                    // A library function used as `x.f()` is a library call.
                    let kind = if kind == CallKind::External && self.is_library_function(qualified)
                    {
                        CallKind::Library
                    } else {
                        kind
                    };
                    uses.calls.insert(CallEdge {
                        callee: qualified.clone(),
                        kind,
                    });
                }
            }
            _ => {}
        }
    }

    fn is_library_function(&self, qualified: &str) -> bool {
        let contract = qualified.split('.').next().unwrap_or("");
        self.decls.by_id.values().any(
            |d| matches!(d, Decl::Contract { name, kind } if name == contract && kind == "library"),
        )
    }

    fn decision(
        &self,
        node: &Value,
        kind: &'static str,
        cond: &Value,
        then: Option<&Value>,
        uses: &mut Uses,
    ) {
        let (Some(span), Some(c)) = (
            node["src"].as_str().and_then(|s| self.ctx.span(s)),
            cond["src"].as_str().and_then(parse_src),
        ) else {
            return;
        };
        let mut deps = Deps::default();
        self.deps(cond, &mut deps, 0);
        uses.decisions.push(Decision {
            kind,
            span,
            condition: self.ctx.text(c.0, c.0 + c.1),
            cond: c,
            then: then.and_then(|t| t["src"].as_str()).and_then(parse_src),
            params: deps.params.into_iter().collect(),
            state: deps.state.into_iter().collect(),
            constants: deps.constants.into_iter().collect(),
            locals: deps.locals.into_iter().collect(),
            env: deps.env.into_iter().collect(),
            calls: deps.calls.into_iter().collect(),
        });
    }

    /// What expression `node` depends on; locals are followed to their
    /// initial value (a few levels deep).
    fn deps(&self, node: &Value, deps: &mut Deps, depth: u32) {
        let Some(obj) = node.as_object() else {
            for c in children(node) {
                self.deps(c, deps, depth);
            }
            return;
        };
        match obj.get("nodeType").and_then(Value::as_str).unwrap_or("") {
            "Identifier" => {
                let name = node["name"].as_str().unwrap_or("");
                match self.decl(node) {
                    Some(Decl::Param { name }) => {
                        deps.params.insert(name.clone());
                    }
                    Some(Decl::StateVar {
                        qualified,
                        constant: true,
                        value,
                    }) => {
                        deps.constants.insert(Constant {
                            name: Some(qualified.clone()),
                            value: value.clone().unwrap_or_default(),
                        });
                    }
                    Some(Decl::StateVar { qualified, .. }) => {
                        deps.state.insert(qualified.clone());
                    }
                    Some(Decl::Local { name, init }) => {
                        deps.locals.insert(name.clone());
                        if let Some(init) = init
                            && depth < 4
                        {
                            self.deps(init, deps, depth + 1);
                        }
                    }
                    Some(Decl::Function { qualified }) => {
                        deps.calls.insert(qualified.clone());
                    }
                    _ if name == "now" => {
                        deps.env.insert("block.timestamp".into());
                    }
                    _ if name == "this" => {
                        deps.env.insert("this".into());
                    }
                    _ => {}
                }
                return;
            }
            "Literal" => {
                let value = node["value"]
                    .as_str()
                    .map(str::to_string)
                    .or_else(|| node["hexValue"].as_str().map(|h| format!("hex\"{h}\"")))
                    .unwrap_or_default();
                let value = match node["subdenomination"].as_str() {
                    Some(unit) => format!("{value} {unit}"),
                    None => value,
                };
                if node["kind"] != "bool" || !value.is_empty() {
                    deps.constants.insert(Constant { name: None, value });
                }
                return;
            }
            "MemberAccess" => {
                let base = &node["expression"];
                if base["nodeType"] == "Identifier"
                    && let Some(b @ ("msg" | "block" | "tx")) = base["name"].as_str()
                {
                    deps.env
                        .insert(format!("{b}.{}", node["memberName"].as_str().unwrap_or("")));
                    return;
                }
                match self.decl(node) {
                    Some(Decl::StateVar {
                        qualified,
                        constant: true,
                        value,
                    }) => {
                        deps.constants.insert(Constant {
                            name: Some(qualified.clone()),
                            value: value.clone().unwrap_or_default(),
                        });
                        return;
                    }
                    Some(Decl::Function { qualified }) => {
                        deps.calls.insert(qualified.clone());
                    }
                    _ => {}
                }
                self.deps(base, deps, depth);
                return;
            }
            _ => {}
        }
        for c in children(node) {
            self.deps(c, deps, depth);
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
