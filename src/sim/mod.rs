//! Virtual jobs: the strategies' bookkeeping driven for `n` PEs through a
//! sequence of team splits, collectives and destructions, with no processes.
//!
//! Every decision goes through the same code as a real run: the strategies'
//! [`SyncStrategy`] implementations (the same `acquire` and `release` the
//! collectives call), the pair graphs the pairwise algorithms follow
//! (`coll::registry::pairwise_peers`), the region [`Plan`] and the
//! [`Ledger`]. Only the [`Remote`] differs: a map of words instead of other
//! PEs' memory. What a virtual job cannot have is timing, so
//! members run in lockstep: under `extra-sync` every release has arrived by
//! the time an array is needed again (a real run grows its pool further when
//! a fast member overtakes a slow one; the ledger counts those growths).
//! A test runs the same sequences under `oshrun` at 8 PEs and compares every
//! PE's ledger with this model.
//!
//! **Non-blocking collectives** ([`Step::Start`], [`Step::Wait`],
//! [`Step::WaitAll`]) follow rshmem's design (`nbc`): a started collective
//! is the blocking one, queued; it holds nothing until it runs. Each team's
//! queue runs in initiation order; under the pairwise strategies every
//! team's collectives share one queue. The model has no threads, so it runs
//! queued collectives where a run must have run them by: at a wait for one
//! of the team's requests (under the one queue, everything queued before
//! it), before a blocking collective of the team (the split's and the
//! destroy's barriers included; under the one queue, everything queued), and
//! at [`Job::finalize`]. `shmem_barrier_all` runs no queue (the workers do;
//! a sequence must not leave world collectives queued across one under
//! `barrier-unlock`, where a run's outcome would depend on the timing).
//! Members run a collective in the same model step: under the one queue a
//! member outside a waited team also runs the other teams' jobs queued
//! before, which changes no team's order of collectives, the only order the
//! strategies' decisions depend on. [`Config::concurrent`] is a
//! hypothetical design instead (see [`nb`]).

use crate::coll::barrier;
use crate::coll::registry::{Algorithms, Barrier, pairwise_peers};
use crate::coll::team_is_eager;
use crate::heap::SymOffset;
use crate::psync::{CollOp, Grant, LOCATION_BYTES, Ledger, Plan, Remote, Strategy, SyncStrategy, TeamSync, Ticket};
use std::collections::{HashMap, VecDeque};

pub mod nb;
mod seq;

pub use seq::{MESSAGE_BYTES, NB_BYTES, NB_K, SEQUENCES, bcast_root, nb_kind, sequence, split_teams};

/// One step of a sequence. Teams are numbered in creation order, the world
/// team being 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `shmem_team_split_strided(parent, start, stride, size)`: a new team.
    Split {
        /// The number of the team split.
        parent: usize,
        /// Rank in the parent of the new team's first member.
        start: usize,
        /// Distance in parent ranks between consecutive members.
        stride: usize,
        /// Members of the new team.
        size: usize,
    },
    /// A blocking collective of kind `op` on a team (`root` for broadcasts)
    /// with messages of `bytes` (per member for alltoall blocks).
    Coll {
        /// The team's number.
        team: usize,
        /// The kind of collective.
        op: CollOp,
        /// The root's rank in the team (broadcasts; else unused).
        root: usize,
        /// Bytes of the message (what decides the inbox's one round).
        bytes: usize,
    },
    /// The initiation of a non-blocking collective (`shmem_*_nb`): as
    /// [`Step::Coll`], run later.
    Start {
        /// The team's number.
        team: usize,
        /// The kind of collective.
        op: CollOp,
        /// The root's rank in the team (broadcasts; else unused).
        root: usize,
        /// Bytes of the message.
        bytes: usize,
    },
    /// `shmem_req_wait` on every request of the team's members outstanding,
    /// in initiation order.
    Wait {
        /// The team's number.
        team: usize,
    },
    /// `shmem_req_wait` on every outstanding request.
    WaitAll,
    /// `shmem_team_destroy`.
    Destroy {
        /// The number of the team destroyed.
        team: usize,
    },
    /// `shmem_barrier_all`.
    BarrierAll,
}

struct Team {
    start: usize,
    stride: usize,
    size: usize,
    /// The team's memory as every member sees it (members decide alike).
    sync: TeamSync,
    live: bool,
    /// Collectives of the team holding sync memory now (one at most, but
    /// in the hypothetical concurrent design).
    inflight: usize,
    /// Sets of sync memory the team's fixed strategy holds: 1, but in the
    /// hypothetical concurrent design (one per collective in flight).
    sets: usize,
}

impl Team {
    fn pe(&self, r: usize) -> usize {
        self.start + r * self.stride
    }
}

/// The configuration a virtual job runs with (the real defaults by default).
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// The pSync strategy (`SHMEM_PSYNC_STRATEGY`).
    pub strategy: Strategy,
    /// PEs in the job.
    pub npes: usize,
    /// Bytes of collective scratch per team and PE (`SHMEM_TEAM_SCRATCH_SIZE`).
    pub scratch: usize,
    /// Sync arrays a team starts with under the pool strategies (`SHMEM_PSYNC_POOL`).
    pub pool: usize,
    /// Sync arrays a team's pool may grow to (`SHMEM_PSYNC_POOL_MAX`).
    pub pool_max: usize,
    /// HYPOTHETICAL, not rshmem's design: every started collective runs at
    /// once, holding its sync memory from its initiation to its wait
    /// (see [`nb`]). False: rshmem's queues.
    pub concurrent: bool,
}

impl Config {
    /// `strategy` on `npes` PEs, the rest at the library's defaults (64 KiB scratch, pool 2 of at most 16).
    pub fn new(strategy: Strategy, npes: usize) -> Config {
        Config {
            strategy,
            npes,
            scratch: 64 << 10,
            pool: 2,
            pool_max: 16,
            concurrent: false,
        }
    }
}

/// A virtual job: a ledger per PE.
pub struct Job {
    cfg: Config,
    strategy: &'static dyn SyncStrategy,
    teams: Vec<Team>,
    /// Each PE's ledger, indexed by world PE.
    pub ledgers: Vec<Ledger>,
    partners: Vec<Partners>,
    /// The words strategies write at other PEs, by (PE, offset).
    words: HashMap<(usize, usize), u64>,
    /// Started collectives not run yet, in initiation order.
    queue: VecDeque<Queued>,
    /// Per team: requests started and not waited for.
    outstanding: Vec<usize>,
    /// Hypothetical concurrent design: the collectives running, in
    /// initiation order.
    held: Vec<Held>,
    /// Per PE: collectives holding pairwise locations now, and the sets of
    /// locations per partner held (1, but in the concurrent design).
    pe_inflight: Vec<usize>,
    pe_sets: Vec<usize>,
    /// Every collective as it starts running: (team, kind), splits'
    /// and destroys' barriers included.
    pub trace: Vec<(usize, CollOp)>,
}

/// A started collective waiting in its queue.
#[derive(Clone, Copy, Debug)]
struct Queued {
    team: usize,
    op: CollOp,
    root: usize,
    bytes: usize,
}

/// A collective that has acquired its memory and not released it yet.
#[derive(Clone, Copy, Debug)]
struct Held {
    team: usize,
    /// None: through the team's inbox, no sync memory.
    ticket: Option<Ticket>,
}

/// Other PEs' memory in lockstep: every member has sent its release of a
/// collective before any member starts the next one, so nobody waits.
/// In the hypothetical concurrent design (`impatient`) a release may be
/// missing: nobody waits for it, a member decides to grow at once.
struct Lockstep<'a> {
    me: usize,
    words: &'a mut HashMap<(usize, usize), u64>,
    impatient: bool,
}

impl Remote for Lockstep<'_> {
    fn me(&self) -> usize {
        self.me
    }
    fn fetch(&mut self, pe: usize, off: SymOffset) -> u64 {
        self.words.get(&(pe, off.0)).copied().unwrap_or(0)
    }
    fn compare_swap(&mut self, pe: usize, off: SymOffset, old: u64, new: u64) -> bool {
        assert!(self.impatient, "in lockstep every release has arrived");
        let w = self.words.entry((pe, off.0)).or_insert(0);
        let hit = *w == old;
        if hit {
            *w = new;
        }
        hit
    }
    fn add(&mut self, pe: usize, off: SymOffset, v: u64) {
        *self.words.entry((pe, off.0)).or_insert(0) += v;
    }
    fn wait_step(&mut self) -> bool {
        assert!(self.impatient, "in lockstep nobody waits");
        false
    }
}

/// A set of world PEs (the partners a PE has had).
#[derive(Clone, Debug, Default)]
pub struct Partners {
    bits: Vec<u64>,
    /// How many PEs the set holds.
    pub count: usize,
}

impl Partners {
    /// An empty set with room for world PEs `0..npes`.
    pub fn new(npes: usize) -> Partners {
        Partners {
            bits: vec![0; npes.div_ceil(64)],
            count: 0,
        }
    }

    /// Records `pe`; true if it is new.
    pub fn note(&mut self, pe: usize) -> bool {
        let (w, b) = (pe / 64, 1u64 << (pe % 64));
        if self.bits[w] & b != 0 {
            return false;
        }
        self.bits[w] |= b;
        self.count += 1;
        true
    }
}

impl Job {
    /// A job right after `shmem_init`: the world team exists.
    pub fn new(cfg: Config) -> Job {
        let mut job = Job {
            cfg,
            strategy: cfg.strategy.implementation(),
            teams: vec![],
            ledgers: vec![Ledger::new(); cfg.npes],
            partners: (0..cfg.npes).map(|_| Partners::new(cfg.npes)).collect(),
            words: HashMap::new(),
            queue: VecDeque::new(),
            outstanding: vec![],
            held: vec![],
            pe_inflight: vec![0; cfg.npes],
            pe_sets: vec![1; cfg.npes],
            trace: vec![],
        };
        job.create(0, 1, cfg.npes);
        job
    }

    fn plan(&self, size: usize) -> Plan {
        let c = &self.cfg;
        // The concurrent design's pools are not capped (see `nb`).
        let max = if c.concurrent {
            c.pool_max.max(nb::UNCAPPED)
        } else {
            c.pool_max
        };
        Plan::new(c.strategy, size, c.scratch, c.pool, max)
    }

    fn create(&mut self, start: usize, stride: usize, size: usize) {
        let plan = self.plan(size);
        // Each team's words at their own offsets (they only key the map).
        let base = SymOffset(self.teams.len() << 40);
        let t = Team {
            start,
            stride,
            size,
            sync: TeamSync::new(base, plan, (size, 0, start), SymOffset(0)),
            live: true,
            inflight: 0,
            sets: 1,
        };
        for r in 0..size {
            self.ledgers[t.pe(r)].team_created(&plan, size);
        }
        self.teams.push(t);
        self.outstanding.push(0);
    }

    fn members(&self, ti: usize) -> Vec<usize> {
        let t = &self.teams[ti];
        (0..t.size).map(|r| t.pe(r)).collect()
    }

    /// A blocking collective on team `ti`, as `coll`'s entry points run it
    /// on every member: the team's queued collectives first, then this one.
    /// `release` is false for the barrier of a destroy.
    fn coll(&mut self, ti: usize, op: CollOp, root: usize, bytes: usize, release: bool) {
        self.before_blocking(ti);
        let h = self.begin(ti, op, root, bytes);
        self.end(h, release);
    }

    /// The start of a collective on team `ti` on every member: its memory
    /// acquired.
    fn begin(&mut self, ti: usize, op: CollOp, root: usize, bytes: usize) -> Held {
        assert!(self.teams[ti].live, "virtual team {ti} used after destruction");
        let members = self.members(ti);
        let n = members.len();
        for &pe in &members {
            self.ledgers[pe].collective();
        }
        self.trace.push((ti, op));
        // Small broadcasts, reductions and alltoalls go through the team's
        // inbox without sync memory, as `coll`'s entry points do on one node.
        if team_is_eager(Algorithms::AUTO, op, n, bytes) {
            return Held { team: ti, ticket: None };
        }
        self.enter(ti, &members);
        let t = &self.teams[ti];
        let ledgers = &mut self.ledgers;
        let mut remote = Lockstep {
            me: members[0],
            words: &mut self.words,
            impatient: self.cfg.concurrent,
        };
        loop {
            // Every member decides alike: rank 0 decides for all.
            match self.strategy.acquire(&t.sync, op, &mut remote) {
                Grant::BarrierFirst(ticket) => {
                    for (r, &pe) in members.iter().enumerate() {
                        ledgers[pe].inserted_barrier(barrier::signals_sent(Barrier::Auto, n, r));
                    }
                    self.strategy.release(&t.sync, ticket, &mut remote);
                }
                Grant::Run {
                    ticket, graph, grew, ..
                } => {
                    if grew {
                        for &pe in &members {
                            ledgers[pe].grew(t.sync.plan.array_bytes);
                        }
                    }
                    if let Some(g) = graph {
                        for (r, &pe) in members.iter().enumerate() {
                            for x in pairwise_peers(g, op, n, r, root) {
                                if self.partners[pe].note(members[x]) {
                                    ledgers[pe].add_flags(LOCATION_BYTES * self.pe_sets[pe]);
                                }
                            }
                        }
                    }
                    return Held {
                        team: ti,
                        ticket: Some(ticket),
                    };
                }
            }
        }
    }

    /// The end of a collective on every member: its memory given back
    /// (unless `release` is false: the barrier of a destroy).
    fn end(&mut self, h: Held, release: bool) {
        let Some(ticket) = h.ticket else { return };
        let members = self.members(h.team);
        self.leave(h.team, &members);
        if !release || ticket.array.is_none() {
            return;
        }
        let t = &self.teams[h.team];
        let mut remote = Lockstep {
            me: members[0],
            words: &mut self.words,
            impatient: self.cfg.concurrent,
        };
        for &pe in &members {
            remote.me = pe;
            self.ledgers[pe].extra_messages += self.strategy.release(&t.sync, ticket, &mut remote);
        }
        self.after_release(h.team, ticket);
    }

    /// Runs one step on every PE it concerns.
    pub fn step(&mut self, s: Step) {
        match s {
            Step::Split {
                parent,
                start,
                stride,
                size,
            } => {
                // The split's parent barriers are one collective of the parent.
                self.coll(parent, CollOp::Barrier, 0, 0, true);
                let p = &self.teams[parent];
                let (ws, wst) = (p.pe(start), p.stride * stride);
                self.create(ws, wst, size);
            }
            Step::Coll { team, op, root, bytes } => self.coll(team, op, root, bytes, true),
            Step::Start { team, op, root, bytes } => self.start(team, op, root, bytes),
            Step::Wait { team } => self.wait(Some(team)),
            Step::WaitAll => self.wait(None),
            Step::Destroy { team } => {
                // The library refuses it (nbc::before_team_destroy).
                assert_eq!(
                    self.outstanding[team], 0,
                    "virtual team {team} destroyed with non-blocking collectives outstanding"
                );
                self.coll(team, CollOp::Barrier, 0, 0, false);
                let t = &mut self.teams[team];
                t.live = false;
                let plan = t.sync.plan;
                let arrays = t.sync.pool_arrays() + (t.sets - 1);
                for r in 0..t.size {
                    let pe = t.start + r * t.stride;
                    self.ledgers[pe].team_destroyed(&plan, arrays, t.size);
                }
            }
            Step::BarrierAll => {
                if self.strategy.watches_world_barrier() {
                    self.strategy.observe_world_barrier(&self.teams[0].sync);
                }
            }
        }
    }

    /// A new job for `cfg` after running `steps` and [`Job::finalize`].
    pub fn run(cfg: Config, steps: &[Step]) -> Job {
        let mut job = Job::new(cfg);
        for &s in steps {
            job.step(s);
        }
        job.finalize();
        job
    }
}

#[cfg(test)]
mod tests;
