//! The MCP control plane: the campaign tools of seed 002 (+ `status`) served
//! by rmcp, in the campaign's process, over stdio or streamable HTTP.
//!
//! * [`schemas`]: the advertised input/output JSON Schemas (the seed's).
//! * [`campaign_tools`]: the handlers: parse, call a store, shape the answer.
//! * [`errors`]: the seed's `ErrorResponse` and codes.
//! * [`server`]: validation, the 100 ms budget, rmcp glue.
//! * [`screen`]: raw messages checked (size, JSON) before rmcp reads them.
//! * [`transport`]: stdio and loopback streamable HTTP.

pub mod campaign_tools;
pub mod errors;
pub mod schemas;
pub mod screen;
pub mod server;
pub mod transport;

pub use campaign_tools::CampaignTools;
pub use errors::{ErrorCode, ToolError};
pub use server::RudderServer;

/// Every tool answers within this budget or returns `EXECUTION_TIMEOUT`.
pub const TOOL_BUDGET: std::time::Duration = std::time::Duration::from_millis(100);
