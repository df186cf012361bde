//! Where a PE blocks: what a wait publishes on its slow path (once it has
//! spun and yielded, before it first sleeps) and clears when it leaves, in
//! the PE's [`PlaceWords`] or, for a thread of a PE at
//! `SHMEM_THREAD_MULTIPLE`, in its thread's ([`super::threads`]). The words
//! are written as a sequence lock ([`publish`]), so that a reader can tell a
//! place being rewritten. What the places prove is in the header of
//! [`super`].

use crate::job::{AWAITED_MAX, Control, PlaceWords, Shape, monotonic_ns};
use std::sync::atomic::Ordering::SeqCst;

/// What a PE is blocked in (the `kind` word of its slot).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Not in a published wait.
    None = 0,
    BarrierAll = 1,
    /// A team or active-set collective.
    Coll = 2,
    /// A wait on memory: wait_until, signal_wait_until, semaphores.
    Wait = 3,
    Lock = 4,
    Finalize = 5,
    FinalizeAtExit = 6,
}

/// Where a wait blocks, as its caller knows it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Place {
    pub kind: Kind,
    pub routine: &'static str,
    /// The rendezvous episode (barrier_all, finalize); 0 otherwise.
    pub episode: u32,
}

/// What a blocked PE waits on, for `oshrun`'s hang report (`stuck::report`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum On {
    #[default]
    Nothing,
    /// `count` words of memory at `addr` (in the PE's own space), each
    /// compared with `value` by `cmp` (a `SHMEM_CMP_*` value, never 0; None:
    /// a lock or other object rather than a comparison).
    Memory {
        addr: usize,
        /// Bytes of a word, with [`SIGNED`] when signed.
        word: u32,
        count: u32,
        cmp: Option<u32>,
        value: u64,
    },
    /// A collective on a group of world PEs (`team`: a `job::TEAM_TAGS`
    /// index), waiting for `awaited` (the first few) of `n_awaited` PEs.
    Peers {
        team: u32,
        start: i32,
        stride: i32,
        size: u32,
        awaited: [u32; AWAITED_MAX],
        n_awaited: u32,
    },
}

/// Flag of [`On::Memory`]'s `word`: the word is a signed integer.
pub(crate) const SIGNED: u32 = 0x100;

/// A place to publish, for one PE of a job.
#[derive(Clone, Copy)]
pub(crate) struct Post<'a> {
    pub control: &'a Control,
    pub me: usize,
    pub place: Place,
    /// What the wait is on, worked out only when it is published: most waits
    /// never are, and some (a collective's awaited PEs) cost a loop.
    pub on: Option<&'a dyn Fn() -> On>,
    /// Published in the calling thread's place rather than the PE's (a
    /// wait of a PE at `SHMEM_THREAD_MULTIPLE`; see [`super`], threaded PEs).
    pub thread: bool,
}

/// Writes a place (None: not waiting) as a sequence-lock update.
pub(super) fn publish(w: &PlaceWords, place: Option<(&Place, On)>) {
    let s = w.seq.load(SeqCst);
    w.seq.store(s.wrapping_add(1) | 1, SeqCst);
    match place {
        Some((p, on)) => {
            w.kind.store(p.kind as u32, SeqCst);
            w.episode.store(p.episode, SeqCst);
            w.since_ns.store(monotonic_ns(), SeqCst);
            publish_on(w, on);
            for (word, v) in w.routine.iter().zip(crate::job::routine_words(p.routine)) {
                word.store(v, SeqCst);
            }
        }
        None => {
            w.kind.store(Kind::None as u32, SeqCst);
            w.episode.store(0, SeqCst);
            publish_on(w, On::Nothing);
            w.progress.fetch_add(1, SeqCst);
        }
    }
    w.seq.store((s.wrapping_add(1) | 1).wrapping_add(1), SeqCst);
}

/// Writes what a place is on (inside [`publish`]'s sequence lock).
fn publish_on(w: &PlaceWords, on: On) {
    let (addr, word, count, cmp, value) = match on {
        On::Memory {
            addr,
            word,
            count,
            cmp,
            value,
        } => (addr as u64, word, count, cmp.unwrap_or(0), value),
        _ => (0, 0, 0, 0, 0),
    };
    w.addr.store(addr, SeqCst);
    w.count.store(count, SeqCst);
    w.value.store(value, SeqCst);
    let (team, start, stride, size, awaited, n) = match on {
        On::Peers {
            team,
            start,
            stride,
            size,
            awaited,
            n_awaited,
        } => (team, start, stride, size, awaited, n_awaited),
        _ => (0, 0, 0, 0, [0; AWAITED_MAX], 0),
    };
    w.shape.store(Shape { cmp, word, team }.pack(), SeqCst);
    w.group_start.store(start, SeqCst);
    w.group_stride.store(stride, SeqCst);
    w.group_size.store(size, SeqCst);
    for (slot, pe) in w.awaited.iter().zip(awaited) {
        slot.store(pe, SeqCst);
    }
    w.awaited_n.store(n, SeqCst);
}
