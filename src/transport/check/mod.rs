//! The checking transport: a second [`Transport`] that never dereferences
//! another PE's memory, built only with the cargo feature `check-transport`.
//! It exists to prove the seam: with it, any code that still reaches another
//! PE's segment around the trait fails loudly instead of working by accident.
//!
//! # Protocol
//!
//! Every operation on another PE is a *request* executed by that PE (the
//! target) on its own memory, like an active message over a network:
//!
//! - The job file holds, after the symmetric segments, a shared area
//!   (`area`) with one mailbox per (requester, target) pair of
//!   `area::SLOTS` slots, each a few words plus `area::CHUNK` bytes of
//!   payload, and one request counter per target.
//! - The requester (`request`) writes the operation, offset and inline data
//!   into the next slot, stores the slot's ticket, adds one to the target's
//!   counter and rings the target's bells. Transfers larger than a chunk are
//!   several requests; up to `SLOTS` are in flight per pair.
//! - The target (`serve`) executes pending requests whenever this PE calls
//!   `progress` (every wait loop of the library does) or waits for a reply of
//!   its own: puts copy the payload into its segment, gets copy into the
//!   payload, atomics run as CPU atomics on its own word. It then stores the
//!   ticket in `served` and rings the requester.
//! - A requester waiting for a reply serves its own incoming requests
//!   meanwhile, so two PEs requesting from each other never deadlock, and it
//!   waits through the usual waiter (spin, yield, then futex sleep on its
//!   bell), so a PE whose target died holds no core until `oshrun` ends the
//!   job. A reply missing for 20 s is reported as a fatal error: the target
//!   is most likely blocked in a wait that does not call `progress`. These
//!   waits are not published as stuck-job places (`stuck`): serving
//!   writes memory from inside a wait, which that proof rules out.
//! - Each outbox (this PE to one target) is behind a lock of this process,
//!   so threads of a `SHMEM_THREAD_MULTIPLE` program post whole operations
//!   one at a time; one thread serves at a time (the others skip).
//!
//! Requests of a pair execute in ticket order, so `fence` needs nothing more.
//! Blocking operations wait for their last request's reply. Non-blocking ones
//! post and return: they complete when their slot is needed again or at
//! `quiet`, which collects every reply; a non-blocking get writes its
//! destination only then. Operations on this PE itself use its memory
//! directly. `local_ptr` answers `None` for other PEs, so `shmem_ptr` gives
//! NULL, and `shares_memory` is false for them. Atomicity is declared
//! [`Atomicity::Transport`], the weaker statement, although the target's CPU
//! atomics are atomic with local ones too, so that the library above is
//! checked against it. The world barrier uses the control block of the job
//! file (job infrastructure, not another PE's memory), polling `progress`;
//! the bells too. The waits' CPU hint is unknown (`may_share_cpu` says yes,
//! so oversubscribed waits yield), and no sleep on another PE's word (locks
//! poll with `progress`).
//!
//! # What it proves
//!
//! Under the feature, `Segments::peer_addr` panics for another PE (the panic
//! names its caller; the C entry point's guard turns it into a one-line fatal
//! error), and the other PEs' segments are not accessible in this process at
//! all (mapped `PROT_NONE`), so code reaching around the trait, by
//! `peer_addr` or by address arithmetic, fails. `tests/check_transport.rs`
//! runs a representative part of the C suite this way at 2 and 4 PEs, and
//! this module's unit tests (two PEs in one process: `tests`) with the
//! feature.
//!
//! # Running it by hand
//!
//! ```text
//! cargo build --features check-transport --target-dir target/check-transport
//! target/check-transport/debug/oshcc -o prog prog.c
//! target/check-transport/debug/oshrun -np 4 ./prog
//! ```

mod area;
mod codec;
mod request;
mod serve;
#[cfg(test)]
mod tests;

use super::{Agreed, Atomicity, Disagreed, Pe, Rendezvous, Transport, copy_strided};
use crate::heap::{Segments, SymOffset};
use crate::job::Control;
use crate::stuck::Post;
use crate::types::{AmoOp, AtomicWord};
use crate::wait::Waiter;
use crate::wait::backoff::Policy;
use crate::wait::notify;
use area::Area;
use request::Outbox;
use serve::Inbox;
use std::ptr::NonNull;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering, fence};
use std::time::Duration;

pub(crate) struct Checking {
    me: usize,
    npes: usize,
    /// Used for this PE's own segment only.
    segs: Segments,
    control: Control,
    area: Area,
    policy: Policy,
    hang_warn_secs: f64,
    /// Per target PE: this PE's side of the mailbox to it.
    outboxes: Box<[Mutex<Outbox>]>,
    inbox: Mutex<Inbox>,
    /// This PE's request counter as of the last round of serving.
    served_upto: AtomicU64,
    /// Quiets so far (`Transport::quiets`).
    quiets: AtomicU64,
}

impl Checking {
    /// Bytes of job file the transport needs after the segments, for `npes` PEs.
    pub(crate) fn area_len(npes: usize, page: usize) -> usize {
        Area::len(npes, page)
    }

    /// The checking transport over the mapped segments: hides the other
    /// PEs' segments from this process and maps the mailboxes. One node
    /// only: an `engine` to other nodes is refused.
    pub(crate) fn open(mapped: super::Mapped<'_>, engine: Option<super::Engine>) -> Result<Checking, String> {
        if engine.is_some() {
            return Err("the checking transport runs on one node only (start the job with oshrun)".into());
        }
        let super::Mapped {
            segs,
            control,
            file,
            area_off,
            policy,
            hang_warn_secs,
        } = mapped;
        segs.hide_peers()
            .map_err(|e| format!("cannot protect the other PEs' segments: {e}"))?;
        let len = super::area_len(segs.npes);
        let area = crate::heap::segment::map_shared(file, area_off, len)
            .map_err(|e| format!("cannot map the checking transport's mailboxes: {e}"))?;
        // SAFETY: the area is the job file's part after the segments, sized by PE
        // 0 (zero-filled by the file's growth) and never unmapped.
        Ok(unsafe { Checking::new(segs, control, area.ptr, policy, hang_warn_secs) })
    }

    /// Nothing to end: the checking transport has no engine to other nodes.
    pub(crate) fn close(&self) -> Result<(), String> {
        Ok(())
    }

    /// # Safety
    /// `area` points to a mapping of the job file's area (see [`area_len`]),
    /// zero-filled when the job started and mapped for the rest of the process.
    ///
    /// [`area_len`]: Checking::area_len
    pub(crate) unsafe fn new(
        segs: Segments,
        control: Control,
        area: *mut u8,
        policy: Policy,
        hang_warn_secs: f64,
    ) -> Checking {
        let npes = segs.npes;
        Checking {
            me: segs.me,
            npes,
            segs,
            control,
            // SAFETY: the caller's contract.
            area: unsafe { Area::from_raw(area, npes) },
            policy,
            hang_warn_secs,
            outboxes: (0..npes).map(|_| Mutex::new(Outbox::new())).collect(),
            inbox: Mutex::new(Inbox::new(npes)),
            served_upto: AtomicU64::new(0),
            quiets: AtomicU64::new(0),
        }
    }

    /// This PE's own memory at `off`.
    #[inline]
    fn mine(&self, off: SymOffset) -> *mut u8 {
        self.segs.peer_addr(self.me, off)
    }
}

impl Transport for Checking {
    /// The target applies requests with CPU atomics on its own word, so they
    /// are in fact atomic with CPU atomics too; the weaker statement is
    /// declared so that the library above is checked against it.
    const NAME: &'static str = "checking (every remote operation runs in its target PE)";
    const ATOMICITY: Atomicity = Atomicity::Transport;

    fn shares_memory(&self, pe: Pe) -> bool {
        pe == self.me
    }

    /// False with two PEs or more: no peer is reachable by load/store, as on
    /// a network, so the library takes its multi-node paths.
    #[inline]
    fn single_node(&self) -> bool {
        self.npes == 1
    }

    #[inline]
    fn local_ptr(&self, pe: Pe, off: SymOffset) -> Option<NonNull<u8>> {
        if pe == self.me {
            NonNull::new(self.mine(off))
        } else {
            None
        }
    }

    unsafe fn put(&self, pe: Pe, off: SymOffset, src: *const u8, len: usize) {
        if pe == self.me {
            // SAFETY: caller's contract; may overlap when putting to oneself.
            unsafe { std::ptr::copy(src, self.mine(off), len) };
            return;
        }
        // SAFETY: caller's contract.
        unsafe { self.put_bytes(pe, off.0, src, len, true) }
    }

    unsafe fn get(&self, pe: Pe, off: SymOffset, dst: *mut u8, len: usize) {
        if pe == self.me {
            // SAFETY: caller's contract.
            unsafe { std::ptr::copy(self.mine(off), dst, len) };
            fence(Ordering::Acquire);
            return;
        }
        // SAFETY: caller's contract.
        unsafe { self.get_bytes(pe, off.0, dst, len, true) }
    }

    unsafe fn put_strided<T: Copy>(&self, pe: Pe, off: SymOffset, dst: isize, src: *const T, sst: isize, n: usize) {
        if pe == self.me {
            // SAFETY: caller's contract covers every element addressed.
            unsafe { copy_strided(self.mine(off) as *mut T, dst, src, sst, n) };
            return;
        }
        // SAFETY: caller's contract.
        unsafe { self.put_spread(pe, off.0, dst, src, sst, n) }
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
        if pe == self.me {
            // SAFETY: caller's contract covers every element addressed.
            unsafe { copy_strided(dst, dst_stride, self.mine(off) as *const T, sst, n) };
            fence(Ordering::Acquire);
            return;
        }
        // SAFETY: caller's contract.
        unsafe { self.get_spread(pe, off.0, sst, dst, dst_stride, n) }
    }

    unsafe fn put_value<T: Copy>(&self, pe: Pe, off: SymOffset, v: T) {
        if pe == self.me {
            // SAFETY: caller's contract; one store the size of T.
            unsafe { (self.mine(off) as *mut T).write_volatile(v) };
            return;
        }
        // SAFETY: v is readable for its size.
        unsafe { self.put_bytes(pe, off.0, &v as *const T as *const u8, std::mem::size_of::<T>(), true) }
    }

    unsafe fn get_value<T: Copy>(&self, pe: Pe, off: SymOffset) -> T {
        if pe == self.me {
            // SAFETY: caller's contract.
            let v = unsafe { (self.mine(off) as *const T).read_volatile() };
            fence(Ordering::Acquire);
            return v;
        }
        let mut v = std::mem::MaybeUninit::<T>::uninit();
        // SAFETY: v is writable for its size; the get is complete on return
        // and has written every byte of it.
        unsafe {
            self.get_bytes(pe, off.0, v.as_mut_ptr() as *mut u8, std::mem::size_of::<T>(), true);
            v.assume_init()
        }
    }

    unsafe fn atomic<T: AtomicWord>(&self, pe: Pe, off: SymOffset, op: AmoOp<T>) -> T {
        if pe == self.me {
            // SAFETY: caller's contract. A CPU atomic, as the serving side
            // applies to requests from other PEs.
            return unsafe { T::apply(self.mine(off) as *mut T, op) };
        }
        codec::from_word(self.atomic_word(pe, off.0, std::mem::size_of::<T>(), codec::encode(op), None))
    }

    unsafe fn atomic_no_wake<T: AtomicWord>(&self, pe: Pe, off: SymOffset, op: AmoOp<T>) -> T {
        // SAFETY: caller's contract; the target's waits are woken all the
        // same (waking is harmless, only not needed).
        unsafe { self.atomic(pe, off, op) }
    }

    unsafe fn put_nbi(&self, pe: Pe, off: SymOffset, src: *const u8, len: usize) {
        if pe == self.me {
            // SAFETY: caller's contract.
            return unsafe { self.put(pe, off, src, len) };
        }
        // SAFETY: caller's contract; the source is copied into the mailbox
        // before this returns.
        unsafe { self.put_bytes(pe, off.0, src, len, false) }
    }

    unsafe fn get_nbi(&self, pe: Pe, off: SymOffset, dst: *mut u8, len: usize) {
        if pe == self.me {
            // SAFETY: caller's contract.
            return unsafe { self.get(pe, off, dst, len) };
        }
        // SAFETY: caller's contract: dst stays writable until the next quiet,
        // which collects the replies at the latest.
        unsafe { self.get_bytes(pe, off.0, dst, len, false) }
    }

    unsafe fn atomic_nbi<T: AtomicWord>(&self, pe: Pe, off: SymOffset, op: AmoOp<T>, fetch: *mut T) {
        if pe == self.me {
            // SAFETY: caller's contract.
            return unsafe { fetch.write_unaligned(self.atomic(pe, off, op)) };
        }
        let width = std::mem::size_of::<T>();
        self.atomic_word(pe, off.0, width, codec::encode(op), Some(fetch as *mut u8));
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
        if pe == self.me {
            // SAFETY: caller's contract.
            unsafe { self.put_signal(pe, off, src, len, sig, op) };
            return;
        }
        // SAFETY: caller's contract; the source is copied before this returns.
        unsafe { self.put_signal_bytes(pe, off.0, src, len, sig.0, codec::encode(op), false) };
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
        if pe == self.me {
            // SAFETY: caller's contract; the data stores precede the signal's
            // sequentially consistent update.
            return unsafe {
                std::ptr::copy(src, self.mine(off), len);
                u64::apply(self.mine(sig) as *mut u64, op)
            };
        }
        // SAFETY: caller's contract.
        unsafe { self.put_signal_bytes(pe, off.0, src, len, sig.0, codec::encode(op), true) }
    }

    unsafe fn flag_add(&self, pe: Pe, off: SymOffset, v: u64) {
        if pe == self.me {
            // SAFETY: caller's contract: an aligned flag of this PE's segment.
            unsafe { AtomicU64::from_ptr(self.mine(off) as *mut u64) }.fetch_add(v, Ordering::SeqCst);
            crate::wait::notify_after_seqcst(&self.control.slot(pe).wake.sync);
            return;
        }
        self.flag_add_word(pe, off.0, v);
    }

    fn fence(&self) {
        // Requests to one PE execute in order; this PE's own stores need a
        // release fence like the shared-memory transport's.
        fence(Ordering::Release);
    }

    fn quiet(&self) {
        for pe in (0..self.npes).filter(|&pe| pe != self.me) {
            self.drain(pe);
        }
        fence(Ordering::SeqCst);
        self.quiets.fetch_add(1, Ordering::Relaxed);
    }

    fn quiets(&self) -> u64 {
        self.quiets.load(Ordering::Relaxed)
    }

    fn progress(&self) {
        self.serve();
    }

    fn wake(&self, pe: Pe) {
        notify(&self.control.slot(pe).wake.sync);
    }

    unsafe fn sleep_on_word(&self, _pe: Pe, _off: SymOffset, _expected: u32, _timeout: Duration) -> bool {
        false // a futex on another PE's word would reach around the transport
    }

    unsafe fn wake_one_on_word(&self, _pe: Pe, _off: SymOffset) {}

    fn locate(&self) -> u32 {
        u32::MAX
    }

    /// Unknown: says "may", so that waits yield rather than spin when PEs
    /// outnumber cores.
    fn may_share_cpu(&self, _pe: Pe, _cpu: u32) -> bool {
        true
    }

    /// The shared-memory transport's counter in the control block (job
    /// infrastructure, not a PE's memory), waited for with `progress`, so a
    /// PE in the barrier serves requests; no CPU hint.
    /// Shared memory's counter rendezvous in the control block (job
    /// infrastructure, not another PE's memory), serving requests while it waits.
    fn rendezvous<'p>(
        &self,
        waiter: &Waiter<'_>,
        which: (Rendezvous, Option<&Agreed>),
        post: impl FnOnce(u32) -> Option<Post<'p>>,
    ) -> Option<Disagreed> {
        super::shm::counter_rendezvous(&self.control, self.me, waiter, which, post, || self.progress())
    }
}
