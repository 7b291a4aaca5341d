//! The journal as the families that read it see it: a port holding the
//! campaign's journal (if it keeps one) and nothing else of the campaign.
//! Reads take a pooled connection within the call's budget (admission,
//! deadline), and a family's journal-only answers are shared among identical
//! calls until the journal commits again.

use super::errors::ToolError;
use super::family::{Gate, ToolDef};
use crate::campaign::CampaignRead;
use crate::journal::Journal;
use crate::journal::query::{self, QueryError};

/// Read access to one campaign's journal.
#[derive(Clone)]
pub struct JournalRead {
    journal: Option<Journal>,
    run_id: String,
}

impl JournalRead {
    /// The journal of `campaign`.
    pub fn of(campaign: &CampaignRead) -> Self {
        JournalRead {
            journal: campaign.journal().cloned(),
            run_id: campaign.run_id().to_string(),
        }
    }

    /// The journal, if the campaign keeps one.
    pub fn journal(&self) -> Option<&Journal> {
        self.journal.as_ref()
    }

    /// The id of the campaign's own (live) run.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// Runs `f` on a pooled read connection of `journal` within the call's
    /// budget (interrupted inside SQLite past it). A burst of queries takes
    /// turns on the cores; one that cannot start before its deadline is
    /// `EXECUTION_TIMEOUT` at once.
    pub fn with_reader<T>(
        journal: &Journal,
        gate: &Gate,
        f: impl FnOnce(&rusqlite::Connection) -> Result<T, QueryError>,
    ) -> Result<Result<T, QueryError>, ToolError> {
        let _slot = journal
            .admit(gate.deadline())
            .ok_or_else(|| ToolError::timeout(gate.tool()))?;
        let mut reader = journal
            .reader()
            .map_err(|e| ToolError::internal(e.to_string()))?;
        Ok(query::with_deadline(&mut reader, gate.deadline(), f))
    }

    /// Shares a family's journal reads among identical calls until the
    /// journal commits again (see [`super::family::Memo`]); `except` also
    /// read live stores and are left alone.
    pub fn memoize(&self, tools: Vec<ToolDef>, except: &[&str]) -> Vec<ToolDef> {
        match &self.journal {
            Some(j) => tools
                .into_iter()
                .map(|t| {
                    if except.contains(&t.name) {
                        t
                    } else {
                        let j = j.clone();
                        t.memoized(move || j.version())
                    }
                })
                .collect(),
            None => tools,
        }
    }
}
