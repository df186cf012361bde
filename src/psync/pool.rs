//! The pool of sync arrays a team keeps under the pool strategies
//! (`extra_sync`, `barrier_unlock`). The pool's state changes only when a
//! collective of the team starts or a barrier of the team completes, which
//! every member does in the same order, so every member's copy agrees and
//! all members pick the same array without talking.

use std::collections::VecDeque;

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
    /// extra-sync: arrays from least to most recently used.
    pub order: VecDeque<usize>,
    /// extra-sync: times each array has been taken.
    pub uses: Vec<u64>,
    /// barrier-unlock: arrays in use since the last barrier.
    pub locked: Vec<bool>,
    /// barrier-unlock: the array the last barrier ran on.
    pub last_barrier: Option<usize>,
}

impl Pool {
    pub fn new(initial: usize, cap: usize) -> Pool {
        Pool {
            arrays: initial,
            cap,
            seq: 0,
            order: (0..initial).collect(),
            uses: vec![0; initial],
            locked: vec![false; initial],
            last_barrier: None,
        }
    }

    /// Adds an array; returns its slot.
    pub fn grow(&mut self) -> usize {
        debug_assert!(self.arrays < self.cap);
        let a = self.arrays;
        self.arrays += 1;
        self.uses.push(0);
        self.locked.push(false);
        a
    }
}
