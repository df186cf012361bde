//! The collectives benchmark's MPI column (issue 22), without timing anything
//! that matters:
//!
//! - `benches/collmpi.py --self-test`: compare.py filing `mpi_coll`'s lines
//!   under the coll.c rows they stand for, report.py reading the MPI column
//!   (and CSVs without it), the targets (team / MPI, team / active-set twin)
//!   and the rows a partial run carries over from the previous CSV;
//! - `benches/c/coll.c` compiles warning-free and prints the rows the MPI
//!   column is compared with (broadcast of 64 KiB, sums of doubles);
//! - `benches/c/mpi_coll.c` compiles warning-free with `mpicc` and, under
//!   `mpirun` at 2 ranks with a tiny budget, prints every row with its check
//!   passed. Without `mpicc`/`mpirun` that test passes with a note: MPI is
//!   never a dependency of the benchmark either (its column says n/a).
//!
//! The first needs `python3`; without it it passes with a note.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// What mpi_coll.c prints (benchmark, bytes), and coll.c's new rows.
const MPI_ROWS: [(&str, u64); 10] = [
    ("mpi_barrier", 0),
    ("mpi_bcast", 8),
    ("mpi_bcast", 65536),
    ("mpi_bcast", 1 << 20),
    ("mpi_allgather", 8),
    ("mpi_alltoall", 8),
    ("mpi_alltoall", 65536),
    ("mpi_allreduce_double_sum", 8),
    ("mpi_allreduce_double_sum", 32768),
    ("mpi_allreduce_double_sum", 1 << 20),
];
const COLL_NEW_ROWS: [(&str, u64); 8] = [
    ("broadcast64", 65536),
    ("broadcastmem", 65536),
    ("double_sum_to_all", 8),
    ("double_sum_to_all", 32768),
    ("double_sum_to_all", 1 << 20),
    ("double_sum_reduce", 8),
    ("double_sum_reduce", 32768),
    ("double_sum_reduce", 1 << 20),
];
const CFLAGS: [&str; 5] = ["-O2", "-Wall", "-Wextra", "-Wpedantic", "-Werror"];

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scratch() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("coll_bench");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every `rows` entry printed once as `RESULT <name> <bytes> <npes> <value> us`
/// with a positive value.
fn assert_rows(stdout: &str, rows: &[(&str, u64)], npes: &str) {
    for (name, bytes) in rows {
        let prefix = format!("RESULT {name} {bytes} {npes} ");
        let lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with(&prefix)).collect();
        assert_eq!(lines.len(), 1, "not one line `{prefix}...`:\n{stdout}");
        let f: Vec<&str> = lines[0].split_whitespace().collect();
        let value = f.get(4).and_then(|v| v.parse::<f64>().ok());
        assert!(
            f.len() == 6 && f[5] == "us" && value.is_some_and(|v| v > 0.0),
            "{}",
            lines[0]
        );
    }
}

#[test]
fn collmpi_py_self_test() {
    let out = match Command::new("python3")
        .args(["benches/collmpi.py", "--self-test"])
        .current_dir(repo())
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            eprintln!("note: python3 cannot run ({e}); test skipped");
            return;
        }
    };
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "collmpi.py --self-test failed:\n{text}");
    assert!(text.contains("collmpi.py self-test: ok"), "{text}");
}

#[test]
fn coll_prints_the_rows_mpi_is_compared_with() {
    let exe = scratch().join("coll");
    let out = Command::new(env!("CARGO_BIN_EXE_oshcc"))
        .args(CFLAGS)
        .arg(repo().join("benches/c/coll.c"))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "coll.c does not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // 2 ms per measurement; coll.c checks every row and exits 1 on a wrong value.
    let run = common::oshrun(&["--timeout", "50", "-np", "2", exe.to_str().unwrap(), "0.002"]);
    assert_eq!(run.code, Some(0), "coll at 2 PEs:\n{}{}", run.stdout, run.stderr);
    assert_rows(&run.stdout, &COLL_NEW_ROWS, "2");
}

#[test]
fn mpi_coll_prints_every_row() {
    if ["mpicc", "mpirun"].iter().any(|t| common::mpi::on_path(t).is_none()) {
        eprintln!("note: mpicc or mpirun not on PATH; test skipped");
        return;
    }
    let exe = scratch().join("mpi_coll");
    let out = Command::new("mpicc")
        .args(CFLAGS)
        .arg(repo().join("benches/c/mpi_coll.c"))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "mpi_coll.c does not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Shared memory, as compare.py runs it (its OMPI_ENV).
    let mut cmd = common::mpi::mpirun();
    cmd.args(["--oversubscribe", "-np", "2"])
        .arg(&exe)
        .arg("0.002")
        .env("OMPI_MCA_opal_common_ucx_opal_mem_hooks", "0")
        .env("UCX_TLS", "self,sm")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (out, killed) = common::mpi::run_with_watchdog(cmd, Duration::from_secs(60)).unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !killed && out.status.success(),
        "mpi_coll at 2 ranks (killed: {killed}, {}):\n{stdout}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert_rows(&stdout, &MPI_ROWS, "2");
}
