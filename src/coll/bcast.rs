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
//! Push (active-set routines only, small messages, see `registry::Push`):
//! the root copies its source into every receiver's dest and signals it; a
//! receiver waits for that one signal. Nobody waits for the root to be read,
//! so in a loop the root runs ahead, as far as the caller's guarantees allow.
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

/// Push broadcast; see the module comment. The root's dest is left alone
/// (the active-set routines do not update it).
pub fn push(c: &Coll<'_>, dest: SymOffset, source: SymOffset, len: usize, root: usize) {
    let (r, n) = (c.g.rank, c.g.size);
    if r == root {
        for k in (0..n).filter(|&k| k != root) {
            // SAFETY: dest is member k's symmetric buffer of len bytes and
            // source this PE's (checked by the caller); the caller guarantees
            // that k's dest is ready to receive.
            unsafe { c.put(k, dest, c.local(source), len) };
            // Sequentially consistent: the data is visible before the signal.
            c.signal(k, c.l.bcast_ready());
        }
    } else {
        c.consume(c.l.bcast_ready(), root, 1);
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
