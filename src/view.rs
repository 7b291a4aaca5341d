//! What people look at: a falsifying sequence laid out call by call
//! ([`sequence`]), the self-contained HTML report ([`html`]) and the live
//! terminal dashboard ([`dashboard`]), and when the campaign first reached
//! each line and falsified each test ([`timeline`]). Each reads the campaign through
//! [`crate::campaign::CampaignRead`], the same stores the tools read: there
//! is no second bookkeeping.

pub mod ci;
pub mod dashboard;
pub mod html;
pub mod sequence;
pub mod timeline;

pub use sequence::{CallView, SequenceView};
