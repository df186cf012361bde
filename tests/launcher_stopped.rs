//! `oshrun` and a stopped PE: reported after a grace, ended with the job on timeout;
//! a stopped whole job (^Z) is not reported.

mod common;

use common::*;
use std::time::{Duration, Instant};

#[test]
fn a_stopped_pe_is_reported_but_a_stopped_job_is_not() {
    let dir = scratch("stopped");
    let d = dir.display();
    let script = record_pid(&dir)
        + &format!(
            "if [ $RSHMEM_PE = 1 ]; then while [ ! -e {d}/go ]; do sleep 0.05; done; kill -STOP $$; \
             echo resumed; fi; while [ ! -e {d}/end ]; do sleep 0.05; done; echo done $RSHMEM_PE"
        );
    let t = Instant::now();
    let mut w = start_watched(&["-np", "2", "--stopped-grace", "1", "/bin/sh", "-c", &script], &[]);
    let (child, rx) = (&mut w.child, &w.lines);
    let oshrun_pid = child.id() as libc::pid_t;
    let pes = pids(&dir, 2);
    // ^Z of the whole job, resumed after more than the grace: no PE is
    // reported stopped. The PEs stop first and oshrun sees them stop, as
    // happens when the terminal's SIGTSTP reaches them before oshrun.
    signal(pes[0], libc::SIGSTOP);
    signal(pes[1], libc::SIGSTOP);
    std::thread::sleep(Duration::from_millis(300));
    signal(oshrun_pid, libc::SIGSTOP);
    std::thread::sleep(Duration::from_millis(2500));
    signal(-oshrun_pid, libc::SIGCONT);
    assert_eq!(line_with(rx, "stopped", Duration::from_millis(1500)), None);
    // PE 1 stops itself: reported after the grace, naming it, its pid and the signal.
    std::fs::write(dir.join("go"), "").unwrap();
    let stopped_at = Instant::now();
    let want = format!("oshrun: PE 1 (pid {}) has been stopped by SIGSTOP for 1 s", pes[1]);
    let line = line_with(rx, &want, Duration::from_secs(10));
    let waited = stopped_at.elapsed();
    let line = line.unwrap_or_else(|| panic!("no '{want}' within 10 s"));
    assert!(line.contains(&format!("kill -CONT {}", pes[1])), "{line}");
    assert!(waited >= Duration::from_millis(1000), "reported after {waited:?}");
    signal(pes[1], libc::SIGCONT);
    let want = format!("oshrun: PE 1 (pid {}) continued", pes[1]);
    assert!(line_with(rx, &want, FAST).is_some(), "no '{want}'");
    std::fs::write(dir.join("end"), "").unwrap();
    let mut out = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut out).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert_eq!(sorted_lines(&out), ["done 0", "done 1", "resumed"]);
    assert!(t.elapsed() < WATCHDOG);
}

#[test]
fn a_stopped_pe_ends_with_the_job_on_timeout() {
    let dir = scratch("stopped-timeout");
    let script = record_pid(&dir) + "if [ $RSHMEM_PE = 1 ]; then kill -STOP $$; fi; exec sleep 30";
    // The grace from the environment.
    let mut w = start_watched(
        &["-np", "2", "--timeout", "3", "/bin/sh", "-c", &script],
        &[("RSHMEM_STOPPED_GRACE", "0.5")],
    );
    let pes = pids(&dir, 2);
    let want = format!("oshrun: PE 1 (pid {}) has been stopped by SIGSTOP for 0.5 s", pes[1]);
    assert!(line_with(&w.lines, &want, FAST).is_some(), "no '{want}'");
    assert!(line_with(&w.lines, "oshrun: job timed out after 3 s; ending 2 PEs", FAST).is_some());
    assert_eq!(w.child.wait().unwrap().code(), Some(124));
    assert_all_gone(&pes);

    let bad = sh(1, &["--stopped-grace", "-1"], "true");
    assert_eq!(bad.code, Some(2));
    let mut w = start_watched(&["/bin/true"], &[("RSHMEM_STOPPED_GRACE", "soon")]);
    assert_eq!(w.child.wait().unwrap().code(), Some(2));
    let want = "oshrun: environment variable RSHMEM_STOPPED_GRACE needs a number of seconds (0 or more), not 'soon'";
    assert!(line_with(&w.lines, want, FAST).is_some());
}
