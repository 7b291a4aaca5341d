//! The front end, construct by construct, on `contracts/GraphConstructs.sol`
//! (one of each construct the graph reads; compiled by `contracts/build.sh`).

use super::super::*;
use crate::artifacts::Project;

fn graph() -> CodeGraph {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let p = Project::load(&dir.join("contracts/out/GraphConstructs.json")).unwrap();
    let sources: Vec<_> = p.sources.iter().map(|s| (&p, s, true)).collect();
    CodeGraph::build(&sources)
}

fn function<'g>(g: &'g CodeGraph, qualified: &str) -> &'g FunctionNode {
    g.functions
        .iter()
        .find(|f| f.qualified() == qualified)
        .unwrap_or_else(|| panic!("no function {qualified}"))
}

/// The decisions of `qualified` of `kind`.
fn decisions<'g>(g: &'g CodeGraph, qualified: &str, kind: &str) -> Vec<&'g Decision> {
    function(g, qualified)
        .decisions
        .iter()
        .filter(|d| d.kind == kind)
        .collect()
}

fn strings(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn contract_kinds_and_bases() {
    let g = graph();
    let kind = |name: &str| {
        g.contracts
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.kind.as_str())
    };
    assert_eq!(kind("IFeed"), Some("interface"));
    assert_eq!(kind("MathLib"), Some("library"));
    assert_eq!(kind("Base"), Some("abstract"));
    assert_eq!(kind("GraphConstructs"), Some("contract"));
    let c = g
        .contracts
        .iter()
        .find(|c| c.name == "GraphConstructs")
        .unwrap();
    assert_eq!(c.bases, ["Base"]);
    assert_eq!(c.linearized, ["GraphConstructs", "Base"]);
}

#[test]
fn state_variables_constants_and_immutables() {
    let g = graph();
    let var = |name: &str| {
        g.state_vars
            .iter()
            .find(|v| v.contract == "GraphConstructs" && v.name == name)
            .unwrap_or_else(|| panic!("no state variable {name}"))
    };
    let limit = var("LIMIT");
    assert!(limit.constant);
    assert_eq!(limit.value.as_deref(), Some("100"));
    assert!(var("start").immutable);
    assert_eq!(var("balances").ty, "mapping(address => uint256)");
    assert!(!var("total").constant && !var("total").immutable);
    // An inherited variable belongs to the contract that declares it.
    assert!(g.state_vars.iter().any(|v| v.qualified() == "Base.owner"));
}

#[test]
fn functions_of_every_kind() {
    let g = graph();
    let kind = |q: &str| function(&g, q).kind;
    assert_eq!(kind("GraphConstructs.constructor"), "constructor");
    assert_eq!(kind("GraphConstructs.receive"), "receive");
    assert_eq!(kind("GraphConstructs.fallback"), "fallback");
    assert_eq!(kind("Base.onlyOwner"), "modifier");
    let deposit = function(&g, "GraphConstructs.deposit");
    assert_eq!(deposit.signature, "deposit()");
    assert_eq!(deposit.selector.as_deref(), Some("0xd0e30db0"));
    assert_eq!(deposit.mutability, "payable");
    assert!(deposit.is_entry_point());
    let credit = function(&g, "GraphConstructs._credit");
    assert_eq!(credit.visibility, "internal");
    assert!(!credit.is_entry_point());
    assert_eq!(
        credit.params,
        [
            Param {
                name: "who".into(),
                ty: "address".into()
            },
            Param {
                name: "amount".into(),
                ty: "uint256".into()
            },
        ]
    );
    // An enum parameter has its ABI type in the signature.
    assert_eq!(
        function(&g, "GraphConstructs.open").signature,
        "open(uint8)"
    );
    assert_eq!(
        function(&g, "GraphConstructs.open").modifiers,
        ["onlyOwner"]
    );
    // Declared without a body.
    assert!(!function(&g, "Base.hook").implemented);
    assert!(function(&g, "GraphConstructs.hook").implemented);
}

#[test]
fn writes_of_every_shape() {
    let g = graph();
    let writes = |q: &str| strings(&function(&g, q).writes).join(" ");
    // Compound assignment to a mapping entry (through an internal helper).
    assert!(writes("GraphConstructs._credit").contains("GraphConstructs.balances"));
    assert!(writes("GraphConstructs.withdraw").contains("GraphConstructs.balances"));
    // Increment, plain assignment, push, struct fields, delete.
    assert!(writes("GraphConstructs.deposit").contains("GraphConstructs.total"));
    assert!(writes("GraphConstructs.fallback").contains("GraphConstructs.total"));
    assert!(writes("GraphConstructs.record").contains("GraphConstructs.history"));
    assert!(writes("GraphConstructs.record").contains("GraphConstructs.positions"));
    assert!(writes("GraphConstructs.forget").contains("GraphConstructs.positions"));
    // An inherited variable, written in the constructor.
    assert!(writes("GraphConstructs.constructor").contains("Base.owner"));
    // Reading is not writing.
    assert!(!writes("GraphConstructs.late").contains("GraphConstructs.start"));
}

#[test]
fn reads_of_state_variables() {
    let g = graph();
    let reads = |q: &str| strings(&function(&g, q).reads).join(" ");
    assert!(reads("GraphConstructs.withdraw").contains("GraphConstructs.balances"));
    assert!(reads("GraphConstructs.late").contains("GraphConstructs.start"));
    assert!(reads("GraphConstructs.sum").contains("GraphConstructs.history"));
    assert!(reads("GraphConstructs.smallest").contains("GraphConstructs.total"));
    assert!(reads("Base.onlyOwner").contains("Base.owner"));
}

#[test]
fn calls_of_every_kind() {
    let g = graph();
    let has = |q: &str, callee: &str, kind: CallKind| {
        function(&g, q)
            .calls
            .iter()
            .any(|c| c.callee == callee && c.kind == kind)
    };
    assert!(has(
        "GraphConstructs.deposit",
        "GraphConstructs._credit",
        CallKind::Internal
    ));
    assert!(has(
        "GraphConstructs.smallest",
        "MathLib.min",
        CallKind::Library
    ));
    assert!(has(
        "GraphConstructs.quote",
        "IFeed.price",
        CallKind::External
    ));
    // A virtual function called from the contract that overrides it.
    assert!(has(
        "GraphConstructs.quote",
        "GraphConstructs.hook",
        CallKind::Internal
    ));
    assert!(has(
        "GraphConstructs.open",
        "Base.onlyOwner",
        CallKind::Modifier
    ));
    // `new Counter()` runs Counter's constructor (implicit here).
    assert!(has(
        "GraphConstructs.spawn",
        "Counter.constructor",
        CallKind::Create
    ));
    assert!(has(
        "GraphConstructs.spawn",
        "Counter.bump",
        CallKind::External
    ));
}

#[test]
fn require_depends_on_the_environment_and_a_literal() {
    let g = graph();
    let d = decisions(&g, "GraphConstructs.deposit", "require");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].condition, "msg.value > 0");
    assert_eq!(d[0].env, ["msg.value"]);
    assert!(
        d[0].constants
            .iter()
            .any(|c| c.name.is_none() && c.value == "0")
    );
    assert!(d[0].params.is_empty() && d[0].state.is_empty());
}

#[test]
fn if_follows_a_local_to_the_state_it_was_read_from() {
    let g = graph();
    let d = decisions(&g, "GraphConstructs.withdraw", "if");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].condition, "amount > have");
    assert_eq!(d[0].params, ["amount"]);
    assert_eq!(d[0].locals, ["have"]);
    assert!(
        strings(&d[0].state).contains(&"GraphConstructs.balances"),
        "{:?}",
        d[0]
    );
    assert!(d[0].env.iter().any(|e| e == "msg.sender"), "{:?}", d[0]);
}

#[test]
fn a_modifier_s_require_depends_on_the_sender_and_state() {
    let g = graph();
    let d = decisions(&g, "Base.onlyOwner", "require");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].condition, "msg.sender == owner");
    assert_eq!(d[0].env, ["msg.sender"]);
    assert_eq!(d[0].state, ["Base.owner"]);
}

#[test]
fn assert_with_an_enum_parameter_and_state() {
    let g = graph();
    let d = decisions(&g, "GraphConstructs.open", "assert");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].params, ["p"]);
    assert_eq!(d[0].state, ["GraphConstructs.phase"]);
}

#[test]
fn a_named_constant_carries_its_value() {
    let g = graph();
    let d = decisions(&g, "GraphConstructs.record", "if");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].condition, "v >= LIMIT");
    assert_eq!(d[0].params, ["v"]);
    assert!(
        d[0].constants
            .iter()
            .any(|c| c.name.as_deref() == Some("GraphConstructs.LIMIT")
                || c.name.as_deref() == Some("LIMIT")),
        "{:?}",
        d[0].constants
    );
    assert!(
        d[0].constants.iter().any(|c| c.value == "100"),
        "{:?}",
        d[0].constants
    );
}

#[test]
fn ternaries_and_time() {
    let g = graph();
    let d = decisions(&g, "GraphConstructs.late", "ternary");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].env, ["block.timestamp"]);
    assert_eq!(d[0].state, ["GraphConstructs.start"]);
    // A library's ternary depends on its parameters.
    let d = decisions(&g, "MathLib.min", "ternary");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].params, ["a", "b"]);
}

#[test]
fn loop_conditions_are_decisions() {
    let g = graph();
    let f = decisions(&g, "GraphConstructs.sum", "for");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].params, ["k"]);
    assert_eq!(f[0].locals, ["i"]);
    assert_eq!(f[0].state, ["GraphConstructs.history"]);
    let w = decisions(&g, "GraphConstructs.sum", "while");
    assert_eq!(w.len(), 1);
    assert!(w[0].constants.iter().any(|c| c.value == "1000"));
}

#[test]
fn assignments_are_kept_as_written() {
    let g = graph();
    let assigned = |q: &str| -> Vec<(String, String)> {
        function(&g, q)
            .assignments
            .iter()
            .map(|a| (a.var.clone(), a.text.clone()))
            .collect()
    };
    let pair = |v: &str, t: &str| (v.to_string(), t.to_string());
    assert_eq!(
        assigned("GraphConstructs._credit"),
        [pair("GraphConstructs.balances", "balances[who] += amount")]
    );
    assert_eq!(
        assigned("GraphConstructs.deposit"),
        [pair("GraphConstructs.total", "total++")]
    );
    assert_eq!(
        assigned("GraphConstructs.forget"),
        [pair(
            "GraphConstructs.positions",
            "delete positions[msg.sender]"
        )]
    );
    assert_eq!(
        assigned("GraphConstructs.record")[0],
        pair(
            "GraphConstructs.positions",
            "positions[msg.sender].amount = v"
        )
    );
    // A local is not state.
    assert!(assigned("GraphConstructs.sum").is_empty());
    // The named constants the value uses come with their values.
    let cap = &function(&g, "GraphConstructs.cap").assignments[0];
    assert_eq!(cap.text, "total = LIMIT * 2");
    assert_eq!(
        cap.constants,
        [Constant {
            name: Some("GraphConstructs.LIMIT".into()),
            value: "100".into()
        }]
    );
}

#[test]
fn call_sites_keep_their_arguments() {
    let g = graph();
    let sites = &function(&g, "GraphConstructs.deposit").call_sites;
    assert_eq!(
        sites,
        &[CallSite {
            callee: "GraphConstructs._credit".into(),
            args: vec!["msg.sender".into(), "msg.value".into()],
        }]
    );
    // External calls too; library calls are not sites of the project's state.
    let spawn = &function(&g, "GraphConstructs.spawn").call_sites;
    assert!(
        spawn
            .iter()
            .any(|c| c.callee == "Counter.bump" && c.args.is_empty())
    );
    assert!(
        function(&g, "GraphConstructs.smallest")
            .call_sites
            .is_empty()
    );
}

#[test]
fn a_local_carries_its_initial_value() {
    let g = graph();
    let d = decisions(&g, "GraphConstructs.withdraw", "if");
    assert_eq!(
        d[0].local_defs,
        [LocalDef {
            name: "have".into(),
            init: Some("balances[msg.sender]".into()),
        }]
    );
}

#[test]
fn another_contracts_variable_read_through_its_getter_is_state() {
    let g = graph();
    let d = decisions(&g, "GraphConstructs.busy", "ternary");
    assert_eq!(
        strings(&d[0].state),
        ["Counter.n", "GraphConstructs.counter"]
    );
    // Its writers are found through the external call that writes it.
    assert_eq!(
        g.writers_of("Counter.n"),
        ["Counter.bump()", "GraphConstructs.spawn()"]
    );
}

#[test]
fn writers_through_a_helper_with_the_arguments_they_pass() {
    let g = graph();
    assert!(
        g.writers_of("GraphConstructs.balances")
            .contains(&"GraphConstructs.deposit()".to_string())
    );
    let w = join::Reach::new(&g).writes_of(&["GraphConstructs.balances".to_string()]);
    let via_deposit = w
        .iter()
        .find(|w| w.entry_point == "GraphConstructs.deposit()")
        .expect("deposit writes balances through _credit");
    assert_eq!(via_deposit.function, "GraphConstructs._credit");
    assert_eq!(via_deposit.assignment, "balances[who] += amount");
    assert_eq!(
        via_deposit.bindings,
        ["who = msg.sender", "amount = msg.value"]
    );
    let direct = w
        .iter()
        .find(|w| w.entry_point == "GraphConstructs.withdraw(uint256)")
        .expect("withdraw writes balances itself");
    assert_eq!(direct.assignment, "balances[msg.sender] -= amount");
    assert!(direct.bindings.is_empty());
}
