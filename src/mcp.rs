//! The MCP control plane: the tool families ([`crate::families`]) served by
//! rmcp, in the campaign's process, over stdio or streamable HTTP.
//!
//! * [`server`]: composes the families; validation, the 100 ms budget, rmcp.
//! * [`screen`]: raw messages checked (size, JSON) before rmcp reads them.
//! * [`transport`]: stdio and loopback streamable HTTP.

pub mod prompts;
pub mod resources;
pub mod screen;
pub mod server;
pub mod transport;

pub use crate::families::campaign::CampaignTools;
pub use crate::families::errors::{ErrorCode, ToolError};
pub use crate::families::family::{
    Access, Conventions, Family, FamilyName, Gate, ToolAnswer, ToolDef,
};
pub use crate::families::{TOOL_BUDGET, family};
pub use server::RudderServer;

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
