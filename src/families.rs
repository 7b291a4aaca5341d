//! The tool families: each a vertical slice in its own directory, over the
//! seam the server serves them through.
//!
//! The seam (what every family is written against):
//! * [`family`]: typed tool declarations, derived schemas, the gate, the
//!   [`Family`] trait a family implements.
//! * [`errors`]: the seeds' `ErrorResponse` and codes.
//! * [`conventions`]: the ops family's envelope, TTL cache, `_metadata`.
//! * [`journal_read`]: the journal port (pooled reads within the budget,
//!   memoized answers) the events and traces families read through.
//!
//! The slices (each `mod.rs`: the `Family` impl and thin handlers;
//! `types.rs`: parameters and answers):
//! * [`campaign`]: the nine campaign tools and `status`.
//! * [`events`]: query tools over the SQLite journal.
//! * [`traces`]: executed sequences as traces and spans.
//! * [`graph`]: the code graph with coverage gaps, and the ETG of
//!   the agent's attempts.
//! * [`ops`]: sixteen tools as campaign analogues.

pub mod conventions;
pub mod errors;
pub mod family;
pub mod journal_read;

pub mod campaign;
pub mod events;
pub mod graph;
pub mod ops;
pub mod traces;

/// Every tool answers within this budget or returns `EXECUTION_TIMEOUT`.
pub const TOOL_BUDGET: std::time::Duration = std::time::Duration::from_millis(100);

use crate::campaign::Control;
use family::{Family, FamilyName};
use journal_read::JournalRead;

/// A family rudder serves: its name and how it is built over a campaign.
pub struct Registered {
    pub name: FamilyName,
    /// The family over `control`'s ports ([`crate::campaign::ports`]): its
    /// constructor's signature says what of the campaign it may touch.
    pub build: fn(&Control) -> Box<dyn Family>,
}

/// rudder's families, in the order `tools/list` advertises them. Adding a
/// family is a directory under `src/families/` and one line here.
#[rustfmt::skip]
pub const REGISTRY: &[Registered] = &[
    Registered { name: campaign::NAME, build: |c| Box::new(campaign::CampaignTools::new(c.read(), c.steer())) },
    Registered { name: events::NAME, build: |c| Box::new(events::EventsTools::new(JournalRead::of(&c.read()), c.read())) },
    Registered { name: traces::NAME, build: |c| Box::new(traces::TracesTools::new(JournalRead::of(&c.read()))) },
    Registered { name: graph::NAME, build: |c| Box::new(graph::GraphTools::new(c.read(), c.family_state())) },
    Registered { name: ops::NAME, build: |c| Box::new(ops::OpsTools::new(c.read(), c.steer(), c.family_state())) },
];
