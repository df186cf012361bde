//! Two real nodes on one machine (tests/netns/netns.sh): two network
//! namespaces joined by a veth pair, each with its own hostname (`nodea`,
//! `nodeb`), and Open MPI's `mpirun` starting the far node's daemon through
//! `tests/netns/fake-ssh`. Used by `tests/netns.rs` (jobs across the nodes)
//! and `tests/netfault.rs` (the link between them going down).
//!
//! Needs root, `ip netns`, `unshare` and Open MPI; without them [`can_run`]
//! prints one line saying why the tests skip, unless `RSHMEM_REQUIRE_MPI=1`
//! (CI), which makes that a failure. The namespaces, and every process in
//! them, are removed when a [`Nodes`] is dropped, passed or not.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const OSHRUN: &str = env!("CARGO_BIN_EXE_oshrun");
pub const OSHCC: &str = env!("CARGO_BIN_EXE_oshcc");
pub const HOSTS: &str = "10.77.0.1:2,10.77.0.2:2";
/// A job that has not ended by then is killed (with everything in the namespaces).
pub const WATCHDOG: Duration = Duration::from_secs(120);

pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/netns")
}

/// Says why the test cannot run: one line and `false`, or a failure under
/// `RSHMEM_REQUIRE_MPI=1`.
pub fn cannot_run(why: &str) -> bool {
    if std::env::var("RSHMEM_REQUIRE_MPI").is_ok_and(|v| v == "1") {
        panic!("multi-node test cannot run: {why} (RSHMEM_REQUIRE_MPI=1)");
    }
    // Once per run, and past the test harness's capture of eprintln!.
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        let line = format!("netns: skipped the two-node tests: {why}\n");
        let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
    });
    false
}

fn succeeds(cmd: &mut Command) -> bool {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether this machine can run the tests (else see [`cannot_run`]).
pub fn can_run() -> bool {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return cannot_run("network namespaces need root");
    }
    if !succeeds(Command::new("ip").args(["netns", "list"])) {
        return cannot_run("'ip netns' is not available (install iproute2)");
    }
    if !succeeds(Command::new("unshare").arg("--version")) {
        return cannot_run("'unshare' is not available (util-linux)");
    }
    let version = Command::new("mpirun").arg("--version").output();
    if !version.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("Open MPI")) {
        return cannot_run("no Open MPI mpirun on PATH (install openmpi-bin libopenmpi-dev)");
    }
    if !succeeds(Command::new("mpicc").arg("--showme:version")) {
        return cannot_run("no mpicc on PATH (install libopenmpi-dev)");
    }
    true
}

/// The two nodes of one test, removed on drop.
pub struct Nodes {
    tag: String,
}

impl Nodes {
    /// Sets them up; `which` tells the tests of one run apart.
    pub fn up(which: char) -> Nodes {
        let tag = format!("{:x}{which}", std::process::id());
        let nodes = Nodes { tag };
        let out = Command::new(dir().join("netns.sh"))
            .args(["up", &nodes.tag])
            .output()
            .expect("run netns.sh");
        assert!(
            out.status.success(),
            "netns.sh up {} failed: {}",
            nodes.tag,
            String::from_utf8_lossy(&out.stderr)
        );
        nodes
    }

    pub fn namespace(&self, node: char) -> String {
        format!("rshmem_{node}_{}", self.tag)
    }

    /// `program args` on nodea as the launching shell would run it, with the
    /// remote-start agent and `env`, its output piped.
    pub fn command(&self, program: &str, args: &[&str], env: &[(&str, &str)]) -> Command {
        let mut cmd = Command::new("ip");
        cmd.args(["netns", "exec", &self.namespace('a'), "unshare", "--uts", "sh", "-c"])
            .arg("hostname nodea && exec \"$0\" \"$@\"")
            .arg(program)
            .args(args)
            .env("RSHMEM_NETNS_TAG", &self.tag)
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            // cargo's LD_LIBRARY_PATH may hold a stale librshmem: run programs
            // as a user would (rpath).
            .env_remove("LD_LIBRARY_PATH")
            .env_remove("RSHMEM_LAUNCHER")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    /// Runs [`command`](Self::command) to its end; kills everything in the
    /// namespaces if the watchdog fires.
    pub fn run(&self, program: &str, args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
        let child = self.command(program, args, env).spawn().expect("run ip netns exec");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || tx.send(child.wait_with_output()));
        let out: Output = match rx.recv_timeout(WATCHDOG) {
            Ok(r) => r.expect("wait for the job"),
            // Dropping self (unwinding) kills what runs in the namespaces.
            Err(_) => panic!("{program} {args:?} did not end within {WATCHDOG:?}"),
        };
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// Takes the link between the nodes down or up (nodea's end of the veth
    /// pair: both ends lose their carrier).
    pub fn link(&self, up: bool) {
        let out = Command::new(dir().join("netns.sh"))
            .args(["link", &self.tag, if up { "up" } else { "down" }])
            .output()
            .expect("run netns.sh");
        assert!(
            out.status.success(),
            "netns.sh link {} failed: {}",
            self.tag,
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The processes in either namespace whose name (`/proc/PID/comm`) is `name`.
    pub fn processes(&self, name: &str) -> Vec<String> {
        let mut found = Vec::new();
        for node in ['a', 'b'] {
            let out = Command::new("ip")
                .args(["netns", "pids", &self.namespace(node)])
                .output()
                .expect("run ip netns pids");
            for pid in String::from_utf8_lossy(&out.stdout).split_whitespace() {
                let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
                if comm.trim_end() == name {
                    found.push(format!("{pid} on node{node}"));
                }
            }
        }
        found
    }

    /// The pids still in either namespace, waiting up to `patience` for them to go.
    pub fn leftovers(&self, patience: Duration) -> Vec<String> {
        let until = Instant::now() + patience;
        loop {
            let mut pids = Vec::new();
            for node in ['a', 'b'] {
                let out = Command::new("ip")
                    .args(["netns", "pids", &self.namespace(node)])
                    .output()
                    .expect("run ip netns pids");
                pids.extend(
                    String::from_utf8_lossy(&out.stdout)
                        .split_whitespace()
                        .map(String::from),
                );
            }
            if pids.is_empty() || Instant::now() >= until {
                return pids;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Nodes {
    fn drop(&mut self) {
        let ok = Command::new(dir().join("netns.sh"))
            .args(["down", &self.tag])
            .status()
            .is_ok_and(|s| s.success());
        if !ok && !std::thread::panicking() {
            panic!("netns.sh down {} failed", self.tag);
        }
    }
}

/// `text` without UCX's complaints at `MPI_Finalize` over TCP
/// ([`super::mpi::finalize_noise`]), which Open MPI 4.1.4 with UCX 1.13
/// prints now and then on stdout while exiting 0 all the same.
pub fn without_finalize_noise(text: &str) -> String {
    text.lines()
        .filter(|l| !super::mpi::finalize_noise(l))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Compiles `source` with `compiler` into the test's scratch directory.
pub fn compile(compiler: &str, source: &Path, flags: &[&str]) -> String {
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("netns-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let exe = out_dir.join(source.file_stem().unwrap());
    let out = Command::new(compiler)
        .args(["-O1", "-Wall", "-Wextra", "-Werror"])
        .args(flags)
        .arg(source)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {compiler}: {e}"));
    assert!(
        out.status.success(),
        "{compiler} {}: {}",
        source.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    exe.to_str().unwrap().to_string()
}

/// The variables that make `oshrun --host` across the namespaces work: the
/// agent and [`super::mpi::TCP_MCA`] as Open MPI's environment (mpirun passes
/// `OMPI_MCA_*` on), `UCX_TLS` (oshrun passes `UCX_*` on).
pub fn rshmem_env(agent: &str) -> Vec<(&str, &str)> {
    vec![
        ("OMPI_MCA_plm_rsh_agent", agent),
        ("OMPI_MCA_pml", "ob1"),
        ("OMPI_MCA_btl", "tcp,self"),
        ("OMPI_MCA_osc", "ucx"),
        ("OMPI_MCA_mpi_yield_when_idle", "1"),
        ("UCX_TLS", "tcp"),
    ]
}
