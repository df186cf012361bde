//! The inbox of a team (or of an active set's pSync): `INBOX_BYTES` on
//! every member, cut into one [`Ring`](ring::Ring) per other member, so that
//! every ordered pair of PEs has a single-producer, single-consumer queue of
//! self-describing cells. Small collectives complete through it in one
//! round: the eager broadcast (`bcast::eager`), where the root pushes and
//! returns, and [`exchange`], where every member pushes to every other and
//! takes what the others pushed to it (team fcollect, alltoall and
//! reductions, see `entry`).
//!
//! Nothing here signals on a flag: a cell's header says that it holds a
//! message and how long it is, and the rings are flow-controlled (a sender
//! waits for room), so a member may run ahead into its next calls while a
//! slow one still reads this call's messages, and no strategy memory is
//! needed. Both sides of a ring count the messages they moved in private
//! memory (`ring::cursors`, one pair of counts per pSync offset and peer):
//! a ring carries the messages of the collectives of one team that go
//! through the inbox, in call order, and every member makes the same calls
//! in the same order, so the counts agree. A header is the message's
//! [`Tag`]: its length, the root of a broadcast and the team's
//! count of one-round calls, which every member also counts; a header with
//! another tag means that the members disagree on the size, the root or the
//! collective, which the caller reports.
//!
//! A team's inbox is followed by two slabs (`psync::SLAB_BYTES`) for the
//! smallest exchanges: in a slab, a header word per other member, then a
//! block per other member, packed, so that the blocks from all members fill
//! a few cache lines instead of a line each (at 8 PEs, 8-byte blocks take
//! two lines where the rings take seven). Calls use the two slabs in turn,
//! by the parity of a count of slab exchanges every member keeps privately
//! from the team's creation (`TeamSync::slab_calls`).
//! No flow control is needed: a member writes into a slab of call i + 2
//! only after it has finished call i + 1, which needed every member's block
//! of call i + 1, which each member sends only after it has finished call i
//! and so emptied (zeroed) that slab.
//!
//! Across nodes (a team that spans them, under an engine whose
//! put-with-signal is posted, `reaches_members`), exchanges whose blocks fit
//! a slab still take this path: a block for a member of another node goes
//! as one posted put-with-signal, the block into that member's slab, then
//! its header by a remote add (the header is 0 until then), which the engine
//! delivers after the block; the receiver waits for the header as for a
//! neighbour's. One message per pair and no reply, where the pulling
//! algorithms take a signal, a get and two barriers' rounds.
//!
//! Progress on the rings: a member can always push its message of the call
//! it is in when no member is in an earlier call. A PE in the earliest call
//! has, before it, only calls every other member has finished, and each
//! finished call took every message sent to that member, so the rings from
//! this PE hold nothing older than this call; its message fits a slot (the
//! callers check [`fits`]), so it is written whole. Its own messages come
//! from members in the same call or later, who have pushed them. So the
//! earliest call always completes, and a sender that waits for room (a
//! member that ran ahead by a slot's worth of messages) is woken when the
//! slow member frees it.

use super::Coll;
use super::ring::{self, Tag};
use crate::heap::SymOffset;
use crate::psync::{CollOp, INBOX_BYTES, SLAB_BYTES};
use crate::transport::Transport;
use crate::types::AmoOp;
use std::sync::atomic::{AtomicU64, Ordering, fence};

/// Cells of the inbox when its start is not cache-line aligned (a pSync
/// need only be 8-aligned): the ring cells start at the first line boundary
/// inside it.
pub(super) const INBOX_CELLS: usize = INBOX_BYTES / ring::CELL - 1;

/// Cells of each slot of the inbox for a group of `n`.
pub(super) fn slot_cells(n: usize) -> usize {
    INBOX_CELLS / n.saturating_sub(1).max(1)
}

/// Slot of a receiver's inbox that rank `sender` writes into: one per other
/// rank (a PE sends nothing to itself).
pub(super) fn slot_of(sender: usize, receiver: usize) -> usize {
    if sender < receiver { sender } else { sender - 1 }
}

/// Whether a message of `len` bytes fits one slot of the inbox of a group
/// of `n` (what [`exchange`]'s progress argument needs).
pub(super) fn fits(n: usize, len: usize) -> bool {
    ring::cells(len) <= slot_cells(n)
}

/// Whether the inbox can be used: its rings are written by load and store,
/// so only when the transport maps every member's memory. Each member
/// answers alike (a group spanning nodes has, for every member, one on
/// another node), so all take the same path.
pub(super) fn members_share_memory(c: &Coll<'_>) -> bool {
    (0..c.g.size).all(|k| c.rt.transport.shares_memory(c.g.pe(k)))
}

/// Whether a one-round call of kind `op` with blocks of `len` bytes can go
/// through the team's inbox: every member's memory is mapped here, or the
/// team spans nodes, the transport posts a put-with-signal to another node
/// without waiting (`Transport::posts_remote_signals`), and the call is an
/// exchange whose blocks fit a slab ([`exchange_slabs`] then pushes each
/// block and its header to the members of other nodes, one posted
/// put-with-signal each) or a broadcast (the root pushes each cell of the
/// message likewise, asking for room only every half ring,
/// `bcast::push_remote`; the callers send eagerly only what fits a slot,
/// `bcast::eager_fits`). Larger exchanges go through the rings in chunks
/// whose producer watches the consumer's cells, which across nodes would
/// cost a round trip each, so they stay on one node. Every member answers
/// alike (see [`members_share_memory`]).
pub(super) fn reaches_members(c: &Coll<'_>, op: CollOp, len: usize) -> bool {
    let pushed = || match op {
        CollOp::Broadcast => true,
        _ => slab_fits(c.g.size, len),
    };
    members_share_memory(c) || (c.rt.transport.posts_remote_signals() && pushed())
}

/// The ring from rank `sender` to rank `receiver` in the receiver's inbox,
/// at this process's address for it. [`members_share_memory`] holds, and
/// the inbox is `INBOX_BYTES` on every member.
pub(super) fn ring_between(c: &Coll<'_>, inbox: SymOffset, sender: usize, receiver: usize) -> ring::Ring {
    rings_from(c, inbox, sender)(receiver)
}

/// Asks for the lines of the cells a push of `total` cells from `start`
/// will write in the ring from `sender` to `receiver`. Not counted against
/// the page-table budget (`heap::tables`): a prefetch maps nothing.
pub(super) fn prefetch_ring(
    c: &Coll<'_>,
    inbox: SymOffset,
    (sender, receiver): (usize, usize),
    start: u64,
    total: usize,
) {
    rings_to_pes(c, inbox, sender)(receiver, c.g.pe(receiver)).prefetch_push(start, total, 0);
}

/// [`ring_between`] from `sender` to each receiver, with what does not
/// depend on the receiver worked out once; each receiver is counted against
/// the page-table budget as it is asked for.
pub(super) fn rings_from<'c>(c: &'c Coll<'_>, inbox: SymOffset, sender: usize) -> impl Fn(usize) -> ring::Ring + 'c {
    let ring_to = rings_to_pes(c, inbox, sender);
    move |receiver| ring_to(receiver, c.reach(receiver))
}

/// The rings of `inbox` in every member's segment: the offset of the ring
/// from rank `sender` to rank `receiver`, and the cells of a ring, with what
/// does not depend on the pair worked out once.
fn ring_layout(c: &Coll<'_>, inbox: SymOffset) -> (impl Fn(usize, usize) -> SymOffset + use<>, usize) {
    // Same padding on every PE: segments are page-aligned.
    let first = c.local(inbox).align_offset(ring::CELL);
    let slot = slot_cells(c.g.size);
    let offset = move |sender, receiver| SymOffset(inbox.0 + first + slot_of(sender, receiver) * slot * ring::CELL);
    (offset, slot)
}

/// The offset of the ring from rank `sender` to rank `receiver` in every
/// member's inbox, and its cells: [`ring_between`] for a producer that has
/// no address for the receiver's memory (another node).
pub(super) fn ring_offset(c: &Coll<'_>, inbox: SymOffset, sender: usize, receiver: usize) -> (SymOffset, usize) {
    let (offset, slot) = ring_layout(c, inbox);
    (offset(sender, receiver), slot)
}

/// [`rings_from`], the receiver's world PE given beside its rank.
fn rings_to_pes<'c>(c: &'c Coll<'_>, inbox: SymOffset, sender: usize) -> impl Fn(usize, usize) -> ring::Ring + 'c {
    let (offset, slot) = ring_layout(c, inbox);
    move |receiver, pe| {
        let off = offset(sender, receiver);
        let Some(base) = c.rt.transport.local_ptr(pe, off) else {
            unreachable!("a PE that shares memory has an address (Transport::shares_memory)")
        };
        // SAFETY: the sender's slot of the receiver's inbox: line-aligned, and
        // slot_of(..) < n - 1, so the slot ends within (n - 1) * slot <=
        // INBOX_CELLS cells after `first` (INBOX_CELLS leaves room for the
        // padding); the inbox is in the receiver's mapped segment (checked
        // symmetric by the caller), and only the sender writes and the receiver
        // reads this slot.
        unsafe { ring::Ring::new(base.as_ptr(), slot) }
    }
}

/// The rings of this PE's own inbox, by sender: [`ring_between`] to this
/// PE, with the address worked out once, for a look at several of them.
pub(super) fn own_rings<'c>(c: &'c Coll<'_>, inbox: SymOffset) -> impl Fn(usize) -> ring::Ring + 'c {
    let local = c.local(inbox);
    let base = local.wrapping_add(local.align_offset(ring::CELL));
    let (r, slot) = (c.g.rank, slot_cells(c.g.size));
    move |sender| {
        let at = base.wrapping_add(slot_of(sender, r) * slot * ring::CELL);
        // SAFETY: as in `ring_between`, with this PE as the receiver: its
        // own inbox, at the address the transport gives for it (`local`).
        unsafe { ring::Ring::new(at, slot) }
    }
}

/// Wakes the ranks of `ks` that sleep on their collective bell: one fence
/// for all (the cells' stores are visible before the sleepers are read).
pub(super) fn wake_all(c: &Coll<'_>, ks: impl Iterator<Item = usize>) {
    fence(Ordering::SeqCst);
    for k in ks {
        c.rt.transport.wake(c.g.pe(k));
    }
}

/// What a member found in its inbox instead of the message it expected.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Disagreement {
    /// The rank that sent it.
    pub from: usize,
    /// Its tag (length, root, call).
    pub found: Tag,
    /// The tag this member expected.
    pub expected: Tag,
}

/// A team's inbox as a one-round call takes it: its offset, the team's
/// count of slab exchanges (`TeamSync::slab_calls`), its rings' cursors
/// (`ring::cursors` of the offset), and the number of this
/// call among the team's one-round calls (`TeamSync::inbox_calls`), which
/// every message of the call carries in its tag.
#[derive(Clone, Copy)]
pub(super) struct TeamInbox<'a> {
    pub at: SymOffset,
    pub slab_calls: &'a AtomicU64,
    pub cursors: &'static ring::Cursors,
    pub call: u64,
}

/// Bytes of one slab (two per team, used in turn).
const SLAB: usize = SLAB_BYTES / 2;

/// Bytes between two blocks in a slab.
fn slab_stride(len: usize) -> usize {
    len.next_multiple_of(8)
}

/// Whether blocks of `len` bytes from the other n - 1 members fit a slab,
/// with their headers.
pub(super) fn slab_fits(n: usize, len: usize) -> bool {
    n.saturating_sub(1).saturating_mul(8 + slab_stride(len)) <= SLAB
}

/// One round among all members: every member sends `len` bytes
/// (`outgoing(k)`, in this PE's memory) to every other member k and receives
/// `len` bytes from each member k into `incoming(k)`; `fits(n, len)` and
/// [`reaches_members`] hold, and `ib` is a team's inbox
/// (`psync::TEAM_INBOX_BYTES`: the slabs follow the rings). Blocks that [`slab_fits`] go
/// through the slabs, larger ones through the rings. The pushes are all
/// written before anything is received, so `incoming` may overlap what
/// `outgoing` reads (an in-place call). Nothing is exchanged with this PE itself: the caller
/// moves its own block.
///
/// # Safety
/// `outgoing(k)` is readable and `incoming(k)` writable for `len` bytes, for
/// every other rank k, for the whole call, and nobody else writes them.
pub(super) unsafe fn exchange(
    c: &Coll<'_>,
    ib: TeamInbox<'_>,
    len: usize,
    outgoing: impl Fn(usize) -> *const u8,
    incoming: impl Fn(usize) -> *mut u8,
) -> Result<(), Disagreement> {
    let tag = Tag::new(len, None, ib.call);
    if slab_fits(c.g.size, len) {
        // SAFETY: the caller's contract; a team inbox has its slabs.
        return unsafe { exchange_slabs(c, (ib.at, ib.slab_calls), tag, outgoing, incoming) };
    }
    let inbox = ib.at;
    let (r, n) = (c.g.rank, c.g.size);
    let cur = ib.cursors;
    let total = ring::cells(len);
    let others = || (1..n).map(move |i| (r + i) % n);
    // Pushes, starting after this rank so that the members spread over the
    // receivers; every receiver's lines asked for first, so that their
    // transfers overlap.
    for k in others() {
        let start = cur.to(c.g.pe(k)).load(Ordering::Relaxed);
        prefetch_ring(c, inbox, (r, k), start, total);
    }
    for k in others() {
        let to = cur.to(c.g.pe(k));
        let start = to.load(Ordering::Relaxed);
        let ring = ring_between(c, inbox, r, k);
        // SAFETY: the caller's contract.
        let msg = unsafe { std::slice::from_raw_parts(outgoing(k), len) };
        if ring.push(start, msg, 0, tag) < total {
            // Room for a message that fits a slot: the member has not yet
            // taken our earlier ones (see the module's progress argument).
            wake_all(c, std::iter::once(k));
            c.wait_for(
                || ring.free(ring.chunk_end(start, total, 0)),
                std::iter::once(k),
                || format!("room for a {len}-byte message in the inbox of rank {k}"),
                String::new,
            );
            ring.push(start, msg, 0, tag);
        }
        to.store(start + total as u64, Ordering::Relaxed);
    }
    wake_all(c, others());
    let arrived = |k: usize| {
        let start = cur.from(c.g.pe(k)).load(Ordering::Relaxed);
        ring_between(c, inbox, k, r).arrived(start, tag, 0)
    };
    take_each(
        c,
        |pending| format!("{len}-byte messages in the inbox from ranks {pending:?}"),
        arrived,
        |k| {
            let from = cur.from(c.g.pe(k));
            let start = from.load(Ordering::Relaxed);
            // SAFETY: the caller's contract.
            let dst = unsafe { std::slice::from_raw_parts_mut(incoming(k), len) };
            ring_between(c, inbox, k, r)
                .pop(start, dst, 0, tag)
                .map_err(|m| Disagreement {
                    from: k,
                    found: m.found,
                    expected: tag,
                })?;
            from.store(start + total as u64, Ordering::Relaxed);
            Ok(())
        },
    )?;
    // Room freed here may be what a member that ran ahead waits for.
    wake_all(c, others());
    Ok(())
}

/// [`exchange`] through the slabs after the team's rings, of blocks tagged
/// `tag` (a header word is the block's tag, as a ring cell's).
///
/// # Safety
/// As [`exchange`], and [`slab_fits`] holds.
unsafe fn exchange_slabs(
    c: &Coll<'_>,
    (inbox, calls): (SymOffset, &AtomicU64),
    tag: Tag,
    outgoing: impl Fn(usize) -> *const u8,
    incoming: impl Fn(usize) -> *mut u8,
) -> Result<(), Disagreement> {
    let len = tag.bytes();
    let (r, n) = (c.g.rank, c.g.size);
    // Only the calling thread uses a team's collectives at a time.
    let call = calls.load(Ordering::Relaxed);
    calls.store(call + 1, Ordering::Relaxed);
    let slab = SymOffset(inbox.0 + INBOX_BYTES + (call % 2) as usize * SLAB);
    let stride = slab_stride(len);
    // In a slab, the offsets of the header and block of rank `sender`:
    // (n - 1) headers, then (n - 1) blocks of `stride`, within the slab
    // (slab_fits).
    let offsets = |sender: usize, receiver: usize| {
        let i = slot_of(sender, receiver);
        (i * 8, (n - 1) * 8 + i * stride)
    };
    let at = |base: *mut u8, sender: usize, receiver: usize| {
        let (h, b) = offsets(sender, receiver);
        (base.wrapping_add(h), base.wrapping_add(b))
    };
    let header = |p: *mut u8| {
        // SAFETY: an 8-aligned header word of a mapped slab (the inbox is
        // 8-aligned, SLAB and INBOX_BYTES multiples of 8), accessed
        // atomically by its one writer and one reader.
        unsafe { AtomicU64::from_ptr(p as *mut u64) }
    };
    let others = || (1..n).map(move |i| (r + i) % n);
    for k in others() {
        let pe = c.g.pe(k);
        let Some(base) = c.rt.transport.local_ptr(pe, slab) else {
            // Another node (`reaches_members`): the block, then its header,
            // never before the block; the header is 0 until then (the slab
            // is empty), so the add writes the tag.
            let (h, block) = offsets(r, k);
            // SAFETY: the caller's contract for outgoing(k); both offsets
            // are inside k's slab (8-aligned header), symmetric as the
            // team's inbox is.
            unsafe {
                c.rt.transport.put_signal_inbox(
                    pe,
                    SymOffset(slab.0 + block),
                    outgoing(k),
                    len,
                    SymOffset(slab.0 + h),
                    AmoOp::Add(tag.0),
                )
            };
            continue;
        };
        // Only a mapped segment counts against the page-table budget.
        c.rt.reach(pe);
        let (h, block) = at(base.as_ptr(), r, k);
        // SAFETY: the caller's contract for outgoing(k); the block is ours
        // in k's slab, empty (see the module comment), len <= stride bytes.
        unsafe { std::ptr::copy_nonoverlapping(outgoing(k), block, len) };
        header(h).store(tag.0, Ordering::Release);
    }
    wake_all(c, others());
    let mine = c.local(slab);
    take_each(
        c,
        |pending| {
            format!(
                "{len}-byte blocks in the team's slab {} from ranks {pending:?}",
                call % 2
            )
        },
        |k| header(at(mine, k, r).0).load(Ordering::Relaxed) != 0,
        |k| {
            let (h, block) = at(mine, k, r);
            let found = header(h).load(Ordering::Acquire);
            if found != tag.0 {
                return Err(Disagreement {
                    from: k,
                    found: Tag(found),
                    expected: tag,
                });
            }
            // SAFETY: k's block, published by its header (acquire above);
            // the caller's contract for incoming(k). Zeroed after the copy:
            // the slab must be empty when a later call uses it.
            unsafe {
                std::ptr::copy_nonoverlapping(block, incoming(k), len);
                std::ptr::write_bytes(block, 0, len);
            }
            // Release: a sender on another node adds into it two calls on,
            // maybe on another thread of this PE (the engine's progress).
            header(h).store(0, Ordering::Release);
            Ok(())
        },
    )
}

/// Receives one block from each other member, in whatever order they
/// arrive: `arrived(k)` polls rank k's block, `take(k)` then moves it (or
/// says what it found instead); while none is there, waits for the ranks
/// still missing (`what` describes the wait for a hang report). The first
/// disagreement is returned once the blocks already there are taken.
fn take_each(
    c: &Coll<'_>,
    what: impl Fn(&[usize]) -> String,
    arrived: impl Fn(usize) -> bool,
    mut take: impl FnMut(usize) -> Result<(), Disagreement>,
) -> Result<(), Disagreement> {
    let (r, n) = (c.g.rank, c.g.size);
    let mut pending: Vec<usize> = (1..n).map(|i| (r + i) % n).collect();
    while !pending.is_empty() {
        if !pending.iter().any(|&k| arrived(k)) {
            c.wait_for(
                || pending.iter().any(|&k| arrived(k)),
                pending.iter().copied(),
                || what(&pending),
                String::new,
            );
        }
        let mut wrong = None;
        pending.retain(|&k| {
            if !arrived(k) {
                return true;
            }
            if let Err(e) = take(k) {
                wrong.get_or_insert(e);
            }
            false
        });
        if let Some(e) = wrong {
            return Err(e);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_fit_the_inbox() {
        // One slot per other rank, whatever the padding before the first line.
        for n in [2, 3, 8, 40, 100, INBOX_CELLS + 1] {
            let cells = slot_cells(n);
            assert!((n - 1) * cells * ring::CELL + ring::CELL - 8 <= INBOX_BYTES);
            assert!(fits(n, cells * ring::PAYLOAD) && !fits(n, cells * ring::PAYLOAD + 1));
        }
        assert!(!fits(INBOX_CELLS + 2, 8));
        assert_eq!((slot_of(0, 1), slot_of(2, 1), slot_of(1, 2)), (0, 1, 1));
    }

    #[test]
    fn slabs_hold_headers_and_packed_blocks() {
        // At 8 PEs the seven 8-byte blocks take 56 bytes after 56 of headers.
        assert!(slab_fits(8, 8) && slab_fits(8, 280) && !slab_fits(8, 281));
        assert!(slab_fits(2, SLAB - 8) && !slab_fits(2, SLAB - 7));
        assert!(slab_fits(129, 8) && !slab_fits(130, 8));
        assert_eq!((slab_stride(1), slab_stride(8), slab_stride(9)), (8, 8, 16));
    }
}
