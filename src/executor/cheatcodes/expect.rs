//! Cheatcodes that watch or answer the calls after them: `expectRevert`
//! (the next call must revert, and then looks successful to its caller),
//! `mockCall` / `mockCallRevert` (a callee answers calls whose calldata
//! starts with a prefix), `recordLogs` / `getRecordedLogs`, and `record` /
//! `accesses` (the storage slots each account read and wrote, which
//! forge-std's `stdstore` — and so `deal(token, to, amount)` — relies on).
//! Semantics follow forge's.

use super::*;
use alloy_primitives::Log;
use revm::interpreter::CreateOutcome;

/// Storage accesses kept per account after `vm.record()` at most
/// (forge-std's stdstore records once per lookup and never stops).
pub(crate) const ACCESSES_PER_ACCOUNT: usize = 4096;

/// What forge answers for a call that reverted as expected: 8,192 zero
/// bytes, so that whatever the caller decodes from it decodes.
const EXPECTED_REVERT_OUTPUT: usize = 8192;

/// A pending `expectRevert`.
#[derive(Clone, Debug)]
struct ExpectedRevert {
    /// The depth of the frame that asked (calls at this depth or shallower
    /// are the ones it applies to).
    depth: usize,
    /// The revert data expected (`None`: any revert).
    data: Option<Bytes>,
    /// `expectPartialRevert`: the data need only start with `data`.
    partial: bool,
    /// The frame of the call it applies to, once that call started.
    frame: Option<usize>,
    /// The frame that asked: when it ends before a call claimed the
    /// expectation, it reverts (forge: the revert did not happen below it).
    caller_frame: Option<usize>,
}

/// A mocked call: calls to `callee` whose calldata starts with `data`
/// (and carry `value`, when set) answer `response` (a revert when
/// `reverts`).
#[derive(Clone, Debug)]
struct Mock {
    callee: Address,
    data: Bytes,
    value: Option<U256>,
    response: Bytes,
    /// `mockCalls`: the answers of the calls after the next, in order
    /// (the last one given keeps answering).
    more: std::collections::VecDeque<Bytes>,
    reverts: bool,
}

/// Storage slots read and written per account since `record()`.
pub(crate) type Accesses = HashMap<Address, (Vec<B256>, Vec<B256>)>;

/// The state of these cheatcodes in one EVM (cleared with each sequence).
#[derive(Clone, Debug, Default)]
pub(crate) struct Expectations {
    revert: Option<ExpectedRevert>,
    /// `assumeNoRevert`: the depth that asked and, once it started, the
    /// frame of the call that must not revert.
    no_revert: Option<(usize, Option<usize>)>,
    /// Longest prefix first, so the most specific mock answers.
    mocks: Vec<Mock>,
    /// Logs emitted since `recordLogs()` (`None`: not recording).
    logs: Option<Vec<Log>>,
    /// Since `record()` (`None`: not recording).
    pub(crate) accesses: Option<Box<Accesses>>,
    /// `expectEmit` and `expectCall`.
    pub(super) observed: super::observe::Observed,
}

impl Expectations {
    /// The calls mocked here, and nothing else (what `setUp` leaves for
    /// every sequence: forge's mocks last for the whole campaign).
    pub(crate) fn mocks_only(&self) -> Self {
        Expectations {
            mocks: self.mocks.clone(),
            ..Default::default()
        }
    }

    /// A transaction starts: an `expectRevert` left over from the last one
    /// (its caller made no call after it) applies to nothing.
    pub(crate) fn new_transaction(&mut self) {
        self.revert = None;
        self.no_revert = None;
        self.observed = Default::default();
    }

    pub(super) fn expect_revert(
        &mut self,
        depth: usize,
        data: Option<Bytes>,
        partial: bool,
    ) -> Result<(), String> {
        if self.revert.is_some() {
            return Err(
                "vm.expectRevert: you must call another function prior to expecting a second revert"
                    .into(),
            );
        }
        self.revert = Some(ExpectedRevert {
            depth,
            data,
            partial,
            frame: None,
            caller_frame: None,
        });
        Ok(())
    }

    /// `assumeNoRevert()` from `depth`: the next call from there must not
    /// revert, or the transaction is an input `assume` rejected.
    pub(super) fn assume_no_revert(&mut self, depth: usize) {
        self.no_revert = Some((depth, None));
    }

    /// A cheatcode called from frame `caller_frame` returned: a revert it
    /// just asked for belongs to that frame.
    pub(crate) fn arm(&mut self, caller_frame: usize) {
        if let Some(e) = &mut self.revert
            && e.frame.is_none()
            && e.caller_frame.is_none()
        {
            e.caller_frame = Some(caller_frame);
        }
    }

    /// A hash of the mocked calls (0 when there are none): a check that
    /// read the same state under the same mocks answers the same.
    pub(crate) fn mocks_hash(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        if self.mocks.is_empty() {
            return 0;
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for m in &self.mocks {
            (m.callee, &m.data, m.value, &m.response, &m.more, m.reverts).hash(&mut h);
        }
        h.finish() | 1
    }

    pub(super) fn mock(&mut self, ctx: &mut Ctx, m: MockArgs) -> Result<(), String> {
        // A mocked address without code gets one byte of it, so that
        // Solidity's extcodesize check before a call passes (as in forge).
        let empty = ctx
            .journaled_state
            .load_account(m.callee)
            .map_err(|e| format!("state access failed: {e:?}"))?
            .data
            .info
            .code_hash
            == revm::primitives::KECCAK_EMPTY;
        if empty {
            ctx.journaled_state
                .set_code(m.callee, Bytecode::new_raw(Bytes::from_static(&[0])));
        }
        self.mocks
            .retain(|x| !(x.callee == m.callee && x.data == m.data && x.value == m.value));
        // Longest prefix first; of equal ones, one with a value first (as
        // forge orders them).
        let at = self
            .mocks
            .iter()
            .position(|x| {
                x.data.len() < m.data.len()
                    || (x.data.len() == m.data.len() && x.value.is_none() && m.value.is_some())
            })
            .unwrap_or(self.mocks.len());
        self.mocks.insert(
            at,
            Mock {
                callee: m.callee,
                data: m.data,
                value: m.value,
                response: m.response,
                more: m.more,
                reverts: m.reverts,
            },
        );
        Ok(())
    }

    pub(super) fn clear_mocks(&mut self) {
        self.mocks.clear();
    }

    pub(super) fn record_logs(&mut self) {
        self.logs = Some(Vec::new());
    }

    /// The logs recorded since the last time they were taken (recording
    /// goes on), as `Vm.Log[]`.
    pub(super) fn take_logs(&mut self) -> DynSolValue {
        let logs = self.logs.replace(Vec::new()).unwrap_or_default();
        DynSolValue::Array(
            logs.into_iter()
                .map(|l| {
                    let topics = l
                        .topics()
                        .iter()
                        .map(|t| DynSolValue::FixedBytes(*t, 32))
                        .collect();
                    DynSolValue::Tuple(vec![
                        DynSolValue::Array(topics),
                        DynSolValue::Bytes(l.data.data.to_vec()),
                        DynSolValue::Address(l.address),
                    ])
                })
                .collect(),
        )
    }

    pub(super) fn record(&mut self) {
        self.accesses = Some(Box::default());
    }

    /// `accesses(who)`: the slots `who` read and wrote since `record()`.
    pub(super) fn accesses_of(&self, who: Address) -> Vec<DynSolValue> {
        let words = |v: &[B256]| {
            DynSolValue::Array(v.iter().map(|w| DynSolValue::FixedBytes(*w, 32)).collect())
        };
        let (r, w) = self
            .accesses
            .as_ref()
            .and_then(|a| a.get(&who))
            .map_or((&[][..], &[][..]), |(r, w)| (r.as_slice(), w.as_slice()));
        vec![words(r), words(w)]
    }

    /// An emitted log (kept while recording).
    pub(crate) fn on_log(&mut self, log: &Log) {
        if let Some(logs) = &mut self.logs {
            logs.push(log.clone());
        }
        if !self.observed.is_empty() {
            self.observed.on_log(log);
        }
    }

    /// A call or creation starts in frame `frame` at `depth`: a pending
    /// `expectRevert` of that depth applies to it.
    pub(crate) fn claim(&mut self, depth: usize, frame: usize) {
        if let Some(e) = &mut self.revert
            && e.frame.is_none()
            && depth <= e.depth
        {
            e.frame = Some(frame);
        }
        if let Some((asked, f @ None)) = &mut self.no_revert
            && depth <= *asked
        {
            *f = Some(frame);
        }
    }

    /// A call starts in frame `frame` at `depth`: claims it for a pending
    /// `expectRevert`, and answers it when a mock matches.
    pub(crate) fn on_call(
        &mut self,
        ctx: &mut Ctx,
        inputs: &CallInputs,
        depth: usize,
        frame: usize,
    ) -> Option<CallOutcome> {
        self.claim(depth, frame);
        if self.mocks.is_empty() && self.observed.is_empty() {
            return None;
        }
        let data = inputs.input.bytes(ctx);
        let value = inputs.call_value();
        if !self.observed.is_empty() {
            self.observed
                .on_call(inputs.bytecode_address, &data, inputs.transfer_value());
        }
        let m = self.mocks.iter_mut().find(|m| {
            m.callee == inputs.bytecode_address
                && data.starts_with(&m.data)
                && m.value.is_none_or(|v| v == value)
        })?;
        let result = if m.reverts {
            InstructionResult::Revert
        } else {
            InstructionResult::Return
        };
        let response = match m.more.pop_front() {
            Some(next) => std::mem::replace(&mut m.response, next),
            None => m.response.clone(),
        };
        Some(CallOutcome::new(
            InterpreterResult::new(result, response, Gas::new(inputs.gas_limit)),
            inputs.return_memory_offset.clone(),
        ))
    }

    /// The call of frame `frame`, made from `depth`, ended with `outcome`:
    /// if `expectRevert` applies to it, a revert as expected becomes a
    /// success and anything else a revert saying what was expected; logs
    /// `expectEmit` declared at `depth`, and at the transaction's end the
    /// calls `expectCall` expects, must have been seen.
    pub(crate) fn on_call_end(
        &mut self,
        frame: usize,
        depth: usize,
        inputs: &CallInputs,
        outcome: &mut CallOutcome,
    ) {
        self.settle(frame, &mut outcome.result);
        // A cheatcode's (or the console's) own answer settles nothing.
        let callee = inputs.bytecode_address;
        if !self.observed.is_empty() && callee != CHEATCODE_ADDRESS && callee != CONSOLE_ADDRESS {
            self.observed
                .on_call_end(depth, inputs.is_static, &mut outcome.result);
        }
    }

    /// The creation of frame `frame` ended: as [`on_call_end`]; a creation
    /// that reverted as expected answers address `0x…01` (as forge's).
    ///
    /// [`on_call_end`]: Self::on_call_end
    pub(crate) fn on_create_end(&mut self, frame: usize, outcome: &mut CreateOutcome) {
        if self.settle(frame, &mut outcome.result) == Some(true) {
            outcome.address = Some(Address::with_last_byte(1));
        }
    }

    /// Settles the pending expectation when frame `frame` is the one it
    /// applies to (`Some(true)`: reverted as expected, now a success), or
    /// the one that asked, ending without a call (now a revert).
    fn settle(&mut self, frame: usize, result: &mut InterpreterResult) -> Option<bool> {
        if let Some((_, Some(f))) = self.no_revert
            && f == frame
        {
            self.no_revert = None;
            if !result.result.is_ok() {
                result.result = InstructionResult::Revert;
                result.output = revert_data(super::ASSUME_REJECTED);
            }
        }
        let e = self.revert.as_ref()?;
        if e.frame.is_none() && e.caller_frame == Some(frame) {
            self.revert = None;
            if result.result.is_ok() {
                result.result = InstructionResult::Revert;
                result.output =
                    revert_data("call didn't revert at a lower depth than cheatcode call depth");
            }
            return Some(false);
        }
        if e.frame != Some(frame) {
            return None;
        }
        let (expected, partial) = self
            .revert
            .take()
            .map_or((None, false), |e| (e.data, e.partial));
        let failure = if result.result.is_ok() {
            Some("next call did not revert as expected".to_string())
        } else {
            match &expected {
                None => None,
                Some(want) if revert_matches(&result.output, want) => None,
                Some(want) if partial && result.output.starts_with(want) => None,
                Some(_) if result.output.is_empty() => {
                    Some("call reverted as expected, but without data".to_string())
                }
                Some(want) => Some(format!(
                    "Error != expected error: {} != {}",
                    show_revert(&result.output),
                    show_revert(want)
                )),
            }
        };
        match failure {
            None => {
                result.result = InstructionResult::Return;
                result.output = Bytes::from(vec![0u8; EXPECTED_REVERT_OUTPUT]);
                Some(true)
            }
            Some(message) => {
                result.result = InstructionResult::Revert;
                result.output = revert_data(&message);
                Some(false)
            }
        }
    }
}

/// The arguments of a `mockCall` / `mockCallRevert`.
pub(super) struct MockArgs {
    pub callee: Address,
    pub value: Option<U256>,
    pub data: Bytes,
    pub response: Bytes,
    pub more: std::collections::VecDeque<Bytes>,
    pub reverts: bool,
}

/// The message of an `Error(string)` revert, if `data` is one.
fn error_string(data: &[u8]) -> Option<String> {
    if data.len() < 4 || data[..4] != [0x08, 0xc3, 0x79, 0xa0] {
        return None;
    }
    match alloy_dyn_abi::DynSolType::String.abi_decode(&data[4..]) {
        Ok(DynSolValue::String(s)) => Some(s),
        _ => None,
    }
}

/// Whether revert data `got` is what `want` expects: the same bytes, or an
/// `Error(string)` whose message is `want`'s bytes (`expectRevert("msg")`).
fn revert_matches(got: &[u8], want: &[u8]) -> bool {
    got == want
        || error_string(got).is_some_and(|m| m.as_bytes() == want)
        || error_string(want).is_some_and(|m| error_string(got).as_deref() == Some(&m))
}

/// Revert data as forge shows it: an `Error(string)`'s message, text as
/// text, anything else in hex.
pub(super) fn show_revert(data: &[u8]) -> String {
    error_string(data)
        .or_else(|| {
            std::str::from_utf8(data)
                .ok()
                .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_graphic() || c == ' '))
                .map(str::to_string)
        })
        .unwrap_or_else(|| format!("0x{}", hex::encode(data)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revert_data_matches_as_forge_matches_it() {
        let err = revert_data("insufficient");
        assert!(revert_matches(&err, b"insufficient"));
        assert!(revert_matches(&err, &err));
        assert!(!revert_matches(&err, b"other"));
        // A custom error without arguments: its selector, exactly.
        let custom = [0xde, 0xad, 0xbe, 0xef];
        assert!(revert_matches(&custom, &custom));
        assert!(!revert_matches(&[0xde, 0xad, 0xbe, 0xef, 0, 1], &custom));
        assert_eq!(show_revert(&err), "insufficient");
        assert_eq!(show_revert(&custom), "0xdeadbeef");
    }
}
