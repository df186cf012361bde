//! First `shmem_init` of a process: join the job, agree on the layout, map
//! the segments and open the transport, in one path whatever the launcher.
//!
//! 1. Join: the launcher that started this process ([`launcher`]: `oshrun`
//!    or none, `oshrun.rs`; an MPI launcher, `mpi.rs`) says who this PE is
//!    and which PEs share its node, and gives it the node's job file.
//! 2. Map the file's control block (writing its header if the file is new).
//! 3. Agree on the sizes across the job, over the launcher's exchange, then
//!    on the layout of the file among its PEs (`layout.rs`): the node's
//!    first PE checks every PE's sizes and that the heaps fit in the
//!    machine, sizes the file for every segment and announces the layout
//!    (or, having printed why, that there is none).
//! 4. Every PE maps all segments and moves its globals into its own segment.
//! 5. The transport opens over them, with the engine the launcher started
//!    to reach other nodes, if the job has several.
//!
//! The caller then marks the PE running and meets the others in a barrier.

mod fdshare;
mod launcher;
mod layout;
mod mpi;
mod oshrun;

pub(crate) use launcher::{Launcher, abort};

use crate::config::{Config, human_bytes};
use crate::error::{Error, ErrorKind};
use crate::heap::huge::{self, Pages};
use crate::heap::tables::{self, PeerTables};
use crate::heap::{Segments, globals, heap_align, segment};
use crate::job::{self, Control};
use crate::transport::{Active, Mapped};
use crate::wait::Waiter;
use crate::wait::backoff::Policy;
use crate::world::World;
use launcher::Launched;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::Ordering;

/// Yields a wait makes before it sleeps when remote PEs may write what it
/// waits for (about 0.1 s of polling MPI between yields).
const REMOTE_YIELDS: u32 = 100_000;

/// Whether the engine to other nodes is asked for thread safety at start-up:
/// for the progress thread, a `SHMEM_THREAD_MULTIPLE` program, or the
/// non-blocking collectives' workers on every node (`RSHMEM_NBC_THREAD=on`).
pub(crate) fn engine_thread_safe(config: &Config, requested: i32) -> bool {
    config.progress_thread
        || config.nbc_thread == crate::config::NbcThread::On
        || requested == crate::constants::SHMEM_THREAD_MULTIPLE as i32
}

/// `requested`: the thread level the program asked for. Returns the PE's
/// world and the launcher, which the job's end and its exit paths need.
pub(crate) fn start(routine: &'static str, requested: i32) -> Result<(World, &'static dyn Launcher), Error> {
    let fail = |why: String| Error::new(routine, ErrorKind::Startup(why));
    let config = Config::from_env().map_err(|e| Error::new(routine, ErrorKind::Config(e.to_string())))?;
    crate::error::set_debug(config.debug);
    let want_multiple = engine_thread_safe(&config, requested);
    let Launched { launcher, file, fresh } =
        launcher::join(routine, want_multiple, config.node_size, config.remote).map_err(fail)?;
    let (me, npes) = (launcher.me(), launcher.npes());
    let control = open_control(launcher, &file, fresh).map_err(fail)?;
    super::publish_exit_words(&control, me);

    let data = globals::program_data();
    let data_len = data.map_or(0, |d| d.len);
    let heap_len = layout::heap_size(&config, launcher, data_len).map_err(fail)?;
    let policy = wait_policy(&config, launcher);
    let waiter = Waiter {
        bell: &control.slot(me).wake.sync,
        policy,
        hang_warn_secs: config.hang_warn_secs,
    };
    let heap_file = layout::lay_out(
        routine,
        &control,
        &file,
        launcher,
        &waiter,
        &config,
        (data_len, heap_len),
    )?;

    let (segs, seg_offset, heaps) =
        map_segments(&control, &file, launcher.node_pes(), me, heap_len, data, heap_file).map_err(fail)?;
    let mapped = Mapped {
        segs,
        control,
        file: &file,
        area_off: seg_offset + (npes * segs.stride) as u64,
        policy,
        hang_warn_secs: config.hang_warn_secs,
    };
    let transport = Active::open(mapped, launcher.engine()).map_err(fail)?;
    let node_pes = launcher.node_pes();
    let mut in_file = vec![false; npes];
    for &pe in node_pes {
        in_file[pe] = true;
    }
    let budget = peer_budget(&config, node_pes.len(), segs.stride, job::page_size());
    let tables = PeerTables::new(segs, |pe| in_file[pe], file, seg_offset, budget, heaps);
    let world = World::new(config, control, segs, transport, policy, tables);
    Ok((world, launcher))
}

/// The control block of the node's job file, mapped, with its header
/// written if the file is `fresh` (created by this PE) and checked once the
/// launcher says whoever wrote it has.
fn open_control(launcher: &dyn Launcher, file: &OwnedFd, fresh: bool) -> Result<Control, String> {
    let npes = launcher.npes();
    let control_map = segment::map_shared(file, 0, job::control_len(npes))
        .map_err(|e| format!("cannot map the job's control block: {e}"))?;
    // SAFETY: the mapping is control_len(npes) bytes, page aligned, never unmapped.
    let control = unsafe { Control::from_raw(control_map.ptr, npes) };
    if fresh {
        control.header().npes.store(npes as u32, Ordering::Relaxed);
        control.header().magic.store(job::MAGIC, Ordering::Release);
    }
    // The node's other PEs check the header only once its creator wrote it.
    launcher.node_barrier()?;
    if control.header().magic.load(Ordering::Acquire) != job::MAGIC
        || control.header().npes.load(Ordering::Acquire) as usize != npes
    {
        return Err(format!(
            "the job file (fd {}) is not an rshmem {npes}-PE job: was this process started by oshrun?",
            file.as_raw_fd()
        ));
    }
    Ok(control)
}

/// How this PE's waits spin, yield and sleep, for the PEs sharing its node's
/// CPUs (as the launcher counted them, else this process's own count).
fn wait_policy(config: &Config, launcher: &dyn Launcher) -> Policy {
    let node_pes = launcher.node_pes().len();
    let host_pes = launcher.host_pes();
    let cpus = launcher
        .cpus()
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut policy = Policy::for_job(host_pes, cpus, config.wait_spin);
    if node_pes < launcher.npes() && !config.progress_thread {
        // Remote writes ring no bell here: without a progress thread to ring
        // it, a wait must keep polling MPI, so it yields for long and then
        // sleeps only briefly (the hang reports still start from the sleeps).
        policy.yields = REMOTE_YIELDS;
        policy.longest_sleep = policy.first_sleep;
    }
    policy
}

/// Every segment of the announced layout, mapped at once, with the heaps of
/// the node's PEs (`node_pes`) on huge pages where the layout says so
/// (`heap_file`: the hugetlb heap file if this PE created it), and this PE's
/// globals moved into its own; returns them, their offset in the file and
/// how the heaps are mapped.
fn map_segments(
    control: &Control,
    file: &OwnedFd,
    node_pes: &[usize],
    me: usize,
    heap_len: usize,
    data: Option<globals::DataRange>,
    heap_file: Option<OwnedFd>,
) -> Result<(Segments, u64, huge::HugeHeaps), String> {
    let (header, npes) = (control.header(), control.npes());
    let seg_offset = header.seg_offset.load(Ordering::Acquire);
    let stride = header.seg_stride.load(Ordering::Acquire) as usize;
    let data_part = header.data_len.load(Ordering::Acquire) as usize;
    let sync_len = header.sync_len.load(Ordering::Acquire) as usize;
    let pages = Pages::from_word(header.heap_pages.load(Ordering::Acquire));
    let page = match pages {
        Pages::Small => None,
        Pages::Hugetlb(size) | Pages::Transparent { size, .. } => Some(size),
    };
    let heap_file = match (pages, heap_file) {
        (Pages::Hugetlb(_), Some(f)) => Some(f),
        (Pages::Hugetlb(_), None) => {
            let planner = node_pes[0];
            let pid = control.slot(planner).info.pid.load(Ordering::Acquire);
            Some(huge::open_file(planner, pid, header.heap_fd.load(Ordering::Acquire))?)
        }
        _ => None,
    };
    let mut piece_of = vec![None; npes];
    for (i, &pe) in node_pes.iter().enumerate() {
        piece_of[pe] = Some(i);
    }
    let heaps = huge::HugeHeaps {
        pages,
        file: heap_file,
        piece_of,
        piece: page.map_or(0, |p| huge::piece_len(heap_len, p)),
    };
    // Every heap starts at a multiple of heap_align (the stride is one), and
    // of the huge page.
    let align = heap_align(heap_len).max(page.unwrap_or(0));
    let all = segment::map_shared_aligned(file, seg_offset, npes * stride, align, data_part).map_err(|e| {
        format!(
            "cannot map {} of symmetric memory ({npes} PEs x {}): {e}",
            human_bytes((npes * stride) as u128),
            human_bytes(stride as u128)
        )
    })?;
    let segs = Segments {
        base: all.ptr,
        stride,
        npes,
        me,
        data,
        data_len: data_part,
        heap_len,
        sync_off: stride - sync_len,
        sync_len,
    };
    heaps
        .apply(&segs)
        .map_err(|e| format!("cannot put the symmetric heaps on {}: {e}", pages.describe()))?;
    huge::set_in_use(pages, heap_len);
    if let Some(d) = data {
        let mine = seg_offset + (me * stride) as u64;
        // SAFETY: `all` maps the file from seg_offset, so our segment's globals part
        // (data_len bytes at me * stride) is live at that alias address; this is
        // start-up, before the program can have other threads using the library.
        unsafe { globals::make_symmetric(d, file, mine, all.ptr.add(me * stride)) }
            .map_err(|e| format!("cannot make the program's global data symmetric: {e}"))?;
    }
    Ok((segs, seg_offset, heaps))
}

/// Other PEs a PE may reach before it drops their page tables
/// (`heap::tables`): `SHMEM_PEER_TABLES`, or the automatic budget for the
/// `node_pes` PEs sharing the job file. None: never (also under the checking
/// transport, where the other segments are inaccessible and must stay so).
fn peer_budget(config: &Config, node_pes: usize, stride: usize, page: usize) -> Option<usize> {
    if cfg!(feature = "check-transport") {
        return None;
    }
    match config.peer_tables {
        Some(0) => None,
        Some(n) => Some(n),
        None => tables::auto_budget(node_pes, stride, page, segment::machine_memory()),
    }
}
