//! Page tables for other PEs' memory (`src/heap/tables.rs`).
//!
//! - Fast: `tests/c/peer_tables.c` under `SHMEM_PEER_TABLES=1`, where every
//!   collective drops the page tables many times, must still see every
//!   store, put, atomic, alltoall, reduction and lock right, with a second
//!   thread loading from every peer meanwhile; and every PE must report
//!   (`SHMEM_DEBUG`) that it did drop them. At the automatic budget a
//!   4-PE job never drops them.
//! - Scale (512 processes, about 20 s on 2 cores, half a GiB):
//!   `benches/c/mem_scale.c` at 512 PEs must leave the job less than 256 MiB
//!   of page tables after an alltoall (2.08 GiB before the budget, 88 MiB
//!   with it).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const OSHCC: &str = env!("CARGO_BIN_EXE_oshcc");
const OSHRUN: &str = env!("CARGO_BIN_EXE_oshrun");

fn build(src: &str, name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("peer_tables");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join(name);
    let st = Command::new(OSHCC)
        .args(["-O1", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-pthread", "-o"])
        .arg(&exe)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(src))
        .status()
        .unwrap();
    assert!(st.success(), "{src} does not compile");
    exe
}

fn run(exe: &Path, np: usize, env: &[(&str, &str)], args: &[&str], timeout: u32) -> Output {
    let mut cmd = Command::new(OSHRUN);
    cmd.args(["--timeout", &timeout.to_string(), "-np", &np.to_string()]);
    for (k, v) in env {
        cmd.arg("-x").arg(format!("{k}={v}"));
    }
    cmd.arg(exe).args(args);
    cmd.output().unwrap()
}

/// Times each PE says it dropped its page tables, by PE.
fn drops(stderr: &str) -> Vec<(usize, u64)> {
    let mut v: Vec<(usize, u64)> = stderr
        .lines()
        .filter(|l| l.contains("dropped the page tables of other PEs' memory"))
        .map(|l| {
            let pe = l
                .split("(PE ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            let n = l
                .split("memory ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            (pe, n)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn everything_still_works_while_every_collective_drops_the_page_tables() {
    let exe = build("tests/c/peer_tables.c", "peer_tables");
    let churn = [
        ("SHMEM_PEER_TABLES", "1"),
        ("SHMEM_DEBUG", "1"),
        ("SHMEM_CHECK_COLLECTIVES", "0"),
    ];
    for np in [3, 8] {
        let out = run(&exe, np, &churn, &["25"], 120);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(
            out.status.success() && stdout.contains("peer tables ok"),
            "np {np}: {:?}\n{stdout}\n{stderr}",
            out.status
        );
        let d = drops(&stderr);
        assert_eq!(
            d.iter().map(|&(pe, _)| pe).collect::<Vec<_>>(),
            (0..np).collect::<Vec<_>>(),
            "{stderr}"
        );
        // Each of the 25 iterations' alltoall and reduction reaches every
        // other PE, and with a budget of one each new one drops the tables.
        assert!(d.iter().all(|&(_, n)| n >= 25), "np {np}: {d:?}");
    }
    // The automatic budget: a few PEs never drop their tables (no line).
    let out = run(
        &exe,
        4,
        &[("SHMEM_DEBUG", "1"), ("SHMEM_CHECK_COLLECTIVES", "0")],
        &["5"],
        120,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(drops(&stderr), vec![], "{stderr}");
}

#[test]
fn an_alltoall_at_512_pes_leaves_less_than_256_mib_of_page_tables() {
    let exe = build("benches/c/mem_scale.c", "mem_scale");
    let out = run(&exe, 512, &[], &[], 600);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mib = |name: &str| -> f64 {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(&format!("RESULT {name} ")))
            .unwrap_or_else(|| panic!("no {name} in:\n{stdout}"));
        line.split_whitespace().nth(4).unwrap().parse().unwrap()
    };
    let (init, after) = (mib("pte_total_init"), mib("pte_total_alltoall"));
    eprintln!("page tables of 512 PEs: {init:.1} MiB after init, {after:.1} MiB after the alltoall");
    assert!(after < 256.0, "{stdout}");
}
