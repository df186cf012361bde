//! What the tests that run jobs under Open MPI's `mpirun` share: the options
//! that keep MPI off shared memory, finding the tools, a watchdog, and the
//! noise Open MPI prints at a successful finalize.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Open MPI 4.1 kept off shared memory (notes 4.1, 4.3): messages over
/// `btl tcp`, one-sided communication through `osc ucx` (Open MPI would pick
/// its shared-memory window on one host otherwise), and ranks that yield
/// while they poll, since the machine may have fewer cores than ranks (busy
/// polling makes a veth pair a thousand times slower). UCX itself must be
/// told to use TCP as well: [`UCX_TCP`].
pub const TCP_MCA: [&str; 12] = [
    "--mca",
    "pml",
    "ob1",
    "--mca",
    "btl",
    "tcp,self",
    "--mca",
    "osc",
    "ucx",
    "--mca",
    "mpi_yield_when_idle",
    "1",
];

/// `mpirun` options passing UCX's transport choice to every rank.
pub const UCX_TCP: [&str; 2] = ["-x", "UCX_TLS=tcp"];

/// The options of a one-host job with every rank on the network path:
/// [`TCP_MCA`], [`UCX_TCP`], and more ranks than cores allowed.
pub fn one_host_flags() -> Vec<&'static str> {
    let mut flags = vec!["--oversubscribe"];
    flags.extend(TCP_MCA);
    flags.extend(UCX_TCP);
    flags
}

/// `mpirun`, allowed to run as root (CI does).
pub fn mpirun() -> Command {
    let mut c = Command::new("mpirun");
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        c.arg("--allow-run-as-root");
    }
    c
}

/// The directory of this build's tools and libraries (`target/<profile>`).
pub fn profile_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_oshcc"))
        .parent()
        .expect("oshcc is in a directory")
        .to_path_buf()
}

/// `name` on `PATH`, if it is there.
pub fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file())
}

/// Open MPI 4.1 with UCX over TCP may report a failed endpoint flush or
/// disconnect at `MPI_Finalize` of a job that succeeded (exit status 0), on
/// stdout or stderr.
pub fn finalize_noise(line: &str) -> bool {
    line.contains("UCX") && (line.contains("Endpoint timeout") || line.contains("disconnect"))
}

/// Runs `cmd` (stdout and stderr piped by the caller) in a process group of
/// its own, killing the whole group after `timeout`. Returns its output and
/// whether it was killed.
pub fn run_with_watchdog(mut cmd: Command, timeout: Duration) -> Result<(Output, bool), String> {
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let child = cmd
        .spawn()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))?;
    let pid = child.id() as libc::pid_t;
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let done = done.clone();
        std::thread::spawn(move || {
            let started = Instant::now();
            while !done.load(Ordering::Relaxed) {
                if started.elapsed() >= timeout {
                    // SAFETY: the group is the job this test started.
                    unsafe { libc::kill(-pid, libc::SIGKILL) };
                    return true;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            false
        })
    };
    let out = child.wait_with_output();
    done.store(true, Ordering::Relaxed);
    let killed = watchdog.join().unwrap_or(false);
    Ok((out.map_err(|e| format!("{:?}: {e}", cmd.get_program()))?, killed))
}

/// The engines to other nodes a multi-node test runs under
/// (`RSHMEM_REMOTE`): MPI-3 RMA always, and UCX when its shim was built. A
/// missing UCX is a line on standard output, or, with `RSHMEM_REQUIRE_UCX=1`
/// (CI), an `Err` the caller turns into a failing test.
pub fn engines(test: &str) -> Result<Vec<&'static str>, String> {
    if profile_dir().join("librshmem_ucx.so").exists() {
        return Ok(vec!["ucx", "mpi"]);
    }
    let why = "librshmem_ucx.so was not built: UCX's headers (Debian libucx-dev) were missing when rshmem was built";
    if std::env::var("RSHMEM_REQUIRE_UCX").is_ok_and(|v| v == "1") {
        return Err(format!("RSHMEM_REQUIRE_UCX=1 but {why}"));
    }
    println!("{test}: the runs under the UCX engine were skipped: {why}");
    Ok(vec!["mpi"])
}
