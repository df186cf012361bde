//! `SHMEM_TRACE` end to end: `c_tests/unit/trace_ops.c` run under oshrun with
//! the variable set must leave one Chrome trace whose events are the calls
//! the program made (routine, peer, bytes, on the right PE's track), with
//! one track per PE and no part file left; a small `SHMEM_TRACE_BUFFER`
//! drops events and says so; a program that returns from `main` without
//! `shmem_finalize` still writes the trace; and `cargo xtask trace-svg`
//! (its code, included here) draws a row per PE.

#[path = "../xtask/src/trace_svg.rs"]
#[allow(dead_code)] // the command line is xtask's
mod trace_svg;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const OSHCC: &str = env!("CARGO_BIN_EXE_oshcc");
const OSHRUN: &str = env!("CARGO_BIN_EXE_oshrun");

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("trace-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `trace_ops.c`, compiled once.
fn program() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let dir = scratch("build");
        let exe = dir.join("trace_ops");
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("c_tests/unit/trace_ops.c");
        let out = Command::new(OSHCC)
            .args(["-O1", "-g", "-Wall", "-Wextra", "-Werror"])
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .env_remove("RSHMEM_STATIC")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        exe
    })
}

/// Runs the program at `np` PEs in `dir` with `env`; it must succeed.
fn run(np: usize, dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = Command::new(OSHRUN);
    cmd.args(["-np", &np.to_string(), "--timeout", "60"])
        .arg(program())
        .args(args)
        .current_dir(dir)
        // As tests/common/c_programs.rs: run as a user would, on the rpath.
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("SHMEM_TRACE")
        .env_remove("SHMEM_TRACE_BUFFER");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The trace at `path`, parsed; no part or temporary file may be left beside it.
fn trace(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let left: Vec<String> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".part") || n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()))
}

/// (PE, routine, category, peer, bytes, ts, dur) of every complete event.
fn calls(t: &Value) -> Vec<(i64, String, String, i64, u64, f64, f64)> {
    t["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| {
            (
                e["tid"].as_i64().unwrap(),
                e["name"].as_str().unwrap().to_string(),
                e["cat"].as_str().unwrap().to_string(),
                e["args"]["peer"].as_i64().unwrap(),
                e["args"]["bytes"].as_u64().unwrap(),
                e["ts"].as_f64().unwrap(),
                e["dur"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// Exactly one named track per PE, "PE i" on tid i.
fn check_tracks(t: &Value, np: usize) {
    let mut names: Vec<(i64, String)> = t["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| {
            (
                e["tid"].as_i64().unwrap(),
                e["args"]["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    names.sort();
    let want: Vec<(i64, String)> = (0..np as i64).map(|i| (i, format!("PE {i}"))).collect();
    assert_eq!(names, want);
}

#[test]
fn a_traced_run_records_every_call_on_its_pes_track() {
    for np in [2usize, 4] {
        let dir = scratch(&format!("np{np}"));
        run(np, &dir, &[("SHMEM_TRACE", "t.json")], &[]);
        let t = trace(&dir.join("t.json"));
        check_tracks(&t, np);
        let calls = calls(&t);
        assert!(
            calls.iter().all(|c| c.5 >= 0.0 && c.6 >= 0.0),
            "negative time: {calls:?}"
        );
        assert_eq!(
            calls.iter().map(|c| c.5).fold(f64::MAX, f64::min),
            0.0,
            "times start at 0"
        );
        let n = np as i64;
        for pe in 0..n {
            let (right, left) = ((pe + 1) % n, (pe + n - 1) % n);
            let mine: Vec<(&str, &str, i64, u64)> = calls
                .iter()
                .filter(|c| c.0 == pe)
                .map(|c| (c.1.as_str(), c.2.as_str(), c.3, c.4))
                .collect();
            let want = [
                ("shmem_barrier_all", "sync", -1, 0),
                ("shmem_int_put", "rma", right, 400),
                ("shmem_long_atomic_fetch_add", "amo", 0, 8),
                ("shmem_putmem_signal", "signal", right, 64),
                ("shmem_signal_wait_until", "wait", -1, 0),
                ("shmem_int_p", "rma", left, 4),
                ("shmem_int_wait_until", "wait", -1, 0),
                ("shmem_long_broadcast", "coll", 0, 32),
                ("shmem_long_sum_reduce", "coll", -1, 32),
                ("shmem_barrier_all", "sync", -1, 0),
            ];
            assert_eq!(mine, want, "PE {pe} of {np}");
        }
        let other = &t["otherData"];
        assert_eq!(other["npes"], np);
        assert_eq!(other["dropped"], Value::from(vec![0; np]));
        assert_eq!(other["events"], Value::from(vec![10; np]));

        let svg = trace_svg::svg_of_file(&dir.join("t.json"), None, None).unwrap();
        for pe in 0..np {
            assert_eq!(svg.matches(&format!("\nPE {pe}\n")).count(), 1, "row label of PE {pe}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_small_buffer_keeps_the_first_events_and_reports_the_drops() {
    let dir = scratch("drops");
    let out = run(2, &dir, &[("SHMEM_TRACE", "t.json"), ("SHMEM_TRACE_BUFFER", "4")], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for pe in 0..2 {
        let line = format!("rshmem trace: PE {pe} dropped 6 of 10 events (SHMEM_TRACE_BUFFER=4; raise it)");
        assert_eq!(stderr.matches(&line).count(), 1, "{stderr}");
    }
    let t = trace(&dir.join("t.json"));
    check_tracks(&t, 2);
    let calls = calls(&t);
    for pe in 0..2 {
        let names: Vec<&str> = calls.iter().filter(|c| c.0 == pe).map(|c| c.1.as_str()).collect();
        assert_eq!(
            names,
            [
                "shmem_barrier_all",
                "shmem_int_put",
                "shmem_long_atomic_fetch_add",
                "shmem_putmem_signal"
            ]
        );
    }
    assert_eq!(t["otherData"]["dropped"], Value::from(vec![6, 6]));
    assert_eq!(t["otherData"]["buffer_events"], 4);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_program_without_shmem_finalize_still_writes_its_trace() {
    let dir = scratch("no-finalize");
    run(2, &dir, &[("SHMEM_TRACE", "t.json")], &["no-finalize"]);
    let t = trace(&dir.join("t.json"));
    check_tracks(&t, 2);
    let calls = calls(&t);
    for pe in 0..2 {
        assert_eq!(calls.iter().filter(|c| c.0 == pe).count(), 10, "{calls:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn without_the_layer_the_library_says_why_there_is_no_trace() {
    let dir = scratch("direct");
    // A 1-PE job run without oshrun: nothing preloads the layer.
    let out = Command::new(program())
        .current_dir(&dir)
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("LD_PRELOAD")
        .env("SHMEM_TRACE", "t.json")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(
            "rshmem: SHMEM_TRACE=t.json is set, but this program's calls do not go through the trace layer"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("librshmem_trace.so"), "{stderr}");
    assert!(!dir.join("t.json").exists());
    // Under oshrun without SHMEM_TRACE: no file, no message.
    let out = run(2, &dir, &[], &[]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
