//! The layout of the symmetric segments, agreed in two steps: the sizes
//! every PE asks for across the job, over the launcher's exchange when it has
//! one ([`heap_size`]), then the layout of the node's job file among the
//! PEs that share it, in its control block ([`lay_out`]): each PE publishes
//! its sizes and arrives, the node's first PE checks them, sizes the file
//! and announces the layout (or, having printed why, that there is none).

use super::launcher::Launcher;
use crate::config::{Config, Setting, human_bytes};
use crate::error::{Error, ErrorKind};
use crate::heap::huge::{self, Pages};
use crate::heap::{SEGMENT_ALIGN, heap_align, segment};
use crate::job::{self, Control, PeState};
use crate::wait::{Waiter, notify};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::Ordering;

const LAYOUT_PENDING: u32 = 0;
const LAYOUT_READY: u32 = 1;
const LAYOUT_FAILED: u32 = 2;

/// The default heap when `SHMEM_SYMMETRIC_SIZE` is unset: 512 MiB, lowered so
/// all PEs' heaps take at most half the machine's memory, but not below 32 MiB.
fn default_heap(npes: usize, requested: usize) -> usize {
    let budget = segment::machine_memory() / 2 / npes as u128;
    let fit = (budget as usize) & !((1 << 20) - 1);
    requested.min(fit.max(32 << 20))
}

/// The heap size of every PE: asked for (`SHMEM_SYMMETRIC_SIZE`, or the
/// default for the node's PEs), then agreed with every PE over the
/// launcher's exchange, with the program data's size.
pub(super) fn heap_size(config: &Config, launcher: &dyn Launcher, data_len: usize) -> Result<usize, String> {
    let heap_set = config.symmetric_size_set_by.is_some();
    let wanted = match heap_set {
        true => config.symmetric_size,
        false => default_heap(launcher.node_pes().len(), config.symmetric_size),
    };
    let heap_len = wanted.next_multiple_of(job::page_size());
    // The sizes, then the host name (for messages naming another node's PE,
    // transport::mpi::status), in the same exchange.
    let mut mine = [0u8; RECORD];
    mine[..8].copy_from_slice(&(data_len as u64).to_le_bytes());
    mine[8..16].copy_from_slice(&(heap_len as u64).to_le_bytes());
    mine[16..24].copy_from_slice(&u64::from(heap_set).to_le_bytes());
    mine[24..32].copy_from_slice(&(huge_request(config).unwrap_or(0) as u64).to_le_bytes());
    let host = crate::transport::mpi::status::this_host();
    let n = host.len().min(RECORD - HOST_AT);
    mine[HOST_AT..HOST_AT + n].copy_from_slice(&host.as_bytes()[..n]);
    match launcher.exchange(&mine) {
        Some(all) => agree_sizes(&all?, launcher.npes(), heap_len, heap_set),
        None => Ok(heap_len),
    }
}

/// The huge page size the heaps are asked to be on, if any.
pub(super) fn huge_request(config: &Config) -> Option<usize> {
    config.huge_pages.then_some(config.huge_page_size)
}

/// This PE's sizes published in its slot and the node's layout agreed:
/// the node's first PE waits for the others, checks and
/// announces; the others wait for its announcement. Returns the hugetlb
/// heap file if this PE created it (the node's first PE, which must keep it
/// open for the others to open it).
pub(super) fn lay_out(
    routine: &'static str,
    control: &Control,
    file: &OwnedFd,
    launcher: &dyn Launcher,
    waiter: &Waiter<'_>,
    config: &Config,
    (data_len, heap_len): (usize, usize),
) -> Result<Option<OwnedFd>, Error> {
    let (me, node_pes) = (launcher.me(), launcher.node_pes());
    let planner = node_pes[0];
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
    if me != planner {
        waiter.wait(
            || header.layout_ready.load(Ordering::Acquire) != LAYOUT_PENDING,
            || format!("PE {planner} to lay out the symmetric segments"),
        );
        if header.layout_ready.load(Ordering::Acquire) == LAYOUT_FAILED {
            // PE `planner` printed why before it announced the failure.
            return Err(Error::new(
                routine,
                ErrorKind::Startup(format!("PE {planner} could not set up the job (see its message)")),
            ));
        }
        return Ok(None);
    }
    waiter.wait(
        || node_pes.iter().all(|&pe| control.state(pe) == PeState::Arrived),
        || {
            format!(
                "all {} PEs to call shmem_init (arrived: {:?})",
                node_pes.len(),
                node_pes
                    .iter()
                    .filter(|&&pe| control.state(pe) == PeState::Arrived)
                    .collect::<Vec<_>>()
            )
        },
    );
    let announce = |result: u32| {
        header.layout_ready.store(result, Ordering::Release);
        for &pe in node_pes {
            notify(&control.slot(pe).wake.sync);
        }
    };
    let planned = plan_layout(
        control,
        node_pes,
        file,
        config.symmetric_size_set_by.as_ref(),
        data_len,
        heap_len,
        config.space_arena_size.next_multiple_of(SEGMENT_ALIGN),
        huge_request(config),
    );
    let heap_file = match planned {
        Ok(f) => f,
        Err(why) => {
            // The explanation first: the others exit as soon as they see the
            // failure, and the launcher may end this PE before it prints.
            let e = Error::new(routine, ErrorKind::Startup(why)).report_now();
            announce(LAYOUT_FAILED);
            return Err(e);
        }
    };
    announce(LAYOUT_READY);
    Ok(heap_file)
}

/// PE 0: checks every PE's proposal, sizes the file and writes the layout;
/// with huge pages asked for (`huge_page`), chooses them (`heap::huge`) and
/// creates the node's hugetlb heap file when they are explicit.
#[allow(clippy::too_many_arguments)]
fn plan_layout(
    control: &Control,
    file_pes: &[usize],
    file: &OwnedFd,
    heap_set_by: Option<&Setting>,
    data_len: usize,
    heap_len: usize,
    sync_len: usize,
    huge_page: Option<usize>,
) -> Result<Option<OwnedFd>, String> {
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
    // With huge pages asked for, the globals part and the heap are whole
    // pages too, and so is the stride (see heap::huge): the same layout on
    // every node, whatever pages each gets.
    let align = huge::layout_align(huge_page) as u128;
    let data_part = (data_len as u128).next_multiple_of(align);
    let heap_part = (heap_len as u128).next_multiple_of(align);
    let stride =
        (data_part + heap_part + sync_len as u128).next_multiple_of(heap_align(heap_len).max(align as usize) as u128);
    let pages = match huge_page {
        Some(page) => huge::choose(page, here, heap_len, &huge::kernel(page))?,
        None => Pages::Small,
    };
    // Transparent huge pages need the heaps' file offsets aligned as their
    // addresses are: the segments then start at a multiple of the page.
    let seg_offset = match pages {
        Pages::Transparent { size, .. } => job::control_len(npes).next_multiple_of(size.max(SEGMENT_ALIGN)),
        _ => job::control_len(npes),
    };
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
    let heap_file = match pages {
        Pages::Hugetlb(page) => Some(huge::create_file(page, here, heap_len)?),
        _ => None,
    };
    let h = control.header();
    h.heap_pages.store(pages.word(), Ordering::Relaxed);
    h.heap_fd.store(
        heap_file.as_ref().map_or(0, |f| f.as_raw_fd() as u64),
        Ordering::Relaxed,
    );
    h.seg_offset.store(seg_offset as u64, Ordering::Relaxed);
    h.seg_stride.store(stride as u64, Ordering::Relaxed);
    h.data_len.store(data_part as u64, Ordering::Relaxed);
    h.heap_size.store(heap_len as u64, Ordering::Relaxed);
    h.sync_len.store(sync_len as u64, Ordering::Relaxed);
    Ok(heap_file)
}

/// Bytes each PE contributes to [`heap_size`]: three sizes, the huge page
/// size it asks for (0: none) and its host name (from [`HOST_AT`]).
const RECORD: usize = 72;
/// Where the host name starts in a [`RECORD`].
const HOST_AT: usize = 32;

/// The sizes every PE asks for, agreed over the launcher's exchange (`all`:
/// every PE's [`RECORD`]): the data sizes must match, set heap sizes must
/// match, and default heaps (lowered to fit each node's memory) take the
/// smallest. Returns the heap size to use.
fn agree_sizes(all: &[u8], npes: usize, heap_len: usize, heap_set: bool) -> Result<usize, String> {
    let field = |pe: usize, i: usize| {
        let at = pe * RECORD + i * 8;
        u64::from_le_bytes(all[at..at + 8].try_into().expect("8 bytes")) as usize
    };
    crate::transport::mpi::status::set_hosts(
        (0..npes)
            .map(|pe| {
                let name = &all[pe * RECORD + HOST_AT..(pe + 1) * RECORD];
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
        if field(pe, 3) != field(0, 3) {
            let page = |pe| match field(pe, 3) {
                0 => "small pages".to_string(),
                p => format!("{} huge pages", human_bytes(p as u128)),
            };
            return Err(format!(
                "PE {pe} asks for its heap on {} but PE 0 on {}: set SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES and \
                 SHMEM_SYMMETRIC_HEAP_PAGE_SIZE the same for every PE",
                page(pe),
                page(0)
            ));
        }
        heap = heap.min(field(pe, 1));
    }
    Ok(heap)
}
