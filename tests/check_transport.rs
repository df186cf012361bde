//! Runs a representative part of the C suite with the library built with the
//! checking transport (cargo feature `check-transport`, see
//! `src/transport/check/`): every operation on another PE is executed by that
//! PE, and any code still reaching another PE's memory around the transport
//! fails. Each program runs at 2 and 4 PEs (those of its `np` directive),
//! with its other directives honoured (docs/test-directives.md).
//!
//! The library and its tools are built by a nested `cargo build` into
//! `<target>/check-transport`, a target directory of its own (so the main
//! build is neither locked nor rebuilt; a second run finds it fresh), and
//! the programs are compiled with that build's `oshcc` and run with its
//! `oshrun`.

mod common;

use common::c_programs::{Program, Tools, discover, run};
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

/// The PE counts each program runs at (those its directives allow).
const NPES: [usize; 2] = [2, 4];

/// The programs, by `c_tests/` group and name. Left out because they check
/// shared-memory answers that the checking transport denies by design (no
/// other PE is reachable by load/store, so `shmem_ptr` and `shmem_team_ptr`
/// give NULL for other PEs); each fails on that check alone:
/// `unit/shmem_ptr`, `unit/globals` and `unit/amo_interop` (loads, stores
/// and C11 atomics through `shmem_ptr`), `unit/team_node` and
/// `unit/team_basics` (`shmem_team_ptr` on the node and shared teams),
/// `unit/space_team_ops` (`shmem_ptr` of space memory on a team member).
/// Left out as not about the transport: `errors/*` (argument checks), but
/// for the lock misuse reports, which the queue lock of jobs that span nodes
/// (chosen here) derives from its own words.
const PROGRAMS: &[&str] = &[
    // RMA
    "unit/put_get",
    "unit/p_g",
    "unit/iput_iget",
    "unit/sized_mem",
    "unit/nbi",
    "unit/fence",
    "unit/quiet",
    // counting puts, performance counters
    "unit/ct_counting",
    "unit/pcntr",
    // atomics
    "unit/amo_std",
    "unit/amo_bitwise",
    "unit/amo_every_width",
    "unit/amo_ext",
    "unit/amo_nbi",
    "unit/amo_contention",
    // signals
    "unit/signal_put",
    "unit/signal_set_add",
    "unit/signal_order",
    "unit/signal_quiet_third",
    // waits
    "unit/wait_test",
    "unit/p2p_sets",
    "unit/p2p_remote",
    // symmetric addresses are remotely accessible without load/store
    "unit/accessible",
    // locks
    "unit/lock_mutex",
    "unit/lock_test",
    "unit/lock_two",
    "unit/lock_hammer",
    "unit/lock_table",
    "errors/lock_set_twice",
    "errors/lock_clear_free",
    "errors/lock_clear_other",
    // the world barrier
    "unit/barrier_stress",
    // every collective kind, on teams and active sets
    "unit/coll_broadcast",
    "unit/coll_collect",
    "unit/coll_reduce",
    "unit/coll_alltoall",
    "unit/coll_scan",
    "unit/coll_back_to_back",
    "unit/bcast_run_ahead",
    "unit/coll_algorithms",
    "unit/ring",
    "unit/aset_alltoall",
    "unit/aset_barrier_sync",
    "unit/aset_broadcast",
    "unit/aset_collect",
    "unit/aset_reduce",
    "unit/aset_legacy_idiom",
    // teams
    "unit/team_many_live",
    "unit/team_ctx",
    "unit/team_split_2d",
    "unit/team_split_strided",
    "unit/team_split_fragmented",
    "unit/team_churn",
    // spaces
    "unit/space_disjoint_teams",
    "unit/space_oshmpi",
    "unit/space_overlapping_teams",
    // semaphores
    "unit/sem_semantics",
    "unit/sem_producers",
    "unit/sem_memput_signal",
    // threads of one PE issuing at once (SHMEM_THREAD_MULTIPLE)
    "unit/ctx_threads",
    "unit/sem_threads",
    // applications: QTC (teams of every size, each pSync strategy), a stencil, a semaphore pipeline
    "apps/qtc_check",
    "apps/qtc_resplit",
    "apps/heat1d",
    "apps/sem_pipeline_example",
];

/// The target directory of the checking build.
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the temporary directory is inside the target directory")
        .join("check-transport")
}

/// Runs `cargo <args>` on this package with the feature `check-transport`,
/// in the checking build's target directory.
fn cargo(args: &[&str]) -> Result<(), String> {
    let (cargo_args, test_args) = match args.iter().position(|&a| a == "--") {
        Some(i) => args.split_at(i),
        None => (args, &[][..]),
    };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let out = Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(cargo_args)
        .args(["--package", "rshmem", "--features", "check-transport", "--target-dir"])
        .arg(target_dir())
        .args(test_args)
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "cargo {} --features check-transport failed:\n{}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ))
}

/// Builds the library and tools with the checking transport; the directory
/// holding them.
fn build_library() -> Result<PathBuf, String> {
    cargo(&["build", "--lib", "--bins"])?;
    Ok(target_dir().join("debug"))
}

/// A program that tells whether `shmem_ptr` reaches the next PE.
const PEER_PTR: &str = r#"#include <shmem.h>
#include <stdio.h>
static long x;
int main(void) {
    shmem_init();
    int next = (shmem_my_pe() + 1) % shmem_n_pes();
    printf("shmem_ptr to PE %d: %s\n", next, shmem_ptr(&x, next) ? "an address" : "NULL");
    shmem_finalize();
    return 0;
}
"#;

/// The programs below run with the checking transport, not shared memory:
/// `shmem_ptr` to another PE is NULL.
fn checking_transport_is_active(tools: &Tools) -> Result<(), Failed> {
    std::fs::create_dir_all(&tools.out_dir).map_err(|e| e.to_string())?;
    let (source, exe) = (tools.out_dir.join("peer_ptr.c"), tools.out_dir.join("peer_ptr"));
    std::fs::write(&source, PEER_PTR).map_err(|e| e.to_string())?;
    let cc = Command::new(&tools.oshcc).arg(&source).arg("-o").arg(&exe).output();
    if !cc.as_ref().is_ok_and(|o| o.status.success()) {
        return Err(format!("cannot compile {}: {cc:?}", source.display()).into());
    }
    let out = Command::new(&tools.oshrun)
        .args(["-np", "2", "--timeout", "30"])
        .arg(&exe)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if out.status.success() && stdout.matches(": NULL").count() == 2 {
        Ok(())
    } else {
        Err(format!(
            "expected NULL on both PEs:\n{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        )
        .into())
    }
}

/// The checking build's tools, built by the first trial that needs them.
fn tools(library: &OnceLock<Result<Tools, String>>) -> Result<&Tools, Failed> {
    library
        .get_or_init(|| {
            let dir = build_library()?;
            Ok(Tools {
                oshcc: dir.join("oshcc"),
                oshcxx: dir.join("oshcxx"),
                oshrun: dir.join("oshrun"),
                out_dir: Path::new(env!("CARGO_TARGET_TMPDIR")).join("check_transport"),
            })
        })
        .as_ref()
        .map_err(|e| Failed::from(e.as_str()))
}

fn main() {
    let args = Arguments::from_args();
    let all = discover();
    let library: Arc<OnceLock<Result<Tools, String>>> = Arc::new(OnceLock::new());
    let lib = library.clone();
    let mut trials = vec![
        Trial::test("shmem_ptr is NULL for other PEs", move || {
            checking_transport_is_active(tools(&lib)?)
        }),
        // The feature's own unit tests (the protocol with two PEs in one
        // process, the peer_addr guard), which a plain `cargo test` does not build.
        Trial::test("unit tests of the checking transport", || {
            Ok(cargo(&["test", "--lib", "--", "transport::check", "heap::"])?)
        }),
    ];
    for &name in PROGRAMS {
        let p: Arc<Program> = all
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("{name}: no such program under c_tests/"))
            .clone();
        let counts: Vec<usize> = NPES.into_iter().filter(|n| p.spec.np.contains(n)).collect();
        assert!(!counts.is_empty(), "{name} runs at neither 2 nor 4 PEs");
        for np in counts {
            for v in std::iter::once(None).chain(p.spec.variants.iter().map(Some)) {
                let trial = match v {
                    None => format!("{name} np={np}"),
                    Some((k, v)) => format!("{name} np={np} {k}={v}"),
                };
                let (p, library, variant) = (p.clone(), library.clone(), v.cloned());
                trials.push(Trial::test(trial, move || {
                    run(&p, tools(&library)?, np, variant.as_ref(), false)
                }));
            }
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
