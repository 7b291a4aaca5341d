//! The MCP control plane: tool families served by rmcp, in the campaign's
//! process, over stdio or streamable HTTP.
//!
//! * [`family`]: the seam: typed tool declarations, derived schemas, the gate.
//! * [`campaign_tools`]: seed 002's campaign family (+ `status`).
//! * [`events_tools`]: seed 000's events family over the SQLite journal.
//! * [`traces_tools`]: seed 003's traces family over the trace store.
//! * [`graph_tools`]: seed 004's graph family: the code graph with coverage
//!   gaps, and the ETG of the agent's attempts.
//! * [`ops_tools`]: seed 001's sixteen tools as campaign analogues.
//! * [`journal_read`]: the journal port (pooled reads within the budget,
//!   memoized answers) the events, traces and graph families read through.
//! * [`conventions`]: seed 001's envelope, TTL cache, `_metadata`, errors.
//! * [`errors`]: the seed's `ErrorResponse` and codes.
//! * [`server`]: composes the families; validation, the 100 ms budget, rmcp.
//! * [`screen`]: raw messages checked (size, JSON) before rmcp reads them.
//! * [`transport`]: stdio and loopback streamable HTTP.

pub mod campaign_tools;
pub mod conventions;
pub mod errors;
pub mod events_tools;
pub mod family;
pub mod graph_tools;
pub mod journal_read;
pub mod ops_tools;
pub mod screen;
pub mod server;
pub mod traces_tools;
pub mod transport;

pub use campaign_tools::CampaignTools;
pub use errors::{ErrorCode, ToolError};
pub use family::{Access, Conventions, Family, FamilyName, Gate, ToolAnswer, ToolDef};
pub use server::RudderServer;

/// Every tool answers within this budget or returns `EXECUTION_TIMEOUT`.
pub const TOOL_BUDGET: std::time::Duration = std::time::Duration::from_millis(100);

/// The JSON answer of a tool result as a client reads it: the structured
/// content of a success, or the JSON text of a refusal (errors carry no
/// structured content; see [`server`]).
pub fn answer_json(result: &rmcp::model::CallToolResult) -> serde_json::Value {
    if let Some(v) = &result.structured_content {
        return v.clone();
    }
    result
        .content
        .iter()
        .find_map(|c| c.as_text())
        .and_then(|t| serde_json::from_str(&t.text).ok())
        .unwrap_or(serde_json::Value::Null)
}
