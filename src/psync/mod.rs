//! The synchronisation-memory manager: where the flags and scratch of team
//! collectives live, how a team obtains them without a world-wide step, how
//! they are reused (a *strategy*), and exact accounting of the bytes reserved
//! and of the messages the strategies add.
//!
//! Every team's region lives in a space the team owns (see `space`): the
//! split that creates a team is collective over the parent, the parent's PEs
//! meet in a parent barrier, each reads the space-arena extent lists of the
//! members of the team it joins and takes the lowest extent free on all of
//! them, then a second parent barrier makes sure nobody records an extent
//! while another still reads the lists. Every member of a new team reads the
//! same lists, so every member takes the same offset: the team's *region* is
//! symmetric across the team without any PE outside the parent taking part.
//! Destroying the team gives it back.
//!
//! A region holds the team's scratch and room for its sync arrays ([`Plan`]),
//! in [`UNIT`]-byte steps. Each member zeroes the array part of its copy
//! between the two barriers, before any member can signal into it.
//!
//! The strategies (`SHMEM_PSYNC_STRATEGY`, the research seed's three answers
//! to "when may sync memory be reused?" plus the baseline):
//! - [`traditional`]: one array per team for its whole life;
//! - [`extra_sync`]: a pool per team, each collective locks an array and a
//!   lazy one-sided release message frees it;
//! - [`barrier_unlock`]: a pool per team, a completed barrier unlocks every
//!   array but its own;
//! - [`pairwise`]: no arrays; one location per pair of PEs that ever talk,
//!   shared by every team, with algorithms over a fixed graph.
//!
//! The collective algorithms make every strategy safe back to back (signals
//! count, every word has one sender or an implying one, every collective
//! consumes its signals before it returns, see `coll`); the strategies differ
//! in memory and in messages, which is what the accounting here measures.

pub mod barrier_unlock;
pub mod extra_sync;
pub mod pairwise;
pub mod pool;
pub mod sim;
pub mod traditional;

use crate::coll::flags::Layout;
use crate::heap::SymOffset;
use core::ffi::c_char;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

pub use crate::config::{Graph, STRATEGIES, Strategy};

/// 64-bit words of a user's pSync array (`SHMEM_*_SYNC_SIZE`): room for the
/// layout of the largest group (`coll::flags`).
pub const FLAG_WORDS: usize = 80;
/// Bytes of a user's pSync array.
pub const FLAG_BYTES: usize = FLAG_WORDS * 8;
/// Bytes after the flags of the pSync of a broadcast, reduction, fcollect or
/// alltoall (`SHMEM_BCAST_SYNC_SIZE`, ...): the inbox that the pushed
/// active-set collectives write into (see `coll::bcast::eager`,
/// `coll::reduce::push`, `coll::collect::fcollect_push`), so that nobody
/// writes a PE's dest but the PE itself, inside its own call.
/// 32 KiB: a broadcast root may run ahead of each receiver by about
/// 32 KiB / (n - 1) per pSync (`coll::bcast`), and n PEs' blocks of up to
/// 32 KiB / n go in one round.
pub const INBOX_BYTES: usize = 32 << 10;
/// Bytes of a user's pSync array with an inbox.
pub const INBOX_PSYNC_BYTES: usize = FLAG_BYTES + INBOX_BYTES;
const _: () = assert!(crate::ffi::constants::SHMEM_BARRIER_SYNC_SIZE as usize * 8 == FLAG_BYTES);
const _: () = assert!(crate::ffi::constants::SHMEM_BCAST_SYNC_SIZE as usize * 8 == INBOX_PSYNC_BYTES);
const _: () = assert!(crate::ffi::constants::SHMEM_REDUCE_SYNC_SIZE as usize * 8 == INBOX_PSYNC_BYTES);
const _: () = assert!(crate::ffi::constants::SHMEM_COLLECT_SYNC_SIZE as usize * 8 == INBOX_PSYNC_BYTES);
const _: () = assert!(crate::ffi::constants::SHMEM_ALLTOALL_SYNC_SIZE as usize * 8 == INBOX_PSYNC_BYTES);
/// Allocation unit of the arena (a multiple of the cache line).
pub const UNIT: usize = 128;
/// Sync arrays are placed and counted in whole cache lines.
pub const LINE: usize = 64;

/// What kind of collective asks for sync memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollOp {
    Barrier,
    Broadcast,
    Collect,
    Alltoall,
    Reduce,
}

impl Strategy {
    /// Array slots of a team's region: (taken at creation, capacity).
    pub fn slots(self, pool: usize, pool_max: usize) -> (usize, usize) {
        match self {
            Strategy::Traditional => traditional::SLOTS,
            Strategy::ExtraSync | Strategy::BarrierUnlock => (pool, pool_max.max(pool)),
            Strategy::Pairwise(_) => (0, 0),
        }
    }
}

/// Bytes of one sync array for a team of `n` PEs (whole cache lines).
pub fn array_bytes(n: usize) -> usize {
    (Layout::for_size(n).words() * 8).next_multiple_of(LINE)
}

/// The shape of a team's region: scratch first, then `cap` array slots, of
/// which `initial` are taken at creation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub scratch: usize,
    pub array_bytes: usize,
    pub initial: usize,
    pub cap: usize,
}

impl Plan {
    pub fn new(strategy: Strategy, size: usize, scratch: usize, pool: usize, pool_max: usize) -> Plan {
        let (initial, cap) = strategy.slots(pool, pool_max);
        Plan {
            scratch: scratch.next_multiple_of(UNIT),
            array_bytes: array_bytes(size),
            initial,
            cap,
        }
    }

    /// Arena units the region spans.
    pub fn units(&self) -> usize {
        (self.scratch + self.cap * self.array_bytes).div_ceil(UNIT)
    }

    /// Offset of array slot `i` from the start of the region.
    pub fn array_offset(&self, i: usize) -> usize {
        debug_assert!(i < self.cap);
        self.scratch + i * self.array_bytes
    }
}

/// Per-PE accounting: bytes reserved for synchronisation and the messages
/// the strategy added.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    pub flags: usize,
    pub flags_peak: usize,
    pub scratch: usize,
    pub scratch_peak: usize,
    pub teams: usize,
    pub teams_peak: usize,
    /// What one traditional array per live team would hold.
    pub baseline: usize,
    pub baseline_peak: usize,
    /// What one traditional array per team ever created would hold.
    pub baseline_never_freed: usize,
    /// Team collectives run (splits and destroys count: they synchronise).
    pub collectives: u64,
    /// Remote flag writes the strategy added (release messages, growth
    /// decisions, inserted barriers).
    pub extra_messages: u64,
    /// Arrays a pool grew by, and barriers a pool inserted.
    pub grows: u64,
    pub inserted_barriers: u64,
}

impl Ledger {
    pub const fn new() -> Ledger {
        Ledger {
            flags: 0,
            flags_peak: 0,
            scratch: 0,
            scratch_peak: 0,
            teams: 0,
            teams_peak: 0,
            baseline: 0,
            baseline_peak: 0,
            baseline_never_freed: 0,
            collectives: 0,
            extra_messages: 0,
            grows: 0,
            inserted_barriers: 0,
        }
    }

    pub fn add_flags(&mut self, bytes: usize) {
        self.flags += bytes;
        self.flags_peak = self.flags_peak.max(self.flags);
    }

    /// A team of `size` PEs with region `plan` was created on this PE.
    pub fn team_created(&mut self, plan: &Plan, size: usize) {
        self.add_flags(plan.initial * plan.array_bytes);
        self.scratch += plan.scratch;
        self.scratch_peak = self.scratch_peak.max(self.scratch);
        self.teams += 1;
        self.teams_peak = self.teams_peak.max(self.teams);
        let b = array_bytes(size);
        self.baseline += b;
        self.baseline_peak = self.baseline_peak.max(self.baseline);
        self.baseline_never_freed += b;
    }

    /// A team was destroyed; it held `arrays` arrays of its plan.
    pub fn team_destroyed(&mut self, plan: &Plan, arrays: usize, size: usize) {
        self.flags -= arrays * plan.array_bytes;
        self.scratch -= plan.scratch;
        self.teams -= 1;
        self.baseline -= array_bytes(size);
    }
}

/// This PE's ledger.
pub static LEDGER: Mutex<Ledger> = Mutex::new(Ledger::new());
/// Signals sent by this PE's collectives (every remote flag write).
static SIGNALS: AtomicU64 = AtomicU64::new(0);

pub fn ledger() -> std::sync::MutexGuard<'static, Ledger> {
    LEDGER.lock().unwrap_or_else(|e| e.into_inner())
}

#[inline]
pub fn count_signal() {
    SIGNALS.fetch_add(1, Ordering::Relaxed);
}

pub fn signals() -> u64 {
    SIGNALS.load(Ordering::Relaxed)
}

/// Forgets everything (at `shmem_init`).
pub fn reset_accounting() {
    *ledger() = Ledger::new();
    SIGNALS.store(0, Ordering::Relaxed);
    pairwise::reset(0);
}

/// `shmemx_psync_footprint_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Footprint {
    pub strategy: *const c_char,
    pub flags_current: usize,
    pub flags_peak: usize,
    pub scratch_current: usize,
    pub scratch_peak: usize,
    pub teams_current: usize,
    pub teams_peak: usize,
    pub baseline_current: usize,
    pub baseline_peak: usize,
    pub baseline_never_freed: usize,
    pub collectives: u64,
    pub sync_messages: u64,
    pub extra_messages: u64,
}

impl Footprint {
    pub fn from_ledger(strategy: Strategy, l: &Ledger, signals: u64) -> Footprint {
        Footprint {
            strategy: strategy.cname().as_ptr(),
            flags_current: l.flags,
            flags_peak: l.flags_peak,
            scratch_current: l.scratch,
            scratch_peak: l.scratch_peak,
            teams_current: l.teams,
            teams_peak: l.teams_peak,
            baseline_current: l.baseline,
            baseline_peak: l.baseline_peak,
            baseline_never_freed: l.baseline_never_freed,
            collectives: l.collectives,
            sync_messages: signals,
            extra_messages: l.extra_messages,
        }
    }
}

/// The line `SHMEM_PSYNC_STATS=1` prints at `shmem_finalize`.
pub fn stats_line(me: usize, npes: usize, strategy: Strategy, l: &Ledger, signals: u64) -> String {
    let per = |x: u64| {
        if l.collectives == 0 {
            0.0
        } else {
            x as f64 / l.collectives as f64
        }
    };
    format!(
        "rshmem psync: PE {me} of {npes}: strategy {}: flags {} B (peak {} B), scratch {} B (peak {} B), teams {} (peak {}); \
         traditional baseline {} B (peak {} B, never freed {} B); {} collectives, {:.2} signals and {:.2} extra messages per collective",
        strategy.name(),
        l.flags,
        l.flags_peak,
        l.scratch,
        l.scratch_peak,
        l.teams,
        l.teams_peak,
        l.baseline,
        l.baseline_peak,
        l.baseline_never_freed,
        l.collectives,
        per(signals),
        per(l.extra_messages),
    )
}

/// A team's sync memory on this PE.
#[derive(Debug)]
pub struct TeamSync {
    /// Offset of the region in every member's segment.
    pub base: SymOffset,
    pub plan: Plan,
    /// Members, and this PE's rank among them.
    pub size: usize,
    pub rank: usize,
    pub layout: Layout,
    /// Pool state of the pool strategies; identical on every member because
    /// it changes only at points every member passes in the same order.
    pub pool: Mutex<pool::Pool>,
}

impl TeamSync {
    pub fn new(base: SymOffset, plan: Plan, size: usize, rank: usize) -> TeamSync {
        TeamSync {
            base,
            plan,
            size,
            rank,
            layout: Layout::for_size(size),
            pool: Mutex::new(pool::Pool::new(plan.initial, plan.cap)),
        }
    }

    pub fn scratch(&self) -> SymOffset {
        self.base
    }

    pub fn array(&self, i: usize) -> SymOffset {
        SymOffset(self.base.0 + self.plan.array_offset(i))
    }

    pub fn pool(&self) -> std::sync::MutexGuard<'_, pool::Pool> {
        self.pool.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ledger_tracks_peaks_and_baseline() {
        let mut l = Ledger::new();
        let p = Plan::new(Strategy::Traditional, 4, 1000, 2, 16);
        assert_eq!((p.scratch, p.array_bytes, p.initial, p.cap), (1024, 128, 1, 1));
        l.team_created(&p, 4);
        l.team_created(&p, 4);
        l.team_destroyed(&p, 1, 4);
        assert_eq!((l.flags, l.flags_peak), (128, 256));
        assert_eq!((l.teams, l.teams_peak), (1, 2));
        assert_eq!((l.baseline, l.baseline_peak, l.baseline_never_freed), (128, 256, 256));
        let q = Plan::new(Strategy::ExtraSync, 4096, 1024, 2, 16);
        assert_eq!((q.array_bytes, q.initial, q.cap), (384, 2, 16));
        assert_eq!(q.units(), (1024 + 16 * 384) / UNIT);
        assert_eq!(Plan::new(Strategy::Pairwise(Graph::Tree), 8, 1024, 2, 16).units(), 8);
    }
}
