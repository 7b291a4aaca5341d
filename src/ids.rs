//! Newtypes for the identifiers that cross module boundaries, so a worker id
//! is never confused with a corpus index or a sequence number.

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! id {
    ($(#[$m:meta])* $name:ident($inner:ty)) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub $inner);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

id!(
    /// A worker thread of the campaign, `0..workers`.
    WorkerId(u32)
);
id!(
    /// A corpus entry (one call sequence), stable for the life of the corpus.
    EntryId(u64)
);
id!(
    /// The global sequence number of an event: the order in which events were
    /// pushed, across all workers.
    Seq(u64)
);
id!(
    /// A test of the campaign: a property, an assertion-checked function or an
    /// optimization target, in the order the campaign lists them.
    TestId(u32)
);
id!(
    /// An injection from the control plane, numbered from 1 per campaign.
    InjectionId(u64)
);
