//! The transport boundary: the only way to another PE's memory, addressed by
//! PE and [`SymOffset`].
//!
//! Everything above this module (RMA, atomics, signals, locks, semaphores,
//! collectives, the world barrier, the library's waits) is written against
//! [`Transport`]; nothing outside `transport/` dereferences another PE's
//! segment, reads another PE's slot of the control block, or rings another
//! PE's bell. Own memory (a collective's local copies, a user's `wait_until`
//! variable) may still be loaded and stored directly.
//!
//! The library's transport is [`hybrid::Hybrid`]: [`shm::SharedMemory`] for
//! the PEs of this node (every PE maps every segment, so operations are
//! loads, stores and CPU atomics) and the MPI-3 RMA engine (`mpi`) for the
//! others. A remote engine implements the same trait: [`local_ptr`] says
//! `None` for PEs it cannot reach by load/store (`shmem_ptr` then returns
//! NULL), the `_nbi` operations complete at [`quiet`], waits call
//! [`progress`], and [`Transport::ATOMICITY`] tells callers which atomics
//! are atomic with respect to which.
//!
//! # Dispatch: one concrete type, chosen at build time
//!
//! The runtime holds a [`Active`], a type alias chosen when the library is
//! built (the checking transport of the tests is selected by a cargo
//! feature), and every call is monomorphised and inlined. Not a trait object
//! (nor an enum of transports), because:
//! - the hot paths must stay inlined: an 8-byte put is about 94 instructions
//!   end to end, and a vtable or enum dispatch on each operation (with the
//!   generic strided, value and atomic operations no longer inlined per
//!   type) costs more than the 5% allowed;
//! - every PE of a job uses the same transport, so a run-time choice buys
//!   nothing;
//! - a transport over MPI is compiled against the MPI library (`mpicc`)
//!   anyway: a build-time choice.
//!
//! The trait has generic methods and an associated constant, so it is not
//! object-safe, by design.
//!
//! # Construction
//!
//! Every `Active` opens with `open(Mapped, Option<Engine>)`: [`Mapped`] is
//! what start-up mapped (segments, control block, job file), [`Engine`]
//! what the launcher started to reach other nodes, if the job has several.
//! Start-up (`runtime::bootstrap`) calls `Active::open` and never names a
//! transport's parts.
//!
//! # Ordering (see docs/memory-model.md)
//!
//! - `put`, `put_value`, `put_strided`, `put_signal`: complete (visible to the
//!   target) when they return; `get*`: the data is in the destination when
//!   they return, and later loads are ordered after them (acquire).
//! - `put_nbi`, `get_nbi`, `put_signal_nbi`, `atomic_nbi`: the transfer (and
//!   a `get_nbi`'s destination, an `atomic_nbi`'s fetched value) is complete
//!   only after the next [`quiet`], and as OpenSHMEM says, the source must not
//!   change until then either (shared memory copies it at once; MPI may read
//!   it later).
//! - `atomic`, `atomic_no_wake`, `flag_add`: sequentially consistent; see
//!   [`Atomicity`] for what they are atomic with.
//! - [`fence`]: earlier puts to each PE are delivered before later ones to
//!   the same PE. [`quiet`]: every earlier operation, blocking or not, is
//!   complete and visible to all PEs.
//! - [`rendezvous`]: every store (and completed put) a PE made before
//!   arriving is visible to every PE after it returns.
//!
//! [`local_ptr`]: Transport::local_ptr
//! [`quiet`]: Transport::quiet
//! [`fence`]: Transport::fence
//! [`progress`]: Transport::progress
//! [`rendezvous`]: Transport::rendezvous

#[cfg(feature = "check-transport")]
pub(crate) mod check;
// The checking build runs without these (`Active` is the checking transport).
#[cfg_attr(feature = "check-transport", allow(dead_code))]
pub(crate) mod hybrid;
#[cfg_attr(feature = "check-transport", allow(dead_code))]
pub(crate) mod mpi;
// The checking build runs without these (`Active` is the checking transport).
#[cfg_attr(feature = "check-transport", allow(dead_code))]
pub(crate) mod remote;
#[cfg_attr(feature = "check-transport", allow(dead_code))]
pub(crate) mod shimlib;
// The checking build runs without it (and without its variant of `Atomicity`).
#[cfg_attr(feature = "check-transport", allow(dead_code))]
pub(crate) mod shm;
#[cfg_attr(feature = "check-transport", allow(dead_code))]
pub(crate) mod ucx;

use crate::heap::{Segments, SymOffset};
use crate::job::Control;
use crate::stuck::Post;
use crate::types::{AmoOp, AtomicWord};
use crate::wait::Waiter;
use crate::wait::backoff::Policy;
use std::os::fd::OwnedFd;
use std::ptr::NonNull;
use std::time::Duration;

/// A PE number already checked to be in range.
pub(crate) type Pe = usize;

/// The transport of this build: shared memory within a node, MPI between
/// nodes when the job spans several (the cargo feature `check-transport`
/// selects the checking transport of the tests instead).
#[cfg(not(feature = "check-transport"))]
pub(crate) type Active = hybrid::Hybrid;
/// The transport of this build: the checking transport of the tests
/// (feature `check-transport`), which executes every operation on another
/// PE in that PE (see [`check`]).
#[cfg(feature = "check-transport")]
pub(crate) type Active = check::Checking;

/// The job's memory as start-up mapped it: what the transport of this
/// build is opened over (`hybrid::Hybrid::open`, `check::Checking::open`,
/// one signature for every `Active`).
// The hybrid transport needs only the segments and the control block.
#[cfg_attr(not(feature = "check-transport"), allow(dead_code))]
pub(crate) struct Mapped<'a> {
    /// Every PE's segment, mapped in this process.
    pub segs: Segments,
    pub control: Control,
    /// This node's job file, which holds the transport's own area (if it
    /// has one, [`area_len`]) at `area_off`, after the segments.
    pub file: &'a OwnedFd,
    pub area_off: u64,
    /// How this PE waits, and when a wait warns that it is long.
    pub policy: Policy,
    pub hang_warn_secs: f64,
}

/// The engine to the PEs of other nodes, as the launcher that started a job
/// across nodes hands it to the transport's constructor (one variant per
/// engine; the launcher alone knows how to start it, the transport alone
/// what to do with it).
pub(crate) enum Engine {
    /// MPI-3 RMA, in a job an MPI launcher started (`runtime::bootstrap::mpi`).
    Mpi(mpi::Engine),
}

/// Bytes of the job file, after the segments, that the transport of this
/// build keeps for itself (`npes` PEs).
#[cfg(not(feature = "check-transport"))]
pub(crate) fn area_len(_npes: usize) -> usize {
    0
}

/// Bytes of the job file, after the segments, that the transport of this
/// build keeps for itself (`npes` PEs): the checking transport's mailboxes.
#[cfg(feature = "check-transport")]
pub(crate) fn area_len(npes: usize) -> usize {
    check::Checking::area_len(npes, crate::job::page_size())
}

/// Which atomic operations are atomic with respect to which
/// ([`Transport::ATOMICITY`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Atomicity {
    /// Every transport atomic is a CPU atomic instruction on the word, so it
    /// is atomic with respect to every other transport atomic *and* every CPU
    /// atomic on that word, by any PE (shared memory).
    #[cfg_attr(feature = "check-transport", allow(dead_code))]
    Cpu,
    /// Transport atomics are atomic only with respect to other transport
    /// atomics (a network engine applies them itself, or on the target's
    /// CPU). A PE that updates a word of its own that peers update through
    /// the transport must use the transport too (`pe == me`), never a CPU
    /// atomic.
    // Built by transports whose peers are not all mapped (the checking one).
    #[cfg_attr(not(feature = "check-transport"), allow(dead_code))]
    Transport,
}

impl Atomicity {
    /// What it means for a program, in a sentence (`SHMEM_INFO` prints it).
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Atomicity::Cpu => "OpenSHMEM atomics are atomic with each other and with CPU atomics on the same word",
            Atomicity::Transport => {
                "OpenSHMEM atomics are atomic with each other only, not with CPU atomics on the same word"
            }
        }
    }
}

/// The two rendezvous of every PE: `shmem_barrier_all`'s and `shmem_finalize`'s
/// own, so that a PE finalizing (at `exit(0)`, say) never completes the
/// others' barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rendezvous {
    Barrier,
    Finalize,
}

/// What a PE passes to a routine whose world barrier compares it across the
/// PEs ([`Transport::rendezvous`]): the routine's kind (the caller's code,
/// not 0) and its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Agreed {
    pub kind: u32,
    pub args: [u64; 2],
}

/// A barrier whose PEs passed different [`Agreed`] (or some none), as every
/// PE learns it there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Disagreed {
    /// PE 0's, or `None` when PE 0 passed nothing at this barrier (it is in
    /// another call that waits for every PE).
    pub theirs: Option<Agreed>,
    /// Whether this PE reports it: the lowest PE whose own differs from PE
    /// 0's. The others say nothing (one line per job).
    pub report: bool,
}

pub(crate) trait Transport: Send + Sync + 'static {
    /// What the transport is, for `SHMEM_INFO`.
    const NAME: &'static str;

    /// Which atomics are atomic with respect to which. The library's own
    /// words that peers update through the transport (collective flags,
    /// semaphore values, lock words) are updated by their owner through the
    /// transport as well (`atomic_no_wake` on itself), so the library is
    /// correct under either answer; a user mixing CPU atomics on memory
    /// that peers update with AMOs is only correct under [`Atomicity::Cpu`].
    const ATOMICITY: Atomicity;

    /// What this transport is in this job, for `SHMEM_INFO` (`NAME`, unless
    /// the job uses only part of it).
    fn describe(&self) -> &'static str {
        Self::NAME
    }

    /// More about the engine to other nodes, if there is more to say (its
    /// version, or why the preferred one is not used), for `SHMEM_INFO`.
    fn detail(&self) -> Option<String> {
        None
    }

    /// Whether `pe` shares memory with this PE (same node: `local_ptr` gives
    /// an address for it). Always true for this PE.
    fn shares_memory(&self, pe: Pe) -> bool;

    /// Whether every PE of the job shares memory with this one (the job runs
    /// on one node). Algorithms that must be the same on every PE (the lock)
    /// choose by it, never by `shares_memory` of one peer.
    fn single_node(&self) -> bool;

    /// Address at which this process can load/store `off` on `pe`, if it can.
    /// `Some` for this PE itself, `None` for a PE it cannot reach by
    /// load/store. Stores through it bypass the transport's wake-ups
    /// ([`wake`](Self::wake)).
    fn local_ptr(&self, pe: Pe, off: SymOffset) -> Option<NonNull<u8>>;

    /// Copies `len` bytes from `src` into `pe`'s memory at `off`. Complete (and
    /// visible to `pe`) when it returns.
    ///
    /// # Safety
    /// `src` is readable for `len` bytes and `off..off+len` lies in a segment.
    unsafe fn put(&self, pe: Pe, off: SymOffset, src: *const u8, len: usize);

    /// Copies `len` bytes from `pe`'s memory at `off` into `dst`.
    ///
    /// # Safety
    /// `dst` is writable for `len` bytes and `off..off+len` lies in a segment.
    unsafe fn get(&self, pe: Pe, off: SymOffset, dst: *mut u8, len: usize);

    /// Non-blocking [`put`](Self::put): the transfer is complete only after
    /// the next [`quiet`](Self::quiet), and `src` must not change until then.
    /// The default completes it at once (allowed: completing early is legal).
    ///
    /// # Safety
    /// As for `put`.
    #[inline]
    unsafe fn put_nbi(&self, pe: Pe, off: SymOffset, src: *const u8, len: usize) {
        // SAFETY: the caller's contract is put's.
        unsafe { self.put(pe, off, src, len) }
    }

    /// Non-blocking [`get`](Self::get): `dst` holds the data, and may be read,
    /// only after the next [`quiet`](Self::quiet); it must stay writable and
    /// untouched until then. The default completes it at once.
    ///
    /// # Safety
    /// `dst` is writable for `len` bytes until the next `quiet`, and
    /// `off..off+len` lies in a segment.
    #[inline]
    unsafe fn get_nbi(&self, pe: Pe, off: SymOffset, dst: *mut u8, len: usize) {
        // SAFETY: the caller's contract covers get's.
        unsafe { self.get(pe, off, dst, len) }
    }

    /// Strided put of `n` elements of `T`: element `i` of `src` (stride `sst`
    /// elements) to element `i` at `off` on `pe` (stride `dst` elements).
    ///
    /// # Safety
    /// All elements addressed on both sides are valid and inside a segment.
    unsafe fn put_strided<T: Copy>(&self, pe: Pe, off: SymOffset, dst: isize, src: *const T, sst: isize, n: usize);

    /// Strided get, the mirror of `put_strided`.
    ///
    /// # Safety
    /// As for `put_strided`.
    unsafe fn get_strided<T: Copy>(&self, pe: Pe, off: SymOffset, sst: isize, dst: *mut T, dst_stride: isize, n: usize);

    /// Stores one value (a `shmem_TYPE_p`).
    ///
    /// # Safety
    /// `off` is aligned for `T` and inside a segment.
    unsafe fn put_value<T: Copy>(&self, pe: Pe, off: SymOffset, v: T);

    /// Loads one value (a `shmem_TYPE_g`).
    ///
    /// # Safety
    /// `off` is aligned for `T` and inside a segment.
    unsafe fn get_value<T: Copy>(&self, pe: Pe, off: SymOffset) -> T;

    /// Applies an atomic operation to the word at `off` on `pe` and returns its
    /// previous value; wakes `pe`'s waits on its memory if `op` writes.
    /// Sequentially consistent; atomic as [`ATOMICITY`](Self::ATOMICITY) says.
    ///
    /// # Safety
    /// `off` is aligned for `T` and inside a segment.
    unsafe fn atomic<T: AtomicWord>(&self, pe: Pe, off: SymOffset, op: AmoOp<T>) -> T;

    /// Non-blocking [`atomic`](Self::atomic) (the fetching `_nbi` AMOs): the
    /// previous value is stored at `fetch` (unaligned) and may be read only
    /// after the next [`quiet`](Self::quiet). The default completes at once.
    ///
    /// # Safety
    /// As for `atomic`; `fetch` is writable for one `T` until the next `quiet`.
    #[inline]
    unsafe fn atomic_nbi<T: AtomicWord>(&self, pe: Pe, off: SymOffset, op: AmoOp<T>, fetch: *mut T) {
        // SAFETY: the caller's contract covers atomic's and the store.
        unsafe { fetch.write_unaligned(self.atomic(pe, off, op)) }
    }

    /// [`atomic`](Self::atomic) on a library word whose waiters need no
    /// wake-up from this update: the owner taking signals off its own flag
    /// or value (`pe == me`), a lock word. Atomic with the transport's other
    /// atomics on that word (so the owner of a word that peers update
    /// through the transport uses this, not a CPU atomic); sequentially
    /// consistent. On shared memory, exactly the CPU atomic instruction.
    ///
    /// # Safety
    /// `off` is aligned for `T` and inside a segment.
    unsafe fn atomic_no_wake<T: AtomicWord>(&self, pe: Pe, off: SymOffset, op: AmoOp<T>) -> T;

    /// Puts `len` bytes, then updates the 64-bit signal word at `sig` on the
    /// same PE with `op` (`Set` or `Add`); a PE that sees the new signal sees
    /// the data. Returns the signal's previous value.
    ///
    /// # Safety
    /// As for `put` and `atomic`.
    unsafe fn put_signal(
        &self,
        pe: Pe,
        off: SymOffset,
        src: *const u8,
        len: usize,
        sig: SymOffset,
        op: AmoOp<u64>,
    ) -> u64;

    /// Non-blocking [`put_signal`](Self::put_signal): data and signal are
    /// delivered by the next [`quiet`](Self::quiet), the signal never before
    /// the data; `src` must not change until then. The default completes at once.
    ///
    /// # Safety
    /// As for `put_signal`.
    #[inline]
    unsafe fn put_signal_nbi(
        &self,
        pe: Pe,
        off: SymOffset,
        src: *const u8,
        len: usize,
        sig: SymOffset,
        op: AmoOp<u64>,
    ) {
        // SAFETY: the caller's contract is put_signal's.
        unsafe { self.put_signal(pe, off, src, len, sig, op) };
    }

    /// [`put_signal`](Self::put_signal) for a caller that does not need the
    /// signal's previous value (`shmem_put_signal`): a network engine need
    /// not wait for the signal's reply. `src` is reusable on return; the
    /// data and signal are delivered by the next [`quiet`](Self::quiet) at
    /// the latest, the signal never before the data. The default is `put_signal`.
    ///
    /// # Safety
    /// As for `put_signal`.
    #[inline]
    unsafe fn put_signal_post(
        &self,
        pe: Pe,
        off: SymOffset,
        src: *const u8,
        len: usize,
        sig: SymOffset,
        op: AmoOp<u64>,
    ) {
        // SAFETY: the caller's contract is put_signal's.
        unsafe { self.put_signal(pe, off, src, len, sig, op) };
    }

    /// [`put_signal_post`](Self::put_signal_post) into a library inbox
    /// (the collectives' rings and slabs), whose reader waits for the
    /// signal itself and nobody else reads the data: no `quiet` need
    /// complete it, so an engine may send it untracked (UCX: the target
    /// sends nothing back). The default is `put_signal_post`.
    ///
    /// # Safety
    /// As for `put_signal`.
    #[inline]
    unsafe fn put_signal_inbox(
        &self,
        pe: Pe,
        off: SymOffset,
        src: *const u8,
        len: usize,
        sig: SymOffset,
        op: AmoOp<u64>,
    ) {
        // SAFETY: the caller's contract.
        unsafe { self.put_signal_post(pe, off, src, len, sig, op) };
    }

    /// `pe`'s 64-bit word at `off` of a library inbox (a ring cell's
    /// header), read after every [`put_signal_inbox`](Self::put_signal_inbox)
    /// this PE sent `pe` before has landed: the broadcast root's look for
    /// room, which must not take a cell whose earlier message is still on
    /// its way for free. The default is a fetching atomic, which sees them
    /// where an inbox push is written before it returns or travels the same
    /// ordered lane as the fetch.
    ///
    /// # Safety
    /// `off` is 8-aligned and inside a segment.
    #[inline]
    unsafe fn fetch_after_inbox(&self, pe: Pe, off: SymOffset) -> u64 {
        // SAFETY: the caller's contract.
        unsafe { self.atomic::<u64>(pe, off, AmoOp::Fetch) }
    }

    /// Adds `v` to a 64-bit synchronisation flag of the library (collectives)
    /// at `off` on `pe`, sequentially consistent, and wakes `pe` if it sleeps
    /// in a library wait. Earlier puts and gets of this PE are complete first.
    ///
    /// # Safety
    /// `off` is 8-aligned and inside a segment.
    unsafe fn flag_add(&self, pe: Pe, off: SymOffset, v: u64);

    /// Adds `v` to a 64-bit counter of the library at `off` on `pe` that
    /// nobody waits on (the performance counters' target word,
    /// `crate::pcntr`): no reply awaited, no order with this PE's other
    /// operations, and no [`quiet`](Self::quiet) waits for it (across nodes
    /// it lands when the target's engine applies it, as the target polls
    /// [`progress`](Self::progress)). The default is
    /// [`atomic_no_wake`](Self::atomic_no_wake).
    ///
    /// # Safety
    /// `off` is 8-aligned and inside a segment.
    #[inline]
    unsafe fn post_count(&self, pe: Pe, off: SymOffset, v: u64) {
        // SAFETY: the caller's contract.
        unsafe { self.atomic_no_wake::<u64>(pe, off, AmoOp::Add(v)) };
    }

    /// How many times a [`quiet`](Self::quiet) (or a
    /// [`quiet_test`](Self::quiet_test) that answered yes) completed this
    /// PE's operations to PEs it does not share memory with, so far: the
    /// clock by which the performance counters (`crate::pcntr`) know that
    /// the `_nbi` operations issued before are complete. 0 where every
    /// operation completes at once.
    fn quiets(&self) -> u64 {
        0
    }

    /// Orders earlier puts to each PE before later ones to the same PE.
    fn fence(&self);

    /// Completes every earlier operation, blocking or not, and makes it
    /// visible to all PEs.
    fn quiet(&self);

    /// Whether [`fence`](Self::fence)'s ordering holds now, without waiting
    /// for a round trip (`shmemx_fence_test`): when it does, the fence is
    /// made; when it does not, what it waits for is asked for, so a later
    /// call answers yes. On shared memory (stores), always.
    fn fence_test(&self) -> bool {
        self.fence();
        true
    }

    /// Whether every earlier operation is complete, without waiting for a
    /// round trip (`shmemx_quiet_test`): yes makes it visible as a
    /// [`quiet`](Self::quiet) does; no starts what the quiet waits for, so
    /// a later call answers yes. On shared memory (stores), always.
    fn quiet_test(&self) -> bool {
        self.quiet();
        true
    }

    /// Lets the transport move requests along (serve peers' operations on
    /// this PE's memory, complete outstanding ones). Every wait loop of the
    /// library calls it on each poll: a network engine may need the target
    /// to call in for a remote write to land. No-op on shared memory.
    #[inline]
    fn progress(&self) {}

    /// Wakes `pe`'s library waits (collective and barrier bells) after this
    /// PE stored into `pe`'s memory through [`local_ptr`](Self::local_ptr).
    /// The caller has made the stores visible first (a sequentially
    /// consistent fence or operation).
    fn wake(&self, pe: Pe);

    /// Sleeps for at most `timeout` while the low 32 bits of the 64-bit word
    /// at `off` on `pe` hold `expected` (a lock word's futex sleep). Returns
    /// false at once if this transport cannot sleep on that word: the caller
    /// then polls with [`progress`](Self::progress).
    ///
    /// # Safety
    /// `off` is 8-aligned and inside a segment.
    unsafe fn sleep_on_word(&self, pe: Pe, off: SymOffset, expected: u32, timeout: Duration) -> bool;

    /// Wakes one PE sleeping in [`sleep_on_word`](Self::sleep_on_word) on the
    /// word (nothing if the transport cannot sleep on it).
    ///
    /// # Safety
    /// As for `sleep_on_word`.
    unsafe fn wake_one_on_word(&self, pe: Pe, off: SymOffset);

    /// Publishes the CPU this PE runs on and returns it (`u32::MAX` if
    /// unknown), for the waits' spin-or-yield hint.
    fn locate(&self) -> u32;

    /// Whether `pe` was last seen running on `cpu` (a CPU this PE found with
    /// [`locate`](Self::locate)), so that spinning here could keep it from
    /// running. False for PEs on other nodes.
    fn may_share_cpu(&self, pe: Pe, cpu: u32) -> bool;

    /// Meets every PE of the job at `which` (`shmem_barrier_all`'s
    /// synchronisation, finalize's). `post` gives, for the episode entered,
    /// where this PE blocks if it has to sleep (see `stuck`).
    /// Orders memory like a barrier: every PE's stores before it arrived are
    /// visible to every PE after it returns.
    ///
    /// With [`Rendezvous::Barrier`], the PEs also compare what they pass
    /// (the arguments of the allocation routine the barrier is for, `None`
    /// for a plain barrier) where the transport can do it without a message
    /// (in the words every PE writes into the control block as it arrives, on
    /// one node): `Some` when a PE's differs from PE 0's; `None` when all
    /// agree or the transport cannot tell (across nodes).
    fn rendezvous<'p>(
        &self,
        waiter: &Waiter<'_>,
        which: (Rendezvous, Option<&Agreed>),
        post: impl FnOnce(u32) -> Option<Post<'p>>,
    ) -> Option<Disagreed>;

    /// Whether [`put_signal_post`](Self::put_signal_post) to a PE on another
    /// node is posted (returns without waiting for a reply), so that the
    /// one-round collectives may push their blocks across nodes
    /// (`coll::inbox::exchange`). The same on every PE of a job.
    fn posts_remote_signals(&self) -> bool {
        false
    }

    /// Bytes of symmetric memory the transport's world rendezvous needs on
    /// every PE (the same on every PE; 0 where it needs none): the leaders'
    /// inbox of a job across nodes. The world team reserves them, zeroed.
    fn rendezvous_bytes(&self) -> usize {
        0
    }

    /// Where the world rendezvous finds its [`rendezvous_bytes`] from the
    /// next rendezvous on, or `None` to stop using them. Every PE calls it at
    /// the same point: after the start-up barrier (when every PE has zeroed
    /// them) and after finalize's rendezvous.
    ///
    /// [`rendezvous_bytes`]: Transport::rendezvous_bytes
    fn rendezvous_memory(&self, _at: Option<SymOffset>) {}
}

/// Copies `n` elements of `T` from `src` (every `src_stride`-th element) to
/// `dst` (every `dst_stride`-th): the local loop of the strided operations
/// (`shmem_iput`/`shmem_iget`) on memory this PE can address.
///
/// # Safety
/// Every element addressed on both sides is valid for the access.
#[inline]
pub(crate) unsafe fn copy_strided<T: Copy>(dst: *mut T, dst_stride: isize, src: *const T, src_stride: isize, n: usize) {
    for i in 0..n as isize {
        // SAFETY: the caller's contract covers every element addressed.
        unsafe {
            dst.offset(i * dst_stride)
                .write_unaligned(src.offset(i * src_stride).read_unaligned())
        };
    }
}

/// The strides of a strided operation on elements of `T` (in elements: the
/// remote side's, then the local one's) in bytes, and the element's size:
/// what the engines' shims take.
// The checking build has no engine.
#[cfg_attr(feature = "check-transport", allow(dead_code))]
pub(crate) fn byte_strides<T>(remote: isize, local: isize) -> (i64, i64, usize) {
    let size = size_of::<T>();
    ((remote * size as isize) as i64, (local * size as isize) as i64, size)
}

/// `cond` with a call to [`Transport::progress`] before each evaluation: the
/// condition a library wait polls.
#[inline]
pub(crate) fn polled<'a, T: Transport>(t: &'a T, mut cond: impl FnMut() -> bool + 'a) -> impl FnMut() -> bool + 'a {
    move || {
        t.progress();
        cond()
    }
}
