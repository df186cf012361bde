//! The footprint tool's model agrees with real runs: every sequence the tool
//! knows runs under `oshrun -np 8` with every strategy (tests/c/psync_sequences.c),
//! and every PE's `shmemx_psync_footprint` equals the ledger of the same PE in the
//! virtual job (`rshmem::sim`). The non-blocking sequences (`nb-world-8`,
//! `nb-split-8`) start their collectives with the real `shmem_*_nb` calls
//! and wait for them with `shmem_req_wait`, the queued collectives running
//! on the teams' worker threads; the model runs them from its queues.
//!
//! `extra-sync` runs with a pool of 4 arrays here: with 4, every array an iteration
//! reuses was last used before a collective that synchronises every member, so
//! its releases have all arrived and a real run never grows the pool (with 2, a
//! member that leaves a broadcast early may find the array of the reduction
//! before it still unreleased and grow the pool, which depends on timing).

use rshmem::psync::{Ledger, STRATEGIES, Strategy};
use rshmem::sim::{Config, Job, SEQUENCES, sequence};
use std::path::Path;
use std::process::Command;

const OSHCC: &str = env!("CARGO_BIN_EXE_oshcc");
const OSHRUN: &str = env!("CARGO_BIN_EXE_oshrun");
/// PE counts: 8, or the list in `RSHMEM_FOOTPRINT_NPES` (e.g. `2,3,16,64`).
fn pe_counts() -> Vec<usize> {
    std::env::var("RSHMEM_FOOTPRINT_NPES").map_or(vec![8], |v| {
        v.split(',').map(|x| x.trim().parse().expect("a PE count")).collect()
    })
}

/// Sequences: every one the tool knows, or those listed in
/// `RSHMEM_FOOTPRINT_SEQS` (e.g. `nb-world-8,nb-split-8`; the non-blocking
/// sequences take any count, `nb-world-16`).
fn sequences() -> Vec<String> {
    std::env::var("RSHMEM_FOOTPRINT_SEQS").map_or(SEQUENCES.iter().map(|s| s.to_string()).collect(), |v| {
        v.split(',').map(|x| x.trim().to_string()).collect()
    })
}

fn fields(l: &Ledger) -> [u64; 11] {
    [
        l.flags as u64,
        l.flags_peak as u64,
        l.scratch as u64,
        l.scratch_peak as u64,
        l.teams as u64,
        l.teams_peak as u64,
        l.baseline as u64,
        l.baseline_peak as u64,
        l.baseline_never_freed as u64,
        l.collectives,
        l.extra_messages,
    ]
}

const NAMES: [&str; 11] = [
    "flags_current",
    "flags_peak",
    "scratch_current",
    "scratch_peak",
    "teams_current",
    "teams_peak",
    "baseline_current",
    "baseline_peak",
    "baseline_never_freed",
    "collectives",
    "extra_messages",
];

#[test]
fn real_runs_report_what_the_tool_computes() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let exe = dir.join("psync_sequences");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/psync_sequences.c");
    let st = Command::new(OSHCC)
        .args(["-O1", "-Wall", "-Wextra", "-Werror", "-o"])
        .arg(&exe)
        .arg(&src)
        .status()
        .expect("run oshcc");
    assert!(st.success(), "oshcc failed on {}", src.display());

    let mut mismatches = Vec::new();
    for npes in pe_counts() {
        for name in STRATEGIES {
            let strategy = Strategy::from_name(name).unwrap();
            let pool = if *name == "extra-sync" { 4 } else { 2 };
            for seq in &sequences() {
                let out = Command::new(OSHRUN)
                    .args(["--timeout", "120", "-np", &npes.to_string()])
                    .arg(&exe)
                    .arg(seq)
                    .env("SHMEM_PSYNC_STRATEGY", name)
                    .env("SHMEM_PSYNC_POOL", pool.to_string())
                    .output()
                    .expect("run oshrun");
                let stdout = String::from_utf8_lossy(&out.stdout);
                assert!(
                    out.status.success(),
                    "{name} {seq}: oshrun failed ({}):\n{stdout}\n{}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr)
                );
                let mut real = vec![None; npes];
                for line in stdout.lines().filter_map(|l| l.strip_prefix("FP ")) {
                    let v: Vec<u64> = line.split_whitespace().map(|x| x.parse().unwrap()).collect();
                    real[v[0] as usize] = Some(v[1..].to_vec());
                }
                let mut cfg = Config::new(strategy, npes);
                cfg.pool = pool;
                let job = Job::run(cfg, &sequence(seq, npes).expect("a sequence the tool knows"));
                for (pe, l) in job.ledgers.iter().enumerate() {
                    let Some(r) = &real[pe] else {
                        mismatches.push(format!("{name} {seq}: PE {pe} printed no FP line"));
                        continue;
                    };
                    for (i, want) in fields(l).iter().enumerate() {
                        if r[i] != *want {
                            mismatches.push(format!(
                                "{name} {seq} np {npes} PE {pe}: {} is {} in the real run, {} in the tool",
                                NAMES[i], r[i], want
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}
