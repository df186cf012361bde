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
//! Eager (small messages, see `eager_fits`; the active-set routines through
//! the inbox after the flags of every PE's pSync, the team routines through
//! the team's inbox, between its scratch and its sync arrays): the
//! inbox is cut into one slot per other rank of the group (`inbox`), and the
//! slot of rank s in a receiver's inbox is a [`ring`] of cache-line cells
//! that only s writes and only the receiver reads. The root copies its source into its slot of every
//! receiver's inbox and returns; a receiver takes its call's message from the
//! root's slot into its dest, inside its own call, and clears the cells.
//! Nobody but the receiver writes its dest, so a receiver that refills its
//! dest after checking a call cannot wipe data of a later call, and a root may
//! run ahead of its receivers by as many messages as the ring holds (it waits
//! for room otherwise). Each cell says itself whether it is free (header 0)
//! or holds data (header = the message length), so no word is shared by the
//! two sides, and an empty ring is all zeros, which restores the pSync.
//! Where the next message starts is counted by both sides in private memory
//! (`ring::cursors`): messages of one slot are the sender's calls through
//! this inbox (broadcasts it roots, and the exchanges of `inbox`), in call
//! order, and the receiver makes the same calls in the same order, so the
//! counts agree and the next message is its call's; a header with another
//! length means the PEs disagree on `nelems`, which is reported.
//!
//! On a team's inbox the header also names the root and the call (the
//! team's count of one-round calls, `ring::Tag`), so that members that name
//! different roots are told instead of returning their own data: a receiver
//! compares the header of the message it takes with its own root and call;
//! a root, once its pushes are visible (after the fence of its wake-ups),
//! looks at the next cell from every other member in its own inbox, and a
//! message of this call there is a member that took itself for the root too
//! (of two such roots, the one that looks last sees the other's message); a
//! waiting receiver looks at those cells too now and then, for a root it does
//! not wait for. None of it costs a message: the root reads lines of its own
//! inbox.

//! Tree flows (the pairwise strategies only): the data moves along a
//! [`Flow`] of `topology`, whose edges depend on the root: the hypercube, a
//! binary tree re-rooted at the root, or the one binary tree rooted at rank 0.
//! A parent that changes with the root would break the sync-array rule that
//! every word has one sender, so these run only on pairwise locations, where
//! each pair of PEs has its own.

use super::Coll;
use super::inbox::{self, Disagreement};
use super::registry::Bcast;
use super::ring::{self, Tag};
use super::topology::{self, Flow};
use crate::heap::SymOffset;
use crate::psync::CollOp;
use crate::transport::Transport;
use crate::types::AmoOp;
use std::sync::atomic::Ordering;

pub(super) fn run(
    c: &Coll<'_>,
    alg: Bcast,
    dest: SymOffset,
    source: SymOffset,
    len: usize,
    root: usize,
    root_dest: bool,
) {
    let (r, n) = (c.g.rank, c.g.size);
    let own_copy = r == root && root_dest && dest != source;
    // The root's copy into its own dest is deferred until the receivers have
    // been told to read its source, so that it overlaps their reads, where
    // the root reads only its source: in the linear and flow algorithms
    // (binomial's root may hand its data to rank 0 first), and when the two
    // ranges are disjoint (receivers read the source while the root writes).
    let defer =
        own_copy && n > 1 && !matches!(alg, Bcast::Binomial) && (dest.0 + len <= source.0 || source.0 + len <= dest.0);
    let copy = || {
        // SAFETY: both ranges are this PE's symmetric buffers of len bytes
        // (checked by the caller); `copy` allows overlap.
        unsafe { std::ptr::copy(c.local(source), c.local(dest), len) };
    };
    if own_copy && !defer {
        copy();
    }
    if n == 1 {
        return;
    }
    let meanwhile = || {
        if defer {
            copy()
        }
    };
    match alg {
        Bcast::Binomial => binomial(c, dest, source, len, root),
        Bcast::Cube => flow(c, dest, source, len, root, topology::cube_bcast(n, r, root), &meanwhile),
        Bcast::RootedTree => flow(
            c,
            dest,
            source,
            len,
            root,
            topology::rooted_tree_bcast(n, r, root),
            &meanwhile,
        ),
        Bcast::FixedTree => flow(
            c,
            dest,
            source,
            len,
            root,
            topology::fixed_tree_bcast(n, r, root),
            &meanwhile,
        ),
        Bcast::Linear | Bcast::Auto => linear(c, dest, source, len, root, &meanwhile),
    }
}

/// Largest eager broadcast: above it the linear algorithm is faster, since
/// every byte crosses between caches twice on the eager path (root to inbox,
/// inbox back to the receiver, whose clearing makes the root fetch the line
/// again) and once on the linear one. Measured back to back on 2 cores
/// (`benches/c/coll.c`, receivers reading their dest): at 2 PEs linear costs
/// ~0.35 µs up to 4 KiB and eager 0.31 µs at 512 bytes, 0.41 µs at 1 KiB; at 4
/// and 8 PEs the linear handshake costs 3-9 µs and eager wins up to 2 KiB.
const EAGER_MAX_PAIR: usize = 512;
const EAGER_MAX: usize = 2048;

/// Whether a broadcast of `len` bytes to a group of `n` goes eagerly: the
/// message fits a slot's ring and is small enough to gain from it.
pub(super) fn eager_fits(n: usize, len: usize) -> bool {
    let max = if n <= 2 { EAGER_MAX_PAIR } else { EAGER_MAX };
    len <= max && inbox::fits(n, len)
}

/// Eager broadcast of an active set; see the module comment. `inbox` is the pSync's inbox
/// (`INBOX_BYTES` on every member, checked by the caller), and
/// `eager_fits(n, len)` holds. The root's dest is left alone (the active-set
/// routines do not update it). A receiver whose `len` differs from the
/// root's gets what it found.
pub(super) fn eager(
    c: &Coll<'_>,
    dest: SymOffset,
    source: SymOffset,
    inbox: SymOffset,
    len: usize,
    root: usize,
) -> Result<(), Disagreement> {
    if !inbox::reaches_members(c, CollOp::Broadcast, len) {
        linear(c, dest, source, len, root, &|| {});
        return Ok(());
    }
    let cur = ring::cursors(inbox.0, c.rt.npes);
    eager_rings(c, (dest, source), (inbox, cur, None), len, root)
}

/// Polls of a waiting receiver between two looks for a member that took
/// itself for the root (`claim`), which reads a line per member: the first
/// look comes after as many, so that a short wait (the root a little late)
/// makes none.
const CLAIM_POLLS: u32 = 16;

/// [`eager`] once [`inbox::members_share_memory`] holds, with the inbox's
/// cursors (`ring::cursors`); `call` is the
/// number of this call among the team's one-round calls on a team's inbox
/// (`TeamSync::inbox_calls`), `None` on an active set's pSync, whose calls
/// are not counted: there the tags carry the length only and nothing else
/// is compared. Err: what a member sent instead of this PE's message, or
/// the message of a member that takes itself for the root of this call too.
pub(super) fn eager_rings(
    c: &Coll<'_>,
    (dest, source): (SymOffset, SymOffset),
    (inbox, cur, call): (SymOffset, &ring::Cursors, Option<u64>),
    len: usize,
    root: usize,
) -> Result<(), Disagreement> {
    let r = c.g.rank;
    let ring_of = inbox::rings_from(c, inbox, root);
    let total = ring::cells(len);
    let tag = match call {
        Some(call) => Tag::new(len, Some(root), call),
        None => Tag::len_only(len),
    };
    if r == root {
        // SAFETY: the root's source, len bytes (checked by the caller), which
        // the user leaves alone during the call.
        let src = unsafe { std::slice::from_raw_parts(c.local(source) as *const u8, len) };
        let own = call.map(|_| inbox::own_rings(c, inbox));
        let prefetch = |k, start| inbox::prefetch_ring(c, inbox, (root, k), start, total);
        if let Some((from, found)) = send(c, (src, tag), (inbox, cur), (ring_of, prefetch), own) {
            return Err(Disagreement {
                from,
                found,
                expected: tag,
            });
        }
    } else {
        // SAFETY: this PE's dest, len bytes (checked by the caller); nobody
        // else writes it: that is what the inbox is for.
        let dst = unsafe { std::slice::from_raw_parts_mut(c.local(dest), len) };
        let from = cur.from(c.g.pe(root));
        let start = from.load(Ordering::Relaxed);
        let ring = ring_of(r);
        let mut got = 0;
        while got < total {
            if !ring.arrived(start, tag, got) {
                if got > 0 {
                    // Room freed so far may be what the root waits for.
                    wake(c, root);
                }
                let (mut polls, mut claimed) = (0u32, None);
                c.wait_for(
                    || {
                        if ring.arrived(start, tag, got) {
                            return true;
                        }
                        polls += 1;
                        if call.is_some() && polls % CLAIM_POLLS == 0 {
                            claimed = claim(c, inbox, cur, tag, root);
                        }
                        claimed.is_some()
                    },
                    std::iter::once(root),
                    || format!("cell {got} of {total} of a {len}-byte message in the broadcast inbox from rank {root}"),
                    String::new,
                );
                if let Some(d) = claimed {
                    return Err(d);
                }
            }
            match ring.pop(start, dst, got, tag) {
                Ok(k) => got += k,
                Err(m) => return Err(not_this_call(c, (inbox, cur), tag, root, m.found)),
            }
        }
        from.store(start + total as u64, Ordering::Relaxed);
        wake(c, root);
    }
    Ok(())
}

/// What a receiver reports when its root's next message has the tag `found`
/// instead of its own `mine`: when it is not of this call, rather a member
/// that broadcast in it ([`claim`]), if one did, than the root that did not.
#[cold]
#[inline(never)]
fn not_this_call(
    c: &Coll<'_>,
    (inbox, cur): (SymOffset, &ring::Cursors),
    mine: Tag,
    root: usize,
    found: Tag,
) -> Disagreement {
    // (On an active set's pSync both calls are 0: only lengths differ.)
    if found.call() != mine.call()
        && let Some(d) = claim(c, inbox, cur, mine, root)
    {
        return d;
    }
    Disagreement {
        from: root,
        found,
        expected: mine,
    }
}

/// A member other than this receiver and its `root` that broadcast in this
/// PE's call (the call of `mine`) as a root of its own: the next message
/// from it in this PE's inbox is a broadcast of this call. (A member that ran ahead
/// sends a later call's number; one that is in this call as a receiver
/// sends nothing.) The root looks likewise in `send`.
fn claim(c: &Coll<'_>, inbox: SymOffset, cur: &ring::Cursors, mine: Tag, root: usize) -> Option<Disagreement> {
    let r = c.g.rank;
    let ring_from = inbox::own_rings(c, inbox);
    for k in 0..c.g.size {
        if k == r || k == root {
            continue;
        }
        let at = cur.from(c.g.pe(k)).load(Ordering::Relaxed);
        if let Some(found) = ring_from(k).peek(at)
            && found.call() == mine.call()
            && found.root().is_some()
        {
            return Some(Disagreement {
                from: k,
                found,
                expected: mine,
            });
        }
    }
    None
}

/// The root's side of [`eager`]: every receiver's ring gets the message;
/// receivers whose ring is full are served as room appears, in turn.
/// `prefetch(k, start)` asks for the lines receiver k's push will write.
/// With `own` (this PE's inbox's rings, on a team), then looks at the next
/// message from every receiver there, after the fence of the last wake-ups:
/// a member that takes itself for the root of this call too pushed its
/// message before its own look, so one of the two sees the other's. Returns
/// the first such member and its message's tag.
fn send(
    c: &Coll<'_>,
    (src, tag): (&[u8], Tag),
    (inbox, cur): (SymOffset, &ring::Cursors),
    (ring_of, prefetch): (impl Fn(usize) -> ring::Ring, impl Fn(usize, u64)),
    own: Option<impl Fn(usize) -> ring::Ring>,
) -> Option<(usize, Tag)> {
    let total = ring::cells(src.len());
    let (root, n) = (c.g.rank, c.g.size);
    let start = |k: usize| cur.to(c.g.pe(k)).load(Ordering::Relaxed);
    // On one node (the common case) every receiver is local, asked once.
    let one_node = c.rt.transport.single_node();
    let local = |k: usize| k != root && (one_node || c.rt.transport.shares_memory(c.g.pe(k)));
    // (rank, cells written) of the receivers not yet served in full.
    let mut rest = Vec::new();
    // Every receiver's lines asked for first, so that their transfers overlap.
    for k in (0..n).filter(|&k| local(k)) {
        prefetch(k, start(k));
    }
    if !one_node {
        for k in (0..n).filter(|&k| k != root && !local(k)) {
            push_remote(c, (src, tag), (inbox, cur), k);
        }
    }
    for k in (0..n).filter(|&k| local(k)) {
        let done = ring_of(k).push(start(k), src, 0, tag);
        if done < total {
            rest.push((k, done));
        }
    }
    inbox::wake_all(c, (0..n).filter(|&k| k != root));
    while let Some(&(k, done)) = rest.first() {
        c.wait_for(
            || {
                let ring = ring_of(k);
                ring.free(ring.chunk_end(start(k), total, done))
            },
            std::iter::once(k),
            || format!("room for cell {done} of {total} in the broadcast inbox of rank {k}"),
            String::new,
        );
        for (k, done) in rest.iter_mut() {
            *done += ring_of(*k).push(start(*k), src, *done, tag);
        }
        inbox::wake_all(c, rest.iter().map(|&(k, _)| k));
        rest.retain(|&(_, done)| done < total);
    }
    let mut claimed = None;
    for k in (0..n).filter(|&k| k != root) {
        let pe = c.g.pe(k);
        cur.to(pe).fetch_add(total as u64, Ordering::Relaxed);
        if let Some(own) = &own
            && claimed.is_none()
            && let Some(found) = own(k).peek(cur.from(pe).load(Ordering::Relaxed))
            && found.call() == tag.call()
            && found.root().is_some()
        {
            claimed = Some((k, found));
        }
    }
    claimed
}

/// The root's push of a message (`inbox::reaches_members`) to rank `k` on
/// another node: each cell one posted put-with-signal, its payload, then its
/// header by a remote add (0 while the cell is free). The cells must be
/// free: the root counts the cells it knows `k` has freed
/// (`Cursors::freed`) and, when the message may not fit, asks for the
/// header of the cell half a ring ahead (at least the message's length; a
/// round trip, answered once the root's earlier cells to k have landed,
/// `Transport::fetch_after_inbox`); once that one is free, every message up to it is taken
/// (receivers take cells in order), which is room for half a ring of
/// cells without asking again. A receiver takes a cell only once its
/// header is there, whatever order the cells arrive in (`Ring::arrived`).
fn push_remote(c: &Coll<'_>, (src, tag): (&[u8], Tag), (inbox, cur): (SymOffset, &ring::Cursors), k: usize) {
    let pe = c.g.pe(k);
    let (ring_at, lines) = inbox::ring_offset(c, inbox, c.g.rank, k);
    let total = ring::cells(src.len()) as u64;
    debug_assert!(total <= lines as u64);
    let header = |seq: u64| SymOffset(ring_at.0 + ring::Ring::line_of(lines, seq) * ring::CELL);
    let seq = cur.to(pe).load(Ordering::Relaxed);
    let freed = cur.freed(pe);
    if seq + total > freed.load(Ordering::Relaxed) + lines as u64 {
        let ahead = (lines as u64 / 2).max(total);
        // The cell of `seq + ahead - 1` holds cell `seq + ahead - 1 - lines`
        // of an earlier message (sent: ahead <= lines) until k takes it.
        let probe = header(seq + ahead - 1);
        c.wait_for(
            // SAFETY: an 8-aligned header word of k's inbox (symmetric, the
            // team's), which k writes with atomic stores. Read after the
            // root's earlier cells to k have landed: a cell still on its way
            // would read as free.
            || unsafe { c.rt.transport.fetch_after_inbox(pe, probe) } == 0,
            std::iter::once(k),
            || format!("room in the broadcast inbox of rank {k} (on another node)"),
            String::new,
        );
        freed.store((seq + ahead).saturating_sub(lines as u64), Ordering::Relaxed);
    }
    for (j, piece) in src.chunks(ring::PAYLOAD).enumerate() {
        let at = header(seq + j as u64);
        // SAFETY: a free cell's payload (piece.len() <= PAYLOAD after its
        // 8-byte header) and header, in k's inbox; `src` is the root's source.
        unsafe {
            c.rt.transport.put_signal_inbox(
                pe,
                SymOffset(at.0 + 8),
                piece.as_ptr(),
                piece.len(),
                at,
                AmoOp::Add(tag.0),
            )
        };
    }
}

/// Wakes rank `k` if it sleeps on its collective bell.
fn wake(c: &Coll<'_>, k: usize) {
    inbox::wake_all(c, std::iter::once(k));
}

/// Linear broadcast; the root runs `meanwhile` once the receivers may read
/// its source, before it waits for them.
fn linear(c: &Coll<'_>, dest: SymOffset, source: SymOffset, len: usize, root: usize, meanwhile: &dyn Fn()) {
    let (r, n) = (c.g.rank, c.g.size);
    if r == root {
        for k in (0..n).filter(|&k| k != root) {
            c.signal(k, c.l.bcast_ready());
        }
        meanwhile();
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
/// the data on to `f.to` and waits until they have read it; the root runs
/// `meanwhile` in between.
fn flow(c: &Coll<'_>, dest: SymOffset, source: SymOffset, len: usize, root: usize, f: Flow, meanwhile: &dyn Fn()) {
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
    if c.g.rank == root {
        meanwhile();
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
    fn eager_sizes_stop_where_linear_wins_or_the_slot_ends() {
        // A message goes eagerly up to the smaller of its slot and the size
        // where the linear algorithm is faster (slots: `inbox`'s test).
        assert!(eager_fits(2, EAGER_MAX_PAIR) && !eager_fits(2, EAGER_MAX_PAIR + 1));
        assert!(eager_fits(3, EAGER_MAX) && !eager_fits(3, EAGER_MAX + 1));
        assert!(eager_fits(inbox::INBOX_CELLS + 1, 8) && !eager_fits(inbox::INBOX_CELLS + 2, 8));
        for n in [2, 3, 8, 40, 100] {
            let cells = inbox::slot_cells(n);
            let max = if n == 2 { EAGER_MAX_PAIR } else { EAGER_MAX };
            assert!(eager_fits(n, max.min(cells * ring::PAYLOAD)));
            assert!(!eager_fits(n, cells * ring::PAYLOAD + 1));
        }
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
