//! The queue lock of jobs that span nodes: an MCS lock (Mellor-Crummey and
//! Scott) on transport atomics, after OSHMPI's design.
//!
//! The futex mutex of the parent module makes every waiter retry an atomic
//! on PE 0's word; across nodes that is a stream of network round trips per
//! waiter for as long as the lock is held. Here each waiter makes a fixed
//! number of remote atomics and then waits on its *own* copy of the lock,
//! which its predecessor updates once, when it hands the lock over.
//!
//! # The word
//!
//! The user's symmetric `long` is two 32-bit halves, each updated only by
//! 32-bit transport atomics (so the two never interfere):
//!
//! - the *tail* half, used on the home PE (0) only: 0 when nobody holds or
//!   waits for the lock, otherwise the last PE in the queue plus one;
//! - the *link* half, on every PE: bits 0..30 hold the PE queued right
//!   behind this one plus one (0: none yet), bit 31 ([`GO`]) is set while
//!   this PE holds the lock.
//!
//! The tail is the low-order half (its address depends on the byte order).
//! Once every PE has released the lock, every copy is 0 again, as the user
//! initialised it, so the memory can serve as a fresh lock.
//!
//! # The protocol
//!
//! - Acquire: swap the tail with `me + 1`. If it was 0, the lock is free:
//!   set `GO` in the own link half. Otherwise OR `me + 1` into the
//!   predecessor's link half and wait until `GO` appears in the own one.
//! - Release: compare-and-swap the tail from `me + 1` to 0. If that
//!   succeeds, nobody queued: clear the own link half. Otherwise a successor
//!   has swapped the tail and will link itself: wait for the link, clear the
//!   own half, then OR `GO` into the successor's.
//! - Test: compare-and-swap the tail from 0 to `me + 1` (so it fails while
//!   anyone holds or waits for the lock), and set `GO` if that succeeded.
//!
//! The own link half is read with a transport atomic, never a plain load:
//! peers update it through the transport, whose atomics need not be atomic
//! with CPU accesses (`Transport::ATOMICITY`). Waits poll the transport's
//! `progress` (a remote update may land only when this PE calls in). Every
//! operation is sequentially consistent, so the previous holder's completed
//! writes (`shmem_clear_lock` quiets first) are visible to the next holder.
//!
//! The misuse checks (setting a lock this PE holds or queues for,
//! clearing one it does not hold) need no atomic: a PE knows which locks it
//! holds ([`Claims`], kept per process by the runtime, so shared by the
//! threads of a PE, which share its link halves and so must not queue twice
//! for one lock).
//! Only the report of a lock cleared by the wrong PE looks at the other PEs,
//! for the holder: the PE whose `GO` bit is set, which is why a PE that
//! takes a free lock sets its own `GO` too. Like the futex mutex, the lock is
//! not re-entrant; unlike it, it is fair (first come, first served).

use super::Misuse;
use crate::heap::SymOffset;
use crate::stuck::Post;
use crate::transport::{Pe, Transport, polled};
use crate::types::AmoOp;
use crate::wait::Waiter;
use std::sync::Mutex;

/// In a PE's link half: set while that PE holds the lock.
pub(crate) const GO: u32 = 1 << 31;

/// The operations the queue lock makes, on the halves of one lock's copies.
/// Every one is a sequentially consistent atomic, atomic with respect to
/// the others on the same half.
pub(crate) trait Halves {
    /// This PE.
    fn me(&self) -> usize;
    /// PEs in the job.
    fn npes(&self) -> usize;
    /// Applies `op` to the tail half (on the home PE); returns its previous value.
    fn tail(&self, op: AmoOp<u32>) -> u32;
    /// Applies `op` to `pe`'s link half and returns its previous value;
    /// wakes `pe` if it waits for its own half.
    fn link(&self, pe: usize, op: AmoOp<u32>) -> u32;
    /// Waits until `until` holds for this PE's own link half and returns the
    /// value that satisfied it. `acquiring` says whether the wait is for the
    /// lock (as long as the holder keeps it: published as a place where the
    /// job may block for ever) or for a successor that has already queued.
    fn wait(&self, acquiring: bool, until: impl Fn(u32) -> bool) -> u32;
}

/// The locks (by offset) this PE holds or queues for, and whether it holds
/// each: this PE's own knowledge, so that the misuse checks need no atomic.
/// One set per process (the runtime's `lock::Locks`), shared by its threads.
#[derive(Default)]
pub(crate) struct Claims(Mutex<Vec<(SymOffset, bool)>>);

impl Claims {
    fn with<R>(&self, f: impl FnOnce(&mut Vec<(SymOffset, bool)>) -> R) -> R {
        // The vector is consistent after any panic: nothing to poison.
        f(&mut self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Records that this PE queues for `off`; false if it already holds or
    /// queues for it.
    pub(crate) fn claim(&self, off: SymOffset) -> bool {
        self.with(|v| {
            let new = !v.iter().any(|&(o, _)| o == off);
            if new {
                v.push((off, false));
            }
            new
        })
    }

    /// Records that this PE holds `off` (claimed before).
    pub(crate) fn grant(&self, off: SymOffset) {
        self.with(|v| {
            v.iter_mut()
                .filter(|(o, _)| *o == off)
                .for_each(|(_, held)| *held = true)
        })
    }

    /// Whether this PE holds `off`.
    pub(crate) fn held(&self, off: SymOffset) -> bool {
        self.with(|v| v.contains(&(off, true)))
    }

    /// Forgets `off`.
    pub(crate) fn release(&self, off: SymOffset) {
        self.with(|v| v.retain(|&(o, _)| o != off))
    }

    /// The locks this PE holds now.
    pub(crate) fn held_now(&self) -> Vec<SymOffset> {
        self.with(|v| v.iter().filter(|&&(_, held)| held).map(|&(o, _)| o).collect())
    }
}

/// The tail half's byte offset in the `long` (the low half).
const TAIL_AT: usize = if cfg!(target_endian = "little") { 0 } else { 4 };
/// The link half's byte offset in the `long`.
const LINK_AT: usize = 4 - TAIL_AT;

/// The halves of a lock's copies, reached through the transport.
pub(crate) struct Remote<'a, T: Transport> {
    pub transport: &'a T,
    pub me: Pe,
    pub npes: usize,
    /// An 8-aligned `long` inside a segment (checked by the caller).
    pub off: SymOffset,
    /// This PE's waiter for memory that peers write.
    pub waiter: Waiter<'a>,
    /// Where an acquire blocks, published if it has to sleep.
    pub post: Option<&'a Post<'a>>,
    /// The routine and the user's address, for the hang diagnostic.
    pub routine: &'static str,
    pub addr: usize,
}

impl<T: Transport> Remote<'_, T> {
    #[inline]
    fn half(&self, at: usize) -> SymOffset {
        SymOffset(self.off.0 + at)
    }
}

impl<T: Transport> Halves for Remote<'_, T> {
    #[inline]
    fn me(&self) -> usize {
        self.me
    }

    #[inline]
    fn npes(&self) -> usize {
        self.npes
    }

    #[inline]
    fn tail(&self, op: AmoOp<u32>) -> u32 {
        // SAFETY: a 4-aligned half of an 8-aligned word in a segment (the
        // field's contract). Nobody waits for the tail: no wake-up.
        unsafe {
            self.transport
                .atomic_no_wake::<u32>(super::HOME, self.half(TAIL_AT), op)
        }
    }

    #[inline]
    fn link(&self, pe: usize, op: AmoOp<u32>) -> u32 {
        let at = self.half(LINK_AT);
        // SAFETY: as for `tail`. Another PE's half may be waited for (its
        // owner waits for a link or for GO): wake it.
        unsafe {
            if pe == self.me {
                self.transport.atomic_no_wake::<u32>(pe, at, op)
            } else {
                self.transport.atomic::<u32>(pe, at, op)
            }
        }
    }

    fn wait(&self, acquiring: bool, until: impl Fn(u32) -> bool) -> u32 {
        let seen = std::cell::Cell::new(0);
        let post = if acquiring { self.post } else { None };
        self.waiter.wait_at(
            || post.copied(),
            polled(self.transport, || {
                seen.set(self.link(self.me, AmoOp::Fetch));
                until(seen.get())
            }),
            || {
                let what = if acquiring {
                    "the lock"
                } else {
                    "the next PE in line to link itself"
                };
                format!("{}({:#x}): waiting for {what}", self.routine, self.addr)
            },
        );
        seen.get()
    }
}

/// The queue lock on one lock's copies.
pub(crate) struct QueueLock<'c, H: Halves> {
    halves: H,
    /// This PE's claims, and the lock's key among them.
    claims: &'c Claims,
    key: SymOffset,
}

impl<'c, H: Halves> QueueLock<'c, H> {
    pub(crate) fn new(halves: H, claims: &'c Claims, key: SymOffset) -> QueueLock<'c, H> {
        QueueLock { halves, claims, key }
    }

    fn tag(pe: usize) -> u32 {
        // PE counts are far below 2^31 (job sizes are checked at start-up).
        debug_assert!(pe < GO as usize - 1);
        pe as u32 + 1
    }

    /// Takes the lock if nobody holds or waits for it; true on success.
    pub(crate) fn try_acquire(&self) -> bool {
        let h = &self.halves;
        let me = h.me();
        if !self.claims.claim(self.key) {
            return false;
        }
        if h.tail(AmoOp::CompareSwap(0, Self::tag(me))) != 0 {
            self.claims.release(self.key);
            return false;
        }
        h.link(me, AmoOp::Or(GO));
        self.claims.grant(self.key);
        true
    }

    /// Waits until the lock is taken by this PE.
    pub(crate) fn acquire(&self) -> Result<(), Misuse> {
        let h = &self.halves;
        let me = h.me();
        // Queuing behind itself would wait for ever; two threads of a PE
        // would share its link half.
        if !self.claims.claim(self.key) {
            return Err(Misuse::AlreadyHeld);
        }
        let before = h.tail(AmoOp::Swap(Self::tag(me)));
        if before == 0 {
            h.link(me, AmoOp::Or(GO));
        } else {
            // The predecessor's link field is 0: it was cleared at its last
            // release, and only the PE that swapped the tail from it writes it.
            h.link(before as usize - 1, AmoOp::Or(Self::tag(me)));
            h.wait(true, |v| v & GO != 0);
        }
        self.claims.grant(self.key);
        Ok(())
    }

    /// Releases the lock held by this PE, handing it to the next in line.
    pub(crate) fn release(&self) -> Result<(), Misuse> {
        let h = &self.halves;
        let me = h.me();
        if !self.claims.held(self.key) {
            return Err(Misuse::NotHeld { owner: self.owner() });
        }
        let mine = Self::tag(me);
        if h.tail(AmoOp::CompareSwap(mine, 0)) == mine {
            // Nobody queued, and nobody can link to this PE any more.
            h.link(me, AmoOp::Set(0));
        } else {
            // A successor swapped the tail; its link arrives shortly.
            let next = h.wait(false, |v| v & !GO != 0) & !GO;
            // Cleared before the hand-over, so that at most one PE shows GO.
            h.link(me, AmoOp::Set(0));
            h.link(next as usize - 1, AmoOp::Or(GO));
        }
        self.claims.release(self.key);
        Ok(())
    }

    /// Whether another PE has queued behind this PE, which holds the lock.
    pub(crate) fn queued_behind(&self) -> bool {
        let h = &self.halves;
        h.tail(AmoOp::Fetch) != Self::tag(h.me())
    }

    /// The PE holding the lock, for a misuse report; `None` if it is free.
    #[cold]
    fn owner(&self) -> Option<usize> {
        let h = &self.halves;
        // A hand-over clears one GO bit before it sets the next: look again
        // while the lock is taken but nobody shows GO (a short moment, unless
        // the PE handing over has died).
        for _ in 0..1000 {
            if h.tail(AmoOp::Fetch) == 0 {
                return None;
            }
            if let Some(pe) = (0..h.npes()).find(|&pe| h.link(pe, AmoOp::Fetch) & GO != 0) {
                return Some(pe);
            }
            std::thread::yield_now();
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::AtomicWord;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

    /// The copies of one lock, one per simulated PE, as two u32 halves each.
    struct Copies {
        tail: AtomicU32,
        links: Vec<AtomicU32>,
        claims: Vec<Claims>,
        /// Transport atomics made by all PEs (to count remote traffic).
        ops: AtomicU64,
    }

    impl Copies {
        fn new(npes: usize) -> Arc<Copies> {
            Arc::new(Copies {
                tail: AtomicU32::new(0),
                links: (0..npes).map(|_| AtomicU32::new(0)).collect(),
                claims: (0..npes).map(|_| Claims::default()).collect(),
                ops: AtomicU64::new(0),
            })
        }
    }

    /// One simulated PE: a thread operating on the shared copies.
    struct Pe {
        me: usize,
        copies: Arc<Copies>,
    }

    fn apply(w: &AtomicU32, op: AmoOp<u32>) -> u32 {
        // SAFETY: an AtomicU32 is a valid, aligned u32.
        unsafe { u32::apply(w.as_ptr(), op) }
    }

    impl Halves for Pe {
        fn me(&self) -> usize {
            self.me
        }
        fn npes(&self) -> usize {
            self.copies.links.len()
        }
        fn tail(&self, op: AmoOp<u32>) -> u32 {
            self.copies.ops.fetch_add(1, Ordering::Relaxed);
            apply(&self.copies.tail, op)
        }
        fn link(&self, pe: usize, op: AmoOp<u32>) -> u32 {
            self.copies.ops.fetch_add(1, Ordering::Relaxed);
            apply(&self.copies.links[pe], op)
        }
        fn wait(&self, _acquiring: bool, until: impl Fn(u32) -> bool) -> u32 {
            loop {
                let v = self.copies.links[self.me].load(Ordering::SeqCst);
                if until(v) {
                    return v;
                }
                std::thread::yield_now();
            }
        }
    }

    fn lock(copies: &Arc<Copies>, me: usize) -> QueueLock<'_, Pe> {
        let pe = Pe {
            me,
            copies: copies.clone(),
        };
        QueueLock::new(pe, &copies.claims[me], SymOffset(0))
    }

    #[test]
    fn a_lock_is_claimed_once_until_released() {
        let c = Claims::default();
        assert!(c.claim(SymOffset(8)));
        assert!(c.claim(SymOffset(16)));
        assert!(!c.claim(SymOffset(8)));
        assert!(!c.held(SymOffset(8)));
        c.grant(SymOffset(8));
        assert!(c.held(SymOffset(8)));
        assert!(!c.held(SymOffset(16)));
        c.release(SymOffset(8));
        assert!(!c.held(SymOffset(8)));
        assert!(c.claim(SymOffset(8)));
        assert!(!c.claim(SymOffset(16)));
    }

    fn all_zero(c: &Copies) -> bool {
        c.tail.load(Ordering::SeqCst) == 0 && c.links.iter().all(|l| l.load(Ordering::SeqCst) == 0)
    }

    #[test]
    fn misuse_is_reported_with_the_holder() {
        let c = Copies::new(4);
        let (l0, l3) = (lock(&c, 0), lock(&c, 3));
        assert_eq!(l0.release(), Err(Misuse::NotHeld { owner: None }));
        l3.acquire().unwrap();
        assert_eq!(l3.acquire(), Err(Misuse::AlreadyHeld));
        assert!(!l0.try_acquire());
        assert!(!l3.try_acquire());
        assert_eq!(l0.release(), Err(Misuse::NotHeld { owner: Some(3) }));
        l3.release().unwrap();
        assert!(all_zero(&c));
        assert!(l0.try_acquire());
        assert_eq!(l3.release(), Err(Misuse::NotHeld { owner: Some(0) }));
        l0.release().unwrap();
        assert!(all_zero(&c));
    }

    #[test]
    fn a_queued_pe_gets_the_lock_on_release_in_order() {
        let c = Copies::new(3);
        lock(&c, 2).acquire().unwrap();
        let waiter = |me| {
            let c = c.clone();
            std::thread::spawn(move || lock(&c, me).acquire().unwrap())
        };
        let first = waiter(0);
        while c.links[2].load(Ordering::SeqCst) & !GO == 0 {
            std::thread::yield_now();
        }
        let second = waiter(1);
        while c.links[0].load(Ordering::SeqCst) == 0 {
            std::thread::yield_now();
        }
        // PE 2 holds it, 0 waits behind it and 1 behind 0.
        assert_eq!(c.links[2].load(Ordering::SeqCst), GO | 1);
        assert_eq!(c.links[0].load(Ordering::SeqCst), 2);
        assert_eq!(c.tail.load(Ordering::SeqCst), 2);
        lock(&c, 2).release().unwrap();
        first.join().unwrap();
        assert_eq!(c.links[2].load(Ordering::SeqCst), 0);
        assert_eq!(c.links[0].load(Ordering::SeqCst), GO | 2);
        assert!(!second.is_finished());
        lock(&c, 0).release().unwrap();
        second.join().unwrap();
        lock(&c, 1).release().unwrap();
        assert!(all_zero(&c));
    }

    /// `PES` threads take the lock `iter` times each (every third time by
    /// polling `try_acquire` if `polling`), each doing a non-atomic
    /// read-modify-write of a counter inside; checks the total and that the
    /// words end at 0. Returns the copies, to count the atomics made.
    fn hammer(pes: usize, iter: u64, polling: bool) -> Arc<Copies> {
        let c = Copies::new(pes);
        let inside = Arc::new(AtomicU32::new(0));
        let total = Arc::new(AtomicU64::new(0));
        let threads: Vec<_> = (0..pes)
            .map(|me| {
                let (c, inside, total) = (c.clone(), inside.clone(), total.clone());
                std::thread::spawn(move || {
                    let l = lock(&c, me);
                    for i in 0..iter {
                        if polling && i % 3 == 0 {
                            while !l.try_acquire() {
                                std::thread::yield_now();
                            }
                        } else {
                            l.acquire().unwrap();
                        }
                        assert_eq!(inside.fetch_add(1, Ordering::Relaxed), 0, "two holders");
                        let t = total.load(Ordering::Relaxed);
                        std::hint::spin_loop();
                        total.store(t + 1, Ordering::Relaxed);
                        inside.fetch_sub(1, Ordering::Relaxed);
                        l.release().unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(total.load(Ordering::Relaxed), pes as u64 * iter);
        assert!(all_zero(&c), "lock words left non-zero");
        c
    }

    #[test]
    fn threads_contending_keep_mutual_exclusion_and_leave_the_words_zero() {
        hammer(6, 3000, true);
    }

    #[test]
    fn an_acquire_makes_a_bounded_number_of_transport_atomics() {
        // Per acquire and release: swap, link or GO; cas and clear (plus the
        // GO of a hand-over), however long the wait.
        let pairs = 4 * 3000;
        let ops = hammer(4, 3000, false).ops.load(Ordering::Relaxed);
        assert!(
            ops <= 7 * pairs,
            "{ops} transport atomics for {pairs} acquire/release pairs"
        );
    }
}
