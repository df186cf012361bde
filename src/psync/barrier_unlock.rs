//! Strategy 2 of the research seed, "unlock on user barrier": a pool of sync
//! arrays per team and no extra messages at all. Each collective locks the
//! lowest unlocked array. When a barrier of the team completes (a team
//! barrier or sync, a split of the team, or `shmem_barrier_all` for the world
//! team), every member has left every earlier collective of the team, so
//! every array but the barrier's own is unlocked. When every array is locked
//! the pool grows by one (up to `SHMEM_PSYNC_POOL_MAX`); at that capacity a
//! barrier is inserted on the last barrier's array (recorded in the ledger
//! as an inserted barrier, its signals as extra messages), which unlocks the
//! rest. The lock state changes only at collective starts and barrier ends,
//! which every member passes in the same order: every member decides alike.
//!
//! Memory: c arrays per team, c the largest number of collectives between
//! two barriers (capped), each log n words: O(c n log n) in all.

use super::pool::{Pick, Pool};
use super::strategy::{Grant, Remote, SyncStrategy, Ticket};
use super::{CollOp, Mem, TeamSync};
use std::any::Any;

pub(crate) struct BarrierUnlock;

impl SyncStrategy for BarrierUnlock {
    fn slots(&self, pool: usize, pool_max: usize) -> (usize, usize) {
        (pool, pool_max.max(pool))
    }

    fn pool_state(&self, initial: usize) -> Box<dyn Any + Send> {
        Box::new(Locks::new(initial))
    }

    fn acquire(&self, sync: &TeamSync, op: CollOp, _remote: &mut dyn Remote) -> Grant {
        let mut team = sync.pool();
        let (pool, locks) = team.parts::<Locks>();
        let pick = acquire(pool, locks);
        let a = pick.array();
        let ticket = |op| Ticket {
            mem: Mem::Array(sync.array(a)),
            array: Some(a),
            op,
        };
        match pick {
            Pick::InsertBarrier { .. } => Grant::BarrierFirst(ticket(CollOp::Barrier)),
            _ => Grant::Run {
                ticket: ticket(op),
                graph: None,
                grew: matches!(pick, Pick::Grow(_)),
                messages: 0,
            },
        }
    }

    fn release(&self, sync: &TeamSync, ticket: Ticket, _remote: &mut dyn Remote) -> u64 {
        if ticket.op == CollOp::Barrier {
            observe_barrier(sync.pool().parts::<Locks>().1, ticket.array);
        }
        0
    }

    fn watches_world_barrier(&self) -> bool {
        true
    }

    fn observe_world_barrier(&self, world: &TeamSync) {
        observe_barrier(world.pool().parts::<Locks>().1, None);
    }
}

/// What barrier-unlock keeps of a team's pool beside the counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Locks {
    /// Arrays in use since the last barrier.
    locked: Vec<bool>,
    /// The array the last barrier ran on.
    last_barrier: Option<usize>,
}

impl Locks {
    /// The state of a pool of `initial` arrays, none locked.
    pub(crate) fn new(initial: usize) -> Locks {
        Locks {
            locked: vec![false; initial],
            last_barrier: None,
        }
    }
}

/// The array for the next collective of the team.
pub(crate) fn acquire(pool: &mut Pool, locks: &mut Locks) -> Pick {
    let pick = match (0..pool.arrays).find(|&a| !locks.locked[a]) {
        Some(a) => Pick::Use(a),
        None if pool.arrays < pool.cap => {
            locks.locked.push(false);
            Pick::Grow(pool.grow())
        }
        None => {
            return Pick::InsertBarrier {
                on: locks.last_barrier.unwrap_or(0),
            };
        }
    };
    locks.locked[pick.array()] = true;
    pool.seq += 1;
    pick
}

/// A barrier of the team that ran on `array` has completed on this PE
/// (`None`: a world barrier that used no array of the team).
pub(crate) fn observe_barrier(locks: &mut Locks, array: Option<usize>) {
    for (a, l) in locks.locked.iter_mut().enumerate() {
        *l = Some(a) == array;
    }
    if array.is_some() {
        locks.last_barrier = array;
    }
}

/// Keeps `array` of the team's pool locked after a barrier: the
/// simulator's hypothetical design in which a collective started before the
/// barrier may still be running (`sim`'s `nb`); never called in a run.
pub(crate) fn keep_locked(sync: &TeamSync, array: usize) {
    sync.pool().parts::<Locks>().1.locked[array] = true;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_between_barriers_and_unlocks_at_them() {
        let (mut p, mut l) = (Pool::new(2, 3), Locks::new(2));
        assert_eq!(acquire(&mut p, &mut l), Pick::Use(0));
        assert_eq!(acquire(&mut p, &mut l), Pick::Use(1));
        assert_eq!(acquire(&mut p, &mut l), Pick::Grow(2));
        // All three locked at capacity: insert a barrier.
        assert_eq!(acquire(&mut p, &mut l), Pick::InsertBarrier { on: 0 });
        observe_barrier(&mut l, Some(0));
        assert_eq!(acquire(&mut p, &mut l), Pick::Use(1));
        // A barrier on array 2 unlocks 0 and 1.
        assert_eq!(acquire(&mut p, &mut l), Pick::Use(2));
        observe_barrier(&mut l, Some(2));
        assert_eq!(acquire(&mut p, &mut l), Pick::Use(0));
        assert_eq!(acquire(&mut p, &mut l), Pick::Use(1));
        assert_eq!(acquire(&mut p, &mut l), Pick::InsertBarrier { on: 2 });
        observe_barrier(&mut l, None);
        assert_eq!(acquire(&mut p, &mut l), Pick::Use(0));
    }
}
