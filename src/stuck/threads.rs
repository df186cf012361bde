//! Thread places: where the threads of a PE at `SHMEM_THREAD_MULTIPLE` wait,
//! for the hang reports.
//!
//! A PE has one place of its own ([`PlaceWords`] in its slot), which the
//! verdicts rely on ([`super`]), and [`THREAD_SLOTS`] more
//! (`Control::thread_place`) for its threads. A thread claims one the first
//! time it publishes a wait: a compare-and-swap of its kernel thread id into
//! the place's owner word (`PeInfo::thread_owner`), kept in a thread-local
//! claim, and given back by the claim's destructor when the thread ends.
//! While every place is taken, a wait is counted in `threads_unshown`
//! instead, so that a report can say how many threads it does not show.
//!
//! The control block is never unmapped (`runtime::bootstrap`), so a
//! destructor running after `shmem_finalize` still writes to mapped memory;
//! a claim checks its owner word before each use, so one made in an earlier
//! initialisation of another block is claimed again.

use crate::job::{Control, PlaceWords, THREAD_SLOTS};
use std::cell::Cell;
use std::sync::atomic::Ordering::SeqCst;

/// Which place a thread publishes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Spot {
    /// Thread place `i`.
    Thread(usize),
    /// None was free: counted in `threads_unshown`.
    Unshown,
}

/// A thread's claim: the block, the PE and the place index.
struct Claim {
    held: Cell<Option<(Control, usize, usize)>>,
    tid: Cell<u32>,
}

impl Drop for Claim {
    fn drop(&mut self) {
        if let Some((control, pe, i)) = self.held.get() {
            release(&control, pe, i, self.tid.get());
        }
    }
}

thread_local! {
    static CLAIM: Claim = const {
        Claim {
            held: Cell::new(None),
            tid: Cell::new(0),
        }
    };
}

thread_local! {
    /// Whether this thread is one of the library's own that waits for
    /// collectives on the program's behalf (`nbc`'s workers): its waits
    /// publish in a thread place at every thread level, since the program's
    /// thread may meanwhile write what other PEs wait for.
    static HELPER: Cell<bool> = const { Cell::new(false) };
}

/// Marks the calling thread as a library helper (see `HELPER`).
pub(crate) fn mark_helper() {
    HELPER.with(|h| h.set(true));
}

/// Whether the calling thread is a library helper.
#[inline]
pub(crate) fn is_helper() -> bool {
    HELPER.with(|h| h.get())
}

/// This thread's kernel id (never 0).
fn tid() -> u32 {
    // SAFETY: gettid has no preconditions and cannot fail.
    (unsafe { libc::gettid() }) as u32
}

/// Claims a free place of PE `pe` for thread `tid`: its index, or None when
/// every place is taken.
fn claim(control: &Control, pe: usize, tid: u32) -> Option<usize> {
    let owners = &control.slot(pe).info.thread_owner;
    (0..THREAD_SLOTS).find(|&i| owners[i].compare_exchange(0, tid, SeqCst, SeqCst).is_ok())
}

/// Gives place `i` back, if `tid` still holds it.
fn release(control: &Control, pe: usize, i: usize, tid: u32) {
    let _ = control.slot(pe).info.thread_owner[i].compare_exchange(tid, 0, SeqCst, SeqCst);
}

/// Where the calling thread publishes a wait of PE `pe`: its place (claimed
/// now if it has none), or [`Spot::Unshown`], counted, when none is free.
pub(crate) fn enter(control: &Control, pe: usize) -> Spot {
    let spot = CLAIM
        .try_with(|c| {
            if c.tid.get() == 0 {
                c.tid.set(tid());
            }
            let tid = c.tid.get();
            if let Some((held, p, i)) = c.held.get()
                && std::ptr::eq(held.slot(0), control.slot(0))
                && p == pe
                && control.slot(pe).info.thread_owner[i].load(SeqCst) == tid
            {
                return Some(i);
            }
            let i = claim(control, pe, tid)?;
            if let Some((old, p, j)) = c.held.replace(Some((*control, pe, i))) {
                release(&old, p, j, tid);
            }
            Some(i)
        })
        .ok()
        .flatten();
    match spot {
        Some(i) => Spot::Thread(i),
        None => {
            control.slot(pe).info.threads_unshown.fetch_add(1, SeqCst);
            Spot::Unshown
        }
    }
}

/// Undoes [`enter`]'s count when the wait ends (a place stays claimed).
pub(crate) fn leave(control: &Control, pe: usize, spot: Spot) {
    if spot == Spot::Unshown {
        control.slot(pe).info.threads_unshown.fetch_sub(1, SeqCst);
    }
}

/// The words of `spot` (None for [`Spot::Unshown`]).
pub(crate) fn words(control: &Control, pe: usize, spot: Spot) -> Option<&PlaceWords> {
    match spot {
        Spot::Thread(i) => Some(control.thread_place(pe, i)),
        Spot::Unshown => None,
    }
}

/// PE `pe`'s claimed thread places: (index, owner's thread id). Reads only
/// the owner words, so that a reader touches no page of thread places of a
/// PE that never claimed one.
pub(crate) fn claimed(control: &Control, pe: usize) -> Vec<(usize, u32)> {
    let owners = &control.slot(pe).info.thread_owner;
    (0..THREAD_SLOTS)
        .filter_map(|i| match owners[i].load(SeqCst) {
            0 => None,
            tid => Some((i, tid)),
        })
        .collect()
}

/// Threads of PE `pe` waiting without a place.
pub(crate) fn unshown(control: &Control, pe: usize) -> u32 {
    control.slot(pe).info.threads_unshown.load(SeqCst)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::{control_len, round_up};

    /// A zeroed control block of `n` PEs, never freed: a thread's claim
    /// writes to it when the thread ends, after the test.
    fn block(n: usize) -> Control {
        let buf = vec![0u128; control_len(n) / 16 + 8].leak();
        let base = round_up(buf.as_mut_ptr() as usize, 128) as *const u8;
        // SAFETY: zeroed memory large enough for the control block of n PEs,
        // 128-aligned by hand, leaked (so it outlives every view); only
        // accessed atomically.
        unsafe { Control::from_raw(base, n) }
    }

    #[test]
    fn threads_claim_distinct_places_and_give_them_back_when_they_end() {
        let c = block(2);
        // The same thread keeps its place from wait to wait.
        let mine = enter(&c, 1);
        assert_eq!(mine, Spot::Thread(0));
        assert_eq!(enter(&c, 1), mine);
        assert_eq!(claimed(&c, 1), vec![(0, tid())]);
        assert!(claimed(&c, 0).is_empty());
        // Other threads take the others, until none is left.
        let (go, wait) = (
            std::sync::Barrier::new(THREAD_SLOTS),
            std::sync::Barrier::new(THREAD_SLOTS),
        );
        std::thread::scope(|s| {
            let others: Vec<_> = (1..THREAD_SLOTS)
                .map(|_| {
                    s.spawn(|| {
                        let spot = enter(&c, 1);
                        go.wait(); // every place is now taken
                        wait.wait(); // until the main thread has looked
                        spot
                    })
                })
                .collect();
            go.wait();
            assert_eq!(claimed(&c, 1).len(), THREAD_SLOTS);
            // A thread finding no place is counted while it waits.
            s.spawn(|| {
                let spot = enter(&c, 1);
                assert_eq!(spot, Spot::Unshown);
                assert_eq!(unshown(&c, 1), 1);
                assert!(words(&c, 1, spot).is_none());
                leave(&c, 1, spot);
            })
            .join()
            .unwrap();
            assert_eq!(unshown(&c, 1), 0);
            wait.wait();
            let mut spots: Vec<Spot> = others.into_iter().map(|t| t.join().unwrap()).collect();
            spots.push(mine);
            spots.sort_by_key(|s| format!("{s:?}"));
            spots.dedup();
            assert_eq!(spots.len(), THREAD_SLOTS, "each thread its own place");
        });
        // The threads ended: their places are free again, this thread's not.
        assert_eq!(claimed(&c, 1), vec![(0, tid())]);
        let other = std::thread::spawn(move || enter(&c, 1)).join().unwrap();
        assert_eq!(other, Spot::Thread(1));
        // A claim on another block is given up for one on this.
        let d = block(2);
        assert_eq!(enter(&d, 0), Spot::Thread(0));
        assert_eq!(claimed(&c, 1), Vec::new());
    }
}
