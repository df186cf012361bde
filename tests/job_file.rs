//! The job's memory file belongs to its user alone: mode 0600 (not the 0777
//! `memfd_create` gives), so that the kernel's access checks on
//! `/proc/PID/fd` are not its only protection. Checked on the file of a job
//! started by `oshrun`, of a 1-PE job started without it, and of a node of
//! an MPI job (created by the node's first PE and handed to the others).
//!
//! As root (CI), a child process that becomes another user (`nobody`, uid
//! 65534) must fail to open it twice over: through `/proc/PID/fd/N` of a PE
//! (refused by `/proc`, whatever the mode), and through its own
//! `/proc/self/fd/N` of a descriptor it inherited (refused by the mode alone:
//! a process may always look at its own descriptors, and reopening one
//! checks the file's permissions). Not as root, that part is skipped, saying so.
//!
//! Without `mpirun`, `mpicc` or the MPI shim the MPI case prints why and
//! passes, unless `RSHMEM_REQUIRE_MPI=1` (CI).

mod common;

use common::mpi::{on_path, one_host_flags, profile_dir};
use std::ffi::CString;
use std::io::BufRead;
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{OnceLock, mpsc};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);
/// The user the child becomes: `nobody` on most systems.
const OTHER_UID: libc::uid_t = 65534;

/// Says where each PE runs, then waits until the file named by its argument exists.
const PROGRAM: &str = r#"#include <shmem.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
    shmem_init();
    printf("PE %d pid %d\n", shmem_my_pe(), (int)getpid());
    fflush(stdout);
    for (int i = 0; argc > 1 && i < 6000 && access(argv[1], F_OK) != 0; i++)
        usleep(10000);
    shmem_finalize();
    return 0;
}
"#;

fn out_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("job_file")
}

fn program() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        std::fs::create_dir_all(out_dir()).unwrap();
        let (source, exe) = (out_dir().join("wait.c"), out_dir().join("wait"));
        std::fs::write(&source, PROGRAM).unwrap();
        let cc = Command::new(env!("CARGO_BIN_EXE_oshcc"))
            .arg(&source)
            .arg("-o")
            .arg(&exe)
            .output()
            .unwrap();
        assert!(cc.status.success(), "cannot compile {}: {cc:?}", source.display());
        exe
    })
}

/// A job in a process group of its own, killed with it on drop.
struct Job {
    child: Child,
    lines: mpsc::Receiver<String>,
    go: PathBuf,
}

impl Job {
    /// Starts the program with `launcher` (none: by itself, a 1-PE job).
    fn start(launcher: Option<Command>, name: &str) -> Job {
        let go = out_dir().join(format!("go-{name}-{}", std::process::id()));
        let _ = std::fs::remove_file(&go);
        let mut cmd = match launcher {
            Some(mut c) => {
                c.arg(program());
                c
            }
            None => Command::new(program()),
        };
        let mut child = cmd
            .arg(&go)
            .env_remove("LD_LIBRARY_PATH")
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let (tx, lines) = mpsc::channel();
        let out = std::io::BufReader::new(child.stdout.take().unwrap());
        std::thread::spawn(move || out.lines().map_while(Result::ok).for_each(|l| drop(tx.send(l))));
        Job { child, lines, go }
    }

    /// The pids of the `n` PEs, once each has finished `shmem_init`.
    fn pes(&self, n: usize) -> Vec<libc::pid_t> {
        let mut pids = vec![0; n];
        for _ in 0..n {
            let line = self.lines.recv_timeout(LIMIT).expect("a PE's line");
            let (pe, pid) = line
                .strip_prefix("PE ")
                .and_then(|r| r.split_once(" pid "))
                .unwrap_or_else(|| panic!("unexpected line {line:?}"));
            pids[pe.parse::<usize>().unwrap()] = pid.trim().parse().unwrap();
        }
        pids
    }

    /// Lets the PEs finish and expects the job to succeed.
    fn finish(mut self) {
        std::fs::write(&self.go, "").unwrap();
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status:?}");
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.go);
        if self.child.try_wait().ok().flatten().is_none() {
            // SAFETY: kill has no memory-safety preconditions; the group is
            // the job's (its leader is not reaped yet).
            unsafe { libc::kill(-(self.child.id() as libc::pid_t), libc::SIGKILL) };
            let _ = self.child.wait();
        }
    }
}

/// `/proc/PID/fd/N` of the job file that `pid` holds.
fn job_file_of(pid: libc::pid_t) -> PathBuf {
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).unwrap();
    fds.flatten()
        .map(|e| e.path())
        .find(|p| std::fs::read_link(p).is_ok_and(|t| t.to_string_lossy().starts_with("/memfd:rshmem-job")))
        .unwrap_or_else(|| panic!("PE pid {pid} holds no /memfd:rshmem-job"))
}

/// Checks the mode of the job file every PE in `pids` holds (one file), and
/// as root that another user can open it neither way.
fn check(pids: &[libc::pid_t]) {
    let files: Vec<PathBuf> = pids.iter().map(|&p| job_file_of(p)).collect();
    let meta: Vec<std::fs::Metadata> = files.iter().map(|f| std::fs::metadata(f).unwrap()).collect();
    assert!(meta.iter().all(|m| m.ino() == meta[0].ino()), "the PEs hold one file");
    let mode = meta[0].mode() & 0o7777;
    assert_eq!(mode, 0o600, "mode {mode:o} of {}", files[0].display());
    assert_eq!(mode & 0o077, 0, "nobody but the owner has access");
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        println!("job_file: not root, so the open by another user was not tried");
        return;
    }
    let held = std::fs::File::open(&files[0]).unwrap();
    let via_pe = CString::new(files[0].as_os_str().as_encoded_bytes()).unwrap();
    let via_self = CString::new(format!("/proc/self/fd/{}", held.as_raw_fd())).unwrap();
    let (pe_open, self_open) = as_other_user(&via_pe, &via_self);
    let refused = |r: Result<(), i32>| matches!(r, Err(libc::EACCES | libc::EPERM));
    assert!(refused(pe_open), "uid {OTHER_UID} opening {via_pe:?}: {pe_open:?}");
    assert!(
        refused(self_open),
        "uid {OTHER_UID} reopening its inherited descriptor: {self_open:?} (the mode does not refuse)"
    );
}

/// In a child become uid/gid [`OTHER_UID`]: opens `a` then `b` read-only.
/// Each result is Ok(()) when opened, or Err(errno).
fn as_other_user(a: &CString, b: &CString) -> (Result<(), i32>, Result<(), i32>) {
    // SAFETY: the child calls only async-signal-safe functions (setgroups,
    // setgid, setuid, open, __errno_location, _exit) on memory prepared
    // before the fork, then exits.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork: {}", std::io::Error::last_os_error());
    if pid == 0 {
        // SAFETY: as above.
        unsafe {
            if libc::setgroups(0, std::ptr::null()) != 0 || libc::setgid(OTHER_UID) != 0 || libc::setuid(OTHER_UID) != 0
            {
                libc::_exit(255);
            }
            let try_open = |path: &CString| {
                let fd = libc::open(path.as_ptr(), libc::O_RDONLY);
                if fd >= 0 { 0 } else { *libc::__errno_location() }
            };
            let (ra, rb) = (try_open(a), try_open(b));
            // Errno values of interest are small: pack both in the status.
            libc::_exit((ra.min(15) << 4) | rb.min(15));
        }
    }
    let mut status = 0;
    // SAFETY: waits for the child just forked; status is a valid out-pointer.
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    assert!(libc::WIFEXITED(status), "child status {status:#x}");
    let code = libc::WEXITSTATUS(status);
    assert_ne!(code, 255, "the child could not become uid {OTHER_UID}");
    let errno = |e: i32| if e == 0 { Ok(()) } else { Err(e) };
    (errno(code >> 4), errno(code & 15))
}

#[test]
fn the_job_file_of_oshrun_is_the_users_only() {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_oshrun"));
    cmd.args(["-np", "2", "--timeout", "60"]);
    let job = Job::start(Some(cmd), "oshrun");
    check(&job.pes(2));
    job.finish();
}

#[test]
fn the_job_file_of_a_1_pe_job_is_the_users_only() {
    let job = Job::start(None, "direct");
    check(&job.pes(1));
    job.finish();
}

#[test]
fn the_node_file_of_an_mpi_job_is_the_users_only() {
    let missing = ["mpirun", "mpicc"]
        .into_iter()
        .find(|t| on_path(t).is_none())
        .map(|t| format!("no {t} on PATH"))
        .or_else(|| {
            let shim = profile_dir().join("librshmem_mpi.so");
            (!shim.is_file()).then(|| format!("{} was not built", shim.display()))
        });
    if let Some(why) = missing {
        let required = std::env::var("RSHMEM_REQUIRE_MPI").is_ok_and(|v| v == "1");
        assert!(!required, "RSHMEM_REQUIRE_MPI=1 but {why}");
        println!("job_file: the MPI case was skipped: {why}");
        return;
    }
    let mut cmd = common::mpi::mpirun();
    cmd.args(["-np", "2", "--timeout", "60"]).args(one_host_flags());
    let job = Job::start(Some(cmd), "mpi");
    check(&job.pes(2));
    job.finish();
}
