//! The transport of a job on one node or several: shared memory among the
//! PEs of a node, UCX or MPI-3 RMA ([`Remote`]) to the others.
//!
//! Each node has its own job file (a memfd its first PE created and handed to
//! the others, see `runtime::bootstrap`), laid out exactly as a one-node job
//! of all the job's PEs: control-block slots and segments are indexed by
//! global PE number, and only this node's are ever touched (the rest of the
//! file stays a hole). So every operation on a PE of this node is today's
//! shared-memory code, unchanged, and the route is one test per operation:
//! no remote engine (a one-node job, the common case), or a PE of this node.
//!
//! Remote PEs get no load/store address (`shmem_ptr` gives NULL), cannot be
//! woken (their waits poll `progress` instead of sleeping, see
//! `runtime::bootstrap`), and are never "on this CPU".
//!
//! # Atomicity
//!
//! A word may be updated at once by this node's PEs with CPU atomics and by
//! other nodes' PEs through the engine. That is atomic only when the engine
//! applies remote atomics with the target's CPU atomics: true of rshmem's
//! UCX engine (which requires `UCX_ATOMIC_MODE=cpu`, see `transport::ucx`);
//! for MPI, true of Open MPI's `osc ucx`
//! with UCX's software atomics (TCP, and `UCX_ATOMIC_MODE=cpu`, which rshmem
//! sets unless the user did), `osc pt2pt` and `osc sm`; measured exact here
//! with mixed local and remote contention on one word (c_tests), for 8-byte
//! words; the engine's 4-byte atomics are not (Open MPI's `osc rdma` applies
//! a 4-byte compare-and-swap under a lock of its own), so the engine
//! applies a 4-byte atomic to the 8-byte word around it. Hence
//! [`Atomicity::Cpu`]. An engine using NIC atomics is not covered
//! (docs/multinode.md, known limits).
//!
//! # The world rendezvous across nodes
//!
//! Hierarchical: the node's PEs arrive at the node's counter (as on one
//! node); its first PE, the leader, waits for them all, meets the other
//! leaders, then opens the next episode for its node. The leaders meet by
//! pushing (a dissemination of posted remote adds into an inbox in the world
//! team's memory, one message per round: [`push_leaders`]; under MPI-3 RMA
//! each a flag message of the shim); until the start-up barrier has passed,
//! and when they find that they differ, in a non-blocking MPI allreduce
//! ([`leaders_agree`]). Every PE completes its remote
//! operations before arriving (the callers quiet first), so a barrier orders
//! memory across nodes too.

mod agreement;

use super::mpi::shim::Comm;
use super::remote::{Posted, Remote};
use super::shm::{SharedMemory, arrived, counters};
use super::{Agreed, Atomicity, Disagreed, Engine, Mapped, Pe, Rendezvous, Transport};
use crate::heap::SymOffset;
use crate::job::Control;
use crate::stuck::Post;
use crate::types::{AmoOp, AtomicWord};
use crate::wait::{Waiter, notify};
use agreement::{AGREEMENT, Agreement};
use std::mem::MaybeUninit;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// The PEs of this node and the engine to the others, in a job that spans nodes.
pub(crate) struct Nodes {
    pub remote: Remote,
    /// `local[pe]`: `pe` is on this node.
    pub local: Box<[bool]>,
    /// This node's PEs, ascending; the first is its leader.
    pub node_pes: Vec<usize>,
    pub control: Control,
    pub me: usize,
    /// Node-local operations so far (see `LOCAL_OPS_PER_PROGRESS`).
    pub ticks: AtomicU32,
    /// The first PE of every node, ascending: the leaders of the world
    /// rendezvous.
    pub leaders: Vec<usize>,
    /// This node's place in `leaders`.
    pub leader_rank: usize,
    /// Address of this PE's segment.
    pub segment: usize,
    /// Offset of the leaders' inbox in every segment while they meet by
    /// pushing ([`NO_INBOX`] otherwise), see [`push_leaders`].
    pub inbox: AtomicUsize,
    /// The leaders' pushed rendezvous since the inbox was given: the parity
    /// picks the half of the inbox in use.
    pub pushes: AtomicU32,
    /// Quiets that completed the remote operations (`Transport::quiets`).
    pub quiets: AtomicU64,
}

/// Rounds of the leaders' dissemination: enough for 2^32 nodes.
const LEADER_ROUNDS: usize = 32;
/// The leaders' inbox: a word per round, twice (see [`push_leaders`]).
const INBOX_BYTES: usize = 2 * LEADER_ROUNDS * 8;
/// `Nodes::inbox` before the start-up barrier and after finalize's
/// rendezvous: the leaders meet in MPI.
const NO_INBOX: usize = usize::MAX;

/// Node-local operations between two calls into MPI of a PE that makes no
/// remote ones (an `MPI_Iprobe` costs about as much as 50 of them).
const LOCAL_OPS_PER_PROGRESS: u32 = 64;

pub(crate) struct Hybrid {
    shm: SharedMemory,
    /// `None` in a one-node job.
    nodes: Option<Box<Nodes>>,
}

impl Hybrid {
    /// The transport over the mapped segments: shared memory alone, or with
    /// the `engine` a launcher started to reach the PEs of other nodes (then
    /// collective: every PE exposes its segment to the engine).
    pub(crate) fn open(mapped: Mapped<'_>, engine: Option<Engine>) -> Result<Hybrid, String> {
        let Mapped { segs, control, .. } = mapped;
        let shm = SharedMemory::new(segs, control);
        let Some(Engine::Mpi(engine)) = engine else {
            return Ok(Hybrid { shm, nodes: None });
        };
        let me = segs.me;
        let local: Box<[bool]> = engine.node_of.iter().map(|&n| n == engine.node_of[me]).collect();
        crate::stuck::set_other_nodes(local.iter().map(|&l| !l).collect());
        // SAFETY: this PE's segment is `stride` bytes at `me * stride` in the
        // mapping of every segment, which lives as long as the process.
        let remote = unsafe { Remote::open(&engine, me, segs.npes, segs.base.add(me * segs.stride), segs.stride) }
            .map_err(|e| format!("cannot expose this PE's symmetric memory to the other nodes: {e}"))?;
        remote.start_status(super::mpi::status::Exchange::new(
            engine.shim,
            control,
            me,
            &engine.node_of,
        ));
        let node_pes: Vec<usize> = (0..segs.npes).filter(|&pe| local[pe]).collect();
        let mut seen = std::collections::HashSet::new();
        let leaders: Vec<usize> = (0..segs.npes).filter(|&pe| seen.insert(engine.node_of[pe])).collect();
        let leader_rank = leaders.iter().position(|&pe| pe == node_pes[0]).unwrap_or(0);
        let nodes = Nodes {
            remote,
            local,
            node_pes,
            control,
            me,
            ticks: Default::default(),
            leaders,
            leader_rank,
            segment: segs.base as usize + me * segs.stride,
            inbox: AtomicUsize::new(NO_INBOX),
            pushes: AtomicU32::new(0),
            quiets: AtomicU64::new(0),
        };
        Ok(Hybrid {
            shm,
            nodes: Some(Box::new(nodes)),
        })
    }

    /// The engine, if `pe` is on another node.
    #[inline(always)]
    fn remote(&self, pe: Pe) -> Option<&Remote> {
        self.nodes.as_ref()?;
        self.remote_slow(pe)
    }

    #[cold]
    fn remote_slow(&self, pe: Pe) -> Option<&Remote> {
        let n = self.nodes.as_deref()?;
        if n.local[pe] {
            // Over software RMA, other nodes' operations on this PE land only
            // while it calls into MPI: a PE busy with node-local operations
            // (its own atomics, say) lets them through every so often.
            if n.ticks.fetch_add(1, Ordering::Relaxed) % LOCAL_OPS_PER_PROGRESS == 0 {
                n.remote.progress();
            }
            return None;
        }
        Some(&n.remote)
    }

    /// Ends the engine to the other nodes, at the job's end (collective
    /// among the PEs that opened it); nothing to end on one node.
    pub(crate) fn close(&self) -> Result<(), String> {
        match self.nodes.as_deref() {
            Some(n) => n.remote.close(),
            None => Ok(()),
        }
    }
}

impl Hybrid {
    /// A put-with-signal whose signal's old value nobody reads, completed
    /// as `how` says on another node; on this one a store, or the
    /// shared-memory `_nbi` form.
    ///
    /// # Safety
    /// As `Transport::put_signal`.
    unsafe fn put_signal_unread(
        &self,
        pe: Pe,
        (off, src, len): (SymOffset, *const u8, usize),
        sig: SymOffset,
        op: AmoOp<u64>,
        how: Posted,
    ) {
        match self.remote(pe) {
            // SAFETY: the caller's contract.
            Some(r) => unsafe { r.put_signal_posted(pe, off, src, len, sig, op, how) },
            // SAFETY: the caller's contract.
            None if how == Posted::Nbi => unsafe { self.shm.put_signal_nbi(pe, off, src, len, sig, op) },
            // SAFETY: the caller's contract.
            None => unsafe {
                self.shm.put_signal(pe, off, src, len, sig, op);
            },
        }
    }
}

impl Transport for Hybrid {
    const NAME: &'static str = "shared memory within a node, UCX or MPI-3 RMA between nodes";
    const ATOMICITY: Atomicity = Atomicity::Cpu;

    fn describe(&self) -> &'static str {
        match &self.nodes {
            None => "shared memory",
            Some(n) => n.remote.describe(),
        }
    }

    fn detail(&self) -> Option<String> {
        self.nodes.as_ref()?.remote.detail()
    }

    #[inline]
    fn shares_memory(&self, pe: Pe) -> bool {
        self.remote(pe).is_none()
    }

    #[inline]
    fn single_node(&self) -> bool {
        self.nodes.is_none()
    }

    #[inline]
    fn local_ptr(&self, pe: Pe, off: SymOffset) -> Option<NonNull<u8>> {
        match self.remote(pe) {
            Some(_) => None,
            None => self.shm.local_ptr(pe, off),
        }
    }

    #[inline]
    unsafe fn put(&self, pe: Pe, off: SymOffset, src: *const u8, len: usize) {
        match self.remote(pe) {
            // SAFETY: the caller's contract is the trait's.
            Some(r) => unsafe { r.put(pe, off, src, len) },
            // SAFETY: the caller's contract is the trait's.
            None => unsafe { self.shm.put(pe, off, src, len) },
        }
    }

    #[inline]
    unsafe fn get(&self, pe: Pe, off: SymOffset, dst: *mut u8, len: usize) {
        match self.remote(pe) {
            // SAFETY: the caller's contract is the trait's.
            Some(r) => unsafe { r.get(pe, off, dst, len) },
            // SAFETY: the caller's contract is the trait's.
            None => unsafe { self.shm.get(pe, off, dst, len) },
        }
    }

    #[inline]
    unsafe fn put_nbi(&self, pe: Pe, off: SymOffset, src: *const u8, len: usize) {
        match self.remote(pe) {
            // SAFETY: the caller's contract is the trait's.
            Some(r) => unsafe { r.put_nbi(pe, off, src, len) },
            // SAFETY: the caller's contract is the trait's.
            None => unsafe { self.shm.put_nbi(pe, off, src, len) },
        }
    }

    #[inline]
    unsafe fn get_nbi(&self, pe: Pe, off: SymOffset, dst: *mut u8, len: usize) {
        match self.remote(pe) {
            // SAFETY: the caller's contract is the trait's.
            Some(r) => unsafe { r.get_nbi(pe, off, dst, len) },
            // SAFETY: the caller's contract is the trait's.
            None => unsafe { self.shm.get_nbi(pe, off, dst, len) },
        }
    }

    unsafe fn put_strided<T: Copy>(&self, pe: Pe, off: SymOffset, dst: isize, src: *const T, sst: isize, n: usize) {
        match self.remote(pe) {
            // SAFETY: the caller's contract is the trait's.
            Some(r) => unsafe { r.put_strided(pe, off, dst, src, sst, n) },
            // SAFETY: the caller's contract is the trait's.
            None => unsafe { self.shm.put_strided(pe, off, dst, src, sst, n) },
        }
    }

    unsafe fn get_strided<T: Copy>(
        &self,
        pe: Pe,
        off: SymOffset,
        sst: isize,
        dst: *mut T,
        dst_stride: isize,
        n: usize,
    ) {
        match self.remote(pe) {
            // SAFETY: the caller's contract is the trait's.
            Some(r) => unsafe { r.get_strided(pe, off, sst, dst, dst_stride, n) },
            // SAFETY: the caller's contract is the trait's.
            None => unsafe { self.shm.get_strided(pe, off, sst, dst, dst_stride, n) },
        }
    }

    #[inline]
    unsafe fn put_value<T: Copy>(&self, pe: Pe, off: SymOffset, v: T) {
        match self.remote(pe) {
            // SAFETY: the caller's contract is the trait's.
            Some(r) => unsafe { r.put(pe, off, &v as *const T as *const u8, size_of::<T>()) },
            // SAFETY: the caller's contract is the trait's.
            None => unsafe { self.shm.put_value(pe, off, v) },
        }
    }

    #[inline]
    unsafe fn get_value<T: Copy>(&self, pe: Pe, off: SymOffset) -> T {
        match self.remote(pe) {
            Some(r) => {
                let mut v = MaybeUninit::<T>::uninit();
                // SAFETY: the caller's contract; `v` is writable for its size,
                // and the get fills all of it before returning.
                unsafe {
                    r.get(pe, off, v.as_mut_ptr() as *mut u8, size_of::<T>());
                    v.assume_init()
                }
            }
            // SAFETY: the caller's contract is the trait's.
            // SAFETY: the caller's contract is the trait's.
            None => unsafe { self.shm.get_value(pe, off) },
        }
    }

    // Always: the AMO shims have two callers of it per type (fetching and
    // not, counted as reads and writes by `pcntr`), where LLVM stopped
    // inlining it into the fetch-add's path (15 instructions more).
    #[inline(always)]
    unsafe fn atomic<T: AtomicWord>(&self, pe: Pe, off: SymOffset, op: AmoOp<T>) -> T {
        match self.remote(pe) {
            // SAFETY: the caller's contract is the trait's.
            Some(r) => unsafe { r.atomic(pe, off, op) },
            // SAFETY: the caller's contract is the trait's.
            None => unsafe { self.shm.atomic(pe, off, op) },
        }
    }

    #[inline]
    unsafe fn atomic_nbi<T: AtomicWord>(&self, pe: Pe, off: SymOffset, op: AmoOp<T>, fetch: *mut T) {
        match self.remote(pe) {
            // SAFETY: the caller's contract is the trait's.
            Some(r) => unsafe { r.atomic_nbi(pe, off, op, fetch) },
            // SAFETY: the caller's contract is the trait's.
            None => unsafe { self.shm.atomic_nbi(pe, off, op, fetch) },
        }
    }

    #[inline]
    unsafe fn atomic_no_wake<T: AtomicWord>(&self, pe: Pe, off: SymOffset, op: AmoOp<T>) -> T {
        match self.remote(pe) {
            // SAFETY: the caller's contract is the trait's.
            Some(r) => unsafe { r.atomic(pe, off, op) },
            // SAFETY: the caller's contract is the trait's.
            None => unsafe { self.shm.atomic_no_wake(pe, off, op) },
        }
    }

    unsafe fn put_signal(
        &self,
        pe: Pe,
        off: SymOffset,
        src: *const u8,
        len: usize,
        sig: SymOffset,
        op: AmoOp<u64>,
    ) -> u64 {
        match self.remote(pe) {
            // SAFETY: the caller's contract is the trait's.
            Some(r) => unsafe { r.put_signal(pe, off, src, len, sig, op) },
            // SAFETY: the caller's contract is the trait's.
            None => unsafe { self.shm.put_signal(pe, off, src, len, sig, op) },
        }
    }

    unsafe fn put_signal_nbi(
        &self,
        pe: Pe,
        off: SymOffset,
        src: *const u8,
        len: usize,
        sig: SymOffset,
        op: AmoOp<u64>,
    ) {
        // SAFETY: the caller's contract is the trait's.
        unsafe { self.put_signal_unread(pe, (off, src, len), sig, op, Posted::Nbi) }
    }

    unsafe fn put_signal_post(
        &self,
        pe: Pe,
        off: SymOffset,
        src: *const u8,
        len: usize,
        sig: SymOffset,
        op: AmoOp<u64>,
    ) {
        // SAFETY: the caller's contract is the trait's.
        unsafe { self.put_signal_unread(pe, (off, src, len), sig, op, Posted::Blocking) }
    }

    unsafe fn put_signal_inbox(
        &self,
        pe: Pe,
        off: SymOffset,
        src: *const u8,
        len: usize,
        sig: SymOffset,
        op: AmoOp<u64>,
    ) {
        // SAFETY: the caller's contract is the trait's.
        unsafe { self.put_signal_unread(pe, (off, src, len), sig, op, Posted::Inbox) }
    }

    unsafe fn fetch_after_inbox(&self, pe: Pe, off: SymOffset) -> u64 {
        match self.remote(pe) {
            // SAFETY: the caller's contract is the trait's.
            Some(r) => unsafe { r.fetch_after_inbox(pe, off) },
            // SAFETY: the caller's contract is the trait's.
            None => unsafe { self.shm.atomic::<u64>(pe, off, AmoOp::Fetch) },
        }
    }

    #[inline]
    unsafe fn flag_add(&self, pe: Pe, off: SymOffset, v: u64) {
        // Earlier remote puts must be complete before the flag, local or
        // remote: the flag's reader may go on to read what they wrote on a
        // third PE. (A remote atomic completes them itself as well.)
        match self.remote(pe) {
            // SAFETY: the caller's contract is the trait's (an 8-aligned word).
            Some(r) => unsafe { r.flag_add(pe, off, v) },
            None => {
                if let Some(n) = &self.nodes {
                    n.remote.complete_before_flag();
                }
                // SAFETY: the caller's contract is the trait's.
                unsafe { self.shm.flag_add(pe, off, v) }
            }
        }
    }

    #[inline]
    fn fence(&self) {
        self.shm.fence();
        if let Some(n) = &self.nodes {
            n.remote.fence();
        }
    }

    #[inline]
    fn quiet(&self) {
        self.shm.quiet();
        if let Some(n) = &self.nodes {
            n.remote.quiet();
            n.quiets.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn fence_test(&self) -> bool {
        self.shm.fence();
        self.nodes.as_ref().is_none_or(|n| n.remote.fence_test())
    }

    fn quiet_test(&self) -> bool {
        self.shm.quiet();
        self.nodes.as_ref().is_none_or(|n| {
            let done = n.remote.quiet_test();
            if done {
                n.quiets.fetch_add(1, Ordering::Relaxed);
            }
            done
        })
    }

    fn quiets(&self) -> u64 {
        self.nodes.as_ref().map_or(0, |n| n.quiets.load(Ordering::Relaxed))
    }

    unsafe fn post_count(&self, pe: Pe, off: SymOffset, v: u64) {
        match self.remote(pe) {
            // SAFETY: the caller's contract is the trait's.
            Some(r) => unsafe { r.post_add(pe, off, v) },
            // SAFETY: the caller's contract is the trait's.
            None => unsafe {
                self.shm.atomic_no_wake::<u64>(pe, off, AmoOp::Add(v));
            },
        }
    }

    #[inline]
    fn progress(&self) {
        if let Some(n) = &self.nodes {
            n.remote.progress();
        }
    }

    #[inline]
    fn wake(&self, pe: Pe) {
        if self.remote(pe).is_none() {
            self.shm.wake(pe)
        }
    }

    #[inline]
    unsafe fn sleep_on_word(&self, pe: Pe, off: SymOffset, expected: u32, timeout: Duration) -> bool {
        // SAFETY: the caller's contract is the trait's.
        self.remote(pe).is_none() && unsafe { self.shm.sleep_on_word(pe, off, expected, timeout) }
    }

    #[inline]
    unsafe fn wake_one_on_word(&self, pe: Pe, off: SymOffset) {
        if self.remote(pe).is_none() {
            // SAFETY: the caller's contract is the trait's.
            unsafe { self.shm.wake_one_on_word(pe, off) }
        }
    }

    #[inline]
    fn locate(&self) -> u32 {
        self.shm.locate()
    }

    #[inline]
    fn may_share_cpu(&self, pe: Pe, cpu: u32) -> bool {
        self.remote(pe).is_none() && self.shm.may_share_cpu(pe, cpu)
    }

    /// Arguments compared on one node only: across nodes the other nodes'
    /// arrivals are not in this node's counter, and bringing them would cost
    /// a message.
    #[inline]
    fn rendezvous<'p>(
        &self,
        waiter: &Waiter<'_>,
        which: (Rendezvous, Option<&Agreed>),
        post: impl FnOnce(u32) -> Option<Post<'p>>,
    ) -> Option<Disagreed> {
        match &self.nodes {
            None => self.shm.rendezvous(waiter, which, post),
            Some(n) => {
                leader_rendezvous(n, waiter, which.0, post);
                None
            }
        }
    }

    fn posts_remote_signals(&self) -> bool {
        self.nodes.is_some()
    }

    fn rendezvous_bytes(&self) -> usize {
        if self.nodes.is_some() { INBOX_BYTES } else { 0 }
    }

    fn rendezvous_memory(&self, at: Option<SymOffset>) {
        if let Some(n) = &self.nodes {
            n.pushes.store(0, Ordering::Relaxed);
            n.inbox.store(at.map_or(NO_INBOX, |a| a.0), Ordering::Relaxed);
        }
    }
}

/// The world rendezvous of a job that spans nodes (see the module header).
fn leader_rendezvous<'p>(
    n: &Nodes,
    waiter: &Waiter<'_>,
    which: Rendezvous,
    post: impl FnOnce(u32) -> Option<Post<'p>>,
) {
    let control = &n.control;
    let h = control.header();
    let (count, episodes) = counters(which, h);
    let episode = episodes.number.load(Ordering::Acquire);
    let leader = n.node_pes[0];
    let node_n = n.node_pes.len() as u32;
    arrived(which, &control.slot(n.me).whereabouts).store(episode.wrapping_add(1), Ordering::Relaxed);
    // AcqRel: arrivals publish each PE's writes to the leader, whose release
    // of the new episode passes them on.
    count.fetch_add(1, Ordering::AcqRel);
    notify(&control.slot(leader).wake.sync);
    let post = post(episode);
    let name = match which {
        Rendezvous::Barrier => "barrier",
        Rendezvous::Finalize => "finalize rendezvous",
    };
    if n.me != leader {
        return waiter.wait_at(
            || post,
            || {
                n.remote.progress();
                episodes.number.load(Ordering::Acquire) != episode
            },
            || format!("this node's leader (PE {leader}) to end the {name} (episode {episode})"),
        );
    }
    waiter.wait_at(
        || post,
        || {
            n.remote.progress();
            count.load(Ordering::Acquire) as u32 == node_n
        },
        || {
            format!(
                "this node's PEs to reach the {name} (episode {episode}, {} of {node_n} arrived)",
                count.load(Ordering::Relaxed) as u32
            )
        },
    );
    let mine = Agreement::of(n, which, episode, post.as_ref());
    let inbox = n.inbox.load(Ordering::Relaxed);
    if inbox == NO_INBOX || !push_leaders(n, waiter, inbox, &mine, || post, name, episode) {
        leaders_agree(n, waiter, &mine, || post, name, episode);
    }
    count.store(0, Ordering::Relaxed);
    episodes.number.store(episode.wrapping_add(1), Ordering::Release);
    for &pe in &n.node_pes {
        notify(&control.slot(pe).wake.sync);
    }
}

/// The leaders meet by pushing: a dissemination over the leaders in which
/// each round is one posted remote add (one message, no reply) of a word
/// saying which rendezvous the sender is in, into the receiver's inbox.
/// Returns whether every leader is in the same one; if not, every leader
/// learns it (a difference between two leaders reaches every leader along
/// the rounds, as the barrier's arrivals do) and the caller has them all
/// meet in MPI, which says who differs ([`leaders_agree`]).
///
/// The inbox has a word per round, twice: the parity of the count of pushed
/// rendezvous picks the half. A leader writes into a word of rendezvous i + 2
/// only after it has finished rendezvous i + 1, which needed every leader to
/// be in i + 1, so past i, whose words it had read and zeroed.
fn push_leaders<'p>(
    n: &Nodes,
    waiter: &Waiter<'_>,
    inbox: usize,
    mine: &Agreement,
    post: impl Fn() -> Option<Post<'p>>,
    name: &str,
    episode: u32,
) -> bool {
    const PRESENT: u64 = 1 << 63;
    const DIFFERS: u64 = 1 << 62;
    const CODE: u64 = (1 << 62) - 1;
    let code = mine.code as u64 & CODE;
    let leaders = n.leaders.len();
    let half = (n.pushes.fetch_add(1, Ordering::Relaxed) & 1) as usize;
    let mut differs = 0;
    let mut k = 0;
    while (1usize << k) < leaders {
        let to = n.leaders[(n.leader_rank + (1 << k)) % leaders];
        let from = n.leaders[(n.leader_rank + leaders - (1 << k)) % leaders];
        let off = inbox + (half * LEADER_ROUNDS + k) * 8;
        // SAFETY: the inbox is 8-aligned inside every segment (the world
        // team's reserved memory).
        unsafe { n.remote.post_add(to, SymOffset(off), PRESENT | differs | code) };
        // SAFETY: this PE's segment is mapped for the life of the process;
        // the word is aligned, and written only by `from`'s adds.
        let word = unsafe { &*((n.segment + off) as *const AtomicU64) };
        waiter.wait_at(
            &post,
            || {
                n.remote.progress();
                word.load(Ordering::Acquire) != 0
            },
            || format!("the node of PE {from} to reach the {name} (episode {episode}, leaders' round {k})"),
        );
        let got = word.swap(0, Ordering::AcqRel);
        if got & CODE != code || got & DIFFERS != 0 {
            differs = DIFFERS;
        }
        k += 1;
    }
    differs == 0
}

/// The leaders meet in a non-blocking MPI allreduce of their
/// [`Agreement`]s, and end the job if they differ.
fn leaders_agree<'p>(
    n: &Nodes,
    waiter: &Waiter<'_>,
    mine: &Agreement,
    post: impl Fn() -> Option<Post<'p>>,
    name: &str,
    episode: u32,
) {
    let shim = n.remote.mpi();
    if let Err(e) = shim.iagree_start(Comm::Leaders, mine.values()) {
        super::mpi::failed(e);
    }
    let mut agreed = None;
    waiter.wait_at(
        &post,
        || {
            n.remote.progress();
            let test = shim.iagree_test::<AGREEMENT>(Comm::Leaders);
            match test {
                Ok(done) => {
                    agreed = done;
                    done.is_some()
                }
                Err(e) => super::mpi::failed(e),
            }
        },
        || format!("the other nodes to reach the {name} (episode {episode})"),
    );
    if let Some(all) = agreed {
        mine.check(n, &all, post().as_ref());
    }
}
