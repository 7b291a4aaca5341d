//! The call language of rudder, on its own: one call of a sequence ([`tx`])
//! and the Solidity-style text engineers and agents write it in
//! ([`parser`]): `transfer(0xAbC…, 100)`, `deposit{value: 1 ether}()`,
//! `f(?, 7)`, `redeem($1.shares)` ([`mod@reference`]). The campaign, the MCP tools and the cargo-fuzz harnesses all
//! parse and print calls through this crate; it depends on the ABI crates
//! only, so the harnesses build without the EVM or the server.

pub mod parser;
pub mod reference;
pub mod tx;
