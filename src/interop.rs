//! The formats of the fuzzers users already run, read and written so that a
//! campaign moves between them: Echidna's transaction JSON (its corpus and
//! reproducer files, [`echidna`]) and Medusa's call sequences
//! ([`medusa`]).
//!
//! Each reader turns a file into the campaign's own calls against the
//! target's ABI, or says why it cannot (a call the ABI lacks, a value of
//! the wrong type), naming the file's call; each writer is its reader's
//! inverse for every call the campaign can make.

pub mod echidna;
pub mod medusa;
