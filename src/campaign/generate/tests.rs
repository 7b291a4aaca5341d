use super::*;
use rand::SeedableRng;

#[test]
fn mines_push_constants_and_source_literals() {
    // PUSH1 7, PUSH32 <big>, PUSH2 0x0100 (a small PUSH2 is skipped only below 256)
    let mut code = vec![0x60, 7, 0x7f];
    code.extend([0xab; 32]);
    code.extend([0x61, 0x01, 0x00]);
    let d = Dictionary::mine(&[&code], &["x == 42 && y == 0x10_00"], vec![]);
    for v in [7u64, 6, 8, 42, 0x1000] {
        assert!(d.constants.contains(&U256::from(v)), "{v}");
    }
    assert!(!d.constants.contains(&U256::from(0x100)));
}

#[test]
fn string_and_hex_literals_are_mined_comments_are_not() {
    let d = Dictionary::mine(
        &[],
        &[
            "// \"not me\"\nrequire(keccak256(bytes(s)) == keccak256(\"open sesame\"), 'no\\n');\nbytes x = hex\"beef\";",
        ],
        vec![],
    );
    assert!(
        d.strings.contains(&b"open sesame".to_vec()),
        "{:?}",
        d.strings
    );
    assert!(d.strings.contains(&b"no\n".to_vec()));
    assert!(d.strings.contains(&vec![0xbe, 0xef]));
    assert!(!d.strings.iter().any(|s| s == b"not me"));
}

#[test]
fn signed_values_stay_inside_their_width() {
    let d = Dictionary::mine(&[], &["128 255 32768"], vec![]);
    let mut rng = SmallRng::seed_from_u64(4);
    for bits in [8usize, 16, 24, 64, 128] {
        let lo = -(I256::ONE << (bits - 1));
        let hi = (I256::ONE << (bits - 1)) - I256::ONE;
        for _ in 0..20_000 {
            let v = random_int(&mut rng, &d, bits);
            assert!(v >= lo && v <= hi, "int{bits}: {v}");
        }
    }
}

#[test]
fn random_values_have_their_types() {
    let mut rng = SmallRng::seed_from_u64(3);
    let d = Dictionary::mine(&[], &["1000"], vec![Address::ZERO]);
    for ty in [
        "uint8",
        "int16",
        "address",
        "bool",
        "bytes4",
        "bytes",
        "string",
        "uint16[]",
        "address[2]",
        "bool[][]",
        "(int16,uint8,address,bool)",
    ] {
        let t: DynSolType = ty.parse().unwrap();
        for _ in 0..200 {
            let v = random_value(&mut rng, &d, &t);
            // A `string` that is not UTF-8 is held as bytes.
            let raw_string = ty == "string"
                && matches!(&v, DynSolValue::Bytes(b) if std::str::from_utf8(b).is_err());
            assert!(t.matches(&v) || raw_string, "{ty}: {v:?}");
            // Values must encode (range-correct for their width).
            let _ = v.abi_encode();
            if let DynSolValue::Uint(x, 8) = v {
                assert!(x < U256::from(256));
            }
            if let DynSolValue::Int(x, 16) = v {
                assert!(
                    x >= I256::try_from(-32768).unwrap() && x <= I256::try_from(32767).unwrap()
                );
            }
        }
    }
}

fn cmp(kind: CmpKind, a: U256, b: U256) -> Comparison {
    Comparison {
        kind,
        a,
        b,
        site: 1,
    }
}

fn pool_of(d: &Dictionary, sel: Selector, i: usize) -> (Vec<DynSolValue>, Vec<DynSolValue>) {
    let p = &d.params[&sel][i];
    (p.exact.values.clone(), p.offset.values.clone())
}

#[test]
fn comparisons_become_values_of_the_parameter_they_came_from() {
    let mut d = Dictionary::default();
    let sel = Selector::from([1, 2, 3, 4]);
    let u = |x: u64| U256::from(x);
    let args = vec![
        DynSolValue::Uint(u(7), 16),
        DynSolValue::Int(I256::try_from(-5).unwrap(), 32),
        DynSolValue::Uint(u(5_000_000), 64),
        DynSolValue::Bool(true),
    ];
    let minus = |x: i64| I256::try_from(x).unwrap().into_raw();
    d.learn(
        sel,
        &args,
        &[
            // b == 31337 (equal operand: the other one)
            cmp(CmpKind::Eq, u(7), u(31337)),
            // c < -40000 (signed ordering: the bound and its neighbours)
            cmp(CmpKind::Order, minus(-5), minus(-40000)),
            // e % 977 == 611 (an operand below e: e moved by the gap)
            cmp(CmpKind::Eq, u(5_000_000 % 977), u(611)),
            // a bound far out of uint16's range fits nobody
            cmp(CmpKind::Eq, u(7), U256::MAX - u(3)),
        ],
    );
    let (exact, _) = pool_of(&d, sel, 0);
    assert_eq!(exact, vec![DynSolValue::Uint(u(31337), 16)]);
    let (exact, _) = pool_of(&d, sel, 1);
    for v in [-40001i64, -40000, -39999] {
        assert!(
            exact.contains(&DynSolValue::Int(I256::try_from(v).unwrap(), 32)),
            "{v}: {exact:?}"
        );
    }
    let (_, offset) = pool_of(&d, sel, 2);
    let e = 5_000_000 - 5_000_000 % 977 + 611;
    assert!(offset.contains(&DynSolValue::Uint(u(e), 64)), "{offset:?}");
    assert_eq!(e % 977, 611);
    // Booleans learn nothing; every value has its parameter's type.
    assert!(pool_of(&d, sel, 3).0.is_empty() && pool_of(&d, sel, 3).1.is_empty());
    let ty: DynSolType = "int32".parse().unwrap();
    assert!(pool_of(&d, sel, 1).0.iter().all(|v| ty.matches(v)));
    // And they are drawn for that parameter.
    let mut rng = SmallRng::seed_from_u64(1);
    let drawn = (0..50)
        .filter_map(|_| d.asked(&mut rng, sel, 0).cloned())
        .collect::<Vec<_>>();
    let hits = drawn
        .iter()
        .filter(|v| **v == DynSolValue::Uint(u(31337), 16))
        .count();
    assert!(hits >= 15, "{drawn:?}");
    let ty: DynSolType = "uint16".parse().unwrap();
    assert!(drawn.iter().all(|v| ty.matches(v)));
    assert!(d.asked(&mut rng, Selector::from([9, 9, 9, 9]), 0).is_none());
}

#[test]
fn sums_and_products_of_two_arguments_are_solved_for_both() {
    let u = |x: u64| U256::from(x);
    let args = vec![
        DynSolValue::Uint(u(1000), 32),
        DynSolValue::Uint(u(3), 32),
        DynSolValue::Uint(u(20), 16),
        DynSolValue::Uint(u(30), 16),
    ];
    // `uint64(a) + uint64(b) == 4080061783` with a = 1000, b = 3: one
    // moved by the gap, or both set to halves.
    let sum = pair_flips(&args, &cmp(CmpKind::Eq, u(1003), u(4_080_061_783)));
    assert!(sum.contains(&vec![(1, DynSolValue::Uint(u(4_080_060_783), 32))]));
    assert!(sum.contains(&vec![
        (0, DynSolValue::Uint(u(2_040_030_891), 32)),
        (1, DynSolValue::Uint(u(2_040_030_892), 32)),
    ]));
    // `uint32(c) * uint32(d) == 1363015290 && c > 1 && d > 1` for
    // uint16s: a factor pair that fits both, each at least 2.
    let k = 1_363_015_290u64;
    let prod = pair_flips(&args, &cmp(CmpKind::Eq, u(600), u(k)));
    assert!(!prod.is_empty());
    for p in &prod {
        let [(2, DynSolValue::Uint(c, 16)), (3, DynSolValue::Uint(d, 16))] = p[..] else {
            panic!("{p:?}");
        };
        assert_eq!(c * d, u(k));
        assert!(c >= u(2) && d >= u(2));
    }
    // A prime above both types' reach has no pair; orderings none.
    assert!(pair_flips(&args, &cmp(CmpKind::Eq, u(600), u(4_294_967_291))).is_empty());
    assert!(pair_flips(&args, &cmp(CmpKind::Order, u(600), u(k))).is_empty());
    // Candidates carry both changes.
    let f: Function = Function::parse("f(uint32,uint32,uint16,uint16)").unwrap();
    let tx = Tx {
        function: Arc::new(f),
        args,
        sender: Address::ZERO,
        value: U256::ZERO,
        delay: Delay::NONE,
        gas_price: 0,
        to: None,
    };
    let c = input_to_state(&tx, &[cmp(CmpKind::Eq, u(600), u(k))], false, 12);
    assert!(c.iter().any(|t| {
        let (DynSolValue::Uint(a, _), DynSolValue::Uint(b, _)) = (&t.args[2], &t.args[3]) else {
            return false;
        };
        *a * *b == u(k)
    }));
}

#[test]
fn input_to_state_replaces_one_argument_per_candidate_deepest_comparison_first() {
    let u = |x: u64| U256::from(x);
    let f: Function = Function::parse("f(uint16,bool,uint64)").unwrap();
    let tx = Tx {
        function: Arc::new(f),
        args: vec![
            DynSolValue::Uint(u(7), 16),
            DynSolValue::Bool(true),
            DynSolValue::Uint(u(17), 64),
        ],
        sender: Address::ZERO,
        value: U256::ZERO,
        delay: Delay::NONE,
        gas_price: 0,
        to: None,
    };
    let cmps = [
        cmp(CmpKind::Eq, u(7), u(31337)),
        // `e > 40000` with e = 17: the bound, its neighbours and a
        // margin past it each way.
        cmp(CmpKind::Order, u(17), u(40000)),
    ];
    let c = input_to_state(&tx, &cmps, true, 64);
    let firsts: Vec<_> = c.iter().map(|t| t.args.clone()).collect();
    // The boolean first, then the deepest comparison, then the earlier.
    assert_eq!(firsts[0][1], DynSolValue::Bool(false));
    let e: Vec<_> = c[1..6].iter().map(|t| t.args[2].clone()).collect();
    for v in [40000u64, 40001, 39999, 40000 + 5001, 40000 - 5001] {
        assert!(e.contains(&DynSolValue::Uint(u(v), 64)), "{v}: {e:?}");
    }
    assert!(
        c.iter()
            .any(|t| t.args[0] == DynSolValue::Uint(u(31337), 16))
    );
    // Each candidate changes exactly one argument.
    for t in &c {
        let changed = t.args.iter().zip(&tx.args).filter(|(a, b)| a != b).count();
        assert_eq!(changed, 1, "{:?}", t.args);
    }
    assert_eq!(input_to_state(&tx, &cmps, true, 3).len(), 3);
    // Signed bounds keep their sign in the margin.
    let minus = |x: i64| I256::try_from(x).unwrap();
    let v = flips(
        &DynSolValue::Int(minus(-5), 32),
        &cmp(
            CmpKind::Order,
            minus(-5).into_raw(),
            minus(-40000).into_raw(),
        ),
    );
    for x in [-40000i64, -39999, -40001, -45001, -34999] {
        assert!(
            v.contains(&(DynSolValue::Int(minus(x), 32), true)),
            "{x}: {v:?}"
        );
    }
}

#[test]
fn values_out_of_a_parameters_range_do_not_fit() {
    let u = |x: u64| U256::from(x);
    assert!(fit(u(256), &DynSolValue::Uint(u(0), 8)).is_none());
    assert!(fit(u(255), &DynSolValue::Uint(u(0), 8)).is_some());
    let minus_129 = I256::try_from(-129).unwrap().into_raw();
    let minus_128 = I256::try_from(-128).unwrap().into_raw();
    assert!(fit(minus_129, &DynSolValue::Int(I256::ZERO, 8)).is_none());
    assert!(fit(minus_128, &DynSolValue::Int(I256::ZERO, 8)).is_some());
    assert!(fit(U256::MAX, &DynSolValue::Address(Address::ZERO)).is_none());
    let left = U256::from_be_bytes(B256::left_padding_from(&[0xab; 4]).0);
    assert!(fit(left, &DynSolValue::FixedBytes(B256::ZERO, 4)).is_none());
    let right = U256::from_be_bytes(B256::right_padding_from(&[0xab; 4]).0);
    assert!(fit(right, &DynSolValue::FixedBytes(B256::ZERO, 4)).is_some());
}

#[test]
fn simplify_goes_toward_zero_and_ends() {
    let mut rng = SmallRng::seed_from_u64(9);
    let mut v = DynSolValue::Uint(U256::from(1_000_000u64), 256);
    let mut steps = 0;
    while let Some(s) = simplify(&mut rng, &v) {
        v = s;
        steps += 1;
        assert!(steps < 1000);
    }
    assert_eq!(v, DynSolValue::Uint(U256::ZERO, 256));
}

#[test]
fn an_address_simplifies_to_zero_or_the_default_sender_then_zero() {
    let mut rng = SmallRng::seed_from_u64(5);
    let sender = crate::executor::DEFAULT_SENDERS[0];
    let other = DynSolValue::Address(Address::repeat_byte(0x42));
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..64 {
        match simplify(&mut rng, &other) {
            Some(DynSolValue::Address(a)) => {
                assert!(a.is_zero() || a == sender, "{a}");
                seen.insert(a);
            }
            s => panic!("{s:?}"),
        }
    }
    assert_eq!(seen.len(), 2, "both zero and the sender are tried");
    let from_sender = simplify(&mut rng, &DynSolValue::Address(sender));
    assert_eq!(from_sender, Some(DynSolValue::Address(Address::ZERO)));
    assert_eq!(
        simplify(&mut rng, &DynSolValue::Address(Address::ZERO)),
        None
    );
}

#[test]
fn a_number_goes_where_it_fits_an_argument_or_the_delay() {
    let mut rng = SmallRng::seed_from_u64(3);
    let f: Function = Function::parse("f(uint8,bool,uint32)").unwrap();
    let tx = Tx {
        function: Arc::new(f),
        args: vec![
            DynSolValue::Uint(U256::ZERO, 8),
            DynSolValue::Bool(false),
            DynSolValue::Uint(U256::ZERO, 32),
        ],
        sender: Address::ZERO,
        value: U256::ZERO,
        delay: Delay::NONE,
        gas_price: 0,
        to: None,
    };
    let v = U256::from(100_000u64);
    let mut places = std::collections::BTreeSet::new();
    for _ in 0..64 {
        let mut t = tx.clone();
        assert!(set_a_number(&mut rng, &mut t, v, 604_800));
        // Never the uint8 (too narrow) nor the bool.
        assert_eq!((&t.args[0], &t.args[1]), (&tx.args[0], &tx.args[1]));
        places.insert(if t.args[2] == DynSolValue::Uint(v, 32) {
            "argument"
        } else {
            assert_eq!(t.delay.seconds, 100_000);
            "delay"
        });
    }
    assert_eq!(places.len(), 2);
    // Past every width and the delay's bound: nothing changes.
    let mut t = tx.clone();
    assert!(!set_a_number(
        &mut rng,
        &mut t,
        U256::from(1u64) << 40,
        604_800
    ));
    assert_eq!(t, tx);
}

#[test]
fn products_are_solved_modulo_their_width() {
    let mut rng = SmallRng::seed_from_u64(11);
    let u = |x: u64| U256::from(x);
    for n in [8usize, 16, 64, 160, 256] {
        for _ in 0..2_000 {
            let m = mask(U256::from_limbs(rng.random()), rng.random_range(1..=n));
            let k = mask(U256::from_limbs(rng.random()), n);
            match solve_mul(m, k, n) {
                Some(y) => assert_eq!(mask(m.wrapping_mul(y), n), k, "{m} * y = {k} mod 2^{n}"),
                // No solution: m is zero, or it has more factors of two
                // than k.
                None => assert!(
                    m.is_zero() || (!k.is_zero() && k.trailing_zeros() < m.trailing_zeros())
                ),
            }
        }
    }
    assert_eq!(solve_mul(u(2), u(3), 64), None);
    assert_eq!(solve_mul(u(6), u(10), 64), Some(u(0x5555_5555_5555_5557)));
    // Without wrapping, the quotient: the smallest solution.
    assert_eq!(solve_mul(u(43), u(43 * 1000), 64), Some(u(1000)));
}

#[test]
fn wrapping_multiples_sums_and_products_in_a_narrow_width_are_solved() {
    let u = |x: u64| U256::from(x);
    let m64 = |x: U256| mask(x, 64);
    // `p7 == uint64(13 * p2)` with p7 held at 33 by an earlier guard: only
    // a p2 that wraps solves it (13 * p2 ≡ 33 mod 2^64).
    let p2 = DynSolValue::Uint(u(5), 64);
    let got = flips(&p2, &cmp(CmpKind::Eq, u(65), u(33)));
    assert!(
        got.iter()
            .any(|(v, _)| matches!(v, DynSolValue::Uint(y, 64) if m64(*y * u(13)) == u(33))),
        "{got:?}"
    );
    // A product of two arguments that wrapped at 64 bits: the odd one's
    // partner solved for, the even one's not (2^63 * y is never odd).
    let args = vec![
        DynSolValue::Uint(u(3), 64),
        DynSolValue::Uint(u(1 << 63), 64),
    ];
    let x = m64(u(3) * u(1 << 63));
    let k = u(12_345);
    let got = pair_flips(&args, &cmp(CmpKind::Eq, x, k));
    assert!(
        got.iter()
            .any(|ch| matches!(ch[..], [(1, DynSolValue::Uint(y, 64))] if m64(y * u(3)) == k)),
        "{got:?}"
    );
    assert!(!got.iter().any(|ch| ch.len() == 1 && ch[0].0 == 0));
    // A sum that wrapped: either moved by the gap, modulo 2^64.
    let args = vec![
        DynSolValue::Uint(u(10), 64),
        DynSolValue::Uint(U256::from(u64::MAX - 4), 64),
    ];
    let got = pair_flips(&args, &cmp(CmpKind::Eq, u(5), u(100_000)));
    assert!(
        got.contains(&vec![(0, DynSolValue::Uint(u(100_005), 64))]),
        "{got:?}"
    );
    assert!(
        got.contains(&vec![(1, DynSolValue::Uint(u(99_990), 64))]),
        "{got:?}"
    );
    // Two uint256 arguments multiplied as uint64s (`uint64(a) * uint64(b)`):
    // solved in the width the product wrapped at.
    let big = u(0x1_0000_0001); // odd
    let args = vec![DynSolValue::Uint(big, 256), DynSolValue::Uint(big, 256)];
    let x = m64(big * big);
    let got = pair_flips(&args, &cmp(CmpKind::Eq, x, u(7)));
    assert!(
        got.iter()
            .any(|ch| matches!(ch[..], [(0, DynSolValue::Uint(y, 256))] if m64(y * big) == u(7))),
        "{got:?}"
    );
    // An operand that is no small multiple of the argument offers no
    // multiple: with x = 1 every operand would be one.
    let one = DynSolValue::Uint(u(1), 64);
    assert_eq!(
        multiple_solution(&one, u(1), &cmp(CmpKind::Eq, u(65), u(33))),
        None
    );
    let p2 = DynSolValue::Uint(u(5), 64);
    assert_eq!(
        multiple_solution(&p2, u(5), &cmp(CmpKind::Eq, u(5 << 20), u(33))),
        None
    );
}
