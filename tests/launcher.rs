//! `oshrun` from the outside, with `/bin/sh` scripts as PEs (no library needed).
//!
//! Shell PEs never call `shmem_init`, so their slot stays `Absent`; tests that
//! need another state write it into the job's memory file with `dd`, the way
//! the library would store it.

mod common;

use common::*;
use rshmem::job;
use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
#[test]
fn pes_get_their_environment_and_the_job_file() {
    let script = "test -e /proc/self/fd/$RSHMEM_JOB_FD || exit 9
        f=/proc/$$/fd/$RSHMEM_JOB_FD
        echo \"pe=$RSHMEM_PE npes=$RSHMEM_NPES id=$RSHMEM_JOB_ID\"
        echo \"link $RSHMEM_PE $(readlink $f)\"
        echo \"magic $RSHMEM_PE $(head -c 8 $f)\"
        echo \"npes $RSHMEM_PE $(od -An -tu4 -j8 -N4 $f | tr -d ' ')\"
        echo \"size $RSHMEM_PE $(stat -L -c %s $f)\"
        for g in /proc/$$/fd/*; do echo \"fd $RSHMEM_PE ${g##*/} $(readlink $g)\"; done";
    let r = sh(3, &[], script);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let ids: BTreeSet<&str> = r
        .stdout
        .lines()
        .filter_map(|l| l.split_once(" id=").map(|x| x.1))
        .collect();
    assert_eq!(ids.len(), 1, "one job id: {ids:?}");
    let id = *ids.first().unwrap();
    assert!(!id.is_empty());
    for pe in 0..3 {
        assert!(r.stdout.contains(&format!("pe={pe} npes=3 id={id}\n")), "{}", r.stdout);
        assert!(
            r.stdout.contains(&format!("link {pe} /memfd:rshmem-job")),
            "{}",
            r.stdout
        );
        let magic = String::from_utf8_lossy(&job::MAGIC.to_le_bytes()).into_owned();
        assert!(r.stdout.contains(&format!("magic {pe} {magic}\n")), "{}", r.stdout);
        assert!(r.stdout.contains(&format!("npes {pe} 3\n")), "{}", r.stdout);
        assert!(
            r.stdout.contains(&format!("size {pe} {}\n", job::control_len(3))),
            "{}",
            r.stdout
        );
    }
    // No PE holds another PE's output pipes (they are close-on-exec in oshrun).
    let mut fds: HashMap<(String, String), String> = HashMap::new();
    for l in r.stdout.lines().filter(|l| l.starts_with("fd ")) {
        let f: Vec<&str> = l.splitn(4, ' ').collect();
        if f.len() == 4 {
            fds.insert((f[1].into(), f[2].into()), f[3].into());
        }
    }
    for pe in 0..3 {
        for own in ["1", "2"] {
            let target = &fds[&(pe.to_string(), own.to_string())];
            assert!(target.starts_with("pipe:"), "PE {pe} fd {own} is {target}");
            let holders: Vec<_> = fds.iter().filter(|(_, t)| *t == target).map(|(k, _)| k).collect();
            assert_eq!(holders.len(), 1, "{target} is open in {holders:?}");
        }
    }
    let again = sh(1, &[], "echo $RSHMEM_JOB_ID");
    assert_ne!(again.stdout.trim(), id, "job ids differ between runs");
}

#[test]
fn exit_statuses() {
    let r = sh(3, &[], "exit 0");
    assert_eq!((r.code, r.stderr.as_str(), r.stdout.as_str()), (Some(0), "", ""));

    let r = sh(1, &[], "exit 7");
    assert_eq!(r.code, Some(7));
    assert!(r.stderr.contains("oshrun: PE 0 (pid "), "{}", r.stderr);
    assert!(
        r.stderr
            .contains(") exited with status 7 before shmem_finalize; ending the job"),
        "{}",
        r.stderr
    );

    let dir = scratch("exit");
    let r = sh(
        3,
        &[],
        &(record_pid(&dir) + "if [ $RSHMEM_PE = 2 ]; then exit 3; fi; exec sleep 30"),
    );
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert!(r.elapsed < FAST, "took {:?}", r.elapsed);
    assert!(r.stderr.contains("PE 2 (pid"), "{}", r.stderr);
    assert_eq!(
        r.stderr.lines().count(),
        1,
        "the PEs ended by oshrun are not reported: {}",
        r.stderr
    );
    assert!(dir.join("pid.2").exists());
    assert_all_gone(&recorded_pids(&dir));
}

#[test]
fn a_pe_killed_by_a_signal_ends_the_job_fast() {
    let dir = scratch("segv");
    let script = record_pid(&dir) + "ulimit -c 0; if [ $RSHMEM_PE = 1 ]; then kill -SEGV $$; fi; exec sleep 30";
    let r = sh(3, &[], &script);
    assert_eq!(r.code, Some(128 + libc::SIGSEGV), "{}", r.stderr);
    assert!(r.elapsed < FAST, "took {:?}", r.elapsed);
    assert!(r.stderr.contains("oshrun: PE 1 (pid "), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("was killed by signal 11 (SIGSEGV) before shmem_finalize; ending the job"),
        "{}",
        r.stderr
    );
    // oshrun returns only after reaping every PE.
    assert!(dir.join("pid.1").exists());
    assert_all_gone(&recorded_pids(&dir));
}

#[test]
fn states_written_by_the_library_decide() {
    // Finalized, then a non-zero exit: the status counts, nobody is ended.
    let script = format!(
        "if [ $RSHMEM_PE = 1 ]; then {} exit 3; fi; sleep 0.5; echo survived",
        set_state(job::PeState::Finalized)
    );
    let r = sh(2, &[], &script);
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert_eq!(r.stdout, "survived\n");
    assert_eq!(r.stderr, "");

    // shmem_global_exit(5): the others are ended, the job's status is 5.
    let script = format!(
        "if [ $RSHMEM_PE = 1 ]; then {} exit 5; fi; exec sleep 30",
        set_global_exit(5)
    );
    let r = sh(3, &[], &script);
    assert_eq!(r.code, Some(5), "{}", r.stderr);
    assert!(r.elapsed < FAST, "took {:?}", r.elapsed);
    assert_eq!(r.stderr, "oshrun: PE 1 called shmem_global_exit(5); ending the job\n");

    // ... even with status 0.
    let script = format!(
        "if [ $RSHMEM_PE = 0 ]; then {} exit 0; fi; exec sleep 30",
        set_global_exit(0)
    );
    let r = sh(2, &[], &script);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.elapsed < FAST, "took {:?}", r.elapsed);
    assert!(
        r.stderr.contains("PE 0 called shmem_global_exit(0); ending the job"),
        "{}",
        r.stderr
    );

    // Exit 0 while running, without shmem_finalize: a failure.
    let script = format!(
        "if [ $RSHMEM_PE = 1 ]; then {} exit 0; fi; exec sleep 30",
        set_state(job::PeState::Running)
    );
    let r = sh(2, &[], &script);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.elapsed < FAST, "took {:?}", r.elapsed);
    assert!(
        r.stderr
            .contains("exited with status 0 without calling shmem_finalize; ending the job"),
        "{}",
        r.stderr
    );

    // The library reported a fatal error.
    let script = format!(
        "if [ $RSHMEM_PE = 0 ]; then echo 'rshmem: boom' >&2; {} exit 1; fi; exec sleep 30",
        set_state(job::PeState::Failed)
    );
    let r = sh(2, &[], &script);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{}", r.stderr);
    assert_eq!(lines[0], "rshmem: boom", "the PE's last words come first");
    assert!(
        lines[1].ends_with("exited with status 1 after a fatal error; ending the job"),
        "{}",
        r.stderr
    );
}

/// A PE that explains a failure writes its line before the other PEs can
/// see the failure and end. oshrun forwards that line first even when it
/// learns of another PE's end before it has read the line: here oshrun is
/// stopped while PE 0 explains and PE 1 follows and exits, then continued,
/// and finds both lines and PE 1's end at once.
#[test]
fn the_explanation_comes_before_the_lines_that_follow_from_it() {
    let dir = scratch("explain-first");
    let d = dir.display();
    let script = record_pid(&dir)
        + &format!(
            "while [ ! -e {d}/stopped ]; do sleep 0.02; done; \
             if [ $RSHMEM_PE = 0 ]; then echo 'PE 0: why the job ends' >&2; : > {d}/told; exec sleep 30; fi; \
             while [ ! -e {d}/told ]; do sleep 0.02; done; echo 'PE 1: see PE 0' >&2; exit 1"
        );
    let mut w = start_watched(&["-np", "2", "/bin/sh", "-c", &script], &[]);
    let oshrun_pid = w.child.id() as libc::pid_t;
    let pes = pids(&dir, 2);
    signal(oshrun_pid, libc::SIGSTOP);
    let until = Instant::now() + WATCHDOG;
    let state = |pid: libc::pid_t| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next())
    };
    while state(oshrun_pid) != Some('T') {
        assert!(Instant::now() < until, "oshrun did not stop");
        std::thread::sleep(Duration::from_millis(10));
    }
    std::fs::write(dir.join("stopped"), "").unwrap();
    while alive(pes[1]) {
        assert!(Instant::now() < until, "PE 1 did not exit");
        std::thread::sleep(Duration::from_millis(10));
    }
    signal(oshrun_pid, libc::SIGCONT);
    let mut lines = Vec::new();
    while let Ok(l) = w.lines.recv_timeout(WATCHDOG) {
        lines.push(l);
    }
    let at = |needle: &str| {
        lines
            .iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no {needle:?} in {lines:#?}"))
    };
    let (why, follows, ends) = (
        at("PE 0: why the job ends"),
        at("PE 1: see PE 0"),
        at("oshrun: PE 1 (pid"),
    );
    assert!(why < follows && follows < ends, "{lines:#?}");
    assert_eq!(w.child.wait().unwrap().code(), Some(1));
    assert_all_gone(&pes);
}

#[test]
fn tag_output() {
    let r = sh(2, &["--tag-output"], "echo out; echo err >&2; printf partial");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(
        sorted_lines(&r.stdout),
        ["[PE 0] out", "[PE 0] partial", "[PE 1] out", "[PE 1] partial"]
    );
    assert_eq!(sorted_lines(&r.stderr), ["[PE 0] err", "[PE 1] err"]);
    assert!(r.stdout.ends_with('\n'));

    // Without tags, output passes unchanged, unfinished last line included.
    let r = sh(1, &[], "printf 'a\\nb'");
    assert_eq!(r.stdout, "a\nb");
}

#[test]
fn stdin_reaches_pe_0_only() {
    let t = Instant::now();
    let mut child = start(
        &["-np", "3", "/bin/sh", "-c", "read line; echo \"$RSHMEM_PE:[$line]\""],
        Stdio::piped(),
    );
    child.stdin.take().unwrap().write_all(b"hello\n").unwrap();
    let r = finish(child, t);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(sorted_lines(&r.stdout), ["0:[hello]", "1:[]", "2:[]"]);
}

#[test]
fn large_output_arrives_whole() {
    const LINES: usize = 50_000; // about 2 MB per PE
    let script = format!(
        "yes \"$RSHMEM_PE-abcdefghijklmnopqrstuvwxyz-0123456789\" | head -n {LINES}; \
         yes \"e$RSHMEM_PE\" | head -n 20000 >&2"
    );
    let r = sh(4, &[], &script);
    assert_eq!(r.code, Some(0), "{}", &r.stderr[..r.stderr.len().min(500)]);
    let mut count = HashMap::new();
    for l in r.stdout.lines() {
        let pe = l.split_once('-').map(|x| x.0).unwrap_or("?");
        assert_eq!(l, format!("{pe}-abcdefghijklmnopqrstuvwxyz-0123456789"), "broken line");
        *count.entry(pe.to_owned()).or_insert(0) += 1;
    }
    for pe in 0..4 {
        assert_eq!(count.get(&pe.to_string()), Some(&LINES), "PE {pe}");
        let e = format!("e{pe}");
        assert_eq!(r.stderr.lines().filter(|l| *l == e).count(), 20000, "stderr of PE {pe}");
    }
    assert_eq!(r.stderr.lines().count(), 80000);
}

#[test]
fn timeout_ends_the_job() {
    let dir = scratch("timeout");
    // PE 1 ignores SIGTERM (the disposition survives exec): SIGKILL follows.
    let script = record_pid(&dir) + "if [ $RSHMEM_PE = 1 ]; then trap '' TERM; fi; exec sleep 30";
    let r = sh(2, &["--timeout", "0.5"], &script);
    assert_eq!(r.code, Some(124), "{}", r.stderr);
    assert!(
        r.elapsed >= Duration::from_millis(500) && r.elapsed < FAST,
        "took {:?}",
        r.elapsed
    );
    assert_eq!(r.stderr, "oshrun: job timed out after 0.5 s; ending 2 PEs\n");
    assert_all_gone(&recorded_pids(&dir));
}

#[test]
fn signals_to_oshrun_end_the_job() {
    for (sig, name) in [
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGINT, "SIGINT"),
        (libc::SIGHUP, "SIGHUP"),
    ] {
        let dir = scratch(name);
        let script = record_pid(&dir) + "exec sleep 30";
        let t = Instant::now();
        let child = start(&["-np", "2", "/bin/sh", "-c", &script], Stdio::null());
        let oshrun_pid = child.id() as libc::pid_t;
        let pes = pids(&dir, 2);
        // SAFETY: oshrun is our child and not reaped yet.
        unsafe { libc::kill(oshrun_pid, sig) };
        let r = finish(child, t);
        assert_eq!(r.code, Some(128 + sig), "{name}: {}", r.stderr);
        assert_eq!(r.stderr, format!("oshrun: received {name}; ending 2 PEs\n"));
        assert_all_gone(&pes);
    }
}

#[test]
fn pes_die_with_a_killed_oshrun() {
    let dir = scratch("sigkill");
    let script = record_pid(&dir) + "exec sleep 30";
    let t = Instant::now();
    let child = start(&["-np", "2", "/bin/sh", "-c", &script], Stdio::null());
    let pes = pids(&dir, 2);
    // SAFETY: oshrun is our child and not reaped yet.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGKILL) };
    let r = finish(child, t);
    assert_eq!(r.code, None, "killed");
    let until = Instant::now() + FAST;
    while pes.iter().any(|&p| alive(p)) {
        assert!(Instant::now() < until, "PEs survived oshrun");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_background_grandchild_does_not_hold_oshrun() {
    // The grandchild keeps the PE's output pipe open; oshrun ends with the PE.
    let r = sh(1, &[], "sleep 3 & echo started");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout, "started\n");
    assert!(r.elapsed < Duration::from_millis(2500), "took {:?}", r.elapsed);
}

#[test]
fn no_cpu_is_used_while_waiting() {
    #[expect(clippy::zombie_processes, reason = "reaped below with wait4, for its resource usage")]
    let child = Command::new(OSHRUN)
        .args(["-np", "4", "/bin/sh", "-c", "exec sleep 1"])
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; it is filled by wait4.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child; the out-parameters are valid.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t);
    assert_eq!(status, 0);
    // Includes the PEs (sh, sleep); a busy loop over the second would use ~1 s.
    let cpu = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    let used = cpu(usage.ru_utime) + cpu(usage.ru_stime);
    assert!(used < Duration::from_millis(300), "oshrun used {used:?} of CPU");
}

#[test]
fn options() {
    let r = oshrun(&[
        "-x",
        "RSHMEM_TEST_X=bar",
        "-x",
        "HOME",
        "--oversubscribe",
        "--allow-run-as-root",
        "-np=2",
        "--",
        "/bin/sh",
        "-c",
        "echo $RSHMEM_TEST_X $RSHMEM_NPES",
        "-np",
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout, "bar 2\nbar 2\n");

    let r = oshrun(&["--version"]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (Some(0), concat!("oshrun (rshmem) ", env!("CARGO_PKG_VERSION"), "\n"))
    );
    let r = oshrun(&["--help"]);
    assert_eq!(r.code, Some(0));
    assert!(r.stdout.starts_with("Usage: oshrun"));

    let alias = Command::new(env!("CARGO_BIN_EXE_shmemrun"))
        .args(["-n", "2", "/bin/sh", "-c", "echo $RSHMEM_PE"])
        .output()
        .unwrap();
    assert_eq!(alias.status.code(), Some(0));
    assert_eq!(sorted_lines(&String::from_utf8_lossy(&alias.stdout)), ["0", "1"]);
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &[][..],
        &["-np", "2"],
        &["-np", "0", "/bin/true"],
        &["-np", "4097", "/bin/true"],
        &["-np", "x", "/bin/true"],
        &["-np"],
        &["--timeout", "0", "/bin/true"],
        &["--timeout", "-1", "/bin/true"],
        &["--bogus", "/bin/true"],
        &["-x"],
        &["--"],
    ] {
        let r = oshrun(args);
        assert_eq!(r.code, Some(2), "{args:?}");
        assert!(r.stderr.starts_with("oshrun: "), "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains("Usage: oshrun"), "{args:?}: {}", r.stderr);
        assert_eq!(r.stdout, "");
    }
}

#[test]
fn a_program_that_cannot_run_exits_127() {
    let dir = scratch("noexec");
    let plain = dir.join("not-executable");
    std::fs::write(&plain, "#!/bin/sh\n").unwrap();
    let plain = plain.to_str().unwrap();
    let d = dir.to_str().unwrap();
    for (prog, why) in [
        ("/nonexistent/prog", "No such file or directory"),
        ("rshmem-no-such-program", "No such file or directory"),
        (plain, "Permission denied"),
        (d, "Is a directory"),
    ] {
        let r = oshrun(&["-np", "2", prog]);
        assert_eq!(r.code, Some(127), "{prog}");
        assert_eq!(r.stderr, format!("oshrun: cannot execute '{prog}': {why}\n"));
    }
    // A program found in PATH runs.
    let r = oshrun(&["-np", "2", "true"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
}

#[test]
fn bind_to_pins_pes_round_robin() {
    let cpus = own_cpus();
    let n = cpus.len();
    let script = "echo \"$RSHMEM_PE $RSHMEM_JOB_CPUS $(grep Cpus_allowed_list /proc/self/status | cut -f2)\"";
    let np = 2 * n;
    // core: PE i on the i-th allowed CPU, round robin; every PE is told how
    // many CPUs the job shares.
    let r = sh(np, &["--bind-to", "core"], script);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    for pe in 0..np {
        let want = format!("{pe} {n} {}", cpus[pe % n]);
        assert!(r.stdout.lines().any(|l| l == want), "missing '{want}' in\n{}", r.stdout);
    }
    // auto with PEs dividing evenly among the CPUs: pinned as well.
    let auto = sh(np, &[], script);
    assert_eq!(sorted_lines(&auto.stdout), sorted_lines(&r.stdout));
    // none, and auto with an uneven count (when there is more than one CPU):
    // every PE may run anywhere.
    let mut unpinned = vec![sh(np, &["--bind-to=none"], script)];
    if n > 1 {
        unpinned.push(sh(n + 1, &[], script));
    }
    let all = std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:").map(|v| v.trim().to_string()))
        .unwrap();
    for u in unpinned {
        assert_eq!(u.code, Some(0), "{}", u.stderr);
        for l in u.stdout.lines() {
            assert!(l.ends_with(&format!(" {n} {all}")), "'{l}' is pinned");
        }
    }
    let bad = sh(1, &["--bind-to", "socket"], "true");
    assert_eq!(bad.code, Some(2));
    assert!(
        bad.stderr.contains("core, none or auto, not 'socket'"),
        "{}",
        bad.stderr
    );
}
