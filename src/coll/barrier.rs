//! Barriers. The world barrier is a sense-reversing counter in the control
//! block; group barriers (teams, active sets) run on a sync array with the
//! algorithm chosen in `registry`.
//!
//! Each PE increments the arrival count; the last one resets it and advances the
//! episode number, which the others wait on. On one node this costs one
//! contended cache line per PE, which beats tree and dissemination barriers at
//! the PE counts a node holds. The last arriver rings the doorbell of every PE
//! with sleepers.

use super::Coll;
use super::registry::Barrier;
use super::topology::Cube;
use crate::job::{Control, JobHeader, Whereabouts};
use crate::wait::stuck::Post;
use crate::wait::{Waiter, locate, notify};
use std::sync::atomic::{AtomicU32, Ordering};

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
                c.signal((r + (1 << k)) % n, c.l.barrier(k));
                c.consume(c.l.barrier(k), (r + n - (1 << k)) % n, 1);
                k += 1;
            }
        }
        Barrier::RecursiveDoubling => recursive_doubling(c),
        Barrier::Tree => tree(c, TREE_RADIX),
        Barrier::BinaryTree => tree(c, 2),
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
    c.consume_each(c.l.tree_arrive(), kids.clone());
    if r != 0 {
        let parent = (r - 1) / radix;
        c.signal(parent, c.l.tree_arrive());
        c.consume(c.l.tree_release(), parent, 1);
    }
    for k in kids {
        c.signal(k, c.l.tree_release());
    }
}

/// Recursive doubling ([`Cube`]): the extra ranks arrive at their partner
/// below `p`, the first `p` ranks exchange with `r XOR 2^k`, then release
/// their extras. Every word has one sender, and the partners do not depend on
/// anything but the group size.
fn recursive_doubling(c: &Coll<'_>) {
    let (r, n) = (c.g.rank, c.g.size);
    let cube = Cube::new(n);
    if r >= cube.p {
        c.signal(r - cube.p, c.l.fold_ready());
        c.consume(c.l.fold_result(), r - cube.p, 1);
        return;
    }
    let extra = (r < cube.extras).then_some(r + cube.p);
    if let Some(e) = extra {
        c.consume(c.l.fold_ready(), e, 1);
    }
    for k in 0..cube.rounds() {
        let partner = r ^ (1 << k);
        c.signal(partner, c.l.barrier(k));
        c.consume(c.l.barrier(k), partner, 1);
    }
    if let Some(e) = extra {
        c.signal(e, c.l.fold_result());
    }
}

/// Signals rank `r` sends in one barrier over `n` ranks with `alg` (for the
/// cost accounting of the strategies that insert barriers).
pub fn signals_sent(alg: Barrier, n: usize, r: usize) -> u64 {
    if n <= 1 {
        return 0;
    }
    match alg.resolve(n) {
        Barrier::Dissemination | Barrier::Auto => (usize::BITS - (n - 1).leading_zeros()) as u64,
        Barrier::RecursiveDoubling => {
            let cube = Cube::new(n);
            if r >= cube.p {
                1
            } else {
                cube.rounds() as u64 + u64::from(r < cube.extras)
            }
        }
        Barrier::Tree => tree_signals(TREE_RADIX, n, r),
        Barrier::BinaryTree => tree_signals(2, n, r),
        Barrier::Linear => tree_signals(n - 1, n, r),
    }
}

fn tree_signals(radix: usize, n: usize, r: usize) -> u64 {
    (children(r, radix, n).len() + usize::from(r != 0)) as u64
}

/// The two counters of the control block that every PE meets at:
/// `shmem_barrier_all`'s and `shmem_finalize`'s own, so that a PE finalizing
/// (at `exit(0)`, say) never completes the others' barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rendezvous {
    Barrier,
    Finalize,
}

impl Rendezvous {
    /// (arrivals, episode) in the header.
    fn words(self, h: &JobHeader) -> (&AtomicU32, &AtomicU32) {
        match self {
            Rendezvous::Barrier => (&h.barrier_count, &h.barrier_gen),
            Rendezvous::Finalize => (&h.finalize_count, &h.finalize_gen),
        }
    }

    /// A PE's "arrived at episode + 1" word.
    fn arrived(self, w: &Whereabouts) -> &AtomicU32 {
        match self {
            Rendezvous::Barrier => &w.arrived,
            Rendezvous::Finalize => &w.finalize_arrived,
        }
    }
}

/// A rendezvous of every PE on a counter in the control block (`shmem_barrier_all`'s
/// synchronisation, and finalize's). `post` gives, for the episode entered,
/// where this PE blocks if it has to sleep (see `wait::stuck`).
///
/// With more PEs than cores a waiter must choose between spinning, which is
/// right when the PEs still missing are running on other cores, and yielding,
/// right when one of them waits for this core. Each hand-over costs a context
/// switch (about 2 µs in a virtual machine), so the choice matters: every PE
/// publishes the episode it arrived at and its CPU, and a waiter spins only
/// while none of the missing PEs was last seen on its own CPU (when all the
/// PEs of its CPU have arrived, trading the CPU among them helps nobody). At 4 PEs on 2 cores this nearly halves the yields
/// (docs/performance.md).
pub fn world<'a>(
    control: &'a Control,
    me: usize,
    waiter: &Waiter<'_>,
    which: Rendezvous,
    post: impl FnOnce(u32) -> Option<Post<'a>>,
) {
    let npes = control.npes() as u32;
    let h = control.header();
    let (count, episodes) = which.words(h);
    let episode = episodes.load(Ordering::Acquire);
    let shared_cores = waiter.policy.shared_cores;
    if shared_cores > 0 {
        let w = &control.slot(me).whereabouts;
        locate(w);
        which.arrived(w).store(episode.wrapping_add(1), Ordering::Relaxed);
    }
    // AcqRel: arrivals publish each PE's earlier writes to the last arriver,
    // whose release of the new episode passes them on to everyone.
    if count.fetch_add(1, Ordering::AcqRel) + 1 == npes {
        count.store(0, Ordering::Relaxed);
        episodes.store(episode.wrapping_add(1), Ordering::Release);
        for pe in 0..control.npes() {
            notify(&control.slot(pe).wake.sync);
        }
        return;
    }
    let done = || episodes.load(Ordering::Acquire) != episode;
    let describe = || {
        format!(
            "the other PEs to reach the {} (episode {episode}, {} of {npes} arrived)",
            match which {
                Rendezvous::Barrier => "barrier",
                Rendezvous::Finalize => "finalize rendezvous",
            },
            count.load(Ordering::Relaxed)
        )
    };
    let post = post(episode);
    if shared_cores == 0 {
        return waiter.wait_at(post.as_ref(), done, describe);
    }
    let may_spin = || {
        // The count is reset to 0 just before the episode advances, so a
        // stale read only makes this yield once more. With many PEs missing,
        // one surely shares this CPU: skip the scan.
        let arrived = count.load(Ordering::Relaxed).min(npes);
        if npes - arrived > SCAN_MAX {
            return false;
        }
        let cpu = locate(&control.slot(me).whereabouts);
        let want = episode.wrapping_add(1);
        (0..control.npes()).all(|pe| {
            let w = &control.slot(pe).whereabouts;
            which.arrived(w).load(Ordering::Relaxed) == want || w.cpu.load(Ordering::Relaxed) != cpu
        })
    };
    waiter.wait_hinted(post.as_ref(), done, may_spin, BARRIER_SPINS, describe)
}

/// Missing PEs beyond which a waiter of the world barrier yields without
/// looking where they run.
const SCAN_MAX: u32 = 64;
/// Polls in a row while every missing PE runs on another CPU: long enough to
/// cover a context switch there (about 2 µs), so that the PEs of this CPU,
/// which have all arrived, do not trade it back and forth meanwhile.
const BARRIER_SPINS: u32 = 256;
