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

use super::strategy::{Grant, Remote, SyncStrategy, Ticket};
use super::{CollOp, Graph, Mem, TeamSync};

/// Bytes of one pairwise location.
pub const LOCATION_BYTES: usize = 8;

/// A pairwise strategy over graph `.0`: the algorithms follow the graph (see
/// `coll::registry::Algorithms::pairwise`) on the locations of the table.
pub(crate) struct Pairwise(pub Graph);

impl SyncStrategy for Pairwise {
    fn slots(&self, _pool: usize, _pool_max: usize) -> (usize, usize) {
        (0, 0)
    }

    fn acquire(&self, sync: &TeamSync, op: CollOp, _remote: &mut dyn Remote) -> Grant {
        Grant::Run {
            ticket: Ticket {
                mem: Mem::Pairs(sync.pairs),
                array: None,
                op,
            },
            graph: Some(self.0),
            grew: false,
            messages: 0,
        }
    }

    fn fixed(&self, sync: &TeamSync) -> Option<(Mem, Option<Graph>)> {
        Some((Mem::Pairs(sync.pairs), Some(self.0)))
    }

    fn release(&self, _sync: &TeamSync, _ticket: Ticket, _remote: &mut dyn Remote) -> u64 {
        0
    }

    fn pair_locations(&self) -> bool {
        true
    }
}
