//! Algorithm choice: one environment variable per collective kind (parsed
//! by `config`), an automatic choice by group size and length, and the
//! algorithms and communication graphs the pairwise strategies prescribe.

use super::topology::{self, Cube};
use crate::config::{BarrierAlgorithm, BcastAlgorithm, CollectAlgorithm, Config, Graph, ReduceAlgorithm};
use crate::psync::CollOp;
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Barrier {
    Auto,
    /// log2(n) rounds; PE r signals r + 2^k.
    Dissemination,
    /// log2(n) exchange rounds with r XOR 2^k; extra ranks fold onto r - p.
    RecursiveDoubling,
    /// A 4-ary tree rooted at rank 0: arrivals up, release down.
    Tree,
    /// A flat tree: everyone signals rank 0, which releases everyone.
    Linear,
    /// A binary tree rooted at rank 0 (the tree of the pairwise tree strategies).
    BinaryTree,
    /// Every member signals every other: one round, n - 1 signals each.
    Complete,
}

impl Barrier {
    /// The algorithm for a group of `n` PEs.
    pub(crate) fn resolve(self, n: usize) -> Barrier {
        match self {
            // Measured on 2 cores (benches/README.md): dissemination is
            // quickest for up to 4 PEs; from 5 on, PEs outnumber cores and every
            // round costs a hand-over, so the two hops of the flat tree win.
            Barrier::Auto if n <= 4 || n > 64 => Barrier::Dissemination,
            Barrier::Auto => Barrier::Linear,
            other => other,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bcast {
    Auto,
    /// Every receiver copies from the root.
    Linear,
    /// A binomial tree rooted at rank 0; each node copies from its parent.
    Binomial,
    /// Pairwise strategies only: a binomial tree in XOR space rooted at the
    /// root, over the recursive-doubling edges.
    Cube,
    /// Pairwise strategies only: a binary tree re-rooted at the root.
    RootedTree,
    /// Pairwise strategies only: the binary tree rooted at rank 0, whatever the root.
    FixedTree,
}

impl Bcast {
    /// The automatic choice for the active-set routines: messages that fit
    /// the pSync's inbox go eagerly (`bcast::eager`), and the root returns at
    /// once.
    pub(crate) fn resolve_user_sync(self, n: usize, bytes: usize) -> Push<Bcast> {
        match self {
            Bcast::Auto if super::bcast::eager_fits(n, bytes) => Push::Push,
            other => Push::Not(other.resolve(n, bytes)),
        }
    }

    pub(crate) fn resolve(self, n: usize, bytes: usize) -> Bcast {
        match self {
            // Copies from one source compete for its cache lines only when
            // many PEs read a large buffer at once.
            Bcast::Auto if n > 8 && bytes >= 64 << 10 => Bcast::Binomial,
            Bcast::Auto => Bcast::Linear,
            other => other,
        }
    }
}

/// An algorithm where every sender writes into the receivers' pSync inbox
/// (or, once every member has entered the call, their dest) and signals
/// once, without a handshake: for the active-set routines, whose callers
/// keep a pSync out of use until every member has left the call (two pSyncs
/// used in turn), and give it an inbox. A PE's dest is written by others only
/// while it is inside the call. Team sync memory has no such guarantee (a
/// fast member may start the next call before a slow one has seen all of
/// this call's signals), so the team routines that signal never push; the
/// team's small broadcasts, fcollects, alltoalls and reductions instead go
/// through its inbox, on no flag: the ring cells there say themselves what
/// they hold and are flow-controlled, so a member may run ahead
/// (`entry::team_is_eager`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Push<A> {
    Push,
    Not(A),
}

impl Collect {
    /// The automatic choice for the active-set fcollect (see [`Push`]).
    pub(crate) fn resolve_user_sync(self, n: usize) -> Push<Collect> {
        match self {
            Collect::Auto => Push::Push,
            other => Push::Not(other.resolve(n)),
        }
    }
}

/// Bytes from which the automatic choice reduces by scatter-gather. Measured
/// at 2, 4 and 8 PEs on 2 cores, 4 KiB to 1 MiB: it beats the ring at every
/// size, and linear from 16 KiB (about even there); below, its third barrier
/// costs more than linear's extra reads.
const SCATTER_GATHER_FROM: usize = 16 << 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reduce {
    Auto,
    /// Everyone reads every source and combines them in rank order.
    Linear,
    /// log2(n) exchange rounds through the scratch buffer.
    RecursiveDoubling,
    /// Reduce-scatter then allgather around the ring.
    Ring,
    /// Each rank folds its block of every source in rank order, then copies
    /// the other blocks from their owners' dests.
    ScatterGather,
}

impl Reduce {
    /// The automatic choice for the active-set reductions (see [`Push`]): when
    /// every member's contribution fits the pSync's inbox, push.
    pub(crate) fn resolve_user_sync(self, n: usize, bytes: usize) -> Push<Reduce> {
        match self {
            Reduce::Auto if n.saturating_mul(bytes) <= crate::psync::INBOX_BYTES => Push::Push,
            other => Push::Not(other.resolve(n, bytes)),
        }
    }

    pub(crate) fn resolve(self, n: usize, bytes: usize) -> Reduce {
        match self {
            // Large arrays: scatter-gather reads each source byte once and
            // copies each result byte once per PE, whatever the PE count,
            // where linear reads every source on every PE and the ring passes
            // every block through n - 1 partials.
            Reduce::Auto if bytes >= SCATTER_GATHER_FROM => Reduce::ScatterGather,
            Reduce::Auto if n > 8 => Reduce::RecursiveDoubling,
            Reduce::Auto => Reduce::Linear,
            other => other,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Collect {
    Auto,
    /// Barrier, everyone copies every block, barrier.
    Linear,
    /// n - 1 steps; each PE copies one block from its left neighbour.
    Ring,
}

impl Collect {
    pub(crate) fn resolve(self, _n: usize) -> Collect {
        match self {
            Collect::Auto => Collect::Linear,
            other => other,
        }
    }
}

/// The choices in effect.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Algorithms {
    pub barrier: Barrier,
    pub bcast: Bcast,
    pub reduce: Reduce,
    pub collect: Collect,
}

impl Algorithms {
    /// Every choice automatic (no `SHMEM_*_ALGORITHM` set).
    pub(crate) const AUTO: Algorithms = Algorithms {
        barrier: Barrier::Auto,
        bcast: Bcast::Auto,
        reduce: Reduce::Auto,
        collect: Collect::Auto,
    };

    /// The algorithms the graph prescribes (they override `SHMEM_*_ALGORITHM`).
    pub(crate) fn pairwise(g: Graph) -> Algorithms {
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
}

/// The ranks that signal rank `r` of a group of `n` in one collective of kind
/// `op` (`root` matters to broadcasts only). Collect, alltoall and the tree
/// strategies' reductions synchronise with the group's barrier.
pub(crate) fn pairwise_peers(g: Graph, op: CollOp, n: usize, r: usize, root: usize) -> Vec<usize> {
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

impl From<BarrierAlgorithm> for Barrier {
    fn from(a: BarrierAlgorithm) -> Barrier {
        match a {
            BarrierAlgorithm::Auto => Barrier::Auto,
            BarrierAlgorithm::Dissemination => Barrier::Dissemination,
            BarrierAlgorithm::RecursiveDoubling => Barrier::RecursiveDoubling,
            BarrierAlgorithm::Tree => Barrier::Tree,
            BarrierAlgorithm::Linear => Barrier::Linear,
            BarrierAlgorithm::Complete => Barrier::Complete,
        }
    }
}

impl From<BcastAlgorithm> for Bcast {
    fn from(a: BcastAlgorithm) -> Bcast {
        match a {
            BcastAlgorithm::Auto => Bcast::Auto,
            BcastAlgorithm::Linear => Bcast::Linear,
            BcastAlgorithm::Binomial => Bcast::Binomial,
        }
    }
}

impl From<ReduceAlgorithm> for Reduce {
    fn from(a: ReduceAlgorithm) -> Reduce {
        match a {
            ReduceAlgorithm::Auto => Reduce::Auto,
            ReduceAlgorithm::Linear => Reduce::Linear,
            ReduceAlgorithm::RecursiveDoubling => Reduce::RecursiveDoubling,
            ReduceAlgorithm::Ring => Reduce::Ring,
            ReduceAlgorithm::ScatterGather => Reduce::ScatterGather,
        }
    }
}

impl From<CollectAlgorithm> for Collect {
    fn from(a: CollectAlgorithm) -> Collect {
        match a {
            CollectAlgorithm::Auto => Collect::Auto,
            CollectAlgorithm::Linear => Collect::Linear,
            CollectAlgorithm::Ring => Collect::Ring,
        }
    }
}

impl Algorithms {
    /// The choices of the `SHMEM_*_ALGORITHM` variables.
    pub(crate) fn from_config(c: &Config) -> Algorithms {
        Algorithms {
            barrier: c.barrier_algorithm.into(),
            bcast: c.bcast_algorithm.into(),
            reduce: c.reduce_algorithm.into(),
            collect: c.collect_algorithm.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_auto_resolves() {
        assert_eq!(
            Barrier::from(BarrierAlgorithm::RecursiveDoubling),
            Barrier::RecursiveDoubling
        );
        let a = Algorithms {
            barrier: BarrierAlgorithm::Tree.into(),
            bcast: BcastAlgorithm::Binomial.into(),
            reduce: ReduceAlgorithm::RecursiveDoubling.into(),
            collect: CollectAlgorithm::Ring.into(),
        };
        assert_eq!(a.barrier.resolve(100), Barrier::Tree);
        assert_eq!(a.bcast, Bcast::Binomial);
        assert_eq!(a.reduce, Reduce::RecursiveDoubling);
        assert_eq!(a.collect.resolve(3), Collect::Ring);
        let auto = Algorithms::from_config(&Config::from_lookup(|_| None).unwrap());
        assert_eq!(auto.barrier.resolve(2), Barrier::Dissemination);
        assert_eq!(auto.barrier.resolve(8), Barrier::Linear);
        assert_eq!(auto.barrier.resolve(128), Barrier::Dissemination);
        assert_eq!(auto.reduce.resolve(8, 8), Reduce::Linear);
        assert_eq!(auto.bcast.resolve(4, 1 << 20), Bcast::Linear);
        assert_eq!(auto.bcast.resolve_user_sync(4, 8), Push::Push);
        assert_eq!(auto.bcast.resolve_user_sync(4, 1 << 20), Push::Not(Bcast::Linear));
        assert_eq!(a.bcast.resolve_user_sync(4, 8), Push::Not(Bcast::Binomial));
        assert_eq!(auto.collect.resolve_user_sync(4), Push::Push);
        assert_eq!(a.collect.resolve_user_sync(4), Push::Not(Collect::Ring));
        assert_eq!(auto.reduce.resolve_user_sync(8, 4096), Push::Push);
        assert_eq!(auto.reduce.resolve_user_sync(8, 4097), Push::Not(Reduce::Linear));
        assert_eq!(a.reduce.resolve_user_sync(8, 8), Push::Not(Reduce::RecursiveDoubling));
    }

    #[test]
    fn large_reductions_scatter_gather() {
        let auto = Reduce::from(ReduceAlgorithm::Auto);
        for n in [2, 4, 8, 64] {
            assert_eq!(auto.resolve(n, 1 << 20), Reduce::ScatterGather, "{n} PEs");
            assert_eq!(auto.resolve(n, SCATTER_GATHER_FROM), Reduce::ScatterGather, "{n} PEs");
            assert_ne!(
                auto.resolve(n, SCATTER_GATHER_FROM - 1),
                Reduce::ScatterGather,
                "{n} PEs"
            );
            // The active-set routines too, once the contributions leave the inbox.
            assert_eq!(auto.resolve_user_sync(n, 1 << 20), Push::Not(Reduce::ScatterGather));
        }
        assert_eq!(auto.resolve(4, 4 << 10), Reduce::Linear);
        assert_eq!(auto.resolve(16, 4 << 10), Reduce::RecursiveDoubling);
        // The others stay selectable.
        let ring = Reduce::from(ReduceAlgorithm::Ring);
        assert_eq!(ring.resolve(8, 1 << 20), Reduce::Ring);
        assert_eq!(
            Reduce::from(ReduceAlgorithm::ScatterGather).resolve(8, 8),
            Reduce::ScatterGather
        );
    }

    /// Distinct partners of rank 0 over prefix teams n, n-1, ..., 1.
    fn shrinking(g: Graph, n: usize) -> usize {
        let mut p = std::collections::BTreeSet::new();
        for m in (1..=n).rev() {
            for op in [CollOp::Barrier, CollOp::Reduce] {
                for x in pairwise_peers(g, op, m, 0, 0) {
                    p.insert(x);
                }
            }
            for root in 0..m {
                for x in pairwise_peers(g, CollOp::Broadcast, m, 0, root) {
                    p.insert(x);
                }
            }
        }
        p.len()
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
