//! The MPI shim (`librshmem_mpi.so`) on its own: compiles
//! `tests/mpi/shim_probe.c` against `shim.h` with the plain C compiler (the
//! header must need no `mpi.h`), links it to the shim that `build.rs` put
//! beside the library, and runs it under one-host `mpirun` at 2 and 4 ranks
//! with Open MPI kept off shared memory (TCP, `osc ucx`), so every operation
//! crosses the network path.
//!
//! Without `mpirun` or the shim this prints one line saying so and passes,
//! unless `RSHMEM_REQUIRE_MPI=1` (CI), which makes it fail.

mod common;

use common::mpi::{on_path, one_host_flags, profile_dir, run_with_watchdog};
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

const SHIM: &str = "librshmem_mpi.so";
const TIMEOUT: Duration = Duration::from_secs(120);
/// Transfers above 1000 bytes take the shim's split paths.
const CHUNK: [&str; 2] = ["-x", "RSHMEM_MPI_CHUNK=1000"];

/// Why the test cannot run here, if it cannot.
fn missing() -> Option<String> {
    if on_path("mpirun").is_none() {
        return Some("no mpirun on PATH (install an MPI, e.g. openmpi-bin libopenmpi-dev)".into());
    }
    let shim = profile_dir().join(SHIM);
    if !shim.is_file() {
        return Some(format!(
            "{} was not built (no mpicc when rshmem was built?)",
            shim.display()
        ));
    }
    None
}

/// The probe, compiled once with the C compiler (`RSHMEM_CC`, else `cc`).
fn probe() -> Result<&'static Path, String> {
    static PROBE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PROBE
        .get_or_init(|| {
            let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
            let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mpi_shim");
            std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
            let exe = out.join("shim_probe");
            let cc = std::env::var("RSHMEM_CC").ok().filter(|s| !s.trim().is_empty());
            let dir = profile_dir();
            let o = Command::new(cc.as_deref().unwrap_or("cc"))
                .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-I"])
                .arg(manifest.join("src/transport/mpi"))
                .arg("-o")
                .arg(&exe)
                .arg(manifest.join("tests/mpi/shim_probe.c"))
                .arg(format!("-L{}", dir.display()))
                .arg("-lrshmem_mpi")
                .arg(format!("-Wl,-rpath,{}", dir.display()))
                .output()
                .map_err(|e| format!("cannot run the C compiler: {e}"))?;
            if !o.status.success() {
                return Err(format!(
                    "compiling shim_probe.c failed:\n{}",
                    String::from_utf8_lossy(&o.stderr)
                ));
            }
            Ok(exe)
        })
        .as_deref()
        .map_err(Clone::clone)
}

fn run_probe(np: usize) -> Result<(), Failed> {
    let exe = probe()?;
    let mut cmd = common::mpi::mpirun();
    cmd.args(one_host_flags())
        .args(CHUNK)
        .args(["-np", &np.to_string()])
        .arg(exe)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (out, killed) = run_with_watchdog(cmd, TIMEOUT)?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if killed {
        return Err(format!("killed after {TIMEOUT:?}\nstdout:\n{stdout}\nstderr:\n{stderr}").into());
    }
    // Open MPI may print "UCX ERROR ... Endpoint timeout" at finalize with
    // status 0 over TCP: only the status and the probe's own line count.
    let want = format!("shim_probe: ok {np}");
    if !out.status.success() || !stdout.lines().any(|l| l == want) {
        return Err(format!("mpirun: {}\nstdout:\n{stdout}\nstderr:\n{stderr}", out.status).into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    if let Some(why) = missing() {
        if std::env::var("RSHMEM_REQUIRE_MPI").is_ok_and(|v| v == "1") {
            eprintln!("mpi_shim: RSHMEM_REQUIRE_MPI=1 but {why}");
            std::process::exit(1);
        }
        println!("mpi_shim: skipped the MPI shim tests: {why}");
        return;
    }
    let trials = [2, 4]
        .into_iter()
        .map(|np| Trial::test(format!("shim_probe np={np}"), move || run_probe(np)))
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
