//! Distributed locks (`shmem_set_lock`, `_test_lock`, `_clear_lock`).
//!
//! A lock is a symmetric `long`; the copy on PE 0 (its *home*) is the lock
//! word and the other copies are unused. The word holds 0 when free, otherwise
//! the owner's PE number plus one, with [`WAITERS`] set once a PE sleeps on it.
//! Every value fits in the low 32 bits, so sleepers wait with a futex on that
//! half of the word (the memory is a shared mapping of the job file, so the
//! futex is keyed by file and offset and reaches every process).
//!
//! Acquiring is a compare-and-swap from 0 with acquire ordering; waiting spins,
//! yields, then marks the word contended and sleeps. Releasing swaps 0 in with
//! release ordering and wakes one sleeper if the word was contended: the woken
//! PE acquires with `WAITERS` set, since others may still sleep. This is the
//! futex mutex of Drepper's "Futexes Are Tricky" (no lost wake-up, so no
//! deadlock); like the specification it promises no fairness. Sleeps are also
//! bounded (100 ms), so even a wake lost to a dying process costs time, not a
//! hang.

use crate::wait::backoff::{Backoff, Policy, Step};
use crate::wait::futex;
use crate::wait::stuck::{Post, Watch};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

/// Set in the lock word while a PE may be asleep waiting for it.
pub const WAITERS: u64 = 1 << 31;

const SLEEP: Duration = Duration::from_millis(100);

/// Why a lock operation was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum Misuse {
    /// `set_lock` by the PE that holds the lock (locks are not re-entrant).
    AlreadyHeld,
    /// `clear_lock` by a PE that does not hold it; `None` if it is free.
    NotHeld { owner: Option<usize> },
}

/// A lock word in shared memory.
pub struct LockWord<'a> {
    word: &'a AtomicU64,
}

impl<'a> LockWord<'a> {
    pub fn new(word: &'a AtomicU64) -> LockWord<'a> {
        LockWord { word }
    }

    fn tag(pe: usize) -> u64 {
        pe as u64 + 1
    }

    /// The half of the word that holds every bit the lock uses.
    fn futex_word(&self) -> &AtomicU32 {
        let low = if cfg!(target_endian = "little") { 0 } else { 1 };
        // SAFETY: the 64-bit word is 8-aligned, so each half is a valid, aligned
        // 32-bit location for as long as the word lives. The kernel reads it as
        // a u32 while others update the whole word with 64-bit atomics; both
        // sizes are single-copy atomic on x86-64 and AArch64.
        unsafe { AtomicU32::from_ptr((self.word.as_ptr() as *mut u32).add(low)) }
    }

    fn owner(v: u64) -> Option<usize> {
        let tag = v & !WAITERS;
        (tag != 0).then(|| tag as usize - 1)
    }

    /// Takes the lock if it is free; true on success.
    pub fn try_acquire(&self, me: usize) -> bool {
        self.word
            .compare_exchange(0, Self::tag(me), Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// Waits until the lock is taken by `me`. Once it sleeps, the wait is
    /// published as `post` (see `wait::stuck`).
    pub fn acquire(&self, me: usize, policy: Policy, post: Option<&Post<'_>>) -> Result<(), Misuse> {
        let mine = Self::tag(me);
        let mut backoff = Backoff::new(policy);
        loop {
            let v = self.word.load(Ordering::Relaxed);
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
            let v = self.word.load(Ordering::SeqCst);
            if v == 0 {
                let taken = self
                    .word
                    .compare_exchange(0, mine | WAITERS, Ordering::Acquire, Ordering::Relaxed);
                if taken.is_ok() {
                    return Ok(());
                }
                continue;
            }
            if v & WAITERS == 0
                && self
                    .word
                    .compare_exchange(v, v | WAITERS, Ordering::Relaxed, Ordering::Relaxed)
                    .is_err()
            {
                continue;
            }
            if let (Some(w), Some(p)) = (&watch, probe) {
                w.answer(p);
            }
            futex::wait(self.futex_word(), (v | WAITERS) as u32, SLEEP);
            if let Some(w) = &mut watch {
                w.tick();
            }
        }
    }

    /// Releases the lock held by `me`, waking one sleeper if there is one.
    pub fn release(&self, me: usize) -> Result<(), Misuse> {
        let v = self.word.load(Ordering::Relaxed);
        if v & !WAITERS != Self::tag(me) {
            return Err(Misuse::NotHeld { owner: Self::owner(v) });
        }
        if self.word.swap(0, Ordering::Release) & WAITERS != 0 {
            futex::wake_one(self.futex_word());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

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
                    let l = LockWord::new(&w);
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
}
