//! Indices of the words of a sync array (team sync memory or a user's pSync).
//! Each collective kind has its own words, so back-to-back collectives of
//! different kinds never mistake each other's signals.

/// Rounds a log-depth algorithm may need (groups up to 2^20 PEs).
pub const MAX_ROUNDS: usize = 20;
/// Dissemination barrier: one flag per round. The tree barrier uses the first
/// two: arrivals of children, release by the parent.
pub const BARRIER: usize = 0;
pub const TREE_ARRIVE: usize = 0;
pub const TREE_RELEASE: usize = 1;
/// Broadcast: the data is ready at the sender (root or tree parent).
pub const BCAST_READY: usize = 24;
/// Broadcast: receivers that finished reading (at the root or tree parent).
pub const BCAST_DONE: usize = 25;
/// Binomial broadcast with root != 0: the root tells rank 0 its source is ready.
pub const BCAST_ROOT: usize = 26;
/// Binomial broadcast with root != 0: rank 0 has finished reading the root's source.
pub const BCAST_RELAY: usize = 27;
/// Ring algorithms: the left neighbour has the next block.
pub const RING_READY: usize = 28;
/// Ring algorithms: the right neighbour has finished reading this PE's buffer.
pub const RING_DONE: usize = 29;
/// Recursive doubling: partner's partial for round k is exposed.
pub const RD_READY: usize = 30;
/// Recursive doubling: partner has read this PE's partial of round k.
pub const RD_ACK: usize = RD_READY + MAX_ROUNDS;
/// Recursive doubling, extra ranks: the extra's source is ready to be folded in.
pub const FOLD_READY: usize = RD_ACK + MAX_ROUNDS;
/// Recursive doubling, extra ranks: the result has been written to the extra.
pub const FOLD_RESULT: usize = FOLD_READY + 1;
/// Collect: this PE's element count, published for the others (not a signal).
pub const COLLECT_COUNT: usize = FOLD_RESULT + 1;
/// Words used; `psync::FLAG_WORDS` must be at least this.
pub const USED: usize = COLLECT_COUNT + 1;

const _: () = assert!(USED <= crate::psync::FLAG_WORDS);
const _: () = assert!(BCAST_READY >= BARRIER + MAX_ROUNDS);
