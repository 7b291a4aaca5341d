//! One test per cheatcode (contracts/matrix/Cheats.sol): each `check_*`
//! function calls a cheatcode and asserts its effect; here each must succeed.

use alloy_primitives::{Bytes, U256};
use rudder::artifacts::Project;
use rudder::executor::{DEFAULT_SENDERS, EvmSettings, Executor, Outcome, RevertReason, Target};
use std::path::Path;
use std::sync::Arc;

fn executor(allow_ffi: bool) -> Executor {
    let project = Arc::new(Project::load(Path::new("contracts/matrix/out/Cheats.json")).unwrap());
    let contract = project.contract(Some("Cheats")).unwrap().clone();
    let settings = EvmSettings {
        allow_ffi,
        ..EvmSettings::default()
    };
    let t = Arc::new(Target::deploy(project, &contract, settings, 1).unwrap());
    assert!(t.uses_cheatcodes);
    t.executor(0)
}

fn call(ex: &mut Executor, name: &str) -> Outcome {
    ex.reset();
    call_next(ex, name)
}

/// Calls `name` as the next transaction of the sequence (no reset: what
/// earlier calls left stays).
fn call_next(ex: &mut Executor, name: &str) -> Outcome {
    let f = ex
        .target()
        .functions
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no function {name}"))
        .clone();
    let r = ex.call_raw(
        DEFAULT_SENDERS[0],
        Bytes::copy_from_slice(&f.selector()[..]),
        U256::ZERO,
        true,
    );
    r.outcome
}

fn passes(name: &str) {
    let mut ex = executor(false);
    let o = call(&mut ex, name);
    assert!(o.is_success(), "{name}: {o}");
}

macro_rules! cheat_tests {
    ($($test:ident => $f:literal),* $(,)?) => {
        $( #[test] fn $test() { passes($f); } )*
    };
}

cheat_tests! {
    warp_and_roll_in_the_constructor_last => "check_constructor_block",
    warp => "check_warp",
    roll => "check_roll",
    fee => "check_fee",
    chain_id => "check_chainId",
    coinbase => "check_coinbase",
    prevrandao => "check_prevrandao",
    difficulty => "check_difficulty",
    prank => "check_prank",
    prank_with_origin => "check_prank_origin",
    start_prank_and_stop_prank => "check_startPrank_stopPrank",
    deal => "check_deal",
    store_and_load => "check_store_load",
    etch => "check_etch",
    addr_and_sign => "check_addr_sign",
    label => "check_label",
    get_nonce_and_set_nonce => "check_nonces",
    assume_true => "check_assume_true",
    to_string => "check_toString",
    expect_revert_any_message_and_custom_error => "check_expectRevert",
    mock_call_longest_prefix_clear_and_codeless => "check_mockCall",
    mock_call_revert => "check_mockCallRevert",
    record_logs_and_take_them => "check_recordLogs",
    record_and_accesses => "check_record_accesses",
    env_or_and_env_exists => "check_env",
    block_timestamp_and_number_getters => "check_block_getters",
    assert_approx_eq_rel_within => "check_assertApproxEqRel",
    prank_applies_to_the_next_create => "check_prank_create",
    a_cheatcode_call_costs_nothing => "check_a_cheatcode_call_costs_nothing",
    expect_revert_applies_to_a_create => "check_expectRevert_create",
    a_console_log_takes_no_prank => "check_console_takes_no_prank",
    expect_emit_in_order_with_checks_and_emitter => "check_expectEmit",
    expect_call_at_least_once_and_counted => "check_expectCall",
    get_code_and_get_deployed_code_by_name_and_file => "check_getCode_getDeployedCode",
    get_label => "check_getLabel",
    start_broadcast_sends_as_sender_and_origin => "check_broadcast",
    pause_and_resume_gas_metering => "check_gas_metering",
    mock_calls_answer_in_turn_and_keep_the_last => "check_mockCalls",
    expect_partial_revert_matches_the_selector => "check_expectPartialRevert",
    assume_no_revert_lets_a_call_that_succeeds_through => "check_assumeNoRevert_passes",
    parse_uint_int_address_bool => "check_parse",
}

#[test]
fn a_prank_left_running_ends_with_its_transaction() {
    let mut ex = executor(false);
    assert!(call(&mut ex, "leave_a_prank").is_success());
    // The next transaction of the same sequence (no reset between them).
    let o = call_next(&mut ex, "check_no_prank_left");
    assert!(o.is_success(), "{o}");
}

fn revert_message(o: &Outcome) -> String {
    match o {
        Outcome::Revert {
            reason: RevertReason::Error(m),
        } => m.clone(),
        other => panic!("expected a revert with a message, got {other}"),
    }
}

/// Each `reject_*` reverts with forge's own message.
#[test]
fn expectations_and_assertions_that_fail_revert_with_forges_message() {
    let mut ex = executor(false);
    for (f, message) in [
        (
            "reject_expectRevert_without_revert",
            "next call did not revert as expected".to_string(),
        ),
        (
            "reject_expectRevert_other_error",
            "Error != expected error: nope != other".to_string(),
        ),
        (
            "reject_expectRevert_without_a_call",
            "call didn't revert at a lower depth than cheatcode call depth".to_string(),
        ),
        (
            "reject_envUint_unset",
            "vm.envUint: environment variable \"RUDDER_CHEATS_UNSET_VARIABLE\" not found"
                .to_string(),
        ),
        (
            "reject_assumeNoRevert",
            "vm.assume rejected the input".to_string(),
        ),
        (
            "reject_parseUint",
            "vm.parseUint: failed parsing \"forty-two\" as type `uint256`".to_string(),
        ),
        (
            "reject_expectEmit_other_data",
            "log != expected log".to_string(),
        ),
        (
            "reject_expectEmit_without_a_call",
            "expected an emit, but no logs were emitted afterwards. you might have mismatched events or not enough events were emitted".to_string(),
        ),
        (
            "reject_getCode_unknown",
            "vm.getCode: no matching artifact found for \"Nowhere.sol:Nothing\" among the project's contracts".to_string(),
        ),
        (
            "reject_assertApproxEqRel",
            "assertion failed: 102 !~= 100 (max delta: 1.0000000000000000%, real delta: 2.0000000000000000%)".to_string(),
        ),
    ] {
        assert_eq!(revert_message(&call(&mut ex, f)), message, "{f}");
    }
}

#[test]
fn an_expected_call_not_made_reverts_the_transaction_naming_it() {
    let mut ex = executor(false);
    let m = revert_message(&call(&mut ex, "reject_expectCall_not_made"));
    assert!(m.starts_with("expected call to 0x"), "{m}");
    assert!(
        m.ends_with(
            "with data 0x3f81a2c00000000000000000000000000000000000000000000000000000000000000009 to be called 1 time, but was called 0 times"
        ),
        "{m}"
    );
}

#[test]
fn assume_false_rejects_the_call() {
    let mut ex = executor(false);
    let o = call(&mut ex, "reject_assume_false");
    assert!(revert_message(&o).contains("assume"), "{o}");
}

#[test]
fn an_unknown_cheatcode_reverts_naming_its_selector() {
    let mut ex = executor(false);
    let o = call(&mut ex, "reject_unknown");
    let sel = alloy_primitives::hex::encode(&alloy_primitives::keccak256("notACheatcode()")[..4]);
    let m = revert_message(&o);
    assert!(m.contains(&format!("0x{sel}")), "{m}");
}

#[test]
fn ffi_is_off_unless_allowed() {
    let mut ex = executor(false);
    let m = revert_message(&call(&mut ex, "reject_ffi"));
    assert!(m.contains("allowFFI"), "{m}");
    let mut ex = executor(true);
    let o = call(&mut ex, "reject_ffi");
    assert!(o.is_success(), "with allowFFI: {o}");
}

#[test]
fn warp_inside_a_fuzzed_call_breaks_a_property_on_three_seeds() {
    use rudder::campaign::Campaign;
    use rudder::config::Config;
    for seed in 1..=3 {
        let dir = tempfile::tempdir().unwrap();
        let config = Config {
            workers: Some(1),
            seed: Some(seed),
            test_limit: 50_000,
            ..Config::default()
        };
        let mut c = Campaign::new(
            Path::new("contracts/matrix/out/Cheats.json"),
            Some("Cheats"),
            config,
            Some(dir.path().into()),
        )
        .unwrap();
        c.start().unwrap();
        let r = c.wait();
        let t = r
            .tests
            .iter()
            .find(|t| t.name == "echidna_not_far_future")
            .unwrap();
        assert_eq!(t.status, "falsified", "seed {seed}:\n{}", r.text());
    }
}

/// After `vm.fee` raises the base fee, later calls of the same sequence
/// (priced 0 unless `maxGasprice` says otherwise) still run: a price below
/// the base fee is no reason to refuse a fuzzed call, as in hevm.
#[test]
fn calls_after_fee_still_run() {
    let mut ex = executor(false);
    assert!(call(&mut ex, "check_fee").is_success());
    // No reset: the raised base fee stays.
    let o = call_next(&mut ex, "check_warp");
    assert!(o.is_success(), "{o}");
}
