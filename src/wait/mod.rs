//! Waiting for memory that other PEs write.
//!
//! A waiter polls its condition through the [`backoff`] phases and then sleeps
//! on a *bell* of its PE, a futex word in the control block. Writers that may
//! have made a condition true call [`notify`] on the target PE's bell: the
//! shared-memory transport does after each of its writes, and
//! `Transport::wake` for stores made through `local_ptr`.
//!
//! This module sits below the transport: it knows bells and conditions, not
//! PEs. Callers above fold the transport's `progress` into the condition they
//! pass (`transport::polled`), so a wait polls the transport on every poll.
//!
//! The protocol is a Dekker handshake between the waiter's `sleepers` increment
//! and the writer's data store, each followed by a sequentially consistent
//! operation, so at least one side sees the other:
//!
//! ```text
//! waiter                                  writer
//! sleepers += 1            (SeqCst RMW)    store data
//! d = doorbell             (SeqCst)        fence(SeqCst)
//! rung = 0; fence(SeqCst)                  if sleepers != 0 and rung.swap(1) == 0:
//! if cond(): leave                             doorbell += 1; futex_wake
//! futex_wait(doorbell, d)
//! ```
//!
//! If the writer saw `sleepers == 0`, the waiter's increment came later in the
//! total order and its `cond()` sees the data. If the writer rings after the
//! waiter read `d`, `futex_wait` returns at once because the word changed. The
//! `rung` flag lets one writer pay for the wake system call per sleep: a writer
//! that finds it set skips the call. The waiter clears it each time it enters
//! the protocol, after reading `d`: a ring before that is answered by its
//! condition check (the ring's data is visible), a ring after it changes the
//! doorbell, and a writer that still finds `rung` set came before the clear in
//! the total order, so the waiter's fence makes its data visible to the check. A waiter woken while
//! its condition is still false spins and yields again before sleeping, so a
//! stream of puts to a waiting PE costs few system calls. Sleeps are bounded
//! (50 µs doubling to 1 ms), so a store that bypasses `notify` (a plain store
//! through `shmem_ptr`) costs latency, never a hang.
//!
//! When PEs outnumber cores, the library's own waits (barriers, collective
//! signals) know which PEs they wait for and use [`Waiter::wait_hinted`]:
//! every PE publishes the CPU it last ran on ([`locate`], reached through
//! `Transport::locate` and `Transport::may_share_cpu`), and a waiter spins
//! only while none of the PEs it waits for was last seen on its own CPU
//! (those could not run while it spins); otherwise it yields at once. User
//! waits (`wait_until`, signals) do not know the writer and keep the plain
//! phases.
//!
//! Waits that may block for ever (every one but start-up's) publish where they
//! block once they reach the sleep phase and look now and then whether the
//! job can still finish ([`crate::stuck`]); the spin and yield phases pay nothing.

pub(crate) mod backoff;
pub(crate) mod futex;

use crate::job::{Bell, Whereabouts};
use crate::stuck::{Post, Watch};
use backoff::{Backoff, Policy, Step};
use std::sync::atomic::{Ordering, fence};
use std::time::Instant;

/// Everything a wait needs besides its condition.
#[derive(Clone, Copy)]
pub(crate) struct Waiter<'a> {
    /// The calling PE's bell for this kind of wait.
    pub bell: &'a Bell,
    pub policy: Policy,
    /// Seconds before printing a hang diagnostic; 0 disables it.
    pub hang_warn_secs: f64,
}

impl Waiter<'_> {
    /// Returns once `cond()` is true. `describe` says what is awaited, for the hang
    /// diagnostic (called at most once).
    #[inline]
    pub(crate) fn wait(&self, mut cond: impl FnMut() -> bool, describe: impl Fn() -> String) {
        if cond() {
            return;
        }
        self.wait_slow(&mut cond, &describe, None)
    }

    /// [`wait`](Self::wait) that, once it has to sleep, publishes where it
    /// blocks (`post()`, if any) so that a job that can never finish is
    /// reported ([`crate::stuck`]) and a hang report says where the PE is. `post` is
    /// called only when the condition is false at the first look: a wait
    /// answered at once pays nothing for it.
    #[inline]
    pub(crate) fn wait_at<'p>(
        &self,
        post: impl FnOnce() -> Option<Post<'p>>,
        mut cond: impl FnMut() -> bool,
        describe: impl Fn() -> String,
    ) {
        if cond() {
            return;
        }
        let post = post();
        self.wait_slow(&mut cond, &describe, post.as_ref())
    }

    /// [`wait_at`](Self::wait_at) for a condition other PEs must make true, when PEs
    /// outnumber cores: `may_spin` says whether every PE awaited may be
    /// running on another core right now. Then the answer comes within a
    /// cache-line transfer and the waiter spins (for a bounded number of polls,
    /// in case the hint is stale: at most `spins_max` polls in a row); otherwise
    /// one of them needs a core, perhaps this one, and the waiter yields at
    /// once. With a core per PE this is plain [`wait`](Self::wait).
    #[inline]
    pub(crate) fn wait_hinted<'p>(
        &self,
        post: impl FnOnce() -> Option<Post<'p>>,
        mut cond: impl FnMut() -> bool,
        mut may_spin: impl FnMut() -> bool,
        spins_max: u32,
        describe: impl Fn() -> String,
    ) {
        if cond() {
            return;
        }
        if self.policy.shared_cores > 0 {
            let (mut spins, mut yields) = (0u32, 0u32);
            while yields <= self.policy.yields {
                if cond() {
                    return;
                }
                if spins < spins_max && may_spin() {
                    spins += 1;
                    std::hint::spin_loop();
                } else {
                    spins = 0;
                    yields += 1;
                    std::thread::yield_now();
                }
            }
        }
        let post = post();
        self.wait_slow(&mut cond, &describe, post.as_ref())
    }

    #[cold]
    fn wait_slow(&self, cond: &mut dyn FnMut() -> bool, describe: &dyn Fn() -> String, post: Option<&Post<'_>>) {
        // Published only when about to sleep: a wait answered while it spins
        // or yields writes nothing.
        let mut watch: Option<Watch<'_>> = None;
        let started = Instant::now();
        let mut warned = self.hang_warn_secs <= 0.0;
        let mut sleep = self.policy.first_sleep;
        loop {
            let mut backoff = Backoff::new(self.policy);
            loop {
                if cond() {
                    return;
                }
                if backoff.step() == Step::Sleep {
                    break;
                }
            }
            if watch.is_none() {
                watch = post.map(Watch::start);
            }
            self.bell.sleepers.fetch_add(1, Ordering::SeqCst);
            let seen = self.bell.doorbell.load(Ordering::SeqCst);
            // Rings counted in `seen` are answered by the check below; from here
            // on a writer must ring again. Clearing only after a wake would leave
            // `rung` set forever when the check below succeeds after a ring.
            self.bell.rung.store(0, Ordering::SeqCst);
            fence(Ordering::SeqCst);
            let probe = watch.as_ref().map(Watch::probe);
            if cond() {
                self.bell.sleepers.fetch_sub(1, Ordering::Relaxed);
                return;
            }
            if let (Some(w), Some(p)) = (&watch, probe) {
                w.answer(p);
            }
            futex::wait(&self.bell.doorbell, seen, sleep);
            self.bell.sleepers.fetch_sub(1, Ordering::Relaxed);
            let woken = self.bell.doorbell.load(Ordering::Relaxed) != seen;
            if cond() {
                return;
            }
            // Woken for someone else's data: poll again before sleeping. Timed
            // out: sleep longer next time.
            sleep = if woken {
                self.policy.first_sleep
            } else {
                (sleep * 2).min(self.policy.longest_sleep)
            };
            if let Some(w) = &mut watch {
                w.tick(notify);
            }
            if !warned && started.elapsed().as_secs_f64() >= self.hang_warn_secs {
                warned = true;
                let (pe, npes) = crate::error::identity();
                eprintln!(
                    "rshmem: PE {pe} of {npes} still waiting after {} s for {}",
                    self.hang_warn_secs,
                    describe()
                );
            }
        }
    }
}

/// The CPU the calling thread runs on, published in `w` (the calling PE's
/// whereabouts) if it moved. `u32::MAX` if unknown, which matches no PE's.
#[inline]
pub(crate) fn locate(w: &Whereabouts) -> u32 {
    // SAFETY: sched_getcpu has no preconditions (glibc reads it from rseq or
    // the vDSO, no system call).
    let c = unsafe { libc::sched_getcpu() };
    let c = if c < 0 { u32::MAX } else { c as u32 };
    if w.cpu.load(Ordering::Relaxed) != c {
        w.cpu.store(c, Ordering::Relaxed);
    }
    c
}

/// Called by a writer after storing to memory that a waiter on `bell` may be
/// watching: wakes that PE's sleepers, if any.
#[inline]
pub(crate) fn notify(bell: &Bell) {
    fence(Ordering::SeqCst);
    if bell.sleepers.load(Ordering::Relaxed) != 0 {
        ring(bell);
    }
}

/// [`notify`] for a writer whose store was itself a sequentially consistent
/// atomic operation (an AMO, a signal update): that operation already stands
/// in the total order where the fence would, so the Dekker argument above holds
/// without the fence.
#[inline]
pub(crate) fn notify_after_seqcst(bell: &Bell) {
    if bell.sleepers.load(Ordering::SeqCst) != 0 {
        ring(bell);
    }
}

#[cold]
fn ring(bell: &Bell) {
    if bell.rung.swap(1, Ordering::SeqCst) == 0 {
        bell.doorbell.fetch_add(1, Ordering::Release);
        futex::wake_all(&bell.doorbell);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicU64;
    use std::time::Duration;

    /// Sleeps of up to 30 s: a lost wake-up shows as a slow test.
    const SLEEPY: Policy = Policy {
        spins: 2,
        yields: 1,
        first_sleep: Duration::from_secs(30),
        longest_sleep: Duration::from_secs(30),
        shared_cores: 0,
    };

    fn waiter(w: &Bell) -> Waiter<'_> {
        Waiter {
            bell: w,
            policy: SLEEPY,
            hang_warn_secs: 0.0,
        }
    }

    #[test]
    fn returns_at_once_when_the_condition_holds() {
        let w = Bell::default();
        waiter(&w).wait(|| true, String::new);
        assert_eq!(w.sleepers.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn a_sleeping_waiter_is_woken_promptly_by_notify() {
        let w = Arc::new(Bell::default());
        let flag = Arc::new(AtomicU64::new(0));
        let (w2, f2) = (w.clone(), flag.clone());
        let t = std::thread::spawn(move || {
            while w2.sleepers.load(Ordering::SeqCst) == 0 {
                std::thread::sleep(Duration::from_millis(1));
            }
            f2.store(1, Ordering::Release);
            notify(&w2);
        });
        let start = Instant::now();
        waiter(&w).wait(|| flag.load(Ordering::Acquire) == 1, || "flag".into());
        t.join().unwrap();
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "woken by the timeout, not the bell"
        );
        assert_eq!(w.sleepers.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn many_sleeping_handoffs_between_threads_lose_no_wake() {
        // Two threads alternate on a counter, sleeping at every turn.
        let w = [Arc::new(Bell::default()), Arc::new(Bell::default())];
        let n = Arc::new(AtomicU64::new(0));
        let rounds = 2000u64;
        let spawn = |me: u64| {
            let (w, n) = (w.clone(), n.clone());
            std::thread::spawn(move || {
                let mine = &w[me as usize];
                let other = &w[1 - me as usize];
                let policy = Policy {
                    spins: 0,
                    yields: 0,
                    ..SLEEPY
                };
                for i in 0..rounds {
                    let turn = 2 * i + me;
                    Waiter {
                        bell: mine,
                        policy,
                        hang_warn_secs: 0.0,
                    }
                    .wait(|| n.load(Ordering::Acquire) == turn, || format!("turn {turn}"));
                    n.store(turn + 1, Ordering::Release);
                    notify(other);
                }
            })
        };
        let start = Instant::now();
        let (a, b) = (spawn(0), spawn(1));
        a.join().unwrap();
        b.join().unwrap();
        assert_eq!(n.load(Ordering::Relaxed), 2 * rounds);
        assert!(start.elapsed() < Duration::from_secs(20), "a wake-up was lost");
    }
}
