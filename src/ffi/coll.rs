//! Collective shims: the team-based routines of OpenSHMEM 1.5/1.6 and the
//! deprecated active-set routines (`PE_start`, `logPE_stride`, `PE_size`,
//! `pSync`, `pWrk`).
//!
//! Arguments are checked here, and only that: symmetric buffers of the right
//! size, a root inside the group, a caller that belongs to the active set, a
//! pSync (and its inbox) long enough; under `SHMEM_CHECK_COLLECTIVES` a
//! team routine first has the members agree on its arguments
//! (`check::agree`, before any early return, so that every member takes
//! part; active-set routines are not compared). Each shim then calls the
//! `coll` entry point of its kind, which chooses the algorithm and runs it:
//! team-based routines on the team's synchronisation memory, active-set
//! routines on the caller's `pSync` (whose words the algorithms leave at
//! `SHMEM_SYNC_VALUE` when they return) with `pWrk` as reduction scratch.

use super::check;
use super::handle::TeamHandle;
use crate::coll::check::{NOT_IN_HEAP, Record, What};
use crate::coll::{self, ActiveSet, Group, TeamRef};
use crate::error::{Error, ErrorKind, fatal};
use crate::heap::SymOffset;
use crate::psync::{FLAG_BYTES, INBOX_PSYNC_BYTES};
use crate::runtime::{self, Runtime};
use crate::types::{Arith, Bitwise, Combine, OpAnd, OpMax, OpMin, OpOr, OpProd, OpSum, OpXor, Ordered, ShmemType};
use core::ffi::{c_int, c_long, c_void};
use std::mem::size_of;

/// The symmetric offset of `len` bytes at `addr`. An empty buffer still has
/// the offset of its address when that is symmetric: the other members use
/// the same offset for their own, non-empty buffers (collect).
/// The buffer must be symmetric on every member of `g` (a space's memory
/// only serves its team's members).
fn buffer(rt: &Runtime, routine: &'static str, g: Group, name: &'static str, addr: usize, len: usize) -> SymOffset {
    if len == 0 {
        return rt
            .own_offset(addr, 0)
            .or_else(|| rt.spaces.resolve(rt, addr, 0).map(|(off, _)| off))
            .unwrap_or(SymOffset(0));
    }
    check::sym_group(rt, routine, name, addr, len, g)
}

/// Checked buffers of a collective that moves blocks of `nelems` elements of
/// `T` among `members`: `dest` holds one block per member, `source` one
/// block, or one per member when `source_per_member`. `None` when there is
/// nothing to move.
fn blocks<T>(
    rt: &Runtime,
    routine: &'static str,
    (dest, source): (usize, usize),
    nelems: usize,
    g: Group,
    source_per_member: bool,
) -> Option<(SymOffset, SymOffset, usize)> {
    let members = g.size;
    let len = check::bytes(routine, "nelems", nelems, size_of::<T>());
    if len == 0 {
        return None;
    }
    let total = check::bytes(routine, "nelems", nelems, size_of::<T>() * members);
    let d = buffer(rt, routine, g, "dest", dest, total);
    let s_len = if source_per_member { total } else { len };
    let s = buffer(rt, routine, g, "source", source, s_len);
    Some((d, s, len))
}

// The pSync sizes of `shmem.h` are the ones the algorithms use.
const _: () = assert!(super::constants::SHMEM_BARRIER_SYNC_SIZE as usize * 8 == FLAG_BYTES);
const _: () = assert!(super::constants::SHMEM_BCAST_SYNC_SIZE as usize * 8 == INBOX_PSYNC_BYTES);
const _: () = assert!(super::constants::SHMEM_REDUCE_SYNC_SIZE as usize * 8 == INBOX_PSYNC_BYTES);
const _: () = assert!(super::constants::SHMEM_COLLECT_SYNC_SIZE as usize * 8 == INBOX_PSYNC_BYTES);
const _: () = assert!(super::constants::SHMEM_ALLTOALL_SYNC_SIZE as usize * 8 == INBOX_PSYNC_BYTES);

fn usage(routine: &'static str, text: String) -> ! {
    fatal(&Error::new(routine, ErrorKind::Usage(text)))
}

/// The group and sync array of an active-set call. `None` when this PE is
/// not a member (after a warning): the call then has no effect.
/// With `SHMEM_CHECK_COLLECTIVES`, the members then agree on the call's
/// arguments (`record`) before anything else happens.
fn active_set(
    rt: &Runtime,
    routine: &'static str,
    (start, log_stride, size): (c_int, c_int, c_int),
    psync: *mut c_long,
    record: impl FnOnce() -> Record,
) -> Option<ActiveSet> {
    let npes = rt.npes as i64;
    if !(0..=30).contains(&log_stride) {
        usage(
            routine,
            format!(
                "{} is {log_stride}, outside [0, 30]",
                check::label(routine, "logPE_stride")
            ),
        );
    }
    if size < 1 || start < 0 || start as i64 >= npes {
        usage(
            routine,
            format!(
                "the active set PE_start {start}, logPE_stride {log_stride}, PE_size {size} is empty or starts outside [0, {}]",
                npes - 1
            ),
        );
    }
    let stride = 1i64 << log_stride;
    let last = start as i64 + (size as i64 - 1) * stride;
    if last >= npes {
        usage(
            routine,
            format!(
                "the active set PE_start {start}, logPE_stride {log_stride}, PE_size {size} reaches PE {last}, outside [0, {}]",
                npes - 1
            ),
        );
    }
    let g = Group {
        start: start as isize,
        stride: stride as isize,
        size: size as usize,
        rank: 0,
    };
    let Some(rank) = g.rank_of(rt.me) else {
        // Undefined in OpenSHMEM 1.5, but widely used programs call with every
        // PE and Open MPI returns without effect: do the same (touching
        // neither dest nor pSync, so the members run as if this PE had not
        // called), and say so once per routine.
        crate::error::warn_once(routine, || {
            format!(
                "not in the active set (PE_start {start}, logPE_stride {log_stride}, PE_size {size}); the call has no effect"
            )
        });
        return None;
    };
    check::aligned::<u64>(routine, "pSync", psync as usize);
    let g = Group { rank, ..g };
    if rt.config.check_collectives {
        coll::check_set::agree_set((rt, &rt.set_check), routine, g, (start, log_stride, size), record());
    }
    let flags = check::sym_group(rt, routine, "pSync", psync as usize, FLAG_BYTES, g);
    Some(ActiveSet { group: g, psync: flags })
}

/// The inbox after the flags of an active-set call's pSync,
/// which the pushed collectives write (`psync::INBOX_BYTES`). A pSync from
/// `shmem_malloc` too short for it is refused rather than written past (a
/// global's size is not known; the range check covers it).
fn inbox(rt: &Runtime, routine: &'static str, g: Group, psync: *mut c_long, kind: &str, size_name: &str) -> SymOffset {
    let flags = check::sym_group(rt, routine, "pSync", psync as usize, INBOX_PSYNC_BYTES, g);
    if let Some(left) = crate::memory::short_block(rt, psync as usize, INBOX_PSYNC_BYTES) {
        usage(
            routine,
            format!(
                "{} = {psync:p} has {left} bytes left in its shmem_malloc block; {kind}'s pSync needs {size_name} ({}) longs ({INBOX_PSYNC_BYTES} bytes)",
                check::label(routine, "pSync"),
                INBOX_PSYNC_BYTES / 8
            ),
        );
    }
    SymOffset(flags.0 + FLAG_BYTES)
}

/// What a member sent through the team's inbox, when it is not what this
/// PE expected, in words (`None`: only its length differs).
fn other_call(e: &coll::Disagreement) -> Option<String> {
    let (from, found) = (e.from, e.found);
    if found.call() != e.expected.call() {
        return Some(format!(
            "team PE {from} is in another collective on this team: collectives called in different orders or with different arguments"
        ));
    }
    match (found.root(), e.expected.root()) {
        (a, b) if a == b => None,
        (Some(root), _) => Some(format!(
            "team PE {from} broadcasts (root {root}) in this collective on this team: collectives called in different orders"
        )),
        (None, _) => Some(format!(
            "team PE {from} calls an fcollect, alltoall or reduction on this team: collectives called in different orders"
        )),
    }
}

/// A team member sent a block through the team's inbox of another length
/// than this PE's `count` argument gives (`len` bytes), or of another
/// collective.
fn disagreement(routine: &'static str, count: &str, len: usize, e: coll::Disagreement) -> ! {
    let text = other_call(&e).unwrap_or_else(|| {
        format!(
            "{count} gives {len} bytes here but team PE {} sends {} bytes on this team",
            e.from,
            e.found.bytes()
        )
    });
    usage(routine, text)
}

/// A broadcast whose message through the team's inbox is not what this PE
/// (team PE `root` its root) expected: another root, another length, or
/// another collective.
fn bcast_disagreement(routine: &'static str, len: usize, root: usize, e: coll::Disagreement) -> ! {
    let (found, expected) = (e.found, e.expected);
    let text = match (found.root(), expected.root()) {
        (Some(theirs), Some(mine)) if theirs != mine && found.call() == expected.call() => {
            format!("root is {mine} here but team PE {} gives root {theirs}", e.from)
        }
        _ if found.call() != expected.call() && e.from == root => format!(
            "root is {root} here but team PE {root} is in another collective on this team: collectives called in different orders or with different roots"
        ),
        _ => other_call(&e).unwrap_or_else(|| {
            format!(
                "nelems gives {len} bytes here but the root (team PE {root}) broadcasts {} bytes on this team",
                found.bytes()
            )
        }),
    };
    usage(routine, text)
}

fn root_in(routine: &'static str, root: c_int, size: usize) -> usize {
    if root < 0 || root as usize >= size {
        fatal(&Error::new(
            routine,
            ErrorKind::PeOutOfRange {
                name: "PE_root",
                pe: root as i64,
                npes: size,
            },
        ))
    }
    root as usize
}

// ---- Team-based routines -------------------------------------------------

pub(crate) fn broadcast<T: ShmemType>(
    routine: &'static str,
    team: TeamHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    root: c_int,
) -> c_int {
    let rt = runtime::get(routine);
    let t = check::team(routine, "team", team);
    check::agree(rt, routine, (&*t, team), || {
        let args = [nelems as u64, root as i64 as u64];
        Record::new(routine, What::Broadcast, "", size_of::<T>(), &args)
    });
    let root = root_in(routine, root, t.size);
    let len = check::bytes(routine, "nelems", nelems, size_of::<T>());
    if len == 0 {
        return 0;
    }
    let d = buffer(rt, routine, t.group(), "dest", dest as usize, len);
    let s = buffer(rt, routine, t.group(), "source", source as usize, len);
    if let Err(e) = coll::broadcast(rt, routine, t.coll(), (d, s), len, root) {
        bcast_disagreement(routine, len, root, e);
    }
    0
}

pub(crate) fn collect<T: ShmemType>(
    routine: &'static str,
    team: TeamHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
) -> c_int {
    let rt = runtime::get(routine);
    let t = check::team(routine, "team", team);
    // nelems may differ between members.
    check::agree(rt, routine, (&*t, team), || {
        Record::new(routine, What::Collect, "", size_of::<T>(), &[])
    });
    let len = check::bytes(routine, "nelems", nelems, size_of::<T>());
    let s = buffer(rt, routine, t.group(), "source", source as usize, len);
    // The destination's size is known once the members have published theirs.
    let dest_for = |total| buffer(rt, routine, t.group(), "dest", dest as usize, total);
    coll::collect(rt, routine, t.coll(), dest_for, s, len);
    0
}

pub(crate) fn fcollect<T: ShmemType>(
    routine: &'static str,
    team: TeamHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
) -> c_int {
    let rt = runtime::get(routine);
    let t = check::team(routine, "team", team);
    check::agree(rt, routine, (&*t, team), || {
        Record::new(routine, What::Fcollect, "", size_of::<T>(), &[nelems as u64])
    });
    let args = (dest as usize, source as usize);
    let Some((d, s, len)) = blocks::<T>(rt, routine, args, nelems, t.group(), false) else {
        return 0;
    };
    if let Err(e) = coll::fcollect(rt, routine, t.coll(), (d, s), len) {
        disagreement(routine, "nelems", len, e);
    }
    0
}

pub(crate) fn alltoall<T: ShmemType>(
    routine: &'static str,
    team: TeamHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
) -> c_int {
    let rt = runtime::get(routine);
    let t = check::team(routine, "team", team);
    check::agree(rt, routine, (&*t, team), || {
        Record::new(routine, What::Alltoall, "", size_of::<T>(), &[nelems as u64])
    });
    let args = (dest as usize, source as usize);
    let Some((d, s, len)) = blocks::<T>(rt, routine, args, nelems, t.group(), true) else {
        return 0;
    };
    if let Err(e) = coll::alltoall(rt, routine, t.coll(), (d, s), len) {
        disagreement(routine, "nelems", len, e);
    }
    0
}

/// Bytes spanned by `n` elements of `size` bytes at stride `stride` (>= 1,
/// the argument `name`), `n` being from argument `nelems`.
pub(crate) fn strided_span(routine: &'static str, name: &'static str, n: usize, stride: isize, size: usize) -> usize {
    if stride < 1 {
        usage(
            routine,
            format!(
                "{} is {stride}: strides must be at least 1",
                check::label(routine, name)
            ),
        );
    }
    if n == 0 {
        return 0;
    }
    let elems = (n - 1)
        .checked_mul(stride as usize)
        .and_then(|e| e.checked_add(1))
        .unwrap_or_else(|| check::too_large(routine, "nelems", n));
    check::bytes(routine, "nelems", elems, size)
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn alltoalls<T: ShmemType>(
    routine: &'static str,
    team: TeamHandle,
    dest: *mut T,
    source: *const T,
    dst: isize,
    sst: isize,
    nelems: usize,
) -> c_int {
    let rt = runtime::get(routine);
    let t = check::team(routine, "team", team);
    check::agree(rt, routine, (&*t, team), || {
        let args = [dst as i64 as u64, sst as i64 as u64, nelems as u64];
        Record::new(routine, What::Alltoalls, "", size_of::<T>(), &args)
    });
    let all = nelems
        .checked_mul(t.size)
        .unwrap_or_else(|| check::too_large(routine, "nelems", nelems));
    let dlen = strided_span(routine, "dst", all, dst, size_of::<T>());
    let slen = strided_span(routine, "sst", all, sst, size_of::<T>());
    if nelems == 0 {
        return 0;
    }
    let d = buffer(rt, routine, t.group(), "dest", dest as usize, dlen);
    let s = buffer(rt, routine, t.group(), "source", source as usize, slen);
    coll::alltoalls::<T>(rt, routine, t.coll(), (d, s), (dst, sst), nelems);
    0
}

/// A team collective on `n` elements of `T` in `dest` and `source` alike
/// (reductions, scans) of kind `what` with operation `op`: checks, then
/// `run(coll, dest, source, bytes)`.
fn elementwise<T: ShmemType>(
    routine: &'static str,
    team: TeamHandle,
    dest: *mut T,
    source: *const T,
    (count, n): (&'static str, usize),
    (what, op): (What, &'static str),
    run: impl FnOnce(&Runtime, TeamRef<'_>, (SymOffset, SymOffset), usize),
) -> c_int {
    let rt = runtime::get(routine);
    let t = check::team(routine, "team", team);
    check::agree(rt, routine, (&*t, team), || match what {
        What::Reduce => Record::new(
            routine,
            what,
            op,
            size_of::<T>(),
            &reduce_args(rt, dest, source, n as i64),
        ),
        _ => Record::new(routine, what, op, size_of::<T>(), &[n as u64]),
    });
    let len = check::bytes(routine, count, n, size_of::<T>());
    if len == 0 {
        return 0;
    }
    let d = buffer(rt, routine, t.group(), "dest", dest as usize, len);
    let s = buffer(rt, routine, t.group(), "source", source as usize, len);
    run(rt, t.coll(), (d, s), len);
    0
}

/// What a reduction's check compares: the count, and the symmetric offsets
/// of `dest` and `source` (which OpenSHMEM 1.6 requires equal on every
/// member), or 0 for both when there is nothing to reduce.
fn reduce_args<T>(rt: &Runtime, dest: *mut T, source: *const T, nreduce: i64) -> [u64; 3] {
    let off = |a: usize| rt.own_offset(a, 0).map_or(NOT_IN_HEAP, |o| o.0 as u64);
    match nreduce > 0 {
        true => [nreduce as u64, off(dest as usize), off(source as usize)],
        false => [nreduce as u64, 0, 0],
    }
}

/// A team reduction with `O`, the operation named `op` (`"sum"`, ...).
fn reduce_team<T: ShmemType, O: Combine<T>>(
    routine: &'static str,
    team: TeamHandle,
    (dest, source): (*mut T, *const T),
    n: usize,
    op: &'static str,
) -> c_int {
    let what = (What::Reduce, op);
    elementwise(routine, team, dest, source, ("nreduce", n), what, |rt, t, ds, len| {
        if let Err(e) = coll::reduce::<T, O>(rt, routine, t, ds, n, len) {
            disagreement(routine, "nreduce", len, e);
        }
    })
}

macro_rules! team_reductions {
    ($($name:ident: $bound:ident => $op:ty),*) => {$(
        pub(crate) fn $name<T: ShmemType + $bound>(
            routine: &'static str,
            team: TeamHandle,
            dest: *mut T,
            source: *const T,
            nreduce: usize,
        ) -> c_int {
            let op = stringify!($name).trim_end_matches("_reduce");
            reduce_team::<T, $op>(routine, team, (dest, source), nreduce, op)
        }
    )*};
}
team_reductions!(and_reduce: Bitwise => OpAnd, or_reduce: Bitwise => OpOr, xor_reduce: Bitwise => OpXor,
                 max_reduce: Ordered => OpMax, min_reduce: Ordered => OpMin,
                 sum_reduce: Arith => OpSum, prod_reduce: Arith => OpProd);

fn scan<T: ShmemType + Arith>(
    routine: &'static str,
    team: TeamHandle,
    dest: *mut T,
    source: *const T,
    n: usize,
    inclusive: bool,
) -> c_int {
    let what = (What::Scan, if inclusive { "inclusive" } else { "exclusive" });
    elementwise(routine, team, dest, source, ("nelems", n), what, |rt, t, ds, _| {
        coll::scan::<T, OpSum>(rt, routine, t, ds, n, inclusive)
    })
}

pub(crate) fn sum_inscan<T: ShmemType + Arith>(
    routine: &'static str,
    team: TeamHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
) -> c_int {
    scan(routine, team, dest, source, nelems, true)
}

pub(crate) fn sum_exscan<T: ShmemType + Arith>(
    routine: &'static str,
    team: TeamHandle,
    dest: *mut T,
    source: *const T,
    nelems: usize,
) -> c_int {
    scan(routine, team, dest, source, nelems, false)
}

// ---- Deprecated active-set routines --------------------------------------

/// `shmem_barrier`: completes this PE's puts, then a barrier over the set.
pub(crate) fn barrier(routine: &'static str, start: c_int, log_stride: c_int, size: c_int, psync: *mut c_long) {
    let rt = runtime::get(routine);
    if let Some(a) = active_set(rt, routine, (start, log_stride, size), psync, || {
        set_sync_record(routine)
    }) {
        coll::set_barrier(rt, routine, a);
    }
}

/// `shmem_sync` (active-set form).
pub(crate) fn sync(routine: &'static str, start: c_int, log_stride: c_int, size: c_int, psync: *mut c_long) {
    let rt = runtime::get(routine);
    if let Some(a) = active_set(rt, routine, (start, log_stride, size), psync, || {
        set_sync_record(routine)
    }) {
        coll::set_sync(rt, routine, a);
    }
}

/// The check's record of an active-set barrier or sync: one kind, as the
/// world's barrier and sync are.
fn set_sync_record(routine: &'static str) -> Record {
    Record::new(routine, What::TeamSync, "", 0, &[])
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn broadcast_aset<T: ShmemType>(
    routine: &'static str,
    dest: *mut c_void,
    source: *const c_void,
    nelems: usize,
    root: c_int,
    start: c_int,
    log_stride: c_int,
    size: c_int,
    psync: *mut c_long,
) {
    let rt = runtime::get(routine);
    let record = || {
        Record::new(
            routine,
            What::Broadcast,
            "",
            size_of::<T>(),
            &[nelems as u64, root as i64 as u64],
        )
    };
    let Some(a) = active_set(rt, routine, (start, log_stride, size), psync, record) else {
        return;
    };
    let root = root_in(routine, root, a.group.size);
    let len = check::bytes(routine, "nelems", nelems, size_of::<T>());
    if len == 0 {
        return;
    }
    let d = buffer(rt, routine, a.group, "dest", dest as usize, len);
    let s = buffer(rt, routine, a.group, "source", source as usize, len);
    let inbox = || inbox(rt, routine, a.group, psync, "a broadcast", "SHMEM_BCAST_SYNC_SIZE");
    if let Err(found) = coll::set_broadcast(rt, routine, a, (d, s), len, root, inbox) {
        usage(
            routine,
            format!(
                "nelems gives {len} bytes here but the root (PE {}) broadcasts {found} bytes on this pSync",
                a.group.pe(root),
            ),
        );
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn collect_aset<T: ShmemType>(
    routine: &'static str,
    dest: *mut c_void,
    source: *const c_void,
    nelems: usize,
    start: c_int,
    log_stride: c_int,
    size: c_int,
    psync: *mut c_long,
) {
    let rt = runtime::get(routine);
    let record = || Record::new(routine, What::Collect, "", size_of::<T>(), &[]);
    let Some(a) = active_set(rt, routine, (start, log_stride, size), psync, record) else {
        return;
    };
    let len = check::bytes(routine, "nelems", nelems, size_of::<T>());
    let s = buffer(rt, routine, a.group, "source", source as usize, len);
    let dest_for = |total| buffer(rt, routine, a.group, "dest", dest as usize, total);
    coll::set_collect(rt, routine, a, dest_for, s, len);
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn fcollect_aset<T: ShmemType>(
    routine: &'static str,
    dest: *mut c_void,
    source: *const c_void,
    nelems: usize,
    start: c_int,
    log_stride: c_int,
    size: c_int,
    psync: *mut c_long,
) {
    let rt = runtime::get(routine);
    let record = || Record::new(routine, What::Fcollect, "", size_of::<T>(), &[nelems as u64]);
    let Some(a) = active_set(rt, routine, (start, log_stride, size), psync, record) else {
        return;
    };
    let args = (dest as usize, source as usize);
    let Some((d, s, len)) = blocks::<T>(rt, routine, args, nelems, a.group, false) else {
        return;
    };
    let inbox = || inbox(rt, routine, a.group, psync, "an fcollect", "SHMEM_COLLECT_SYNC_SIZE");
    coll::set_fcollect(rt, routine, a, (d, s), len, inbox);
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn alltoall_aset<T: ShmemType>(
    routine: &'static str,
    dest: *mut c_void,
    source: *const c_void,
    nelems: usize,
    start: c_int,
    log_stride: c_int,
    size: c_int,
    psync: *mut c_long,
) {
    let rt = runtime::get(routine);
    let record = || Record::new(routine, What::Alltoall, "", size_of::<T>(), &[nelems as u64]);
    let Some(a) = active_set(rt, routine, (start, log_stride, size), psync, record) else {
        return;
    };
    let args = (dest as usize, source as usize);
    let Some((d, s, len)) = blocks::<T>(rt, routine, args, nelems, a.group, true) else {
        return;
    };
    let inbox = inbox(rt, routine, a.group, psync, "an alltoall", "SHMEM_ALLTOALL_SYNC_SIZE");
    coll::set_alltoall(rt, routine, a, (d, s), len, inbox);
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn alltoalls_aset<T: ShmemType>(
    routine: &'static str,
    dest: *mut c_void,
    source: *const c_void,
    dst: isize,
    sst: isize,
    nelems: usize,
    start: c_int,
    log_stride: c_int,
    size: c_int,
    psync: *mut c_long,
) {
    let rt = runtime::get(routine);
    let record = || {
        Record::new(
            routine,
            What::Alltoalls,
            "",
            size_of::<T>(),
            &[dst as i64 as u64, sst as i64 as u64, nelems as u64],
        )
    };
    let Some(a) = active_set(rt, routine, (start, log_stride, size), psync, record) else {
        return;
    };
    let all = nelems
        .checked_mul(a.group.size)
        .unwrap_or_else(|| check::too_large(routine, "nelems", nelems));
    let dlen = strided_span(routine, "dst", all, dst, size_of::<T>());
    let slen = strided_span(routine, "sst", all, sst, size_of::<T>());
    if nelems == 0 {
        return;
    }
    let d = buffer(rt, routine, a.group, "dest", dest as usize, dlen);
    let s = buffer(rt, routine, a.group, "source", source as usize, slen);
    coll::set_alltoalls::<T>(rt, routine, a, (d, s), (dst, sst), nelems);
}

#[allow(clippy::too_many_arguments)]
fn to_all<T: ShmemType, O: Combine<T>>(
    routine: &'static str,
    dest: *mut T,
    source: *const T,
    nreduce: c_int,
    start: c_int,
    log_stride: c_int,
    size: c_int,
    pwrk: *mut T,
    psync: *mut c_long,
    op: &'static str,
) {
    let rt = runtime::get(routine);
    let record = || {
        Record::new(
            routine,
            What::Reduce,
            op,
            size_of::<T>(),
            &reduce_args(rt, dest, source, nreduce.into()),
        )
    };
    let Some(a) = active_set(rt, routine, (start, log_stride, size), psync, record) else {
        return;
    };
    if nreduce < 0 {
        usage(
            routine,
            format!(
                "{} is {nreduce}: it must not be negative",
                check::label(routine, "nreduce")
            ),
        );
    }
    let n = nreduce as usize;
    if n == 0 {
        return;
    }
    let len = check::bytes(routine, "nreduce", n, size_of::<T>());
    let d = buffer(rt, routine, a.group, "dest", dest as usize, len);
    let s = buffer(rt, routine, a.group, "source", source as usize, len);
    // pWrk holds max(nreduce/2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE) elements.
    let wrk = (n / 2 + 1).max(super::constants::SHMEM_REDUCE_MIN_WRKDATA_SIZE as usize) * size_of::<T>();
    let pwrk = (buffer(rt, routine, a.group, "pWrk", pwrk as usize, wrk), wrk);
    let inbox = inbox(rt, routine, a.group, psync, "a reduction", "SHMEM_REDUCE_SYNC_SIZE");
    coll::set_reduce::<T, O>(rt, routine, a, (d, s), n, len, pwrk, inbox);
}

macro_rules! active_set_reductions {
    ($($name:ident: $bound:ident => $op:ty),*) => {$(
        #[allow(clippy::too_many_arguments)]
        pub(crate) fn $name<T: ShmemType + $bound>(
            routine: &'static str,
            dest: *mut T,
            source: *const T,
            nreduce: c_int,
            start: c_int,
            log_stride: c_int,
            size: c_int,
            pwrk: *mut T,
            psync: *mut c_long,
        ) {
            let op = stringify!($name).trim_end_matches("_to_all");
            to_all::<T, $op>(routine, dest, source, nreduce, start, log_stride, size, pwrk, psync, op)
        }
    )*};
}
active_set_reductions!(and_to_all: Bitwise => OpAnd, or_to_all: Bitwise => OpOr, xor_to_all: Bitwise => OpXor,
                       max_to_all: Ordered => OpMax, min_to_all: Ordered => OpMin,
                       sum_to_all: Arith => OpSum, prod_to_all: Arith => OpProd);
