//! Helpers shared by the integration tests. Here, for the launcher tests: run
//! `oshrun` with `/bin/sh` scripts as PEs, find their pids, check that they are
//! gone, write states the way the library would. [`c_programs`]: the C test
//! programs and their directives.

#![allow(dead_code)] // each test binary uses a part of them

pub mod c_programs;
pub mod example_job;
pub mod mpi;
pub mod netns;

use rshmem::job::{self, JobHeader, PeInfo, PeSlot};
use std::mem::{offset_of, size_of};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const OSHRUN: &str = env!("CARGO_BIN_EXE_oshrun");
/// No test should come near this; it only keeps a broken launcher from hanging the suite.
pub const WATCHDOG: Duration = Duration::from_secs(60);
/// Loose bound for "the job ended promptly" on a loaded machine.
pub const FAST: Duration = Duration::from_secs(5);

pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

pub fn start(args: &[&str], stdin: Stdio) -> Child {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(OSHRUN);
    // oshrun leaves alone an ending signal its parent ignores (as under
    // `nohup`, which ignores SIGHUP); the tests send them to see it end the
    // job, whatever the test runner was started under.
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            for sig in [libc::SIGHUP, libc::SIGINT, libc::SIGTERM] {
                libc::signal(sig, libc::SIG_DFL);
            }
            Ok(())
        })
    };
    cmd.args(args)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits for `child` with the watchdog and collects its output.
pub fn finish(child: Child, started: Instant) -> Run {
    let pid = child.id() as libc::pid_t;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    let out: Output = match rx.recv_timeout(WATCHDOG) {
        Ok(r) => r.unwrap(),
        Err(_) => {
            // SAFETY: the child is not reaped yet, so the pid is still its own.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("oshrun did not finish within {WATCHDOG:?}");
        }
    };
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: started.elapsed(),
    }
}

pub fn oshrun(args: &[&str]) -> Run {
    let t = Instant::now();
    finish(start(args, Stdio::null()), t)
}

/// `oshrun -np N [opts] /bin/sh -c SCRIPT`.
pub fn sh(np: usize, opts: &[&str], script: &str) -> Run {
    let np = np.to_string();
    let mut args = vec!["-np", &np];
    args.extend_from_slice(opts);
    args.extend_from_slice(&["/bin/sh", "-c", script]);
    oshrun(&args)
}

/// A fresh directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("launcher-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Script prefix: records the PE's pid in `dir/pid.<pe>`.
pub fn record_pid(dir: &Path) -> String {
    let d = dir.display();
    format!("echo $$ > {d}/tmp.$RSHMEM_PE && mv {d}/tmp.$RSHMEM_PE {d}/pid.$RSHMEM_PE; ")
}

/// Waits until `n` PEs have recorded their pids.
pub fn pids(dir: &Path, n: usize) -> Vec<libc::pid_t> {
    let until = Instant::now() + WATCHDOG;
    loop {
        let found: Vec<libc::pid_t> = (0..n)
            .filter_map(|pe| {
                std::fs::read_to_string(dir.join(format!("pid.{pe}")))
                    .ok()?
                    .trim()
                    .parse()
                    .ok()
            })
            .collect();
        if found.len() == n {
            return found;
        }
        assert!(Instant::now() < until, "only {} of {n} PEs started", found.len());
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The pids recorded so far (PEs ended early may not have got to it).
pub fn recorded_pids(dir: &Path) -> Vec<libc::pid_t> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let e = e.ok()?;
            e.file_name().to_str()?.starts_with("pid.").then_some(())?;
            std::fs::read_to_string(e.path()).ok()?.trim().parse().ok()
        })
        .collect()
}

/// True while `pid` is a process that has not died (a zombie counts as dead).
pub fn alive(pid: libc::pid_t) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

pub fn assert_all_gone(pids: &[libc::pid_t]) {
    for &pid in pids {
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists(),
            "PE pid {pid} still exists after oshrun returned"
        );
    }
}

pub fn sorted_lines(s: &str) -> Vec<&str> {
    let mut v: Vec<&str> = s.lines().collect();
    v.sort();
    v
}

/// Shell command storing the 32-bit word `value` at `offset` bytes into this
/// PE's slot of the job file, as the library would.
pub fn store_word(offset_in_slot: usize, value: u32) -> String {
    let slot0 = size_of::<crossbeam_utils::CachePadded<JobHeader>>();
    let at = offset_of!(PeSlot, info) + offset_in_slot;
    let bytes: String = value.to_le_bytes().iter().map(|b| format!("\\{b:03o}")).collect();
    format!(
        "printf '{bytes}' | dd of=/proc/self/fd/$RSHMEM_JOB_FD bs=1 seek=$(({slot0} + $RSHMEM_PE * {} + {at})) \
         conv=notrunc status=none || exit 99; ",
        size_of::<PeSlot>()
    )
}

pub fn set_state(s: job::PeState) -> String {
    store_word(offset_of!(PeInfo, state), s as u32)
}

pub fn set_global_exit(status: u32) -> String {
    store_word(offset_of!(PeInfo, exit_status), status) + &set_state(job::PeState::GlobalExit)
}

/// The CPUs this test process may use, as /proc lists them ("0-1", "3,5").
pub fn own_cpus() -> Vec<usize> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim()
        .to_string();
    let mut cpus = Vec::new();
    for part in list.split(',') {
        match part.split_once('-') {
            Some((a, b)) => cpus.extend(a.parse::<usize>().unwrap()..=b.parse::<usize>().unwrap()),
            None => cpus.push(part.parse().unwrap()),
        }
    }
    cpus
}

/// oshrun in a process group of its own (so the test can stop the whole job
/// without stopping itself), its stderr delivered line by line. Dropping it
/// kills the group, so a failed test leaves no job behind.
pub struct Watched {
    pub child: Child,
    pub lines: mpsc::Receiver<String>,
}

impl Drop for Watched {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            // SAFETY: kill has no memory-safety preconditions; the group is
            // oshrun's (it is not reaped yet) and holds only the job.
            unsafe { libc::kill(-(self.child.id() as libc::pid_t), libc::SIGKILL) };
            let _ = self.child.wait();
        }
    }
}

pub fn start_watched(args: &[&str], env: &[(&str, &str)]) -> Watched {
    let mut cmd = Command::new(OSHRUN);
    cmd.args(args).envs(env.iter().copied());
    watch_command(cmd)
}

/// [`start_watched`] for any command (an `mpirun`, say).
pub fn watch_command(mut cmd: Command) -> Watched {
    use std::io::BufRead;
    use std::os::unix::process::CommandExt;
    let mut child = cmd
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, lines) = mpsc::channel();
    let err = std::io::BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || err.lines().map_while(Result::ok).for_each(|l| drop(tx.send(l))));
    Watched { child, lines }
}

/// The next stderr line containing `needle`, within `limit`.
pub fn line_with(rx: &mpsc::Receiver<String>, needle: &str, limit: Duration) -> Option<String> {
    let until = Instant::now() + limit;
    while let Ok(l) = rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
        if l.contains(needle) {
            return Some(l);
        }
    }
    None
}

pub fn signal(pid: libc::pid_t, sig: libc::c_int) {
    // SAFETY: kill has no memory-safety preconditions; the pids are the test's
    // own children (or their group) and not reaped yet.
    assert_eq!(unsafe { libc::kill(pid, sig) }, 0);
}
