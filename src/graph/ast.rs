//! The graph's front end: solc's compact AST walked into functions, calls,
//! state reads and writes, and decisions with what their conditions depend on.

use super::*;

/// The child nodes of an AST value: an array's items, or an object's
/// object and array fields other than type annotations.
pub(super) fn children(node: &Value) -> Box<dyn Iterator<Item = &Value> + '_> {
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

pub(super) fn contract_kind(node: &Value) -> String {
    match node["contractKind"].as_str().unwrap_or("contract") {
        "contract" if node["abstract"] == true => "abstract".into(),
        "contract" if node["fullyImplemented"] == false => "abstract".into(),
        k => k.to_string(),
    }
}

pub(super) fn function_name(node: &Value) -> String {
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

pub(super) fn params<'v>(node: &'v Value, key: &str) -> impl Iterator<Item = &'v Value> {
    node[key]["parameters"].as_array().into_iter().flatten()
}

/// A type string as the ABI writes it: data locations dropped, contracts
/// and enums as their ABI types.
pub(super) fn abi_type(type_string: &str) -> String {
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

pub(super) fn array_suffix(t: &str) -> &str {
    t.find('[').map_or("", |i| &t[i..])
}

pub(super) struct Builder<'a, 'b> {
    pub(super) decls: &'a Decls,
    pub(super) ctx: &'a SourceCtx<'b>,
    pub(super) graph: &'a mut CodeGraph,
}

/// What one walk of a function body collects.
#[derive(Default)]
pub(super) struct Uses {
    pub(super) reads: BTreeSet<String>,
    pub(super) writes: BTreeSet<String>,
    pub(super) calls: BTreeSet<CallEdge>,
    pub(super) call_sites: Vec<CallSite>,
    pub(super) assignments: Vec<Assignment>,
    pub(super) decisions: Vec<Decision>,
}

/// What one condition depends on.
#[derive(Default)]
pub(super) struct Deps {
    pub(super) params: BTreeSet<String>,
    pub(super) state: BTreeSet<String>,
    pub(super) constants: BTreeSet<Constant>,
    /// Locals by name, with their initial value as written.
    pub(super) locals: BTreeMap<String, Option<String>>,
    pub(super) env: BTreeSet<String>,
    pub(super) calls: BTreeSet<String>,
}

impl Builder<'_, '_> {
    pub(super) fn source_unit(&mut self, ast: &Value) {
        for node in ast["nodes"].as_array().into_iter().flatten() {
            match node["nodeType"].as_str() {
                Some("ContractDefinition") => self.contract(node),
                Some("FunctionDefinition") => self.function(node, ""),
                Some("VariableDeclaration") => self.state_var(node, ""),
                _ => {}
            }
        }
    }

    pub(super) fn path(&self) -> String {
        self.ctx.source.path.clone()
    }

    pub(super) fn contract(&mut self, node: &Value) {
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

    pub(super) fn state_var(&mut self, node: &Value, contract: &str) {
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

    pub(super) fn function(&mut self, node: &Value, contract: &str) {
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
            call_sites: uses.call_sites,
            assignments: uses.assignments,
            decisions: uses.decisions,
        });
    }

    pub(super) fn decl(&self, node: &Value) -> Option<&Decl> {
        node["referencedDeclaration"]
            .as_i64()
            .and_then(|id| self.decls.by_id.get(&id))
    }

    /// Walks statements and expressions: state reads and writes, calls, and
    /// decisions. `lvalue`: `node` is assigned to.
    pub(super) fn walk(&self, node: &Value, uses: &mut Uses, lvalue: bool) {
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
                self.assignment(node, &node["leftHandSide"], uses);
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
                    self.assignment(node, &node["subExpression"], uses);
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

    /// Records `node` (an assignment, `x++`, `delete x`) when what it writes
    /// is a state variable or a part of one (`m[k]`, `s.field`).
    fn assignment(&self, node: &Value, lhs: &Value, uses: &mut Uses) {
        let mut root = lhs;
        loop {
            match root["nodeType"].as_str() {
                Some("IndexAccess") => root = &root["baseExpression"],
                Some("MemberAccess") if !matches!(self.decl(root), Some(Decl::StateVar { .. })) => {
                    root = &root["expression"]
                }
                _ => break,
            }
        }
        if let Some(Decl::StateVar {
            qualified,
            constant: false,
            ..
        }) = self.decl(root)
            && let Some(text) = self.src_text(node)
        {
            let mut deps = Deps::default();
            self.deps(&node["rightHandSide"], &mut deps, 0);
            uses.assignments.push(Assignment {
                var: qualified.clone(),
                text,
                constants: deps
                    .constants
                    .into_iter()
                    .filter(|c| c.name.is_some())
                    .collect(),
            });
        }
    }

    /// The source text of `node`, whitespace collapsed.
    fn src_text(&self, node: &Value) -> Option<String> {
        let (s, l) = node["src"].as_str().and_then(parse_src)?;
        Some(self.ctx.text(s, s + l)).filter(|t| !t.is_empty())
    }

    fn call_site(&self, node: &Value, callee: &str, uses: &mut Uses) {
        let args = node["arguments"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| self.src_text(a).unwrap_or_default())
            .collect();
        uses.call_sites.push(CallSite {
            callee: callee.to_string(),
            args,
        });
    }

    pub(super) fn call(&self, node: &Value, uses: &mut Uses) {
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
                    self.call_site(node, qualified, uses);
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
                    if kind != CallKind::Library {
                        self.call_site(node, qualified, uses);
                    }
                    uses.calls.insert(CallEdge {
                        callee: qualified.clone(),
                        kind,
                    });
                }
            }
            _ => {}
        }
    }

    pub(super) fn is_library_function(&self, qualified: &str) -> bool {
        let contract = qualified.split('.').next().unwrap_or("");
        self.decls.by_id.values().any(
            |d| matches!(d, Decl::Contract { name, kind } if name == contract && kind == "library"),
        )
    }

    pub(super) fn decision(
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
            locals: deps.locals.keys().cloned().collect(),
            local_defs: deps
                .locals
                .into_iter()
                .map(|(name, init)| LocalDef { name, init })
                .collect(),
            env: deps.env.into_iter().collect(),
            calls: deps.calls.into_iter().collect(),
        });
    }

    /// What expression `node` depends on; locals are followed to their
    /// initial value (a few levels deep).
    pub(super) fn deps(&self, node: &Value, deps: &mut Deps, depth: u32) {
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
                        deps.locals
                            .insert(name.clone(), init.as_deref().and_then(|i| self.src_text(i)));
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
                    // Another contract's public variable read through its
                    // getter (`vault.deposits(who)`): the variable itself.
                    Some(Decl::StateVar { qualified, .. }) => {
                        deps.state.insert(qualified.clone());
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

#[cfg(test)]
mod tests;
