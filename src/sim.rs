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

use crate::coll::barrier;
use crate::coll::registry::{Algorithms, Barrier, pairwise_peers};
use crate::coll::team_is_eager;
use crate::heap::SymOffset;
use crate::psync::{CollOp, Grant, LOCATION_BYTES, Ledger, Plan, Remote, Strategy, SyncStrategy, TeamSync};
use std::collections::HashMap;

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
    /// A collective of kind `op` on a team (`root` for broadcasts).
    Coll {
        /// The team's number.
        team: usize,
        /// The kind of collective.
        op: CollOp,
        /// The root's rank in the team (broadcasts; else unused).
        root: usize,
    },
    /// `shmem_team_destroy`.
    Destroy {
        /// The number of the team destroyed.
        team: usize,
    },
    /// `shmem_barrier_all`.
    BarrierAll,
}

/// Bytes of the sequences' broadcasts and reductions (one long).
const MESSAGE_BYTES: usize = 8;

/// Collectives run on a team per iteration of a sequence: `shmem_team_sync`,
/// a one-element max-reduction, an 8-byte broadcast from `root`.
fn iteration(out: &mut Vec<Step>, team: usize, size: usize, k: usize) {
    out.push(Step::Coll {
        team,
        op: CollOp::Barrier,
        root: 0,
    });
    out.push(Step::Coll {
        team,
        op: CollOp::Reduce,
        root: 0,
    });
    out.push(Step::Coll {
        team,
        op: CollOp::Broadcast,
        root: bcast_root(k, size),
    });
}

/// The root of the broadcast of iteration `k` on a team of `size` PEs (the
/// C program of the agreement test uses the same formula).
pub fn bcast_root(k: usize, size: usize) -> usize {
    (k * 5 + 1) % size
}

/// Sequences the footprint tool and its test know by name.
pub const SEQUENCES: &[&str] = &["barriers", "qtc", "qtc-keep", "strided"];

/// The steps of sequence `name` for `n` PEs.
///
/// - `barriers`: 16 `shmem_team_sync` on the world team.
/// - `qtc`: QTC's shrinking teams (SHOC's schedule with every size
///   occurring): on the current team of `m` PEs (the world first), one
///   iteration, then a split to the first `m - 1` PEs and the destruction of
///   the old team, down to one PE (whose team is destroyed at the end); the
///   pruned PEs wait in `shmem_barrier_all`.
/// - `qtc-keep`: the same without destroying the old teams (SHOC never frees
///   its communicators).
/// - `strided`: for strides 2, 4 and 8 in turn, every offset's strided team
///   (`o, o + s, ...`) is split from the world and runs one iteration; the
///   stride's teams are destroyed before the next stride.
pub fn sequence(name: &str, n: usize) -> Option<Vec<Step>> {
    let mut v = Vec::new();
    let mut k = 0;
    match name {
        "barriers" => {
            for _ in 0..16 {
                v.push(Step::Coll {
                    team: 0,
                    op: CollOp::Barrier,
                    root: 0,
                });
            }
        }
        "qtc" | "qtc-keep" => {
            let (mut team, mut teams, mut m) = (0, 1, n);
            loop {
                iteration(&mut v, team, m, k);
                k += 1;
                if m == 1 {
                    if name == "qtc" && team != 0 {
                        v.push(Step::Destroy { team });
                    }
                    break;
                }
                v.push(Step::Split {
                    parent: team,
                    start: 0,
                    stride: 1,
                    size: m - 1,
                });
                if name == "qtc" && team != 0 {
                    v.push(Step::Destroy { team });
                }
                team = teams;
                teams += 1;
                m -= 1;
            }
        }
        "strided" => {
            let mut teams = 1;
            for s in [2, 4, 8] {
                let first = teams;
                for o in 0..s.min(n) {
                    v.push(Step::Split {
                        parent: 0,
                        start: o,
                        stride: s,
                        size: (n - o).div_ceil(s),
                    });
                    teams += 1;
                }
                for t in first..teams {
                    let o = t - first;
                    iteration(&mut v, t, (n - o).div_ceil(s), k);
                    k += 1;
                }
                for team in first..teams {
                    v.push(Step::Destroy { team });
                }
            }
        }
        _ => return None,
    }
    v.push(Step::BarrierAll);
    Some(v)
}

struct Team {
    start: usize,
    stride: usize,
    size: usize,
    /// The team's memory as every member sees it (members decide alike).
    sync: TeamSync,
    live: bool,
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
}

/// Other PEs' memory in lockstep: every member has sent its release of a
/// collective before any member starts the next one, so nobody waits.
struct Lockstep<'a> {
    me: usize,
    words: &'a mut HashMap<(usize, usize), u64>,
}

impl Remote for Lockstep<'_> {
    fn me(&self) -> usize {
        self.me
    }
    fn fetch(&mut self, pe: usize, off: SymOffset) -> u64 {
        self.words.get(&(pe, off.0)).copied().unwrap_or(0)
    }
    fn compare_swap(&mut self, _pe: usize, _off: SymOffset, _old: u64, _new: u64) -> bool {
        unreachable!("in lockstep every release has arrived")
    }
    fn add(&mut self, pe: usize, off: SymOffset, v: u64) {
        *self.words.entry((pe, off.0)).or_insert(0) += v;
    }
    fn wait_step(&mut self) -> bool {
        unreachable!("in lockstep nobody waits")
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
        };
        job.create(0, 1, cfg.npes);
        job
    }

    fn plan(&self, size: usize) -> Plan {
        let c = &self.cfg;
        Plan::new(c.strategy, size, c.scratch, c.pool, c.pool_max)
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
        };
        for r in 0..size {
            self.ledgers[t.pe(r)].team_created(&plan, size);
        }
        self.teams.push(t);
    }

    /// One collective on team `ti`, as `coll`'s entry points run it on
    /// every member. `release` is false for the barrier of a destroy.
    fn coll(&mut self, ti: usize, op: CollOp, root: usize, release: bool) {
        let t = &self.teams[ti];
        assert!(t.live, "virtual team {ti} used after destruction");
        let n = t.size;
        let members: Vec<usize> = (0..n).map(|r| t.start + r * t.stride).collect();
        let ledgers = &mut self.ledgers;
        for &pe in &members {
            ledgers[pe].collective();
        }
        // The sequences' broadcasts and reductions move one long: they go
        // through the team's inbox without sync memory, as `coll`'s entry
        // points do on one node.
        if team_is_eager(Algorithms::AUTO, op, n, MESSAGE_BYTES) {
            return;
        }
        let mut remote = Lockstep {
            me: members[0],
            words: &mut self.words,
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
                                    ledgers[pe].add_flags(LOCATION_BYTES);
                                }
                            }
                        }
                    }
                    if release && ticket.array.is_some() {
                        for &pe in &members {
                            remote.me = pe;
                            ledgers[pe].extra_messages += self.strategy.release(&t.sync, ticket, &mut remote);
                        }
                    }
                    return;
                }
            }
        }
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
                self.coll(parent, CollOp::Barrier, 0, true);
                let p = &self.teams[parent];
                let (ws, wst) = (p.pe(start), p.stride * stride);
                self.create(ws, wst, size);
            }
            Step::Coll { team, op, root } => self.coll(team, op, root, true),
            Step::Destroy { team } => {
                self.coll(team, CollOp::Barrier, 0, false);
                let t = &mut self.teams[team];
                t.live = false;
                let plan = t.sync.plan;
                let arrays = t.sync.pool_arrays();
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

    /// A new job for `cfg` after running `steps`.
    pub fn run(cfg: Config, steps: &[Step]) -> Job {
        let mut job = Job::new(cfg);
        for &s in steps {
            job.step(s);
        }
        job
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::psync::{Graph, STRATEGIES, array_bytes};

    fn run(strategy: &str, n: usize, seq: &str) -> Job {
        let cfg = Config::new(Strategy::from_name(strategy).unwrap(), n);
        Job::run(cfg, &sequence(seq, n).unwrap())
    }

    #[test]
    fn every_sequence_runs_under_every_strategy() {
        for s in STRATEGIES {
            for q in SEQUENCES {
                for n in [1, 2, 3, 8, 13] {
                    let job = run(s, n, q);
                    for l in &job.ledgers {
                        assert!(l.flags_peak >= l.flags && l.scratch_peak >= l.scratch);
                        assert_eq!(l.teams, if *q == "qtc-keep" { l.teams } else { 1 }, "{s} {q} {n}");
                    }
                }
            }
        }
    }

    #[test]
    fn traditional_flags_equal_the_baseline() {
        for q in SEQUENCES {
            let job = run("traditional", 16, q);
            for l in &job.ledgers {
                assert_eq!((l.flags, l.flags_peak), (l.baseline, l.baseline_peak), "{q}");
            }
        }
    }

    #[test]
    fn qtc_reproduces_the_seeds_orders_of_growth() {
        // PE 0 is in every team of the QTC sequence.
        let pe0 = |s: &str, n: usize| run(s, n, "qtc-keep").ledgers[0];
        for n in [64, 256] {
            let rd = pe0("pairwise-rd", n);
            assert_eq!(rd.flags_peak, 8 * n.trailing_zeros() as usize, "log2 n locations");
            let never_freed: usize = (1..=n).map(array_bytes).sum();
            assert_eq!(pe0("traditional", n).flags_peak, never_freed);
            assert_eq!(rd.baseline_never_freed, never_freed);
            assert!(pe0("pairwise-tree-fixed", n).flags_peak <= 3 * 8);
        }
        let _ = Graph::Tree;
    }
}
