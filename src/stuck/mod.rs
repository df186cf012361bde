//! A job that can never finish, and where its PEs are: what a blocked PE
//! publishes, the one decision that nothing can move, and the reports, for
//! the library and `oshrun` alike.
//!
//! The usual case: one PE in `shmem_finalize` (often the implicit one at
//! `exit(0)`) while the others block in the library for ever. Rather than
//! hang silently, one PE prints who is where and the job ends. The other: a
//! job where nobody finalizes but every PE waits for another, which `oshrun`
//! reports after `SHMEM_HANG_TIMEOUT` with a table of where each PE is.
//!
//! - [`place`]: each blocking wait of the library publishes, on its slow
//!   path only (once it has spun and yielded, before it first sleeps), where
//!   its PE is: a [`Kind`], the routine, the episode of a rendezvous
//!   (barrier_all, finalize), what it waits on ([`On`]) and since when, in
//!   the PE's slot; leaving clears it and counts one more wait left
//!   (`progress`). Fast waits never write, so a job whose PEs all reach
//!   `exit` pays nothing. [`threads`]: the places of a threaded PE's threads.
//! - [`verdict`]: the library's own verdict, which every published waiter
//!   looks for now and then; [`describe`]: its words.
//! - [`table`]: the table, read from outside without
//!   disturbing the PEs (`oshrun`, `oshrun --status`, a node's watcher),
//!   with [`diagnose`] for what is certain in it and [`lookup`], [`symbols`]
//!   for the names and values of the words PEs wait on; [`timeout`]: when
//!   `oshrun` reports.
//! - `runtime::node_watch` (a thread of each node's first PE in a job across
//!   nodes) judges the whole job with the same rule and words.
//!
//! # Why each verdict is sound
//!
//! The other files refer here. Two facts carry every argument: a PE inside a
//! published wait writes nothing another PE waits on, so a store that could
//! release a waiter is made by a PE that runs (or ran before it published
//! its place); and a *finalizer*, a PE in the finalize rendezvous of the
//! current episode, leaves only once every PE has entered it.
//!
//! **Everyone blocked** ([`never_finishes`], the one decision): every PE a
//! finalizer or in a published wait not released, some but not all of them
//! finalizers. The finalizers wait for the others to enter finalize, and the
//! others for stores nobody is left to make. The picture alone is not
//! proof: a waiter's condition may have become true a moment ago and the
//! waiter not have run since. So the library's watcher bumps the job's
//! `probe`, and each waiter, whenever it finds its condition false (just
//! before it sleeps), records the probe value it read *before* evaluating
//! the condition (`answered`). The job is stuck when a later look finds the
//! same places (same sequence numbers: nobody left a wait in between, so
//! nobody wrote anything) and every waiter has answered the probe. Why that
//! is proof: any store that could satisfy a waiter was made by some PE
//! before it published its place; the watcher read that publication before
//! bumping the probe, and the waiter read the bumped probe before its
//! check, so the store happens before the check (release/acquire chain
//! through the sequence word and the probe) and the check saw it. A waiter
//! whose condition is true never answers (it leaves), so a descheduled PE
//! only delays the verdict.
//!
//! **A barrier_all with a finalizer.** A PE waits in `shmem_barrier_all` (or
//! `shmem_sync_all`) of the current barrier episode while a PE is a
//! finalizer: the finalizer must arrive for the barrier to complete, and
//! cannot leave finalize before the barrier's waiters arrive there. This
//! holds even if some PE is still running, so it needs no probe; it is
//! reported once the places have stayed the same for [`verdict::SETTLE`]
//! (long enough that every PE has reached its slow path and the message
//! lists where each one is). A team collective with a member finalizing is
//! *not* doomed in general (the member may have sent its part and left: a
//! broadcast leaf, a dissemination round), so it counts only as blocked.
//!
//! One PE prints: the first to win `stuck_reporter`; it then ends through
//! the usual fatal-error path, so `oshrun` reports it and ends the others.
//!
//! **Threaded PEs.** At `SHMEM_THREAD_MULTIPLE` only barrier_all and
//! finalize publish in the PE's own place. Every other wait publishes in a
//! place of its thread ([`threads`]), for the reports only: the verdicts
//! never read those. The first fact above needs a PE in a published wait to
//! write nothing, and a thread's wait says nothing of the PE's other
//! threads, which may be about to write what it waits for. So a threaded PE
//! counts as blocked only when its own place is (a barrier_all), and the
//! reports list its threads' places after the PEs'.
//!
//! **`oshrun`'s timeout** ([`timeout`]). A PE that runs its own code is
//! taken to make progress: a program may compute for hours while the others
//! wait. So a hang is reported only once every live PE is blocked or
//! stopped and the picture (places, waits left, rendezvous arrivals, the
//! threads' places) has not changed for the timeout: then, by the first
//! fact, nothing in the job can move again unless something outside it does
//! (a `kill -CONT`). Without a probe, a waiter whose condition became true
//! but that has not run for the whole timeout would be reported too; the
//! timeout is long against scheduling for that reason
//! ([`timeout::DEFAULT_TIMEOUT`]), and the report ends nothing unless asked
//! (`--hang-abort`).
//!
//! **Across nodes.** A node's control block holds only its own PEs'
//! places, so the library's "everyone blocked" never holds there (the other
//! nodes' PEs are not seen, hence free). Everyone blocked is judged instead
//! by the watcher of PE 0's node (`runtime::node_watch`), with
//! [`never_finishes`] by wait kind alone (the episodes are not told across
//! nodes): its node's PEs from their slots, alive, running and not rewriting
//! their places, and every other PE from what it told in the last second
//! (`transport::mpi::status`: a PE blocked for a second says where it is
//! every half second). It ends the job when that picture, with each PE's
//! count of waits left, has stayed the same for a few rounds of those
//! messages: a PE that left its wait has said so, or stopped being heard, by
//! then. As for `oshrun`'s timeout, time stands in for the probe. The
//! barrier rule needs no other node's place: within a node it holds as on
//! one node, and between nodes the leaders' part of every world rendezvous
//! compares what each node is in (`transport::hybrid`), so a node in
//! barrier_all meeting one in finalize is that rule, certain as soon as the
//! leaders meet. Each node's hang report is `oshrun`'s rule applied to its
//! own PEs.

mod describe;
mod diagnose;
pub(crate) mod lookup;
mod place;
pub(crate) mod symbols;
mod table;
pub(crate) mod threads;
pub(crate) mod timeout;
mod verdict;

pub(crate) use describe::{describe_kinds, describe_remote_threads, describe_threads, set_other_nodes};
pub(crate) use place::{Kind, On, Place, Post, SIGNED};
pub(crate) use table::{Doing, Heard, JobView, Life, Told, other_nodes, pes_list, read, report};
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
