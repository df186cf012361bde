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
    let ring = |k: usize| Ring {
        k,
        word: SymOffset(inbox.0 + root * stride),
        cap: stride - 8,
    };
    if r == root {
        let src = c.local(source) as *const u8;
        // Receivers that have room first; then wait for the others in turn.
        let mut full = Vec::new();
        for k in (0..n).filter(|&k| k != root) {
            if !send(c, ring(k), src, len, false) {
                full.push(k);
            }
        }
        for k in full {
            send(c, ring(k), src, len, true);
        }
    } else {
        receive(c, root, ring(r), c.local(dest), len);
    }
}

/// Slot `root` of rank `k`'s inbox: the ring word, then `cap` bytes of data.
#[derive(Clone, Copy)]
struct Ring {
    k: usize,
    word: SymOffset,
    cap: usize,
}

/// What [`Ring::copy`] does with the ring's bytes.
enum Move {
    /// Writes them from this buffer.
    Put(*const u8),
    /// Reads them into this buffer.
    Get(*mut u8),
    /// Clears them (this PE's ring only).
    Clear,
}

impl Ring {
    /// Moves `len` bytes of the ring's data from position `pos` on, wrapping
    /// at the end. A buffer holds `len` bytes (a dest or source of that
    /// length, checked by the caller).
    fn copy(&self, c: &Coll<'_>, pos: usize, how: Move, len: usize) {
        let first = len.min(self.cap - pos);
        for (at, off, l) in [(0, pos, first), (first, 0, len - first)] {
            let bytes = SymOffset(self.word.0 + 8 + off);
            // SAFETY: the ring lies in rank k's pSync inbox (checked symmetric
            // and INBOX_BYTES long by the caller); pos < cap and len <= cap, so
            // both pieces stay inside it; the buffer holds len bytes.
            unsafe {
                match how {
                    Move::Put(buf) => c.put(self.k, bytes, buf.add(at), l),
                    Move::Get(buf) => c.get(self.k, bytes, buf.add(at), l),
                    Move::Clear => std::ptr::write_bytes(c.local(bytes), 0, l),
                }
            }
        }
    }

    /// The ring word (acquire).
    fn load(&self, c: &Coll<'_>) -> u64 {
        // SAFETY: the ring word is 8-aligned in rank k's pSync inbox.
        unsafe { c.rt.transport.flag_load(c.g.pe(self.k), self.word) }
    }

    /// Swaps the ring word from `old` to `new` if it holds `old`; returns the
    /// value found. Success wakes rank `wake`.
    fn swap(&self, c: &Coll<'_>, old: u64, new: u64, wake: usize) -> u64 {
        // SAFETY: as in `load`.
        unsafe {
            c.rt.transport
                .flag_cas(c.g.pe(self.k), self.word, old, new, c.g.pe(wake))
        }
    }
}

/// Appends a message to a receiver's ring. Without `wait`, returns false at
/// once if the ring has no room.
fn send(c: &Coll<'_>, ring: Ring, src: *const u8, len: usize, wait: bool) -> bool {
    let (k, cap, need) = (ring.k, ring.cap, len.next_multiple_of(8));
    // The first read is a swap that cannot succeed (no ring holds 4 GiB): it
    // fetches the word's cache line for writing, where a load would fetch it
    // shared and the publication below fetch it again.
    let mut w = ring.swap(c, u64::MAX, u64::MAX, k);
    if unpack(w).1 + need > cap {
        if !wait {
            return false;
        }
        c.wait_for(
            || unpack(ring.load(c)).1 + need <= cap,
            std::iter::once(k),
            || format!("room for {need} bytes in the broadcast inbox of rank {k}"),
            || format!(", {} bytes queued", unpack(ring.load(c)).1),
        );
        w = ring.load(c);
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
                ring.copy(c, old, Move::Put(zeros.as_ptr()), len);
            }
            ring.copy(c, pos, Move::Put(src), len);
            at = Some(pos);
        }
        // Sequentially consistent: the data is visible first.
        let found = ring.swap(c, w, pack(head, queued + need), k);
        if found == w {
            return true;
        }
        w = found;
    }
}

/// Takes the oldest message of this PE's ring (written by rank `root`) into
/// `dest`, clears it, and wakes the root if it waits for room.
fn receive(c: &Coll<'_>, root: usize, ring: Ring, dest: *mut u8, len: usize) {
    let need = len.next_multiple_of(8);
    c.wait_for(
        || unpack(ring.load(c)).1 >= need,
        std::iter::once(root),
        || format!("a {need}-byte message in the broadcast inbox from rank {root}"),
        || format!(", {} bytes queued", unpack(ring.load(c)).1),
    );
    let mut w = ring.load(c);
    let head = unpack(w).0;
    ring.copy(c, head, Move::Get(dest), len);
    ring.copy(c, head, Move::Clear, need);
    loop {
        let queued = unpack(w).1;
        let next = if queued == need {
            0
        } else {
            pack((head + need) % ring.cap, queued - need)
        };
        // The clearing is visible before the room.
        let found = ring.swap(c, w, next, root);
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
            assert!(stride.is_multiple_of(8) && n * stride <= INBOX_BYTES);
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
