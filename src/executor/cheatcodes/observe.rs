//! `expectEmit` and `expectCall`: cheatcodes that watch what the calls
//! after them do and revert when it did not happen, with forge's messages.
//!
//! - `expectEmit(…)` then an `emit` by the same frame declares a log; the
//!   next non-static call that frame makes must emit the declared logs in
//!   their order (other logs may come between). Which topics and whether
//!   the data are compared, and the emitter, come from the arguments.
//! - `expectCall(callee, [value,] data[, count])`: by the end of the
//!   transaction, `callee` must have been called with calldata starting with
//!   `data` (and that value) at least once, or exactly `count` times.

use super::*;
use alloy_primitives::LogData;

/// A declared log: what to compare, and (once the declaring frame emitted
/// it) the log itself.
#[derive(Clone, Debug)]
struct ExpectedEmit {
    /// The depth of the frame that declared it.
    depth: usize,
    /// Compare topics 1, 2, 3 and the data.
    checks: [bool; 4],
    emitter: Option<Address>,
    log: Option<LogData>,
    found: bool,
}

/// A call expected by `expectCall`.
#[derive(Clone, Debug)]
struct ExpectedCall {
    callee: Address,
    data: Bytes,
    value: Option<U256>,
    /// Times it must happen: at least (`exact` false) or exactly.
    count: u64,
    exact: bool,
    seen: u64,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Observed {
    emits: Vec<ExpectedEmit>,
    calls: Vec<ExpectedCall>,
}

/// Whether `log` is what `want` declares under `checks` (topic 0 always,
/// the same number of topics).
fn log_matches(checks: [bool; 4], want: &LogData, log: &LogData) -> bool {
    let (w, g) = (want.topics(), log.topics());
    w.len() == g.len()
        && w.first() == g.first()
        && (1..w.len()).all(|i| !checks[i - 1] || w[i] == g[i])
        && (!checks[3] || want.data == log.data)
}

impl Observed {
    pub(super) fn is_empty(&self) -> bool {
        self.emits.is_empty() && self.calls.is_empty()
    }

    pub(super) fn expect_emit(
        &mut self,
        depth: usize,
        checks: [bool; 4],
        emitter: Option<Address>,
    ) {
        self.emits.push(ExpectedEmit {
            depth,
            checks,
            emitter,
            log: None,
            found: false,
        });
    }

    pub(super) fn expect_call(
        &mut self,
        callee: Address,
        value: Option<U256>,
        data: Bytes,
        count: Option<u64>,
    ) -> Result<(), String> {
        if let Some(c) = self
            .calls
            .iter_mut()
            .find(|c| c.callee == callee && c.data == data && c.value == value)
        {
            if c.exact || count.is_some() {
                return Err(
                    "vm.expectCall: counted expected calls can only be set once".to_string()
                );
            }
            c.count += 1;
            return Ok(());
        }
        self.calls.push(ExpectedCall {
            callee,
            data,
            value,
            count: count.unwrap_or(1),
            exact: count.is_some(),
            seen: 0,
        });
        Ok(())
    }

    /// A log was emitted: it fills the oldest declaration still without a
    /// log, or else is compared with the oldest one not yet seen.
    pub(super) fn on_log(&mut self, log: &alloy_primitives::Log) {
        if let Some(e) = self.emits.iter_mut().find(|e| e.log.is_none()) {
            // An anonymous log declares nothing (forge has
            // `expectEmitAnonymous` for those).
            if !log.topics().is_empty() {
                e.log = Some(log.data.clone());
            }
            return;
        }
        if let Some(e) = self.emits.iter_mut().find(|e| !e.found)
            && let Some(want) = &e.log
            && e.emitter.is_none_or(|a| a == log.address)
            && log_matches(e.checks, want, &log.data)
        {
            e.found = true;
        }
    }

    /// A call to `callee` with `data` starts, moving `value` (`None`: a
    /// delegate or static call, which moves none).
    pub(super) fn on_call(&mut self, callee: Address, data: &[u8], value: Option<U256>) {
        for c in &mut self.calls {
            if c.callee == callee
                && data.starts_with(&c.data)
                && c.value.is_none_or(|v| Some(v) == value)
            {
                c.seen += 1;
            }
        }
    }

    /// A call made from `depth` ended with `result`: the logs declared at
    /// that depth must have been seen; at the transaction's end, the calls
    /// expected too. Turns the result into a revert saying what is missing.
    pub(super) fn on_call_end(&mut self, depth: usize, is_static: bool, r: &mut InterpreterResult) {
        // As forge: a revert keeps its own reason, and what was declared
        // stays pending for the next call.
        if !r.result.is_ok() {
            return;
        }
        if !is_static && self.emits.iter().any(|e| e.depth == depth) {
            let missing = self.emits.iter().any(|e| !e.found);
            self.emits.clear();
            if missing {
                return fail(r, "log != expected log".to_string());
            }
        }
        if depth != 0 {
            return;
        }
        let emits = std::mem::take(&mut self.emits);
        let calls = std::mem::take(&mut self.calls);
        for c in &calls {
            let failed = if c.exact {
                c.seen != c.count
            } else {
                c.seen < c.count
            };
            if failed {
                let value = c.value.map(|v| format!(", value {v}")).unwrap_or_default();
                let s = |n: u64| if n == 1 { "" } else { "s" };
                return fail(
                    r,
                    format!(
                        "expected call to {} with data 0x{}{value} to be called {} time{}, but was called {} time{}",
                        c.callee,
                        hex::encode(&c.data),
                        c.count,
                        s(c.count),
                        c.seen,
                        s(c.seen)
                    ),
                );
            }
        }
        if emits.iter().any(|e| !e.found) {
            fail(
                r,
                "expected an emit, but no logs were emitted afterwards. you might have mismatched events or not enough events were emitted".to_string(),
            );
        }
    }
}

fn fail(r: &mut InterpreterResult, message: String) {
    r.result = InstructionResult::Revert;
    r.output = revert_data(&message);
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{Log, b256};

    fn log(topics: Vec<B256>, data: &[u8]) -> Log {
        Log {
            address: Address::with_last_byte(7),
            data: LogData::new_unchecked(topics, Bytes::copy_from_slice(data)),
        }
    }

    fn ok() -> InterpreterResult {
        InterpreterResult::new(InstructionResult::Return, Bytes::new(), Gas::new(0))
    }

    const T0: B256 = b256!("0000000000000000000000000000000000000000000000000000000000000001");
    const A: B256 = b256!("00000000000000000000000000000000000000000000000000000000000000aa");
    const B: B256 = b256!("00000000000000000000000000000000000000000000000000000000000000bb");

    #[test]
    fn declared_logs_must_come_in_order_from_the_next_call() {
        let mut o = Observed::default();
        o.expect_emit(1, [true, false, false, true], None);
        o.on_log(&log(vec![T0, A, A], b"x"));
        // Another log first, then a match (topic 2 not compared).
        o.on_log(&log(vec![T0, B, A], b"x"));
        o.on_log(&log(vec![T0, A, B], b"x"));
        let mut r = ok();
        o.on_call_end(1, false, &mut r);
        assert!(r.result.is_ok());
        assert!(o.emits.is_empty());

        o.expect_emit(1, [true, true, true, true], None);
        o.on_log(&log(vec![T0, A], b"x"));
        o.on_log(&log(vec![T0, A], b"y"));
        // A static call does not settle it; the next call does.
        let mut r = ok();
        o.on_call_end(1, true, &mut r);
        assert!(r.result.is_ok());
        o.on_call_end(1, false, &mut r);
        assert_eq!(
            super::super::expect::show_revert(&r.output),
            "log != expected log"
        );
    }

    #[test]
    fn expected_calls_are_counted_by_the_end_of_the_transaction() {
        let mut o = Observed::default();
        let callee = Address::with_last_byte(9);
        o.expect_call(callee, None, Bytes::from_static(&[1, 2]), None)
            .unwrap();
        o.expect_call(
            callee,
            Some(U256::from(5)),
            Bytes::from_static(&[3]),
            Some(2),
        )
        .unwrap();
        o.on_call(callee, &[1, 2, 3], Some(U256::ZERO));
        o.on_call(callee, &[3], Some(U256::from(5)));
        let mut r = ok();
        o.on_call_end(1, false, &mut r);
        assert!(r.result.is_ok(), "not the transaction's end yet");
        o.on_call_end(0, false, &mut r);
        let msg = super::super::expect::show_revert(&r.output);
        assert!(
            msg.contains("with data 0x03, value 5 to be called 2 times, but was called 1 time"),
            "{msg}"
        );
        assert!(o.is_empty());
    }
}
