//! Tool failures as the campaign tools define them: a tool result with `isError: true`
//! carrying `{ "success": false, "error": { "code", "message", "details" } }`.

use crate::campaign::ControlError;
use serde_json::{Value, json};

/// Error codes: the campaign tools' four, and the tool-specific codes
/// the ops family documents (`INVALID_SYMBOL`, `SPEC_NOT_FOUND`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidInput,
    ToolNotFound,
    ExecutionTimeout,
    InternalError,
    /// A code one tool documents for itself (`INVALID_SYMBOL`, …).
    Specific(&'static str),
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "INVALID_INPUT",
            ErrorCode::ToolNotFound => "TOOL_NOT_FOUND",
            ErrorCode::ExecutionTimeout => "EXECUTION_TIMEOUT",
            ErrorCode::InternalError => "INTERNAL_ERROR",
            ErrorCode::Specific(c) => c,
        }
    }

    /// The code in the ops envelope's vocabulary (its standard codes for the
    /// generic failures).
    pub fn envelope_code(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "INVALID_PARAMETER",
            ErrorCode::ToolNotFound => "NOT_FOUND",
            ErrorCode::ExecutionTimeout => "TIMEOUT",
            ErrorCode::InternalError => "INTERNAL_ERROR",
            ErrorCode::Specific(c) => c,
        }
    }
}

/// A failed tool call.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{}: {message}", code.as_str())]
pub struct ToolError {
    pub code: ErrorCode,
    pub message: String,
    pub details: Option<Value>,
}

impl ToolError {
    pub fn invalid(message: impl Into<String>) -> Self {
        ToolError {
            code: ErrorCode::InvalidInput,
            message: message.into(),
            details: None,
        }
    }

    pub fn not_found(tool: &str) -> Self {
        ToolError {
            code: ErrorCode::ToolNotFound,
            message: format!("Tool '{tool}' not found"),
            details: None,
        }
    }

    pub fn timeout(tool: &str) -> Self {
        Self::timeout_after(tool, super::TOOL_BUDGET)
    }

    /// A timeout under a budget other than the default one.
    pub fn timeout_after(tool: &str, budget: std::time::Duration) -> Self {
        let ms = budget.as_millis() as u64;
        ToolError {
            code: ErrorCode::ExecutionTimeout,
            message: format!("Tool {tool} exceeded {ms}ms"),
            details: Some(json!({ "budgetMs": ms })),
        }
    }

    pub fn internal(message: impl Into<String>) -> Self {
        ToolError {
            code: ErrorCode::InternalError,
            message: message.into(),
            details: None,
        }
    }

    /// A tool-specific code naming `field` (the ops envelope's errors).
    pub fn coded(code: &'static str, field: &str, message: impl Into<String>) -> Self {
        ToolError {
            code: ErrorCode::Specific(code),
            message: message.into(),
            details: Some(json!({ "field": field })),
        }
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// The `ErrorResponse` object.
    pub fn to_json(&self) -> Value {
        let mut error = json!({ "code": self.code.as_str(), "message": self.message });
        if let Some(d) = &self.details {
            error["details"] = d.clone();
        }
        json!({ "success": false, "error": error })
    }
}

impl From<ControlError> for ToolError {
    fn from(e: ControlError) -> Self {
        match e {
            ControlError::InvalidInput { field, message } => {
                ToolError::invalid(format!("{field}: {message}"))
                    .with_details(json!({ "field": field }))
            }
            // The campaign tools have no "busy" code: the call did nothing within its
            // budget, which is what EXECUTION_TIMEOUT tells a client; the
            // details say why and when to retry.
            e @ ControlError::Busy { queued, limit } => ToolError {
                code: ErrorCode::ExecutionTimeout,
                message: e.to_string(),
                details: Some(
                    json!({ "reason": "busy", "queued": queued, "limit": limit, "retryAfterMs": 100 }),
                ),
            },
        }
    }
}
