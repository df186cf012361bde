//! Strategy 3 of the research seed, "pairwise synchronisation": no sync
//! arrays. Every PE has one 64-bit location per PE that may signal it (a
//! table indexed by the sender's world PE number, at the same offset on
//! every PE); a location is counted as reserved the first time its pair
//! talks, and is shared by every team in which that pair talks. The
//! footprint of a PE is therefore the number of distinct partners it ever
//! had, which depends only on the algorithms' communication graph:
//!
//! - `pairwise-rd`: recursive doubling (`r XOR 2^k`, extra ranks folded onto
//!   `r - p`) for barriers and reductions, and a binomial tree in XOR space
//!   for broadcasts; the edges do not depend on the root, and teams whose
//!   members keep their relative positions share them: O(log n) per PE.
//! - `pairwise-tree`: a binary tree rooted at rank 0 for barriers and
//!   reductions, re-rooted at each broadcast's root: over many roots a PE may
//!   pair with any other: O(n) per PE, O(n^2) in all.
//! - `pairwise-tree-fixed`: the one binary tree rooted at rank 0 for
//!   everything, a broadcast from elsewhere travelling up and down its edges:
//!   at most three partners per PE, paths up to twice as long.
//!
//! The seed keeps several locations per peer and rotates through them,
//! unlocking them when a message from that peer arrives, because its flags
//! are set and reset: a second signal to a location not yet reset would be
//! lost. Here locations count (a signal adds one, the receiver waits for the
//! count it expects and subtracts it), so one location carries any number of
//! signals in flight, and the k-th signal a PE consumes from a peer is the
//! peer's k-th signal to it. That matches meanings as long as two PEs order
//! the collectives they share alike, which every program that cannot
//! deadlock does (collectives on one team are called in the same order by
//! all members, and a PE in two teams that ordered their collectives
//! differently from a peer in both would wait on that peer forever under
//! any synchronising implementation).

use super::{CollOp, Graph};
use crate::coll::registry::{Algorithms, Barrier, Bcast, Collect, Reduce};
use crate::coll::topology::{self, Cube};
use std::sync::RwLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes of one pairwise location.
pub const LOCATION_BYTES: usize = 8;

/// The algorithms the graph prescribes (they override `SHMEM_*_ALGORITHM`).
pub fn algorithms(g: Graph) -> Algorithms {
    match g {
        Graph::RecursiveDoubling => Algorithms {
            barrier: Barrier::RecursiveDoubling,
            bcast: Bcast::Cube,
            reduce: Reduce::RecursiveDoubling,
            collect: Collect::Linear,
        },
        Graph::Tree => Algorithms {
            barrier: Barrier::BinaryTree,
            bcast: Bcast::RootedTree,
            reduce: Reduce::Linear,
            collect: Collect::Linear,
        },
        Graph::FixedTree => Algorithms {
            barrier: Barrier::BinaryTree,
            bcast: Bcast::FixedTree,
            reduce: Reduce::Linear,
            collect: Collect::Linear,
        },
    }
}

/// The ranks that signal rank `r` of a group of `n` in one collective of kind
/// `op` (`root` matters to broadcasts only). Collect, alltoall and the tree
/// strategies' reductions synchronise with the group's barrier.
pub fn peers(g: Graph, op: CollOp, n: usize, r: usize, root: usize) -> Vec<usize> {
    if n <= 1 {
        return vec![];
    }
    match (g, op) {
        (Graph::RecursiveDoubling, CollOp::Broadcast) => topology::cube_bcast(n, r, root).peers(),
        (Graph::RecursiveDoubling, _) => Cube::new(n).peers(r),
        (Graph::Tree, CollOp::Broadcast) => topology::rooted_tree_bcast(n, r, root).peers(),
        (Graph::FixedTree, CollOp::Broadcast) => topology::fixed_tree_bcast(n, r, root).peers(),
        (Graph::Tree | Graph::FixedTree, _) => topology::binary_tree(n, r).peers(),
    }
}

/// A set of world PEs (the partners a PE has had).
#[derive(Clone, Debug, Default)]
pub struct Partners {
    bits: Vec<u64>,
    pub count: usize,
}

impl Partners {
    pub fn new(npes: usize) -> Partners {
        Partners {
            bits: vec![0; npes.div_ceil(64)],
            count: 0,
        }
    }

    /// Records `pe`; true if it is new.
    pub fn note(&mut self, pe: usize) -> bool {
        let (w, b) = (pe / 64, 1u64 << (pe % 64));
        if self.bits[w] & b != 0 {
            return false;
        }
        self.bits[w] |= b;
        self.count += 1;
        true
    }
}

/// This PE's partners: a bit per world PE, set the first time that PE's
/// signal is consumed here (the location at this PE is then in use).
static SEEN: RwLock<Vec<AtomicU64>> = RwLock::new(Vec::new());

/// Forgets every partner (at `shmem_init`, with the job's size).
pub fn reset(npes: usize) {
    let mut seen = SEEN.write().unwrap_or_else(|e| e.into_inner());
    seen.clear();
    seen.extend((0..npes.div_ceil(64)).map(|_| AtomicU64::new(0)));
}

/// A signal from world PE `pe` is being consumed here: the first time, its
/// location counts as reserved.
#[inline]
pub fn note_partner(pe: usize) {
    let seen = SEEN.read().unwrap_or_else(|e| e.into_inner());
    let (w, b) = (pe / 64, 1u64 << (pe % 64));
    let Some(word) = seen.get(w) else { return };
    if word.load(Ordering::Relaxed) & b == 0 && word.fetch_or(b, Ordering::Relaxed) & b == 0 {
        super::ledger().add_flags(LOCATION_BYTES);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distinct partners of rank 0 over prefix teams n, n-1, ..., 1.
    fn shrinking(g: Graph, n: usize) -> usize {
        let mut p = Partners::new(n);
        for m in (1..=n).rev() {
            for op in [CollOp::Barrier, CollOp::Reduce] {
                for x in peers(g, op, m, 0, 0) {
                    p.note(x);
                }
            }
            for root in 0..m {
                for x in peers(g, CollOp::Broadcast, m, 0, root) {
                    p.note(x);
                }
            }
        }
        p.count
    }

    #[test]
    fn partner_counts_follow_the_graphs() {
        // Recursive doubling: log2 n partners for PE 0 however the team shrinks.
        assert_eq!(shrinking(Graph::RecursiveDoubling, 64), 6);
        assert_eq!(shrinking(Graph::RecursiveDoubling, 1024), 10);
        // The fixed tree: PE 0 has two children, whatever the root.
        assert_eq!(shrinking(Graph::FixedTree, 64), 2);
        // Re-rooted trees: PE 0 ends up pairing with almost everyone.
        assert!(shrinking(Graph::Tree, 64) > 40);
    }
}
