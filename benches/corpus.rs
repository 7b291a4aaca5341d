//! Corpus appends and paged reads against an `RwLock<Vec>` baseline, in one
//! run. Run: `cargo bench --bench corpus`.

mod common;

use alloy_dyn_abi::DynSolValue;
use alloy_json_abi::Function;
use alloy_primitives::{Address, U256};
use criterion::{Criterion, criterion_group};
use rudder::corpus::{Corpus, Origin, TxQuery};
use rudder::tx::{Delay, Tx};
use std::hint::black_box;
use std::sync::Arc;

fn seq(f: &Arc<Function>, n: usize) -> Vec<Tx> {
    (0..n)
        .map(|i| Tx {
            function: f.clone(),
            args: vec![DynSolValue::Uint(U256::from(i), 256)],
            sender: Address::ZERO,
            value: U256::ZERO,
            delay: Delay::NONE,
            gas_price: 0,
            to: None,
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let f = Arc::new(Function::parse("set(uint256)").unwrap());
    let corpus = Corpus::new();
    let baseline = parking_lot::RwLock::new(Vec::<Arc<Vec<Tx>>>::new());
    for _ in 0..2000 {
        corpus.add(None, Origin::Random, 1, seq(&f, 10), vec![0; 10]);
        baseline.write().push(Arc::new(seq(&f, 10)));
    }
    let mut g = c.benchmark_group("corpus");
    g.bench_function("add/corpus (append-only)", |b| {
        b.iter(|| corpus.add(None, Origin::Random, 1, seq(&f, 10), vec![0; 10]))
    });
    g.bench_function("add/RwLock<Vec> baseline", |b| {
        b.iter(|| baseline.write().push(Arc::new(seq(&f, 10))))
    });
    g.bench_function("page20_at_10000/corpus", |b| {
        b.iter(|| black_box(corpus.tx_page(10_000, 20).len()))
    });
    g.bench_function("page20_at_10000/RwLock<Vec> baseline", |b| {
        b.iter(|| {
            let v = baseline.read();
            let out: Vec<Tx> = v
                .iter()
                .flat_map(|s| s.iter())
                .skip(10_000)
                .take(20)
                .cloned()
                .collect();
            black_box(out.len())
        })
    });
    let q = TxQuery {
        signature: Some("set(uint256)".into()),
        argument: Some("7".into()),
        ..Default::default()
    };
    g.bench_function("find_by_argument/corpus", |b| {
        b.iter(|| black_box(corpus.find(&q, 1000).len()))
    });
    g.finish();
}

criterion_group!(benches, bench);

fn main() {
    common::criterion(benches);
}
