use super::*;
use crate::tx::Delay;
use alloy_dyn_abi::DynSolValue;
use std::path::Path;

pub(crate) fn target(name: &str) -> Arc<Target> {
    let project =
        Arc::new(Project::load(Path::new(&format!("contracts/out/{name}.json"))).unwrap());
    let contract = project.contract(None).unwrap().clone();
    Arc::new(Target::deploy(project, &contract, EvmSettings::default(), 1).unwrap())
}

pub(crate) fn tx(
    t: &Target,
    sig: &str,
    args: Vec<DynSolValue>,
    sender: Address,
    delay: Delay,
) -> Tx {
    Tx {
        function: t
            .functions
            .iter()
            .find(|f| f.signature() == sig)
            .unwrap()
            .clone(),
        args,
        sender,
        value: U256::ZERO,
        delay,
        gas_price: 0,
        to: None,
    }
}

pub(crate) fn prop(ex: &mut Executor, name: &str) -> bool {
    let f = ex
        .target()
        .functions
        .iter()
        .find(|f| f.name == name)
        .unwrap()
        .clone();
    match ex.call_view(&f, DEFAULT_SENDERS[0]).outcome {
        Outcome::Success { output } => output.last() == Some(&1),
        _ => false,
    }
}

#[test]
fn comparisons_behind_half_covered_branches_are_logged_once_per_pair() {
    use alloy_primitives::I256;
    let t = target("Ladder");
    let mut ex = t.executor(0);
    ex.set_comparisons(true);
    let sig = "climbA(uint8,uint16,int32,bool,uint64)";
    let args = |a: u64| {
        vec![
            DynSolValue::Uint(U256::from(a), 8),
            DynSolValue::Uint(U256::from(7), 16),
            DynSolValue::Int(I256::try_from(-5).unwrap(), 32),
            DynSolValue::Bool(true),
            DynSolValue::Uint(U256::from(9), 64),
        ]
    };
    let s = DEFAULT_SENDERS[0];
    // First rung fails: `a > 100` with a = 5 is logged.
    ex.call(&tx(&t, sig, args(5), s, Delay::NONE));
    let first: Vec<_> = ex.comparisons().to_vec();
    assert!(
        first
            .iter()
            .any(|c| c.kind == CmpKind::Order && (c.a, c.b) == (U256::from(5), U256::from(100))),
        "{first:?}"
    );
    // First rung passes: now `b == 31337` (solc: SUB then JUMPI) is the
    // frontier, and the first rung, seen both ways, is not logged.
    ex.call(&tx(&t, sig, args(110), s, Delay::NONE));
    let second = ex.comparisons().to_vec();
    assert!(
        second
            .iter()
            .any(|c| c.kind == CmpKind::Eq && (c.a, c.b) == (U256::from(7), U256::from(31337))),
        "{second:?}"
    );
    assert!(!second.iter().any(|c| c.b == U256::from(100)), "{second:?}");
    // The same operands again teach nothing: not logged twice.
    ex.call(&tx(&t, sig, args(110), s, Delay::NONE));
    assert!(
        !ex.comparisons().iter().any(|c| c.b == U256::from(31337)),
        "{:?}",
        ex.comparisons()
    );
    // Off: nothing.
    ex.set_comparisons(false);
    ex.call(&tx(&t, sig, args(111), s, Delay::NONE));
    assert!(ex.comparisons().is_empty());
}

#[test]
fn set_seven_then_go_breaks_the_property_and_reset_restores_it() {
    let t = target("SetSeven");
    let mut ex = t.executor(0);
    let s = DEFAULT_SENDERS[0];
    assert!(prop(&mut ex, "echidna_not_gone"));
    let r = ex.call(&tx(
        &t,
        "set(uint256)",
        vec![DynSolValue::Uint(U256::from(7), 256)],
        s,
        Delay::NONE,
    ));
    assert!(r.outcome.is_success());
    assert!(r.gas_used > 21_000);
    ex.call(&tx(&t, "go()", vec![], s, Delay::NONE));
    assert!(!prop(&mut ex, "echidna_not_gone"));
    ex.reset();
    assert!(prop(&mut ex, "echidna_not_gone"));
    assert!(ex.commit_coverage() > 0);
}

#[test]
fn restoring_a_snapshot_brings_back_storage_and_block_between_calls() {
    let t = target("SetSeven");
    let mut ex = t.executor(0);
    let s = DEFAULT_SENDERS[0];
    let set = |v: u64, delay| {
        tx(
            &t,
            "set(uint256)",
            vec![DynSolValue::Uint(U256::from(v), 256)],
            s,
            delay,
        )
    };
    ex.call(&set(7, Delay::NONE));
    let later = Delay {
        blocks: 3,
        seconds: 60,
    };
    ex.call(&set(7, later));
    let snap = ex.snapshot();
    let block = ex.block();
    // Overwritten, and time moves on: `go` after it breaks nothing.
    ex.call(&set(8, later));
    ex.call(&tx(&t, "go()", vec![], s, Delay::NONE));
    assert!(prop(&mut ex, "echidna_not_gone"));
    assert_ne!(ex.block(), block);
    // Back to `x == 7`: `go` breaks the property, at the snapshot's block.
    ex.restore(&snap);
    assert_eq!(ex.block(), block);
    ex.call(&tx(&t, "go()", vec![], s, Delay::NONE));
    assert!(!prop(&mut ex, "echidna_not_gone"));
    // The snapshot is reusable, and reset still leaves it behind.
    ex.restore(&snap);
    ex.call(&set(8, Delay::NONE));
    ex.call(&tx(&t, "go()", vec![], s, Delay::NONE));
    assert!(prop(&mut ex, "echidna_not_gone"));
    ex.reset();
    ex.call(&tx(&t, "go()", vec![], s, Delay::NONE));
    assert!(prop(&mut ex, "echidna_not_gone"));
}

#[test]
fn a_guard_slot_written_a_compared_value_is_a_new_state() {
    let t = target("SetSeven");
    let mut ex = t.executor(0);
    let s = DEFAULT_SENDERS[0];
    let set = |v: U256| {
        tx(
            &t,
            "set(uint256)",
            vec![DynSolValue::Uint(v, 256)],
            s,
            Delay::NONE,
        )
    };
    // Off by default: nothing is counted.
    ex.call(&set(U256::from(7)));
    assert_eq!(ex.new_states(), 0);
    ex.set_state_feedback(true);
    // `x` guards nothing yet: writing it reaches no state.
    ex.call(&set(U256::from(4)));
    assert_eq!(ex.new_states(), 0);
    // `go` reads `x` (4) and compares it with 7 for a branch seen one
    // way only: from now on `x` is a guard slot.
    ex.call(&tx(&t, "go()", vec![], s, Delay::NONE));
    assert_eq!(ex.new_states(), 0, "go writes nothing");
    // States of `x`: 7 (the value `go` compared it with), or another.
    ex.call(&set(U256::from(5)));
    assert_eq!(ex.new_states(), 1, "another value than 7, first written");
    ex.call(&set(U256::from(6)));
    assert_eq!(ex.new_states(), 0, "another again");
    ex.call(&set(U256::from(7)));
    assert_eq!(ex.new_states(), 1, "7");
    // Seen across sequences: reset forgets the state, not what was seen.
    ex.reset();
    ex.call(&set(U256::from(7)));
    assert_eq!(ex.new_states(), 0);
    ex.call(&set(U256::from(1u64 << 40)));
    assert_eq!(ex.new_states(), 0);
    // A call that writes nothing reaches nothing.
    ex.call(&tx(&t, "go()", vec![], s, Delay::NONE));
    assert_eq!(ex.new_states(), 0);
}

#[test]
fn a_call_is_inert_when_it_reverted_or_wrote_nothing_seen_whole() {
    let t = target("SetSeven");
    let mut ex = t.executor(0);
    let s = DEFAULT_SENDERS[0];
    let call = |ex: &mut Executor, sig: &str, args: Vec<DynSolValue>| {
        ex.call(&tx(&t, sig, args, s, Delay::NONE));
        ex.last_call_inert()
    };
    let seven = || vec![DynSolValue::Uint(U256::from(7), 256)];
    // Writes are watched only with state feedback on: until then no
    // successful call is known to be inert.
    assert!(!call(&mut ex, "go()", vec![]));
    ex.set_state_feedback(true);
    assert!(
        call(&mut ex, "go()", vec![]),
        "x is not 7: go writes nothing"
    );
    assert!(call(&mut ex, "x()", vec![]), "a getter");
    assert!(!call(&mut ex, "set(uint256)", seven()));
    assert!(!call(&mut ex, "go()", vec![]), "x is 7: go writes gone");
    // A value sent moves a balance: not inert, even to a function that
    // writes nothing (SetSeven has none payable: the call reverts, and a
    // reverted call is inert whatever it sent).
    let mut paid = tx(&t, "x()", vec![], s, Delay::NONE);
    paid.value = U256::from(1);
    ex.call(&paid);
    assert!(ex.last_call_inert(), "reverted: not payable");
    // A gas price moves the sender's balance, reverted or not.
    let mut priced = tx(&t, "x()", vec![], s, Delay::NONE);
    priced.gas_price = 1;
    ex.call(&priced);
    assert!(!ex.last_call_inert());
    // Recording off (a replayed prefix): writes are not watched.
    ex.set_recording(false);
    assert!(!call(&mut ex, "x()", vec![]));
    ex.set_recording(true);
    assert!(call(&mut ex, "x()", vec![]));
}

#[test]
fn states_seen_are_bounded_per_slot_and_per_code() {
    let mut seen = StatesSeen::default();
    let code = CodeId(0);
    let slot = U256::from(3);
    for v in 0..STATES_PER_SLOT as u64 {
        assert!(seen.reached(code, slot, v));
        assert!(!seen.reached(code, slot, v));
    }
    assert!(!seen.reached(code, slot, 1000));
    // Slots: the first SLOTS_PER_CODE of a code object.
    let other = CodeId(1);
    for k in 0..SLOTS_PER_CODE as u64 {
        assert!(seen.reached(other, U256::from(100 + k), 0));
    }
    assert!(!seen.reached(other, U256::from(99), 0));
    // States: STATES_PER_CODE of a code object in all.
    for v in 1..=(STATES_PER_CODE - SLOTS_PER_CODE) as u64 {
        assert!(seen.reached(other, U256::from(100 + v % 4), v));
    }
    assert!(!seen.reached(other, U256::from(100), 1 << 40));
    // Another code object has its own.
    assert!(seen.reached(CodeId(2), U256::from(99), 0));
}

#[test]
fn decodes_error_strings_and_time_delays() {
    let t = target("TimeLock");
    let mut ex = t.executor(0);
    let s = DEFAULT_SENDERS[1];
    let r = ex.call(&tx(&t, "release()", vec![], s, Delay::NONE));
    assert_eq!(
        r.outcome,
        Outcome::Revert {
            reason: RevertReason::Error("not locked".into())
        }
    );
    ex.call(&tx(&t, "lock()", vec![], s, Delay::NONE));
    let early = ex.call(&tx(
        &t,
        "release()",
        vec![],
        s,
        Delay {
            seconds: 3600,
            blocks: 1,
        },
    ));
    assert_eq!(early.outcome.to_string(), "reverted: \"too early\"");
    let late = ex.call(&tx(
        &t,
        "release()",
        vec![],
        s,
        Delay {
            seconds: 86_400,
            blocks: 1,
        },
    ));
    assert!(late.outcome.is_success(), "{}", late.outcome);
    assert!(!prop(&mut ex, "echidna_never_released"));
}

#[test]
fn decodes_assertion_panics() {
    let t = target("Assertion");
    let mut ex = t.executor(0);
    let s = DEFAULT_SENDERS[0];
    let u = |v: u64| DynSolValue::Uint(U256::from(v), 128);
    ex.call(&tx(&t, "deposit(uint128)", vec![u(5)], s, Delay::NONE));
    let ok = ex.call(&tx(&t, "withdraw(uint128)", vec![u(5)], s, Delay::NONE));
    assert!(ok.outcome.is_success());
    let bad = ex.call(&tx(&t, "withdraw(uint128)", vec![u(1)], s, Delay::NONE));
    assert!(bad.outcome.is_assertion_failure(), "{}", bad.outcome);
    assert_eq!(bad.outcome.to_string(), "panic 0x01 (assertion failed)");
}

#[test]
fn sender_matters() {
    let t = target("OnlySender");
    let mut ex = t.executor(0);
    ex.call(&tx(&t, "claim()", vec![], DEFAULT_SENDERS[0], Delay::NONE));
    assert!(prop(&mut ex, "echidna_unclaimed"));
    ex.call(&tx(&t, "claim()", vec![], DEFAULT_SENDERS[1], Delay::NONE));
    assert!(!prop(&mut ex, "echidna_unclaimed"));
}

#[test]
fn every_bundled_contract_deploys_and_answers_its_properties() {
    for name in [
        "AbiKitchen",
        "Assertion",
        "MagicHash",
        "OnlySender",
        "Optimize",
        "Sequence",
        "SetSeven",
        "TimeLock",
        "Token",
    ] {
        let t = target(name);
        let mut ex = t.executor(0);
        for f in t
            .functions
            .iter()
            .filter(|f| f.name.starts_with("echidna_"))
        {
            let r = ex.call_view(f, DEFAULT_SENDERS[0]);
            assert!(r.outcome.is_success(), "{name}.{}: {}", f.name, r.outcome);
        }
    }
}

#[test]
fn coverage_maps_calls_to_source_lines() {
    let t = target("SetSeven");
    let mut ex = t.executor(0);
    let s = DEFAULT_SENDERS[0];
    ex.call(&tx(
        &t,
        "set(uint256)",
        vec![DynSolValue::Uint(U256::from(3), 256)],
        s,
        Delay::NONE,
    ));
    ex.call(&tx(&t, "go()", vec![], s, Delay::NONE));
    ex.commit_coverage();
    let report = t.coverage_report();
    let f = &report.files[0];
    assert_eq!(f.path, "contracts/SetSeven.sol");
    // line 11: `x = v;` ran; line 16: `gone = true;` did not (x != 7).
    assert!(f.lines[&11] > 0, "{:?}", f.lines);
    assert_eq!(f.lines.get(&16), Some(&0), "{:?}", f.lines);
    // The `if (x == 7)` branch ran one way only.
    let (outcomes, hit) = f.branch_outcomes();
    assert_eq!((outcomes, hit), (2, 1), "{:?}", f.branches);
    // The constructor-less contract still has its creation code covered.
    assert!(t.coverage.points() > 0);
}

/// Words of `tx`'s calldata after the selector.
fn head(tx: &Tx) -> Vec<U256> {
    tx.calldata()[4..]
        .chunks(32)
        .map(|c| U256::from_be_slice(c))
        .collect()
}

#[test]
fn a_traced_call_keeps_each_branch_on_its_arguments_with_the_way_it_went() {
    use alloy_primitives::I256;
    let s = DEFAULT_SENDERS[0];
    let cases = [
        (
            "Ladder",
            "climbA(uint8,uint16,int32,bool,uint64)",
            vec![
                DynSolValue::Uint(U256::from(110), 8),
                DynSolValue::Uint(U256::from(31337), 16),
                DynSolValue::Int(I256::try_from(-50000).unwrap(), 32),
                DynSolValue::Bool(true),
                DynSolValue::Uint(U256::from(5), 64),
            ],
            5,
        ),
        (
            "Knot",
            "knotB(int32,int64,bool)",
            vec![
                DynSolValue::Int(I256::try_from(-9).unwrap(), 32),
                DynSolValue::Int(I256::try_from(-8900).unwrap(), 64),
                DynSolValue::Bool(false),
            ],
            4,
        ),
    ];
    for (name, sig, args, guards) in cases {
        let t = target(name);
        let mut ex = t.executor(0);
        let call = tx(&t, sig, args, s, Delay::default());
        let (_, trace) = ex.call_traced(&call);
        let deps = trace.dependencies();
        // The argument guards (and the ABI decoder's range checks) are
        // kept, each term computing what the EVM computed.
        let on_args: Vec<_> = trace
            .branches
            .iter()
            .filter(|b| deps[b.cond as usize] != 0)
            .collect();
        assert!(on_args.len() >= guards, "{name}: {:?}", trace.branches);
        let mut vals = Vec::new();
        let last = trace.terms.len() as u32 - 1;
        trace.eval(&head(&call), last, &mut vals);
        for b in &trace.branches {
            assert_eq!(!vals[b.cond as usize].is_zero(), b.taken, "{name}: {b:?}");
        }
        // A changed word leaves the terms before its first reader as they
        // were: evaluating on from there gives what evaluating anew gives.
        let first = trace.first_reads();
        let mut words = head(&call);
        for k in 0..words.len() {
            words[k] ^= U256::from(0x5a5a_u64) << (8 * k);
            let mut more = vals.clone();
            more.truncate(first[k] as usize);
            let n = trace.eval_more(&words, last, &mut more);
            trace.eval(&words, last, &mut vals);
            assert_eq!(more, vals, "{name}: word {k}");
            assert_eq!(n as usize, vals.len() - (first[k] as usize).min(vals.len()));
        }
        // An untraced call keeps nothing.
        ex.reset();
        ex.call(&call);
        assert!(ex.call_traced(&call).1.branches.len() == on_args.len());
    }
}
