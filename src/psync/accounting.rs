//! Exact accounting of synchronisation memory: the bytes a PE reserves for
//! it and the messages the strategies add ([`Ledger`]), and the per-PE
//! [`Accounting`] a run keeps (owned by the runtime, see `runtime::State`).
//!
//! The strategies do not write here: they report what happened (a pool
//! grew, a release message went out, a barrier had to be inserted) and the
//! caller records it, so the virtual jobs of `sim` keep their ledgers with
//! the same strategy code. The collectives count their signals and, on the
//! pairwise locations, their partners through the [`Accounting`] they are
//! given.

use super::{LOCATION_BYTES, Plan, Strategy, array_bytes};
use core::ffi::c_char;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, RwLock};

/// Per-PE accounting: bytes reserved for synchronisation and the messages
/// the strategy added.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    /// Bytes of sync arrays and pairwise locations reserved now.
    pub flags: usize,
    /// Most bytes `flags` has held.
    pub flags_peak: usize,
    /// Bytes of team scratch, inboxes and check records reserved now ([`Plan::scratch_bytes`]).
    pub scratch: usize,
    /// Most bytes `scratch` has held.
    pub scratch_peak: usize,
    /// Teams alive on this PE.
    pub teams: usize,
    /// Most teams alive on this PE at once.
    pub teams_peak: usize,
    /// What one traditional array per live team would hold.
    pub baseline: usize,
    /// Most bytes `baseline` has held.
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
    /// Barriers a pool inserted because every array was in use.
    pub inserted_barriers: u64,
}

impl Ledger {
    /// An empty ledger (every count 0).
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

    /// Counts `bytes` more of flags reserved, and raises the peak.
    pub fn add_flags(&mut self, bytes: usize) {
        self.flags += bytes;
        self.flags_peak = self.flags_peak.max(self.flags);
    }

    /// A team of `size` PEs with region `plan` was created on this PE.
    pub fn team_created(&mut self, plan: &Plan, size: usize) {
        self.add_flags(plan.initial * plan.array_bytes);
        self.scratch += plan.scratch_bytes();
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
        self.scratch -= plan.scratch_bytes();
        self.teams -= 1;
        self.baseline -= array_bytes(size);
    }
}

impl Ledger {
    /// A team collective started on this PE (the simulator's count; a run's
    /// is [`Accounting::count_collective`]).
    pub fn collective(&mut self) {
        self.collectives += 1;
    }

    /// The team's pool grew by an array of `bytes`.
    pub fn grew(&mut self, bytes: usize) {
        self.add_flags(bytes);
        self.grows += 1;
    }

    /// The strategy inserted a barrier, which sent `signals` signals here.
    pub fn inserted_barrier(&mut self, signals: u64) {
        self.inserted_barriers += 1;
        self.extra_messages += signals;
    }
}

/// A PE's accounting during a run.
#[derive(Debug, Default)]
pub struct Accounting {
    ledger: Mutex<Ledger>,
    /// Signals sent by this PE's collectives (every remote flag write).
    signals: AtomicU64,
    /// Team collectives run: counted outside the ledger's lock, because every
    /// team collective counts one and the lock would cost more than the count.
    collectives: AtomicU64,
    /// Pairwise strategies: a bit per world PE, set the first time that
    /// PE's signal is consumed here (its location is then in use).
    partners: RwLock<Vec<AtomicU64>>,
}

impl Accounting {
    /// The ledger, locked (a poisoned lock is taken over); its `collectives` is counted apart, see [`Accounting::snapshot`].
    pub fn ledger(&self) -> MutexGuard<'_, Ledger> {
        self.ledger.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A team collective starts (splits and destroys count: they synchronise).
    #[inline]
    pub fn count_collective(&self) {
        self.collectives.fetch_add(1, Ordering::Relaxed);
    }

    /// The ledger as it stands, with the collectives counted so far.
    pub fn snapshot(&self) -> Ledger {
        let mut l = *self.ledger();
        l.collectives = self.collectives.load(Ordering::Relaxed);
        l
    }

    #[inline]
    /// Counts one signal (remote flag write) sent by a collective of this PE.
    pub fn count_signal(&self) {
        self.signals.fetch_add(1, Ordering::Relaxed);
    }

    /// Signals counted so far (the footprint's `sync_messages`).
    pub fn signals(&self) -> u64 {
        self.signals.load(Ordering::Relaxed)
    }

    /// Forgets everything (at `shmem_init`); `partners`: the job's PE count
    /// under a pairwise strategy, else 0.
    pub fn reset(&self, partners: usize) {
        *self.ledger() = Ledger::new();
        self.signals.store(0, Ordering::Relaxed);
        self.collectives.store(0, Ordering::Relaxed);
        let mut seen = self.partners.write().unwrap_or_else(|e| e.into_inner());
        seen.clear();
        seen.extend((0..partners.div_ceil(64)).map(|_| AtomicU64::new(0)));
    }

    /// A signal from world PE `pe` is being consumed from a pairwise
    /// location: the first time, the location counts as reserved.
    #[inline]
    pub fn note_partner(&self, pe: usize) {
        let seen = self.partners.read().unwrap_or_else(|e| e.into_inner());
        let (w, b) = (pe / 64, 1u64 << (pe % 64));
        let Some(word) = seen.get(w) else { return };
        if word.load(Ordering::Relaxed) & b == 0 && word.fetch_or(b, Ordering::Relaxed) & b == 0 {
            self.ledger().add_flags(LOCATION_BYTES);
        }
    }
}

/// `shmemx_psync_footprint_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Footprint {
    /// Name of the `SHMEM_PSYNC_STRATEGY` in effect (static, NUL-terminated).
    pub strategy: *const c_char,
    /// Bytes of flags reserved now.
    pub flags_current: usize,
    /// Most bytes of flags reserved at once.
    pub flags_peak: usize,
    /// Bytes of scratch (with inboxes and check records) reserved now.
    pub scratch_current: usize,
    /// Most bytes of scratch reserved at once.
    pub scratch_peak: usize,
    /// Teams holding sync memory now.
    pub teams_current: usize,
    /// Most teams holding sync memory at once.
    pub teams_peak: usize,
    /// Bytes one traditional array per live team would hold now.
    pub baseline_current: usize,
    /// Most bytes `baseline_current` has held.
    pub baseline_peak: usize,
    /// Bytes one traditional array per team ever created would hold.
    pub baseline_never_freed: usize,
    /// Team collectives run, splits and destroys included.
    pub collectives: u64,
    /// Remote flag writes by the collective algorithms.
    pub sync_messages: u64,
    /// Remote flag writes the strategy added.
    pub extra_messages: u64,
}

impl Footprint {
    /// The footprint of ledger `l` under `strategy`, with `signals` as its `sync_messages`.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::psync::{Graph, TEAM_INBOX_BYTES, UNIT};

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
        assert_eq!(q.units(), (1024 + TEAM_INBOX_BYTES + 16 * 384) / UNIT);
        assert_eq!(
            Plan::new(Strategy::Pairwise(Graph::Tree), 8, 1024, 2, 16).units(),
            (1024 + TEAM_INBOX_BYTES) / UNIT
        );
        // A team of one broadcasts to nobody: no inbox.
        assert_eq!(Plan::new(Strategy::Traditional, 1, 1024, 2, 16).inbox, 0);
        l.team_created(&q, 4096);
        assert_eq!(
            l.scratch,
            1024 + 1024 + TEAM_INBOX_BYTES * 2,
            "the inbox counts as scratch"
        );
    }

    #[test]
    fn partners_count_once() {
        let a = Accounting::default();
        a.reset(70);
        a.note_partner(65);
        a.note_partner(65);
        a.note_partner(3);
        assert_eq!(a.ledger().flags, 2 * LOCATION_BYTES);
        a.reset(0);
        a.note_partner(3);
        assert_eq!(a.ledger().flags, 0, "not a pairwise run");
    }
}
