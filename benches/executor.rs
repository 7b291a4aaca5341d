//! Executor calls/s with coverage recording against bare revm (the same EVM
//! and call, no inspector), in one run. Run: `cargo bench --bench executor`.

mod common;

use alloy_dyn_abi::{DynSolValue, JsonAbiExt};
use alloy_primitives::{Bytes, U256};
use criterion::{Criterion, Throughput, criterion_group};
use rudder::artifacts::Project;
use rudder::executor::{DEFAULT_SENDERS, EvmSettings, Executor, Target};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

fn setup(contract: &str) -> (Arc<Target>, Executor) {
    let project =
        Arc::new(Project::load(Path::new(&format!("contracts/out/{contract}.json"))).unwrap());
    let c = project.contract(None).unwrap().clone();
    let t = Arc::new(Target::deploy(project, &c, EvmSettings::default(), 1).unwrap());
    let ex = t.executor(0);
    (t, ex)
}

fn transfer_calldata(t: &Target) -> Bytes {
    let f = t.functions.iter().find(|f| f.name == "transfer").unwrap();
    Bytes::from(
        f.abi_encode_input(&[
            DynSolValue::Address(DEFAULT_SENDERS[1]),
            DynSolValue::Uint(U256::from(1), 256),
        ])
        .unwrap(),
    )
}

/// Calls per second over `n` calls, resetting to the deployed state every 100.
fn rate(ex: &mut Executor, data: &Bytes, inspect: bool, n: u32) -> f64 {
    let t0 = Instant::now();
    for i in 0..n {
        let r = ex.call_raw(DEFAULT_SENDERS[0], data.clone(), U256::ZERO, inspect);
        assert!(r.outcome.is_success());
        if i % 100 == 99 {
            ex.reset();
        }
    }
    ex.reset();
    n as f64 / t0.elapsed().as_secs_f64()
}

fn bench(c: &mut Criterion) {
    let (t, mut ex) = setup("Token");
    let data = transfer_calldata(&t);
    let mut g = c.benchmark_group("executor");
    g.throughput(Throughput::Elements(1));
    for (name, inspect) in [("bare_revm", false), ("with_coverage", true)] {
        let mut i = 0u32;
        g.bench_function(format!("Token.transfer/{name}"), |b| {
            b.iter(|| {
                let r = ex.call_raw(DEFAULT_SENDERS[0], data.clone(), U256::ZERO, inspect);
                i += 1;
                if i.is_multiple_of(100) {
                    ex.reset();
                }
                r.gas_used
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);

fn main() {
    common::criterion(benches);
    let (t, mut ex) = setup("Token");
    let data = transfer_calldata(&t);
    let n = if common::quick() { 2_000 } else { 200_000 };
    // Interleave to share machine noise fairly.
    let (mut bare, mut cov) = (0.0, 0.0);
    for _ in 0..3 {
        bare += rate(&mut ex, &data, false, n) / 3.0;
        cov += rate(&mut ex, &data, true, n) / 3.0;
    }
    println!("\n| Token.transfer, one thread | calls/s | vs bare |");
    println!("|---|---|---|");
    println!("| bare revm (no inspector) | {bare:.0} | 100% |");
    println!(
        "| rudder executor, coverage on | {cov:.0} | {:.0}% |",
        cov / bare * 100.0
    );
}
