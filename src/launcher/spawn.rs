//! Creating the job: its memory file, and the PE processes.

use crate::heap::segment;
use crate::job;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The job's memory file, mapped in oshrun for reading the PEs' slots.
pub(crate) struct JobMem {
    fd: OwnedFd,
    map: segment::Mapping,
    npes: usize,
}

impl JobMem {
    /// Creates the memory file of a job of `npes` PEs, identified by
    /// `job_id`, and writes its header.
    pub(crate) fn create(npes: usize, job_id: &str) -> io::Result<JobMem> {
        let mut fd = segment::create_memfd(job::FILE_NAME)?;
        if fd.as_raw_fd() < 3 {
            // Descriptors 0-2 are replaced in the children by their stdio; move
            // the file above them (only possible if oshrun started without them).
            // SAFETY: duplicates a valid descriptor; the result is checked.
            let moved = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 3) };
            if moved < 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: F_DUPFD_CLOEXEC returned a new descriptor.
            fd = unsafe { OwnedFd::from_raw_fd(moved) };
        }
        let len = job::control_len(npes);
        segment::set_len(fd.as_raw_fd(), len as u64)?;
        let map = segment::map_shared(&fd, 0, len)?;
        let mem = JobMem { fd, map, npes };
        let c = mem.control();
        c.header().npes.store(npes as u32, std::sync::atomic::Ordering::Release);
        c.header()
            .id_hash
            .store(job::id_hash(job_id), std::sync::atomic::Ordering::Release);
        c.header().magic.store(job::MAGIC, std::sync::atomic::Ordering::Release);
        Ok(mem)
    }

    /// The typed view of the control block.
    pub(crate) fn control(&self) -> job::Control {
        // SAFETY: the mapping is page aligned, control_len(npes) bytes long, lives
        // as long as self (views are only used while the JobMem exists, in
        // `run`), and holds only atomics.
        unsafe { job::Control::from_raw(self.map.ptr, self.npes) }
    }

    pub(crate) fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

impl Drop for JobMem {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in create.
        unsafe { libc::munmap(self.map.ptr as *mut libc::c_void, self.map.len) };
    }
}

/// A started PE.
pub(crate) struct Spawned {
    pub pid: libc::pid_t,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
}

/// Everything the PEs of one job share.
pub(crate) struct Plan<'a> {
    pub program: &'a Path,
    pub argv0: &'a OsStr,
    pub args: &'a [OsString],
    pub env: &'a [(OsString, OsString)],
    pub npes: usize,
    pub job_id: String,
    pub job_fd: RawFd,
    /// The open-file limit to give back to the PEs (oshrun may have raised its own).
    pub nofile: Option<libc::rlimit>,
    /// The CPUs oshrun may run on, in order.
    pub cpus: &'a [usize],
    /// Pin PE i to `cpus[i % cpus.len()]`; with `cpus_per_pe` n, to the n
    /// CPUs from `cpus[i * n % cpus.len()]` on (wrapping).
    pub pin: bool,
    pub cpus_per_pe: usize,
}

impl Plan<'_> {
    /// The CPUs PE `pe` is to be pinned to (empty: not pinned).
    pub(crate) fn cpus_of(&self, pe: usize) -> Vec<usize> {
        if !self.pin {
            return Vec::new();
        }
        let n = self.cpus_per_pe.max(1);
        let mut v: Vec<usize> = (0..n).map(|k| self.cpus[(pe * n + k) % self.cpus.len()]).collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// The CPUs this process may run on (its affinity mask), in increasing order;
/// CPU 0 alone if the mask cannot be read.
pub(crate) fn allowed_cpus() -> Vec<usize> {
    // SAFETY: cpu_set_t is plain data; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: the pointer and size describe `set`, which outlives the call.
    let rc = unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    let cpus: Vec<usize> = if rc == 0 {
        // SAFETY: CPU_ISSET reads `set` within CPU_SETSIZE.
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
            .collect()
    } else {
        Vec::new()
    };
    if cpus.is_empty() { vec![0] } else { cpus }
}

/// Whether `--bind-to` asks for pinning `npes` PEs of `cpus_per_pe` CPUs
/// each over `ncpus` CPUs.
pub(crate) fn pins(bind: super::options::Bind, npes: usize, cpus_per_pe: usize, ncpus: usize) -> bool {
    use super::options::Bind;
    match bind {
        Bind::Core => true,
        Bind::None => false,
        Bind::Auto => ncpus > 1 && (npes * cpus_per_pe).is_multiple_of(ncpus),
    }
}

/// The CPUs process `pid` may run on, if it can be asked.
pub(crate) fn affinity_of(pid: libc::pid_t) -> Option<Vec<usize>> {
    // SAFETY: cpu_set_t is plain data; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: the pointer and size describe `set`, which outlives the call.
    if unsafe { libc::sched_getaffinity(pid, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } != 0 {
        return None;
    }
    // SAFETY: CPU_ISSET reads `set` within CPU_SETSIZE.
    Some(
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
            .collect(),
    )
}

/// Starts PE `pe`. Must run on the main thread, which lives until every PE is
/// reaped: the parent-death signal fires when the *thread* that forked exits.
pub(crate) fn spawn_pe(plan: &Plan, pe: usize) -> io::Result<Spawned> {
    let mut cmd = Command::new(plan.program);
    cmd.arg0(plan.argv0)
        .args(plan.args)
        .envs(plan.env.iter().map(|(k, v)| (k, v)))
        .env(job::ENV_PE, pe.to_string())
        .env(job::ENV_NPES, plan.npes.to_string())
        .env(job::ENV_JOB_ID, &plan.job_id)
        .env(job::ENV_JOB_FD, plan.job_fd.to_string())
        .env(job::ENV_JOB_CPUS, plan.cpus.len().to_string())
        .stdin(if pe == 0 { Stdio::inherit() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (job_fd, nofile) = (plan.job_fd, plan.nofile);
    let mine = plan.cpus_of(pe);
    let cpu = (!mine.is_empty()).then(|| {
        // SAFETY: cpu_set_t is plain data; zeroed is the empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for &c in &mine {
            // SAFETY: CPU_SET writes inside `set`; the CPU number came from
            // sched_getaffinity, so it is below CPU_SETSIZE.
            unsafe { libc::CPU_SET(c, &mut set) };
        }
        set
    });
    // SAFETY: getpid has no preconditions.
    let parent = unsafe { libc::getpid() };
    // SAFETY: the closure runs in the forked child before exec and only makes
    // async-signal-safe system calls (fcntl, setrlimit, sched_setaffinity,
    // prctl, getppid, _exit); it allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            // Let the job's memory file survive exec (it was opened close-on-exec
            // so that only PEs, and no other program, inherit it).
            let flags = libc::fcntl(job_fd, libc::F_GETFD);
            if flags < 0 || libc::fcntl(job_fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
                return Err(io::Error::last_os_error());
            }
            if let Some(lim) = nofile {
                libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
            }
            // Best effort: a CPU taken away meanwhile leaves the PE unpinned.
            if let Some(set) = &cpu {
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set);
            }
            // Die with oshrun, even if it is SIGKILLed; if it already died
            // before this point, the signal would never come: leave now.
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn()?;
    let pid = child.id() as libc::pid_t;
    // Both are Some: piped() was asked for above.
    let (Some(out), Some(err)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(io::Error::other("missing output pipe"));
    };
    // The read ends belong to oshrun alone: make them non-blocking so a read
    // after a spurious readiness report cannot stall the loop.
    let (stdout, stderr) = (OwnedFd::from(out), OwnedFd::from(err));
    set_nonblocking(stdout.as_raw_fd());
    set_nonblocking(stderr.as_raw_fd());
    // `child` is dropped without waiting: the loop reaps every PE with waitpid.
    Ok(Spawned { pid, stdout, stderr })
}

fn set_nonblocking(fd: RawFd) {
    // SAFETY: plain fcntl calls on a descriptor we own.
    unsafe {
        let fl = libc::fcntl(fd, libc::F_GETFL);
        if fl >= 0 {
            libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK);
        }
    }
}

/// Raises the soft open-file limit to what `npes` PEs need (two pipes each)
/// and returns the previous limit, to restore in the PEs.
pub(crate) fn raise_nofile(npes: usize) -> Option<libc::rlimit> {
    let need = (2 * npes + 64) as libc::rlim_t;
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: lim is a valid out-parameter.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 || lim.rlim_cur >= need {
        return None;
    }
    let raised = libc::rlimit {
        rlim_cur: need.min(lim.rlim_max),
        rlim_max: lim.rlim_max,
    };
    // SAFETY: passes a valid rlimit; failure only leaves the limit as it was.
    (unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0).then_some(lim)
}

/// Finds the program like `execvp` would: as given when it contains a slash,
/// else in the directories of `PATH`. The error is the reason, for the message.
pub(crate) fn resolve_program(prog: &OsStr) -> Result<PathBuf, String> {
    if prog.is_empty() {
        return Err(reason(libc::ENOENT));
    }
    if prog.as_bytes().contains(&b'/') {
        return check_executable(Path::new(prog))
            .map(|()| PathBuf::from(prog))
            .map_err(reason);
    }
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/bin:/usr/bin".into());
    let mut denied = false;
    for dir in path.as_bytes().split(|&b| b == b':') {
        // An empty entry means the current directory.
        let dir = if dir.is_empty() {
            Path::new(".")
        } else {
            Path::new(OsStr::from_bytes(dir))
        };
        let candidate = dir.join(prog);
        match check_executable(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(libc::EACCES) => denied = true,
            Err(_) => {}
        }
    }
    Err(reason(if denied { libc::EACCES } else { libc::ENOENT }))
}

/// Ok if `p` is an executable file (the error is an errno value).
fn check_executable(p: &Path) -> Result<(), i32> {
    let meta = std::fs::metadata(p).map_err(|e| e.raw_os_error().unwrap_or(libc::ENOENT))?;
    if meta.is_dir() {
        return Err(libc::EISDIR);
    }
    let c = std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(|_| libc::ENOENT)?;
    // SAFETY: c is a valid C string.
    if unsafe { libc::access(c.as_ptr(), libc::X_OK) } != 0 {
        return Err(io::Error::last_os_error().raw_os_error().unwrap_or(libc::EACCES));
    }
    Ok(())
}

/// The text of an errno value, without Rust's " (os error N)" suffix.
pub(crate) fn reason(errno: i32) -> String {
    let text = io::Error::from_raw_os_error(errno).to_string();
    match text.find(" (os error") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_programs_like_execvp() {
        let sh = resolve_program(OsStr::new("sh")).unwrap();
        assert!(sh.is_absolute() || sh.starts_with("."), "{sh:?}");
        assert_eq!(resolve_program(OsStr::new("/bin/sh")).unwrap(), Path::new("/bin/sh"));
        let missing = "No such file or directory";
        assert_eq!(resolve_program(OsStr::new("/nonexistent/prog")).unwrap_err(), missing);
        assert_eq!(
            resolve_program(OsStr::new("no-such-program-rshmem")).unwrap_err(),
            missing
        );
        assert_eq!(resolve_program(OsStr::new("")).unwrap_err(), missing);
        assert_eq!(resolve_program(OsStr::new("/")).unwrap_err(), "Is a directory");
        assert_eq!(
            resolve_program(OsStr::new("/etc/passwd")).unwrap_err(),
            "Permission denied"
        );
    }

    #[test]
    fn the_job_file_has_a_header() {
        let mem = JobMem::create(3, "1-2").unwrap();
        let c = mem.control();
        assert_eq!(c.header().magic.load(std::sync::atomic::Ordering::Relaxed), job::MAGIC);
        assert_eq!(
            c.header().id_hash.load(std::sync::atomic::Ordering::Relaxed),
            job::id_hash("1-2")
        );
        assert_eq!(c.header().npes.load(std::sync::atomic::Ordering::Relaxed), 3);
        assert_eq!(c.state(2), job::PeState::Absent);
        assert!(mem.fd() >= 3);
        let link = std::fs::read_link(format!("/proc/self/fd/{}", mem.fd())).unwrap();
        assert!(link.to_string_lossy().starts_with("/memfd:rshmem-job"), "{link:?}");
        let size = std::fs::metadata(format!("/proc/self/fd/{}", mem.fd())).unwrap().len();
        assert_eq!(size as usize, job::control_len(3));
    }
}
