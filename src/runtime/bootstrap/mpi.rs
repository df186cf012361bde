//! Start-up of a PE that an MPI launcher started (`mpirun`, `mpiexec`,
//! `srun`, or `oshrun --host ...`, which runs one of them).
//!
//! MPI gives the PE its number and the job's size, and says which PEs share
//! a node (`MPI_COMM_TYPE_SHARED`, or virtual nodes of `RSHMEM_NODE_SIZE`
//! consecutive PEs, which lets one machine exercise the network path). Each
//! node's first PE creates the node's job file (a memfd laid out as for a
//! one-node job of all the PEs, of which only this node's slots and segments
//! are used) and hands it to the node's other PEs over a unix socket
//! (`fdshare`). From there start-up continues as under `oshrun`, the node's
//! first PE playing PE 0's part for its node; the sizes every PE asks for
//! are agreed across nodes by an allgather first.

use super::attach::Attached;
use super::fdshare;
use crate::error;
use crate::heap::segment;
use crate::job;
use crate::transport::mpi::Session;
use crate::transport::mpi::shim::Shim;
use std::os::fd::{AsFd, AsRawFd};
use std::time::Duration;

/// Variables by which MPI launchers (Open MPI, MPICH's Hydra, PMIx, Slurm's
/// PMI) tell a process it is a rank of a job.
const LAUNCHER_VARS: [&str; 4] = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"];

/// How long the node's first PE waits for the others to take the job file.
const HAND_OUT_TIMEOUT: Duration = Duration::from_secs(120);

/// Whether an MPI launcher started this process (and `oshrun` did not).
pub fn launched_by_mpi() -> bool {
    std::env::var_os(job::ENV_JOB_FD).is_none() && LAUNCHER_VARS.iter().any(|v| std::env::var_os(v).is_some())
}

/// Joins the MPI job and attaches to this node's job file.
/// `want_multiple`: MPI must allow calls from several threads at once;
/// `node_size`: `RSHMEM_NODE_SIZE` (virtual nodes of that many PEs).
pub fn attach(want_multiple: bool, node_size: Option<usize>) -> Result<(Attached, Session), String> {
    let forced = node_size.unwrap_or(0);
    // Remote atomics must be atomic with this node's CPU atomics on the same
    // word (transport::hybrid, Atomicity): UCX applies them with the target's
    // CPU in this mode. Set before MPI starts UCX; a user's setting wins.
    if std::env::var_os("UCX_ATOMIC_MODE").is_none() {
        // SAFETY: start-up, under the library's init lock, before MPI (or any
        // thread of ours) runs; as any setenv in a C library, a program
        // thread reading the environment meanwhile is not covered.
        unsafe { std::env::set_var("UCX_ATOMIC_MODE", "cpu") };
    }
    let shim = Shim::load()?;
    let started = shim.init(want_multiple)?;
    let (me, npes) = (started.rank, started.size);
    // Before any check, so that its error names this PE.
    error::set_identity(me, npes);
    if want_multiple && !started.multiple {
        return Err(
            "MPI does not provide MPI_THREAD_MULTIPLE, which SHMEM_THREAD_MULTIPLE and SHMEM_PROGRESS_THREAD need \
             (a program that calls MPI_Init itself must ask for it with MPI_Init_thread)"
                .into(),
        );
    }
    let node_of = shim.split_nodes(forced, npes)?;
    let node_pes: Vec<usize> = (0..npes).filter(|&pe| node_of[pe] == node_of[me]).collect();
    let leader = node_pes[0];
    let mut name = [0u8; 64];
    let file = if me == leader {
        let file = segment::create_memfd(job::FILE_NAME)
            .map_err(|e| format!("cannot create the node's job memory file: {e}"))?;
        segment::set_len(file.as_raw_fd(), job::control_len(npes) as u64)
            .map_err(|e| format!("cannot size the node's job memory file: {e}"))?;
        if node_pes.len() > 1 {
            let offer = fdshare::Offer::open()?;
            name = offer.name();
            shim.node_bcast(&mut name)?;
            offer.hand_out(file.as_fd(), node_pes.len() - 1, HAND_OUT_TIMEOUT)?;
        }
        file
    } else {
        shim.node_bcast(&mut name)?;
        fdshare::take(&name, HAND_OUT_TIMEOUT)?
    };
    Ok((
        Attached {
            me,
            npes,
            file,
            own: me == leader,
            job_cpus: Some(online_cpus()),
        },
        Session {
            shim,
            node_pes,
            we_initialized: started.we_initialized,
            library: started.library,
            node_of,
        },
    ))
}

/// The machine's online CPUs: an MPI launcher may bind each PE to one, which
/// says nothing of how many the node's PEs share.
fn online_cpus() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    if n > 0 { n as usize } else { 1 }
}

/// Bytes each PE contributes to [`agree_sizes`]: three sizes and its host name.
const RECORD: usize = 64;

/// The sizes every PE asks for, agreed across nodes: each PE contributes
/// (program data, heap, whether the heap size was set); the data sizes must
/// match, set heap sizes must match, and default heaps (lowered to fit each
/// node's memory) take the smallest. Returns the heap size to use.
pub fn agree_sizes(
    shim: &Shim,
    npes: usize,
    data_len: usize,
    heap_len: usize,
    heap_set: bool,
) -> Result<usize, String> {
    // The sizes, then the host name (for messages naming another node's PE,
    // transport::mpi::status), in the same exchange.
    let mut mine = [0u8; RECORD];
    mine[..8].copy_from_slice(&(data_len as u64).to_le_bytes());
    mine[8..16].copy_from_slice(&(heap_len as u64).to_le_bytes());
    mine[16..24].copy_from_slice(&u64::from(heap_set).to_le_bytes());
    let host = crate::transport::mpi::status::this_host();
    let n = host.len().min(RECORD - 24);
    mine[24..24 + n].copy_from_slice(&host.as_bytes()[..n]);
    let all = shim.allgather(&mine, npes)?;
    let field = |pe: usize, i: usize| {
        let at = pe * RECORD + i * 8;
        u64::from_le_bytes(all[at..at + 8].try_into().expect("8 bytes")) as usize
    };
    crate::transport::mpi::status::set_hosts(
        (0..npes)
            .map(|pe| {
                let name = &all[pe * RECORD + 24..(pe + 1) * RECORD];
                let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
                String::from_utf8_lossy(&name[..end]).into_owned()
            })
            .collect(),
    );
    let mut heap = heap_len;
    for pe in 0..npes {
        if field(pe, 0) != field(0, 0) {
            return Err(format!(
                "PE {pe} has {} bytes of writable program data but PE 0 has {}: every PE must run the same executable",
                field(pe, 0),
                field(0, 0)
            ));
        }
        if (field(pe, 2) != 0) != heap_set || (heap_set && field(pe, 1) != heap_len) {
            return Err(format!(
                "PE {pe} asks for a heap of {} bytes{} but this PE for {heap_len}{}: set SHMEM_SYMMETRIC_SIZE the same for every PE",
                field(pe, 1),
                if field(pe, 2) != 0 { " (set)" } else { " (default)" },
                if heap_set { " (set)" } else { " (default)" },
            ));
        }
        heap = heap.min(field(pe, 1));
    }
    Ok(heap)
}
