//! The rmcp server: composes the selected tool families, advertises their
//! tools, validates every call's arguments against the advertised input
//! schema, runs the handler under the 100 ms budget with the commit-or-expire
//! [`Gate`], and shapes results and errors. This is the one place that
//! knows about budgets and gates; families only declare tools.

use crate::campaign::Control;
use crate::families::errors::ToolError;
use crate::families::family::{
    Access, Conventions, Family, FamilyName, Gate, Observed, SessionId, ToolAnswer, ToolDef,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, Implementation, JsonObject, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

struct Served {
    conventions: Conventions,
    def: ToolDef,
    tool: Tool,
    validator: jsonschema::Validator,
}

/// One MCP server over one campaign (cheap to clone: one per HTTP session).
#[derive(Clone)]
pub struct RudderServer {
    tools: Arc<HashMap<&'static str, Served>>,
    order: Arc<Vec<&'static str>>,
    families: Arc<Vec<Box<dyn Family>>>,
    inline_reads: bool,
    /// Each call's budget: [`TOOL_BUDGET`](super::TOOL_BUDGET) unless an
    /// embedder chose another ([`RudderServer::with_budget`]).
    budget: std::time::Duration,
    /// Whether `tools/list` carries each tool's output schema (and the
    /// schemas' `$schema`, `title` and root `description`); see [`RudderServer::with_output_schemas`].
    output_schemas: bool,
    control: Control,
    /// The MCP session this server answers.
    session: SessionId,
}

fn object(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(m) => Arc::new(m),
        _ => unreachable!("schemas are objects"),
    }
}

/// The registry's families in `selected`, built over `control` (an
/// embedder's own families come built, through `with_extra`).
fn build_families(control: &Control, selected: &[FamilyName]) -> Vec<Box<dyn Family>> {
    crate::families::REGISTRY
        .iter()
        .filter(|r| selected.contains(&r.name))
        .map(|r| (r.build)(control))
        .collect()
}

impl RudderServer {
    /// A server with every family.
    pub fn new(control: Control) -> Self {
        Self::with_families(control, &FamilyName::all())
    }

    /// A server with the families in `selected` (`--tools`).
    pub fn with_families(control: Control, selected: &[FamilyName]) -> Self {
        Self::with_extra(control, selected, Vec::new())
    }

    /// A server with the families in `selected` and `extra` families an
    /// embedding program defines (each declares its name, tools and
    /// conventions; the server validates, budgets and shapes them like its
    /// own).
    pub fn with_extra(
        control: Control,
        selected: &[FamilyName],
        extra: Vec<Box<dyn Family>>,
    ) -> Self {
        let mut families = build_families(&control, selected);
        families.extend(extra);
        let mut tools = HashMap::new();
        let mut order = Vec::new();
        for family in &families {
            for def in family.tools() {
                let validator = jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft7)
                    .build(&def.input)
                    .expect("derived schemas compile");
                let mut tool =
                    Tool::new(def.name, def.description.clone(), object(def.input.clone()));
                let mut output = def.output.clone();
                if family.conventions().metadata.is_some()
                    && let Some(Value::Object(props)) =
                        output.as_mut().and_then(|o| o.get_mut("properties"))
                {
                    // The response metadata (`_metadata`), on every answer
                    // outside the campaign family (whose schemas are exact).
                    props.insert(
                        "_metadata".into(),
                        crate::families::conventions::metadata_schema(),
                    );
                }
                tool.output_schema = output.map(object);
                assert!(
                    !tools.contains_key(def.name),
                    "tool {} declared by two families",
                    def.name
                );
                order.push(def.name);
                tools.insert(
                    def.name,
                    Served {
                        conventions: family.conventions(),
                        def,
                        tool,
                        validator,
                    },
                );
            }
        }
        RudderServer {
            tools: Arc::new(tools),
            order: Arc::new(order),
            families: Arc::new(families),
            inline_reads: true,
            budget: super::TOOL_BUDGET,
            output_schemas: true,
            session: SessionId::next(),
            control,
        }
    }

    /// The same server for another MCP session (an HTTP client): families
    /// keep its state (its current ETG attempt) apart.
    pub fn for_session(&self) -> Self {
        let mut s = self.clone();
        s.session = SessionId::next();
        s
    }

    /// Runs every tool on the blocking pool, reads included (how rudder
    /// answered before reads went inline): for the `tools` bench's
    /// before/after comparison in one run.
    #[doc(hidden)]
    pub fn with_blocking_reads(mut self) -> Self {
        self.inline_reads = false;
        self
    }

    /// The same server with another per-call budget. MCP clients get
    /// 100 ms; an embedder on a slow or loaded machine (or a test
    /// checking answers, not latency) may allow more. Timeouts then report
    /// this budget.
    pub fn with_budget(mut self, budget: std::time::Duration) -> Self {
        self.budget = budget;
        self
    }

    /// Whether `tools/list` advertises output schemas (on by default). Off,
    /// the list an agent loads into its context is less than half the size
    /// (`rudder mcp` without `--output-schemas`): answers are the same, and
    /// clients then take structured content as it comes.
    pub fn with_output_schemas(mut self, on: bool) -> Self {
        self.output_schemas = on;
        self
    }

    /// The families this server serves.
    pub fn families(&self) -> Vec<FamilyName> {
        self.families.iter().map(|f| f.name()).collect()
    }

    /// The advertised tools, in a stable order (family by family).
    pub fn tool_list(&self) -> Vec<Tool> {
        self.order
            .iter()
            .map(|n| {
                let mut tool = self.tools[n].tool.clone();
                if !self.output_schemas {
                    tool.output_schema = None;
                    let mut input = (*tool.input_schema).clone();
                    input.remove("$schema");
                    input.remove("title");
                    // The parameters struct's doc, which the tool's own
                    // description already says.
                    input.remove("description");
                    tool.input_schema = Arc::new(input);
                }
                tool
            })
            .collect()
    }

    /// Runs one tool call to completion (validation, budget, shaping): the
    /// whole tool path, without the transport.
    pub async fn run_tool(&self, name: &str, args: Option<JsonObject>) -> CallToolResult {
        let started = Instant::now();
        let started_ms = crate::eventlog::now_ms();
        let logged_args = args.clone();
        let gate = Gate::new(started + self.budget).for_session(self.session);
        let mut result = self.run(name, args, &gate).await;
        if let Err(e) = &mut result
            && e.code == crate::families::errors::ErrorCode::ExecutionTimeout
            && self.budget != super::TOOL_BUDGET
        {
            *e = ToolError::timeout_after(name, self.budget);
        }
        let elapsed_us = started.elapsed().as_micros() as u64;
        let served = self.tools.get(name);
        if served.is_none_or(|s| s.def.logged) {
            let call = Observed {
                session: self.session,
                tool: name,
                arguments: &logged_args.unwrap_or_default(),
                started_ms,
                elapsed_us,
                result: &result,
                committed: gate.committed(),
            };
            for family in self.families.iter() {
                family.observe(&call);
            }
        }
        let conventions = served.map(|s| s.conventions).unwrap_or_default();
        match result {
            Ok(mut answer) => {
                if let Some(source) = conventions.metadata {
                    crate::families::conventions::add_metadata(
                        &mut answer.structured,
                        started.elapsed(),
                        source,
                    );
                }
                let text = answer.text.unwrap_or_else(|| answer.structured.to_string());
                let mut r = CallToolResult::structured(answer.structured);
                r.content = vec![ContentBlock::text(text)];
                r.meta =
                    serde_json::from_value(serde_json::json!({ "latencyUs": elapsed_us })).ok();
                r
            }
            Err(e) => {
                if e.code == crate::families::errors::ErrorCode::InvalidInput {
                    // Rejected input is history too (get_validation_errors).
                    let field = e
                        .details
                        .as_ref()
                        .and_then(|d| d.get("field"))
                        .and_then(Value::as_str)
                        .unwrap_or("arguments");
                    self.control.log_rejection(name, field, &e.message);
                }
                let body = if conventions.error_envelope {
                    crate::families::conventions::error_body(&e, started.elapsed())
                } else {
                    e.to_json()
                };
                // The error travels as JSON text with `isError` and no
                // `structuredContent`: the official clients validate any
                // structured content against the tool's (success) output
                // schema, error or not, and would hide our answer behind a
                // schema mismatch of their own.
                CallToolResult::error(vec![ContentBlock::text(body.to_string())])
            }
        }
    }

    async fn run(
        &self,
        name: &str,
        args: Option<JsonObject>,
        gate: &Gate,
    ) -> Result<ToolAnswer, ToolError> {
        let served = self
            .tools
            .get(name)
            .ok_or_else(|| ToolError::not_found(name))?;
        let args = Value::Object(args.unwrap_or_default());
        if let Some(e) = unknown_parameter(&args, &served.tool) {
            return Err(e);
        }
        if let Some(first) = served.validator.iter_errors(&args).next() {
            let (field, message) = describe_violation(&first, &served.tool);
            return Err(ToolError::invalid(message).with_details(
                serde_json::json!({ "field": field, "schemaPath": first.schema_path().to_string() }),
            ));
        }
        let gate = &gate.clone().for_tool(served.def.name);
        if served.def.access == Access::Inline && self.inline_reads {
            // A read of lock-free snapshots: microseconds, no state change.
            return served.def.call(args, gate);
        }
        let def = served.def.clone();
        let handler_gate = gate.clone();
        let mut task = tokio::task::spawn_blocking(move || def.call(args, &handler_gate));
        let joined = match tokio::time::timeout_at(gate.deadline().into(), &mut task).await {
            Ok(j) => j,
            // Past the budget: if the handler has not committed a change, it
            // never will; if it has, its change stands and we report it.
            Err(_) if gate.expire() => return Err(ToolError::timeout(name)),
            Err(_) => task.await,
        };
        joined
            .unwrap_or_else(|join| Err(ToolError::internal(format!("tool {name} failed: {join}"))))
    }
}

/// A parameter the tool does not take (its schema closes its properties),
/// named with the ones it does.
fn unknown_parameter(args: &Value, tool: &Tool) -> Option<ToolError> {
    let schema = &tool.input_schema;
    if schema.get("additionalProperties") != Some(&Value::Bool(false)) {
        return None;
    }
    let known: Vec<&String> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().collect())
        .unwrap_or_default();
    let unknown: Vec<&String> = args
        .as_object()?
        .keys()
        .filter(|k| !known.contains(k))
        .collect();
    if unknown.is_empty() {
        return None;
    }
    let names = unknown
        .iter()
        .map(|n| {
            if n.is_empty() {
                "\"\"".to_string()
            } else {
                n.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(", ");
    let params = if known.is_empty() {
        "none".to_string()
    } else {
        known
            .iter()
            .map(|k| k.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    Some(
        ToolError::invalid(format!(
            "{names}: not a parameter of {} (parameters: {params})",
            tool.name
        ))
        .with_details(serde_json::json!({ "field": names })),
    )
}

/// The field a schema violation concerns and a message that names it. An
/// error at the root (unknown, missing or "at least one of" properties)
/// names the properties involved rather than quoting the schema keyword.
fn describe_violation(e: &jsonschema::ValidationError<'_>, tool: &Tool) -> (String, String) {
    use jsonschema::error::ValidationErrorKind as K;
    let path = e.instance_path().to_string();
    let field = path.trim_start_matches('/').replace('/', ".");
    let known = || -> Vec<String> {
        tool.input_schema
            .get("properties")
            .and_then(|p| p.as_object())
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    };
    if !field.is_empty() {
        if let K::Pattern { pattern } = e.kind()
            && let Some(words) = e
                .instance()
                .as_str()
                .and_then(|v| crate::families::campaign::explain_pattern(pattern, v))
        {
            return (field.clone(), format!("{field}: {words}"));
        }
        return (field.clone(), format!("{field}: {e}"));
    }
    match e.kind() {
        K::Required { property } => {
            let name = property.as_str().unwrap_or("").to_string();
            (name.clone(), format!("{name}: required"))
        }
        K::AnyOf { .. } => {
            let names = known();
            (
                names.join(", "),
                format!("at least one of {} is required", names.join(", ")),
            )
        }
        _ => ("arguments".into(), format!("arguments: {e}")),
    }
}

impl ServerHandler for RudderServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .enable_resources_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new("rudder", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "rudder runs a smart-contract fuzzing campaign in this process. Read its state \
                 (status, target, read_logs, show_coverage, corpus tools) and steer its workers \
                 (inject_transaction with Solidity-style calls and ? wildcards, \
                 prioritize_function, clear_priorities). Every tool answers within 100 ms.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tool_list()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        Ok(self.run_tool(&request.name, request.arguments).await.into())
    }

    /// Tells the client when the resources change: a test falsified (or
    /// reloaded) adds its sequence and reproducer. The campaign is polled
    /// twice a second for as long as the session's transport is open.
    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        let peer = context.peer;
        let read = self.control.read();
        tokio::spawn(async move {
            let mut seen = read.tests().falsified_count();
            while !peer.is_transport_closed() {
                tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                let now = read.tests().falsified_count();
                if now != seen {
                    seen = now;
                    if peer.notify_resource_list_changed().await.is_err() {
                        break;
                    }
                }
            }
        });
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Ok(ListPromptsResult::with_all_items(super::prompts::list()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let args = request.arguments.unwrap_or_default();
        super::prompts::get(&self.control.read(), &request.name, &args)
            .map(Into::into)
            .map_err(|e| McpError::invalid_params(e, None))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(super::resources::list(
            &self.control.read(),
        )))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(
            super::resources::templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        super::resources::read(&self.control.read(), &request.uri)
            .map(|c| ReadResourceResult::new(vec![c]).into())
            .map_err(|e| {
                McpError::resource_not_found(e, Some(serde_json::json!({"uri": request.uri})))
            })
    }
}
