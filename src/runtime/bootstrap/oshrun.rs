//! The launcher `oshrun`: the PEs it started on this machine, which find
//! the job in its memory file, or, without it, a 1-PE job of its own.
//!
//! `oshrun` passes the job in environment variables (see [`crate::job`]). A
//! program started from inside a PE (`system()`, `fork` + `exec`) can inherit
//! those variables without the descriptor; if it opened a file first, that file
//! now holds the descriptor number. So the variables are removed from the
//! environment as soon as they are read, and the descriptor is used only once it
//! is proven to be this job's memory file: a memfd named like ours, long enough,
//! whose header carries our magic, our PE count and the hash of our job id, all
//! checked with reads before anything writes, truncates or maps it. Otherwise
//! the program runs as a 1-PE job of its own, after one warning line.
//!
//! Every PE is on this node and shares the one job file, so the launcher has
//! no channel of its own: the PEs agree in the file's control block, and
//! `oshrun` reads it to report hangs and to end the job when a PE fails.

use super::launcher::{self, Launched, Launcher};
use crate::error;
use crate::heap::segment;
use crate::job::{self, JobHeader};
use crate::transport::Engine;
use std::mem::offset_of;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// A job `oshrun` started on this machine, or a 1-PE job without it.
struct Oshrun {
    me: usize,
    /// Every PE of the job: all on this node.
    pes: Vec<usize>,
    /// CPUs the job's PEs share, as `oshrun` counted them.
    cpus: Option<usize>,
}

impl Launcher for Oshrun {
    fn me(&self) -> usize {
        self.me
    }

    fn npes(&self) -> usize {
        self.pes.len()
    }

    fn node_pes(&self) -> &[usize] {
        &self.pes
    }

    fn cpus(&self) -> Option<usize> {
        self.cpus
    }

    fn exchange(&self, _mine: &[u8]) -> Option<Result<Vec<u8>, String>> {
        None
    }

    /// `oshrun` wrote the header before it started any PE; a 1-PE job's
    /// only PE wrote its own.
    fn node_barrier(&self) -> Result<(), String> {
        Ok(())
    }

    fn engine(&self) -> Option<Engine> {
        None
    }

    fn reports_hangs(&self) -> bool {
        true
    }

    fn on_program_finalize(&self, _hook: extern "C" fn()) -> Result<(), String> {
        Ok(())
    }

    fn describe(&self) -> Option<String> {
        None
    }

    fn finish(&self, engine_closed: Result<(), String>) -> Result<(), String> {
        engine_closed
    }

    fn restart(&self) -> Result<(), String> {
        Ok(())
    }

    /// Nothing to end here: `oshrun` sees the PE's failed state and status
    /// and ends the others.
    fn abort(&self, _status: i32) {}
}

/// The launcher of this process, registered, with its job file.
fn launched(me: usize, npes: usize, cpus: Option<usize>, file: OwnedFd, fresh: bool) -> Launched {
    let launcher: &'static Oshrun = Box::leak(Box::new(Oshrun {
        me,
        pes: (0..npes).collect(),
        cpus,
    }));
    launcher::register(launcher);
    Launched { launcher, file, fresh }
}

/// `oshrun`'s variables, as found in the environment.
#[derive(Default)]
struct JobEnv {
    fd: Option<String>,
    pe: Option<String>,
    npes: Option<String>,
    id: Option<String>,
    cpus: Option<String>,
}

/// Reads `oshrun`'s variables and removes them from the environment, so that
/// no program this process starts later takes itself for a PE of this job.
fn take_job_env() -> JobEnv {
    let get = |k: &str| std::env::var(k).ok();
    let env = JobEnv {
        fd: get(job::ENV_JOB_FD),
        pe: get(job::ENV_PE),
        npes: get(job::ENV_NPES),
        id: get(job::ENV_JOB_ID),
        cpus: get(job::ENV_JOB_CPUS),
    };
    for k in job::ENV_ALL {
        // SAFETY: the environment is process-global. This runs once, in the
        // first shmem_init, under the library's init lock; a program that reads
        // the environment from another thread while it calls shmem_init is the
        // only case not covered, as with any setenv in a C library.
        unsafe { std::env::remove_var(k) };
    }
    env
}

/// The job `oshrun` passed, or a 1-PE job of this process.
pub(super) fn join(routine: &str) -> Result<Launched, String> {
    let env = take_job_env();
    if let Some(fd_text) = &env.fd {
        match claim(&env, fd_text) {
            Ok((me, npes, file)) => {
                error::set_identity(me, npes);
                let job_cpus = env
                    .cpus
                    .as_deref()
                    .and_then(|v| v.trim().parse().ok())
                    .filter(|&n| n > 0);
                return Ok(launched(me, npes, job_cpus, file, false));
            }
            Err(why) => eprintln!(
                "rshmem: {routine} (PE 0 of 1): warning: {}={fd_text} is not this job's memory file ({why}); \
                 running as a 1-PE job of its own",
                job::ENV_JOB_FD
            ),
        }
    }
    error::set_identity(0, 1);
    let file =
        segment::create_memfd(job::FILE_NAME).map_err(|e| format!("cannot create the job's memory file: {e}"))?;
    segment::set_len(file.as_raw_fd(), job::control_len(1) as u64)
        .map_err(|e| format!("cannot size the job's memory file: {e}"))?;
    Ok(launched(0, 1, None, file, true))
}

/// Checks the variables and the descriptor; takes the descriptor only if it
/// is this job's memory file.
fn claim(env: &JobEnv, fd_text: &str) -> Result<(usize, usize, OwnedFd), String> {
    let raw: RawFd = fd_text
        .trim()
        .parse()
        .ok()
        .filter(|&fd| fd >= 0)
        .ok_or("not a descriptor number")?;
    let number = |name: &str, v: &Option<String>| -> Result<usize, String> {
        let v = v.as_deref().ok_or_else(|| format!("{name} is not set"))?;
        v.trim()
            .parse::<usize>()
            .map_err(|_| format!("{name}={v:?} is not a number"))
    };
    let me = number(job::ENV_PE, &env.pe)?;
    let npes = number(job::ENV_NPES, &env.npes)?;
    if npes == 0 || me >= npes {
        return Err(format!("{}={me} is not a PE of a {npes}-PE job", job::ENV_PE));
    }
    let id = env
        .id
        .as_deref()
        .ok_or_else(|| format!("{} is not set", job::ENV_JOB_ID))?;
    verify(raw, npes, id)?;
    // Programs this PE starts must not inherit the job.
    segment::set_cloexec(raw);
    // SAFETY: the descriptor is open and is this job's memory file (verified
    // above), which oshrun passed for this library's use only.
    Ok((me, npes, unsafe { OwnedFd::from_raw_fd(raw) }))
}

/// Read-only checks that `fd` is the memory file of job `id` with `npes` PEs.
fn verify(fd: RawFd, npes: usize, id: &str) -> Result<(), String> {
    let link = std::fs::read_link(format!("/proc/self/fd/{fd}")).ok();
    let what = link
        .as_ref()
        .map_or(format!("descriptor {fd}"), |l| l.display().to_string());
    // SAFETY: an all-zero stat is a valid value to be overwritten by fstat.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: st is a valid out-pointer; fstat only reads the descriptor table.
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Err("no such open descriptor".into());
    }
    // Sealing works on memory files only, never on disk files, pipes or sockets.
    // SAFETY: F_GET_SEALS reads the file's seals, changing nothing.
    if st.st_mode & libc::S_IFMT != libc::S_IFREG || unsafe { libc::fcntl(fd, libc::F_GET_SEALS) } < 0 {
        return Err(format!("it is {what}, not a memory file"));
    }
    if let Some(l) = &link {
        let name = format!("/memfd:{}", job::FILE_NAME);
        if !l.to_string_lossy().starts_with(&name) {
            return Err(format!("it is {what}, not an rshmem job file"));
        }
    }
    let mut head = [0u8; offset_of!(JobHeader, id_hash) + 8];
    // SAFETY: pread writes at most head.len() bytes into head.
    let got = unsafe { libc::pread(fd, head.as_mut_ptr() as *mut libc::c_void, head.len(), 0) };
    if got != head.len() as isize {
        return Err(format!("{what} is too short for a job header"));
    }
    let word = |off: usize, len: usize| {
        let mut b = [0u8; 8];
        b[..len].copy_from_slice(&head[off..off + len]);
        u64::from_ne_bytes(b)
    };
    if word(offset_of!(JobHeader, magic), 8) != job::MAGIC {
        return Err(format!("{what} has no rshmem job header"));
    }
    let file_npes = word(offset_of!(JobHeader, npes), 4);
    if file_npes != npes as u64 {
        return Err(format!("{what} is a job of {file_npes} PEs, not {npes}"));
    }
    if word(offset_of!(JobHeader, id_hash), 8) != job::id_hash(id) {
        return Err(format!("{what} belongs to another job than {}={id}", job::ENV_JOB_ID));
    }
    let len = st.st_size as u64;
    if len < job::control_len(npes) as u64 {
        return Err(format!("{what} is {len} bytes, too short for a {npes}-PE job"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    /// A job file as oshrun writes it.
    fn job_file(npes: usize, id: &str) -> OwnedFd {
        let fd = segment::create_memfd(job::FILE_NAME).unwrap();
        let len = job::control_len(npes);
        segment::set_len(fd.as_raw_fd(), len as u64).unwrap();
        let map = segment::map_shared(&fd, 0, len).unwrap();
        // SAFETY: a fresh mapping of control_len(npes) bytes, page aligned.
        let c = unsafe { job::Control::from_raw(map.ptr, npes) };
        c.header().npes.store(npes as u32, Ordering::Relaxed);
        c.header().id_hash.store(job::id_hash(id), Ordering::Relaxed);
        c.header().magic.store(job::MAGIC, Ordering::Release);
        fd
    }

    #[test]
    fn only_this_jobs_file_passes() {
        let f = job_file(2, "a-1");
        let fd = f.as_raw_fd();
        assert_eq!(verify(fd, 2, "a-1"), Ok(()));
        let e = verify(fd, 2, "a-2").unwrap_err();
        assert!(e.contains("belongs to another job than RSHMEM_JOB_ID=a-2"), "{e}");
        let e = verify(fd, 3, "a-1").unwrap_err();
        assert!(e.contains("is a job of 2 PEs, not 3"), "{e}");
        // A memory file without a header, and files that are not memory files.
        let blank = segment::create_memfd(job::FILE_NAME).unwrap();
        segment::set_len(blank.as_raw_fd(), 1 << 20).unwrap();
        assert!(
            verify(blank.as_raw_fd(), 1, "a-1")
                .unwrap_err()
                .contains("no rshmem job header")
        );
        let other = segment::create_memfd("user-data").unwrap();
        assert!(
            verify(other.as_raw_fd(), 1, "a-1")
                .unwrap_err()
                .contains("not an rshmem job file")
        );
        let disk = std::fs::File::open("/proc/self/exe").unwrap();
        assert!(
            verify(disk.as_raw_fd(), 1, "a-1")
                .unwrap_err()
                .contains("not a memory file")
        );
        assert_eq!(verify(-1, 1, "a-1").unwrap_err(), "no such open descriptor");
    }

    #[test]
    fn claim_checks_the_variables_first() {
        let f = job_file(2, "b-1");
        let fd = f.as_raw_fd().to_string();
        let env = |pe: &str, npes: &str, id: Option<&str>| JobEnv {
            fd: Some(fd.clone()),
            pe: Some(pe.into()),
            npes: Some(npes.into()),
            id: id.map(String::from),
            cpus: None,
        };
        assert_eq!(
            claim(&env("0", "2", None), &fd).err().unwrap(),
            "RSHMEM_JOB_ID is not set"
        );
        assert!(
            claim(&env("2", "2", Some("b-1")), &fd)
                .err()
                .unwrap()
                .contains("not a PE of a 2-PE job")
        );
        assert!(
            claim(&env("x", "2", Some("b-1")), &fd)
                .err()
                .unwrap()
                .contains("is not a number")
        );
        assert_eq!(
            claim(&env("0", "2", Some("b-1")), "-3").err().unwrap(),
            "not a descriptor number"
        );
        // Claiming takes ownership: hand over a duplicate.
        // SAFETY: dup of a valid descriptor; the result is owned below.
        let dup = unsafe { libc::dup(f.as_raw_fd()) };
        let (me, npes, owned) = claim(&env("1", "2", Some("b-1")), &dup.to_string()).unwrap();
        assert_eq!((me, npes, owned.as_raw_fd()), (1, 2, dup));
        // SAFETY: fcntl reads the descriptor flags.
        assert_ne!(unsafe { libc::fcntl(dup, libc::F_GETFD) } & libc::FD_CLOEXEC, 0);
    }
}
