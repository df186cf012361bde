//! `oshrun --status [PID]`: the hang report of running jobs, from another
//! terminal, without disturbing them.
//!
//! A job is found through its memory file: every process of the job (oshrun
//! and its PEs) holds the descriptor of `/memfd:rshmem-job`, visible in
//! `/proc/PID/fd` to processes of the same user. The job's oshrun is the
//! holder whose parent holds none of the same file. The control block is
//! mapped read-only from `/proc/PID/fd/N`.

use crate::job::{self, Control};
use crate::stuck::lookup::{FileLayout, ProcLookup, proc_life, proc_stat};
use crate::stuck::{self, Life};
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

/// A process holding a job file: (pid, descriptor path).
struct Holder {
    pid: i32,
    fd: PathBuf,
}

/// Every job file held by a process this user can see, by inode.
fn jobs() -> BTreeMap<u64, Vec<Holder>> {
    let mut out: BTreeMap<u64, Vec<Holder>> = BTreeMap::new();
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return out;
    };
    for p in procs.flatten() {
        let Some(pid) = p.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(p.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            let is_job = std::fs::read_link(fd.path())
                .is_ok_and(|t| t.to_string_lossy().starts_with(&format!("/memfd:{}", job::FILE_NAME)));
            if let (true, Ok(meta)) = (is_job, std::fs::metadata(fd.path())) {
                out.entry(meta.ino()).or_default().push(Holder { pid, fd: fd.path() });
                break;
            }
        }
    }
    out
}

fn parent(pid: i32) -> Option<i32> {
    proc_stat(pid)?.get(1)?.parse().ok()
}

/// A read-only mapping of a job's control block.
struct Mapped {
    ptr: *mut libc::c_void,
    len: usize,
    npes: usize,
}

impl Mapped {
    fn open(fd_path: &PathBuf) -> Result<Mapped, String> {
        let file = std::fs::File::open(fd_path).map_err(|e| format!("cannot open {}: {e}", fd_path.display()))?;
        let fd = std::os::fd::AsRawFd::as_raw_fd(&file);
        let map = |len: usize| {
            // SAFETY: a new shared read-only mapping of an open file; the
            // result is checked.
            let p = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_SHARED, fd, 0) };
            (p != libc::MAP_FAILED).then_some(p)
        };
        let page = job::page_size();
        let head = map(page).ok_or("cannot map the job's control block")?;
        // SAFETY: a page-aligned mapping of at least one page, which holds the
        // header; only read atomically, and unmapped right after.
        let (magic, npes) = unsafe {
            let c = Control::from_raw(head as *const u8, 0);
            (
                c.header().magic.load(std::sync::atomic::Ordering::SeqCst),
                c.header().npes.load(std::sync::atomic::Ordering::SeqCst) as usize,
            )
        };
        // SAFETY: unmaps the mapping made above.
        unsafe { libc::munmap(head, page) };
        if magic != job::MAGIC {
            return Err("the job was started by another version of rshmem".into());
        }
        let len = job::control_len(npes);
        let ptr = map(len).ok_or("cannot map the job's control block")?;
        Ok(Mapped { ptr, len, npes })
    }

    fn control(&self) -> Control {
        // SAFETY: a page-aligned mapping of control_len(npes) bytes that lives
        // as long as self; the control block holds only atomics.
        unsafe { Control::from_raw(self.ptr as *const u8, self.npes) }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in open.
        unsafe { libc::munmap(self.ptr, self.len) };
    }
}

/// Prints the report of every job (or the one of `only`, an oshrun or PE
/// pid); returns the exit status.
pub(crate) fn run(only: Option<i32>) -> i32 {
    let mut shown = 0;
    for holders in jobs().values() {
        let pids: Vec<i32> = holders.iter().map(|h| h.pid).collect();
        let Some(launcher) = holders
            .iter()
            .find(|h| parent(h.pid).is_none_or(|pp| !pids.contains(&pp)))
        else {
            continue;
        };
        if only.is_some_and(|p| !pids.contains(&p)) {
            continue;
        }
        let mapped = match Mapped::open(&launcher.fd) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("oshrun: job of pid {}: {e}", launcher.pid);
                continue;
            }
        };
        let control = mapped.control();
        let pe_pids: Vec<i32> = (0..mapped.npes)
            .map(|pe| control.slot(pe).info.pid.load(std::sync::atomic::Ordering::SeqCst))
            .collect();
        // No oshrun: an MPI launcher started the PEs, and the file is one
        // node's, where the other nodes' PEs never write their slots.
        let by_mpi = pe_pids.contains(&launcher.pid);
        let view = stuck::read(&control, |pe| match pe_pids[pe] {
            0 if by_mpi => Life::Remote,
            0 => Life::Alive,
            pid => proc_life(pid),
        });
        let why = if by_mpi {
            let here = pe_pids.iter().filter(|&&p| p != 0).count();
            format!(
                "job of PE pid {} ({here} of its {} PEs on this node)",
                launcher.pid, mapped.npes
            )
        } else {
            format!("job of oshrun pid {} ({} PEs)", launcher.pid, mapped.npes)
        };
        let look = ProcLookup::new(pe_pids.clone(), FileLayout::of(&control));
        for line in stuck::report(&view, &why, &look) {
            println!("{line}");
        }
        shown += 1;
    }
    if shown == 0 {
        match only {
            Some(p) => eprintln!("oshrun: no running rshmem job has a process {p}"),
            None => eprintln!("oshrun: no running rshmem job of this user"),
        }
        return 1;
    }
    0
}
