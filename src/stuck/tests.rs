use super::diagnose;
use super::table::{Heard, JobView, Life, NoLookup, PeView, ThreadView, Told, all_still, other_nodes, report};
use super::timeout::{DEFAULT_TIMEOUT, ENV_TIMEOUT, Watch, timeout};
use super::{Kind, SIGNED};
use super::{Stand, describe_kinds, describe_remote_threads, never_finishes};
use crate::job::PeState;
use std::time::{Duration, Instant};

/// A running PE that has arrived at barrier episode 0.
fn running() -> PeView {
    PeView {
        pid: 100,
        life: Life::Alive,
        state: PeState::Running,
        kind: Kind::None as u32,
        routine: String::new(),
        episode: 0,
        seq: 0,
        progress: 0,
        since_ns: 0,
        addr: 0,
        value: 0,
        cmp: 0,
        word: 0,
        count: 0,
        team: 0,
        group: (0, 0, 0),
        awaited: vec![],
        n_awaited: 0,
        barrier_arrived: 0,
        finalize_arrived: 0,
    }
}

fn blocked(kind: Kind, routine: &str) -> PeView {
    PeView {
        kind: kind as u32,
        routine: routine.into(),
        seq: 2,
        since_ns: 1_000_000_000,
        ..running()
    }
}

fn in_barrier() -> PeView {
    PeView {
        barrier_arrived: 8,
        ..blocked(Kind::BarrierAll, "shmem_barrier_all")
    }
}

fn view(pes: Vec<PeView>) -> JobView {
    JobView {
        pes,
        threads: vec![],
        unshown: vec![],
        barrier_gen: 7,
        finalize_gen: 0,
        now_ns: 3_500_000_000,
    }
}

fn diagnoses(v: &JobView) -> Vec<String> {
    diagnose::diagnose(v, &NoLookup)
}

#[test]
fn the_timeout_comes_from_x_then_the_environment_then_the_default() {
    let x = |v: &str| vec![(ENV_TIMEOUT.into(), v.into())];
    assert_eq!(timeout(&x("2.5")).unwrap().unwrap().0, Duration::from_millis(2500));
    assert_eq!(timeout(&x("0")).unwrap(), None);
    for bad in ["soon", "-1", "", "inf"] {
        let e = timeout(&x(bad)).unwrap_err();
        assert!(e.contains(ENV_TIMEOUT) && e.contains(&format!("{bad:?}")), "{e}");
    }
    if std::env::var_os(ENV_TIMEOUT).is_none() {
        let d = timeout(&[]).unwrap().unwrap();
        assert_eq!(d.1, DEFAULT_TIMEOUT);
    }
}

#[test]
fn a_still_picture_is_reported_once_after_the_timeout() {
    let t0 = Instant::now();
    let mut w = Watch::new(Duration::from_secs(2));
    let v = view(vec![in_barrier(), blocked(Kind::Wait, "shmem_int_wait_until")]);
    assert!(!w.look(&v, t0));
    assert!(!w.look(&v, t0 + Duration::from_secs(1)));
    assert!(w.look(&v, t0 + Duration::from_secs(2)));
    assert!(!w.look(&v, t0 + Duration::from_secs(3)), "reported twice");
    // The job moves (a wait was left) and stops again: a new report.
    let mut moved = v.clone();
    moved.pes[1].progress += 1;
    assert!(!w.look(&moved, t0 + Duration::from_secs(4)));
    assert!(w.look(&moved, t0 + Duration::from_secs(6)));
}

#[test]
fn a_running_pe_or_a_place_being_written_is_not_a_hang() {
    let t0 = Instant::now();
    let mut w = Watch::new(Duration::from_secs(1));
    let v = view(vec![in_barrier(), running()]);
    assert!(!w.look(&v, t0));
    assert!(!w.look(&v, t0 + Duration::from_secs(5)));
    let mut torn = view(vec![in_barrier(), blocked(Kind::Wait, "shmem_int_wait_until")]);
    torn.pes[1].seq = 3;
    assert!(!w.look(&torn, t0 + Duration::from_secs(6)));
    assert!(!w.look(&torn, t0 + Duration::from_secs(9)));
    // Every PE exited: nothing to report (the job is ending).
    let mut gone = running();
    gone.life = Life::Ended("status 0".into());
    assert!(!all_still(&view(vec![gone.clone(), gone])));
}

#[test]
fn different_collectives_on_one_team_are_called_in_different_orders() {
    let mut bcast = blocked(Kind::Coll, "shmem_broadcastmem");
    (bcast.team, bcast.group, bcast.awaited, bcast.n_awaited) = (1, (0, 1, 4), vec![0], 1);
    let v = view(vec![in_barrier(), in_barrier(), bcast, in_barrier()]);
    assert_eq!(
        diagnoses(&v),
        [
            "PEs 0, 1, 3 are in shmem_barrier_all; PE 2 is in shmem_broadcastmem on SHMEM_TEAM_WORLD: \
          collectives called in different orders"
        ]
    );
    // Somebody still running: no diagnosis is certain.
    let mut v = v;
    v.pes[3] = running();
    assert!(diagnoses(&v).is_empty());
}

#[test]
fn a_barrier_names_the_pes_it_waits_for_and_where_they_are() {
    let mut wait = blocked(Kind::Wait, "shmem_long_wait_until");
    (wait.addr, wait.cmp, wait.value, wait.word, wait.count) = (0x4010, 1, 1, 8 | SIGNED, 1);
    let mut stopped = running();
    stopped.life = Life::Stopped("SIGSTOP".into());
    stopped.pid = 4242;
    let v = view(vec![in_barrier(), wait, in_barrier(), stopped]);
    let d = diagnoses(&v);
    assert_eq!(
        d[0],
        "PEs 0, 2 in shmem_barrier_all on SHMEM_TEAM_WORLD wait for PEs 1, 3: PE 1 is in \
         shmem_long_wait_until on 0x4010; PE 3 is stopped (SIGSTOP; kill -CONT 4242 resumes it)"
    );
    assert_eq!(
        d[1],
        "PE 1 waits in shmem_long_wait_until for 0x4010 == 1, and no PE is running to write it"
    );
    assert_eq!(d.len(), 2, "{d:#?}");
    let table = report(&v, "test", &NoLookup);
    assert_eq!(table[0], "hang report: test");
    assert!(table[1].starts_with("  PE  state"), "{table:#?}");
    assert!(
        table[2].contains("  PEs 1, 3  ") && table[2].ends_with("  2.5 s"),
        "{table:#?}"
    );
    assert!(
        table[3].contains(" blocked ")
            && table[3].contains(" shmem_long_wait_until ")
            && table[3].contains("0x4010   == 1")
    );
    assert!(table[5].ends_with("3  stopped (SIGSTOP)"), "{table:#?}");
}

#[test]
fn vector_waits_say_how_many_words() {
    let mut w = blocked(Kind::Wait, "shmem_int_wait_until_any");
    (w.addr, w.cmp, w.value, w.word, w.count) = (0x10, 2, 0, 4 | SIGNED, 4);
    let v = view(vec![w]);
    assert_eq!(v.waiting_for(0, &NoLookup), "any of 4 != 0");
}

#[test]
fn oshrun_and_the_library_share_the_default_timeout() {
    let var = crate::config::VARS
        .iter()
        .find(|v| v.name == "SHMEM_HANG_TIMEOUT")
        .unwrap();
    assert_eq!(var.default, DEFAULT_TIMEOUT);
    let unset = crate::config::Config::from_lookup(|_| None).unwrap();
    assert_eq!(DEFAULT_TIMEOUT.parse::<f64>().unwrap(), unset.hang_timeout_secs);
}

#[test]
fn a_threaded_pe_shows_each_blocked_thread_under_its_row() {
    let wait = PeView {
        addr: 0x1000,
        cmp: crate::constants::SHMEM_CMP_EQ as u32,
        word: 4 | SIGNED,
        value: 1,
        count: 1,
        ..blocked(Kind::Wait, "shmem_int_wait_until")
    };
    let mut v = view(vec![in_barrier(), in_barrier()]);
    v.threads = vec![
        ThreadView {
            pe: 0,
            index: 1,
            tid: 4242,
            view: wait,
        },
        // A thread that left its wait keeps its place, shown by no row.
        ThreadView {
            pe: 1,
            index: 0,
            tid: 4343,
            view: running(),
        },
    ];
    v.unshown = vec![(1, 3)];
    let r = report(&v, "test", &NoLookup);
    let row = r
        .iter()
        .find(|l| l.contains("0 thread 2"))
        .expect("a row for PE 0's thread");
    assert!(
        row.contains("blocked (tid 4242)") && row.contains("shmem_int_wait_until") && row.contains("0x1000"),
        "{r:#?}"
    );
    assert!(row.contains("== 1"), "{row}");
    assert!(!r.iter().any(|l| l.contains("1 thread 1")), "{r:#?}");
    assert!(
        r.iter()
            .any(|l| l == "PE 1: 3 more threads in a wait not shown (each PE shows 4 threads)"),
        "{r:#?}"
    );
    // The PEs' own rows come first, each followed by its threads.
    let at = |needle: &str| r.iter().position(|l| l.contains(needle)).unwrap();
    assert!(at("          0  blocked") < at("0 thread 2") && at("0 thread 2") < at("          1  blocked"));
    // Where a thread is counts for the watch: a thread moving is the job moving.
    let mut w = Watch::new(Duration::ZERO);
    let t0 = Instant::now();
    assert!(!w.look(&v, t0));
    v.threads[0].view.progress += 1;
    assert!(!w.look(&v, t0), "a thread's place changed: not still");
    assert!(w.look(&v, t0));
}

#[test]
fn other_nodes_are_told_by_host_and_state_with_the_silent_last() {
    let told = |routine: &str, blocked_secs| Told {
        routine: routine.into(),
        blocked_secs,
    };
    let heard = |pe, host: &str, place, threads| Heard {
        pe,
        host: host.into(),
        place,
        threads,
    };
    let heard = vec![
        heard(2, "b", Some(told("shmem_barrier_all", 4.2)), vec![]),
        heard(
            3,
            "b",
            Some(told("shmem_barrier_all", 4.4)),
            vec![(1, told("shmem_int_wait_until", 3.0))],
        ),
        heard(4, "c", None, vec![]),
        heard(5, "c", None, vec![]),
    ];
    assert_eq!(
        other_nodes(&heard),
        [
            "other nodes: PEs 2, 3 on b: blocked in shmem_barrier_all (for 4 s)",
            "other nodes: PE 3 thread 2 on b: blocked in shmem_int_wait_until (for 3 s)",
            "other nodes: PEs 4, 5 on c: not heard from (a PE blocked for a second says where it is): \
             computing outside the library, stopped, or unreachable",
        ]
    );
    assert_eq!(
        describe_remote_threads(&heard),
        "; PE 3 thread 2 is in shmem_int_wait_until"
    );
    let wait = (Kind::Wait as u32, "shmem_int_wait_until");
    assert_eq!(
        describe_kinds([wait, (Kind::FinalizeAtExit as u32, ""), wait].into_iter()),
        "PE 1 is in shmem_finalize (at exit); PEs 0, 2 are in shmem_int_wait_until"
    );
}

#[test]
fn a_job_never_finishes_when_all_are_blocked_and_some_but_not_all_finalize() {
    use Stand::{Blocked, Finalizing, Free};
    assert!(never_finishes([Blocked, Finalizing, Blocked]));
    assert!(!never_finishes([Blocked, Finalizing, Free]), "a PE may still move");
    assert!(!never_finishes([Finalizing, Finalizing]), "finalize completes");
    assert!(!never_finishes([Blocked, Blocked]), "nobody finalizing: not judged");
    assert!(!never_finishes([]));
    // By kind alone (across nodes): any published wait is blocked.
    let kinds = [
        Kind::Finalize,
        Kind::FinalizeAtExit,
        Kind::BarrierAll,
        Kind::Lock,
        Kind::None,
    ];
    let stands: Vec<Stand> = kinds.iter().map(|&k| Stand::of_kind(k as u32)).collect();
    assert_eq!(stands, [Finalizing, Finalizing, Blocked, Blocked, Free]);
}
