//! forge-std's assertions (`assertEq`, `assertGt`, `assertApproxEqRel`, …):
//! cheatcodes that revert with forge's own message when they fail.

use super::*;

/// forge-std's assertions (`assertEq`, `assertGt`, …) call these
/// cheatcodes, which revert with forge's message when they fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Assertion {
    True,
    False,
    Eq,
    NotEq,
    Gt,
    Ge,
    Lt,
    Le,
    ApproxEqAbs,
    /// Within a relative difference of `maxPercentDelta` (1e18 = 100%) of
    /// the right side.
    ApproxEqRel,
}

/// Every assertion cheatcode signature rudder answers, with its meaning.
pub(super) fn assertion_signatures() -> Vec<(String, Cheat)> {
    use Assertion::*;
    let mut out = Vec::new();
    let mut both = |base: String, a: Assertion| {
        out.push((format!("{base})"), Cheat::Assert(a)));
        out.push((format!("{base},string)"), Cheat::Assert(a)));
    };
    both("assertTrue(bool".into(), True);
    both("assertFalse(bool".into(), False);
    let scalars = [
        "bool", "uint256", "int256", "address", "bytes32", "string", "bytes",
    ];
    for ty in scalars {
        for (name, a) in [("assertEq", Eq), ("assertNotEq", NotEq)] {
            both(format!("{name}({ty},{ty}"), a);
            both(format!("{name}({ty}[],{ty}[]"), a);
        }
    }
    for ty in ["uint256", "int256"] {
        for (name, a) in [
            ("assertGt", Gt),
            ("assertGe", Ge),
            ("assertLt", Lt),
            ("assertLe", Le),
        ] {
            both(format!("{name}({ty},{ty}"), a);
        }
        both(format!("assertApproxEqAbs({ty},{ty},uint256"), ApproxEqAbs);
        both(format!("assertApproxEqRel({ty},{ty},uint256"), ApproxEqRel);
    }
    out
}

/// `Ok` when the assertion holds, forge's failure message otherwise.
pub(super) fn check_assertion(a: Assertion, args: &[DynSolValue]) -> Result<(), String> {
    use std::cmp::Ordering::*;
    let msg = |n: usize| match args.get(n) {
        Some(DynSolValue::String(m)) => m.clone(),
        _ => "assertion failed".into(),
    };
    let cmp = |x: &DynSolValue, y: &DynSolValue| match (x, y) {
        (DynSolValue::Uint(x, _), DynSolValue::Uint(y, _)) => x.cmp(y),
        (DynSolValue::Int(x, _), DynSolValue::Int(y, _)) => x.cmp(y),
        _ => Equal,
    };
    let show = |v: &DynSolValue| match v {
        DynSolValue::Array(items) => {
            format!(
                "[{}]",
                items.iter().map(to_string).collect::<Vec<_>>().join(", ")
            )
        }
        DynSolValue::String(s) => s.clone(),
        v => to_string(v),
    };
    let (holds, text) = match a {
        Assertion::True => (args[0].as_bool() == Some(true), None),
        Assertion::False => (args[0].as_bool() == Some(false), None),
        Assertion::Eq => (args[0] == args[1], Some("!=")),
        Assertion::NotEq => (args[0] != args[1], Some("==")),
        Assertion::Gt => (cmp(&args[0], &args[1]) == Greater, Some("<=")),
        Assertion::Ge => (cmp(&args[0], &args[1]) != Less, Some("<")),
        Assertion::Lt => (cmp(&args[0], &args[1]) == Less, Some(">=")),
        Assertion::Le => (cmp(&args[0], &args[1]) != Greater, Some(">")),
        Assertion::ApproxEqRel => return approx_eq_rel(args, msg(3), show),
        Assertion::ApproxEqAbs => {
            let delta = match (&args[0], &args[1]) {
                (DynSolValue::Uint(x, _), DynSolValue::Uint(y, _)) => x.abs_diff(*y),
                (DynSolValue::Int(x, _), DynSolValue::Int(y, _)) => int_diff(*x, *y),
                _ => U256::ZERO,
            };
            let max = word(&args[2]);
            if delta <= max {
                return Ok(());
            }
            return Err(format!(
                "{}: {} !~= {} (max delta: {max}, real delta: {delta})",
                msg(3),
                show(&args[0]),
                show(&args[1])
            ));
        }
    };
    if holds {
        return Ok(());
    }
    let n = if matches!(a, Assertion::True | Assertion::False) {
        1
    } else {
        2
    };
    Err(match text {
        None => msg(n),
        Some(op) => format!("{}: {} {op} {}", msg(n), show(&args[0]), show(&args[1])),
    })
}

/// `|x - y|` of two int256 (it fits a uint256).
fn int_diff(x: alloy_primitives::I256, y: alloy_primitives::I256) -> U256 {
    if x >= y {
        x.into_raw().wrapping_sub(y.into_raw())
    } else {
        y.into_raw().wrapping_sub(x.into_raw())
    }
}

/// `assertApproxEqRel`: `|a - b| * 1e18 / |b|` at most `args[2]` (forge's
/// message prints both as percentages with 16 decimals; `b == 0` holds
/// only for `a == 0`).
fn approx_eq_rel(
    args: &[DynSolValue],
    msg: String,
    show: impl Fn(&DynSolValue) -> String,
) -> Result<(), String> {
    let (diff, base) = match (&args[0], &args[1]) {
        (DynSolValue::Uint(x, _), DynSolValue::Uint(y, _)) => (x.abs_diff(*y), *y),
        (DynSolValue::Int(x, _), DynSolValue::Int(y, _)) => (int_diff(*x, *y), y.unsigned_abs()),
        _ => (U256::ZERO, U256::ONE),
    };
    let max = word(&args[2]);
    let percent = |v: U256| {
        let s = format!("{v:0>17}");
        let (int, frac) = s.split_at(s.len() - 16);
        format!("{int}.{frac}%")
    };
    let real = if base.is_zero() {
        if diff.is_zero() {
            return Ok(());
        }
        None
    } else {
        // forge scales before dividing, in 256 bits.
        let Some(scaled) = diff.checked_mul(U256::from(10u64.pow(18))) else {
            return Err(format!("{msg}: overflow in delta calculation"));
        };
        let d = scaled / base;
        if d <= max {
            return Ok(());
        }
        Some(d)
    };
    Err(format!(
        "{msg}: {} !~= {} (max delta: {}, real delta: {})",
        show(&args[0]),
        show(&args[1]),
        percent(max),
        real.map_or("undefined".to_string(), percent)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::I256;

    fn u(v: u64) -> DynSolValue {
        DynSolValue::Uint(U256::from(v), 256)
    }

    fn i(v: i64) -> DynSolValue {
        DynSolValue::Int(I256::try_from(v).unwrap(), 256)
    }

    fn s(m: &str) -> DynSolValue {
        DynSolValue::String(m.into())
    }

    #[test]
    fn forge_std_assertions_hold_or_revert_with_forges_message() {
        use Assertion::*;
        assert!(check_assertion(Eq, &[u(1), u(1)]).is_ok());
        assert_eq!(
            check_assertion(Eq, &[u(1), u(2)]).unwrap_err(),
            "assertion failed: 1 != 2"
        );
        assert_eq!(
            check_assertion(Eq, &[u(1), u(2), s("books")]).unwrap_err(),
            "books: 1 != 2"
        );
        assert_eq!(
            check_assertion(NotEq, &[u(3), u(3)]).unwrap_err(),
            "assertion failed: 3 == 3"
        );
        assert!(check_assertion(Gt, &[i(-1), i(-2)]).is_ok());
        assert_eq!(
            check_assertion(Le, &[i(5), i(-5)]).unwrap_err(),
            "assertion failed: 5 > -5"
        );
        assert!(check_assertion(Ge, &[u(7), u(7)]).is_ok());
        assert_eq!(
            check_assertion(Lt, &[u(7), u(7), s("m")]).unwrap_err(),
            "m: 7 >= 7"
        );
        assert_eq!(
            check_assertion(True, &[DynSolValue::Bool(false), s("must")]).unwrap_err(),
            "must"
        );
        assert!(check_assertion(False, &[DynSolValue::Bool(false)]).is_ok());
        let e = check_assertion(ApproxEqAbs, &[u(10), u(12), u(1)]).unwrap_err();
        assert!(e.contains("max delta: 1, real delta: 2"), "{e}");
        assert!(check_assertion(ApproxEqAbs, &[i(-3), i(-1), u(2)]).is_ok());
        assert!(check_assertion(ApproxEqRel, &[u(101), u(100), u(10u64.pow(16))]).is_ok());
        assert_eq!(
            check_assertion(ApproxEqRel, &[u(102), u(100), u(10u64.pow(16))]).unwrap_err(),
            "assertion failed: 102 !~= 100 (max delta: 1.0000000000000000%, real delta: 2.0000000000000000%)"
        );
        assert_eq!(
            check_assertion(ApproxEqRel, &[u(1), u(0), u(0)]).unwrap_err(),
            "assertion failed: 1 !~= 0 (max delta: 0.0000000000000000%, real delta: undefined)"
        );
        assert!(check_assertion(ApproxEqRel, &[u(0), u(0), u(0)]).is_ok());
        assert!(check_assertion(ApproxEqRel, &[i(-99), i(-100), u(10u64.pow(16)), s("m")]).is_ok());
        assert!(
            check_assertion(ApproxEqRel, &[i(-98), i(-100), u(10u64.pow(16)), s("m")])
                .unwrap_err()
                .starts_with("m: -98 !~= -100")
        );
        let strings = [s("a"), s("b")];
        assert_eq!(
            check_assertion(Eq, &strings).unwrap_err(),
            "assertion failed: a != b"
        );
    }

    #[test]
    fn every_assertion_signature_is_in_the_table_once() {
        let t = table();
        for (sig, _) in assertion_signatures() {
            let f = Function::parse(&sig).unwrap();
            let n = t.iter().filter(|(_, s, _)| *s == f.selector()).count();
            assert_eq!(n, 1, "{sig}");
        }
        // forge-std's most used one, by its well-known selector.
        assert!(
            t.iter()
                .any(|(f, _, _)| f.signature() == "assertEq(uint256,uint256)")
        );
    }
}
