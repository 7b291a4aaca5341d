//! A lock-free ring of the most recent events, written by many threads
//! without ever waiting and read as a consistent, newest-first snapshot. It
//! knows nothing of what an event means: an [`Entry`] is `WORDS` 64-bit words
//! and a sequence number the ring assigns.
//!
//! # Design
//!
//! **Lanes.** The ring is a set of *lanes*, each a single-writer seqlock ring
//! of `capacity` one-cache-line slots. A push claims a lane with one `swap` on
//! the lane's flag (its home lane is `home % lanes`; if another thread holds
//! it, the next free lane), takes the event's global sequence number from a
//! shared ticket (`fetch_add`), writes the slot and publishes the lane's new
//! head. Two producers therefore never write the same cache line: an earlier
//! design with one shared ring whose slots alternated between producers
//! measured 8 M pushes/s with two producers against 50+ M for lanes (rudder's
//! BENCHMARKS.md). If every lane is held (more concurrent pushers than lanes)
//! the push gives up and is counted in [`Ring::dropped`]: a push never waits
//! and never allocates.
//!
//! **Slots.** A slot is a 64-bit `stamp`, the sequence number and [`WORDS`]
//! 64-bit words, all atomics. The stamp is `(i + 1) << 1` for the lane's
//! `i`-th event, with the low bit set while the writer fills the slot. Writer:
//! store the busy stamp, release fence, store the words (relaxed), store the
//! idle stamp (release). Reader: load the stamp (acquire), copy the words with
//! relaxed atomic loads (never a `ptr::read` of memory another thread may be
//! writing), acquire fence, reload the stamp; the copy is kept only if both
//! loads saw `idle(i)`. Stamps are 64-bit lane positions, so a slot never
//! comes back to a stamp a reader saw a lap ago (no ABA; 2^62 pushes at 10^9/s
//! is 146 years).
//!
//! **The `capacity` newest.** The ring holds the `capacity` events with the
//! highest sequence numbers: each lane keeps at least its own newest
//! `capacity` (rounded up to a power of two, so that finding a slot is a
//! mask), which contain the global newest `capacity`, and readers drop
//! anything older than `newest - capacity`. Memory is 64 bytes per slot.
//!
//! **Readers.** A reader never makes a writer wait and never sees a torn
//! event. Readers share a view: the events already read, decoded, in sequence
//! order, kept as immutable chunks of 64 behind `Arc`s. Taking a snapshot
//! reads only the slots published since the previous one, appends them,
//! forgets what fell out of the window and hands out a [`Snapshot`] that
//! shares the chunks: its cost follows the events pushed since the last
//! snapshot, not the capacity. An event whose writer took its sequence number
//! before a newer event was published elsewhere is merged into place when it
//! appears. The view sits behind a mutex that only readers take; a reader that
//! finds it held builds a private view from the lanes instead of waiting.

use crate::sync::{AtomicBool, AtomicU64, Mutex, Ordering, fence};
use crossbeam_utils::CachePadded;
use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;

/// Words an [`Entry`] is stored as, besides its sequence number (a slot is
/// the stamp, the sequence number and these: one 64-byte cache line).
pub const WORDS: usize = 6;
/// Events per shared chunk of a view.
const CHUNK: usize = 64;

/// What the ring stores: a `Copy` value that is [`WORDS`] words and the
/// sequence number the ring gave it. Decoding must accept whatever its own
/// encoding produced; it may refuse anything else (the event is then skipped).
pub trait Entry: Copy + Send + Sync + 'static {
    /// The sequence number the ring assigned when the event was pushed.
    fn seq(&self) -> u64;
    /// Everything but the sequence number.
    fn encode(&self) -> [u64; WORDS];
    /// The event pushed as `words` with sequence number `seq`.
    fn decode(seq: u64, words: &[u64; WORDS]) -> Option<Self>;
}

/// Which events a reader keeps: those after a sequence number, and those a
/// predicate accepts.
pub trait Select<E> {
    /// Only events with a sequence number strictly greater than this.
    fn after(&self) -> Option<u64>;
    /// Whether `e` is kept (its sequence number aside).
    fn keeps(&self, e: &E) -> bool;
    /// Whether [`keeps`](Self::keeps) accepts every event (a faster copy).
    fn keeps_every(&self) -> bool;
}

/// Every event.
#[derive(Clone, Copy, Debug, Default)]
pub struct All;

impl<E> Select<E> for All {
    fn after(&self) -> Option<u64> {
        None
    }
    fn keeps(&self, _: &E) -> bool {
        true
    }
    fn keeps_every(&self) -> bool {
        true
    }
}

#[cfg_attr(not(feature = "loom"), repr(align(64)))]
struct Slot {
    stamp: AtomicU64,
    seq: AtomicU64,
    words: [AtomicU64; WORDS],
}

impl Slot {
    fn new() -> Self {
        Slot {
            stamp: AtomicU64::new(0),
            seq: AtomicU64::new(0),
            words: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

/// The stamp of a lane's `i`-th event once written (the busy stamp adds 1).
const fn idle(i: u64) -> u64 {
    (i + 1) << 1
}

/// One single-writer ring. The writer is whoever holds `claimed`.
struct Lane {
    /// Set while a pusher owns the lane.
    claimed: CachePadded<AtomicBool>,
    /// How many events the lane has published; the next one goes to slot
    /// `published & mask`. Written only by the lane's owner.
    published: CachePadded<AtomicU64>,
    slots: Box<[Slot]>,
}

/// The ring. Cheap to share behind an `Arc`; every method takes `&self`.
pub struct Ring<E: Entry> {
    /// The next global sequence number.
    ticket: CachePadded<AtomicU64>,
    dropped: CachePadded<AtomicU64>,
    lanes: Box<[Lane]>,
    capacity: usize,
    /// Each lane has `mask + 1` slots: `capacity` rounded up to a power of two.
    mask: u64,
    /// The readers' shared view; writers never touch it.
    view: Mutex<View<E>>,
}

impl<E: Entry> std::fmt::Debug for Ring<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ring")
            .field("capacity", &self.capacity())
            .field("lanes", &self.lanes.len())
            .field("pushed", &self.pushed())
            .finish()
    }
}

impl<E: Entry> Ring<E> {
    /// A ring of `capacity` events (at least 1) with one lane per available
    /// core plus two (at least four), for threads that push concurrently.
    pub fn new(capacity: usize) -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Self::with_lanes(capacity, (cores + 2).max(4))
    }

    /// A ring of `capacity` events (at least 1) and `lanes` lanes (at least 1):
    /// up to `lanes` threads push without ever finding every lane taken. Give
    /// a campaign one lane per worker plus one or two for its other threads.
    pub fn with_lanes(capacity: usize, lanes: usize) -> Self {
        let capacity = capacity.max(1);
        // A power of two, so that a position's slot is a mask, not a division.
        let lane_slots = capacity.next_power_of_two();
        Ring {
            ticket: CachePadded::new(AtomicU64::new(0)),
            dropped: CachePadded::new(AtomicU64::new(0)),
            lanes: (0..lanes.max(1))
                .map(|_| Lane {
                    claimed: CachePadded::new(AtomicBool::new(false)),
                    published: CachePadded::new(AtomicU64::new(0)),
                    slots: (0..lane_slots).map(|_| Slot::new()).collect(),
                })
                .collect(),
            capacity,
            mask: lane_slots as u64 - 1,
            view: Mutex::new(View::default()),
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many lanes (concurrent pushers that never collide) the log has.
    pub fn lanes(&self) -> usize {
        self.lanes.len()
    }

    /// How many pushes have taken a sequence number so far.
    pub fn pushed(&self) -> u64 {
        self.ticket.load(Ordering::Relaxed)
    }

    /// How many events the log holds: `min(pushed, capacity)`.
    pub fn len(&self) -> usize {
        (self.pushed() as usize).min(self.capacity)
    }

    pub fn is_empty(&self) -> bool {
        self.pushed() == 0
    }

    /// Pushes abandoned because every lane was held by another pusher.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Appends `event` (its own sequence number is ignored: the ring assigns
    /// one) from its home lane `home` (taken modulo the lanes; a producer's
    /// own index keeps producers apart). Never blocks and never allocates;
    /// returns the event's sequence number, or `None` in the (counted) case
    /// where every lane was held by another pusher.
    pub fn push(&self, home: usize, event: &E) -> Option<u64> {
        let Some(lane) = self.claim(home) else {
            self.dropped.fetch_add(1, Ordering::Relaxed);
            return None;
        };
        // Taken while owning the lane, so a lane's sequence numbers rise with
        // its positions.
        let seq = self.ticket.fetch_add(1, Ordering::Relaxed);
        self.write(lane, seq, event);
        Some(seq)
    }

    /// Claims lane `home` (modulo the lanes), or the next free one.
    fn claim(&self, home: usize) -> Option<&Lane> {
        let n = self.lanes.len();
        let home = home % n;
        (home..n)
            .chain(0..home)
            .map(|l| &self.lanes[l])
            .find(|lane| !lane.claimed.swap(true, Ordering::Acquire))
    }

    /// Writes event `seq` at the claimed lane's next position, publishes it
    /// and releases the lane.
    fn write(&self, lane: &Lane, seq: u64, event: &E) {
        let words = event.encode();
        let i = lane.published.load(Ordering::Relaxed);
        let slot = &lane.slots[(i & self.mask) as usize];
        slot.stamp.store(idle(i) | 1, Ordering::Relaxed);
        // Orders the busy stamp before the word stores for any reader that
        // sees one of the new words (it then re-reads a busy or newer stamp).
        fence(Ordering::Release);
        slot.seq.store(seq, Ordering::Relaxed);
        for (w, v) in slot.words.iter().zip(words) {
            w.store(v, Ordering::Relaxed);
        }
        slot.stamp.store(idle(i), Ordering::Release);
        lane.published.store(i + 1, Ordering::Release);
        lane.claimed.store(false, Ordering::Release);
    }

    /// Reads lane `lane`'s `i`-th event if no writer has rewritten (or is
    /// rewriting) its slot.
    fn read(&self, lane: &Lane, i: u64) -> Option<E> {
        let slot = &lane.slots[(i & self.mask) as usize];
        let want = idle(i);
        if slot.stamp.load(Ordering::Acquire) != want {
            return None;
        }
        let seq = slot.seq.load(Ordering::Relaxed);
        let mut w = [0u64; WORDS];
        for (dst, src) in w.iter_mut().zip(slot.words.iter()) {
            *dst = src.load(Ordering::Relaxed);
        }
        fence(Ordering::Acquire);
        if slot.stamp.load(Ordering::Relaxed) != want {
            return None;
        }
        E::decode(seq, &w)
    }

    /// A consistent snapshot of the newest `capacity` events, shared with
    /// other readers where possible (see the module doc). Never waits for a
    /// writer, nor for another reader.
    pub fn view(&self) -> Snapshot<E> {
        match self.view.try_lock() {
            Ok(mut shared) => shared.refresh(self),
            Err(_) => View::default().refresh(self),
        }
    }

    /// A snapshot of at most `limit` events that pass `filter`, newest first
    /// (by sequence number). Events being rewritten while the snapshot is
    /// taken are left out, never returned torn.
    pub fn snapshot(&self, filter: &impl Select<E>, limit: usize) -> Vec<E> {
        let mut out = Vec::with_capacity(limit.min(self.capacity()));
        self.snapshot_into(filter, limit, &mut out);
        out
    }

    /// [`snapshot`](Self::snapshot) into a caller's buffer (cleared first).
    pub fn snapshot_into(&self, filter: &impl Select<E>, limit: usize, out: &mut Vec<E>) {
        out.clear();
        self.view().copy_into(filter, limit, out);
    }
}

/// How many slots ahead of the one being read a refresh asks the cache for:
/// slots were just written by other cores, so each read is a cache miss, and
/// keeping several in flight is what makes a refresh fast.
const PREFETCH: u64 = 12;

#[inline(always)]
fn prefetch(slot: &Slot) {
    #[cfg(all(target_arch = "x86_64", not(feature = "loom")))]
    // SAFETY: SSE is part of the x86_64 baseline, and a prefetch is a hint
    // that never faults and reads nothing the program sees; `slot` is a live
    // reference anyway.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
            (slot as *const Slot).cast(),
        );
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "loom"))))]
    let _ = slot;
}

/// What readers already know: the events read so far, in sequence order, as
/// immutable shared chunks of [`CHUNK`] (the newest one still open), and how
/// far each lane has been read.
struct View<E> {
    /// Per lane, how many of its events have been read.
    cursors: Vec<u64>,
    sealed: VecDeque<Arc<[E]>>,
    open: Vec<E>,
    /// `sealed` and `open` as last handed out; `None` once changed.
    shared_sealed: Option<Arc<[Arc<[E]>]>>,
    shared_open: Option<Arc<[E]>>,
    /// Events read by the refresh in progress, one run per lane, and merged.
    fresh: Vec<E>,
    runs: Vec<Range<usize>>,
    merged: Vec<E>,
    scratch: Vec<E>,
    /// The last snapshot handed out, reused while nothing changes.
    last: Option<Snapshot<E>>,
}

impl<E> Default for View<E> {
    fn default() -> Self {
        View {
            cursors: Vec::new(),
            sealed: VecDeque::new(),
            open: Vec::new(),
            shared_sealed: None,
            shared_open: None,
            fresh: Vec::new(),
            runs: Vec::new(),
            merged: Vec::new(),
            scratch: Vec::new(),
            last: None,
        }
    }
}

impl<E: Entry> View<E> {
    fn refresh(&mut self, log: &Ring<E>) -> Snapshot<E> {
        let pushed = log.ticket.load(Ordering::Acquire);
        self.cursors.resize(log.lanes.len(), 0);
        self.fresh.clear();
        self.runs.clear();
        let (cap, lane_slots) = (log.capacity as u64, log.mask + 1);
        let window = pushed.saturating_sub(cap);
        for (lane, cursor) in log.lanes.iter().zip(self.cursors.iter_mut()) {
            let published = lane.published.load(Ordering::Acquire);
            let start = self.fresh.len();
            // Newest first, down to what this view has read or what has left
            // the window. A slot that fails to read is being (or has been)
            // rewritten by a later lap, and so are all older ones of the lane.
            let from = (*cursor).max(published.saturating_sub(lane_slots));
            for i in (from..published).rev() {
                if i >= from + PREFETCH {
                    prefetch(&lane.slots[((i - PREFETCH) & log.mask) as usize]);
                }
                match log.read(lane, i) {
                    Some(e) if e.seq() >= window => self.fresh.push(e),
                    _ => break,
                }
            }
            if self.fresh.len() > start {
                self.fresh[start..].reverse();
                self.runs.push(start..self.fresh.len());
            }
            *cursor = published;
        }
        if self.fresh.is_empty()
            && let Some(last) = &self.last
            && last.pushed == pushed
        {
            return last.clone();
        }
        // Each lane's new events are a run in sequence order: merge the runs.
        let (fresh, mut merged) = (
            std::mem::take(&mut self.fresh),
            std::mem::take(&mut self.merged),
        );
        if let [run] = &self.runs[..] {
            self.append(&fresh[run.clone()]);
        } else {
            merge_runs(&fresh, &self.runs, &mut merged, &mut self.scratch);
            self.append(&merged);
        }
        (self.fresh, self.merged) = (fresh, merged);
        let newest = self.newest().map_or(0, |s| s + 1);
        let floor = pushed.max(newest).saturating_sub(cap);
        while self
            .sealed
            .front()
            .is_some_and(|c| c[c.len() - 1].seq() < floor)
        {
            self.sealed.pop_front();
            self.shared_sealed = None;
        }
        if self.sealed.is_empty() && self.open.first().is_some_and(|e| e.seq() < floor) {
            self.open.retain(|e| e.seq() >= floor);
            self.shared_open = None;
        }
        let sealed = self
            .shared_sealed
            .get_or_insert_with(|| self.sealed.iter().cloned().collect())
            .clone();
        let open = self
            .shared_open
            .get_or_insert_with(|| Arc::from(self.open.as_slice()))
            .clone();
        let oldest = sealed.first().unwrap_or(&open);
        let oldest_from = oldest.partition_point(|e| e.seq() < floor);
        let len = sealed.iter().map(|c| c.len()).sum::<usize>() + open.len() - oldest_from;
        let snap = Snapshot {
            sealed,
            open,
            oldest_from,
            len,
            pushed,
        };
        self.last = Some(snap.clone());
        snap
    }

    fn newest(&self) -> Option<u64> {
        self.open
            .last()
            .or_else(|| self.sealed.back().map(|c| &c[c.len() - 1]))
            .map(|e| e.seq())
    }

    /// Adds events in ascending sequence order: appended in the usual case,
    /// merged into place when their writer published them after newer events
    /// were read.
    fn append(&mut self, events: &[E]) {
        if events.is_empty() {
            return;
        }
        self.shared_open = None;
        let newest = self.newest();
        let late = events.partition_point(|e| newest.is_some_and(|n| e.seq() <= n));
        for &e in &events[..late] {
            self.insert_late(e);
        }
        let mut rest = &events[late..];
        let sealed = self.sealed.len();
        if !self.open.is_empty() {
            let (now, later) = rest.split_at((CHUNK - self.open.len()).min(rest.len()));
            self.open.extend_from_slice(now);
            rest = later;
            if self.open.len() == CHUNK {
                self.sealed.push_back(Arc::from(self.open.as_slice()));
                self.open.clear();
            }
        }
        // Whole chunks go from the slice to their `Arc` in one copy.
        let mut whole = rest.chunks_exact(CHUNK);
        for chunk in &mut whole {
            self.sealed.push_back(Arc::from(chunk));
        }
        self.open.extend_from_slice(whole.remainder());
        if self.sealed.len() != sealed {
            self.shared_sealed = None;
        }
    }

    /// Merges an event older than the newest one into place.
    fn insert_late(&mut self, e: E) {
        if self.open.first().is_some_and(|f| e.seq() > f.seq()) || self.sealed.is_empty() {
            let at = self.open.partition_point(|x| x.seq() < e.seq());
            self.open.insert(at, e);
            return;
        }
        // The first sealed chunk whose newest event is newer than `e` (the
        // oldest chunk if `e` precedes everything).
        let k = self
            .sealed
            .partition_point(|c| c[c.len() - 1].seq() < e.seq())
            .min(self.sealed.len() - 1);
        let chunk = &mut self.sealed[k];
        let at = chunk.partition_point(|x| x.seq() < e.seq());
        let mut v = Vec::with_capacity(chunk.len() + 1);
        v.extend_from_slice(&chunk[..at]);
        v.push(e);
        v.extend_from_slice(&chunk[at..]);
        *chunk = v.into();
        self.shared_sealed = None;
    }
}

/// Merges `runs` of `src` (each in ascending sequence order) into `out`, two
/// at a time (a campaign has a handful of lanes).
fn merge_runs<E: Entry>(src: &[E], runs: &[Range<usize>], out: &mut Vec<E>, scratch: &mut Vec<E>) {
    out.clear();
    let Some((first, rest)) = runs.split_first() else {
        return;
    };
    out.extend_from_slice(&src[first.clone()]);
    for run in rest {
        std::mem::swap(out, scratch);
        out.clear();
        let (a, b) = (&scratch[..], &src[run.clone()]);
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            if a[i].seq() < b[j].seq() {
                out.push(a[i]);
                i += 1;
            } else {
                out.push(b[j]);
                j += 1;
            }
        }
        out.extend_from_slice(&a[i..]);
        out.extend_from_slice(&b[j..]);
    }
}

/// A consistent snapshot of the log: the newest `capacity` events that were
/// published when it was taken, immutable and cheap to clone (two reference
/// counts: it shares its chunks with the log's view and other snapshots).
pub struct Snapshot<E> {
    /// Full chunks, oldest first, each in ascending sequence order.
    sealed: Arc<[Arc<[E]>]>,
    /// The newest, partly filled chunk.
    open: Arc<[E]>,
    /// Where the snapshot starts in its oldest chunk (the window's floor can
    /// fall inside it).
    oldest_from: usize,
    len: usize,
    /// The log's ticket when the snapshot was taken.
    pushed: u64,
}

impl<E> Clone for Snapshot<E> {
    fn clone(&self) -> Self {
        Snapshot {
            sealed: self.sealed.clone(),
            open: self.open.clone(),
            oldest_from: self.oldest_from,
            len: self.len,
            pushed: self.pushed,
        }
    }
}

impl<E> std::fmt::Debug for Snapshot<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("len", &self.len)
            .field("pushed", &self.pushed)
            .finish()
    }
}

impl<E: Entry> Snapshot<E> {
    /// How many events the snapshot holds (at most the log's capacity).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many pushes had taken a sequence number when it was taken.
    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// Chunk `i` counting from the newest (the open one is 0), in ascending
    /// order and trimmed to the window (only the oldest chunk can straddle it).
    fn chunk(&self, i: usize) -> &[E] {
        let n = self.sealed.len();
        let c: &[E] = if i == 0 {
            &self.open
        } else {
            &self.sealed[n - i]
        };
        if i == n { &c[self.oldest_from..] } else { c }
    }

    /// The snapshot's chunks, newest first.
    fn chunks(&self) -> impl Iterator<Item = &[E]> {
        (0..=self.sealed.len()).map(|i| self.chunk(i))
    }

    /// Every event, newest first (by sequence number).
    pub fn iter(&self) -> Iter<'_, E> {
        Iter {
            snapshot: self,
            next_chunk: 0,
            current: &[],
            left: self.len,
        }
    }

    /// The events that pass `filter`, newest first.
    pub fn select<'a, S: Select<E>>(&'a self, filter: &'a S) -> impl Iterator<Item = &'a E> + 'a {
        let after = filter.after();
        self.iter()
            .take_while(move |e| after.is_none_or(|s| e.seq() > s))
            .filter(|e| filter.keeps(e))
    }

    /// Appends at most `limit` events that pass `filter` to `out`, newest first.
    pub fn copy_into(&self, filter: &impl Select<E>, limit: usize, out: &mut Vec<E>) {
        out.reserve(limit.min(self.len));
        let after = filter.after().map_or(0, |s| s.saturating_add(1));
        let unfiltered = filter.keeps_every();
        let mut left = limit;
        for chunk in self.chunks() {
            let keep = &chunk[chunk.partition_point(|e| e.seq() < after)..];
            if unfiltered {
                let take = keep.len().min(left);
                out.extend(keep[keep.len() - take..].iter().rev().copied());
                left -= take;
            } else {
                for e in keep.iter().rev() {
                    if left == 0 {
                        break;
                    }
                    if filter.keeps(e) {
                        out.push(*e);
                        left -= 1;
                    }
                }
            }
            if left == 0 || keep.len() < chunk.len() {
                return;
            }
        }
    }
}

/// The events of a [`Snapshot`], newest first.
pub struct Iter<'a, E> {
    snapshot: &'a Snapshot<E>,
    /// The chunk to visit after `current` (see [`Snapshot::chunk`]).
    next_chunk: usize,
    /// What is left of the chunk being visited (the next event last).
    current: &'a [E],
    /// Events not yet returned.
    left: usize,
}

impl<'a, E: Entry> Iterator for Iter<'a, E> {
    type Item = &'a E;

    #[inline]
    fn next(&mut self) -> Option<&'a E> {
        loop {
            if let Some((e, rest)) = self.current.split_last() {
                self.current = rest;
                self.left -= 1;
                return Some(e);
            }
            if self.next_chunk > self.snapshot.sealed.len() {
                return None;
            }
            self.current = self.snapshot.chunk(self.next_chunk);
            self.next_chunk += 1;
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<E: Entry> ExactSizeIterator for Iter<'_, E> {}

#[cfg(all(test, not(feature = "loom")))]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    /// A test event: every word derived from `x`, so a torn read shows.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct Ev {
        seq: u64,
        producer: u32,
        x: u64,
    }

    fn ev(producer: u32, x: u64) -> Ev {
        Ev {
            seq: 0,
            producer,
            x,
        }
    }

    impl Entry for Ev {
        fn seq(&self) -> u64 {
            self.seq
        }
        fn encode(&self) -> [u64; WORDS] {
            let x = self.x;
            [
                x,
                !x,
                x.rotate_left(17),
                x ^ 0x5555,
                self.producer as u64,
                x.wrapping_mul(31),
            ]
        }
        fn decode(seq: u64, w: &[u64; WORDS]) -> Option<Self> {
            let e = Ev {
                seq,
                producer: w[4] as u32,
                x: w[0],
            };
            // A torn event decodes to a different one: refuse it, so that the
            // tests below can count what they see.
            (e.encode() == *w).then_some(e)
        }
    }

    /// Events of one producer after a sequence number.
    struct Of(u32, Option<u64>);

    impl Select<Ev> for Of {
        fn after(&self) -> Option<u64> {
            self.1
        }
        fn keeps(&self, e: &Ev) -> bool {
            e.producer == self.0
        }
        fn keeps_every(&self) -> bool {
            false
        }
    }

    fn seqs(events: impl IntoIterator<Item = impl std::borrow::Borrow<Ev>>) -> Vec<u64> {
        events.into_iter().map(|e| e.borrow().seq).collect()
    }

    #[test]
    fn keeps_the_newest_capacity_events_newest_first() {
        let ring = Ring::new(4);
        for i in 0..10 {
            ring.push(0, &ev(0, i)).unwrap();
        }
        let all = ring.snapshot(&All, 100);
        let xs: Vec<_> = all.iter().map(|e| e.x).collect();
        assert_eq!(xs, vec![9, 8, 7, 6]);
        assert_eq!(all[0].seq, 9);
        assert_eq!(ring.len(), 4);
        assert_eq!(ring.pushed(), 10);
    }

    #[test]
    fn selects_by_predicate_and_sequence_and_limits() {
        let ring = Ring::new(16);
        for i in 0..12u32 {
            ring.push(i as usize, &ev(i % 3, i as u64));
        }
        assert_eq!(ring.snapshot(&Of(1, None), 100).len(), 4);
        assert_eq!(ring.snapshot(&Of(1, None), 2).len(), 2);
        assert!(
            ring.snapshot(&Of(1, None), 100)
                .iter()
                .all(|e| e.producer == 1)
        );
        assert_eq!(seqs(ring.snapshot(&Of(1, Some(6)), 100)), vec![10, 7]);
        assert_eq!(seqs(ring.view().select(&Of(2, Some(4)))), vec![11, 8, 5]);
        struct After(u64);
        impl Select<Ev> for After {
            fn after(&self) -> Option<u64> {
                Some(self.0)
            }
            fn keeps(&self, _: &Ev) -> bool {
                true
            }
            fn keeps_every(&self) -> bool {
                true
            }
        }
        assert_eq!(seqs(ring.snapshot(&After(9), 100)), vec![11, 10]);
    }

    #[test]
    fn a_push_that_finds_every_lane_held_is_dropped_instead_of_waiting() {
        let ring = Ring::with_lanes(8, 2);
        let held: Vec<_> = (0..2).map(|w| ring.claim(w).unwrap()).collect();
        assert!(ring.push(0, &ev(0, 1)).is_none());
        assert_eq!(ring.dropped(), 1);
        for lane in held {
            lane.claimed.store(false, Ordering::Release);
        }
        assert_eq!(ring.push(0, &ev(0, 2)), Some(0));
        // A held home lane sends the push to the next free one.
        let lane0 = ring.claim(0).unwrap();
        assert_eq!(ring.push(0, &ev(0, 3)), Some(1));
        lane0.claimed.store(false, Ordering::Release);
        assert_eq!(seqs(ring.view().iter()), vec![1, 0]);
    }

    #[test]
    fn keeps_the_newest_capacity_events_across_lanes() {
        let ring = Ring::with_lanes(10, 3);
        for i in 0..37u64 {
            ring.push((i * 7 % 5) as usize, &ev(0, i));
        }
        let snap = ring.view();
        assert_eq!(seqs(snap.iter()), (27..37).rev().collect::<Vec<_>>());
        assert_eq!(snap.len(), 10);
        assert_eq!(ring.len(), 10);
    }

    /// A writer that took its sequence number, then stalled while others
    /// published newer events: its event is merged into place, also into a
    /// chunk that other snapshots already share.
    #[test]
    fn a_late_event_is_merged_into_sequence_order() {
        let ring = Ring::with_lanes(256, 2);
        let stalled = ring.claim(0).unwrap();
        let late = ring.ticket.fetch_add(1, Ordering::Relaxed);
        for i in 0..200 {
            ring.push(1, &ev(1, i));
        }
        let before = ring.view();
        assert_eq!(before.len(), 200);
        assert!(before.iter().all(|e| e.seq != late));
        ring.write(stalled, late, &ev(0, 999));
        let after = ring.view();
        assert_eq!(seqs(after.iter()), (0..201).rev().collect::<Vec<_>>());
        // The earlier snapshot is unchanged.
        assert_eq!(before.len(), 200);
        assert_eq!(before.iter().last().unwrap().seq, 1);
    }

    #[test]
    fn an_unchanged_ring_hands_out_the_same_snapshot() {
        let ring = Ring::with_lanes(100, 2);
        for i in 0..150 {
            ring.push(0, &ev(0, i));
        }
        let a = ring.view();
        let b = ring.view();
        assert!(Arc::ptr_eq(&a.open, &b.open) && Arc::ptr_eq(&a.sealed, &b.sealed));
        ring.push(1, &ev(1, 0));
        let c = ring.view();
        assert_eq!(c.iter().next().unwrap().seq, 150);
        assert_eq!(c.len(), 100);
        // Sealed chunks are shared between snapshots, not copied.
        assert!(Arc::ptr_eq(&a.sealed[0], &c.sealed[0]));
    }

    #[test]
    fn a_reader_that_finds_the_view_busy_reads_the_lanes_itself() {
        let ring = Ring::with_lanes(50, 2);
        for i in 0..80 {
            ring.push(i as usize % 2, &ev(i as u32 % 2, i));
        }
        let shared = ring.view();
        let _busy = ring.view.lock().unwrap();
        let private = ring.view();
        assert!(!Arc::ptr_eq(&shared.open, &private.open));
        let a: Vec<_> = shared.iter().copied().collect();
        let b: Vec<_> = private.iter().copied().collect();
        assert_eq!(a, b);
        assert_eq!(b.len(), 50);
    }

    /// Producers push events whose words are all derived from one number; a
    /// reader checks every event it sees. Any torn read breaks the checksum
    /// (and `decode` refuses it, so it is also missing from the count).
    #[test]
    fn stress_no_torn_events_over_ten_million_pushes() {
        const PRODUCERS: u64 = 2;
        let per_producer: u64 = if cfg!(miri) {
            100
        } else if cfg!(debug_assertions) {
            500_000
        } else {
            5_000_000
        };
        let ring = Arc::new(Ring::<Ev>::new(if cfg!(miri) { 8 } else { 64 }));
        let done = Arc::new(AtomicBool::new(false));
        // Two readers, so that one sometimes finds the shared view busy and
        // builds its own.
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (ring, done) = (ring.clone(), done.clone());
                std::thread::spawn(move || {
                    let (mut seen, mut torn, mut misordered) = (0u64, 0u64, 0u64);
                    let mut buf = Vec::new();
                    while !done.load(Ordering::Acquire) {
                        ring.snapshot_into(&All, 64, &mut buf);
                        for pair in buf.windows(2) {
                            misordered += (pair[0].seq <= pair[1].seq) as u64;
                        }
                        for e in &buf {
                            seen += 1;
                            torn += (e.producer as u64 != e.x % PRODUCERS) as u64;
                        }
                    }
                    (seen, torn, misordered)
                })
            })
            .collect();
        let producers: Vec<_> = (0..PRODUCERS)
            .map(|p| {
                let ring = ring.clone();
                std::thread::spawn(move || {
                    for i in 0..per_producer {
                        ring.push(p as usize, &ev(p as u32, i * PRODUCERS + p));
                    }
                })
            })
            .collect();
        for p in producers {
            p.join().unwrap();
        }
        done.store(true, Ordering::Release);
        let (mut seen, mut torn, mut misordered) = (0, 0, 0);
        for r in readers {
            let (s, t, m) = r.join().unwrap();
            (seen, torn, misordered) = (seen + s, torn + t, misordered + m);
        }
        assert_eq!(torn, 0, "torn events among {seen} read");
        assert_eq!(misordered, 0);
        assert_eq!(ring.pushed(), PRODUCERS * per_producer);
        assert!(seen > 0);
        // Every event of the final window decodes: none was refused as torn.
        assert_eq!(ring.view().len(), ring.capacity());
    }
}
