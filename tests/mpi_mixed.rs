//! Programs that use MPI and OpenSHMEM together (`c_tests/mpi/`), and the
//! progress thread against a target that computes without library calls
//! (`benches/c/progress_delay.c`), under one-host `mpirun` with Open MPI
//! kept off shared memory (TCP, `osc ucx`).
//!
//! The mixed programs run at 2 and 4 PEs on virtual nodes of 1 PE (every
//! peer remote), of 2 PEs (hybrid), and with every PE on one node:
//! - `mpi_first`: `MPI_Init`, `shmem_init`, both used, `shmem_finalize`, MPI
//!   still usable, `MPI_Finalize`;
//! - `thread_multiple`: `MPI_Init_thread(MPI_THREAD_MULTIPLE)`, then
//!   `shmem_init_thread(SHMEM_THREAD_MULTIPLE)`, threads using both at once;
//! - `shmem_first`: `shmem_init` starts MPI, the program guards `MPI_Init` and
//!   `MPI_Finalize` with `MPI_Initialized`/`MPI_Finalized` (the spec's
//!   interoperability annex wants both models initialised and finalized, in
//!   any order); `shmem_finalize` leaves MPI running (a later `shmem_init`
//!   needs it: the program initialises OpenSHMEM twice), and the program's
//!   guarded `MPI_Finalize` ends it;
//! - `mpi_ends_first`: `MPI_Finalize` before `shmem_finalize` (the annex
//!   allows either order), with MPI started by the program or, given
//!   `shmem-first`, by `shmem_init` (then also with a progress thread).
//!
//! Without `mpirun`, `mpicc` or the MPI shim this prints one line saying so
//! and passes, unless `RSHMEM_REQUIRE_MPI=1` (CI), which makes it fail.

mod common;

use common::mpi::{on_path, one_host_flags, profile_dir, run_with_watchdog};
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(120);
/// How long the target of `progress_delay` computes, in milliseconds.
const COMPUTE_MS: u64 = 500;

/// Why the tests cannot run here, if they cannot.
fn missing() -> Option<String> {
    for tool in ["mpirun", "mpicc"] {
        if on_path(tool).is_none() {
            return Some(format!(
                "no {tool} on PATH (install an MPI, e.g. openmpi-bin libopenmpi-dev)"
            ));
        }
    }
    let shim = profile_dir().join("librshmem_mpi.so");
    if !shim.is_file() {
        return Some(format!(
            "{} was not built (no mpicc when rshmem was built?)",
            shim.display()
        ));
    }
    None
}

/// `mpicc --showme:<what>` split into arguments (Open MPI's wrapper).
fn showme(what: &str) -> Result<Vec<String>, String> {
    let o = Command::new("mpicc")
        .arg(format!("--showme:{what}"))
        .output()
        .map_err(|e| format!("cannot run mpicc: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "mpicc --showme:{what} failed (not Open MPI's wrapper?): {}",
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .map(String::from)
        .collect())
}

/// Compiles `source` (relative to the repository) with rshmem's `oshcc`,
/// plus MPI's flags when `with_mpi`.
fn compile(source: &str, with_mpi: bool) -> Result<PathBuf, String> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mpi_mixed");
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let stem = Path::new(source).file_stem().unwrap().to_string_lossy().into_owned();
    let exe = out.join(&stem);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_oshcc"));
    cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O2"]);
    if with_mpi {
        cmd.args(showme("compile")?);
    }
    cmd.arg("-o").arg(&exe).arg(manifest.join(source));
    if with_mpi {
        cmd.args(showme("link")?).arg("-lpthread");
    }
    let o = cmd.output().map_err(|e| format!("cannot run oshcc: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "compiling {source} failed:\n{}",
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    Ok(exe)
}

/// Each program compiled once, on first use.
fn program(name: &'static str) -> Result<&'static Path, String> {
    type Built = OnceLock<Result<PathBuf, String>>;
    static BUILT: [(&str, Built); 5] = [
        ("mpi_first", OnceLock::new()),
        ("mpi_ends_first", OnceLock::new()),
        ("shmem_first", OnceLock::new()),
        ("thread_multiple", OnceLock::new()),
        ("progress_delay", OnceLock::new()),
    ];
    let (_, cell) = BUILT.iter().find(|(n, _)| *n == name).expect("a known program");
    cell.get_or_init(|| {
        if name == "progress_delay" {
            compile("benches/c/progress_delay.c", false)
        } else {
            compile(&format!("c_tests/mpi/{name}.c"), true)
        }
    })
    .as_deref()
    .map_err(Clone::clone)
}

/// Runs `exe args` as `np` ranks with `env` passed to every rank.
fn mpirun(exe: &Path, np: usize, env: &[(&str, &str)], args: &[&str]) -> Result<Output, Failed> {
    let mut cmd = common::mpi::mpirun();
    cmd.args(one_host_flags()).args(["-np", &np.to_string()]);
    for (k, v) in env {
        cmd.arg("-x").arg(format!("{k}={v}"));
    }
    cmd.arg(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (out, killed) = run_with_watchdog(cmd, TIMEOUT)?;
    if killed {
        return Err(format!("killed after {TIMEOUT:?}\n{}", show(&out)).into());
    }
    Ok(out)
}

fn show(out: &Output) -> String {
    format!(
        "status {}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Virtual nodes: `Some(k)` PEs each, or `None` for every PE on this host.
fn node_env(k: Option<usize>) -> Vec<(&'static str, String)> {
    k.map(|k| vec![("RSHMEM_NODE_SIZE", k.to_string())]).unwrap_or_default()
}

/// A mixed program must end with status 0 and print "<name>: ok <np>"
/// (Open MPI may print "UCX ERROR ... Endpoint timeout" at finalize over
/// TCP with status 0: only the status and the program's line count).
fn run_mixed(
    name: &'static str,
    np: usize,
    k: Option<usize>,
    extra: &[(&str, &str)],
    args: &[&str],
) -> Result<(), Failed> {
    let exe = program(name)?;
    let nodes = node_env(k);
    let mut env: Vec<(&str, &str)> = nodes.iter().map(|(a, b)| (*a, b.as_str())).collect();
    env.extend_from_slice(extra);
    let out = mpirun(exe, np, &env, args)?;
    let want = format!("{name}: ok {np}");
    if !out.status.success() || !String::from_utf8_lossy(&out.stdout).lines().any(|l| l == want) {
        return Err(show(&out).into());
    }
    Ok(())
}

/// A progress thread needs MPI_THREAD_MULTIPLE: a program that started MPI
/// with plain MPI_Init gets rshmem's error, naming the PE (the first PE to
/// fail ends the job with MPI_Abort, so the other may not get to print).
fn progress_thread_needs_multiple() -> Result<(), Failed> {
    let exe = program("mpi_first")?;
    let out = mpirun(
        exe,
        2,
        &[("RSHMEM_NODE_SIZE", "1"), ("SHMEM_PROGRESS_THREAD", "1")],
        &[],
    )?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = |pe: usize| format!("rshmem: shmem_init (PE {pe} of 2): MPI does not provide MPI_THREAD_MULTIPLE");
    if out.status.success() || !(0..2).any(|pe| stderr.contains(&line(pe))) || stderr.contains(" of 1): ") {
        return Err(format!("expected a failure with `{}...` (or PE 1)\n{}", line(0), show(&out)).into());
    }
    Ok(())
}

/// PE 0's put + quiet to PE 1, which computes for COMPUTE_MS, in µs.
fn progress_delay(thread: bool, engine: &str) -> Result<f64, Failed> {
    let exe = program("progress_delay")?;
    let mut env = vec![("RSHMEM_NODE_SIZE", "1"), ("RSHMEM_REMOTE", engine)];
    if thread {
        env.push(("SHMEM_PROGRESS_THREAD", "1"));
    }
    let out = mpirun(exe, 2, &env, &[&COMPUTE_MS.to_string(), "1"])?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().find(|l| l.starts_with("RESULT delay_us "));
    let field = |l: &str, key: &str| -> Option<f64> {
        let words: Vec<&str> = l.split_whitespace().collect();
        words
            .iter()
            .position(|w| *w == key)
            .and_then(|i| words.get(i + 1)?.parse().ok())
    };
    match line.and_then(|l| field(l, "delay_us")) {
        Some(us) if out.status.success() => Ok(us),
        _ => Err(show(&out).into()),
    }
}

/// Without a progress thread the put to a computing target completes only
/// when it stops computing; with one, long before. Only the qualitative
/// fact is asserted, with half the computation as the line between.
fn progress_thread(thread: bool, engine: &str) -> Result<(), Failed> {
    let us = progress_delay(thread, engine)?;
    let half = COMPUTE_MS as f64 * 1e3 / 2.0;
    match (thread, us) {
        (false, us) if us <= half => Err(format!(
            "without a progress thread put+quiet took {us:.0} µs, expected more than {half:.0} µs \
             (the target computes {COMPUTE_MS} ms without calling MPI)"
        )
        .into()),
        (true, us) if us >= half => Err(format!(
            "with SHMEM_PROGRESS_THREAD=1 put+quiet took {us:.0} µs, expected less than {half:.0} µs"
        )
        .into()),
        _ => Ok(()),
    }
}

/// Under UCX, PE 0 connects at start-up only to the peers the start-up's
/// barriers make it talk to: log2(n) for n PEs on nodes of one PE (the
/// barrier over the world of a team spanning nodes is a dissemination), not
/// every PE (the one-node choice for 5 to 64 PEs, a flat tree rooted at PE
/// 0). Read from `SHMEM_INFO`'s "N peers connected", printed at the end of
/// `shmem_init`.
fn peers_at_startup(np: usize) -> Result<(), Failed> {
    let exe = program("mpi_first")?;
    let out = mpirun(
        exe,
        np,
        &[("RSHMEM_NODE_SIZE", "1"), ("RSHMEM_REMOTE", "ucx"), ("SHMEM_INFO", "1")],
        &[],
    )?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let connected = text.lines().find_map(|l| {
        let (before, _) = l.split_once(" peers connected")?;
        before.rsplit(' ').next()?.parse::<usize>().ok()
    });
    let bound = (usize::BITS - (np - 1).leading_zeros()) as usize;
    match connected {
        Some(n) if out.status.success() && n <= bound => Ok(()),
        Some(n) => Err(format!(
            "PE 0 connected {n} peers in shmem_init at {np} PEs, expected at most {bound}\n{}",
            show(&out)
        )
        .into()),
        None => Err(format!("no \"peers connected\" line from SHMEM_INFO=1\n{}", show(&out)).into()),
    }
}

fn main() {
    let args = Arguments::from_args();
    if let Some(why) = missing() {
        if std::env::var("RSHMEM_REQUIRE_MPI").is_ok_and(|v| v == "1") {
            eprintln!("mpi_mixed: RSHMEM_REQUIRE_MPI=1 but {why}");
            std::process::exit(1);
        }
        println!("mpi_mixed: skipped the mixed MPI+OpenSHMEM tests: {why}");
        return;
    }
    let mut trials = Vec::new();
    let engines = match common::mpi::engines("mpi_mixed") {
        Ok(e) => e,
        Err(why) => {
            trials.push(Trial::test("UCX is built (RSHMEM_REQUIRE_UCX=1)", move || {
                Err(why.clone().into())
            }));
            vec!["mpi"]
        }
    };
    // Across virtual nodes under each engine (RSHMEM_REMOTE); on one node
    // there is no engine to choose.
    let setups: Vec<(Option<usize>, Option<&'static str>)> = [Some(1), Some(2)]
        .into_iter()
        .flat_map(|k| engines.iter().map(move |&e| (k, Some(e))))
        .chain([(None, None)])
        .collect();
    let label = |k: Option<usize>, e: Option<&str>| match (k, e) {
        (None, _) => "one node".to_string(),
        (Some(k), None) => format!("k={k}"),
        (Some(k), Some(e)) => format!("k={k} remote={e}"),
    };
    let remote = |e: Option<&'static str>| -> Vec<(&'static str, &'static str)> {
        e.map(|e| vec![("RSHMEM_REMOTE", e)]).unwrap_or_default()
    };
    for name in ["mpi_first", "thread_multiple", "shmem_first", "mpi_ends_first"] {
        for &(k, e) in &setups {
            for np in [2, 4] {
                trials.push(Trial::test(format!("{name} {} np={np}", label(k, e)), move || {
                    run_mixed(name, np, k, &remote(e), &[])
                }));
            }
        }
    }
    for &e in &engines {
        trials.push(Trial::test(
            format!("thread_multiple k=2 remote={e} np=4 progress thread"),
            move || {
                let mut env = remote(Some(e));
                env.push(("SHMEM_PROGRESS_THREAD", "1"));
                run_mixed("thread_multiple", 4, Some(2), &env, &[])
            },
        ));
    }
    let progress_setups: Vec<(Option<usize>, usize, Option<&'static str>)> = [(Some(1), 2), (Some(2), 4)]
        .into_iter()
        .flat_map(|(k, np)| engines.iter().map(move |&e| (k, np, Some(e))))
        .chain([(None, 4, None)])
        .collect();
    for (k, np, e) in progress_setups {
        trials.push(Trial::test(
            format!("mpi_ends_first shmem-first {} np={np} progress thread", label(k, e)),
            move || {
                let mut env = remote(e);
                env.push(("SHMEM_PROGRESS_THREAD", "1"));
                run_mixed("mpi_ends_first", np, k, &env, &["shmem-first"])
            },
        ));
    }
    if engines.contains(&"ucx") {
        trials.push(Trial::test("UCX peers connected at start-up, 8 PEs, k=1", || {
            peers_at_startup(8)
        }));
    }
    trials.push(Trial::test(
        "progress thread needs MPI_THREAD_MULTIPLE",
        progress_thread_needs_multiple,
    ));
    for &e in &engines {
        trials.push(Trial::test(
            format!("computing target, no progress thread, remote={e}"),
            move || progress_thread(false, e),
        ));
        trials.push(Trial::test(
            format!("computing target, progress thread, remote={e}"),
            move || progress_thread(true, e),
        ));
    }
    libtest_mimic::run(&args, trials).exit();
}
