//! A job that can never finish: one PE in `shmem_finalize` (often the implicit
//! one at `exit(0)`) while the others block in the library for ever. Rather
//! than hang silently, one PE prints who is where and the job ends.
//!
//! Each blocking wait of the library publishes, on its slow path only (once it
//! has spun and yielded, before it first sleeps), where its PE is: a [`Kind`],
//! the routine, and for the rendezvous (barrier_all, finalize) their episode,
//! in the PE's `PlaceWords`. Leaving the wait clears it. Fast waits never
//! write these words, so a job whose PEs all reach `exit` pays nothing.
//!
//! Every published waiter looks at all slots now and then ([`Watch::tick`], [`verdict`]).
//! A *finalizer* is a PE in the finalize rendezvous of the current episode: it
//! leaves only once every PE has entered it. Two cases are reported:
//!
//! - **Everyone blocked.** Every other PE is in a published wait. That alone
//!   is not proof: a waiter's condition may have become true a moment ago and
//!   the waiter not have run since. So the watcher bumps the job's `probe`,
//!   and each waiter, whenever it finds its condition false (just before it
//!   sleeps), records the probe value it read *before* evaluating the
//!   condition (`answered`). The job is stuck when a later look finds the
//!   same places (same sequence numbers: nobody left a wait in between, so
//!   nobody wrote anything) and every waiter has answered the probe. Why that
//!   is proof: any store that could satisfy a waiter was made by some PE before
//!   it published its place (a PE inside a wait writes nothing); the watcher
//!   read that publication before bumping the probe, and the waiter read the
//!   bumped probe before its check, so the store happens before the check
//!   (release/acquire chain through the sequence word and the probe) and the
//!   check saw it. A waiter whose condition is true never answers (it leaves),
//!   so a descheduled PE only delays the verdict.
//! - **A barrier_all that cannot complete.** A PE waits in `shmem_barrier_all`
//!   (or `shmem_sync_all`) of the current barrier episode while a PE is a
//!   finalizer: the finalizer must arrive for the barrier to complete, and
//!   cannot leave finalize before the barrier's waiters arrive there. This
//!   holds even if some PE is still running, so it is reported after the
//!   places have stayed the same for [`verdict::SETTLE`] (long enough that every PE has
//!   reached its slow path and the message lists where each one is).
//!
//! A team collective with a member finalizing is *not* doomed in general (the
//! member may have sent its part and left: a broadcast leaf, a dissemination
//! round), so it is reported through the first case only.
//!
//! One PE prints: the first to win `stuck_reporter`; it then ends through the
//! usual fatal-error path, so `oshrun` reports it and ends the others.
//!
//! **Threaded PEs.** At `SHMEM_THREAD_MULTIPLE` only barrier_all and finalize
//! publish in the PE's own place, as above. Every other wait publishes in a
//! place of its thread ([`threads`]), for the reports only: the verdicts
//! never read those. "Everyone blocked" needs a PE in a published wait to
//! write nothing, and a thread's wait says nothing of the PE's other
//! threads, which may be about to write what it waits for. So a threaded PE
//! counts as blocked only when its own place is (a barrier_all), as before
//! thread places existed, and the report lists its threads' places after
//! the PEs'.
//!
//! **Hang reports.**
//!
//! Hang reports: where every PE of a job is, in one table, with a diagnosis
//! when one is certain.
//!
//! Each PE publishes in its control slot, on the slow path of every wait that
//! may block for ever ([`place`]), the routine, what it waits on (a word
//! of memory and a comparison, or a collective's team and the PEs it waits
//! for), since when, and a count of the waits it has left. `oshrun` reads the
//! slots ([`report::read`]) without disturbing the PEs. It reports ([`report::report`]) when
//! no PE has moved for `SHMEM_HANG_TIMEOUT` seconds while none runs outside
//! the library ([`timeout::Watch`]), on `kill -QUIT`, and for `oshrun --status`
//! (`launcher::status`).
//!
//! A PE that runs its own code (not blocked in the library) is taken to make
//! progress: a program may compute for hours while the others wait. So a hang
//! is reported only once every live PE is blocked or stopped, and the picture
//! has not changed for the timeout: then nothing in the job can move again
//! (a store that could release a waiter is made by a running PE).

mod describe;
mod diagnose;
pub(crate) mod lookup;
mod place;
mod report;
pub(crate) mod symbols;
pub(crate) mod threads;
pub(crate) mod timeout;
mod verdict;

pub(crate) use describe::{describe_kinds, describe_remote_threads, describe_threads, set_other_nodes};
pub(crate) use place::{Kind, On, Place, Post, SIGNED};
pub(crate) use report::{Doing, Heard, JobView, Life, Told, other_nodes, pes_list, read, report};
pub(crate) use verdict::Watch;

/// Where one PE stands, for [`never_finishes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stand {
    /// In `shmem_finalize`'s rendezvous, which it leaves only once every PE
    /// has entered it.
    Finalizing,
    /// In another published wait, not released.
    Blocked,
    /// Anything else: running, leaving a wait, not seen. It may still move.
    Free,
}

impl Stand {
    /// By the wait kind alone (a [`Kind`] word), as the node watcher judges
    /// across nodes, where the rendezvous episodes are not told.
    pub(crate) fn of_kind(kind: u32) -> Stand {
        match kind {
            k if k == Kind::Finalize as u32 || k == Kind::FinalizeAtExit as u32 => Stand::Finalizing,
            k if k == Kind::None as u32 => Stand::Free,
            _ => Stand::Blocked,
        }
    }
}

/// The one decision, for the library's verdict and the node watcher's alike:
/// every PE blocked, and some but not all of them finalizing. Such a picture,
/// once shown to hold (see the header), is a job that can never finish.
pub(crate) fn never_finishes(pes: impl IntoIterator<Item = Stand>) -> bool {
    let (mut all, mut finalizing) = (0usize, 0usize);
    for pe in pes {
        match pe {
            Stand::Free => return false,
            Stand::Finalizing => finalizing += 1,
            Stand::Blocked => {}
        }
        all += 1;
    }
    finalizing > 0 && finalizing < all
}

#[cfg(test)]
mod tests;
