//! The integration tests, one binary: each module was once its own test
//! binary, and each linked revm, rmcp, tokio and rusqlite again. Run one
//! module with `cargo test --release --test it MODULE::`.

mod common;

mod adversarial;
mod call_syntax;
mod campaign;
mod cheatcodes;
mod check_cache;
mod cli;
mod conformance;
mod control;
mod dashboard;
mod e2e_python;
mod events;
mod forge_std;
mod fork;
mod foundry;
mod graph;
mod hostile;
mod interop;
mod kill_loop;
mod lcov;
mod matrix;
mod mcp;
mod ops;
mod report_html;
mod run_sequence;
mod seam;
mod search;
mod shared;
mod traces;
