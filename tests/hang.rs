//! Hang reports: the programs of `tests/hang/` hang in the four common ways
//! (collectives in different orders, a wait for a value never written, a
//! missing barrier, a stopped PE); `oshrun` must print the table and the right
//! diagnosis within `SHMEM_HANG_TIMEOUT` + 2 s and keep the job running, end
//! it with `--hang-abort`, report on SIGQUIT and to `oshrun --status`, and
//! stay silent while a PE computes.

mod common;

use common::c_programs::compile;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

const OSHCC: &str = env!("CARGO_BIN_EXE_oshcc");
/// The timeout the tests set, and what the report may take beyond it.
const TIMEOUT_S: u64 = 2;
const SLACK: Duration = Duration::from_secs(2);

/// Builds `tests/hang/NAME.c` (once per test binary run: tests running at
/// the same time must not write the same executable).
fn program(name: &str) -> PathBuf {
    static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hang");
    let exe = dir.join(name);
    if built.iter().any(|b| b == name) {
        return exe;
    }
    std::fs::create_dir_all(&dir).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/hang/{name}.c"));
    let mut cc = Command::new(OSHCC);
    cc.args(["-O1", "-g", "-Wall", "-Wextra", "-Werror"]).arg(&src);
    compile(cc, &exe).unwrap_or_else(|e| panic!("{name}: {e}"));
    built.push(name.to_string());
    exe
}

/// Starts `program` at `np` PEs with a hang timeout of `timeout` seconds.
fn start(name: &str, np: usize, timeout: &str, opts: &[&str]) -> (Watched, Instant) {
    let exe = program(name);
    let np = np.to_string();
    let mut args = vec!["-np", &np];
    args.extend_from_slice(opts);
    let exe = exe.to_str().unwrap();
    args.push(exe);
    let w = start_watched(&args, &[("SHMEM_HANG_TIMEOUT", timeout)]);
    (w, Instant::now())
}

/// The report's lines up to its last diagnosis, waiting at most `limit`
/// for its first line (and briefly for the rest).
fn report(w: &Watched, limit: Duration) -> Vec<String> {
    let Some(first) = line_with(&w.lines, "hang report", limit) else {
        panic!("no hang report within {limit:?}");
    };
    let mut lines = vec![first];
    while let Ok(l) = w.lines.recv_timeout(Duration::from_millis(300)) {
        lines.push(l);
    }
    lines
}

/// The table row of PE `pe`.
fn row(lines: &[String], pe: usize) -> String {
    let want = format!("oshrun:    {pe}  ");
    lines
        .iter()
        .find(|l| l.starts_with(&want))
        .cloned()
        .unwrap_or_else(|| panic!("no row for PE {pe} in {lines:#?}"))
}

fn has(lines: &[String], needle: &str) -> bool {
    lines.iter().any(|l| l.contains(needle))
}

/// Checks that the job is still running, then ends it.
fn still_running_then_end(mut w: Watched) {
    std::thread::sleep(Duration::from_millis(300));
    assert!(w.child.try_wait().unwrap().is_none(), "the job ended after the report");
    signal(w.child.id() as libc::pid_t, libc::SIGTERM);
    let code = w.child.wait().unwrap().code();
    assert_eq!(code, Some(128 + libc::SIGTERM));
}

#[test]
fn collectives_called_in_different_orders_are_diagnosed() {
    let (w, t) = start("order", 4, &TIMEOUT_S.to_string(), &[]);
    let r = report(&w, Duration::from_secs(TIMEOUT_S) + SLACK);
    assert!(t.elapsed() < Duration::from_secs(TIMEOUT_S) + SLACK + Duration::from_millis(600));
    assert!(
        r[0].contains("no PE has made progress for 2 s (SHMEM_HANG_TIMEOUT=2)"),
        "{r:#?}"
    );
    for pe in [0, 1, 3] {
        let row = row(&r, pe);
        assert!(
            row.contains("blocked  shmem_barrier_all") && row.contains("SHMEM_TEAM_WORLD"),
            "{row}"
        );
    }
    assert!(row(&r, 2).contains("shmem_broadcastmem"), "{r:#?}");
    let want = "diagnosis: PEs 0, 1, 3 are in shmem_barrier_all; PE 2 is in shmem_broadcastmem on \
                SHMEM_TEAM_WORLD: collectives called in different orders";
    assert!(has(&r, want), "{r:#?}");
    still_running_then_end(w);
}

#[test]
fn a_wait_for_a_value_never_written_names_the_variable() {
    let (w, _) = start("never_written", 3, &TIMEOUT_S.to_string(), &[]);
    let r = report(&w, Duration::from_secs(TIMEOUT_S) + SLACK);
    let row1 = row(&r, 1);
    assert!(
        row1.contains("shmem_long_wait_until") && row1.contains("flag (0x"),
        "{row1}"
    );
    assert!(row1.contains("== 1 (now 0)"), "{row1}");
    assert!(row(&r, 0).contains("shmem_barrier_all"), "{r:#?}");
    assert!(
        has(
            &r,
            "diagnosis: PE 1 waits in shmem_long_wait_until for flag == 1 (now 0), and no PE is running to write it"
        ),
        "{r:#?}"
    );
    assert!(
        has(&r, "PEs 0, 2 in shmem_barrier_all on SHMEM_TEAM_WORLD wait for PE 1"),
        "{r:#?}"
    );
    still_running_then_end(w);
}

#[test]
fn a_missing_barrier_names_the_pe_that_skipped_it() {
    let (w, _) = start("missing_barrier", 4, &TIMEOUT_S.to_string(), &[]);
    let r = report(&w, Duration::from_secs(TIMEOUT_S) + SLACK);
    assert!(row(&r, 0).contains("shmem_int_wait_until"), "{r:#?}");
    assert!(
        has(
            &r,
            "diagnosis: PEs 1, 2, 3 in shmem_barrier_all on SHMEM_TEAM_WORLD wait for PE 0: PE 0 is in \
             shmem_int_wait_until on ready"
        ),
        "{r:#?}"
    );
    still_running_then_end(w);
}

#[test]
fn a_stopped_pe_is_named_with_how_to_resume_it() {
    let (w, _) = start("stopped", 4, &TIMEOUT_S.to_string(), &[]);
    let r = report(&w, Duration::from_secs(TIMEOUT_S) + SLACK);
    assert!(row(&r, 3).contains("stopped (SIGSTOP)"), "{r:#?}");
    assert!(
        has(&r, "wait for PE 3: PE 3 is stopped (SIGSTOP; kill -CONT "),
        "{r:#?}"
    );
    still_running_then_end(w);
}

#[test]
fn hang_abort_ends_the_job_with_124() {
    let (mut w, t) = start("order", 3, "1", &["--hang-abort"]);
    let r = report(&w, Duration::from_secs(1) + SLACK);
    assert!(has(&r, "ending 3 PEs (--hang-abort)"), "{r:#?}");
    assert_eq!(w.child.wait().unwrap().code(), Some(124));
    assert!(t.elapsed() < Duration::from_secs(1) + SLACK + FAST);
}

#[test]
fn sigquit_and_status_report_on_demand_and_zero_turns_the_timeout_off() {
    let (w, _) = start("never_written", 2, "0", &[]);
    let pid = w.child.id() as libc::pid_t;
    // `oshrun --status PID` from outside, until both PEs are blocked.
    let until = Instant::now() + FAST;
    let status = loop {
        let out = Command::new(OSHRUN)
            .args(["--status", &pid.to_string()])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        if text.matches("  blocked  ").count() == 2 || Instant::now() > until {
            assert_eq!(out.status.code(), Some(0), "{text}");
            break text;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        status.contains(&format!("hang report: job of oshrun pid {pid} (2 PEs)")),
        "{status}"
    );
    assert!(
        status.contains("shmem_long_wait_until") && status.contains("flag (0x"),
        "{status}"
    );
    // Timeout 0: no report of its own.
    assert_eq!(line_with(&w.lines, "hang report", Duration::from_millis(1500)), None);
    signal(pid, libc::SIGQUIT);
    let r = report(&w, FAST);
    assert!(r[0].contains("hang report: requested with SIGQUIT"), "{r:#?}");
    // As many PEs as cores: the barrier still knows who has arrived.
    let row0 = row(&r, 0);
    assert!(
        row0.contains("shmem_barrier_all") && row0.contains("  PE 1  "),
        "{row0}"
    );
    assert!(
        has(&r, "diagnosis: PE 1 waits in shmem_long_wait_until for flag == 1"),
        "{r:#?}"
    );
    still_running_then_end(w);
    let out = Command::new(OSHRUN)
        .args(["--status", &pid.to_string()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_pe_that_computes_is_not_a_hang() {
    // PE 0 sleeps 3 s in its own code while the others wait in a barrier.
    let r = sh_program("computes", 3, "1");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(!r.stderr.contains("hang report"), "{}", r.stderr);
}

#[test]
fn a_malformed_timeout_is_a_usage_error() {
    let (mut w, _) = start("order", 3, "soon", &[]);
    let line = line_with(&w.lines, "SHMEM_HANG_TIMEOUT", FAST).expect("no message");
    assert!(line.contains("\"soon\" is invalid"), "{line}");
    assert_eq!(w.child.wait().unwrap().code(), Some(2));
}

/// Runs `tests/hang/NAME.c` to its end.
fn sh_program(name: &str, np: usize, timeout: &str) -> Run {
    let exe = program(name);
    let t = Instant::now();
    let child = Command::new(OSHRUN)
        .args(["-np", &np.to_string()])
        .arg(&exe)
        .env("SHMEM_HANG_TIMEOUT", timeout)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    finish(child, t)
}

/// Whether the tests across nodes can run here (else they print why and pass,
/// unless `RSHMEM_REQUIRE_MPI=1`).
fn mpi_present() -> bool {
    let shim = common::mpi::profile_dir().join("librshmem_mpi.so");
    if common::mpi::on_path("mpirun").is_none() || !shim.is_file() {
        assert!(
            std::env::var("RSHMEM_REQUIRE_MPI").map_or(true, |v| v != "1"),
            "RSHMEM_REQUIRE_MPI=1 but no mpirun or no {}",
            shim.display()
        );
        println!("skipped: no MPI (install openmpi-bin libopenmpi-dev)");
        return false;
    }
    true
}

/// `oshrun` handing a job to Open MPI's `mpirun` (`RSHMEM_LAUNCHER`), two
/// virtual nodes of 2 PEs, with `opts` before the program.
fn oshrun_mpirun(name: &str, opts: &[&str], env: &[(&str, &str)]) -> Watched {
    let exe = program(name);
    let mut cmd = Command::new(OSHRUN);
    cmd.args(["-np", "4", "--oversubscribe"]).args(opts);
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        cmd.arg("--allow-run-as-root");
    }
    cmd.arg(&exe)
        .env("RSHMEM_LAUNCHER", "mpirun")
        .env("RSHMEM_NODE_SIZE", "2")
        .envs(env.iter().copied());
    watch_command(cmd)
}

/// `--hang-abort` reaches the PEs under mpirun: the first node watcher that
/// reports ends the job with 124, as oshrun does on one node.
#[test]
fn across_nodes_hang_abort_ends_the_job_with_124() {
    if !mpi_present() {
        return;
    }
    let t = Instant::now();
    let mut w = oshrun_mpirun("order", &["--hang-abort"], &[("SHMEM_HANG_TIMEOUT", "1")]);
    let limit = Duration::from_secs(1) + SLACK + FAST;
    let Some(_) = line_with(&w.lines, "ending the job (--hang-abort)", limit) else {
        panic!("no --hang-abort line within {limit:?}");
    };
    assert_eq!(w.child.wait().unwrap().code(), Some(124));
    assert!(t.elapsed() < WATCHDOG, "{:?}", t.elapsed());
}

/// A stopped PE that is its node's first PE (whose own watcher is stopped
/// with it) is named by the node's second PE, after `--stopped-grace`.
#[test]
fn across_nodes_a_stopped_first_pe_is_named() {
    if !mpi_present() {
        return;
    }
    let w = oshrun_mpirun(
        "stopped_first",
        &["--stopped-grace", "1"],
        &[("SHMEM_HANG_TIMEOUT", "60")],
    );
    let limit = Duration::from_secs(1) + SLACK + FAST;
    let Some(l) = line_with(&w.lines, "is stopped", limit) else {
        panic!("no stopped line within {limit:?}");
    };
    assert!(l.contains("(PEs 2, 3): PE 2 on ") && l.contains("kill -CONT"), "{l}");
    drop(w); // kills the job's process group
}

/// A PE stopped alone on its node is named by the other nodes: their PEs,
/// blocked, tell each other where they are, and nobody hears from it.
#[test]
fn across_nodes_a_stopped_lone_pe_is_named_by_the_others() {
    if !mpi_present() {
        return;
    }
    let w = oshrun_mpirun(
        "stopped",
        &[],
        // Long enough for the blocked PEs' first words (after 1 s) to arrive
        // on a loaded machine.
        &[("SHMEM_HANG_TIMEOUT", "5"), ("RSHMEM_NODE_SIZE", "1")],
    );
    // Each node reports; the lines of one report come in one piece, the
    // reports in any order. What is tested is that they come, not how soon:
    // a loaded machine gets 3x (it missed 12 s at load 18).
    let until = Instant::now() + 3 * (Duration::from_secs(5) + SLACK + FAST);
    let (mut silent, mut heard, mut seen) = (false, false, Vec::new());
    while !(silent && heard) {
        let Ok(l) = w.lines.recv_timeout(until.saturating_duration_since(Instant::now())) else {
            panic!("no line naming the silent PE 3 and one on the PEs heard from: {seen:#?}");
        };
        silent |= l.contains("other nodes: PE 3 on ") && l.contains("not heard from");
        heard |= l.contains("other nodes: PE") && l.contains("blocked in shmem_barrier_all");
        seen.push(l);
    }
    drop(w); // kills the job's process group
}

/// Across nodes no oshrun watches: each node's first PE reports its node.
/// Two virtual nodes of 2 PEs (`RSHMEM_NODE_SIZE`) under Open MPI's mpirun.
#[test]
fn across_nodes_every_node_reports_its_pes() {
    if !mpi_present() {
        return;
    }
    let exe = program("order");
    let mut cmd = common::mpi::mpirun();
    cmd.args(common::mpi::one_host_flags()).args(["-np", "4"]);
    for kv in ["RSHMEM_NODE_SIZE=2", "SHMEM_HANG_TIMEOUT=2"] {
        cmd.args(["-x", kv]);
    }
    cmd.arg(&exe);
    let w = watch_command(cmd);
    let mut seen = Vec::new();
    let until = Instant::now() + WATCHDOG;
    while !(has(&seen, "(PEs 0, 1): diagnosis") && has(&seen, "(PEs 2, 3): diagnosis")) {
        match w.lines.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok(l) => seen.push(l),
            Err(_) => panic!("no report from both nodes within {WATCHDOG:?}: {seen:#?}"),
        }
    }
    let want = "(PEs 2, 3): diagnosis: PE 2 is in shmem_broadcastmem; PE 3 is in shmem_barrier_all on \
                SHMEM_TEAM_WORLD: collectives called in different orders";
    assert!(has(&seen, want), "{seen:#?}");
    assert!(has(&seen, "no PE of this node has made progress for 2 s"), "{seen:#?}");
    let row0 = seen
        .iter()
        .find(|l| l.contains("(PEs 0, 1):    0  "))
        .expect("no row of PE 0");
    assert!(
        row0.contains("shmem_barrier_all") && row0.contains("other nodes"),
        "{row0}"
    );
    drop(w); // kills mpirun's process group
}

/// Threaded PEs: each thread's wait is in the table, under its PE, with
/// what it waits for.
#[test]
fn each_thread_of_a_threaded_pe_is_in_the_report() {
    let (w, _) = start("threads", 3, &TIMEOUT_S.to_string(), &[]);
    let r = report(&w, Duration::from_secs(TIMEOUT_S) + SLACK);
    for pe in [0, 1] {
        assert!(row_of(&r, &pe.to_string()).contains("shmem_barrier_all"), "{r:#?}");
        let thread = row_of(&r, &format!("{pe} thread 1"));
        assert!(
            thread.contains("blocked (tid ")
                && thread.contains("shmem_int_wait_until")
                && thread.contains("flag (0x")
                && thread.contains("== 1 (now 0)"),
            "{thread}"
        );
    }
    assert!(row_of(&r, "2").contains("shmem_int_wait_until"), "{r:#?}");
    assert!(
        has(&r, "PEs 0, 1 in shmem_barrier_all on SHMEM_TEAM_WORLD wait for PE 2"),
        "{r:#?}"
    );
    still_running_then_end(w);
}

/// A threaded PE finalizing while its thread waits, and the other PE's
/// threads in a barrier and a wait: the library's own verdict names where
/// each thread is.
#[test]
fn the_library_names_each_thread_when_the_job_can_never_finish() {
    let exe = program("threads");
    let t = Instant::now();
    let child = Command::new(OSHRUN)
        .args(["-np", "2"])
        .arg(&exe)
        .env("FINALIZE", "1")
        .env("SHMEM_HANG_TIMEOUT", "0")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let r = finish(child, t);
    assert_ne!(r.code, Some(0), "{}", r.stderr);
    let want = "the job can never finish: PE 1 is in shmem_finalize; PE 0 is in shmem_barrier_all; \
                PE 0 thread 1 is in shmem_int_wait_until; PE 1 thread 1 is in shmem_int_wait_until";
    assert!(r.stderr.contains(want), "{}", r.stderr);
}

/// The row of the PE column `who` ("2", "0 thread 1").
fn row_of(lines: &[String], who: &str) -> String {
    lines
        .iter()
        .find(|l| l.starts_with("oshrun:") && l["oshrun:".len()..].trim_start().starts_with(&format!("{who}  ")))
        .cloned()
        .unwrap_or_else(|| panic!("no row for {who} in {lines:#?}"))
}

/// Threaded PEs across nodes (every peer remote): each node's table shows
/// its PE's threads, and the lines on the other nodes' PEs where their
/// threads are, as the PEs said it in their status messages.
#[test]
fn across_nodes_each_thread_of_a_remote_pe_is_named() {
    if !mpi_present() {
        return;
    }
    let w = oshrun_mpirun(
        "threads",
        &[],
        // Long enough for the blocked threads' first words (after 1 s) to
        // arrive on a loaded machine.
        &[("SHMEM_HANG_TIMEOUT", "5"), ("RSHMEM_NODE_SIZE", "1")],
    );
    // What is tested is that the lines come, not how soon (mpirun's start
    // and the reports take 8-9 s alone here): a loaded machine gets 3x.
    let until = Instant::now() + 3 * (Duration::from_secs(5) + SLACK + FAST);
    let (mut local, mut remote, mut seen) = (false, false, Vec::new());
    while !(local && remote) {
        let Ok(l) = w.lines.recv_timeout(until.saturating_duration_since(Instant::now())) else {
            panic!("no row of a PE's thread and no line on another node's thread: {seen:#?}");
        };
        local |= l.contains(" thread 1  blocked (tid ") && l.contains("shmem_int_wait_until");
        remote |= l.contains("other nodes: PE 1 thread 1 on ") && l.contains("blocked in shmem_int_wait_until");
        seen.push(l);
    }
    drop(w); // kills the job's process group
}
