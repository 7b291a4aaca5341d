//! The priority sampler's pick against a `Mutex<Vec>` baseline, in one run.
//! Run: `cargo bench --bench priority`.

mod common;

use criterion::{Criterion, criterion_group};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rudder::priority::PrioritySet;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let set = PrioritySet::new();
    set.add(3, "a()", 3);
    set.add(7, "b()", 1);
    let mut sampler = set.sampler();
    let baseline = parking_lot::Mutex::new(vec![(3usize, 3u32), (7, 1)]);
    let mut rng = SmallRng::seed_from_u64(1);
    let mut g = c.benchmark_group("priority");
    g.bench_function("pick/sampler (arc-swap cache)", |b| {
        b.iter(|| black_box(sampler.pick(&mut rng, 10)))
    });
    g.bench_function("pick/PrioritySet::pick (arc-swap load)", |b| {
        b.iter(|| black_box(set.pick(&mut rng, 10)))
    });
    g.bench_function("pick/parking_lot Mutex<Vec> baseline", |b| {
        b.iter(|| {
            let v = baseline.lock();
            let total: u32 = v.iter().map(|e| e.1).sum();
            let pick = if rng.random_bool(0.9) {
                let mut r = rng.random_range(0..total);
                v.iter()
                    .find(|e| {
                        if r < e.1 {
                            true
                        } else {
                            r -= e.1;
                            false
                        }
                    })
                    .unwrap()
                    .0
            } else {
                rng.random_range(0..10)
            };
            black_box(pick)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);

fn main() {
    common::criterion(benches);
}
