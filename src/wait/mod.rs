//! Waiting for memory that other PEs write.
//!
//! A waiter polls its condition through the [`backoff`] phases and then sleeps
//! on its PE's *doorbell*, a futex word in the control block. Writers that may
//! have made a condition true call [`notify`] for the target PE.
//!
//! The protocol is a Dekker handshake between the waiter's `sleepers` increment
//! and the writer's data store, each followed by a sequentially consistent
//! operation, so at least one side sees the other:
//!
//! ```text
//! waiter                                  writer
//! sleepers += 1            (SeqCst RMW)    store data
//! d = doorbell             (SeqCst)        fence(SeqCst)
//! if cond(): leave                         if sleepers != 0:
//! futex_wait(doorbell, d)                      doorbell += 1; futex_wake
//! ```
//!
//! If the writer saw `sleepers == 0`, the waiter's increment came later in the
//! total order and its `cond()` sees the data. If the writer rings after the
//! waiter read `d`, `futex_wait` returns at once because the word changed.
//! Sleeps are bounded (50 µs doubling to 1 ms), so a store that bypasses
//! `notify` (a plain store through `shmem_ptr`) costs latency, never a hang.

pub mod backoff;
pub mod futex;

use crate::job::WakeWords;
use backoff::{Backoff, Policy, Step};
use std::sync::atomic::{Ordering, fence};
use std::time::{Duration, Instant};

const FIRST_SLEEP: Duration = Duration::from_micros(50);
const LONGEST_SLEEP: Duration = Duration::from_millis(1);

/// Everything a wait needs besides its condition.
#[derive(Clone, Copy)]
pub struct Waiter<'a> {
    /// The calling PE's wake words.
    pub wake: &'a WakeWords,
    pub policy: Policy,
    /// Seconds before printing a hang diagnostic; 0 disables it.
    pub hang_warn_secs: f64,
}

impl Waiter<'_> {
    /// Returns once `cond()` is true. `describe` says what is awaited, for the hang
    /// diagnostic (called at most once).
    #[inline]
    pub fn wait(&self, mut cond: impl FnMut() -> bool, describe: impl Fn() -> String) {
        if cond() {
            return;
        }
        self.wait_slow(&mut cond, &describe)
    }

    #[cold]
    fn wait_slow(&self, cond: &mut dyn FnMut() -> bool, describe: &dyn Fn() -> String) {
        let mut backoff = Backoff::new(self.policy);
        loop {
            if cond() {
                return;
            }
            if backoff.step() == Step::Sleep {
                break;
            }
        }
        let started = Instant::now();
        let mut warned = self.hang_warn_secs <= 0.0;
        let mut sleep = FIRST_SLEEP;
        loop {
            self.wake.sleepers.fetch_add(1, Ordering::SeqCst);
            let seen = self.wake.doorbell.load(Ordering::SeqCst);
            if cond() {
                self.wake.sleepers.fetch_sub(1, Ordering::Relaxed);
                return;
            }
            futex::wait(&self.wake.doorbell, seen, sleep);
            self.wake.sleepers.fetch_sub(1, Ordering::Relaxed);
            if cond() {
                return;
            }
            sleep = (sleep * 2).min(LONGEST_SLEEP);
            if !warned && started.elapsed().as_secs_f64() >= self.hang_warn_secs {
                warned = true;
                let (pe, npes) = crate::runtime::error::identity();
                eprintln!(
                    "rshmem: PE {pe} of {npes} still waiting after {:.0} s for {}",
                    self.hang_warn_secs,
                    describe()
                );
            }
        }
    }
}

/// Called by a writer after storing to memory of the PE whose wake words are
/// `target`: wakes that PE's sleepers, if any.
#[inline]
pub fn notify(target: &WakeWords) {
    fence(Ordering::SeqCst);
    if target.sleepers.load(Ordering::Relaxed) != 0 {
        ring(target);
    }
}

#[cold]
fn ring(target: &WakeWords) {
    target.doorbell.fetch_add(1, Ordering::Release);
    futex::wake_all(&target.doorbell);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicU64;

    fn waiter(w: &WakeWords) -> Waiter<'_> {
        Waiter {
            wake: w,
            policy: Policy { spins: 2, yields: 1 },
            hang_warn_secs: 0.0,
        }
    }

    #[test]
    fn returns_at_once_when_the_condition_holds() {
        let w = WakeWords::default();
        waiter(&w).wait(|| true, String::new);
        assert_eq!(w.sleepers.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn a_sleeping_waiter_is_woken_by_notify() {
        let w = Arc::new(WakeWords::default());
        let flag = Arc::new(AtomicU64::new(0));
        let (w2, f2) = (w.clone(), flag.clone());
        let t = std::thread::spawn(move || {
            // Long enough that the waiter is asleep on the futex.
            std::thread::sleep(Duration::from_millis(20));
            f2.store(1, Ordering::Release);
            notify(&w2);
        });
        waiter(&w).wait(|| flag.load(Ordering::Acquire) == 1, || "flag".into());
        t.join().unwrap();
        assert_eq!(w.sleepers.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn many_handoffs_between_threads_never_hang() {
        // Two threads alternate on a counter through sleeping waits.
        let w = [Arc::new(WakeWords::default()), Arc::new(WakeWords::default())];
        let n = Arc::new(AtomicU64::new(0));
        let rounds = 2000u64;
        let spawn = |me: u64| {
            let (w, n) = (w.clone(), n.clone());
            std::thread::spawn(move || {
                let mine = &w[me as usize];
                let other = &w[1 - me as usize];
                for i in 0..rounds {
                    let turn = 2 * i + me;
                    Waiter {
                        wake: mine,
                        policy: Policy { spins: 0, yields: 0 },
                        hang_warn_secs: 0.0,
                    }
                    .wait(|| n.load(Ordering::Acquire) == turn, || format!("turn {turn}"));
                    n.store(turn + 1, Ordering::Release);
                    notify(other);
                }
            })
        };
        let (a, b) = (spawn(0), spawn(1));
        a.join().unwrap();
        b.join().unwrap();
        assert_eq!(n.load(Ordering::Relaxed), 2 * rounds);
    }
}
