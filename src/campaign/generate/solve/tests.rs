use super::*;
use crate::executor::tests::{self, prop, target};
use crate::executor::{DEFAULT_SENDERS, Target};
use rand::SeedableRng;

/// A random word, often small or near a power of two.
fn word(rng: &mut SmallRng) -> U256 {
    match rng.random_range(0..3) {
        0 => U256::from(rng.random_range(0..100u64)),
        1 => (U256::ONE << rng.random_range(0..256usize))
            .wrapping_sub(U256::from(rng.random_range(0..3u8))),
        _ => random_word(rng, 256),
    }
}

#[test]
fn each_inverse_gives_what_was_wanted_or_nothing() {
    let mut rng = SmallRng::seed_from_u64(3);
    let (mut answered, mut asked) = (0, 0);
    for _ in 0..20_000 {
        let (o, r, cur) = (word(&mut rng), word(&mut rng), word(&mut rng));
        let left = rng.random_bool(0.5);
        let run = |op: u8, x: U256| {
            if left {
                symbolic::apply(op, x, o)
            } else {
                symbolic::apply(op, o, x)
            }
        };
        for op in [EQ, LT, GT, SLT, SGT] {
            let truth = rng.random_bool(0.5);
            asked += 1;
            if let Some(x) = compare_inverse(&mut rng, op, left, truth, o) {
                answered += 1;
                assert_eq!(!run(op, x).is_zero(), truth, "op {op:#x} left {left} o {o}");
            }
        }
        for op in [ADD, SUB, MUL, DIV, MOD, AND, OR, XOR, SHL, SHR, SIGNEXTEND] {
            if let Some(x) = arith_inverse(op, left, r, o, cur) {
                assert_eq!(run(op, x), r, "op {op:#x} left {left} o {o} r {r}");
            }
        }
    }
    // An ordering has no answer only at the ends of the range.
    assert!(answered * 100 > asked * 99, "{answered} of {asked}");
}

#[test]
fn a_value_fits_its_argument_type() {
    let minus_one = U256::MAX;
    assert_eq!(Domain::Uint(64).fit(minus_one), U256::from(u64::MAX));
    assert_eq!(
        Domain::Int(32).fit(U256::from(0x1_8000_0000u64)),
        symbolic::sign_extend(U256::from(3), U256::from(0x8000_0000u64))
    );
    assert_eq!(Domain::Int(256).fit(minus_one), minus_one);
    assert_eq!(Domain::Bool.fit(U256::from(6)), U256::ZERO);
    assert_eq!(Domain::Address.fit(minus_one).bit_len(), 160);
    assert_eq!(Domain::Fixed(1).fit(minus_one), U256::from(0xff) << 248);
    assert_eq!(
        Domain::Int(8).value(U256::MAX),
        DynSolValue::Int(I256::MINUS_ONE, 8)
    );
}

#[test]
fn the_decoders_own_checks_are_never_targets() {
    let t = target("Knot");
    let mut ex = t.executor(0);
    let u = |v: u64| DynSolValue::Uint(U256::from(v), 64);
    let sig = "knotA(uint64,uint64,uint64,uint64)";
    let (_, trace) = ex.call_traced(&tx(&t, sig, vec![u(1), u(9), u(2), u(3)]));
    let count = |domains: &[Option<Domain>]| {
        trace
            .branches
            .iter()
            .filter(|b| encoding_check(&trace, domains, b.cond))
            .count()
    };
    // One check per argument; knotA's own guards (`b > a + c`, then
    // `b < d + a`, which fails here) are not among them.
    assert!(trace.branches.len() >= 6, "{:?}", trace.branches);
    assert_eq!(count(&[Some(Domain::Uint(64)); 4]), 4);
    // The same mask on a uint256 would be a guard a value can fail.
    assert_eq!(count(&[Some(Domain::Uint(256)); 4]), 0);
}

/// A call of `sig` from the first default sender.
fn tx(t: &Target, sig: &str, args: Vec<DynSolValue>) -> Tx {
    tests::tx(t, sig, args, DEFAULT_SENDERS[0], Delay::default())
}

/// Solves, runs the deepest answer, and goes on from it, as a worker's
/// chain does: true once `flag` is set.
fn untie(
    name: &str,
    sig: &str,
    args: Vec<DynSolValue>,
    flag: &str,
    (seed, rounds, effort): (u64, usize, Effort),
) -> bool {
    let t = target(name);
    let mut ex = t.executor(0);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut call = tx(&t, sig, args);
    for _ in 0..rounds {
        let (_, trace) = ex.call_traced(&call);
        if prop(&mut ex, flag) {
            return true;
        }
        ex.reset();
        let found = solve_branches(&mut rng, &call, &trace, 4, |_, _, _| effort).found;
        // A search that found nothing is tried again (it is random).
        if let Some(next) = found.into_iter().next() {
            call = next;
        }
    }
    false
}

#[test]
fn the_solver_unties_knots_that_hold_only_together() {
    let u = |v: u64| DynSolValue::Uint(U256::from(v), 64);
    let i = |v: i64, bits| DynSolValue::Int(I256::try_from(v).unwrap(), bits);
    let knots = [
        (
            "knotA(uint64,uint64,uint64,uint64)",
            vec![u(1), u(2), u(3), u(4)],
            "tiedA",
        ),
        (
            "knotB(int32,int64,bool)",
            vec![i(3, 32), i(0, 64), DynSolValue::Bool(false)],
            "tiedB",
        ),
        (
            "knotC(uint64,uint64,uint64,uint64)",
            vec![u(1), u(2), u(3), u(4)],
            "tiedC",
        ),
    ];
    for seed in 0..20 {
        for (sig, args, flag) in &knots {
            assert!(
                untie("Knot", sig, args.clone(), flag, (seed, 12, Effort::Search)),
                "{sig}, seed {seed}"
            );
        }
    }
}

/// knotD one guard short of untied, the path having taken a root of
/// `a >= a + 40` that leaves no room for the last guard (`a = -2`
/// allows only `b < 2`, and `b >= g > h > a * m >= 1`): turning it needs
/// `a` chosen again with four arguments tied to it, which the local
/// search does only by chance. The blaster solves it in one formula.
#[test]
fn the_blaster_chooses_a_root_again_with_the_arguments_tied_to_it() {
    let t = target("Knot");
    let mut ex = t.executor(0);
    let u = |v: u64| DynSolValue::Uint(U256::from(v), 64);
    let minus = |d: u64| u64::MAX - d + 1;
    let sig = "knotD(uint64,uint64,uint64,uint64,uint64,uint64,uint64)";
    let args = [minus(2), 1, minus(41), 4, 3, u64::MAX, 0];
    let call = tx(&t, sig, args.map(u).to_vec());
    let (_, trace) = ex.call_traced(&call);
    assert!(!prop(&mut ex, "tiedD"));
    ex.reset();
    let domains = [Some(Domain::Uint(64)); 7];
    let vars = 0x7f;
    let deps = trace.dependencies();
    let guards: Vec<_> = trace
        .branches
        .iter()
        .filter(|b| deps[b.cond as usize] & vars != 0)
        .filter(|b| !encoding_check(&trace, &domains, b.cond))
        .collect();
    // Seven of knotD's eight guards pass; the last fails.
    assert_eq!(guards.len(), 8, "{guards:?}");
    let mut conds: Vec<_> = guards.iter().map(|b| (b.cond, b.taken)).collect();
    let last = conds.last_mut().unwrap();
    last.1 = !last.1;
    let words: Vec<U256> = args.iter().map(|&a| U256::from(a)).collect();
    let found = blast::solve(&trace, &conds, &domains, vars, &words, 1);
    let found = found.words.expect("knotD has a solution");
    let untied: Vec<_> = found.iter().map(|w| u(w.to::<u64>())).collect();
    ex.call(&tx(&t, sig, untied.clone()));
    assert!(prop(&mut ex, "tiedD"), "{untied:?}");
}

/// A guard with many roots of which only a few leave room for the
/// guards after it (knotD: `a >= a + 40`, then six arguments tied to
/// the root taken): a search that keeps the root its path took is stuck
/// there. Restarts that draw an argument afresh, and moves to the top of
/// the range (where the wrapped sum turns), choose the root again. The
/// search is seeded, so the count is the same on every run: 51 of 100
/// untied within 40 rounds, 34 without either.
#[test]
fn the_solver_chooses_again_a_root_that_left_no_room() {
    let u = |v: u64| DynSolValue::Uint(U256::from(v), 64);
    let sig = "knotD(uint64,uint64,uint64,uint64,uint64,uint64,uint64)";
    let untied = (0..100)
        .filter(|&seed| {
            let args = (1..=7).map(u).collect();
            untie("Knot", sig, args, "tiedD", (seed, 40, Effort::Search))
        })
        .count();
    assert!(untied >= 45, "{untied} of 100");
}

/// The same chains with the SAT solver behind the local search: every
/// one untied, in at most as many rounds as knotD has guards and one
/// more.
#[test]
fn with_the_blaster_behind_it_the_solver_unties_every_chain() {
    let u = |v: u64| DynSolValue::Uint(U256::from(v), 64);
    let sig = "knotD(uint64,uint64,uint64,uint64,uint64,uint64,uint64)";
    for seed in 0..10 {
        let args = (1..=7).map(u).collect();
        assert!(
            untie("Knot", sig, args, "tiedD", (seed, 9, Effort::Exact(1))),
            "seed {seed}"
        );
    }
}
