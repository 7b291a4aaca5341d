//! Injection latency: from `inject` to "executed by every worker", with all
//! workers busy on random sequences. Run: `cargo bench --bench control`.

mod common;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

fn main() {
    let rounds = if common::quick() { 20 } else { 500 };
    let workers = 2;
    let (_dir, c) = common::busy_campaign("Token", workers);
    std::thread::sleep(Duration::from_millis(300));
    let s = c.read();
    let control = c.control();
    let txs = control
        .parse_calls(
            &["transfer(0x0000000000000000000000000000000000020000, 1)".to_string()],
            None,
            Default::default(),
        )
        .unwrap();
    let mut lat = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let before: Vec<u64> = (0..workers)
            .map(|w| s.stats().workers[w].injections.load(Ordering::Acquire))
            .collect();
        let t0 = Instant::now();
        control.inject(txs.clone()).unwrap();
        loop {
            let done = (0..workers)
                .all(|w| s.stats().workers[w].injections.load(Ordering::Acquire) > before[w]);
            if done {
                break;
            }
            std::hint::spin_loop();
        }
        lat.push(t0.elapsed().as_nanos() as u64);
        std::thread::sleep(Duration::from_millis(2));
    }
    let calls = s.stats().calls();
    c.stop();
    let _ = c.wait();
    println!("| injections | workers | p50 | p99 | max | campaign calls meanwhile |");
    println!("|---|---|---|---|---|---|");
    let max = *lat.iter().max().unwrap();
    println!(
        "| {rounds} | {workers} | {} | {} | {} | {calls} |",
        common::fmt_ns(common::percentile(&mut lat, 50.0)),
        common::fmt_ns(common::percentile(&mut lat, 99.0)),
        common::fmt_ns(max)
    );
}
