//! The pool of sync arrays a team keeps under the pool strategies
//! (`extra_sync`, `barrier_unlock`). The pool's state changes only when a
//! collective of the team starts or a barrier of the team completes, which
//! every member does in the same order, so every member's copy agrees and
//! all members pick the same array without talking.
//!
//! The counts every pool strategy keeps are a [`Pool`]; what one strategy
//! keeps beside them (extra-sync's order of use, barrier-unlock's locks) is
//! its own type in its own file, made by
//! [`SyncStrategy::pool_state`](super::strategy::SyncStrategy::pool_state)
//! and held here untyped, so a new strategy with state of its own edits no
//! shared struct.

use std::any::Any;

/// What a collective gets from the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pick {
    /// An array the pool already had.
    Use(usize),
    /// A new array, just added to the pool (its bytes count from now on).
    Grow(usize),
    /// Every array is locked and the pool is at its capacity: run a barrier
    /// on array `on` (which unlocks the others), then ask again.
    InsertBarrier { on: usize },
}

impl Pick {
    pub(crate) fn array(self) -> usize {
        match self {
            Pick::Use(a) | Pick::Grow(a) | Pick::InsertBarrier { on: a } => a,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pool {
    /// Arrays in the pool (slots `0..arrays` of the team's region).
    pub arrays: usize,
    /// Slots the region has room for.
    pub cap: usize,
    /// Collectives started on the team so far.
    pub seq: u64,
}

impl Pool {
    pub fn new(initial: usize, cap: usize) -> Pool {
        Pool {
            arrays: initial,
            cap,
            seq: 0,
        }
    }

    /// Adds an array; returns its slot.
    pub fn grow(&mut self) -> usize {
        debug_assert!(self.arrays < self.cap);
        let a = self.arrays;
        self.arrays += 1;
        a
    }
}

/// A team's pool and what its strategy keeps beside it.
#[derive(Debug)]
pub struct TeamPool {
    /// The counts.
    pub pool: Pool,
    own: Box<dyn Any + Send>,
}

impl TeamPool {
    /// `pool` with the strategy's state `own`.
    pub fn new(pool: Pool, own: Box<dyn Any + Send>) -> TeamPool {
        TeamPool { pool, own }
    }

    /// The counts and the strategy's state, as the strategy made it.
    pub fn parts<T: Any>(&mut self) -> (&mut Pool, &mut T) {
        let own = self
            .own
            .downcast_mut()
            .expect("a team's pool state is its strategy's type");
        (&mut self.pool, own)
    }
}
