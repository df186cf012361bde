//! Non-blocking collectives in the virtual job: rshmem's queues, and a
//! hypothetical design that runs outstanding collectives at once.
//!
//! **rshmem** ([`Config::concurrent`] false): a started collective waits in
//! its queue (the team's, or under the pairwise strategies the one queue of
//! every team) holding nothing, and runs as the blocking one at its turn, so
//! k outstanding collectives hold the synchronisation memory of one at a
//! time, exactly as k blocking ones in a row.
//!
//! **HYPOTHETICAL** ([`Config::concurrent`] true; not what rshmem does, only
//! a measure of what the queue saves): every started collective runs at
//! once, holding its memory from its initiation until its wait; blocking
//! collectives do not wait for the queued ones either. Then
//! - `extra-sync` finds its least recently used array still in use (its
//!   releases come at the wait) and grows its pool at once: nobody waits;
//! - `barrier-unlock` locks an array per collective in flight; a barrier
//!   that completes unlocks only the arrays of collectives no longer in
//!   flight;
//! - `traditional` needs one array per collective of the team in flight at
//!   once (the team keeps the most it needed until its destruction);
//! - the pairwise strategies need one location per partner and per
//!   collective in flight on the PE at once (signals of two collectives on
//!   one counting location could not be told apart): the most a PE needed,
//!   times its partners.
//!
//! Pools are not capped there ([`UNCAPPED`] arrays), so no barrier is
//! inserted while collectives are in flight.

use super::{Config, Held, Job, Queued};
use crate::psync::{CollOp, LOCATION_BYTES, Strategy, Ticket, barrier_unlock};

/// The pool cap of the hypothetical concurrent design.
pub const UNCAPPED: usize = 1 << 12;

impl Job {
    /// The queue that runs team `ti`'s collectives.
    fn key(&self, ti: usize) -> usize {
        if self.strategy.pair_locations() { 0 } else { ti }
    }

    /// `shmem_*_nb` on every member of team `ti`.
    pub(super) fn start(&mut self, ti: usize, op: CollOp, root: usize, bytes: usize) {
        assert!(self.teams[ti].live, "virtual team {ti} used after destruction");
        self.outstanding[ti] += 1;
        if self.cfg.concurrent {
            let h = self.begin(ti, op, root, bytes);
            self.held.push(h);
        } else {
            self.queue.push_back(Queued {
                team: ti,
                op,
                root,
                bytes,
            });
        }
    }

    /// `shmem_req_wait` on every outstanding request of team `team` (every
    /// team: `None`), in initiation order.
    pub(super) fn wait(&mut self, team: Option<usize>) {
        let of = |t: usize| team.is_none_or(|x| x == t);
        if self.cfg.concurrent {
            let (done, kept): (Vec<Held>, Vec<Held>) =
                std::mem::take(&mut self.held).into_iter().partition(|h| of(h.team));
            self.held = kept;
            for h in done {
                self.end(h, true);
            }
        } else {
            match team {
                Some(t) => self.run_queue(self.key(t), Some(t)),
                None => {
                    while let Some(q) = self.queue.front().copied() {
                        self.run_queue(self.key(q.team), None);
                    }
                }
            }
        }
        for (t, n) in self.outstanding.iter_mut().enumerate() {
            if of(t) {
                *n = 0;
            }
        }
    }

    /// Runs queue `key`'s collectives in order, until none of team `until`
    /// is left in it (`None`: until it is empty).
    fn run_queue(&mut self, key: usize, until: Option<usize>) {
        loop {
            if let Some(t) = until
                && !self.queue.iter().any(|q| q.team == t)
            {
                return;
            }
            let Some(i) = self.queue.iter().position(|q| self.key(q.team) == key) else {
                return;
            };
            let q = self.queue.remove(i).expect("a queued collective");
            let h = self.begin(q.team, q.op, q.root, q.bytes);
            self.end(h, true);
        }
    }

    /// Before a blocking collective of team `ti` (`nbc::before_blocking`):
    /// its queue's collectives run first. Not in the concurrent design.
    pub(super) fn before_blocking(&mut self, ti: usize) {
        if !self.cfg.concurrent {
            self.run_queue(self.key(ti), None);
        }
    }

    /// `shmem_finalize`: every queued collective runs (in the concurrent
    /// design, every one in flight completes).
    pub fn finalize(&mut self) {
        self.wait(None);
    }

    /// Collectives started and not run yet (not completed, in the
    /// concurrent design).
    pub fn pending(&self) -> usize {
        self.queue.len() + self.held.len()
    }

    /// A collective of team `ti` with sync memory begins on `members`: the
    /// sets the fixed strategies need in flight (one, but in the concurrent
    /// design).
    pub(super) fn enter(&mut self, ti: usize, members: &[usize]) {
        let Some(_) = self.strategy.fixed(&self.teams[ti].sync) else {
            return;
        };
        if self.strategy.pair_locations() {
            for &pe in members {
                self.pe_inflight[pe] += 1;
                if self.pe_inflight[pe] > self.pe_sets[pe] {
                    self.pe_sets[pe] += 1;
                    self.ledgers[pe].add_flags(self.partners[pe].count * LOCATION_BYTES);
                }
            }
            return;
        }
        let t = &mut self.teams[ti];
        t.inflight += 1;
        if t.inflight > t.sets {
            t.sets += 1;
            let bytes = t.sync.plan.array_bytes;
            for &pe in members {
                self.ledgers[pe].grew(bytes);
            }
        }
    }

    /// The collective of [`enter`](Self::enter) has ended.
    pub(super) fn leave(&mut self, ti: usize, members: &[usize]) {
        let Some(_) = self.strategy.fixed(&self.teams[ti].sync) else {
            return;
        };
        if self.strategy.pair_locations() {
            for &pe in members {
                self.pe_inflight[pe] -= 1;
            }
        } else {
            self.teams[ti].inflight -= 1;
        }
    }

    /// After `ticket`'s release on team `ti`: in the concurrent design, a
    /// barrier of `barrier-unlock` leaves the arrays of collectives still in
    /// flight locked.
    pub(super) fn after_release(&mut self, ti: usize, ticket: Ticket) {
        if !self.cfg.concurrent || ticket.op != CollOp::Barrier || self.cfg.strategy != Strategy::BarrierUnlock {
            return;
        }
        for h in &self.held {
            if h.team == ti
                && let Some(a) = h.ticket.and_then(|t| t.array)
            {
                barrier_unlock::keep_locked(&self.teams[ti].sync, a);
            }
        }
    }
}

impl Config {
    /// The same configuration in the hypothetical concurrent design.
    pub fn hypothetical_concurrent(mut self) -> Config {
        self.concurrent = true;
        self
    }
}
