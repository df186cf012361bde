//! Collective operations.
//!
//! The world barrier (`shmem_barrier_all`, `shmem_sync_all`) is the
//! transport's rendezvous ([`barrier::world`]). Every other collective runs on a
//! [`Coll`]: a group of PEs in arithmetic progression (a team, or an active
//! set `PE_start, 2^logPE_stride, PE_size`), this PE's rank in it, and where
//! signals land ([`Mem`]): a sync array of 64-bit flags laid out by
//! [`Layout`] at the same offset on every member (a team's array from
//! the `psync` manager, or the user's `pSync` for the deprecated active-set
//! routines), or, under the pairwise strategies, a location per pair of PEs.
//!
//! Flags count. A sender adds 1 to a flag of the receiver ([`Coll::signal`]);
//! the receiver waits for the count it expects and subtracts it
//! ([`Coll::consume`]), so a flag is back to `SHMEM_SYNC_VALUE` (0) once its
//! collective has consumed its signals, and a signal that arrives early (from a
//! faster PE already in the next collective) is simply kept for that one. This
//! is safe when, for each flag, either the sender is the same in every
//! collective of the group (barrier rounds, tree and ring neighbours, recursive
//! doubling partners) or any early signal implies the awaited one was possible
//! (the broadcast root's "ready", see `bcast`). Every algorithm consumes all
//! signals sent to it before it returns, so no write lands in a PE's sync
//! array after the collective has left it: that is what lets the user reuse
//! a pSync, and the library free a team's memory after a barrier.
//!
//! On pairwise locations every signal from one PE to another lands on the
//! same word, whatever its meaning: the k-th signal a PE consumes from a peer
//! is the peer's k-th signal to it. The algorithms used there (see
//! `psync::pairwise`) consume each peer's signals in the order that peer
//! sends them, so meanings match.
//!
//! Data moves between segments through the transport (`get`/`put` by
//! symmetric offset): receivers pull from the senders' buffers, which is a
//! `memcpy` on one node. Signals go through it too (`flag_add` to a peer,
//! `atomic_no_wake` to take them off this PE's own word), as do the waits'
//! `progress` and CPU hints; only this PE's own memory (its flags, counts and
//! local copies, [`Coll::local`]) is loaded and stored directly.
//!
//! Layout: [`entry`] holds the entry points (one per collective kind, for
//! teams, active sets and the world: they choose the algorithm, take sync
//! memory from the strategy and give it back); this file the [`Coll`] they
//! build and its signalling; [`registry`] the algorithm choices; one file
//! per kind of algorithm ([`barrier`], `bcast`, `reduce`, `collect`,
//! `alltoall`) and the shapes they share ([`topology`], [`ring`]);
//! [`check`] the agreement on arguments that `SHMEM_CHECK_COLLECTIVES`
//! adds in front of every collective, [`agree`] the arguments compared
//! always, on what a collective exchanges anyway. `coll`
//! takes the [`World`](crate::world) and depends on nothing above it
//! (not on `team` or `runtime`), so teams use it for their own barriers.

pub(crate) mod agree;
mod alltoall;
pub(crate) mod barrier;
mod bcast;
pub(crate) mod check;
pub(crate) mod check_set;
mod collect;
pub(crate) mod entry;
mod inbox;
mod reduce;
pub(crate) mod registry;
pub(crate) mod ring;
pub(crate) mod topology;

pub(crate) use entry::*;
pub(crate) use inbox::Disagreement;

use crate::heap::SymOffset;
use crate::job::AWAITED_MAX;
use crate::psync::{Graph, Layout, Mem, Remote, SyncStrategy, TeamSync, Ticket};
use crate::stuck::{Kind, On};
use crate::transport::{Transport, polled};
use crate::types::AmoOp;
use crate::wait::backoff::{Backoff, Step};
use crate::world::World;
use registry::Algorithms;
use std::sync::atomic::{AtomicU64, Ordering};

/// PEs `start + i * stride` for `i` in `0..size`, with this PE at `rank`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Group {
    pub start: isize,
    pub stride: isize,
    pub size: usize,
    pub rank: usize,
}

impl Group {
    /// World PE number of rank `r`.
    #[inline]
    pub(crate) fn pe(&self, r: usize) -> usize {
        (self.start + r as isize * self.stride) as usize
    }

    /// Rank of world PE `pe`, if it is a member.
    pub(crate) fn rank_of(&self, pe: usize) -> Option<usize> {
        let d = pe as isize - self.start;
        if self.stride == 0 {
            return (d == 0 && self.size > 0).then_some(0);
        }
        if d % self.stride != 0 {
            return None;
        }
        let r = d / self.stride;
        (r >= 0 && (r as usize) < self.size).then_some(r as usize)
    }
}

/// Polls in a row while waiting for a signal from PEs on other CPUs (about a
/// µs): a sender there may itself be descheduled behind a waiting PE, so the
/// waiter soon yields in case the hint is wrong.
const SIGNAL_SPINS: u32 = 32;
/// Senders beyond which a waiter yields without looking where they run.
const SCAN_MAX: usize = 64;

/// One collective call in progress on this PE. Built by `Coll::new` only
/// (the entry points of [`entry`]); the algorithms of this module's
/// submodules read its fields.
pub(crate) struct Coll<'a> {
    rt: &'a World,
    g: Group,
    mem: Mem,
    /// Word indices of the sync array (for the group's size).
    l: Layout,
    /// Symmetric scratch for algorithms that expose partial results, if any.
    scratch: SymOffset,
    scratch_len: usize,
    /// The algorithms this collective may use.
    algs: Algorithms,
    /// Routine name, for hang diagnostics.
    routine: &'static str,
    /// The team, for hang reports (`job::TEAM_TAGS`).
    team: u32,
    /// For team collectives: the sync memory to give back to the strategy
    /// when the call returns.
    done: Option<Done<'a>>,
}

/// A team collective's ticket, given back when the call returns.
#[derive(Clone, Copy)]
struct Done<'a> {
    strategy: &'static dyn SyncStrategy,
    sync: &'a TeamSync,
    ticket: Ticket,
}

impl Drop for Coll<'_> {
    fn drop(&mut self) {
        // Copied, not taken: nothing runs after the drop, and a copy of
        // these few words is cheaper than writing `None` back.
        if let Some(d) = self.done {
            let messages = d.strategy.release(d.sync, d.ticket, &mut Transported::new(self.rt));
            if messages > 0 {
                self.rt.psync().accounting.ledger().extra_messages += messages;
            }
        }
    }
}

/// A strategy's operations at other PEs, through the transport.
struct Transported<'a> {
    rt: &'a World,
    /// Made on the first wait only: most collectives never wait here.
    backoff: Option<Backoff>,
}

impl<'a> Transported<'a> {
    fn new(rt: &'a World) -> Transported<'a> {
        Transported { rt, backoff: None }
    }
}

impl Remote for Transported<'_> {
    fn me(&self) -> usize {
        self.rt.me
    }
    fn fetch(&mut self, pe: usize, off: SymOffset) -> u64 {
        self.rt.reach(pe);
        // SAFETY: strategies name words of a team's region (its release
        // words), which lies in every member's segment while the team lives.
        unsafe { self.rt.transport.atomic::<u64>(pe, off, AmoOp::Fetch) }
    }
    fn compare_swap(&mut self, pe: usize, off: SymOffset, old: u64, new: u64) -> bool {
        self.rt.reach(pe);
        // SAFETY: as in `fetch`.
        unsafe { self.rt.transport.atomic::<u64>(pe, off, AmoOp::CompareSwap(old, new)) == old }
    }
    fn add(&mut self, pe: usize, off: SymOffset, v: u64) {
        self.rt.reach(pe);
        // SAFETY: as in `fetch`; a release word lives until every member has
        // passed the destroy barrier, which follows every release.
        unsafe { self.rt.transport.flag_add(pe, off, v) }
    }
    fn wait_step(&mut self) -> bool {
        match self.backoff.get_or_insert_with(|| Backoff::new(self.rt.policy)).step() {
            Step::Sleep => {
                std::thread::sleep(std::time::Duration::from_micros(50));
                false
            }
            _ => true,
        }
    }
}

/// Largest group spanning nodes in which every member talks to every other
/// in one round: the complete-exchange barrier (`Coll::barrier_algorithm`)
/// and the gather of a team split (`Phases::gather_capacity`). Each member
/// then connects to n - 1 peers, at most one more than a dissemination's
/// log2(n) up to 4; beyond, a PE's endpoints (and their memory) would grow
/// with the group rather than its logarithm (at start-up too: the world
/// team's creation runs both), so larger groups take log2(n) rounds.
pub(crate) const COMPLETE_MAX: usize = 4;

impl<'a> Coll<'a> {
    /// A collective of `routine` over `g` signalling on `mem` (words laid
    /// out by `l`), with
    /// `scratch` (offset, bytes), following `graph` if the strategy
    /// prescribes one, and giving `done` back when it returns.
    #[inline]
    fn new(
        rt: &'a World,
        routine: &'static str,
        (g, team): (Group, u32),
        (mem, l): (Mem, Layout),
        (scratch, scratch_len): (SymOffset, usize),
        graph: Option<Graph>,
        done: Option<Done<'a>>,
    ) -> Coll<'a> {
        Coll {
            rt,
            g,
            mem,
            l,
            scratch,
            scratch_len,
            algs: graph.map_or_else(|| Algorithms::from_config(&rt.config), Algorithms::pairwise),
            routine,
            team,
            done,
        }
    }

    /// Where a signal from this PE to rank `r` on word `idx` lands.
    #[inline]
    fn target(&self, idx: usize) -> SymOffset {
        match self.mem {
            Mem::Array(f) => SymOffset(f.0 + idx * 8),
            Mem::Pairs(t) => SymOffset(t.0 + self.rt.me * 8),
        }
    }

    /// This PE's word that `from` (a rank) signals on word `idx`.
    #[inline]
    fn inbox(&self, idx: usize, from: usize) -> SymOffset {
        match self.mem {
            Mem::Array(f) => SymOffset(f.0 + idx * 8),
            Mem::Pairs(t) => SymOffset(t.0 + self.g.pe(from) * 8),
        }
    }

    /// Adds 1 to word `idx` of rank `r` (under the pairwise strategies: to
    /// this PE's location at rank `r`).
    #[inline]
    pub(crate) fn signal(&self, r: usize, idx: usize) {
        self.rt.psync().accounting.count_signal();
        // SAFETY: the word lies in rank r's segment at the symmetric offset.
        unsafe { self.rt.transport.flag_add(self.reach(r), self.target(idx), 1) }
    }

    /// Puts `len` bytes from `src` at `off` on rank `r`, then [`signal`]s
    /// word `idx` there. To a PE on another node under an engine that posts
    /// remote signals (`Transport::posts_remote_signals`) this is one posted
    /// put-with-signal (`put_signal_inbox`): the receiver sees the signal
    /// only with the data, and nothing waits for a reply, where a put and a
    /// flag cost a round trip (the flag completes the put first). A
    /// collective's receiver reads only what the signal announces, so the
    /// flag's completion of this PE's other operations is not needed.
    ///
    /// # Safety
    /// `off..off + len` lies in rank r's segment; `src` is readable for
    /// `len` bytes.
    ///
    /// [`signal`]: Self::signal
    pub(crate) unsafe fn put_then_signal(&self, r: usize, off: SymOffset, src: *const u8, len: usize, idx: usize) {
        let t = &self.rt.transport;
        let pe = self.g.pe(r);
        if t.posts_remote_signals() && !t.shares_memory(pe) {
            self.rt.psync().accounting.count_signal();
            self.rt.reach(pe);
            // SAFETY: the caller's contract; the signal word lies in rank
            // r's segment at the symmetric offset (as for `signal`).
            unsafe { t.put_signal_inbox(pe, off, src, len, self.target(idx), AmoOp::Add(1)) };
        } else {
            // SAFETY: the caller's contract.
            unsafe { self.put(r, off, src, len) };
            self.signal(r, idx);
        }
    }

    /// Waits until `n` signals from rank `from` have arrived on word `idx`,
    /// then takes them off. On a sync array, signals of one word are not told
    /// apart by sender, so `from` only matters to the pairwise table.
    #[inline]
    pub(crate) fn consume(&self, idx: usize, from: usize, n: u64) {
        if n == 0 {
            return;
        }
        if let Mem::Pairs(_) = self.mem {
            self.rt.psync().accounting.note_partner(self.g.pe(from));
        }
        self.take(self.inbox(idx, from), idx, n, std::iter::once(from));
    }

    /// One signal from each of `from` on word `idx`.
    pub(crate) fn consume_each<I>(&self, idx: usize, from: I)
    where
        I: IntoIterator<Item = usize>,
        I::IntoIter: Clone,
    {
        match self.mem {
            Mem::Array(_) => {
                let from = from.into_iter();
                let n = from.clone().count() as u64;
                if n > 0 {
                    self.take(self.inbox(idx, 0), idx, n, from);
                }
            }
            Mem::Pairs(_) => {
                for r in from {
                    self.consume(idx, r, 1);
                }
            }
        }
    }

    /// Waits for `n` signals on this PE's word at `off`, sent by the ranks of
    /// `senders`, and takes them off through the transport: peers add to the
    /// word through it, so its atomicity statement requires the owner's
    /// update to go through it too (on shared memory the same locked
    /// instruction as a CPU `fetch_sub`).
    fn take(&self, off: SymOffset, idx: usize, n: u64, senders: impl Iterator<Item = usize> + Clone) {
        // SAFETY: `off` is this PE's signal word (a sync array checked
        // symmetric and large enough by whoever built this Coll, or the pair
        // table, which has a word per PE): 8-aligned, in this PE's mapped
        // segment, and only ever accessed atomically. Own memory, polled by
        // direct loads.
        let f = unsafe { AtomicU64::from_ptr(self.local(off) as *mut u64) };
        self.wait_for(
            || f.load(Ordering::Acquire) >= n,
            senders,
            || {
                let on = match self.mem {
                    Mem::Array(_) => format!("flag {idx}"),
                    Mem::Pairs(_) => "a pairwise location".to_string(),
                };
                format!("{n} signals on {on}")
            },
            || format!(", have {}", f.load(Ordering::Relaxed)),
        );
        // SAFETY: as above; nobody waits for a flag to go down, so no wake.
        unsafe {
            self.rt
                .transport
                .atomic_no_wake::<u64>(self.rt.me, off, AmoOp::Add(n.wrapping_neg()))
        };
    }

    /// Waits until `cond()`, which the ranks of `awaited` make true, calling
    /// the transport's `progress` on every poll. `what` and `state` describe
    /// it for the hang diagnostic.
    pub(crate) fn wait_for(
        &self,
        cond: impl FnMut() -> bool,
        awaited: impl Iterator<Item = usize> + Clone,
        what: impl Fn() -> String,
        state: impl Fn() -> String,
    ) {
        let t = &self.rt.transport;
        // Among this many PEs one surely shares this CPU: skip the scan.
        let many = awaited.clone().nth(SCAN_MAX).is_some();
        let on = || {
            let mut pes = [0u32; AWAITED_MAX];
            let mut n = 0;
            for r in awaited.clone() {
                if n < AWAITED_MAX {
                    pes[n] = self.g.pe(r) as u32;
                }
                n += 1;
            }
            On::Peers {
                team: self.team,
                start: self.g.start as i32,
                stride: self.g.stride as i32,
                size: self.g.size as u32,
                awaited: pes,
                n_awaited: n as u32,
            }
        };
        self.rt.sync_waiter().wait_hinted(
            || self.rt.post_on(Kind::Coll, self.routine, &on),
            polled(t, cond),
            // More PEs than cores: spin only while no awaited PE was last seen
            // on this PE's CPU (it could not run while this PE spins).
            || {
                if many {
                    return false;
                }
                let cpu = t.locate();
                awaited.clone().all(|r| !t.may_share_cpu(self.g.pe(r), cpu))
            },
            SIGNAL_SPINS,
            || {
                format!(
                    "{} of {} (group start {} stride {} size {}{})",
                    what(),
                    self.routine,
                    self.g.start,
                    self.g.stride,
                    self.g.size,
                    state()
                )
            },
        );
    }

    /// Where collect publishes this PE's element count: a word of the sync
    /// array, or (pairwise) the first word of the team's scratch, which no
    /// collective uses between calls.
    fn count_word(&self) -> SymOffset {
        match self.mem {
            Mem::Array(f) => SymOffset(f.0 + self.l.collect_count() * 8),
            Mem::Pairs(_) => self.scratch,
        }
    }

    /// Publishes this PE's collect count (a plain value, not a signal): a
    /// store to this PE's own memory, which peers then `get`.
    pub(crate) fn publish_count(&self, v: u64) {
        let p = self.local(self.count_word());
        // SAFETY: the word is this PE's (see `count_word`), 8-aligned, and
        // accessed atomically by every reader.
        unsafe { AtomicU64::from_ptr(p as *mut u64) }.store(v, Ordering::Release);
    }

    /// Reads rank `r`'s published collect count.
    pub(crate) fn read_count(&self, r: usize) -> u64 {
        let mut v = 0u64;
        // SAFETY: the word lies in rank r's segment at the symmetric offset.
        unsafe {
            self.rt
                .transport
                .get(self.reach(r), self.count_word(), &mut v as *mut u64 as *mut u8, 8)
        };
        v
    }

    /// Copies `len` bytes at `off` in rank `r`'s segment to `dst`.
    ///
    /// # Safety
    /// `dst` is writable for `len` bytes; `off..off+len` is inside a segment.
    #[inline]
    pub(crate) unsafe fn get(&self, r: usize, off: SymOffset, dst: *mut u8, len: usize) {
        if len > 0 {
            // SAFETY: caller's contract.
            unsafe { self.rt.transport.get(self.reach(r), off, dst, len) }
        }
    }

    /// Copies `len` bytes from `src` to `off` in rank `r`'s segment.
    ///
    /// # Safety
    /// `src` is readable for `len` bytes; `off..off+len` is inside a segment.
    #[inline]
    pub(crate) unsafe fn put(&self, r: usize, off: SymOffset, src: *const u8, len: usize) {
        if len > 0 {
            // SAFETY: caller's contract.
            unsafe { self.rt.transport.put(self.reach(r), off, src, len) }
        }
    }

    /// World PE of rank `r`, which this PE is about to address: counted
    /// against the budget of page tables for other PEs (`heap::tables`).
    #[inline]
    fn reach(&self, r: usize) -> usize {
        let pe = self.g.pe(r);
        self.rt.reach(pe);
        pe
    }

    /// This PE's address of symmetric offset `off` (its own memory, which it
    /// loads and stores directly; other PEs' memory only through the
    /// transport).
    #[inline]
    pub(crate) fn local(&self, off: SymOffset) -> *mut u8 {
        self.rt.own_addr(off)
    }

    /// The group's barrier with the algorithm in effect.
    pub(crate) fn barrier(&self) {
        if self.g.size > 1 {
            barrier::run(self, self.barrier_algorithm());
        }
    }

    /// The automatic choice by size, but for a group that spans nodes,
    /// where every round costs a message latency: the complete exchange up
    /// to [`COMPLETE_MAX`] members (one round), dissemination above (log2(n)
    /// rounds, each member talking to log2(n) others, where the flat tree
    /// of the one-node choice would make rank 0 signal, and so connect to,
    /// every member, from `shmem_init` on, whose team creation runs a
    /// barrier over the world). Every member answers alike (see
    /// `inbox::members_share_memory`).
    fn barrier_algorithm(&self) -> registry::Barrier {
        let n = self.g.size;
        let spans = || {
            self.algs.barrier == registry::Barrier::Auto
                && !self.rt.transport.single_node()
                && !inbox::members_share_memory(self)
        };
        match self.algs.barrier.resolve(n) {
            _ if n <= COMPLETE_MAX && spans() => registry::Barrier::Complete,
            registry::Barrier::Linear if spans() => registry::Barrier::Dissemination,
            alg => alg,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_translate_both_ways() {
        let g = Group {
            start: 1,
            stride: 3,
            size: 3,
            rank: 0,
        };
        assert_eq!((g.pe(0), g.pe(2)), (1, 7));
        assert_eq!(g.rank_of(4), Some(1));
        assert_eq!(g.rank_of(5), None);
        assert_eq!(g.rank_of(10), None);
        let rev = Group {
            start: 5,
            stride: -1,
            size: 6,
            rank: 0,
        };
        assert_eq!(rev.pe(5), 0);
        assert_eq!(rev.rank_of(0), Some(5));
        assert_eq!(rev.rank_of(6), None);
    }
}
