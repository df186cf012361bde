//! Barriers. The world barrier is a transport operation
//! ([`Transport::rendezvous`]: on shared memory a sense-reversing counter in
//! the control block); group barriers (teams, active sets) run on a sync
//! array with the algorithm chosen in `registry`.

use super::Coll;
use super::registry::Barrier;
use super::topology::Cube;
use crate::stuck::Post;
pub(crate) use crate::transport::Rendezvous;
use crate::transport::{Agreed, Disagreed, Transport};
use crate::world::World;

/// Radix of the tree barrier.
const TREE_RADIX: usize = 4;

/// A barrier over the group of `c`: returns once every member has entered it.
/// Signals are sequentially consistent, so every store a member made before
/// entering is visible to every member after it returns.
pub(crate) fn run(c: &Coll<'_>, alg: Barrier) {
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
        Barrier::Complete => complete(c),
    }
}

/// Every member signals word 0 of every other and waits for n - 1 signals
/// on its own: one round. One word serves every round: a member that has
/// taken its k-th barrier's n - 1 signals has n - 1 more to take, and a
/// member that has not entered barrier k has sent at most k - 1, so until
/// it enters, no member can have finished barrier k (which needs its
/// signal) and sent a signal of barrier k + 1: nobody's count reaches
/// (n - 1) k before every member has entered barrier k.
fn complete(c: &Coll<'_>) {
    let (r, n) = (c.g.rank, c.g.size);
    let others = || (1..n).map(move |i| (r + i) % n);
    for k in others() {
        c.signal(k, c.l.barrier(0));
    }
    c.consume_each(c.l.barrier(0), others());
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
pub(crate) fn signals_sent(alg: Barrier, n: usize, r: usize) -> u64 {
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
        Barrier::Complete => n as u64 - 1,
    }
}

fn tree_signals(radix: usize, n: usize, r: usize) -> u64 {
    (children(r, radix, n).len() + usize::from(r != 0)) as u64
}

/// A rendezvous of every PE (`shmem_barrier_all`'s synchronisation, and
/// finalize's), run by the transport ([`Transport::rendezvous`]). `post`
/// gives, for the episode entered, where this PE blocks if it has to sleep
/// (see `stuck`). At a world barrier, `mine` (the arguments of the
/// allocation routine it is for, `None` for a plain barrier) is compared
/// across the PEs on the way: `Some` when they differ (`coll::agree`).
pub(crate) fn world<'p>(
    rt: &World,
    (which, mine): (Rendezvous, Option<&Agreed>),
    post: impl FnOnce(u32) -> Option<Post<'p>>,
) -> Option<Disagreed> {
    rt.transport.rendezvous(&rt.sync_waiter(), (which, mine), post)
}
