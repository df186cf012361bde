//! The shared-memory transport: every segment is mapped in every PE.
//!
//! Puts are stores and gets are loads into the mapping. After storing into a
//! peer's memory, a put rings the peer's doorbell if one of its threads sleeps
//! (see `wait`), so a waiter on that memory wakes at once.
//!
//! Every PE shares memory with every other, every atomic is a CPU atomic
//! ([`Atomicity::Cpu`]), and the `_nbi` operations complete at once (the
//! trait's defaults). `progress` has nothing to do. The node-wide state lives
//! in the control block of the job file: the bells (woken by [`wake`] and
//! after each write), the CPU each PE was last seen on (the waits' hint), and
//! the counters of the world rendezvous ([`rendezvous`]), on which the PEs
//! also compare the arguments of the allocation a world barrier is for.
//!
//! Ordering (see docs/memory-model.md): a put is complete when its stores have
//! been issued; `notify` then executes a sequentially consistent fence (x86-64
//! `mfence`, AArch64 `dmb ish`), which drains them before the doorbell check.
//! `fence` is a release fence (a compiler barrier on x86-64 whose stores are
//! TSO-ordered; `dmb ish` on AArch64); `quiet` is a sequentially consistent fence.
//!
//! [`wake`]: Transport::wake
//! [`rendezvous`]: Transport::rendezvous

use super::{Agreed, Atomicity, Disagreed, Pe, Rendezvous, Transport, copy_strided};
use crate::heap::{Segments, SymOffset};
use crate::job::{Control, Episode, JobHeader, Whereabouts};
use crate::stuck::Post;
use crate::types::{AmoOp, AtomicWord};
use crate::wait::{Waiter, futex, locate, notify, notify_after_seqcst};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering, fence};
use std::time::Duration;

pub(crate) struct SharedMemory {
    segs: Segments,
    control: Control,
}

impl SharedMemory {
    pub(crate) fn new(segs: Segments, control: Control) -> SharedMemory {
        SharedMemory { segs, control }
    }

    #[inline]
    fn addr(&self, pe: Pe, off: SymOffset) -> *mut u8 {
        self.segs.peer_addr(pe, off)
    }

    #[inline]
    fn wrote(&self, pe: Pe) {
        notify(&self.control.slot(pe).wake.memory);
    }

    /// The low half of the 64-bit word at `off` on `pe`: the bits a lock word
    /// uses, as a futex word.
    #[inline]
    fn low_half(&self, pe: Pe, off: SymOffset) -> &AtomicU32 {
        let low = if cfg!(target_endian = "little") { 0 } else { 1 };
        // SAFETY: the caller passes an 8-aligned word inside a segment, so
        // each half is a valid, aligned 32-bit location for as long as the
        // mapping lives (the whole process). The kernel reads it as a u32
        // while others update the whole word with 64-bit atomics; both sizes
        // are single-copy atomic on x86-64 and AArch64.
        unsafe { AtomicU32::from_ptr((self.addr(pe, off) as *mut u32).add(low)) }
    }
}

impl Transport for SharedMemory {
    const NAME: &'static str = "shared memory";
    const ATOMICITY: Atomicity = Atomicity::Cpu;

    #[inline]
    fn shares_memory(&self, _pe: Pe) -> bool {
        true
    }

    #[inline]
    fn single_node(&self) -> bool {
        true
    }

    #[inline]
    fn local_ptr(&self, pe: Pe, off: SymOffset) -> Option<NonNull<u8>> {
        NonNull::new(self.addr(pe, off))
    }

    #[inline]
    unsafe fn put(&self, pe: Pe, off: SymOffset, src: *const u8, len: usize) {
        // SAFETY: caller's contract; `copy` because a PE may put from its own
        // symmetric memory into itself with overlapping ranges.
        unsafe { std::ptr::copy(src, self.addr(pe, off), len) };
        self.wrote(pe);
    }

    #[inline]
    unsafe fn get(&self, pe: Pe, off: SymOffset, dst: *mut u8, len: usize) {
        // SAFETY: caller's contract; overlap is possible for gets from oneself.
        unsafe { std::ptr::copy(self.addr(pe, off), dst, len) };
        fence(Ordering::Acquire);
    }

    unsafe fn put_strided<T: Copy>(&self, pe: Pe, off: SymOffset, dst: isize, src: *const T, sst: isize, n: usize) {
        // SAFETY: caller's contract covers every element addressed.
        unsafe { copy_strided(self.addr(pe, off) as *mut T, dst, src, sst, n) };
        self.wrote(pe);
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
        // SAFETY: caller's contract covers every element addressed.
        unsafe { copy_strided(dst, dst_stride, self.addr(pe, off) as *const T, sst, n) };
        fence(Ordering::Acquire);
    }

    #[inline]
    unsafe fn put_value<T: Copy>(&self, pe: Pe, off: SymOffset, v: T) {
        // SAFETY: caller's contract. Volatile: exactly one store the size of T,
        // never elided or split by the compiler.
        unsafe { (self.addr(pe, off) as *mut T).write_volatile(v) };
        self.wrote(pe);
    }

    #[inline]
    unsafe fn get_value<T: Copy>(&self, pe: Pe, off: SymOffset) -> T {
        // SAFETY: caller's contract; volatile for a fresh load every call.
        let v = unsafe { (self.addr(pe, off) as *const T).read_volatile() };
        fence(Ordering::Acquire);
        v
    }

    #[inline]
    unsafe fn atomic<T: AtomicWord>(&self, pe: Pe, off: SymOffset, op: AmoOp<T>) -> T {
        let writes = op.writes();
        // SAFETY: caller's contract.
        let old = unsafe { T::apply(self.addr(pe, off) as *mut T, op) };
        if writes {
            // The update was sequentially consistent: no further fence needed.
            notify_after_seqcst(&self.control.slot(pe).wake.memory);
        }
        old
    }

    #[inline]
    unsafe fn atomic_no_wake<T: AtomicWord>(&self, pe: Pe, off: SymOffset, op: AmoOp<T>) -> T {
        // SAFETY: caller's contract.
        unsafe { T::apply(self.addr(pe, off) as *mut T, op) }
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
        // SAFETY: caller's contract. The data stores precede the signal's
        // sequentially consistent update (x86-64: a locked instruction drains
        // all earlier stores, string stores included; AArch64: the update has
        // release semantics), so the signal is never seen before the data.
        let old = unsafe {
            std::ptr::copy(src, self.addr(pe, off), len);
            u64::apply(self.addr(pe, sig) as *mut u64, op)
        };
        notify_after_seqcst(&self.control.slot(pe).wake.memory);
        old
    }

    #[inline]
    unsafe fn flag_add(&self, pe: Pe, off: SymOffset, v: u64) {
        // SAFETY: caller's contract. A SeqCst read-modify-write: every earlier
        // store of this PE is visible before the flag changes.
        unsafe { std::sync::atomic::AtomicU64::from_ptr(self.addr(pe, off) as *mut u64) }
            .fetch_add(v, Ordering::SeqCst);
        notify_after_seqcst(&self.control.slot(pe).wake.sync);
    }

    #[inline]
    fn fence(&self) {
        fence(Ordering::Release);
    }

    #[inline]
    fn quiet(&self) {
        fence(Ordering::SeqCst);
    }

    #[inline]
    fn wake(&self, pe: Pe) {
        notify_after_seqcst(&self.control.slot(pe).wake.sync);
    }

    #[inline]
    unsafe fn sleep_on_word(&self, pe: Pe, off: SymOffset, expected: u32, timeout: Duration) -> bool {
        futex::wait(self.low_half(pe, off), expected, timeout);
        true
    }

    #[inline]
    unsafe fn wake_one_on_word(&self, pe: Pe, off: SymOffset) {
        futex::wake_one(self.low_half(pe, off));
    }

    #[inline]
    fn locate(&self) -> u32 {
        locate(&self.control.slot(self.segs.me).whereabouts)
    }

    #[inline]
    fn may_share_cpu(&self, pe: Pe, cpu: u32) -> bool {
        self.control.slot(pe).whereabouts.cpu.load(Ordering::Relaxed) == cpu
    }

    /// The counter rendezvous in the control block ([`counter_rendezvous`]).
    #[inline]
    fn rendezvous<'p>(
        &self,
        waiter: &Waiter<'_>,
        which: (Rendezvous, Option<&Agreed>),
        post: impl FnOnce(u32) -> Option<Post<'p>>,
    ) -> Option<Disagreed> {
        counter_rendezvous(&self.control, self.segs.me, waiter, which, post, || {})
    }
}

/// (arrivals, episode) of a rendezvous in the header.
pub(super) fn counters(which: Rendezvous, h: &JobHeader) -> (&AtomicU64, &Episode) {
    match which {
        Rendezvous::Barrier => (&h.barrier_count, &h.barrier_gen),
        Rendezvous::Finalize => (&h.finalize_count, &h.finalize_gen),
    }
}

/// A PE's "arrived at episode + 1" word of a rendezvous.
pub(super) fn arrived(which: Rendezvous, w: &Whereabouts) -> &AtomicU32 {
    match which {
        Rendezvous::Barrier => &w.arrived,
        Rendezvous::Finalize => &w.finalize_arrived,
    }
}

/// Missing PEs beyond which a waiter of the world rendezvous yields without
/// looking where they run.
const SCAN_MAX: u32 = 64;
/// Polls in a row while every missing PE runs on another CPU: long enough to
/// cover a context switch there (about 2 µs), so that the PEs of this CPU,
/// which have all arrived, do not trade it back and forth meanwhile.
const BARRIER_SPINS: u32 = 256;

/// A sense-reversing counter in the control block: each PE increments the
/// arrival count; the last one resets it and advances the episode number,
/// which the others wait on. On one node this costs one contended cache
/// line per PE, which beats tree and dissemination barriers at the PE
/// counts a node holds. The last arriver rings the bell of every PE with
/// sleepers.
///
/// With more PEs than cores a waiter must choose between spinning, which
/// is right when the PEs still missing are running on other cores, and
/// yielding, right when one of them waits for this core. Each hand-over
/// costs a context switch (about 2 µs in a virtual machine), so the
/// choice matters: every PE publishes the episode it arrived at and its
/// CPU, and a waiter spins only while none of the missing PEs was last
/// seen on its own CPU (when all the PEs of its CPU have arrived, trading
/// the CPU among them helps nobody). At 4 PEs on 2 cores this nearly
/// halves the yields (docs/performance.md).
///
/// `progress` runs on every poll (the shared-memory transport has none; the
/// checking transport serves its mailboxes there). Shared by both, because the
/// control block is the job's, not any PE's memory.
///
/// The arguments of the allocation a barrier is for (`agree`, `None` for a
/// plain barrier) are compared on the way, at no cost a PE would notice:
/// each arrival adds a [`fingerprint`] of them (0 for none) to the high half
/// of the arrival count, which it increments anyway, and the last arriver,
/// which gets the sum back, checks that it is the PE count times its own
/// fingerprint, and says so beside the new episode, in the line every
/// waiter reads anyway ([`Episode::differs`]). The PE also writes the
/// arguments beside its arrival word (`Whereabouts::agreed`), which are read
/// only when the fingerprints differ, to find who differs ([`verdict`]).
#[inline]
pub(super) fn counter_rendezvous<'p>(
    control: &Control,
    me: usize,
    waiter: &Waiter<'_>,
    (which, agree): (Rendezvous, Option<&Agreed>),
    post: impl FnOnce(u32) -> Option<Post<'p>>,
    progress: impl Fn(),
) -> Option<Disagreed> {
    let npes = control.npes() as u32;
    let h = control.header();
    let (count, episodes) = counters(which, h);
    let episode = episodes.number.load(Ordering::Acquire);
    let shared_cores = waiter.policy.shared_cores;
    let w = &control.slot(me).whereabouts;
    if shared_cores > 0 {
        locate(w);
    }
    let print = agree.map_or(0, |a| {
        publish(w, episode, a);
        fingerprint(a)
    });
    // Read by waiters deciding whether to spin (when PEs share cores) and by
    // hang reports (which PEs a barrier waits for), so stored always.
    arrived(which, w).store(episode.wrapping_add(1), Ordering::Relaxed);
    // AcqRel: arrivals publish each PE's earlier writes to the last arriver,
    // whose release of the new episode passes them on to everyone.
    let add = 1 | (print as u64) << 32;
    let sum = count.fetch_add(add, Ordering::AcqRel).wrapping_add(add);
    if sum as u32 == npes {
        count.store(0, Ordering::Relaxed);
        // Every arrival's fingerprint is in the sum: when all are alike it
        // is npes times this one's; arrivals that differ (a plain barrier's 0
        // among them: fingerprints are odd) give another sum unless their
        // fingerprints collide (32 bits of a multiplicative hash).
        if (sum >> 32) as u32 != npes.wrapping_mul(print) {
            episodes.differs.store(episode.wrapping_add(1), Ordering::Relaxed);
        }
        episodes.number.store(episode.wrapping_add(1), Ordering::Release);
        for pe in 0..control.npes() {
            notify(&control.slot(pe).wake.sync);
        }
        return verdict(control, me, episode, episodes);
    }
    let done = || {
        progress();
        episodes.number.load(Ordering::Acquire) != episode
    };
    let describe = || {
        format!(
            "the other PEs to reach the {} (episode {episode}, {} of {npes} arrived)",
            match which {
                Rendezvous::Barrier => "barrier",
                Rendezvous::Finalize => "finalize rendezvous",
            },
            count.load(Ordering::Relaxed) as u32
        )
    };
    let post = post(episode);
    if shared_cores == 0 {
        waiter.wait_at(|| post, done, describe);
        return verdict(control, me, episode, episodes);
    }
    let may_spin = || {
        // The count is reset to 0 just before the episode advances, so a
        // stale read only makes this yield once more. With many PEs missing,
        // one surely shares this CPU: skip the scan.
        let arrived_n = (count.load(Ordering::Relaxed) as u32).min(npes);
        if npes - arrived_n > SCAN_MAX {
            return false;
        }
        let cpu = locate(&control.slot(me).whereabouts);
        let want = episode.wrapping_add(1);
        (0..control.npes()).all(|pe| {
            let w = &control.slot(pe).whereabouts;
            arrived(which, w).load(Ordering::Relaxed) == want || w.cpu.load(Ordering::Relaxed) != cpu
        })
    };
    waiter.wait_hinted(|| post, done, may_spin, BARRIER_SPINS, describe);
    verdict(control, me, episode, episodes)
}

/// 32 bits of `a`, odd (so never a plain barrier's 0), for the barrier's
/// sum ([`counter_rendezvous`]): the high half of one multiplication of the
/// kind and the arguments mixed, which depends on every bit of them.
#[inline]
fn fingerprint(a: &Agreed) -> u32 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let x = (a.kind as u64).rotate_right(8) ^ a.args[0] ^ a.args[1].rotate_left(29);
    (x.wrapping_mul(K) >> 32) as u32 | 1
}

/// This PE's entry of [`Whereabouts::agreed`] for the barrier at `episode`.
fn publish(w: &Whereabouts, episode: u32, a: &Agreed) {
    let e = &w.agreed[(episode & 1) as usize];
    e.kind.store(a.kind, Ordering::Relaxed);
    e.args[0].store(a.args[0], Ordering::Relaxed);
    e.args[1].store(a.args[1], Ordering::Relaxed);
    e.episode.store(episode.wrapping_add(1), Ordering::Relaxed);
}

/// PE `pe`'s entry for the barrier at `episode`, if it wrote one. Called
/// once the barrier has completed (its acquire of the new episode makes every
/// PE's entry visible); nobody writes that entry again before the next
/// barrier but one, which needs this PE's arrival at the next.
fn entry(control: &Control, pe: usize, episode: u32) -> Option<Agreed> {
    let e = &control.slot(pe).whereabouts.agreed[(episode & 1) as usize];
    (e.episode.load(Ordering::Relaxed) == episode.wrapping_add(1)).then(|| Agreed {
        kind: e.kind.load(Ordering::Relaxed),
        args: [e.args[0].load(Ordering::Relaxed), e.args[1].load(Ordering::Relaxed)],
    })
}

/// After the barrier at `episode`: `None` when its last arriver found the
/// arrivals' fingerprints alike (one word of the episode's line, which this
/// PE has just read). Otherwise every PE's entry (or none: a plain barrier),
/// against PE 0's, to find the one PE that reports: the lowest whose entry
/// differs from PE 0's. Every PE gets the answer, the others to stop.
#[inline]
fn verdict(control: &Control, me: usize, episode: u32, episodes: &Episode) -> Option<Disagreed> {
    if episodes.differs.load(Ordering::Relaxed) != episode.wrapping_add(1) {
        return None;
    }
    differs(control, me, episode)
}

#[cold]
#[inline(never)]
fn differs(control: &Control, me: usize, episode: u32) -> Option<Disagreed> {
    let theirs = entry(control, 0, episode);
    let first = (1..control.npes()).find(|&pe| entry(control, pe, episode) != theirs)?;
    Some(Disagreed {
        theirs,
        report: first == me,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the last arriver checks: the sum of the arrivals' fingerprints
    /// against npes times its own.
    fn alike(prints: &[u32]) -> bool {
        let sum = prints.iter().fold(0u32, |s, &p| s.wrapping_add(p));
        sum == (prints.len() as u32).wrapping_mul(*prints.last().unwrap())
    }

    #[test]
    fn fingerprints_tell_arguments_and_plain_barriers_apart() {
        let a = |kind, x, y| fingerprint(&Agreed { kind, args: [x, y] });
        let (m8, m16, c) = (a(10, 8, 0), a(10, 16, 0), a(13, 1, 8));
        assert!(
            [m8, m16, c].iter().all(|p| p % 2 == 1),
            "odd, so never a plain barrier's 0"
        );
        assert!(m8 != m16 && m8 != c && a(13, 8, 1) != c);
        assert!(alike(&[m8, m8, m8]) && alike(&[0, 0]));
        // One PE that differs, wherever it is and whoever arrives last.
        for n in [2, 3, 4, 1000] {
            for odd in [m16, 0, c] {
                let mut v = vec![m8; n];
                v[1] = odd;
                assert!(!alike(&v), "{n} PEs");
                v.swap(1, n - 1);
                assert!(!alike(&v), "{n} PEs, last");
            }
        }
    }
}
