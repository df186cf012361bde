//! The synchronisation-memory manager: where the flags and scratch of team
//! collectives live, how a team obtains them without a world-wide step, and
//! exact accounting of the bytes reserved.
//!
//! Every segment ends with a *sync arena* (`SHMEM_SYNC_ARENA_SIZE`), cut into
//! [`UNIT`]-byte units and described by an occupancy bitmap at its start. A team
//! is created by a split, which is collective over the parent: the parent's PEs
//! meet in a parent barrier, each reads the bitmaps of the members of the team it
//! joins and takes the lowest run of units free on all of them, then a second
//! parent barrier makes sure nobody marks its bitmap while another still reads
//! it. Every member of a new team reads the same bitmaps, so every member takes
//! the same offset: the memory is symmetric across the team without any PE
//! outside the parent taking part. Destroying the team returns its units.
//!
//! How that memory is used by collectives, and reused between them, is a
//! [`Strategy`]. The first one is the traditional scheme: each team owns one
//! dedicated sync array (flags) and one scratch buffer for its whole life. The
//! collective algorithms keep that safe back to back: every flag has one
//! sender per team (or a sender whose signal implies the awaited one, see
//! `coll`), flags count rather than toggle, and a collective consumes every
//! signal sent to it before it returns, so the array is back to all zeros
//! (`SHMEM_SYNC_VALUE`) when no collective is running.

pub mod arena;

use crate::heap::SymOffset;
use core::ffi::c_char;
use std::sync::Mutex;

/// Names accepted by `SHMEM_PSYNC_STRATEGY`.
pub const STRATEGIES: &[&str] = &["traditional"];

/// 64-bit flags in one sync array. The layout of the indices is in
/// `coll::flags`; `SHMEM_*_SYNC_SIZE` equal this, so a user's pSync array
/// holds the same layout for the active-set collectives.
pub const FLAG_WORDS: usize = 80;
/// Bytes of one sync array.
pub const FLAG_BYTES: usize = FLAG_WORDS * 8;
/// Allocation unit of the arena (a multiple of the cache line).
pub const UNIT: usize = 128;

/// The sync memory a collective runs on: flags and scratch, at offsets that
/// are the same on every member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SyncArea {
    pub flags: SymOffset,
    pub scratch: SymOffset,
    pub scratch_len: usize,
}

/// What kind of collective asks for sync memory (strategies may keep separate
/// arrays per kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollOp {
    Barrier,
    Broadcast,
    Collect,
    Alltoall,
    Reduce,
}

/// Bytes one team reserves on one PE.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reserve {
    pub flags: usize,
    pub scratch: usize,
}

/// A team's sync memory on this PE: the units it holds in the arena and how
/// they are split.
#[derive(Debug)]
pub struct TeamSync {
    pub area: SyncArea,
    /// First unit and number of units in the arena.
    pub units: (usize, usize),
    pub reserve: Reserve,
}

/// The interface a reuse strategy implements. Every call happens on every
/// member of the team in the same order (collectives are called in the same
/// order by all members), so deterministic choices agree without messages.
pub trait Strategy: Send + Sync {
    fn name(&self) -> &'static str;
    /// Bytes a new team of `size` PEs reserves on each member at creation.
    fn reserve(&self, size: usize, scratch: usize) -> Reserve;
    /// The sync memory a collective of kind `op` on `team` uses.
    fn acquire(&self, team: &TeamSync, op: CollOp) -> SyncArea;
    /// The collective that acquired `area` has returned on this PE.
    fn release(&self, team: &TeamSync, op: CollOp, area: SyncArea);
    /// A barrier over `team` has completed on this PE: every member has left
    /// every earlier collective of the team.
    fn observe_barrier(&self, team: &TeamSync);
}

/// Dedicated arrays per team: one sync array and one scratch buffer, reserved
/// at creation and returned at destruction.
pub struct Traditional;

impl Strategy for Traditional {
    fn name(&self) -> &'static str {
        "traditional"
    }
    fn reserve(&self, _size: usize, scratch: usize) -> Reserve {
        Reserve {
            flags: FLAG_BYTES.next_multiple_of(UNIT),
            scratch: scratch.next_multiple_of(UNIT),
        }
    }
    fn acquire(&self, team: &TeamSync, _op: CollOp) -> SyncArea {
        team.area
    }
    fn release(&self, _team: &TeamSync, _op: CollOp, _area: SyncArea) {}
    fn observe_barrier(&self, _team: &TeamSync) {}
}

/// The strategy selected by `SHMEM_PSYNC_STRATEGY`.
pub fn strategy(name: &str) -> &'static dyn Strategy {
    match name {
        "traditional" => &Traditional,
        other => unreachable!("config admits only known strategies, got {other}"),
    }
}

/// `shmemx_psync_footprint_t`: bytes of synchronisation memory reserved.
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
}

/// Running totals of one PE.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub flags: usize,
    pub flags_peak: usize,
    pub scratch: usize,
    pub scratch_peak: usize,
    pub teams: usize,
    pub teams_peak: usize,
}

impl Totals {
    pub fn add(&mut self, r: Reserve) {
        self.flags += r.flags;
        self.scratch += r.scratch;
        self.teams += 1;
        self.flags_peak = self.flags_peak.max(self.flags);
        self.scratch_peak = self.scratch_peak.max(self.scratch);
        self.teams_peak = self.teams_peak.max(self.teams);
    }
    pub fn remove(&mut self, r: Reserve) {
        self.flags -= r.flags;
        self.scratch -= r.scratch;
        self.teams -= 1;
    }
}

/// This PE's totals (all teams).
pub static TOTALS: Mutex<Totals> = Mutex::new(Totals {
    flags: 0,
    flags_peak: 0,
    scratch: 0,
    scratch_peak: 0,
    teams: 0,
    teams_peak: 0,
});

pub fn totals() -> Totals {
    *TOTALS.lock().unwrap_or_else(|e| e.into_inner())
}

/// A C string naming the strategy, for [`Footprint::strategy`].
pub fn strategy_cstr(name: &str) -> *const c_char {
    match name {
        "traditional" => c"traditional".as_ptr(),
        _ => c"unknown".as_ptr(),
    }
}

/// The line `SHMEM_PSYNC_STATS=1` prints at `shmem_finalize`.
pub fn stats_line(me: usize, npes: usize, strategy: &str, t: Totals) -> String {
    format!(
        "rshmem psync: PE {me} of {npes}: strategy {strategy}: flags {} B (peak {} B), scratch {} B (peak {} B), teams {} (peak {})",
        t.flags, t.flags_peak, t.scratch, t.scratch_peak, t.teams, t.teams_peak
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_track_peaks() {
        let mut t = Totals::default();
        let r = Traditional.reserve(4, 1000);
        assert_eq!(r.flags, FLAG_BYTES.next_multiple_of(UNIT));
        assert_eq!(r.scratch, 1024);
        t.add(r);
        t.add(r);
        t.remove(r);
        assert_eq!((t.flags, t.flags_peak), (r.flags, 2 * r.flags));
        assert_eq!((t.teams, t.teams_peak), (1, 2));
        t.remove(r);
        assert_eq!(t.scratch, 0);
    }
}
