//! The shared corpus: call sequences that reached new coverage (and injected
//! or replayed ones), appended by workers and read by tools.
//!
//! Append-only over an [`AppendVec`], so entry ids are stable and readers
//! never lock. The campaign tools see the corpus as a flat list of
//! transactions: entry 0's calls, then entry 1's, and so on. Each entry
//! records the flat index of its first call, so paging by transaction index is
//! a binary search.

use crate::appendvec::AppendVec;
use crate::eventlog::now_ms;
use crate::ids::{EntryId, WorkerId};
use crate::tx::Tx;
use alloy_primitives::{Address, U256};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Where a corpus entry came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Origin {
    /// Generated at random by a worker.
    Random,
    /// A mutation of an earlier entry.
    Mutation,
    /// Injected through the control plane.
    Injected,
    /// Reloaded from the corpus directory.
    Replayed,
}

impl Origin {
    pub const COUNT: usize = 4;
    pub const ALL: [Origin; Origin::COUNT] = [
        Origin::Random,
        Origin::Mutation,
        Origin::Injected,
        Origin::Replayed,
    ];

    /// Dense index (counters per origin).
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn from_index(i: usize) -> Option<Origin> {
        Origin::ALL.get(i).copied()
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Random => "random",
            Origin::Mutation => "mutation",
            Origin::Injected => "injected",
            Origin::Replayed => "replayed",
        }
    }
}

/// One call sequence and what it achieved.
#[derive(Clone, Debug)]
pub struct CorpusEntry {
    pub id: EntryId,
    pub inserted_ms: u64,
    /// The worker that found it; `None` for entries reloaded from disk.
    pub worker: Option<WorkerId>,
    pub origin: Origin,
    /// Coverage points nobody had reached before this sequence.
    pub new_points: u32,
    pub txs: Vec<Tx>,
    /// Gas used by each call, as executed when the entry was found.
    pub gas_used: Vec<u64>,
    /// Flat transaction index of `txs[0]`.
    pub first_tx: u64,
}

/// One transaction of the corpus, as the tools list them.
#[derive(Clone, Debug)]
pub struct TxRef {
    /// Flat index in the corpus.
    pub index: u64,
    pub entry: Arc<CorpusEntry>,
    /// Position in `entry.txs`.
    pub position: usize,
}

impl TxRef {
    pub fn tx(&self) -> &Tx {
        &self.entry.txs[self.position]
    }

    pub fn gas_used(&self) -> Option<u64> {
        self.entry.gas_used.get(self.position).copied()
    }
}

/// What [`Corpus::find`] matches; every given criterion must hold.
#[derive(Clone, Debug, Default)]
pub struct TxQuery {
    /// Canonical signature, `transfer(address,uint256)`.
    pub signature: Option<String>,
    pub sender: Option<Address>,
    pub min_value: Option<U256>,
    /// A top-level argument printed exactly like this (`42`, `true`, an address).
    pub argument: Option<String>,
}

impl TxQuery {
    fn matches(&self, tx: &Tx) -> bool {
        self.signature
            .as_ref()
            .is_none_or(|s| *s == tx.function.signature())
            && self.sender.is_none_or(|s| s == tx.sender)
            && self.min_value.is_none_or(|v| tx.value >= v)
            && self.argument.as_ref().is_none_or(|want| {
                let want = want.trim();
                tx.args.iter().any(|a| {
                    let mut s = String::new();
                    crate::tx::write_value(&mut s, a);
                    s.eq_ignore_ascii_case(want)
                })
            })
    }
}

#[derive(Default)]
pub struct Corpus {
    entries: AppendVec<Arc<CorpusEntry>>,
    tx_count: AtomicU64,
}

impl std::fmt::Debug for Corpus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Corpus")
            .field("entries", &self.len())
            .field("txs", &self.tx_count())
            .finish()
    }
}

/// Drops from a sequence about to become a corpus entry the calls `inert`
/// marks (each left the EVM state as it was: it reverted, or wrote nothing),
/// except the last call, and carries each dropped call's delay to the next
/// kept one, so every kept call runs at the same time and block, on the
/// same state, as before. `gas` stays in step with `txs`; returns the
/// indices of the calls kept (for what else is in step with them).
///
/// A random sequence that reached a new state is mostly calls that did
/// nothing (guards that did not hold); kept whole it fills the sequence
/// length, and no mutation of it can append the call that goes on from the
/// state it reached (AFL trims its queue entries for the same reason).
pub fn compact(txs: &mut Vec<Tx>, gas: &mut Vec<u64>, inert: &[bool]) -> Vec<usize> {
    let n = txs.len();
    let mut at = Vec::with_capacity(n);
    let mut carry = crate::tx::Delay::NONE;
    let mut kept = Vec::with_capacity(n);
    let mut kept_gas = Vec::with_capacity(n);
    for (i, mut tx) in std::mem::take(txs).into_iter().enumerate() {
        tx.delay.seconds = tx.delay.seconds.saturating_add(carry.seconds);
        tx.delay.blocks = tx.delay.blocks.saturating_add(carry.blocks);
        if inert.get(i).copied().unwrap_or(false) && i + 1 < n {
            carry = tx.delay;
            continue;
        }
        carry = crate::tx::Delay::NONE;
        kept_gas.extend(gas.get(i).copied());
        kept.push(tx);
        at.push(i);
    }
    *txs = kept;
    *gas = kept_gas;
    at
}

impl Corpus {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a sequence; returns the new entry.
    pub fn add(
        &self,
        worker: Option<WorkerId>,
        origin: Origin,
        new_points: u32,
        txs: Vec<Tx>,
        gas_used: Vec<u64>,
    ) -> Arc<CorpusEntry> {
        let n = txs.len() as u64;
        let mut added = None;
        self.entries.push_with(|i| {
            let first_tx = self
                .entries
                .last()
                .map_or(0, |e| e.first_tx + e.txs.len() as u64);
            let e = Arc::new(CorpusEntry {
                id: EntryId(i as u64),
                inserted_ms: now_ms(),
                worker,
                origin,
                new_points,
                txs,
                gas_used,
                first_tx,
            });
            added = Some(e.clone());
            e
        });
        self.tx_count.fetch_add(n, Ordering::Release);
        added.expect("push_with runs its closure")
    }

    /// Number of sequences.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Number of transactions over all sequences (the corpus size the campaign tools report).
    /// May briefly lag [`len`](Self::len) while an entry is being added.
    pub fn tx_count(&self) -> u64 {
        self.tx_count.load(Ordering::Acquire)
    }

    pub fn get(&self, id: EntryId) -> Option<Arc<CorpusEntry>> {
        self.entries.get(id.0 as usize).cloned()
    }

    /// The entries published when called, in id order.
    pub fn entries(&self) -> impl DoubleEndedIterator<Item = &Arc<CorpusEntry>> + '_ {
        self.entries.iter()
    }

    /// Transactions `offset..offset + limit` in flat index order.
    pub fn tx_page(&self, offset: u64, limit: usize) -> Vec<TxRef> {
        let n = self.entries.len();
        // First entry whose range ends after `offset`.
        let (mut lo, mut hi) = (0usize, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let e = self.entries.get(mid).expect("published");
            if e.first_tx + (e.txs.len() as u64) <= offset {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let mut out = Vec::with_capacity(limit.min(1024));
        for i in lo..n {
            let e = self.entries.get(i).expect("published");
            for pos in 0..e.txs.len() {
                let index = e.first_tx + pos as u64;
                if index < offset {
                    continue;
                }
                if out.len() == limit {
                    return out;
                }
                out.push(TxRef {
                    index,
                    entry: e.clone(),
                    position: pos,
                });
            }
        }
        out
    }

    /// Every transaction that matches `query`, in corpus scan order, at most `limit`.
    pub fn find(&self, query: &TxQuery, limit: usize) -> Vec<TxRef> {
        let mut out = Vec::new();
        for e in self.entries.iter() {
            for (pos, tx) in e.txs.iter().enumerate() {
                if out.len() == limit {
                    return out;
                }
                if query.matches(tx) {
                    out.push(TxRef {
                        index: e.first_tx + pos as u64,
                        entry: e.clone(),
                        position: pos,
                    });
                }
            }
        }
        out
    }

    /// Number of transactions that match `query`.
    pub fn count_matches(&self, query: &TxQuery) -> u64 {
        self.entries
            .iter()
            .map(|e| e.txs.iter().filter(|t| query.matches(t)).count() as u64)
            .sum()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::tx::Delay;
    use alloy_dyn_abi::DynSolValue;
    use alloy_json_abi::Function;

    pub(crate) fn tx(sig: &str, args: Vec<DynSolValue>, sender: u64, value: u64) -> Tx {
        Tx {
            function: Arc::new(Function::parse(sig).unwrap()),
            args,
            sender: Address::left_padding_from(&sender.to_be_bytes()),
            value: U256::from(value),
            delay: Delay::NONE,
            gas_price: 0,
            to: None,
        }
    }

    fn u(v: u64) -> DynSolValue {
        DynSolValue::Uint(U256::from(v), 256)
    }

    fn sample() -> Corpus {
        let c = Corpus::new();
        c.add(
            Some(WorkerId(0)),
            Origin::Random,
            5,
            vec![
                tx("set(uint256)", vec![u(7)], 0x10000, 0),
                tx("go()", vec![], 0x20000, 0),
            ],
            vec![100, 200],
        );
        c.add(
            Some(WorkerId(1)),
            Origin::Injected,
            1,
            vec![tx("set(uint256)", vec![u(42)], 0x30000, 5)],
            vec![300],
        );
        c.add(
            None,
            Origin::Replayed,
            0,
            vec![
                tx("go()", vec![], 0x10000, 0),
                tx("go()", vec![], 0x10000, 1),
                tx("set(uint256)", vec![u(1)], 0x10000, 0),
            ],
            vec![1, 2, 3],
        );
        c
    }

    #[test]
    fn compacting_drops_inert_calls_but_the_last_and_carries_their_delays() {
        let mut txs: Vec<Tx> = (0..5).map(|i| tx("f(uint256)", vec![u(i)], 1, 0)).collect();
        for (i, t) in txs.iter_mut().enumerate() {
            t.delay = crate::tx::Delay {
                seconds: 10 * i as u64,
                blocks: i as u64,
            };
        }
        let mut gas = vec![100, 101, 102, 103, 104];
        // Calls 0, 2 and 3 did nothing; 4 is inert too but last.
        let at = compact(&mut txs, &mut gas, &[true, false, true, true, true]);
        assert_eq!(at, vec![1, 4]);
        let args: Vec<_> = txs.iter().map(|t| t.args[0].clone()).collect();
        assert_eq!(args, vec![u(1), u(4)]);
        assert_eq!(gas, vec![101, 104]);
        // Call 1 runs after 0's delay and its own; 4 after 2's, 3's and
        // its own: the same time and block as before.
        assert_eq!((txs[0].delay.seconds, txs[0].delay.blocks), (10, 1));
        assert_eq!((txs[1].delay.seconds, txs[1].delay.blocks), (90, 9));
        // Nothing inert, or nothing at all: unchanged.
        let mut one = vec![tx("f(uint256)", vec![u(7)], 1, 0)];
        let mut g = vec![5];
        compact(&mut one, &mut g, &[false]);
        assert_eq!((one.len(), g), (1, vec![5]));
        let (mut none, mut g): (Vec<Tx>, Vec<u64>) = (Vec::new(), Vec::new());
        compact(&mut none, &mut g, &[]);
        assert!(none.is_empty() && g.is_empty());
    }

    #[test]
    fn counts_entries_and_flat_transactions() {
        let c = sample();
        assert_eq!(c.len(), 3);
        assert_eq!(c.tx_count(), 6);
        let ids: Vec<_> = c.entries().map(|e| (e.id.0, e.first_tx)).collect();
        assert_eq!(ids, vec![(0, 0), (1, 2), (2, 3)]);
    }

    #[test]
    fn pages_in_index_order_across_entries() {
        let c = sample();
        let page: Vec<_> = c.tx_page(1, 3).iter().map(|t| t.index).collect();
        assert_eq!(page, vec![1, 2, 3]);
        let page = c.tx_page(4, 10);
        assert_eq!(page.iter().map(|t| t.index).collect::<Vec<_>>(), vec![4, 5]);
        assert_eq!(page[0].tx().value, U256::from(1));
        assert_eq!(page[1].gas_used(), Some(3));
        assert!(c.tx_page(6, 10).is_empty());
        assert!(c.tx_page(100, 10).is_empty());
        assert_eq!(c.tx_page(0, 100).len(), 6);
    }

    #[test]
    fn finds_by_signature_sender_value_and_argument() {
        let c = sample();
        let by_sig = TxQuery {
            signature: Some("set(uint256)".into()),
            ..Default::default()
        };
        let idx: Vec<_> = c.find(&by_sig, 100).iter().map(|t| t.index).collect();
        assert_eq!(idx, vec![0, 2, 5]);
        assert_eq!(c.count_matches(&by_sig), 3);
        let by_sender = TxQuery {
            sender: Some(Address::left_padding_from(&0x30000u64.to_be_bytes())),
            ..Default::default()
        };
        assert_eq!(c.find(&by_sender, 100)[0].index, 2);
        let by_value = TxQuery {
            min_value: Some(U256::from(1)),
            ..Default::default()
        };
        let idx: Vec<_> = c.find(&by_value, 100).iter().map(|t| t.index).collect();
        assert_eq!(idx, vec![2, 4]);
        let by_arg = TxQuery {
            signature: Some("set(uint256)".into()),
            argument: Some("42".into()),
            ..Default::default()
        };
        assert_eq!(c.find(&by_arg, 100).len(), 1);
        assert_eq!(c.find(&TxQuery::default(), 2).len(), 2);
    }
}
