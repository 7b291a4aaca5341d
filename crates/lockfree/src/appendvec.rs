//! An append-only vector whose readers never lock: the backing store of the
//! corpus, the tests store and the note store.
//!
//! Elements live in segments of doubling size (32, 64, 128, …), each allocated
//! once and never moved, so a reader can hold `&T` while writers append. A
//! writer fills slot `len` and then publishes `len + 1` with release ordering;
//! a reader loads `len` with acquire ordering and sees every slot below it.
//! Writers serialise on a mutex that readers never touch. There is no
//! `unsafe`: slots are `OnceLock`s.

use parking_lot::Mutex;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

const BASE_SHIFT: u32 = 5;
const BASE: usize = 1 << BASE_SHIFT;
const SEGMENTS: usize = 40;

pub struct AppendVec<T> {
    segments: [OnceLock<Box<[OnceLock<T>]>>; SEGMENTS],
    len: AtomicUsize,
    writer: Mutex<()>,
}

impl<T> Default for AppendVec<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for AppendVec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// (segment, offset in segment) of element `i`.
fn locate(i: usize) -> (usize, usize) {
    let block = i / BASE + 1;
    let seg = (usize::BITS - 1 - block.leading_zeros()) as usize;
    let start = BASE * ((1 << seg) - 1);
    (seg, i - start)
}

impl<T> AppendVec<T> {
    pub fn new() -> Self {
        AppendVec {
            segments: std::array::from_fn(|_| OnceLock::new()),
            len: AtomicUsize::new(0),
            writer: Mutex::new(()),
        }
    }

    /// Number of published elements.
    pub fn len(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends the value `make(index)` and returns its index. `make` runs under
    /// the writers' lock, so it sees every earlier element published.
    pub fn push_with(&self, make: impl FnOnce(usize) -> T) -> usize {
        let _guard = self.writer.lock();
        let i = self.len.load(Ordering::Relaxed);
        let (seg, off) = locate(i);
        let segment = self.segments[seg].get_or_init(|| {
            (0..(BASE << seg))
                .map(|_| OnceLock::new())
                .collect::<Vec<_>>()
                .into_boxed_slice()
        });
        if segment[off].set(make(i)).is_err() {
            unreachable!("slot {i} filled twice under the writers' lock");
        }
        self.len.store(i + 1, Ordering::Release);
        i
    }

    pub fn push(&self, value: T) -> usize {
        self.push_with(|_| value)
    }

    /// The element at `i`, if published.
    pub fn get(&self, i: usize) -> Option<&T> {
        if i >= self.len() {
            return None;
        }
        let (seg, off) = locate(i);
        self.segments[seg].get()?.get(off)?.get()
    }

    /// The last published element.
    pub fn last(&self) -> Option<&T> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// Iterates the elements published when the call was made, in index order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + '_ {
        (0..self.len()).filter_map(move |i| self.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn locate_covers_indices_without_gaps() {
        let mut expected = (0usize, 0usize);
        for i in 0..10_000 {
            let got = locate(i);
            assert_eq!(got, expected, "index {i}");
            expected.1 += 1;
            if expected.1 == BASE << expected.0 {
                expected = (expected.0 + 1, 0);
            }
        }
    }

    #[test]
    fn concurrent_appends_and_reads_see_a_consistent_prefix() {
        // Miri interprets every access: fewer pushes, still several segments.
        let (pushes, reads) = if cfg!(miri) {
            (200u64, 5)
        } else {
            (5_000, 200)
        };
        let v = Arc::new(AppendVec::new());
        let writers: Vec<_> = (0..2)
            .map(|w| {
                let v = v.clone();
                std::thread::spawn(move || {
                    for i in 0..pushes {
                        v.push_with(|idx| (idx, w * 1_000_000 + i));
                    }
                })
            })
            .collect();
        let reader = {
            let v = v.clone();
            std::thread::spawn(move || {
                for _ in 0..reads {
                    let n = v.len();
                    for i in 0..n {
                        assert_eq!(v.get(i).unwrap().0, i);
                    }
                }
            })
        };
        for w in writers {
            w.join().unwrap();
        }
        reader.join().unwrap();
        let total = 2 * pushes as usize;
        assert_eq!(v.len(), total);
        assert_eq!(v.iter().count(), total);
        assert!(v.get(total).is_none());
    }
}
