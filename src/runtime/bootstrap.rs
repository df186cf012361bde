//! First `shmem_init` of a process: attach to the job and agree on the layout.
//!
//! 1. Attach: map the control block of the job file inherited from `oshrun`
//!    (or create a private one for a 1-PE job).
//! 2. Publish: each PE writes the size of its program data and of the heap it
//!    wants into its slot and marks itself arrived.
//! 3. PE 0 checks that all PEs agree and that the heaps fit in the machine,
//!    sizes the file for every segment, and announces the layout (or, having
//!    printed why, that there is none).
//! 4. Every PE maps all segments and moves its globals into its own segment.
//!
//! The caller then marks the PE running and meets the others in a barrier.

mod attach;
mod fdshare;
pub mod mpi;

use crate::config::{Config, Setting, human_bytes};
use crate::error::{Error, ErrorKind};
use crate::heap::alloc::Allocator;
use crate::heap::tables::{self, PeerTables};
use crate::heap::{SEGMENT_ALIGN, Segments, globals, heap_align, segment};
use crate::job::{self, Control, PeState};
use crate::transport::{Active, Engine, Mapped};
use crate::wait::backoff::Policy;
use crate::wait::{Waiter, notify};
use crate::world::World;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, Ordering};

const LAYOUT_PENDING: u32 = 0;
const LAYOUT_READY: u32 = 1;
const LAYOUT_FAILED: u32 = 2;

/// Yields a wait makes before it sleeps when remote PEs may write what it
/// waits for (about 0.1 s of polling MPI between yields).
const REMOTE_YIELDS: u32 = 100_000;

/// CPUs the job's PEs share: as `oshrun` counted them (this PE may be pinned
/// to one), else this process's own count.
fn job_cpus(from_oshrun: Option<usize>) -> usize {
    from_oshrun.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The default heap when `SHMEM_SYMMETRIC_SIZE` is unset: 512 MiB, lowered so
/// all PEs' heaps take at most half the machine's memory, but not below 32 MiB.
fn default_heap(npes: usize, requested: usize) -> usize {
    let budget = segment::machine_memory() / 2 / npes as u128;
    let fit = (budget as usize) & !((1 << 20) - 1);
    requested.min(fit.max(32 << 20))
}

/// `requested`: the thread level the program asked for.
pub fn start(routine: &'static str, requested: i32) -> Result<World, Error> {
    let fail = |kind: ErrorKind| Error::new(routine, kind);
    let config = Config::from_env().map_err(|e| fail(ErrorKind::Config(e.to_string())))?;
    crate::error::set_debug(config.debug);
    let (attached, session) = if mpi::launched_by_mpi() {
        let want_multiple = config.progress_thread || requested == crate::constants::SHMEM_THREAD_MULTIPLE as i32;
        let (a, s) = mpi::attach(want_multiple).map_err(|s| fail(ErrorKind::Startup(s)))?;
        (a, Some(s))
    } else {
        (attach::attach(routine).map_err(|s| fail(ErrorKind::Startup(s)))?, None)
    };
    let attach::Attached {
        me,
        npes,
        file,
        own,
        job_cpus: cpus_from_oshrun,
    } = attached;
    // The PEs that share this job file: every PE, or this node's.
    let file_pes: Vec<usize> = session
        .as_ref()
        .map_or_else(|| (0..npes).collect(), |s| s.node_pes.clone());
    let planner = file_pes[0];
    let spans_nodes = file_pes.len() < npes;
    let page = job::page_size();

    let control_map = segment::map_shared(&file, 0, job::control_len(npes))
        .map_err(|e| fail(ErrorKind::Startup(format!("cannot map the job's control block: {e}"))))?;
    // SAFETY: the mapping is control_len(npes) bytes, page aligned, never unmapped.
    let control = unsafe { Control::from_raw(control_map.ptr, npes) };
    if own {
        control.header().npes.store(npes as u32, Ordering::Relaxed);
        control.header().magic.store(job::MAGIC, Ordering::Release);
    }
    if let Some(s) = &session {
        // The node's other PEs check the header only once its creator wrote it.
        s.shim.node_barrier().map_err(|e| fail(ErrorKind::Startup(e)))?;
    }
    if control.header().magic.load(Ordering::Acquire) != job::MAGIC
        || control.header().npes.load(Ordering::Acquire) as usize != npes
    {
        return Err(fail(ErrorKind::Startup(format!(
            "the job file (fd {}) is not an rshmem {npes}-PE job: was this process started by oshrun?",
            file.as_raw_fd()
        ))));
    }
    super::publish_exit_words(&control, me);

    let data = globals::program_data();
    let data_len = data.map_or(0, |d| d.len);
    let wanted = if config.symmetric_size_set_by.is_some() {
        config.symmetric_size
    } else {
        default_heap(file_pes.len(), config.symmetric_size)
    };
    let mut heap_len = wanted.next_multiple_of(page);
    if let Some(s) = &session {
        heap_len = mpi::agree_sizes(s.shim, npes, data_len, heap_len, config.symmetric_size_set_by.is_some())
            .map_err(|e| fail(ErrorKind::Startup(e)))?;
    }
    let mut policy = Policy::for_job(file_pes.len(), job_cpus(cpus_from_oshrun), config.wait_spin);
    if spans_nodes && !config.progress_thread {
        // Remote writes ring no bell here: without a progress thread to ring
        // it, a wait must keep polling MPI, so it yields for long and then
        // sleeps only briefly (the hang reports still start from the sleeps).
        policy.yields = REMOTE_YIELDS;
        policy.longest_sleep = policy.first_sleep;
    }
    let waiter = Waiter {
        bell: &control.slot(me).wake.sync,
        policy,
        hang_warn_secs: config.hang_warn_secs,
    };

    let info = &control.slot(me).info;
    // SAFETY: getpid has no preconditions.
    info.pid.store(unsafe { libc::getpid() }, Ordering::Relaxed);
    // Where this PE runs, for the waits of PEs that share cores (see `wait`).
    crate::wait::locate(&control.slot(me).whereabouts);
    info.want_data_len.store(data_len as u64, Ordering::Relaxed);
    info.want_heap_size.store(heap_len as u64, Ordering::Relaxed);
    control.set_state(me, PeState::Arrived);
    notify(&control.slot(planner).wake.sync);

    let header = control.header();
    if me == planner {
        waiter.wait(
            || file_pes.iter().all(|&pe| control.state(pe) == PeState::Arrived),
            || {
                format!(
                    "all {} PEs to call shmem_init (arrived: {:?})",
                    file_pes.len(),
                    file_pes
                        .iter()
                        .filter(|&&pe| control.state(pe) == PeState::Arrived)
                        .collect::<Vec<_>>()
                )
            },
        );
        let announce = |result: u32| {
            header.layout_ready.store(result, Ordering::Release);
            for &pe in &file_pes {
                notify(&control.slot(pe).wake.sync);
            }
        };
        if let Err(why) = plan_layout(
            &control,
            &file_pes,
            &file,
            config.symmetric_size_set_by.as_ref(),
            data_len,
            heap_len,
            config.space_arena_size.next_multiple_of(SEGMENT_ALIGN),
        ) {
            // The explanation first: the others exit as soon as they see the
            // failure, and the launcher may end this PE before it prints.
            let e = fail(ErrorKind::Startup(why)).report_now();
            announce(LAYOUT_FAILED);
            return Err(e);
        }
        announce(LAYOUT_READY);
    } else {
        waiter.wait(
            || header.layout_ready.load(Ordering::Acquire) != LAYOUT_PENDING,
            || format!("PE {planner} to lay out the symmetric segments"),
        );
        if header.layout_ready.load(Ordering::Acquire) == LAYOUT_FAILED {
            // PE `planner` printed why before it announced the failure.
            return Err(fail(ErrorKind::Startup(format!(
                "PE {planner} could not set up the job (see its message)"
            ))));
        }
    }

    let seg_offset = header.seg_offset.load(Ordering::Acquire);
    let stride = header.seg_stride.load(Ordering::Acquire) as usize;
    let data_part = header.data_len.load(Ordering::Acquire) as usize;
    let sync_len = header.sync_len.load(Ordering::Acquire) as usize;
    // Every heap starts at a multiple of heap_align (the stride is one).
    let all = segment::map_shared_aligned(&file, seg_offset, npes * stride, heap_align(heap_len), data_part).map_err(
        |e| {
            fail(ErrorKind::Startup(format!(
                "cannot map {} of symmetric memory ({npes} PEs x {}): {e}",
                human_bytes((npes * stride) as u128),
                human_bytes(stride as u128)
            )))
        },
    )?;
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
    if let Some(d) = data {
        let mine = seg_offset + (me * stride) as u64;
        // SAFETY: `all` maps the file from seg_offset, so our segment's globals part
        // (data_len bytes at me * stride) is live at that alias address; this is
        // start-up, before the program can have other threads using the library.
        unsafe { globals::make_symmetric(d, &file, mine, all.ptr.add(me * stride)) }.map_err(|e| {
            fail(ErrorKind::Startup(format!(
                "cannot make the program's global data symmetric: {e}"
            )))
        })?;
    }
    let area_off = seg_offset + (npes * stride) as u64;
    let mapped = Mapped {
        segs,
        control,
        file: &file,
        area_off,
        policy,
        hang_warn_secs: config.hang_warn_secs,
    };
    let engine = session
        .as_ref()
        .filter(|_| spans_nodes)
        .map(|s| Engine::Mpi(crate::transport::mpi::Engine::new(s.shim, s.node_of.clone())));
    let transport = Active::open(mapped, engine).map_err(|why| fail(ErrorKind::Startup(why)))?;
    let mut in_file = vec![false; npes];
    for &pe in &file_pes {
        in_file[pe] = true;
    }
    let tables = PeerTables::new(
        segs,
        |pe| in_file[pe],
        file,
        seg_offset,
        peer_budget(&config, file_pes.len(), stride, page),
    );
    // Under SHMEM_CHECK_BOUNDS no transfer is short: every one is checked.
    let short_elems = match config.check_bounds {
        true => [0; 5],
        false => std::array::from_fn(|log| crate::world::SHORT_TRANSFER >> log),
    };
    Ok(World {
        mpi: session,
        me,
        npes,
        psync: crate::psync::SyncState::new(config.psync_strategy),
        transport,
        heap: Mutex::new(Allocator::new(heap_len)),
        config,
        control,
        segs,
        policy,
        thread_level: AtomicI32::new(0),
        tables,
        short_elems,
    })
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

/// PE 0: checks every PE's proposal, sizes the file and writes the layout.
fn plan_layout(
    control: &Control,
    file_pes: &[usize],
    file: &OwnedFd,
    heap_set_by: Option<&Setting>,
    data_len: usize,
    heap_len: usize,
    sync_len: usize,
) -> Result<(), String> {
    let npes = control.npes();
    for &pe in &file_pes[1..] {
        let info = &control.slot(pe).info;
        let (d, h) = (
            info.want_data_len.load(Ordering::Relaxed) as usize,
            info.want_heap_size.load(Ordering::Relaxed) as usize,
        );
        if d != data_len {
            return Err(format!(
                "PE {pe} has {d} bytes of writable program data but PE 0 has {data_len}: every PE must run the same executable"
            ));
        }
        if h != heap_len {
            return Err(format!(
                "PE {pe} asks for a {} heap but PE {} for {}: set SHMEM_SYMMETRIC_SIZE the same for every PE",
                human_bytes(h as u128),
                file_pes[0],
                human_bytes(heap_len as u128)
            ));
        }
    }
    // The PEs of this machine: the job's, or this node's.
    let here = file_pes.len();
    let total = here as u128 * heap_len as u128;
    let machine = segment::machine_memory();
    if let Some(set) = heap_set_by.filter(|_| total > machine) {
        return Err(format!(
            "{}={} asks for {here} PE{} x {} = {}, more than this machine's memory ({})",
            set.var,
            set.text,
            if here == 1 { "" } else { "s" },
            human_bytes(heap_len as u128),
            human_bytes(total),
            human_bytes(machine)
        ));
    }
    // Globals part and heap both start SEGMENT_ALIGN-aligned (see heap::SEGMENT_ALIGN);
    // the rounding costs address space only, untouched pages are never allocated.
    // Sizes are at most 2^64 - 1 after that rounding (the configuration checks
    // it); their sum and the product by npes are computed wide and must fit a
    // file length (off_t). The stride is a multiple of heap_align, so that all
    // heaps can start aligned to it (see heap::heap_align); the padding goes
    // before the arena.
    let align = SEGMENT_ALIGN as u128;
    let data_part = (data_len as u128).next_multiple_of(align);
    let heap_part = (heap_len as u128).next_multiple_of(align);
    let stride = (data_part + heap_part + sync_len as u128).next_multiple_of(heap_align(heap_len) as u128);
    let seg_offset = job::control_len(npes);
    let len = seg_offset as u128 + npes as u128 * stride + crate::transport::area_len(npes) as u128;
    if len > i64::MAX as u128 {
        return Err(format!(
            "the job needs {npes} PE{} x {stride} bytes ({} of globals + {} of heap (SHMEM_SYMMETRIC_SIZE) + {} of \
             space arena (SHMEM_SPACE_ARENA_SIZE)) = {len} bytes with the control block, more than a memory file \
             can hold (2^63 - 1 bytes)",
            if npes == 1 { "" } else { "s" },
            human_bytes(data_part),
            human_bytes(heap_part),
            human_bytes(sync_len as u128),
        ));
    }
    let (data_part, stride, len) = (data_part as usize, stride as usize, len as u64);
    segment::set_len(file.as_raw_fd(), len)
        .map_err(|e| format!("cannot size the job's memory file to {}: {e}", human_bytes(len as u128)))?;
    let h = control.header();
    h.seg_offset.store(seg_offset as u64, Ordering::Relaxed);
    h.seg_stride.store(stride as u64, Ordering::Relaxed);
    h.data_len.store(data_part as u64, Ordering::Relaxed);
    h.heap_size.store(heap_len as u64, Ordering::Relaxed);
    h.sync_len.store(sync_len as u64, Ordering::Relaxed);
    Ok(())
}
