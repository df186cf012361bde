//! Barriers. The world barrier is a sense-reversing counter in the control
//! block; group barriers (teams, active sets) run on a sync array with the
//! algorithm chosen in `registry`.
//!
//! Each PE increments the arrival count; the last one resets it and advances the
//! episode number, which the others wait on. On one node this costs one
//! contended cache line per PE, which beats tree and dissemination barriers at
//! the PE counts a node holds. The last arriver rings the doorbell of every PE
//! with sleepers.

use super::registry::Barrier;
use super::{Coll, flags};
use crate::job::Control;
use crate::wait::{Waiter, notify};
use std::sync::atomic::Ordering;

/// Radix of the tree barrier.
const TREE_RADIX: usize = 4;

/// A barrier over the group of `c`: returns once every member has entered it.
/// Signals are sequentially consistent, so every store a member made before
/// entering is visible to every member after it returns.
pub fn run(c: &Coll<'_>, alg: Barrier) {
    let n = c.g.size;
    if n <= 1 {
        return;
    }
    match alg {
        Barrier::Dissemination | Barrier::Auto => {
            let r = c.g.rank;
            let mut k = 0;
            while (1usize << k) < n {
                c.signal((r + (1 << k)) % n, flags::BARRIER + k);
                c.consume(flags::BARRIER + k, 1);
                k += 1;
            }
        }
        Barrier::Tree => tree(c, TREE_RADIX),
        Barrier::Linear => tree(c, n - 1),
    }
}

/// Children of rank `r` in the `radix`-ary tree over `n` ranks rooted at 0.
fn children(r: usize, radix: usize, n: usize) -> std::ops::Range<usize> {
    let first = (r * radix + 1).min(n);
    first..(r * radix + radix + 1).min(n)
}

fn tree(c: &Coll<'_>, radix: usize) {
    let (r, n) = (c.g.rank, c.g.size);
    let kids = children(r, radix, n);
    c.consume(flags::TREE_ARRIVE, kids.len() as u64);
    if r != 0 {
        c.signal((r - 1) / radix, flags::TREE_ARRIVE);
        c.consume(flags::TREE_RELEASE, 1);
    }
    for k in kids {
        c.signal(k, flags::TREE_RELEASE);
    }
}

pub fn world(control: &Control, waiter: &Waiter<'_>) {
    let npes = control.npes() as u32;
    let h = control.header();
    let episode = h.barrier_gen.load(Ordering::Acquire);
    // AcqRel: arrivals publish each PE's earlier writes to the last arriver,
    // whose release of the new episode passes them on to everyone.
    if h.barrier_count.fetch_add(1, Ordering::AcqRel) + 1 == npes {
        h.barrier_count.store(0, Ordering::Relaxed);
        h.barrier_gen.store(episode.wrapping_add(1), Ordering::Release);
        for pe in 0..control.npes() {
            notify(&control.slot(pe).wake.sync);
        }
    } else {
        waiter.wait(
            || h.barrier_gen.load(Ordering::Acquire) != episode,
            || {
                format!(
                    "the other PEs to reach the barrier (episode {episode}, {} of {npes} arrived)",
                    h.barrier_count.load(Ordering::Relaxed)
                )
            },
        );
    }
}
