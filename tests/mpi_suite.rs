//! Runs the part of the C suite that makes sense across nodes through the
//! MPI path, on one host: each program is compiled with this build's `oshcc`
//! and started by Open MPI's `mpirun` directly (not `oshrun`) with the flags
//! that keep MPI itself off shared memory (TCP for messages, UCX over TCP for
//! one-sided communication), as the [`JOBS`] its `np` directive allows: 2 and
//! 4 PEs with `RSHMEM_NODE_SIZE=1` (every peer on another virtual node), 4
//! with `=2` (pairs of PEs share memory, the rest is remote); its other
//! directives are honoured (docs/test-directives.md), its variants run at one
//! job ([`VARIANT_JOBS`]). The programs about pSync carry the strategies as
//! variants, and [`EVERY_STRATEGY`] adds them to one more.
//!
//! Every run is made under both engines to the other nodes
//! (`RSHMEM_REMOTE=ucx` and `=mpi`, trials named `remote=ucx`/`remote=mpi`);
//! without UCX only the MPI runs are made, with a line saying so, or a
//! failing test with `RSHMEM_REQUIRE_UCX=1` (set by CI).
//!
//! Without MPI the suite prints one line saying it was skipped and why;
//! with `RSHMEM_REQUIRE_MPI=1` (set by CI) missing MPI fails it instead.

mod common;

use common::c_programs::{Launch, Program, Tools, discover, run_launched};
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

/// The jobs each program runs as (those its `np` directive allows): PEs and
/// virtual node size (`RSHMEM_NODE_SIZE`): every peer remote at 2 and 4
/// PEs, and hybrid, two nodes of two PEs (2 PEs on one node of 2 would be
/// shared memory only).
const JOBS: [(usize, usize); 3] = [(2, 1), (4, 1), (4, 2)];

/// The job of a program's variant runs (pSync strategies, algorithms): the
/// first of these its directives allow, the one that uses both paths if it
/// can. Every variant at every job would take about twice as long.
const VARIANT_JOBS: [(usize, usize); 2] = [(4, 2), (2, 1)];

/// The programs, by `c_tests/` group and name: those of
/// tests/check_transport.rs (whose list says what it leaves out and why:
/// programs that need load/store access to every PE) and the programs
/// written for behaviour across nodes (`nbi_many`, `amo_mixed_domains`,
/// `signal_order_cross`, `progress_compute`). Left out besides, as they
/// assume one node: `unit/team_ctx` and `apps/psync_stress` (they check that
/// `SHMEM_TEAM_SHARED` is the world); as too long over TCP:
/// `unit/amo_contention` (about 3 million remote atomics; the mixed-domain
/// contention is `amo_mixed_domains`).
const PROGRAMS: &[&str] = &[
    // RMA
    "unit/put_get",
    "unit/p_g",
    "unit/iput_iget",
    "unit/sized_mem",
    "unit/malloc_no_barrier",
    "unit/oshmem_names",
    "unit/quiet_test",
    "unit/alltoall_global_nb",
    // Sandia OpenSHMEM's counting puts and performance counters
    "unit/ct_counting",
    "unit/pcntr",
    "unit/nbi",
    "unit/nbi_many",
    "unit/fence",
    "unit/quiet",
    // atomics
    "unit/amo_std",
    "unit/amo_bitwise",
    "unit/amo_every_width",
    "unit/amo_ext",
    "unit/amo_nbi",
    "unit/amo_mixed_domains",
    // signals
    "unit/signal_put",
    "unit/signal_set_add",
    "unit/signal_order_cross",
    "unit/signal_quiet_third",
    // waits and progress
    "unit/wait_test",
    "unit/p2p_sets",
    "unit/p2p_remote",
    "unit/progress_compute",
    "unit/accessible",
    // locks
    "unit/lock_mutex",
    "unit/lock_test",
    "unit/lock_two",
    "unit/lock_hammer",
    "unit/lock_table",
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
    // notification sets
    "unit/notify_semantics",
    // threads of one PE issuing at once (SHMEM_THREAD_MULTIPLE)
    "unit/ctx_threads",
    "unit/sem_threads",
    "unit/notify_threads",
    // finalize and initialise again (the engine and MPI stay open from one
    // round to the next), nested finalizes, a PE killed between its last
    // finalize and its exit
    "unit/reinit_cycles",
    "unit/nested_finalize_barrier",
    "errors/kill_after_finalize",
    // a PE that exits without shmem_finalize: mid-loop, and holding a lock
    "errors/exit_mid_loop",
    "errors/exit_holding_lock_queued",
    "errors/exit_mid_wait",
    // checked collective arguments: correct calls pass, disagreeing ones end the job
    "unit/check_collectives_ok",
    "errors/check_kind_barrier_bcast",
    "errors/check_bcast_root",
    "errors/check_split_strided",
    "errors/check_aset_bcast_root",
    "errors/check_aset_reduce_op",
    // a team split's arguments, compared always (across nodes they travel with
    // the split's first step)
    "errors/agree_split_strided",
    "errors/agree_split_stride",
    "errors/agree_split_2d",
    // non-blocking collectives (issue 36): every routine and type, order and
    // completion on overlapping teams, the public branch's names, random
    // interleavings; their variants include RSHMEM_NBC_THREAD=on (a worker per
    // team, the engine started thread-safe) and =off (auto: no worker here)
    "unit/nbc_move",
    "unit/nbc_reduce",
    "unit/nbc_order",
    "unit/nbc_public_branch",
    "unit/nbc_finalize_pending",
    "apps/nbc_stress",
    // applications: QTC (teams of every size, each pSync strategy), a stencil, a semaphore pipeline
    "apps/qtc_check",
    "apps/qtc_resplit",
    "apps/heat1d",
    "apps/sem_pipeline_example",
];

/// Programs that also run under Open MPI's own choice of components (what a
/// user gets from a plain `mpirun` on one host: `osc rdma` over shared
/// memory), at 4 PEs with every peer remote and in pairs: the atomics, whose
/// exactness depends on how the component applies them (4-byte
/// compare-and-swap lost updates there, see `transport::mpi`), and the locks
/// built on them.
const DEFAULT_COMPONENTS: &[&str] = &[
    "unit/amo_every_width",
    "unit/amo_bitwise",
    "unit/amo_mixed_domains",
    "unit/lock_hammer",
    "unit/lock_table",
];

/// Programs whose length is set by `RSHMEM_TEST_ITERS`, and the value they
/// get here over TCP: their one-node count costs minutes there on a 2-core machine,
/// and a test's limit must hold with a wide margin on a loaded one. The
/// counts keep what the programs check (`team_churn` still passes its
/// 1000-round footprint check).
const REMOTE_ITERS: &[(&str, &str)] = &[
    ("unit/team_churn", "1000"),
    ("unit/aset_legacy_idiom", "150"),
    ("unit/amo_every_width", "5"),
];

/// Programs about pSync whose directives do not name the strategies
/// themselves: here they run under every one too (the default run is
/// `traditional`). The QTC programs and `space_disjoint_teams` name them.
const EVERY_STRATEGY: &[&str] = &["unit/aset_barrier_sync"];

/// Why MPI tests cannot run here, if they cannot.
fn missing_mpi() -> Option<String> {
    let found = |tool: &str| {
        Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !found("mpirun") {
        return Some("no `mpirun` on PATH (install an MPI, e.g. openmpi-bin libopenmpi-dev)".into());
    }
    if !found("mpicc") {
        return Some(
            "no `mpicc` on PATH, so the library was built without its MPI part (install libopenmpi-dev)".into(),
        );
    }
    None
}

/// The `mpirun` command for `np` PEs ending the job after `timeout` seconds.
fn mpirun(np: usize, timeout: u32) -> Command {
    let mut c = common::mpi::mpirun();
    c.args(["-np", &np.to_string(), "--timeout", &timeout.to_string()])
        .args(common::mpi::one_host_flags());
    c
}

/// The `mpirun` command for `np` PEs with Open MPI's default components
/// (ranks still yield while they poll: the machine may have fewer cores).
fn mpirun_defaults(np: usize, timeout: u32) -> Command {
    let mut c = common::mpi::mpirun();
    c.args(["-np", &np.to_string(), "--timeout", &timeout.to_string()])
        .args(["--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]);
    c
}

/// `mpirun`'s options passing `name=value` to every PE.
fn mpirun_env(name: &str, value: &str) -> Vec<String> {
    vec!["-x".into(), format!("{name}={value}")]
}

/// A program that reports, on every PE, the job size, whether `shmem_ptr`
/// reaches the next PE and the size of `SHMEM_TEAM_SHARED`.
const PROBE: &str = r#"#include <shmem.h>
#include <stdio.h>
static long x;
int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), next = (me + 1) % n;
    printf("PE %d of %d: shmem_ptr to PE %d: %s\n", me, n, next, shmem_ptr(&x, next) ? "an address" : "NULL");
    printf("PE %d of %d: SHMEM_TEAM_SHARED has %d PEs\n", me, n, shmem_team_n_pes(SHMEM_TEAM_SHARED));
    shmem_finalize();
    return 0;
}
"#;

/// The library bootstraps through MPI under `mpirun` (one job of 4 PEs, not
/// four jobs of 1), `shmem_ptr` reaches exactly the PEs of the same virtual
/// node (none at `RSHMEM_NODE_SIZE=1`, the partner at 2), and
/// `SHMEM_TEAM_SHARED` is the virtual node; the engine to the other nodes
/// is the one `RSHMEM_REMOTE` names (`engine`; unset: UCX when built), as
/// `SHMEM_INFO` (printed by PE 0) says.
fn probe(tools: &Tools, node_size: usize, engine: Option<&str>, ucx_built: bool) -> Result<(), Failed> {
    std::fs::create_dir_all(&tools.out_dir).map_err(|e| e.to_string())?;
    let (source, exe) = (tools.out_dir.join("probe.c"), tools.out_dir.join("probe"));
    std::fs::write(&source, PROBE).map_err(|e| e.to_string())?;
    let cc = Command::new(&tools.oshcc).arg(&source).arg("-o").arg(&exe).output();
    if !cc.as_ref().is_ok_and(|o| o.status.success()) {
        return Err(format!("cannot compile {}: {cc:?}", source.display()).into());
    }
    let mut cmd = mpirun(4, 60);
    cmd.args(mpirun_env("RSHMEM_NODE_SIZE", &node_size.to_string()))
        .args(mpirun_env("SHMEM_INFO", "1"));
    if let Some(e) = engine {
        cmd.args(mpirun_env("RSHMEM_REMOTE", e));
    }
    let out = cmd
        .arg(&exe)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut problems = Vec::new();
    let want_engine = match engine {
        Some("mpi") => "MPI-3 RMA between nodes",
        Some(_) => "UCX between nodes",
        None if ucx_built => "UCX between nodes",
        None => "MPI-3 RMA between nodes",
    };
    // PE 0 prints SHMEM_INFO.
    if !stderr.contains(&format!("rshmem transport: shared memory within a node, {want_engine}")) {
        problems.push(format!("PE 0 did not say its transport is {want_engine:?}"));
    }
    for me in 0..4 {
        let next = (me + 1) % 4;
        let same_node = me / node_size == next / node_size;
        let want = format!(
            "PE {me} of 4: shmem_ptr to PE {next}: {}",
            if same_node { "an address" } else { "NULL" }
        );
        let shared = format!("PE {me} of 4: SHMEM_TEAM_SHARED has {node_size} PEs");
        for want in [want, shared] {
            if !stdout.contains(&want) {
                problems.push(format!("stdout lacks {want:?}"));
            }
        }
    }
    if out.status.success() && problems.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{}\n--- status {:?}\n--- stdout:\n{stdout}--- stderr:\n{}",
        problems.join("\n"),
        out.status.code(),
        stderr
    )
    .into())
}

fn main() {
    let mut args = Arguments::from_args();
    if let Some(why) = missing_mpi() {
        if std::env::var("RSHMEM_REQUIRE_MPI").is_ok_and(|v| v == "1") {
            let t = Trial::test("MPI is installed (RSHMEM_REQUIRE_MPI=1)", move || {
                Err(why.clone().into())
            });
            libtest_mimic::run(&args, vec![t]).exit();
        }
        println!("mpi_suite: the multi-node tests were skipped: {why}");
        return;
    }
    // Jobs of several PEs each on a small machine: one job at a time unless
    // asked otherwise, so that timeouts mean hangs, not a crowded machine.
    args.test_threads.get_or_insert(1);
    let all = discover();
    let tools = Arc::new(Tools {
        oshcc: env!("CARGO_BIN_EXE_oshcc").into(),
        oshcxx: env!("CARGO_BIN_EXE_oshcxx").into(),
        oshrun: env!("CARGO_BIN_EXE_oshrun").into(),
        out_dir: Path::new(env!("CARGO_TARGET_TMPDIR")).join("mpi_suite"),
    });
    let mut trials = Vec::new();
    let engines = match common::mpi::engines("mpi_suite") {
        Ok(e) => e,
        Err(why) => {
            trials.push(Trial::test("UCX is built (RSHMEM_REQUIRE_UCX=1)", move || {
                Err(why.clone().into())
            }));
            vec!["mpi"]
        }
    };
    let ucx_built = engines.contains(&"ucx");
    for k in [1, 2] {
        for engine in [None, Some("mpi"), Some("ucx")] {
            if engine == Some("ucx") && !ucx_built {
                continue;
            }
            let t = tools.clone();
            let name = match engine {
                None => format!("bootstrap through MPI, RSHMEM_NODE_SIZE={k}"),
                Some(e) => format!("bootstrap through MPI, RSHMEM_NODE_SIZE={k} remote={e}"),
            };
            trials.push(Trial::test(name, move || probe(&t, k, engine, ucx_built)));
        }
    }
    for &name in PROGRAMS {
        let p: Arc<Program> = all
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("{name}: no such program under c_tests/"))
            .clone();
        let allowed = |&(np, _): &(usize, usize)| p.spec.np.contains(&np);
        let jobs: Vec<(usize, usize)> = JOBS.into_iter().filter(allowed).collect();
        assert!(!jobs.is_empty(), "{name} runs at neither 2 nor 4 PEs");
        let mut variants: Vec<(String, String)> = p.spec.variants.clone();
        if EVERY_STRATEGY.contains(&name) {
            variants.extend(
                rshmem::psync::STRATEGIES
                    .iter()
                    .filter(|&&s| s != "traditional")
                    .map(|s| ("SHMEM_PSYNC_STRATEGY".into(), s.to_string())),
            );
        }
        let variant_job = VARIANT_JOBS.into_iter().find(allowed);
        let runs = jobs.into_iter().map(|j| (j, None, false)).chain(
            variant_job
                .into_iter()
                .flat_map(|j| variants.iter().map(move |v| (j, Some(v.clone()), false))),
        );
        let defaults = [(4, 1), (4, 2)]
            .into_iter()
            .filter(|j| DEFAULT_COMPONENTS.contains(&name) && allowed(j))
            .map(|j| (j, None, true));
        let runs: Vec<_> = runs.chain(defaults).collect();
        for (((np, k), variant, open_mpi_defaults), &engine) in
            runs.iter().flat_map(|r| engines.iter().map(move |e| (r.clone(), e)))
        {
            let mut trial = match &variant {
                None => format!("{name} np={np} k={k}"),
                Some((var, val)) => format!("{name} np={np} k={k} {var}={val}"),
            };
            if open_mpi_defaults {
                trial.push_str(" open-mpi-defaults");
            }
            trial.push_str(&format!(" remote={engine}"));
            let (p, tools) = (p.clone(), tools.clone());
            trials.push(Trial::test(trial, move || {
                let mut extra = vec![
                    ("RSHMEM_NODE_SIZE".to_string(), k.to_string()),
                    ("RSHMEM_REMOTE".to_string(), engine.to_string()),
                ];
                // Open MPI's default components run over shared memory: fast.
                let tcp = !open_mpi_defaults;
                if let Some((_, n)) = REMOTE_ITERS.iter().find(|(prog, _)| tcp && *prog == p.name) {
                    extra.push(("RSHMEM_TEST_ITERS".into(), n.to_string()));
                }
                let command = move |_: &Path, np: usize, timeout: u32| {
                    if open_mpi_defaults {
                        mpirun_defaults(np, timeout)
                    } else {
                        mpirun(np, timeout)
                    }
                };
                let launch = Launch {
                    command: &command,
                    env_args: Some(mpirun_env),
                    noise: common::mpi::finalize_noise,
                };
                run_launched(&p, &tools, np, variant.as_ref(), &extra, &launch)
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
