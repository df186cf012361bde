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
//! to "when may sync memory be reused?" plus the baseline) implement
//! [`SyncStrategy`] ([`strategy`]), one file each; [`Strategy::implementation`]
//! is the one place that maps the configured name to its code:
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
//!
//! Files: this module holds the vocabulary of sync memory (the pSync sizes,
//! [`CollOp`], [`Mem`], a team's [`Plan`] and [`TeamSync`], and the per-PE
//! [`SyncState`] the runtime owns); [`layout`] the words of a sync array;
//! [`pool`] the pool both pool strategies keep; [`accounting`] the ledger.
//! `psync` reaches no other module of the library but `config` (the names)
//! and `heap` (offsets): what a strategy does at another PE goes through the
//! caller's [`Remote`], so `coll` (and the simulator, `sim`) drive it.

pub(crate) mod accounting;
pub(crate) mod barrier_unlock;
pub(crate) mod extra_sync;
pub(crate) mod layout;
pub(crate) mod pairwise;
pub(crate) mod pool;
pub(crate) mod strategy;
pub(crate) mod traditional;

pub use crate::config::{Graph, STRATEGIES, Strategy};
pub use accounting::{Accounting, Footprint, Ledger, stats_line};
pub use layout::Layout;
pub use pairwise::LOCATION_BYTES;
pub use strategy::{Grant, Remote, SyncStrategy, Ticket};

use crate::heap::SymOffset;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, RwLock};

/// 64-bit words of a user's pSync array (`SHMEM_*_SYNC_SIZE`): room for the
/// layout of the largest group ([`layout`]).
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
/// Bytes after a team's inbox rings: the two slabs of its small exchanges
/// (`coll::inbox::exchange`), used by its calls in turn.
pub const SLAB_BYTES: usize = 4 << 10;
/// Bytes of a team's inbox: the rings of a pSync's inbox, then the slabs.
pub const TEAM_INBOX_BYTES: usize = INBOX_BYTES + SLAB_BYTES;
/// Bytes of a user's pSync array with an inbox.
pub const INBOX_PSYNC_BYTES: usize = FLAG_BYTES + INBOX_BYTES;
/// Bytes of one member's record in the argument check of a collective
/// (`coll::check`, `SHMEM_CHECK_COLLECTIVES`).
pub const CHECK_RECORD_BYTES: usize = 128;
/// Allocation unit of the arena (a multiple of the cache line).
pub const UNIT: usize = 128;
/// Sync arrays are placed and counted in whole cache lines.
pub const LINE: usize = 64;

/// What kind of collective asks for sync memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollOp {
    /// A barrier (or sync).
    Barrier,
    /// A broadcast.
    Broadcast,
    /// A collect or fcollect.
    Collect,
    /// An alltoall or alltoalls.
    Alltoall,
    /// A reduction.
    Reduce,
}

impl Strategy {
    /// The strategy's implementation (the one place that maps the
    /// configured name to code).
    pub fn implementation(self) -> &'static dyn SyncStrategy {
        match self {
            Strategy::Traditional => &traditional::Traditional,
            Strategy::ExtraSync => &extra_sync::ExtraSync,
            Strategy::BarrierUnlock => &barrier_unlock::BarrierUnlock,
            Strategy::Pairwise(Graph::RecursiveDoubling) => &pairwise::Pairwise(Graph::RecursiveDoubling),
            Strategy::Pairwise(Graph::Tree) => &pairwise::Pairwise(Graph::Tree),
            Strategy::Pairwise(Graph::FixedTree) => &pairwise::Pairwise(Graph::FixedTree),
        }
    }

    /// Array slots of a team's region: (taken at creation, capacity).
    pub fn slots(self, pool: usize, pool_max: usize) -> (usize, usize) {
        self.implementation().slots(pool, pool_max)
    }
}

/// Bytes of one sync array for a team of `n` PEs (whole cache lines).
pub fn array_bytes(n: usize) -> usize {
    (Layout::for_size(n).words() * 8).next_multiple_of(LINE)
}

/// Where a collective's signals land.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mem {
    /// A sync array at the same offset on every member, laid out by
    /// [`Layout`]: a team's array (array strategies) or a user's pSync.
    Array(SymOffset),
    /// The pairwise strategies' table: on every PE, one 64-bit location per
    /// possible sender, indexed by the sender's world PE number. Any word
    /// index an algorithm names goes to the sender's location.
    Pairs(SymOffset),
}

/// The shape of a team's region: scratch first, then the inbox (teams of
/// two or more), then `cap` array slots, of which `initial` are
/// taken at creation, then, when collectives check their arguments, room
/// for the members' records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The strategy the region is shaped for (which keeps its pool).
    pub strategy: Strategy,
    /// Bytes of collective scratch at the start of the region (a multiple of [`UNIT`]).
    pub scratch: usize,
    /// Bytes of the inbox that small team collectives go through
    /// (`coll::inbox`): [`TEAM_INBOX_BYTES`], or 0 for a team of one.
    pub inbox: usize,
    /// Bytes of one sync array for the team's size ([`array_bytes`]).
    pub array_bytes: usize,
    /// Array slots taken at creation.
    pub initial: usize,
    /// Array slots the region has room for.
    pub cap: usize,
    /// Bytes where the argument check (`coll::check`) exchanges records:
    /// this member's record, then one per member; 0 when the check is off
    /// or the team has one member.
    pub check: usize,
}

impl Plan {
    /// The plan of a team of `size` PEs under `strategy`: `scratch` bytes of scratch (rounded up to [`UNIT`]) and the array slots [`Strategy::slots`] gives for `pool` and `pool_max`; no check records.
    pub fn new(strategy: Strategy, size: usize, scratch: usize, pool: usize, pool_max: usize) -> Plan {
        let (initial, cap) = strategy.slots(pool, pool_max);
        Plan {
            strategy,
            scratch: scratch.next_multiple_of(UNIT),
            inbox: if size > 1 { TEAM_INBOX_BYTES } else { 0 },
            array_bytes: array_bytes(size),
            initial,
            cap,
            check: 0,
        }
    }

    /// The plan with room for the argument check's records when `on`
    /// (`SHMEM_CHECK_COLLECTIVES`) and the team of `size` has others to
    /// agree with.
    pub fn checked(self, on: bool, size: usize) -> Plan {
        let check = match on && size > 1 {
            true => ((size + 1) * CHECK_RECORD_BYTES).next_multiple_of(UNIT),
            false => 0,
        };
        Plan { check, ..self }
    }

    /// Arena units the region spans.
    pub fn units(&self) -> usize {
        (self.scratch + self.inbox + self.cap * self.array_bytes + self.check).div_ceil(UNIT)
    }

    /// Offset of array slot `i` from the start of the region.
    pub fn array_offset(&self, i: usize) -> usize {
        debug_assert!(i < self.cap);
        self.scratch + self.inbox + i * self.array_bytes
    }

    /// Bytes of scratch, inbox and check records: what the footprint
    /// counts as scratch.
    pub fn scratch_bytes(&self) -> usize {
        self.scratch + self.inbox + self.check
    }
}

/// A team's sync memory on this PE.
#[derive(Debug)]
pub struct TeamSync {
    /// Offset of the region in every member's segment.
    pub base: SymOffset,
    /// The shape of the region.
    pub plan: Plan,
    /// Members, and this PE's rank among them.
    pub size: usize,
    /// This PE's rank in the team.
    pub rank: usize,
    /// Word indices of the team's sync arrays, for its size.
    pub layout: Layout,
    /// World PE of the team's rank 0 (owner of extra-sync's release words).
    pub owner: usize,
    /// Offset of the pairwise location table (pairwise strategies), shared
    /// by every team.
    pub pairs: SymOffset,
    /// Pool state of the pool strategies; identical on every member because
    /// it changes only at points every member passes in the same order.
    pool: Mutex<pool::TeamPool>,
    /// Exchanges made so far through the inbox's slabs
    /// (`coll::inbox::exchange`): every member counts the same calls from
    /// the team's creation, when the slabs were zeroed, so the parity that
    /// picks a slab agrees. (Not per region offset, as the rings' counts
    /// are: a slab is shared by all senders, and a region reused by a new
    /// team has members that never counted the old team's calls.)
    pub slab_calls: AtomicU64,
    /// One-round calls made so far through the inbox (broadcasts and
    /// exchanges, `coll::entry::team_is_eager`), counted alike by every
    /// member from the team's creation: each message carries its call's
    /// number (`coll::ring::Tag`), so that a member tells this call's
    /// messages from a later call's, and a root mismatch from a member that
    /// ran ahead.
    pub inbox_calls: AtomicU64,
}

impl TeamSync {
    /// The sync memory of a team at `base` shaped by `plan`, for (size, this PE's rank, world PE of rank 0), with the pairwise table at `pairs`; the pool starts with `plan.initial` of `plan.cap` arrays.
    pub fn new(base: SymOffset, plan: Plan, (size, rank, owner): (usize, usize, usize), pairs: SymOffset) -> TeamSync {
        TeamSync {
            base,
            plan,
            size,
            rank,
            owner,
            pairs,
            layout: Layout::for_size(size),
            pool: Mutex::new(pool::TeamPool::new(
                pool::Pool::new(plan.initial, plan.cap),
                plan.strategy.implementation().pool_state(plan.initial),
            )),
            slab_calls: AtomicU64::new(0),
            inbox_calls: AtomicU64::new(0),
        }
    }

    /// The team's scratch (at the start of the region).
    pub fn scratch(&self) -> SymOffset {
        self.base
    }

    /// The inbox small collectives of the team go through, if any
    /// ([`TEAM_INBOX_BYTES`] on every member: rings, then slabs).
    pub fn inbox(&self) -> Option<SymOffset> {
        (self.plan.inbox > 0).then_some(SymOffset(self.base.0 + self.plan.scratch))
    }

    /// Where the argument check exchanges records, if the team has room for
    /// them ([`Plan::checked`]): this member's record, then the members'.
    pub fn check_area(&self) -> Option<SymOffset> {
        let p = &self.plan;
        (p.check > 0).then(|| SymOffset(self.base.0 + p.scratch + p.inbox + p.cap * p.array_bytes))
    }

    /// Offset of array slot `i` in every member's segment.
    pub fn array(&self, i: usize) -> SymOffset {
        SymOffset(self.base.0 + self.plan.array_offset(i))
    }

    /// The pool state, locked (a poisoned lock is taken over).
    pub fn pool(&self) -> std::sync::MutexGuard<'_, pool::TeamPool> {
        self.pool.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Arrays the team's pool holds now (0 for a strategy without a pool).
    pub fn pool_arrays(&self) -> usize {
        match self.plan.cap {
            0 => 0,
            _ => self.pool().pool.arrays,
        }
    }
}

/// This PE's synchronisation-memory state: the strategy in effect and the
/// accounting (owned by the runtime; reset at every `shmem_init`).
pub struct SyncState {
    /// The strategy in effect (`SHMEM_PSYNC_STRATEGY`).
    pub strategy: Strategy,
    imp: &'static dyn SyncStrategy,
    /// This PE's accounting of sync memory and messages.
    pub accounting: Accounting,
    /// The world team's memory, which `shmem_barrier_all` may unlock.
    world: RwLock<Option<Arc<TeamSync>>>,
}

impl SyncState {
    /// The state for `strategy`, with empty accounting and no world team.
    pub fn new(strategy: Strategy) -> SyncState {
        SyncState {
            strategy,
            imp: strategy.implementation(),
            accounting: Accounting::default(),
            world: RwLock::new(None),
        }
    }

    #[inline]
    /// The strategy's implementation.
    pub fn imp(&self) -> &'static dyn SyncStrategy {
        self.imp
    }

    /// At `shmem_init`: forgets the accounting of the previous run.
    pub fn reset(&self, npes: usize) {
        self.accounting.reset(if self.imp.pair_locations() { npes } else { 0 });
        self.set_world(None);
    }

    /// The world team's memory (`None` once the world team is gone).
    pub fn set_world(&self, world: Option<Arc<TeamSync>>) {
        *self.world.write().unwrap_or_else(|e| e.into_inner()) = world;
    }

    /// `shmem_barrier_all` or `shmem_sync_all` completed on this PE.
    #[inline]
    pub fn observe_world_barrier(&self) {
        if !self.imp.watches_world_barrier() {
            return;
        }
        if let Some(world) = &*self.world.read().unwrap_or_else(|e| e.into_inner()) {
            self.imp.observe_world_barrier(world);
        }
    }

    /// This PE's footprint so far (`shmemx_psync_footprint`).
    pub fn footprint(&self) -> Footprint {
        let l = self.accounting.snapshot();
        Footprint::from_ledger(self.strategy, &l, self.accounting.signals())
    }

    /// The synchronisation memory one team holds on this PE (`sync`, the
    /// team's region). Pairwise locations belong to pairs of PEs, not to
    /// teams, so a team holds none of them; message counts are kept per PE
    /// only and read 0 here.
    pub fn team_footprint(&self, sync: &TeamSync) -> Footprint {
        let plan = sync.plan;
        let arrays = sync.pool_arrays();
        let flags = arrays * plan.array_bytes;
        let baseline = array_bytes(sync.size);
        let l = Ledger {
            flags,
            flags_peak: flags,
            scratch: plan.scratch_bytes(),
            scratch_peak: plan.scratch_bytes(),
            teams: 1,
            teams_peak: 1,
            baseline,
            baseline_peak: baseline,
            baseline_never_freed: baseline,
            ..Ledger::new()
        };
        Footprint::from_ledger(self.strategy, &l, 0)
    }

    /// The line `SHMEM_PSYNC_STATS=1` prints.
    pub fn stats_line(&self, me: usize, npes: usize) -> String {
        let l = self.accounting.snapshot();
        stats_line(me, npes, self.strategy, &l, self.accounting.signals())
    }
}
