//! Sandia OpenSHMEM's performance counters (`shmemx_pcntr_*`): per
//! context, the operations this PE issued and completed, split into writes
//! and reads as SOS splits them (writes: puts of every form, `p`, strided
//! and block-strided puts, put-with-signal, notification puts and the
//! non-fetching atomics; reads: gets of every form, `g`, and the fetching
//! atomics, swaps and compare-and-swaps included), and per PE the
//! operations other PEs issued on its memory (`target`).
//!
//! # Off unless asked for, and free when off
//!
//! Counting is on when `RSHMEM_PCNTR=1` at `shmem_init`. The counted
//! operations cost nothing more when it is off: the context check of every
//! RMA, atomic and signal routine compares the PE argument with a word of
//! the world that holds the number of PEs when counting is off and 0 when it
//! is on ([`World::ctx_pes`]), so that with counting on every such call
//! leaves its fast path for the context check's cold one, which counts
//! (`ffi::check::ctx_target`). Off, the getters answer 0.
//!
//! # What is counted, and when an operation is complete
//!
//! One per call of a routine (a strided put of `n` elements: `n`, as SOS
//! makes one transfer per element; a block-strided one: one per block), at
//! the call, for the calling thread's context (the default context for the
//! routines without one). The library's own traffic (collectives, locks,
//! barriers, counting puts' increments, the target counts themselves) is
//! not counted: SOS counts its collectives' puts on the default context.
//!
//! A write or read is *completed* when the library has completed it: at
//! once for a PE of this node (loads and stores) and for the blocking forms
//! the engine completes before returning (put, get, `p`, `g`, atomics);
//! across nodes, the `_nbi` forms and put-with-signal (whose delivery the
//! engine completes at the next quiet) are completed by the next
//! `shmem_quiet` or `shmem_ctx_quiet` of any context (every quiet completes
//! every context's operations here), a barrier, or a `shmemx_quiet_test`
//! that answers 1 ([`Transport::quiets`] counts them).
//!
//! `target` counts the operations other PEs issued on this PE's memory
//! while counting is on (every PE must set `RSHMEM_PCNTR=1`; a PE without it
//! adds nothing): nothing sees another PE's loads and stores on this node,
//! so the origin adds 1 to the target's word (in the counting puts' area,
//! `crate::ct`) as it issues the operation (a CPU atomic on this node; across
//! nodes a posted add, which no quiet waits for: it lands as the target lets
//! its engine progress, which the getters do). So `target` can run ahead of
//! the data by the time an operation takes (or behind it, across nodes), and
//! a store into a `shmem_ptr` address is not an operation: not counted.
//!
//! The counters are exact for a context used by one thread at a time (a
//! private context, or the default one of a single-threaded PE); threads
//! sharing a context may see an `_nbi` operation issued across a quiet
//! counted complete a quiet early.

use crate::heap::SymOffset;
use crate::transport::Transport;
use crate::world::World;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// What a counted call does: a read or a write, completed on return or at
/// the next quiet across nodes, and how many transfers it makes. One word
/// (bit 0: read, bit 1: deferred, the rest: the count), so that the fast
/// path, which only hands it to the cold one, spends no more than a
/// constant in a register on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Op(u64);

const READ_BIT: u64 = 1;
/// Across nodes, completed only by the next quiet (`_nbi`, put-with-signal).
const DEFERRED_BIT: u64 = 2;
const COUNT_SHIFT: u32 = 2;

impl Op {
    pub(crate) const WRITE: Op = Op(1 << COUNT_SHIFT);
    pub(crate) const WRITE_NBI: Op = Op(1 << COUNT_SHIFT | DEFERRED_BIT);
    pub(crate) const READ: Op = Op(1 << COUNT_SHIFT | READ_BIT);
    pub(crate) const READ_NBI: Op = Op(1 << COUNT_SHIFT | READ_BIT | DEFERRED_BIT);

    /// The same, `n` transfers.
    #[inline]
    pub(crate) const fn times(self, n: usize) -> Op {
        Op((n as u64) << COUNT_SHIFT | (self.0 & (READ_BIT | DEFERRED_BIT)))
    }

    pub(crate) const fn read(self) -> bool {
        self.0 & READ_BIT != 0
    }

    pub(crate) const fn deferred(self) -> bool {
        self.0 & DEFERRED_BIT != 0
    }

    pub(crate) const fn n(self) -> u64 {
        self.0 >> COUNT_SHIFT
    }
}

/// A context's counters (in its `context::CtxObject`). All zeroes is the
/// start.
#[derive(Debug)]
pub(crate) struct Counts {
    issued: [AtomicU64; 2],
    completed: [AtomicU64; 2],
    /// Deferred operations issued since the quiet numbered `epoch`.
    pending: [AtomicU64; 2],
    epoch: AtomicU64,
}

/// Index of writes and reads in [`Counts`]' arrays.
const WRITE: usize = 0;
const READ: usize = 1;

impl Counts {
    pub(crate) const fn new() -> Counts {
        Counts {
            issued: [AtomicU64::new(0), AtomicU64::new(0)],
            completed: [AtomicU64::new(0), AtomicU64::new(0)],
            pending: [AtomicU64::new(0), AtomicU64::new(0)],
            epoch: AtomicU64::new(0),
        }
    }

    /// Back to zero (a new context in a reused slot; the default context at
    /// `shmem_init`). The epoch too: the first count folds the nothing pending.
    pub(crate) fn reset(&self) {
        for a in self.issued.iter().chain(&self.completed).chain(&self.pending) {
            a.store(0, Relaxed);
        }
        self.epoch.store(0, Relaxed);
    }

    /// Deferred operations issued before the last quiet are complete.
    fn fold(&self, w: &World) {
        let now = w.transport.quiets();
        if self.epoch.swap(now, Relaxed) != now {
            for k in [WRITE, READ] {
                let done = self.pending[k].swap(0, Relaxed);
                self.completed[k].fetch_add(done, Relaxed);
            }
        }
    }

    /// `[issued write, issued read, completed write, completed read]`.
    pub(crate) fn snapshot(&self, w: &World) -> [u64; 4] {
        self.fold(w);
        [
            self.issued[WRITE].load(Relaxed),
            self.issued[READ].load(Relaxed),
            self.completed[WRITE].load(Relaxed),
            self.completed[READ].load(Relaxed),
        ]
    }
}

/// Counts `op` to world PE `pe` on the context whose counters are `c`;
/// `target` is the target word's offset (`ct::Counters::target_word`), if
/// the area is there. Called only with counting on.
pub(crate) fn count(w: &World, c: &Counts, op: Op, pe: usize, target: Option<SymOffset>) {
    if pe != w.me
        && let Some(t) = target
    {
        // SAFETY: the target word is the first, 64-aligned, word of the
        // area every PE's world team reserves.
        unsafe { w.transport.post_count(pe, t, op.n()) };
    }
    let k = if op.read() { READ } else { WRITE };
    c.issued[k].fetch_add(op.n(), Relaxed);
    if op.deferred() && !w.transport.shares_memory(pe) {
        c.fold(w);
        c.pending[k].fetch_add(op.n(), Relaxed);
    } else {
        c.completed[k].fetch_add(op.n(), Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_say_what_they_count() {
        assert_eq!(Op::WRITE.times(5).n(), 5);
        assert_eq!(Op::READ_NBI.times(7), Op(7 << COUNT_SHIFT | READ_BIT | DEFERRED_BIT));
        assert!(Op::READ_NBI.read() && Op::READ_NBI.deferred());
        assert!(!Op::WRITE.read() && !Op::WRITE.deferred() && Op::WRITE.n() == 1);
    }
}
