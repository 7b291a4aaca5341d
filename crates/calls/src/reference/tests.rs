use super::*;
use crate::parser::{CallDefaults, format_template, parse_templates, parse_txs};
use alloy_dyn_abi::DynSolValue;
use alloy_json_abi::Function;
use alloy_primitives::{Address, B256, Bytes, LogData, address};

const ME: Address = address!("0000000000000000000000000000000000010000");

fn abi() -> Vec<Arc<Function>> {
    [
        "function open(uint256 kind) returns (uint256 id)",
        "function deposit(uint256 id, uint256 amount) returns (uint256 shares)",
        "function redeem(uint256 shares)",
        "function small(uint8 x)",
        "function pair() returns (uint256 a, address b)",
        "function who(address a)",
        "function noop()",
        "function many(uint256[] xs, (uint256,bool) t)",
    ]
    .iter()
    .map(|s| Arc::new(Function::parse(s).unwrap()))
    .collect()
}

/// A call and its references as written: (path, call, field).
type Written = (Tx, Vec<(Vec<usize>, usize, Option<String>)>);

fn events() -> Vec<Arc<Event>> {
    vec![Arc::new(
        Event::parse("event Deposited(address indexed who, uint256 shares)").unwrap(),
    )]
}

fn defaults() -> CallDefaults {
    CallDefaults {
        sender: ME,
        value: U256::ZERO,
        others: Default::default(),
    }
}

fn parse(src: &str) -> Result<Vec<(Tx, Holes)>, String> {
    parse_templates(src, &abi(), &defaults(), &events()).map_err(|e| e.to_string())
}

#[test]
fn references_bind_to_outputs_and_event_arguments_and_print_back() {
    let f = abi();
    let abis = crate::tx::Abis::target_only(&f);
    for (src, want) in [
        (
            "open(1); deposit($1, 100); redeem($2.shares)",
            vec![
                vec![],
                vec![(vec![0], 0, Source::Output(0))],
                vec![(vec![0], 1, Source::Output(0))],
            ],
        ),
        (
            "pair(); who($1.1); who($1.b); deposit($1.a, 2)",
            vec![
                vec![],
                vec![(vec![0], 0, Source::Output(1))],
                vec![(vec![0], 0, Source::Output(1))],
                vec![(vec![0], 0, Source::Output(0))],
            ],
        ),
        (
            "noop(); redeem($1.shares)",
            vec![
                vec![],
                vec![(vec![0], 0, Source::Event(vec![(events()[0].clone(), 1)]))],
            ],
        ),
        (
            "open(?); many([1, $1, ?], ($1, true))",
            vec![
                vec![],
                vec![
                    (vec![0, 1], 0, Source::Output(0)),
                    (vec![1, 0], 0, Source::Output(0)),
                ],
            ],
        ),
    ] {
        let calls = parse(src).unwrap_or_else(|e| panic!("{src}: {e}"));
        let got: Vec<Vec<(Vec<usize>, usize, Source)>> = calls
            .iter()
            .map(|(_, h)| {
                h.refs
                    .iter()
                    .map(|r| (r.path.clone(), r.call, r.source.clone().expect("bound")))
                    .collect()
            })
            .collect();
        assert_eq!(got, want, "{src}");
        let printed: Vec<String> = calls
            .iter()
            .map(|(t, h)| format_template(t, h, abis, Some(ME)))
            .collect();
        let again = parse(&printed.join("; ")).unwrap_or_else(|e| panic!("{printed:?}: {e}"));
        let strip = |c: &[(Tx, Holes)]| -> Vec<Written> {
            c.iter()
                .map(|(t, h)| {
                    (
                        t.clone(),
                        h.refs
                            .iter()
                            .map(|r| (r.path.clone(), r.call, r.field.clone()))
                            .collect(),
                    )
                })
                .collect()
        };
        assert_eq!(strip(&again), strip(&calls), "{src} -> {printed:?}");
    }
}

#[test]
fn a_reference_that_does_not_fit_is_refused_with_the_reason() {
    for (src, says) in [
        ("deposit($3, 1); open(1)", "names no earlier call"),
        ("open(1); deposit($2, 1)", "names no earlier call"),
        (
            "open(1); deposit($1.nope, 1)",
            "no output or event argument named `nope`",
        ),
        ("open(1); deposit($1.1, 1)", "outputs are numbered from 0"),
        ("noop(); deposit($1, 1)", "returns nothing"),
        (
            "pair(); deposit($1, 1)",
            "returns 2 values; name one: 0, 1, a, b",
        ),
        (
            "open(1); who($1)",
            "is a uint256 where an address is expected",
        ),
        (
            "open(1); who{value: $1}(0x01)",
            "value: a `$n` reference is taken in arguments only",
        ),
        ("open(1); deposit($0, 1)", "a call number from $1"),
        ("open(1); deposit($1., 1)", "a field name after `.`"),
        // At the end of the text, the error still points into it.
        ("open(1); $1.", "a field name after `.`"),
    ] {
        let e = parse(src).expect_err(src);
        assert!(e.contains(says), "{src}: {e}");
    }
    let e = parse_templates("$55.", &abi(), &defaults(), &events()).unwrap_err();
    assert_eq!(e.span(), 3..4, "{e}");
    // Calls that run as given (reproducers, corpus files) take no references.
    let e = parse_txs("open(1); deposit($1, 1)", &abi(), &defaults()).unwrap_err();
    assert!(
        e.to_string()
            .contains("inject_transaction and run_sequence only"),
        "{e}"
    );
}

fn success(tx: &Tx, outputs: &[DynSolValue], logs: Vec<Log>) -> Option<Produced> {
    let data = DynSolValue::Tuple(outputs.to_vec()).abi_encode_params();
    Some(Produced::of(tx, &data, &logs))
}

#[test]
fn apply_fills_references_from_what_the_earlier_calls_produced() {
    let calls = parse("open(1); deposit($1, 100); small($2.shares); redeem($1.shares)").unwrap();
    let open = &calls[0].0;
    let mut produced = vec![success(
        open,
        &[DynSolValue::Uint(U256::from(7), 256)],
        vec![],
    )];
    let (mut deposit, h) = calls[1].clone();
    apply(&mut deposit, &h, &produced).unwrap();
    assert_eq!(deposit.args[0], DynSolValue::Uint(U256::from(7), 256));
    // The event's argument, from the log the call emitted.
    let deposited = &events()[0];
    let log = Log {
        address: Address::ZERO,
        data: LogData::new_unchecked(
            vec![deposited.selector(), B256::left_padding_from(ME.as_slice())],
            Bytes::from(DynSolValue::Uint(U256::from(300), 256).abi_encode()),
        ),
    };
    produced.push(success(
        &deposit,
        &[DynSolValue::Uint(U256::from(300), 256)],
        vec![log],
    ));
    // 300 does not fit a uint8: the call is not run.
    let (mut small, h) = calls[2].clone();
    let e = apply(&mut small, &h, &produced).unwrap_err();
    assert!(e.contains("does not fit a uint8"), "{e}");
    produced.push(None);
    // `open` emitted nothing: no `shares` to read.
    let (mut redeem, h) = calls[3].clone();
    let e = apply(&mut redeem, &h, &produced).unwrap_err();
    assert!(e.contains("emitted no event with that argument"), "{e}");
    // A failed call produced nothing.
    let calls = parse("open(1); deposit(1, 1); redeem($2.shares)").unwrap();
    let (mut redeem, h) = calls[2].clone();
    let e = apply(&mut redeem, &h, &[produced[0].clone(), None]).unwrap_err();
    assert!(e.contains("call 2 failed"), "{e}");
    // From the log when the output is not named so.
    let calls = parse("noop(); redeem($1.shares)").unwrap();
    let (mut redeem, h) = calls[1].clone();
    let log = produced[1].as_ref().unwrap().logs[0].clone();
    apply(&mut redeem, &h, &[success(&calls[0].0, &[], vec![log])]).unwrap();
    assert_eq!(redeem.args[0], DynSolValue::Uint(U256::from(300), 256));
}

#[test]
fn integers_convert_when_they_fit() {
    let int8 = DynSolType::Int(8);
    let min = DynSolValue::Int(I256::try_from(-128).unwrap(), 256);
    assert_eq!(
        convert(min, &int8),
        Some(DynSolValue::Int(I256::try_from(-128).unwrap(), 8))
    );
    assert_eq!(
        convert(DynSolValue::Int(I256::try_from(-129).unwrap(), 256), &int8),
        None
    );
    assert_eq!(
        convert(DynSolValue::Uint(U256::from(128), 256), &int8),
        None
    );
    assert_eq!(
        convert(DynSolValue::Uint(U256::from(127), 256), &int8),
        Some(DynSolValue::Int(I256::try_from(127).unwrap(), 8))
    );
    assert_eq!(
        convert(
            DynSolValue::Int(I256::try_from(-1).unwrap(), 256),
            &DynSolType::Uint(256)
        ),
        None
    );
    assert_eq!(
        convert(DynSolValue::Int(I256::MIN, 256), &DynSolType::Int(256)),
        Some(DynSolValue::Int(I256::MIN, 256))
    );
    assert_eq!(convert(DynSolValue::Bool(true), &DynSolType::Uint(8)), None);
}
