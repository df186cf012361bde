//! The seam between the collectives and the strategies: [`SyncStrategy`],
//! one implementation per strategy (`traditional`, `extra_sync`,
//! `barrier_unlock`, `pairwise`), driven alike by the collectives of a run
//! (`coll`) and by the virtual jobs of `sim`.
//!
//! A strategy never reaches another PE by itself: what it must do there
//! (extra-sync's release words at the team's rank 0) goes through the
//! [`Remote`] its caller passes, the transport in a run and a model in the
//! simulator. Nor does it account: it reports growth and messages in what it
//! returns, and the caller records them in its ledger.

use super::{CollOp, Graph, Mem, TeamSync};
use crate::heap::SymOffset;

/// Operations on another PE's memory that a strategy needs.
pub trait Remote {
    /// This PE's world number.
    fn me(&self) -> usize;
    /// Reads the 64-bit word at `off` of world PE `pe` atomically.
    fn fetch(&mut self, pe: usize, off: SymOffset) -> u64;
    /// Compare-and-swap on that word; true if it held `old`.
    fn compare_swap(&mut self, pe: usize, off: SymOffset, old: u64, new: u64) -> bool;
    /// Adds `v` to that word atomically.
    fn add(&mut self, pe: usize, off: SymOffset, v: u64);
    /// One step of progress while waiting for other PEs; false once
    /// patience has run out (the strategy may then take another way).
    fn wait_step(&mut self) -> bool;
}

/// The sync memory one collective of a team runs on, to give back with
/// [`SyncStrategy::release`] when the collective has returned on this PE if
/// it holds a pool array (a ticket without one has nothing to give back, and
/// the callers skip the call).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket {
    /// Where the collective's signals land.
    pub mem: Mem,
    /// The pool array, under the pool strategies.
    pub array: Option<usize>,
    /// The kind of collective the ticket is for.
    pub op: CollOp,
}

/// What a strategy answers before a collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grant {
    /// Run on `ticket.mem`.
    Run {
        /// The memory to run on (and to release after).
        ticket: Ticket,
        /// The communication graph the algorithms must follow, if the
        /// strategy prescribes one (pairwise locations).
        graph: Option<Graph>,
        /// The team's pool grew by one array for this collective.
        grew: bool,
        /// Remote messages the strategy sent to decide.
        messages: u64,
    },
    /// Every array is in use: run a barrier of the team on `ticket.mem`,
    /// release the ticket, count the barrier's signals as inserted, and ask
    /// again.
    BarrierFirst(Ticket),
}

/// A reuse strategy of team synchronisation memory.
pub trait SyncStrategy: Sync {
    /// Array slots of a team's region: (taken at creation, capacity), given
    /// `SHMEM_PSYNC_POOL` and `SHMEM_PSYNC_POOL_MAX`.
    fn slots(&self, pool: usize, pool_max: usize) -> (usize, usize);

    /// What the strategy keeps of a team's pool beside its counts, for a
    /// pool of `initial` arrays (see `pool`): its own type, which it gets
    /// back with `sync.pool().parts::<T>()`. Nothing unless it keeps some.
    fn pool_state(&self, initial: usize) -> Box<dyn std::any::Any + Send> {
        let _ = initial;
        Box::new(())
    }

    /// The sync memory for the next collective of kind `op` of the team
    /// whose memory on this PE is `sync`. Every member calls it for the same
    /// collectives in the same order and gets the same answer.
    fn acquire(&self, sync: &TeamSync, op: CollOp, remote: &mut dyn Remote) -> Grant;

    /// For a strategy whose every collective of a team runs on the same
    /// memory and has nothing to give back: that memory and the graph the
    /// algorithms must follow. `acquire` then always answers `Grant::Run`
    /// with it (no growth, no messages, no pool array), and the collectives
    /// take this shorter way, which skips the grant and its release.
    fn fixed(&self, sync: &TeamSync) -> Option<(Mem, Option<Graph>)> {
        let _ = sync;
        None
    }

    /// The collective that ran on `ticket` has returned on this PE. Called
    /// only for tickets with a pool array, and not for the barrier of
    /// `shmem_team_destroy`, after which nothing may write to the team's
    /// memory. Returns the remote messages sent.
    fn release(&self, sync: &TeamSync, ticket: Ticket, remote: &mut dyn Remote) -> u64;

    /// Whether the strategy signals on the pairwise location table (one
    /// location per world PE, see `pairwise`) rather than in team regions.
    fn pair_locations(&self) -> bool {
        false
    }

    /// Whether [`observe_world_barrier`](Self::observe_world_barrier) does
    /// anything (so the world barrier skips it otherwise).
    fn watches_world_barrier(&self) -> bool {
        false
    }

    /// `shmem_barrier_all` or `shmem_sync_all` completed on this PE; `world`
    /// is the world team's memory.
    fn observe_world_barrier(&self, world: &TeamSync) {
        let _ = world;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Graph, Plan, Strategy};
    use super::*;

    /// A `Remote` for strategies that must not need one.
    struct NoRemote;

    impl Remote for NoRemote {
        fn me(&self) -> usize {
            0
        }
        fn fetch(&mut self, _: usize, _: SymOffset) -> u64 {
            panic!("a fixed strategy reached another PE")
        }
        fn compare_swap(&mut self, _: usize, _: SymOffset, _: u64, _: u64) -> bool {
            panic!("a fixed strategy reached another PE")
        }
        fn add(&mut self, _: usize, _: SymOffset, _: u64) {
            panic!("a fixed strategy reached another PE")
        }
        fn wait_step(&mut self) -> bool {
            false
        }
    }

    /// The collectives take `fixed`'s shortcut instead of `acquire`: for
    /// every strategy that offers one, it must be what `acquire` answers.
    #[test]
    fn fixed_memory_is_what_acquire_grants() {
        let mut fixed_seen = Vec::new();
        for s in Strategy::ALL {
            let imp = s.implementation();
            let plan = Plan::new(s, 4, 1024, 2, 16);
            let sync = TeamSync::new(SymOffset(4096), plan, (4, 1, 0), SymOffset(128));
            let Some((mem, graph)) = imp.fixed(&sync) else { continue };
            fixed_seen.push(s);
            for op in [
                CollOp::Barrier,
                CollOp::Broadcast,
                CollOp::Reduce,
                CollOp::Collect,
                CollOp::Alltoall,
            ] {
                let want = Grant::Run {
                    ticket: Ticket { mem, array: None, op },
                    graph,
                    grew: false,
                    messages: 0,
                };
                assert_eq!(imp.acquire(&sync, op, &mut NoRemote), want, "{s:?} {op:?}");
            }
        }
        // These must stay fixed; a new strategy needs no edit here.
        for s in [
            Strategy::Traditional,
            Strategy::Pairwise(Graph::RecursiveDoubling),
            Strategy::Pairwise(Graph::Tree),
            Strategy::Pairwise(Graph::FixedTree),
        ] {
            assert!(fixed_seen.contains(&s), "{s:?} is no longer fixed");
        }
    }
}
