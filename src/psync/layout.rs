//! The words of a sync array (team sync memory of the array strategies, or a
//! user's pSync). Each collective kind has its own words, so back-to-back
//! collectives of different kinds never mistake each other's signals.
//!
//! The layout depends on the group size only through the number of rounds a
//! log-depth algorithm needs, so a team's array holds `3 * rounds + 10` words:
//! the footprint of a per-team array grows as log n, as the research seed
//! assumes. Every member computes the same layout from the same size.
//!
//! ```text
//! 0 .. R           barrier rounds (the tree barrier uses words 0 and 1)
//! R + 0 .. R + 5   broadcast ready / done / root / relay, ring ready / done
//! R + 6 .. 2R + 6  recursive doubling: partner's partial of round k exposed
//! 2R + 6 .. 3R + 6 recursive doubling: partner has read this PE's partial
//! 3R + 6 ..        fold ready, fold result, collect count, pool release
//! ```

/// Rounds a log-depth algorithm may need for any group (2^20 PEs).
pub(crate) const MAX_ROUNDS: usize = 20;

/// Word indices of a sync array for a group of a given size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    rounds: usize,
}

impl Layout {
    /// The layout for a group of `n` PEs.
    pub fn for_size(n: usize) -> Layout {
        let log = usize::BITS - n.saturating_sub(1).leading_zeros();
        Layout {
            rounds: (log as usize).clamp(2, MAX_ROUNDS),
        }
    }

    /// Dissemination or recursive-doubling barrier: round `k`.
    pub fn barrier(&self, k: usize) -> usize {
        debug_assert!(k < self.rounds);
        k
    }
    /// Tree barrier: arrivals of children.
    pub fn tree_arrive(&self) -> usize {
        0
    }
    /// Tree barrier: release by the parent.
    pub fn tree_release(&self) -> usize {
        1
    }
    /// Broadcast: the data is ready at the sender (root or tree parent).
    pub fn bcast_ready(&self) -> usize {
        self.rounds
    }
    /// Broadcast: receivers that finished reading.
    pub fn bcast_done(&self) -> usize {
        self.rounds + 1
    }
    /// Binomial broadcast with root != 0: the root tells rank 0 its source is ready.
    pub fn bcast_root(&self) -> usize {
        self.rounds + 2
    }
    /// Binomial broadcast with root != 0: rank 0 has read the root's source.
    pub fn bcast_relay(&self) -> usize {
        self.rounds + 3
    }
    /// Ring algorithms: the left neighbour has the next block.
    pub fn ring_ready(&self) -> usize {
        self.rounds + 4
    }
    /// Ring algorithms: the right neighbour has read this PE's buffer.
    pub fn ring_done(&self) -> usize {
        self.rounds + 5
    }
    /// Recursive doubling: the partner's partial of round `k` is exposed.
    pub fn rd_ready(&self, k: usize) -> usize {
        debug_assert!(k < self.rounds);
        self.rounds + 6 + k
    }
    /// Recursive doubling: the partner has read this PE's partial of round `k`.
    pub fn rd_ack(&self, k: usize) -> usize {
        debug_assert!(k < self.rounds);
        2 * self.rounds + 6 + k
    }
    /// Extra ranks of recursive doubling: the extra's contribution is ready.
    pub fn fold_ready(&self) -> usize {
        3 * self.rounds + 6
    }
    /// Extra ranks of recursive doubling: the result reached the extra.
    pub fn fold_result(&self) -> usize {
        3 * self.rounds + 7
    }
    /// Collect: this PE's element count, published (not a signal).
    pub fn collect_count(&self) -> usize {
        3 * self.rounds + 8
    }
    /// Pool strategies: the release counter of this array at its owner.
    pub fn release(&self) -> usize {
        3 * self.rounds + 9
    }
    /// Words used.
    pub fn words(&self) -> usize {
        3 * self.rounds + 10
    }
}

const _: () = assert!(3 * MAX_ROUNDS + 10 <= super::FLAG_WORDS);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_grows_with_log_of_size() {
        assert_eq!(Layout::for_size(1).words(), 16);
        assert_eq!(Layout::for_size(4).words(), 16);
        assert_eq!(Layout::for_size(5).words(), 19);
        assert_eq!(Layout::for_size(4096).words(), 46);
        assert_eq!(Layout::for_size(4097).words(), 49);
        assert_eq!(Layout::for_size(usize::MAX).words(), 70);
        let l = Layout::for_size(64);
        let mut all: Vec<usize> = (0..6).map(|k| l.barrier(k)).collect();
        all.extend([
            l.bcast_ready(),
            l.bcast_done(),
            l.bcast_root(),
            l.bcast_relay(),
            l.ring_ready(),
            l.ring_done(),
        ]);
        all.extend((0..6).map(|k| l.rd_ready(k)));
        all.extend((0..6).map(|k| l.rd_ack(k)));
        all.extend([l.fold_ready(), l.fold_result(), l.collect_count(), l.release()]);
        let mut sorted = all.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), all.len());
        assert_eq!(*sorted.last().unwrap() + 1, l.words());
    }
}
