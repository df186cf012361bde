//! Alltoall and alltoalls: block j of member i's source goes to block i of
//! member j's dest. A barrier (every source ready, every dest free), every
//! member pulls its blocks from all the others, a barrier (no source is still
//! being read). The pulls start at the PE after this one, so the members do not
//! all read the same PE at the same time.

use super::Coll;
use super::inbox::{self, Disagreement};
use crate::heap::SymOffset;
use crate::transport::Transport;

/// Contiguous blocks of `len` bytes.
pub(super) fn alltoall(c: &Coll<'_>, dest: SymOffset, source: SymOffset, len: usize) {
    let (r, n) = (c.g.rank, c.g.size);
    c.barrier();
    for i in 0..n {
        let k = (r + i) % n;
        let from = SymOffset(source.0 + r * len);
        let to = c.local(SymOffset(dest.0 + k * len));
        // SAFETY: dest and source hold n * len bytes on every member
        // (symmetric, checked by the caller); `get` allows overlap for k == r.
        unsafe { c.get(k, from, to, len) };
    }
    c.barrier();
}

/// [`alltoall`] for the team routines, in one round through the team's
/// `inbox` (`inbox::exchange`; the caller checked that it applies): block k
/// of this PE's source goes to member k, whose block for this PE lands
/// straight in this PE's dest, written by nobody else.
pub(super) fn alltoall_eager(
    c: &Coll<'_>,
    dest: SymOffset,
    source: SymOffset,
    inbox: inbox::TeamInbox<'_>,
    len: usize,
) -> Result<(), Disagreement> {
    let at = |base: SymOffset, k: usize| c.local(SymOffset(base.0 + k * len));
    // SAFETY: dest and source hold n * len bytes on this PE (symmetric,
    // checked by the caller); nobody else writes this PE's dest.
    unsafe { inbox::exchange(c, inbox, len, |k| at(source, k) as *const u8, |k| at(dest, k))? };
    // SAFETY: as above; `copy` allows overlap.
    unsafe { std::ptr::copy(at(source, c.g.rank), at(dest, c.g.rank), len) };
    Ok(())
}

/// [`alltoall`] for the active-set routines: block k of this PE's source to
/// member k, by `collect::push_exchange`.
pub(super) fn alltoall_push(c: &Coll<'_>, dest: SymOffset, source: SymOffset, inbox: SymOffset, len: usize) {
    let src = |k: usize| c.local(SymOffset(source.0 + k * len)) as *const u8;
    super::collect::push_exchange(c, dest, inbox, len, c.l.ring_done(), src);
}

/// Strided blocks of `nelems` elements of `T`: element e of the block for
/// member j is at `source[(j * nelems + e) * sst]`, and lands at
/// `dest[(i * nelems + e) * dst]` on member j.
pub(super) fn alltoalls<T: Copy>(
    c: &Coll<'_>,
    dest: SymOffset,
    source: SymOffset,
    dst: isize,
    sst: isize,
    nelems: usize,
) {
    let (r, n) = (c.g.rank, c.g.size);
    let size = std::mem::size_of::<T>() as isize;
    c.barrier();
    for i in 0..n {
        let k = (r + i) % n;
        let from = SymOffset((source.0 as isize + (r * nelems) as isize * sst * size) as usize);
        let to = (c.local(dest) as isize + (k * nelems) as isize * dst * size) as *mut T;
        // SAFETY: the caller checked that every strided element of dest and
        // source lies in this PE's symmetric memory; the same offsets are valid
        // on member k.
        unsafe { c.rt.transport.get_strided::<T>(c.reach(k), from, sst, to, dst, nelems) };
    }
    c.barrier();
}
