//! Reductions and scans, generic over the element type and the operator.
//!
//! Every member must end with bit-identical results, also for floating types,
//! so operands are always combined in a fixed order: the linear algorithm
//! folds the sources in rank order; recursive doubling combines the partials
//! of a pair as (lower rank, higher rank) on both sides; scatter-gather
//! computes each block once, in rank order, and copies it to the others.
//!
//! Eager (small team reductions, [`eager`]): every member sends its source
//! to every other through the team's inbox and folds all of them in rank
//! order, in one round.
//!
//! Linear: a barrier (every source ready), each member reads every source and
//! folds them into private memory, a barrier (nobody reads a source any more,
//! so an in-place dest may be overwritten), then the result goes to dest.
//!
//! Ring, per chunk of n blocks (each at most half the scratch buffer): a
//! reduce-scatter (in step s each PE reads its left neighbour's partial of
//! block `r - s` from the neighbour's scratch, adds its own source block and
//! exposes the sum in the other half of its scratch, which the right neighbour
//! has acknowledged reading), after which PE r holds block `r + 1` reduced; then
//! an allgather around the ring through the dest buffers, as in collect.
//!
//! Scatter-gather: a barrier; rank r folds block r of every source, in rank
//! order, into its own dest (a piece at a time in private memory); a barrier
//! (every block is reduced and no source is read any more); every rank copies
//! block k from rank k's dest; a barrier (no dest is read any more).
//!
//! Recursive doubling, per chunk of the scratch buffer's size: with p the
//! largest power of two not above n, each of the n - p "extra" ranks hands its
//! source to rank `r - p`, which folds it in first. Then, for k = 0, 1, ...,
//! each of the p ranks exposes its partial in its scratch, signals partner
//! `r ^ 2^k`, reads the partner's partial, acknowledges it, and waits for the
//! partner's acknowledgement before the scratch is reused. Finally rank
//! `r < n - p` writes the result into its extra's dest.

use super::Coll;
use super::inbox::{self, Disagreement};
use super::registry::Reduce;
use crate::heap::SymOffset;
use crate::types::Combine;
use std::mem::size_of;

/// Reads `n` elements of `T` at `off` on rank `k` into `out` (cleared first).
fn read_into<T: Copy>(c: &Coll<'_>, k: usize, off: SymOffset, n: usize, out: &mut Vec<T>) {
    out.clear();
    out.reserve(n);
    // SAFETY: `off` holds n elements on rank k (symmetric, checked by the
    // caller); `out` has capacity n and T is plain data.
    unsafe {
        c.get(k, off, out.as_mut_ptr() as *mut u8, n * size_of::<T>());
        out.set_len(n);
    }
}

fn fold<T: Copy, O: Combine<T>>(acc: &mut [T], other: &[T], other_is_higher: bool) {
    for (a, b) in acc.iter_mut().zip(other) {
        *a = if other_is_higher {
            O::combine(*a, *b)
        } else {
            O::combine(*b, *a)
        };
    }
}

/// Writes `vals` to this PE's `dest`.
fn store<T: Copy>(c: &Coll<'_>, dest: SymOffset, vals: &[T]) {
    // SAFETY: dest holds vals.len() elements on this PE (checked by the caller).
    unsafe { std::ptr::copy(vals.as_ptr() as *const u8, c.local(dest), std::mem::size_of_val(vals)) };
}

pub(super) fn run<T: Copy, O: Combine<T>>(c: &Coll<'_>, alg: Reduce, dest: SymOffset, source: SymOffset, n: usize) {
    if n == 0 {
        return;
    }
    if c.g.size == 1 {
        if dest != source {
            // SAFETY: both are this PE's buffers of n elements.
            unsafe { std::ptr::copy(c.local(source), c.local(dest), n * size_of::<T>()) };
        }
        return;
    }
    match alg {
        Reduce::RecursiveDoubling => recursive_doubling::<T, O>(c, dest, source, n),
        Reduce::Ring => ring::<T, O>(c, dest, source, n),
        Reduce::ScatterGather => scatter_gather::<T, O>(c, dest, source, n),
        _ => linear::<T, O>(c, dest, source, n, c.g.size),
    }
}

/// Active-set reduction pushed into the pSync's inbox (`inbox`, after the
/// flags; see `registry::Push`): every member copies its source into slot
/// `rank` of every other member's inbox and signals it, waits for the others'
/// signals, folds the slots in rank order (its own source in its own slot, so
/// every member combines the same operands in the same order), clears the
/// slots (the pSync must be back to `SHMEM_SYNC_VALUE`) and writes dest. One
/// round of signals where `linear` takes two barriers. The caller checked
/// that `size * n` elements fit the inbox.
pub(super) fn push<T: Copy, O: Combine<T>>(
    c: &Coll<'_>,
    dest: SymOffset,
    source: SymOffset,
    inbox: SymOffset,
    n: usize,
) {
    let (r, size) = (c.g.rank, c.g.size);
    let len = n * size_of::<T>();
    let slot = |k: usize| SymOffset(inbox.0 + k * len);
    let mine = c.local(source) as *const u8;
    for k in (1..size).map(|i| (r + i) % size) {
        // SAFETY: slot r of member k's inbox holds len bytes (the pSync was
        // checked symmetric and large enough); source is this PE's, len bytes.
        unsafe { c.put_then_signal(k, slot(r), mine, len, c.l.rd_ready(0)) };
    }
    c.consume_each(c.l.rd_ready(0), (0..size).filter(|&k| k != r));
    let (mut acc, mut tmp) = (Vec::new(), Vec::new());
    let from = |k: usize| if k == r { source } else { slot(k) };
    read_into(c, r, from(0), n, &mut acc);
    for k in 1..size {
        read_into(c, r, from(k), n, &mut tmp);
        fold::<T, O>(&mut acc, &tmp, true);
    }
    // SAFETY: this PE's inbox holds size * len bytes; every other member has
    // written its slot (its signal came after), and none writes again before
    // this PE has left the call (the caller's guarantee on the pSync).
    unsafe { std::ptr::write_bytes(c.local(inbox), 0, size * len) };
    store(c, dest, &acc);
}

/// Team reduction in one round through the team's `inbox`
/// (`inbox::exchange`; the caller checked that it applies): every member
/// sends its source to every other and folds all n arrays in rank order,
/// as `linear` does, so every member computes the same bits. The arrays are
/// taken into private memory, so an in-place dest is written only at the
/// end.
pub(super) fn eager<T: Copy, O: Combine<T>>(
    c: &Coll<'_>,
    dest: SymOffset,
    source: SymOffset,
    inbox: inbox::TeamInbox<'_>,
    n: usize,
) -> Result<(), Disagreement> {
    let (r, size) = (c.g.rank, c.g.size);
    let len = n * size_of::<T>();
    let mut all: Vec<T> = Vec::with_capacity(size * n);
    let base = all.as_mut_ptr() as *mut u8;
    let src = c.local(source) as *const u8;
    // SAFETY: `all` has room for size arrays of len bytes, private to this
    // call; source holds len bytes on this PE (checked by the caller).
    unsafe {
        inbox::exchange(c, inbox, len, |_| src, |k| base.add(k * len))?;
        std::ptr::copy_nonoverlapping(src, base.add(r * len), len);
        // Every array is in: the others' above, this PE's just now; T is
        // plain data.
        all.set_len(size * n);
    }
    let (acc, rest) = all.split_at_mut(n);
    for other in rest.chunks_exact(n) {
        fold::<T, O>(acc, other, true);
    }
    store(c, dest, acc);
    Ok(())
}

/// Folds ranks `0..upto` (in rank order) into dest; with `upto == size` this is
/// the reduction, with the caller's rank limits it is a scan.
fn linear<T: Copy, O: Combine<T>>(c: &Coll<'_>, dest: SymOffset, source: SymOffset, n: usize, upto: usize) {
    c.barrier();
    let mut acc = Vec::new();
    let mut tmp = Vec::new();
    if upto > 0 {
        read_into(c, 0, source, n, &mut acc);
        for k in 1..upto {
            read_into(c, k, source, n, &mut tmp);
            fold::<T, O>(&mut acc, &tmp, true);
        }
    }
    c.barrier();
    if upto > 0 {
        store(c, dest, &acc);
    }
}

/// `shmem_sum_inscan` (`inclusive`) and `shmem_sum_exscan`: rank r gets the
/// fold of ranks 0..=r (or 0..r; rank 0 then gets the empty sum, zero, which
/// is all-zero bytes for every type of the sum scans).
pub(super) fn scan<T: Copy, O: Combine<T>>(
    c: &Coll<'_>,
    dest: SymOffset,
    source: SymOffset,
    n: usize,
    inclusive: bool,
) {
    if n == 0 {
        return;
    }
    let upto = c.g.rank + usize::from(inclusive);
    linear::<T, O>(c, dest, source, n, upto);
    if upto == 0 {
        // SAFETY: dest holds n elements on this PE (checked by the caller).
        unsafe { std::ptr::write_bytes(c.local(dest), 0, n * size_of::<T>()) };
    }
}

fn recursive_doubling<T: Copy, O: Combine<T>>(c: &Coll<'_>, dest: SymOffset, source: SymOffset, n: usize) {
    let (r, size) = (c.g.rank, c.g.size);
    let p = 1usize << (usize::BITS - 1 - size.leading_zeros());
    let extras = size - p;
    let chunk = (c.scratch_len / size_of::<T>()).max(1);
    let mut acc: Vec<T> = Vec::new();
    let mut tmp: Vec<T> = Vec::new();
    let mut at = 0;
    while at < n {
        let len = chunk.min(n - at);
        let src = SymOffset(source.0 + at * size_of::<T>());
        let dst = SymOffset(dest.0 + at * size_of::<T>());
        if r >= p {
            // An extra rank: the partner r - p folds our source in, and writes
            // the result into our dest.
            c.signal(r - p, c.l.fold_ready());
            c.consume(c.l.fold_result(), r - p, 1);
            at += len;
            continue;
        }
        read_into(c, r, src, len, &mut acc);
        if r < extras {
            c.consume(c.l.fold_ready(), r + p, 1);
            read_into(c, r + p, src, len, &mut tmp);
            fold::<T, O>(&mut acc, &tmp, true);
        }
        let mut k = 0;
        while (1usize << k) < p {
            let partner = r ^ (1 << k);
            // SAFETY: the scratch holds `chunk` elements on every member.
            unsafe { c.put(r, c.scratch, acc.as_ptr() as *const u8, len * size_of::<T>()) };
            c.signal(partner, c.l.rd_ready(k));
            c.consume(c.l.rd_ready(k), partner, 1);
            read_into(c, partner, c.scratch, len, &mut tmp);
            c.signal(partner, c.l.rd_ack(k));
            fold::<T, O>(&mut acc, &tmp, partner > r);
            c.consume(c.l.rd_ack(k), partner, 1);
            k += 1;
        }
        if r < extras {
            // SAFETY: the extra's dest holds n elements (symmetric); its source
            // was read above, so an in-place dest may be overwritten.
            unsafe {
                c.put_then_signal(
                    r + p,
                    dst,
                    acc.as_ptr() as *const u8,
                    len * size_of::<T>(),
                    c.l.fold_result(),
                )
            };
        }
        store(c, dst, &acc);
        at += len;
    }
}

/// Reads `n` elements at `off` of this PE's source into `out`.
fn local_into<T: Copy>(c: &Coll<'_>, off: SymOffset, n: usize, out: &mut Vec<T>) {
    read_into(c, c.g.rank, off, n, out);
}

fn ring<T: Copy, O: Combine<T>>(c: &Coll<'_>, dest: SymOffset, source: SymOffset, n: usize) {
    let (r, size) = (c.g.rank, c.g.size);
    let (left, right) = ((r + size - 1) % size, (r + 1) % size);
    let el = size_of::<T>();
    // Two scratch slots of `block` elements.
    let block_cap = (c.scratch_len / 2 / el).max(1);
    let slot = |i: usize| SymOffset(c.scratch.0 + (i % 2) * block_cap * el);
    let mut acc: Vec<T> = Vec::new();
    let mut tmp: Vec<T> = Vec::new();
    let mut at = 0;
    while at < n {
        let chunk = (block_cap * size).min(n - at);
        let bl = chunk.div_ceil(size);
        // Block k of this chunk: elements [k*bl, min((k+1)*bl, chunk)).
        let span = |k: usize| (k * bl).min(chunk)..((k + 1) * bl).min(chunk);
        let elem = |base: SymOffset, i: usize| SymOffset(base.0 + (at + i) * el);
        // Reduce-scatter.
        let mut unacked = 0u64;
        for s in 0..size {
            let b = (r + size - s) % size;
            let rg = span(b);
            local_into(c, elem(source, rg.start), rg.len(), &mut acc);
            if s > 0 {
                c.consume(c.l.ring_ready(), left, 1);
                read_into(c, left, slot(s - 1), rg.len(), &mut tmp);
                c.signal(left, c.l.ring_done());
                // The partial came from ranks before this one around the ring.
                fold::<T, O>(&mut acc, &tmp, false);
            }
            if s == size - 1 {
                break;
            }
            if s >= 2 {
                c.consume(c.l.ring_done(), right, 1);
                unacked -= 1;
            }
            // SAFETY: the slot holds block_cap >= rg.len() elements.
            unsafe { c.put(r, slot(s), acc.as_ptr() as *const u8, rg.len() * el) };
            unacked += 1;
            c.signal(right, c.l.ring_ready());
        }
        c.consume(c.l.ring_done(), right, unacked);
        // Every member has read every source block it needs: this PE's dest may
        // now be written, even in place. acc holds block r + 1, reduced.
        let mine = (r + 1) % size;
        store(c, elem(dest, span(mine).start), &acc);
        // Allgather around the ring through the dests.
        c.signal(right, c.l.ring_ready());
        for s in 1..size {
            let b = (mine + size - s) % size;
            let rg = span(b);
            c.consume(c.l.ring_ready(), left, 1);
            // SAFETY: dest holds n elements on every member; the left
            // neighbour has block b in place.
            unsafe { c.get(left, elem(dest, rg.start), c.local(elem(dest, rg.start)), rg.len() * el) };
            if s < size - 1 {
                c.signal(right, c.l.ring_ready());
            }
        }
        c.signal(left, c.l.ring_done());
        c.consume(c.l.ring_done(), right, 1);
        at += chunk;
    }
}

/// Bytes of a block folded at a time in private memory: the accumulator and
/// one member's piece stay in L1 while every member's block streams through
/// once, so the only memory traffic is the sources read and the dest written.
const PIECE_BYTES: usize = 16 << 10;

/// Elements per block of `n` elements over `size` ranks: whole multiples of
/// 64 bytes when the element size divides 64 (every reduction type does), so
/// that no two ranks write the same cache line of dest.
fn block_elems(n: usize, size: usize, el: usize) -> usize {
    let unit = if el > 0 && 64 % el == 0 { 64 / el } else { 1 };
    n.div_ceil(size).div_ceil(unit) * unit
}

/// Direct reduce-scatter, then allgather: rank r folds block r of every
/// member's source in rank order (each block is computed once, by one PE,
/// so every member gets the same bits) into its own dest; after a barrier
/// every rank copies block k from member k's dest. Each byte of a source is
/// read once and each byte of a dest written once by its owner and copied
/// by the others, where the ring passes every block through n - 1 partials.
fn scatter_gather<T: Copy, O: Combine<T>>(c: &Coll<'_>, dest: SymOffset, source: SymOffset, n: usize) {
    let (r, size) = (c.g.rank, c.g.size);
    let el = size_of::<T>();
    let bl = block_elems(n, size, el);
    let span = |k: usize| (k * bl).min(n)..((k + 1) * bl).min(n);
    let at = |base: SymOffset, i: usize| SymOffset(base.0 + i * el);
    let piece = (PIECE_BYTES / el.max(1)).max(1);
    let (mut acc, mut tmp): (Vec<T>, Vec<T>) = (Vec::with_capacity(piece), Vec::with_capacity(piece));
    // Every member's source is ready.
    c.barrier();
    let mine = span(r);
    let mut i = mine.start;
    while i < mine.end {
        let len = piece.min(mine.end - i);
        read_into(c, 0, at(source, i), len, &mut acc);
        for k in 1..size {
            read_into(c, k, at(source, i), len, &mut tmp);
            fold::<T, O>(&mut acc, &tmp, true);
        }
        // In place (dest == source) this overwrites a piece of source block
        // r, which only this PE reads, and which it has just read in full.
        store(c, at(dest, i), &acc);
        i += len;
    }
    // Every block is reduced, and nobody reads a source any more (an
    // in-place dest may now be overwritten outside block r).
    c.barrier();
    // Starting at r + 1 spreads the readers over the members.
    for s in 1..size {
        let k = (r + s) % size;
        let rg = span(k);
        // SAFETY: dest holds n elements on every member; member k's block k
        // is final (the barrier above), and nobody else writes this PE's
        // block k.
        unsafe { c.get(k, at(dest, rg.start), c.local(at(dest, rg.start)), rg.len() * el) };
    }
    // Nobody still reads this PE's dest: the caller may reuse it.
    c.barrier();
}
