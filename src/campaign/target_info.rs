//! What the campaign fuzzes, described for an agent: the deployed contracts
//! with their addresses, each function with its signature, mutability and
//! whether workers call it, and each test with its kind and status.

use super::Engine;
use crate::campaign::properties::TestKind;
use crate::campaign::report::TestStatus;
use schemars::JsonSchema;
use serde::Serialize;

/// One deployed contract.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeployedContract {
    pub name: String,
    /// Lowercase hex.
    pub address: String,
    /// `target` (the fuzzed contract), `callable` (another contract calls
    /// may go to, `allContracts`), `deployed` (a library or a
    /// `deployContracts` entry) or `readable` (a contract of the project
    /// the deployment created, which calls do not go to: its views may be
    /// read with `evaluate_predicates`, `f{to: …}()`).
    pub role: String,
}

/// One function of a deployed contract.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TargetFunction {
    pub contract: String,
    /// Canonical signature (what prioritize_function and find_transaction_in_corpus take).
    pub signature: String,
    /// 0x-prefixed 4-byte selector.
    pub selector: String,
    /// pure, view, nonpayable or payable.
    pub mutability: String,
    /// Whether workers generate calls to it.
    pub fuzzed: bool,
    /// Its parameters in order, with their names (empty when the source
    /// gives none): what a condition naming a parameter refers to.
    pub inputs: Vec<TargetParam>,
    /// What it returns.
    pub outputs: Vec<TargetParam>,
}

/// One parameter or return value.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TargetParam {
    pub name: String,
    /// Its Solidity type (tuples as `(uint256,address)`).
    #[serde(rename = "type")]
    pub ty: String,
}

fn params(ps: &[alloy_json_abi::Param]) -> Vec<TargetParam> {
    ps.iter()
        .map(|p| TargetParam {
            name: p.name.clone(),
            ty: p.selector_type().into_owned(),
        })
        .collect()
}

/// The block every sequence starts from, and how far a call may move it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BlockInfo {
    /// Block number after deployment.
    pub number: u64,
    /// Block timestamp after deployment (Unix seconds).
    pub timestamp: u64,
    /// The largest time delay a generated call adds (`maxTimeDelay`).
    pub max_time_delay: u64,
    /// The largest block delay a generated call adds (`maxBlockDelay`).
    pub max_block_delay: u64,
}

/// One test of the campaign.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TargetTest {
    pub name: String,
    pub kind: TestKind,
    pub status: TestStatus,
}

/// The whole description.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TargetInfo {
    pub contract: String,
    /// The target's address (lowercase hex).
    pub address: String,
    /// Sender of the deployment (lowercase hex).
    pub deployer: String,
    /// Senders of fuzzed calls (lowercase hex).
    pub senders: Vec<String>,
    pub contracts: Vec<DeployedContract>,
    pub functions: Vec<TargetFunction>,
    pub tests: Vec<TargetTest>,
    /// The block each sequence starts from.
    pub block: BlockInfo,
    /// Fork mode: the chain the campaign runs on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fork: Option<super::report::ForkSummary>,
}

fn mutability(f: &alloy_json_abi::Function) -> String {
    use alloy_json_abi::StateMutability as M;
    match f.state_mutability {
        M::Pure => "pure",
        M::View => "view",
        M::NonPayable => "nonpayable",
        M::Payable => "payable",
    }
    .into()
}

fn hex(a: &alloy_primitives::Address) -> String {
    format!("{a:#x}")
}

impl TargetInfo {
    /// The campaign's target as of now.
    pub fn of(s: &Engine) -> TargetInfo {
        let t = &s.target;
        let fuzzed = |to: Option<alloy_primitives::Address>, sig: &str| {
            s.callable
                .iter()
                .any(|c| c.to == to && c.function.signature() == sig)
        };
        let mut contracts = vec![DeployedContract {
            name: t.contract.name.clone(),
            address: hex(&t.address),
            role: "target".into(),
        }];
        let mut functions: Vec<TargetFunction> = t
            .functions
            .iter()
            .map(|f| {
                let signature = f.signature();
                TargetFunction {
                    contract: t.contract.name.clone(),
                    fuzzed: fuzzed(None, &signature),
                    selector: format!("{}", f.selector()),
                    mutability: mutability(f),
                    signature,
                    inputs: params(&f.inputs),
                    outputs: params(&f.outputs),
                }
            })
            .collect();
        for c in t.others.iter() {
            contracts.push(DeployedContract {
                name: c.name.clone(),
                address: hex(&c.address),
                role: "callable".into(),
            });
            for f in &c.functions {
                let signature = f.signature();
                functions.push(TargetFunction {
                    contract: c.name.clone(),
                    fuzzed: fuzzed(Some(c.address), &signature),
                    selector: format!("{}", f.selector()),
                    mutability: mutability(f),
                    signature,
                    inputs: params(&f.inputs),
                    outputs: params(&f.outputs),
                });
            }
        }
        for (name, address) in &t.predeployed {
            if !contracts.iter().any(|c| c.address == hex(address)) {
                contracts.push(DeployedContract {
                    name: name.clone(),
                    address: hex(address),
                    role: "deployed".into(),
                });
            }
        }
        for c in t.readable.iter() {
            if !contracts.iter().any(|k| k.address == hex(&c.address)) {
                contracts.push(DeployedContract {
                    name: c.name.clone(),
                    address: hex(&c.address),
                    role: "readable".into(),
                });
            }
        }
        let report = super::Report::build(s);
        let (number, timestamp) = t.initial_block();
        TargetInfo {
            block: BlockInfo {
                number,
                timestamp,
                max_time_delay: s.config.max_time_delay,
                max_block_delay: s.config.max_block_delay,
            },
            contract: t.contract.name.clone(),
            address: hex(&t.address),
            deployer: hex(&s.config.deployer),
            senders: s.config.senders.iter().map(hex).collect(),
            contracts,
            functions,
            fork: report.fork.clone(),
            tests: report
                .tests
                .into_iter()
                .map(|r| TargetTest {
                    name: r.name,
                    kind: r.kind,
                    status: r.status,
                })
                .collect(),
        }
    }
}
