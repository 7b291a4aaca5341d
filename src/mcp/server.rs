//! The rmcp server: advertises the tools with their schemas, validates every
//! call's arguments against the advertised input schema, runs the handler on
//! a blocking thread under the 100 ms budget, and shapes results and errors.

use super::campaign_tools::{CampaignTools, Gate};
use super::errors::ToolError;
use super::schemas;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

struct ToolDef {
    tool: Tool,
    validator: jsonschema::Validator,
}

/// One MCP server over one campaign (cheap to clone: one per HTTP session).
#[derive(Clone)]
pub struct RudderServer {
    tools: CampaignTools,
    defs: Arc<HashMap<&'static str, ToolDef>>,
    order: Arc<Vec<&'static str>>,
}

fn object(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(m) => Arc::new(m),
        _ => unreachable!("schemas are objects"),
    }
}

impl RudderServer {
    pub fn new(tools: CampaignTools) -> Self {
        let mut defs = HashMap::new();
        let mut order = Vec::new();
        for (name, description, input, output) in schemas::campaign_tools() {
            let validator = jsonschema::options()
                .with_draft(jsonschema::Draft::Draft7)
                .build(&input)
                .expect("advertised schemas compile");
            let mut tool = Tool::new(name, description, object(input));
            tool.output_schema = Some(object(output));
            defs.insert(name, ToolDef { tool, validator });
            order.push(name);
        }
        RudderServer {
            tools,
            defs: Arc::new(defs),
            order: Arc::new(order),
        }
    }

    /// The advertised tools, in a stable order.
    pub fn tool_list(&self) -> Vec<Tool> {
        self.order
            .iter()
            .map(|n| self.defs[n].tool.clone())
            .collect()
    }

    /// Runs one tool call to completion (validation, budget, shaping): the
    /// whole tool path, without the transport.
    pub async fn run_tool(&self, name: &str, args: Option<JsonObject>) -> CallToolResult {
        let started = Instant::now();
        let result = self.run(name, args, started).await;
        let elapsed_us = started.elapsed().as_micros() as u64;
        match result {
            Ok(answer) => {
                let text = answer.text.unwrap_or_else(|| answer.structured.to_string());
                let mut r = CallToolResult::structured(answer.structured);
                r.content = vec![ContentBlock::text(text)];
                r.meta =
                    serde_json::from_value(serde_json::json!({ "latencyUs": elapsed_us })).ok();
                r
            }
            Err(e) => {
                let body = e.to_json();
                let mut r = CallToolResult::structured_error(body.clone());
                r.content = vec![ContentBlock::text(body.to_string())];
                r
            }
        }
    }

    async fn run(
        &self,
        name: &str,
        args: Option<JsonObject>,
        started: Instant,
    ) -> Result<super::campaign_tools::ToolAnswer, ToolError> {
        let def = self
            .defs
            .get(name)
            .ok_or_else(|| ToolError::not_found(name))?;
        let args = Value::Object(args.unwrap_or_default());
        if let Some(first) = def.validator.iter_errors(&args).next() {
            let (field, message) = describe_violation(&first, &def.tool);
            return Err(ToolError::invalid(message)
                .with_details(serde_json::json!({ "field": field, "schemaPath": first.schema_path().to_string() })));
        }
        let gate = Gate::new(started + super::TOOL_BUDGET);
        let tools = self.tools.clone();
        let tool = name.to_string();
        let handler_gate = gate.clone();
        let mut task = tokio::task::spawn_blocking(move || tools.call(&tool, args, &handler_gate));
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

/// The field a schema violation concerns and a message that names it. An
/// error at the root (unknown, missing or "at least one of" properties)
/// names the properties involved rather than quoting the schema keyword.
fn describe_violation(e: &jsonschema::ValidationError<'_>, tool: &Tool) -> (String, String) {
    use jsonschema::error::ValidationErrorKind as K;
    let path = e.instance_path().to_string();
    let field = path.trim_start_matches('/').replace('/', ".");
    if !field.is_empty() {
        return (field.clone(), format!("{field}: {e}"));
    }
    match e.kind() {
        K::AdditionalProperties { unexpected } => {
            let known: Vec<&str> = tool
                .input_schema
                .get("properties")
                .and_then(|p| p.as_object())
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default();
            let names = unexpected.join(", ");
            (
                names.clone(),
                format!(
                    "{names}: not a parameter of {} (parameters: {})",
                    tool.name,
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ),
            )
        }
        K::Required { property } => {
            let name = property.as_str().unwrap_or("").to_string();
            (name.clone(), format!("{name}: required"))
        }
        K::AnyOf { .. } => {
            let names: Vec<String> = tool
                .input_schema
                .get("properties")
                .and_then(|p| p.as_object())
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
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
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("rudder", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "rudder runs a smart-contract fuzzing campaign in this process. Read its state \
                 (status, read_logs, show_coverage, corpus tools) and steer its workers \
                 (inject_transaction with Solidity-style calls, prioritize_function, \
                 clear_priorities). Every tool answers within 100 ms.",
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
}
