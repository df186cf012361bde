//! The start-up seam: what start-up asks of whatever started this process,
//! one implementation per file, picked from the environment by [`join`]:
//! `oshrun.rs` (the PEs `oshrun` started on this machine with its memory
//! file, and a program run without a launcher, a 1-PE job of its own) and
//! `mpi.rs` (`mpirun`, `mpiexec`, `srun`: MPI says who is who, and carries
//! the exchanges). Sandia OpenSHMEM's `runtime.h`, with one
//! `runtime-<launcher>.c` each, is the model.
//!
//! A launcher says who this PE is, how many PEs the job has and which of
//! them share this PE's node (and so its job file), gathers small records
//! from every PE where it has a channel for them, and ends or aborts its
//! job. It hands the transport the engine it started to reach other nodes
//! ([`Engine`]) without start-up looking inside. Everything else start-up
//! does (the layout, the mappings) is the same under every launcher.

use super::{mpi, oshrun};
use crate::config::RemoteEngine;
use crate::transport::Engine;
use std::os::fd::OwnedFd;
use std::sync::OnceLock;

/// Whatever started this process, as start-up and the job's end see it.
pub(crate) trait Launcher: Send + Sync {
    /// This PE's number in the job.
    fn me(&self) -> usize;

    /// The job's PEs.
    fn npes(&self) -> usize;

    /// The PEs of this PE's node, ascending: they share its job file, and
    /// the first lays the file out. Every PE when the job has one node.
    fn node_pes(&self) -> &[usize];

    /// CPUs the node's PEs share, when the launcher knows better than this
    /// process's own count (which may be pinned to one CPU).
    fn cpus(&self) -> Option<usize>;

    /// The PEs sharing those CPUs: the node's, unless the node is a virtual
    /// one cut out of a machine that runs more (`RSHMEM_NODE_SIZE`).
    fn host_pes(&self) -> usize {
        self.node_pes().len()
    }

    /// Every PE's `mine` (records of one length), in PE order; collective
    /// over the job. `None` when the launcher has no channel of its own: its
    /// PEs all share one job file and agree in its control block instead.
    fn exchange(&self, mine: &[u8]) -> Option<Result<Vec<u8>, String>>;

    /// Returns once the node's job file has its header: a node barrier
    /// after the node's first PE wrote it, or at once when the file was
    /// complete before this PE started (oshrun's) or this PE wrote it.
    fn node_barrier(&self) -> Result<(), String>;

    /// The engine to the PEs of other nodes, for the transport's
    /// constructor; `None` when the job has one node.
    fn engine(&self) -> Option<Engine>;

    /// Whether the launcher watches the job and reports a hang itself
    /// (`oshrun`, from the control block); otherwise each node's first PE
    /// watches its node (`runtime::node_watch`).
    fn reports_hangs(&self) -> bool;

    /// Has `hook` run when the program ends the launcher's own library
    /// before `shmem_finalize` (`MPI_Finalize`), before that library stops.
    fn on_program_finalize(&self, hook: extern "C" fn()) -> Result<(), String>;

    /// What the launcher is, for `SHMEM_INFO`, when there is more to say
    /// than the transport does.
    fn describe(&self) -> Option<String>;

    /// `Some` when the PEs are the ranks of an MPI job (PE number = rank in
    /// `MPI_COMM_WORLD`), with whether rshmem initialised MPI
    /// (`shmemx_query_interoperability`); `None` under `oshrun` on one node.
    fn mpi_ranks(&self) -> Option<bool> {
        None
    }

    /// Ends the launcher's part of the job, after the transport ended its
    /// engine (`engine_closed`: how that went): at the last
    /// `shmem_finalize`, or at the process's exit when the launcher
    /// [outlives finalize](Launcher::outlives_finalize). No abort goes
    /// through the launcher after this.
    fn finish(&self, engine_closed: Result<(), String>) -> Result<(), String>;

    /// Whether the engine to other nodes and the launcher's library must
    /// stay open past the last `shmem_finalize`, so that a later
    /// `shmem_init` finds them (MPI cannot be initialised twice in a
    /// process): the job's end then waits for the process's exit (or the
    /// program's `MPI_Finalize`).
    fn outlives_finalize(&self) -> bool {
        false
    }

    /// Whether a later `shmem_init` may start the job again after
    /// [`finish`](Launcher::finish) (MPI cannot be initialised twice).
    fn restart(&self) -> Result<(), String>;

    /// Ends every PE of the job at once, if the launcher can (MPI);
    /// returns when it leaves that to the caller's exit (oshrun sees the
    /// failed PE and ends the others).
    fn abort(&self, status: i32);
}

/// A launcher and what it gave this PE: the job file of its node.
pub(super) struct Launched {
    pub launcher: &'static dyn Launcher,
    pub file: OwnedFd,
    /// The file was created here, so its header is still blank.
    pub fresh: bool,
}

/// The launcher of this process, from the moment it can abort the job.
static LAUNCHER: OnceLock<&'static dyn Launcher> = OnceLock::new();

/// Makes `launcher` the process's, for [`abort`]: each launcher calls it as
/// soon as it can abort, before the rest of its start-up may fail.
pub(super) fn register(launcher: &'static dyn Launcher) {
    let _ = LAUNCHER.set(launcher);
}

/// Joins the job of the launcher that started this process: MPI's if an
/// MPI launcher set its variables (and `oshrun` did not), else `oshrun`'s
/// or a 1-PE job's. `want_multiple`: the launcher's library must allow
/// calls from several threads at once; `node_size`: MPI's nodes cut into
/// virtual ones of that many PEs (`RSHMEM_NODE_SIZE`); `remote`: the
/// engine to other nodes (`RSHMEM_REMOTE`).
pub(super) fn join(
    routine: &str,
    want_multiple: bool,
    node_size: Option<usize>,
    remote: RemoteEngine,
) -> Result<Launched, String> {
    if mpi::launched_by_mpi() {
        mpi::join(want_multiple, node_size, remote)
    } else {
        oshrun::join(routine)
    }
}

/// [`Launcher::abort`] of the process's launcher, if it has one yet.
pub(crate) fn abort(status: i32) {
    if let Some(launcher) = LAUNCHER.get() {
        launcher.abort(status);
    }
}
