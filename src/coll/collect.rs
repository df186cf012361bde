//! Collect (blocks of any size per PE) and fcollect (the same size on every
//! PE): every member's `dest` receives the members' `source` blocks in rank
//! order.
//!
//! Linear: a barrier (every source is ready), every member copies every block
//! from its owner, a barrier (nobody's source is still being read).
//! Ring: in step s each PE copies block `r - s` from its left neighbour's dest,
//! where that neighbour put it one step earlier, then tells its right neighbour;
//! at the end it waits for the right neighbour to finish reading its dest.
//! Collect first publishes each member's size in its sync array and meets the
//! others in a barrier, so every member can place every block.
//! Small team fcollects go in one round through the team's inbox
//! ([`fcollect_eager`]); the active-set ones push into the pSync's
//! ([`push_exchange`]).

use super::Coll;
use super::inbox::{self, Disagreement};
use super::registry::Collect;
use crate::heap::SymOffset;

/// `lens[k]` is the byte length of rank k's block; `source` has `lens[me]`.
fn run_blocks(c: &Coll<'_>, alg: Collect, dest: SymOffset, source: SymOffset, lens: &[usize], met: bool) {
    let (r, n) = (c.g.rank, c.g.size);
    let mut at = Vec::with_capacity(n + 1);
    at.push(0usize);
    for l in lens {
        at.push(at.last().unwrap() + l);
    }
    let block = |k: usize| SymOffset(dest.0 + at[k]);
    // Every copy below relies on this: dest holds sum(lens) bytes and source
    // lens[r] bytes on every member, symmetric (checked by the caller).
    match alg {
        Collect::Ring if n > 1 => {
            // SAFETY: see above; a local copy, overlap allowed.
            unsafe { std::ptr::copy(c.local(source), c.local(block(r)), lens[r]) };
            let (left, right) = ((r + n - 1) % n, (r + 1) % n);
            c.signal(right, c.l.ring_ready());
            for s in 1..n {
                let b = (r + n - s) % n;
                c.consume(c.l.ring_ready(), left, 1);
                // SAFETY: see above; the left neighbour has block b in its dest.
                unsafe { c.get(left, block(b), c.local(block(b)), lens[b]) };
                if s < n - 1 {
                    c.signal(right, c.l.ring_ready());
                }
            }
            c.signal(left, c.l.ring_done());
            c.consume(c.l.ring_done(), right, 1);
        }
        _ => {
            if !met {
                c.barrier();
            }
            for k in 0..n {
                if k == r {
                    // SAFETY: see above; local copy, overlap allowed.
                    unsafe { std::ptr::copy(c.local(source), c.local(block(r)), lens[r]) };
                } else {
                    // SAFETY: see above.
                    unsafe { c.get(k, source, c.local(block(k)), lens[k]) };
                }
            }
            c.barrier();
        }
    }
}

/// The pushed exchange of the active-set fcollect and alltoall (see
/// `registry::Push`): `block(k)` (`len` bytes, this PE's memory) goes to
/// member k's dest block `rank`. When all n blocks fit the pSync's `inbox`,
/// they go into slot `rank` of every other member's inbox with a signal on
/// `word`, and each member moves its inbox into its own dest and clears it:
/// nobody but the member writes its dest, and one round of signals suffices.
/// A member can reach the next call on the same pSync (two calls later, with
/// two pSyncs used in turn) only after every member has sent it its blocks
/// of the call in between, so after every member has left this one: a slot is
/// never written twice before it is read. Larger blocks: a barrier (every
/// member has entered the call, so its dest is its to receive) and the same
/// writes straight into the dests.
pub(super) fn push_exchange(
    c: &Coll<'_>,
    dest: SymOffset,
    inbox: SymOffset,
    len: usize,
    word: usize,
    block: impl Fn(usize) -> *const u8,
) {
    let (r, n) = (c.g.rank, c.g.size);
    let eager = n * len <= crate::psync::INBOX_BYTES;
    if !eager {
        c.barrier();
    }
    let to = if eager { inbox } else { dest };
    // Starting after this rank spreads the writers over the receivers.
    for k in (1..n).map(|i| (r + i) % n) {
        // SAFETY: member k's inbox holds n * len bytes (checked above) or
        // its dest n * len bytes (symmetric, checked by the caller); block(k)
        // is len bytes of this PE's source.
        unsafe { c.put_then_signal(k, SymOffset(to.0 + r * len), block(k), len, word) };
    }
    // SAFETY: this PE's dest block; block(r) is this PE's source (`copy`
    // allows an in-place call).
    unsafe { std::ptr::copy(block(r), c.local(SymOffset(dest.0 + r * len)), len) };
    c.consume_each(word, (0..n).filter(|&k| k != r));
    if eager {
        for k in (0..n).filter(|&k| k != r) {
            let (slot, mine) = (
                c.local(SymOffset(inbox.0 + k * len)),
                c.local(SymOffset(dest.0 + k * len)),
            );
            // SAFETY: slot k of this PE's inbox and block k of its dest, len
            // bytes each; member k wrote the slot before its signal.
            unsafe {
                std::ptr::copy(slot, mine, len);
                std::ptr::write_bytes(slot, 0, len);
            }
        }
    }
}

/// fcollect for the active-set routines: [`push_exchange`] of this PE's
/// source to everyone.
pub(super) fn fcollect_push(c: &Coll<'_>, dest: SymOffset, source: SymOffset, inbox: SymOffset, len: usize) {
    let src = c.local(source) as *const u8;
    push_exchange(c, dest, inbox, len, c.l.ring_ready(), |_| src);
}

/// fcollect for the team routines, in one round through the team's `inbox`
/// (`inbox::exchange`; the caller checked that it applies): this PE's
/// source goes to every other member, whose blocks land straight in this
/// PE's dest, written by nobody else.
pub(super) fn fcollect_eager(
    c: &Coll<'_>,
    dest: SymOffset,
    source: SymOffset,
    inbox: inbox::TeamInbox<'_>,
    len: usize,
) -> Result<(), Disagreement> {
    let block = |k: usize| c.local(SymOffset(dest.0 + k * len));
    let src = c.local(source) as *const u8;
    // SAFETY: source holds len bytes and dest n * len on this PE (symmetric,
    // checked by the caller); nobody else writes this PE's dest.
    unsafe { inbox::exchange(c, inbox, len, |_| src, block)? };
    // Last: an in-place source (dest's block r) was pushed before any block
    // landed; `copy` allows the overlap.
    // SAFETY: as above.
    unsafe { std::ptr::copy(src, block(c.g.rank), len) };
    Ok(())
}

/// fcollect: `len` bytes from every member.
pub(super) fn fcollect(c: &Coll<'_>, alg: Collect, dest: SymOffset, source: SymOffset, len: usize) {
    let lens = vec![len; c.g.size];
    run_blocks(c, alg, dest, source, &lens, false);
}

/// collect: `len` bytes from this member, any length from the others.
/// `dest_for` gets the total length before any data moves and returns the
/// destination (the caller checks that it holds that many bytes).
pub(super) fn collect(
    c: &Coll<'_>,
    alg: Collect,
    dest_for: impl FnOnce(usize) -> SymOffset,
    source: SymOffset,
    len: usize,
) {
    let n = c.g.size;
    // Sizes travel as len + 1, so a published 0 means "not yet" only before
    // the barrier; after it every word is set.
    c.publish_count(len as u64 + 1);
    c.barrier();
    let lens: Vec<usize> = (0..n).map(|k| c.read_count(k) as usize - 1).collect();
    let dest = dest_for(lens.iter().sum());
    run_blocks(c, alg, dest, source, &lens, true);
    // The others read this PE's size right after the first barrier. The linear
    // algorithm ends with a barrier, so they have; the ring one only waits for
    // the neighbours, so meet once more before clearing the word.
    if matches!(alg, Collect::Ring) && n > 1 {
        c.barrier();
    }
    c.publish_count(0);
}
