//! Distributed locks (`shmem_set_lock`, `_test_lock`, `_clear_lock`): the
//! entry points [`set`], [`test`](fn@test) and [`clear`] on a lock whose address the
//! C shim has checked, and the per-PE state they keep ([`Locks`], owned by
//! the runtime).
//!
//! Two algorithms, chosen by `Transport::single_node` (the same answer on
//! every PE of a job, so all PEs use the same one): on one node, the futex
//! mutex described here; when the job spans nodes, the [`queue`] lock, whose
//! waiters wait on their own copy instead of retrying atomics across the
//! network.
//!
//! For the futex mutex, a lock is a symmetric `long`; the copy on PE 0 (its
//! *home*) is the lock word and the other copies are unused. The word holds 0 when free, otherwise
//! the owner's PE number plus one, with [`WAITERS`] set once a PE sleeps on it.
//!
//! Every access to the word is a transport atomic on PE 0 ([`Remote`]), and
//! the sleep is the transport's `sleep_on_word`: on shared memory a futex on
//! the low half of the word (every value fits in the low 32 bits; the memory
//! is a shared mapping of the job file, so the futex is keyed by file and
//! offset and reaches every process), with exactly today's instructions. A
//! transport that cannot sleep on a remote word says so, and the waiter polls
//! with `progress` and a yield instead.
//!
//! Acquiring is a compare-and-swap from 0; waiting spins, yields, then marks
//! the word contended and sleeps. Releasing swaps 0 in and wakes one sleeper
//! if the word was contended: the woken PE acquires with `WAITERS` set, since
//! others may still sleep. This is the futex mutex of Drepper's "Futexes Are
//! Tricky" (no lost wake-up, so no deadlock); like the specification it
//! promises no fairness. Sleeps are also bounded (100 ms), so even a wake lost
//! to a dying process costs time, not a hang.

pub(crate) mod queue;

use crate::heap::SymOffset;
use crate::stuck::{Kind, On, Post, Watch};
use crate::transport::{Active, Pe, Transport};
use crate::types::AmoOp;
use crate::wait::backoff::{Backoff, Policy, Step};
use crate::world::World;
use std::time::Duration;

/// What a PE keeps about locks between calls, owned by the runtime: the
/// queue locks it holds or queues for ([`queue::Claims`]; one set per
/// process, shared by its threads, see [`queue`]).
#[derive(Default)]
pub(crate) struct Locks {
    pub claims: queue::Claims,
}

/// A lock as the entry points take it: its offset (an 8-aligned `long`
/// in every segment, checked by the caller) and the user's address, for
/// the hang report.
#[derive(Clone, Copy)]
pub(crate) struct At {
    pub off: SymOffset,
    pub addr: usize,
}

/// Where the entry points find the lock, once they have chosen the
/// algorithm (the caller checks its address there). A trait rather than a
/// closure, so that the caller can force it inline: the single-node paths
/// must compile to the instructions they had inside the C shim.
pub(crate) trait Locate {
    fn at(self) -> At;
}

/// What a wait for the lock at `addr` is on, for the hang report.
fn lock_on(addr: usize) -> On {
    On::Memory {
        addr,
        word: 8,
        count: 1,
        cmp: None,
        value: 0,
    }
}

#[inline(always)]
fn futex_word(rt: &World, off: SymOffset) -> LockWord<Remote<'_, Active>> {
    LockWord::new(Remote {
        transport: &rt.transport,
        home: HOME,
        off,
    })
}

/// The queue lock (of jobs that span nodes) at `at`, for this PE and its
/// claims; `post` says where an acquire blocks.
pub(crate) fn queue_lock<'a>(
    rt: &'a World,
    locks: &'a Locks,
    routine: &'static str,
    at: At,
    post: Option<&'a Post<'a>>,
) -> queue::QueueLock<'a, queue::Remote<'a, Active>> {
    let halves = queue::Remote {
        transport: &rt.transport,
        me: rt.me,
        npes: rt.npes,
        off: at.off,
        waiter: rt.waiter(),
        post,
        routine,
        addr: at.addr,
    };
    queue::QueueLock::new(halves, &locks.claims, at.off)
}

/// `shmem_set_lock`: waits until this PE holds the lock, with the futex
/// mutex when the job runs on one node, the queue lock otherwise.
// Inlined by force (also `test`, `clear`), so that the single-node paths
// compile to the instructions they had inside the C shim.
#[inline(always)]
pub(crate) fn set(rt: &World, locks: &Locks, routine: &'static str, lock: impl Locate) -> Result<(), Misuse> {
    if !rt.transport.single_node() {
        return queue_set(rt, locks, routine, lock.at());
    }
    let At { off, addr } = lock.at();
    let l = futex_word(rt, off);
    let on = move || lock_on(addr);
    let post = rt.post_on(Kind::Lock, routine, &on);
    l.acquire(rt.me, rt.policy, post.as_ref())
}

/// `shmem_test_lock`: takes the lock if it is free; true on success.
#[inline(always)]
pub(crate) fn test(rt: &World, locks: &Locks, routine: &'static str, lock: impl Locate) -> bool {
    // Programs poll this in a loop: on the lock's home PE the test is an
    // atomic on its own word, so serve the other PEs' requests here too.
    rt.transport.progress();
    if !rt.transport.single_node() {
        return queue_test(rt, locks, routine, lock.at());
    }
    futex_word(rt, lock.at().off).try_acquire(rt.me)
}

/// `shmem_clear_lock`: completes this PE's outstanding operations, then
/// releases the lock.
#[inline(always)]
pub(crate) fn clear(rt: &World, locks: &Locks, routine: &'static str, lock: impl Locate) -> Result<(), Misuse> {
    if !rt.transport.single_node() {
        return queue_clear(rt, locks, routine, lock.at());
    }
    let l = futex_word(rt, lock.at().off);
    rt.transport.quiet();
    l.release(rt.me)
}

// The queue lock's entry points stay out of line, so that the single-node
// paths above compile to the instructions they had before it existed.

#[inline(never)]
fn queue_set(rt: &World, locks: &Locks, routine: &'static str, at: At) -> Result<(), Misuse> {
    let on = || lock_on(at.addr);
    let post = rt.post_on(Kind::Lock, routine, &on);
    queue_lock(rt, locks, routine, at, post.as_ref()).acquire()
}

#[inline(never)]
fn queue_test(rt: &World, locks: &Locks, routine: &'static str, at: At) -> bool {
    queue_lock(rt, locks, routine, at, None).try_acquire()
}

#[inline(never)]
fn queue_clear(rt: &World, locks: &Locks, routine: &'static str, at: At) -> Result<(), Misuse> {
    let l = queue_lock(rt, locks, routine, at, None);
    rt.transport.quiet();
    l.release()
}

/// The lock's home PE: its copy is the futex mutex's word and the queue
/// lock's tail.
pub(crate) const HOME: Pe = 0;

/// Set in the lock word while a PE may be asleep waiting for it.
pub(crate) const WAITERS: u64 = 1 << 31;

const SLEEP: Duration = Duration::from_millis(100);

/// Why a lock operation was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Misuse {
    /// `set_lock` by the PE that holds the lock (locks are not re-entrant).
    AlreadyHeld,
    /// `clear_lock` by a PE that does not hold it; `None` if it is free.
    NotHeld { owner: Option<usize> },
}

/// The operations a lock needs on its word. Sequentially consistent (on
/// x86-64 the same locked instructions as acquire/release ones).
pub(crate) trait Word {
    fn load(&self) -> u64;
    /// Compare-and-swap; returns the value found.
    fn cas(&self, current: u64, new: u64) -> u64;
    fn swap(&self, v: u64) -> u64;
    /// Sleeps while the low 32 bits hold `expected`, at most `timeout`;
    /// false if this word cannot be slept on (poll instead).
    fn sleep(&self, expected: u32, timeout: Duration) -> bool;
    fn wake_one(&self);
    /// Lets the transport move requests along while polling.
    fn progress(&self);
}

/// A lock word on `home`, reached through the transport.
pub(crate) struct Remote<'a, T: Transport> {
    pub transport: &'a T,
    pub home: Pe,
    /// An 8-aligned word inside a segment (checked by the caller).
    pub off: SymOffset,
}

impl<T: Transport> Word for Remote<'_, T> {
    #[inline]
    fn load(&self) -> u64 {
        // SAFETY: an aligned word inside a segment (the field's contract).
        unsafe { self.transport.atomic_no_wake::<u64>(self.home, self.off, AmoOp::Fetch) }
    }

    #[inline]
    fn cas(&self, current: u64, new: u64) -> u64 {
        // SAFETY: as for `load`.
        unsafe {
            self.transport
                .atomic_no_wake::<u64>(self.home, self.off, AmoOp::CompareSwap(current, new))
        }
    }

    #[inline]
    fn swap(&self, v: u64) -> u64 {
        // SAFETY: as for `load`.
        unsafe {
            self.transport
                .atomic_no_wake::<u64>(self.home, self.off, AmoOp::Swap(v))
        }
    }

    #[inline]
    fn sleep(&self, expected: u32, timeout: Duration) -> bool {
        // SAFETY: as for `load`.
        unsafe { self.transport.sleep_on_word(self.home, self.off, expected, timeout) }
    }

    #[inline]
    fn wake_one(&self) {
        // SAFETY: as for `load`.
        unsafe { self.transport.wake_one_on_word(self.home, self.off) }
    }

    #[inline]
    fn progress(&self) {
        self.transport.progress()
    }
}

/// A lock on its word.
pub(crate) struct LockWord<W: Word> {
    word: W,
}

impl<W: Word> LockWord<W> {
    pub(crate) fn new(word: W) -> LockWord<W> {
        LockWord { word }
    }

    fn tag(pe: usize) -> u64 {
        pe as u64 + 1
    }

    fn owner(v: u64) -> Option<usize> {
        let tag = v & !WAITERS;
        (tag != 0).then(|| tag as usize - 1)
    }

    /// Takes the lock if it is free; true on success.
    // Forced inline (also `acquire`, `release`): the entry points' single
    // call sites inlined them before the queue lock joined those entry
    // points, and the single-node paths must stay as they were.
    #[inline(always)]
    pub(crate) fn try_acquire(&self, me: usize) -> bool {
        self.word.cas(0, Self::tag(me)) == 0
    }

    /// Waits until the lock is taken by `me`. Once it sleeps, the wait is
    /// published as `post` (see `stuck`).
    #[inline(always)]
    pub(crate) fn acquire(&self, me: usize, policy: Policy, post: Option<&Post<'_>>) -> Result<(), Misuse> {
        let mine = Self::tag(me);
        let mut backoff = Backoff::new(policy);
        loop {
            self.word.progress();
            let v = self.word.load();
            if v == 0 {
                if self.try_acquire(me) {
                    return Ok(());
                }
            } else if v & !WAITERS == mine {
                return Err(Misuse::AlreadyHeld);
            }
            if backoff.step() == Step::Sleep {
                break;
            }
        }
        let mut watch = post.map(Watch::start);
        loop {
            // Read before looking at the word: answered once it is found taken.
            let probe = watch.as_ref().map(Watch::probe);
            self.word.progress();
            let v = self.word.load();
            if v == 0 {
                if self.word.cas(0, mine | WAITERS) == 0 {
                    return Ok(());
                }
                continue;
            }
            if v & WAITERS == 0 && self.word.cas(v, v | WAITERS) != v {
                continue;
            }
            if let (Some(w), Some(p)) = (&watch, probe) {
                w.answer(p);
            }
            if !self.word.sleep((v | WAITERS) as u32, SLEEP) {
                std::thread::yield_now();
            }
            if let Some(w) = &mut watch {
                w.tick(crate::wait::notify);
            }
        }
    }

    /// Releases the lock held by `me`, waking one sleeper if there is one.
    #[inline(always)]
    pub(crate) fn release(&self, me: usize) -> Result<(), Misuse> {
        let v = self.word.load();
        if v & !WAITERS != Self::tag(me) {
            return Err(Misuse::NotHeld { owner: Self::owner(v) });
        }
        if self.word.swap(0) & WAITERS != 0 {
            self.word.wake_one();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wait::futex;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

    /// A word in this process, with the shared-memory transport's
    /// operations (CPU atomics, a futex on the low half).
    impl Word for &AtomicU64 {
        fn load(&self) -> u64 {
            AtomicU64::load(self, Ordering::SeqCst)
        }
        fn cas(&self, current: u64, new: u64) -> u64 {
            match self.compare_exchange(current, new, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(v) | Err(v) => v,
            }
        }
        fn swap(&self, v: u64) -> u64 {
            AtomicU64::swap(self, v, Ordering::SeqCst)
        }
        fn sleep(&self, expected: u32, timeout: Duration) -> bool {
            futex::wait(low_half(self), expected, timeout);
            true
        }
        fn wake_one(&self) {
            futex::wake_one(low_half(self))
        }
        fn progress(&self) {}
    }

    /// A word a transport cannot sleep on: waiters poll.
    struct Polled<'a>(&'a AtomicU64);

    impl Word for Polled<'_> {
        fn load(&self) -> u64 {
            Word::load(&self.0)
        }
        fn cas(&self, current: u64, new: u64) -> u64 {
            self.0.cas(current, new)
        }
        fn swap(&self, v: u64) -> u64 {
            Word::swap(&self.0, v)
        }
        fn sleep(&self, _expected: u32, _timeout: Duration) -> bool {
            false
        }
        fn wake_one(&self) {}
        fn progress(&self) {}
    }

    fn low_half(w: &AtomicU64) -> &AtomicU32 {
        let low = if cfg!(target_endian = "little") { 0 } else { 1 };
        // SAFETY: an 8-aligned word: each half is an aligned u32 living as long.
        unsafe { AtomicU32::from_ptr((w.as_ptr() as *mut u32).add(low)) }
    }

    const QUICK: Policy = Policy {
        spins: 4,
        yields: 2,
        first_sleep: Duration::from_micros(50),
        longest_sleep: Duration::from_millis(1),
        shared_cores: 0,
    };

    #[test]
    fn misuse_is_reported() {
        let w = AtomicU64::new(0);
        let l = LockWord::new(&w);
        assert_eq!(l.release(0), Err(Misuse::NotHeld { owner: None }));
        l.acquire(3, QUICK, None).unwrap();
        assert_eq!(l.acquire(3, QUICK, None), Err(Misuse::AlreadyHeld));
        assert!(!l.try_acquire(1));
        assert_eq!(l.release(1), Err(Misuse::NotHeld { owner: Some(3) }));
        l.release(3).unwrap();
        assert_eq!(w.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn threads_contending_through_sleeps_keep_mutual_exclusion() {
        let w = Arc::new(AtomicU64::new(0));
        let inside = Arc::new(AtomicU32::new(0));
        let total = Arc::new(AtomicU64::new(0));
        let threads: Vec<_> = (0..8)
            .map(|me| {
                let (w, inside, total) = (w.clone(), inside.clone(), total.clone());
                std::thread::spawn(move || {
                    let l = LockWord::new(&*w);
                    let policy = Policy {
                        spins: 0,
                        yields: 0,
                        ..QUICK
                    };
                    for _ in 0..2000 {
                        l.acquire(me, policy, None).unwrap();
                        assert_eq!(inside.fetch_add(1, Ordering::Relaxed), 0, "two holders");
                        // A non-atomic read-modify-write, safe only under the lock.
                        let t = total.load(Ordering::Relaxed);
                        std::hint::spin_loop();
                        total.store(t + 1, Ordering::Relaxed);
                        inside.fetch_sub(1, Ordering::Relaxed);
                        l.release(me).unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(total.load(Ordering::Relaxed), 8 * 2000);
        assert_eq!(w.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn waiters_that_cannot_sleep_poll_and_keep_mutual_exclusion() {
        let w = Arc::new(AtomicU64::new(0));
        let total = Arc::new(AtomicU64::new(0));
        let threads: Vec<_> = (0..4)
            .map(|me| {
                let (w, total) = (w.clone(), total.clone());
                std::thread::spawn(move || {
                    let l = LockWord::new(Polled(&w));
                    // No spins or yields: every contended acquire reaches the
                    // sleep phase, where the word says it cannot sleep.
                    let policy = Policy {
                        spins: 0,
                        yields: 0,
                        ..QUICK
                    };
                    for _ in 0..500 {
                        l.acquire(me, policy, None).unwrap();
                        let t = total.load(Ordering::Relaxed);
                        std::thread::yield_now();
                        total.store(t + 1, Ordering::Relaxed);
                        l.release(me).unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(total.load(Ordering::Relaxed), 4 * 500);
        assert_eq!(w.load(Ordering::Relaxed), 0);
    }
}
