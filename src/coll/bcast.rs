//! Broadcast: `len` bytes from the root's `source` to every member's `dest`
//! (the root's too when `root_dest` is set, as for the team-based routines;
//! the deprecated active-set routines leave the root's `dest` alone).
//!
//! Linear: the root signals every receiver; each copies straight from the
//! root's source and tells the root it is done; the root returns when all are
//! done (its source may then change). A receiver may see a "ready" signal meant
//! for the next broadcast (sent by a PE that already left this one) before the
//! root's own: that sender could only have left this broadcast after reading
//! this root's source, so the source is ready either way, and the counts still
//! balance.
//!
//! Binomial: a fixed binomial tree rooted at rank 0 (fixed, so every flag has
//! the same sender whatever the root). A root other than 0 first hands its data
//! to rank 0, which copies it and acknowledges. Each node copies from its
//! parent (from the root's source, or from the parent's dest), signals its
//! children, acknowledges its parent, and returns once its own children have
//! acknowledged, because they read its buffer.
//!
//! Eager (active-set routines only, small messages, see `registry::Push`):
//! the inbox after the flags of every PE's pSync is cut into one slot per
//! rank of the group, and slot s of a receiver is a ring of messages that only
//! rank s writes (as a root) and only the receiver reads. The root copies its
//! source into slot `root` of every receiver's inbox and returns; a receiver
//! takes the oldest message of slot `root` into its dest, inside its own call,
//! and clears it. Nobody but the receiver writes its dest, so a receiver that
//! refills its dest after checking a call cannot wipe data of a later call,
//! and a root may run ahead of its receivers by as many messages as the ring
//! holds (it waits for room otherwise). Each ring has one writer, so its
//! state is never ambiguous: the word `(head << 32) | bytes queued`, zero when
//! empty, which restores the pSync once a receiver has taken every message.
//! Messages of one slot are the root's calls on this pSync, in call order, and
//! the receiver makes the same calls in the same order: the oldest message is
//! its call's, and has its length.
//!
//! Tree flows (the pairwise strategies only): the data moves along a
//! [`Flow`] of `topology`, whose edges depend on the root: the hypercube, a
//! binary tree re-rooted at the root, or the one binary tree rooted at rank 0.
//! A parent that changes with the root would break the sync-array rule that
//! every word has one sender, so these run only on pairwise locations, where
//! each pair of PEs has its own.

use super::Coll;
use super::registry::Bcast;
use super::topology::{self, Flow};
use crate::heap::SymOffset;
use crate::psync::INBOX_BYTES;
use crate::transport::Transport;

pub fn run(c: &Coll<'_>, alg: Bcast, dest: SymOffset, source: SymOffset, len: usize, root: usize, root_dest: bool) {
    let (r, n) = (c.g.rank, c.g.size);
    if r == root && root_dest && dest != source {
        // SAFETY: both ranges are this PE's symmetric buffers of len bytes
        // (checked by the caller); `copy` allows overlap.
        unsafe { std::ptr::copy(c.local(source), c.local(dest), len) };
    }
    if n == 1 {
        return;
    }
    match alg {
        Bcast::Binomial => binomial(c, dest, source, len, root),
        Bcast::Cube => flow(c, dest, source, len, root, topology::cube_bcast(n, r, root)),
        Bcast::RootedTree => flow(c, dest, source, len, root, topology::rooted_tree_bcast(n, r, root)),
        Bcast::FixedTree => flow(c, dest, source, len, root, topology::fixed_tree_bcast(n, r, root)),
        Bcast::Linear | Bcast::Auto => linear(c, dest, source, len, root),
    }
}

/// Bytes between the slots of the eager inbox for a group of `n` (a multiple
/// of 8; each slot is its ring word, then the ring's data).
fn slot_stride(n: usize) -> usize {
    (INBOX_BYTES / n.max(1)) & !7
}

/// Whether a broadcast of `len` bytes to a group of `n` fits a slot's ring.
pub fn eager_fits(n: usize, len: usize) -> bool {
    let stride = slot_stride(n);
    stride >= 16 && len.next_multiple_of(8) <= stride - 8
}

const fn pack(head: usize, queued: usize) -> u64 {
    ((head as u64) << 32) | queued as u64
}

const fn unpack(w: u64) -> (usize, usize) {
    ((w >> 32) as usize, (w & 0xffff_ffff) as usize)
}

/// Eager broadcast; see the module comment. `inbox` is the pSync's inbox
/// (`INBOX_BYTES` on every member, checked by the caller), and
/// `eager_fits(n, len)` holds. The root's dest is left alone (the active-set
/// routines do not update it).
pub fn eager(c: &Coll<'_>, dest: SymOffset, source: SymOffset, inbox: SymOffset, len: usize, root: usize) {
    let (r, n) = (c.g.rank, c.g.size);
    let stride = slot_stride(n);
    let ring = SymOffset(inbox.0 + root * stride);
    let cap = stride - 8;
    if r == root {
        let src = c.local(source) as *const u8;
        // Receivers that have room first; then wait for the others in turn.
        let mut full = Vec::new();
        for k in (0..n).filter(|&k| k != root) {
            if !send(c, k, ring, cap, src, len, false) {
                full.push(k);
            }
        }
        for k in full {
            send(c, k, ring, cap, src, len, true);
        }
    } else {
        receive(c, root, ring, cap, c.local(dest), len);
    }
}

/// Copies `len` bytes between `buf` and a ring's data (`cap` bytes at `data`
/// on rank `k`) from position `pos`, wrapping at the end: `put` writes the
/// ring, else it is read (or, with a null `buf`, cleared; local rings only).
fn ring_copy(c: &Coll<'_>, k: usize, data: SymOffset, cap: usize, pos: usize, buf: *mut u8, len: usize, put: bool) {
    let first = len.min(cap - pos);
    for (at, off, l) in [(0, pos, first), (first, 0, len - first)] {
        let ring = SymOffset(data.0 + off);
        // SAFETY: the ring lies in rank k's pSync inbox (checked symmetric and
        // INBOX_BYTES long by the caller); pos < cap and len <= cap, so both
        // pieces stay inside it; `buf` holds len bytes (a dest or source of
        // that length, checked by the caller).
        unsafe {
            if buf.is_null() {
                std::ptr::write_bytes(c.local(ring), 0, l);
            } else if put {
                c.put(k, ring, buf.add(at), l);
            } else {
                c.get(k, ring, buf.add(at), l);
            }
        }
    }
}

/// Appends a message to rank k's ring. Without `wait`, returns false at once
/// if the ring has no room.
fn send(c: &Coll<'_>, k: usize, ring: SymOffset, cap: usize, src: *const u8, len: usize, wait: bool) -> bool {
    let t = &c.rt.transport;
    let (pe, data, need) = (c.g.pe(k), SymOffset(ring.0 + 8), len.next_multiple_of(8));
    // SAFETY (every flag access below): the ring word is 8-aligned in rank
    // k's pSync inbox.
    let load = || unsafe { t.flag_load(pe, ring) };
    // The first read is a compare-and-swap that cannot succeed (no ring holds
    // 4 GiB): it fetches the word's cache line for writing, where a load
    // would fetch it shared and the publication below fetch it again.
    let mut w = unsafe { t.flag_cas(pe, ring, u64::MAX, u64::MAX, pe) };
    if unpack(w).1 + need > cap {
        if !wait {
            return false;
        }
        c.wait_for(
            || unpack(load()).1 + need <= cap,
            std::iter::once(k),
            || format!("room for {need} bytes in the broadcast inbox of rank {k}"),
            || format!(", {} bytes queued", unpack(load()).1),
        );
        w = load();
    }
    // The receiver only takes messages (freeing room, which keeps head +
    // queued, the end of the queue, where it is) or, taking the last one,
    // empties the ring to 0; so a failed publication writes again only then,
    // after clearing its stale copy (room nobody reads).
    let mut at: Option<usize> = None;
    loop {
        let (head, queued) = unpack(w);
        let pos = (head + queued) % cap;
        if at != Some(pos) {
            if let Some(old) = at {
                let zeros = vec![0u8; len];
                ring_copy(c, k, data, cap, old, zeros.as_ptr() as *mut u8, len, true);
            }
            ring_copy(c, k, data, cap, pos, src as *mut u8, len, true);
            at = Some(pos);
        }
        // SAFETY: see above. Sequentially consistent: the data first.
        let found = unsafe { t.flag_cas(pe, ring, w, pack(head, queued + need), pe) };
        if found == w {
            return true;
        }
        w = found;
    }
}

/// Takes the oldest message of this PE's ring (written by rank `root`) into
/// `dest`, clears it, and wakes the root if it waits for room.
fn receive(c: &Coll<'_>, root: usize, ring: SymOffset, cap: usize, dest: *mut u8, len: usize) {
    let (t, me) = (&c.rt.transport, c.rt.me);
    let (data, need) = (SymOffset(ring.0 + 8), len.next_multiple_of(8));
    // SAFETY (every flag access below): this PE's ring word, 8-aligned.
    let load = || unsafe { t.flag_load(me, ring) };
    c.wait_for(
        || unpack(load()).1 >= need,
        std::iter::once(root),
        || format!("a {need}-byte message in the broadcast inbox from rank {root}"),
        || format!(", {} bytes queued", unpack(load()).1),
    );
    let mut w = load();
    let head = unpack(w).0;
    ring_copy(c, c.g.rank, data, cap, head, dest, len, false);
    ring_copy(c, c.g.rank, data, cap, head, std::ptr::null_mut(), need, false);
    loop {
        let queued = unpack(w).1;
        let next = if queued == need { 0 } else { pack((head + need) % cap, queued - need) };
        // SAFETY: see above. The clearing is visible before the room.
        let found = unsafe { t.flag_cas(me, ring, w, next, c.g.pe(root)) };
        if found == w {
            return;
        }
        w = found;
    }
}

fn linear(c: &Coll<'_>, dest: SymOffset, source: SymOffset, len: usize, root: usize) {
    let (r, n) = (c.g.rank, c.g.size);
    if r == root {
        for k in (0..n).filter(|&k| k != root) {
            c.signal(k, c.l.bcast_ready());
        }
        c.consume_each(c.l.bcast_done(), (0..n).filter(|&k| k != root));
    } else {
        c.consume(c.l.bcast_ready(), root, 1);
        // SAFETY: dest is this PE's symmetric buffer of len bytes and source the
        // root's (same offset, checked by the caller).
        unsafe { c.get(root, source, c.local(dest), len) };
        c.signal(root, c.l.bcast_done());
    }
}

/// Receives from `f.from` (copying from where it holds the data), then passes
/// the data on to `f.to` and waits until they have read it.
fn flow(c: &Coll<'_>, dest: SymOffset, source: SymOffset, len: usize, root: usize, f: Flow) {
    let holds = |v: usize| if v == root { source } else { dest };
    if let Some(p) = f.from {
        c.consume(c.l.bcast_ready(), p, 1);
        // SAFETY: this PE's dest; the sender's dest or the root's source
        // (symmetric, len bytes, filled before it signalled).
        unsafe { c.get(p, holds(p), c.local(dest), len) };
        c.signal(p, c.l.bcast_done());
    }
    for &k in &f.to {
        c.signal(k, c.l.bcast_ready());
    }
    c.consume_each(c.l.bcast_done(), f.to.iter().copied());
}

/// Parent of rank v > 0 in the binomial tree rooted at 0: v without its
/// highest set bit.
fn parent(v: usize) -> usize {
    v & !(1 << (usize::BITS - 1 - v.leading_zeros()))
}

/// Children of rank v: v + 2^k for every 2^k above v's highest bit.
fn children(v: usize, n: usize) -> impl Iterator<Item = usize> + Clone {
    let low = if v == 0 { 0 } else { usize::BITS - v.leading_zeros() };
    (low..usize::BITS)
        .map(|k| 1usize << k)
        .take_while(move |&b| v + b < n)
        .map(move |b| v + b)
}

fn binomial(c: &Coll<'_>, dest: SymOffset, source: SymOffset, len: usize, root: usize) {
    let (r, n) = (c.g.rank, c.g.size);
    // Where rank v's copy of the data is: the root's source, else its dest.
    let holds = |v: usize| if v == root { source } else { dest };
    if root != 0 {
        if r == root {
            c.signal(0, c.l.bcast_root());
        } else if r == 0 {
            c.consume(c.l.bcast_root(), root, 1);
            // SAFETY: as in `linear`: this PE's dest, the root's source.
            unsafe { c.get(root, source, c.local(dest), len) };
            c.signal(root, c.l.bcast_relay());
        }
    }
    if r != 0 {
        let p = parent(r);
        c.consume(c.l.bcast_ready(), p, 1);
        if r != root {
            // SAFETY: this PE's dest; the parent's dest or source (symmetric,
            // len bytes, and filled before the parent signalled).
            unsafe { c.get(p, holds(p), c.local(dest), len) };
        }
        c.signal(p, c.l.bcast_done());
    }
    for k in children(r, n) {
        c.signal(k, c.l.bcast_ready());
    }
    c.consume_each(c.l.bcast_done(), children(r, n));
    if r == root && root != 0 {
        c.consume(c.l.bcast_relay(), 0, 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eager_slots_fit_the_inbox() {
        // 8 bytes go eagerly while a slot holds its ring word and 8 bytes.
        assert!(eager_fits(2, 8) && eager_fits(INBOX_BYTES / 16, 8));
        assert!(!eager_fits(INBOX_BYTES / 8, 8));
        for n in [2, 3, 8, 100] {
            let stride = slot_stride(n);
            assert!(stride % 8 == 0 && n * stride <= INBOX_BYTES);
            assert!(eager_fits(n, stride - 8) && !eager_fits(n, stride - 7));
        }
    }

    #[test]
    fn ring_words_pack_and_empty_is_zero() {
        assert_eq!(pack(0, 0), 0);
        assert_eq!(unpack(pack(4088, 8)), (4088, 8));
    }

    #[test]
    fn binomial_tree_covers_every_rank_once() {
        for n in 1..40 {
            let mut seen = vec![0; n];
            seen[0] = 1;
            for v in 0..n {
                for k in children(v, n) {
                    assert_eq!(parent(k), v);
                    seen[k] += 1;
                }
            }
            assert!(seen.iter().all(|&s| s == 1), "n = {n}: {seen:?}");
        }
    }
}
