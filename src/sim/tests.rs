//! The model's own checks (the comparison with real runs is
//! tests/psync_footprint.rs).

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

fn run_cfg(cfg: Config, seq: &str) -> Job {
    Job::run(cfg, &sequence(seq, cfg.npes).unwrap())
}

#[test]
fn k_outstanding_cost_what_k_blocking_in_a_row_cost() {
    for s in STRATEGIES {
        for n in [1, 2, 3, 8, 13] {
            for k in [1, 4, 8, 16] {
                for (nb, blocking) in [("nb-world", "blocking-world"), ("nb-split", "blocking-split")] {
                    let (a, b) = (run(s, n, &format!("{nb}-{k}")), run(s, n, &format!("{blocking}-{k}")));
                    assert_eq!(a.ledgers, b.ledgers, "{s} {nb}-{k} at {n} PEs");
                    assert_eq!(a.pending(), 0);
                }
            }
        }
    }
}

#[test]
fn the_nb_sequences_use_sync_memory() {
    // Every collective of nb-world is too large for the inbox: k collectives
    // before each wait, twice; under traditional one array the whole time.
    let job = run("traditional", 8, "nb-world-8");
    assert_eq!(job.ledgers[0].collectives, 16);
    assert_eq!(job.trace.len(), 16);
    let job = run("barrier-unlock", 8, "nb-world-8");
    assert!(job.ledgers[0].grows > 0, "the pool grows between syncs");
}

/// Steps with a split team 1 of PEs 0..2 of 4.
fn queued_steps() -> Vec<Step> {
    let start = |team, op| Step::Start {
        team,
        op,
        root: 0,
        bytes: NB_BYTES,
    };
    vec![
        Step::Split {
            parent: 0,
            start: 0,
            stride: 1,
            size: 2,
        },
        start(0, CollOp::Alltoall),
        start(1, CollOp::Reduce),
        start(0, CollOp::Broadcast),
        start(1, CollOp::Barrier),
        Step::Coll {
            team: 1,
            op: CollOp::Broadcast,
            root: 1,
            bytes: NB_BYTES,
        },
        start(1, CollOp::Alltoall),
        Step::Wait { team: 1 },
        Step::Wait { team: 0 },
    ]
}

#[test]
fn queues_run_in_initiation_order_per_team_or_all_under_pairwise() {
    use CollOp::*;
    let trace = |s: &str| {
        let job = Job::run(Config::new(Strategy::from_name(s).unwrap(), 4), &queued_steps());
        assert_eq!(job.pending(), 0);
        job.trace[1..].to_vec()
    };
    // Per team: the blocking broadcast on team 1 runs team 1's queue only.
    let per_team = [
        (1, Reduce),
        (1, Barrier),
        (1, Broadcast),
        (1, Alltoall),
        (0, Alltoall),
        (0, Broadcast),
    ];
    // One queue: it runs the world's collectives queued before too.
    let one = [
        (0, Alltoall),
        (1, Reduce),
        (0, Broadcast),
        (1, Barrier),
        (1, Broadcast),
        (1, Alltoall),
    ];
    for s in STRATEGIES {
        let want: &[(usize, CollOp)] = if s.starts_with("pairwise") { &one } else { &per_team };
        assert_eq!(trace(s), want, "{s}");
    }
}

#[test]
#[should_panic(expected = "destroyed with non-blocking collectives outstanding")]
fn destroying_a_team_with_outstanding_collectives_is_refused() {
    let mut steps = queued_steps();
    steps.truncate(3);
    steps.push(Step::Destroy { team: 1 });
    Job::run(Config::new(Strategy::Traditional, 4), &steps);
}

#[test]
fn the_hypothetical_concurrent_design_holds_k_sets() {
    for k in [1, 4, 8, 16] {
        let seq = format!("nb-world-{k}");
        let conc = |s: &str| {
            run_cfg(
                Config::new(Strategy::from_name(s).unwrap(), 8).hypothetical_concurrent(),
                &seq,
            )
        };
        let array = array_bytes(8);
        assert_eq!(conc("traditional").ledgers[0].flags_peak, k * array, "{k}");
        assert_eq!(conc("extra-sync").ledgers[0].flags_peak, k.max(2) * array, "{k}");
        // 8 PEs: 3 recursive-doubling partners, k locations each.
        assert_eq!(conc("pairwise-rd").ledgers[0].flags_peak, 3 * k * LOCATION_BYTES, "{k}");
        for s in STRATEGIES {
            let (c, q) = (conc(s), run(s, 8, &seq));
            for (a, b) in c.ledgers.iter().zip(&q.ledgers) {
                assert!(a.flags_peak >= b.flags_peak, "{s} {k}");
                assert_eq!(a.collectives, b.collectives);
            }
        }
    }
}
