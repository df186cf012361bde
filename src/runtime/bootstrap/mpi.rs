//! The MPI launcher: a PE that `mpirun`, `mpiexec` or `srun` started (or
//! `oshrun --host ...`, which runs one of them). Its job ends with
//! `MPI_Finalize` if rshmem started MPI, and a fatal error is `MPI_Abort`.
//!
//! MPI gives the PE its number and the job's size, and says which PEs share
//! a node (`MPI_COMM_TYPE_SHARED`, or virtual nodes of `RSHMEM_NODE_SIZE`
//! consecutive PEs, which lets one machine exercise the network path). Each
//! node's first PE creates the node's job file (a memfd laid out as for a
//! one-node job of all the PEs, of which only this node's slots and segments
//! are used) and hands it to the node's other PEs over a unix socket
//! (`fdshare`). From there start-up continues as under `oshrun`, the node's
//! first PE playing PE 0's part for its node; the sizes every PE asks for
//! are agreed across nodes by an allgather first ([`Launcher::exchange`]).
//!
//! MPI is also the engine to the other nodes: [`Launcher::engine`] hands
//! the started shim to the hybrid transport, which opens its window.

use super::fdshare;
use super::launcher::{self, Launched, Launcher};
use crate::config::RemoteEngine;
use crate::error;
use crate::heap::segment;
use crate::job;
use crate::transport::Engine;
use crate::transport::mpi::shim::Shim;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Variables by which MPI launchers (Open MPI, MPICH's Hydra, PMIx, Slurm's
/// PMI) tell a process it is a rank of a job.
const LAUNCHER_VARS: [&str; 4] = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"];

/// How long the node's first PE waits for the others to take the job file.
const HAND_OUT_TIMEOUT: Duration = Duration::from_secs(120);

/// Whether an MPI launcher started this process (and `oshrun` did not).
pub(super) fn launched_by_mpi() -> bool {
    std::env::var_os(job::ENV_JOB_FD).is_none() && LAUNCHER_VARS.iter().any(|v| std::env::var_os(v).is_some())
}

/// An MPI job, from the moment its library is loaded.
struct Mpi {
    shim: &'static Shim,
    /// What MPI said at its start (set once, when [`join`] succeeds).
    job: OnceLock<Job>,
    /// Set by `finish`: MPI cannot start again in this process, and an
    /// abort has no MPI job left to end.
    ended: AtomicBool,
}

/// Who is who in the MPI job.
struct Job {
    me: usize,
    npes: usize,
    /// This node's PEs, ascending (the first created the node's job file).
    node_pes: Vec<usize>,
    /// `node_of[pe]`: the node of every PE (a number, the same on every PE).
    node_of: Vec<usize>,
    /// MPI was initialised by rshmem (so the job's end finalizes it).
    we_initialized: bool,
    /// The MPI library's version line, for `SHMEM_INFO`.
    library: String,
    cpus: usize,
    /// `RSHMEM_REMOTE`.
    remote: RemoteEngine,
    /// The nodes are virtual ones (`RSHMEM_NODE_SIZE`).
    virtual_nodes: bool,
    /// Several threads may call in at once.
    multi: bool,
}

impl Mpi {
    fn job(&self) -> &Job {
        self.job
            .get()
            .expect("start-up asks the MPI launcher only once it has joined")
    }
}

impl Launcher for Mpi {
    fn me(&self) -> usize {
        self.job().me
    }

    fn npes(&self) -> usize {
        self.job().npes
    }

    fn node_pes(&self) -> &[usize] {
        &self.job().node_pes
    }

    fn cpus(&self) -> Option<usize> {
        Some(self.job().cpus)
    }

    /// Virtual nodes (`RSHMEM_NODE_SIZE`) are cut out of machines that run
    /// the whole job (their purpose: testing the multi-node paths on one
    /// machine), so every PE shares this machine's CPUs and the waits must
    /// give them up as under oversubscription.
    fn host_pes(&self) -> usize {
        let job = self.job();
        if job.virtual_nodes {
            job.npes
        } else {
            job.node_pes.len()
        }
    }

    fn exchange(&self, mine: &[u8]) -> Option<Result<Vec<u8>, String>> {
        Some(self.shim.allgather(mine, self.job().npes))
    }

    fn node_barrier(&self) -> Result<(), String> {
        self.shim.node_barrier()
    }

    fn engine(&self) -> Option<Engine> {
        let job = self.job();
        (job.node_pes.len() < job.npes).then(|| {
            Engine::Mpi(crate::transport::mpi::Engine {
                shim: self.shim,
                node_of: job.node_of.clone(),
                remote: job.remote,
                multi: job.multi,
            })
        })
    }

    fn reports_hangs(&self) -> bool {
        false
    }

    fn on_program_finalize(&self, hook: extern "C" fn()) -> Result<(), String> {
        self.shim.on_mpi_finalize(hook)
    }

    fn describe(&self) -> Option<String> {
        let job = self.job();
        Some(format!("MPI: {} (through {})", job.library, self.shim.path().display()))
    }

    fn mpi_ranks(&self) -> Option<bool> {
        Some(self.job().we_initialized)
    }

    /// MPI itself, if rshmem initialised it (a program that called
    /// `MPI_Init` finalizes MPI itself), once the window is freed.
    fn finish(&self, engine_closed: Result<(), String>) -> Result<(), String> {
        self.ended.store(true, Ordering::Release);
        let we_initialized = self.job().we_initialized;
        engine_closed
            .and_then(|()| if we_initialized { self.shim.finalize() } else { Ok(()) })
            .map_err(|e| format!("cannot end the MPI job: {e}"))
    }

    /// MPI (and the window or UCX worker over it) stays open past the last
    /// `shmem_finalize`: it could not be started again.
    fn outlives_finalize(&self) -> bool {
        true
    }

    /// Refused only once MPI itself has ended: the program called
    /// `MPI_Finalize` after its last `shmem_finalize` (rshmem's own end of
    /// MPI waits for the process's exit).
    fn restart(&self) -> Result<(), String> {
        match self.ended.load(Ordering::Acquire) {
            true => Err(
                "this PE was started by an MPI launcher and MPI has been finalized since: \
                         MPI cannot be initialised twice in a process, so neither can rshmem"
                    .into(),
            ),
            false => Ok(()),
        }
    }

    /// `MPI_Abort`, unless the MPI job has ended (`rsm_abort` also checks
    /// that MPI runs at all); does not return otherwise.
    fn abort(&self, status: i32) {
        if self.ended.load(Ordering::Acquire) {
            return;
        }
        // SAFETY: fflush(NULL) flushes every C stream, so what the program
        // printed is not lost with the process.
        unsafe { libc::fflush(std::ptr::null_mut()) };
        self.shim.abort(status);
    }
}

/// Joins the MPI job and takes this node's job file.
/// `want_multiple`: MPI must allow calls from several threads at once;
/// `node_size`: `RSHMEM_NODE_SIZE` (virtual nodes of that many PEs);
/// `remote`: `RSHMEM_REMOTE` (the engine to other nodes).
pub(super) fn join(want_multiple: bool, node_size: Option<usize>, remote: RemoteEngine) -> Result<Launched, String> {
    let forced = node_size.unwrap_or(0);
    // Remote atomics must be atomic with this node's CPU atomics on the same
    // word (transport::hybrid, Atomicity): UCX applies them with the target's
    // CPU in this mode, both under MPI's osc ucx and in rshmem's UCX engine.
    // Set before MPI or rshmem starts UCX; a user's setting wins (and the UCX
    // engine refuses any other, transport::remote).
    if std::env::var_os("UCX_ATOMIC_MODE").is_none() {
        // SAFETY: start-up, under the library's init lock, before MPI (or any
        // thread of ours) runs; as any setenv in a C library, a program
        // thread reading the environment meanwhile is not covered.
        unsafe { std::env::set_var("UCX_ATOMIC_MODE", "cpu") };
    }
    let shim = Shim::load()?;
    let mpi: &'static Mpi = Box::leak(Box::new(Mpi {
        shim,
        job: OnceLock::new(),
        ended: AtomicBool::new(false),
    }));
    // A failure from here on ends the whole job through MPI, once MPI runs.
    launcher::register(mpi);
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
    let file = node_job_file(shim, me, npes, &node_pes)?;
    let fresh = me == node_pes[0];
    let _ = mpi.job.set(Job {
        me,
        npes,
        node_pes,
        node_of,
        we_initialized: started.we_initialized,
        library: started.library,
        cpus: online_cpus(),
        remote,
        virtual_nodes: forced > 0,
        // MPI's progress engine may drive the UCX engine from any thread
        // in an MPI call when MPI runs threads (transport::remote).
        multi: want_multiple || started.multiple,
    });
    Ok(Launched {
        launcher: mpi,
        file,
        fresh,
    })
}

/// The node's job file: created by the node's first PE and handed to the
/// others over a unix socket whose name MPI broadcasts.
fn node_job_file(shim: &Shim, me: usize, npes: usize, node_pes: &[usize]) -> Result<OwnedFd, String> {
    let mut name = [0u8; 64];
    if me != node_pes[0] {
        shim.node_bcast(&mut name)?;
        return fdshare::take(&name, HAND_OUT_TIMEOUT);
    }
    let file =
        segment::create_memfd(job::FILE_NAME).map_err(|e| format!("cannot create the node's job memory file: {e}"))?;
    segment::set_len(file.as_raw_fd(), job::control_len(npes) as u64)
        .map_err(|e| format!("cannot size the node's job memory file: {e}"))?;
    if node_pes.len() > 1 {
        let offer = fdshare::Offer::open()?;
        name = offer.name();
        shim.node_bcast(&mut name)?;
        offer.hand_out(file.as_fd(), node_pes.len() - 1, HAND_OUT_TIMEOUT)?;
    }
    Ok(file)
}

/// The machine's online CPUs: an MPI launcher may bind each PE to one, which
/// says nothing of how many the node's PEs share.
fn online_cpus() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    if n > 0 { n as usize } else { 1 }
}
