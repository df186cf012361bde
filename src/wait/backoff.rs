//! Phases of a wait: spin, then yield the core, then sleep.
//!
//! Spinning gives the best latency while every PE has a core of its own; when PEs
//! outnumber cores a spinning PE steals the core from the PE it waits for, so the
//! spin phase is cut short and the yield phase hands the core over quickly.
//!
//! Even with a core per PE, another process may take one of them and leave two
//! PEs sharing a core; a waiter that spun for its whole budget would then hold
//! the core the writer needs for the entire spin phase (about 100 µs for 4000
//! `pause` instructions on a Zen 2 core) at every hand-off. So the spin phase
//! also yields once every [`YIELD_EVERY`] polls: a `sched_yield` with nothing
//! else runnable returns in well under a microsecond, and a waiter that is
//! answered within the first few microseconds never reaches one.

use std::time::Duration;

/// How long each phase lasts, decided once at start-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Policy {
    /// Polls (each a `spin_loop` hint) before the first yield.
    pub spins: u32,
    /// `sched_yield` calls before going to sleep.
    pub yields: u32,
    /// First bound on one sleep; doubles up to `longest_sleep` while nothing
    /// rings. Only a wake that bypasses the bell ever waits this long.
    pub first_sleep: Duration,
    pub longest_sleep: Duration,
    /// Cores available to the job's PEs, when they number fewer than the PEs
    /// (0 otherwise): a waiter that knows how many PEs it still waits for can
    /// then tell whether they may all be running ([`Waiter::wait_hinted`]).
    ///
    /// [`Waiter::wait_hinted`]: super::Waiter::wait_hinted
    pub shared_cores: u32,
}

impl Policy {
    /// Dedicated cores: spin long (the writer is running right now), then yield.
    pub(crate) const DEDICATED: Policy = Policy {
        spins: 4000,
        yields: 200,
        ..Policy::SLEEPS
    };
    /// More PEs than cores: the writer may need this core; give it away fast.
    pub(crate) const OVERSUBSCRIBED: Policy = Policy {
        spins: 64,
        yields: 16,
        ..Policy::SLEEPS
    };
    const SLEEPS: Policy = Policy {
        spins: 0,
        yields: 0,
        shared_cores: 0,
        first_sleep: Duration::from_micros(50),
        longest_sleep: Duration::from_millis(1),
    };

    /// Picks the policy for `npes` PEs sharing `cores` CPUs; `spin_override`
    /// comes from `SHMEM_WAIT_SPIN`.
    pub(crate) fn for_job(npes: usize, cores: usize, spin_override: Option<u32>) -> Policy {
        let cores = cores.max(1);
        let mut p = if npes <= cores {
            Policy::DEDICATED
        } else {
            Policy {
                shared_cores: cores as u32,
                ..Policy::OVERSUBSCRIBED
            }
        };
        if let Some(s) = spin_override {
            p.spins = s;
        }
        p
    }
}

/// Polls between the yields interleaved in the spin phase (a few µs).
pub(crate) const YIELD_EVERY: u32 = 128;

/// What the caller should do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Poll again now (a spin hint was issued).
    Spin,
    /// Poll again (the core was yielded).
    Yielded,
    /// Spinning and yielding are over: sleep until woken.
    Sleep,
}

/// Counts polls through the phases of a [`Policy`].
pub(crate) struct Backoff {
    policy: Policy,
    polls: u32,
}

impl Backoff {
    pub(crate) fn new(policy: Policy) -> Backoff {
        Backoff { policy, polls: 0 }
    }

    /// Advances one poll and performs its pause.
    #[inline]
    pub(crate) fn step(&mut self) -> Step {
        self.polls = self.polls.saturating_add(1);
        if self.polls <= self.policy.spins {
            if self.polls.is_multiple_of(YIELD_EVERY) {
                std::thread::yield_now();
                return Step::Yielded;
            }
            std::hint::spin_loop();
            Step::Spin
        } else if self.polls <= self.policy.spins + self.policy.yields {
            std::thread::yield_now();
            Step::Yielded
        } else {
            Step::Sleep
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_follow_the_policy() {
        let mut b = Backoff::new(Policy {
            spins: 3,
            yields: 2,
            ..Policy::DEDICATED
        });
        let steps: Vec<Step> = (0..7).map(|_| b.step()).collect();
        assert_eq!(
            steps,
            [
                Step::Spin,
                Step::Spin,
                Step::Spin,
                Step::Yielded,
                Step::Yielded,
                Step::Sleep,
                Step::Sleep
            ]
        );
    }

    #[test]
    fn long_spin_phases_yield_now_and_then() {
        let mut b = Backoff::new(Policy::DEDICATED);
        let steps: Vec<Step> = (0..Policy::DEDICATED.spins).map(|_| b.step()).collect();
        let yields = steps.iter().filter(|s| **s == Step::Yielded).count();
        assert_eq!(yields as u32, Policy::DEDICATED.spins / YIELD_EVERY);
        assert!(steps[..YIELD_EVERY as usize - 1].iter().all(|s| *s == Step::Spin));
    }

    #[test]
    fn oversubscription_shortens_spinning() {
        let over = Policy::for_job(8, 2, None);
        assert_eq!(
            (over.spins, over.yields),
            (Policy::OVERSUBSCRIBED.spins, Policy::OVERSUBSCRIBED.yields)
        );
        assert_eq!(over.shared_cores, 2);
        assert_eq!(Policy::for_job(2, 2, None), Policy::DEDICATED);
        assert_eq!(Policy::for_job(1, 0, None), Policy::DEDICATED);
        assert_eq!(Policy::for_job(1, 4, Some(7)).spins, 7);
    }
}
