//! Spaces: symmetric memory that belongs to a team.
//!
//! A space is created locally with a size (`shmemx_space_create`), then
//! attached to a team, collectively over that team only
//! (`shmemx_space_attach_team`; `shmemx_space_attach` is the world team). At
//! attach the members agree on an extent of the space arena free on every one
//! of them ([`arena`]): the space's memory is at the same offset in every
//! member's segment, so an address in it names the same object on every
//! member, and RMA, atomics, signals and the team's collectives work on it as
//! on the symmetric heap. Allocation inside an attached space runs the same
//! deterministic allocator on every member and ends in a barrier of the
//! team: it never waits for a PE outside the team, so disjoint teams allocate
//! at the same time without meeting.
//!
//! Every team's own synchronisation memory is a space too: the split that
//! creates a team agrees on an extent for it among the new members (inside
//! the split's barriers, see `team::create`), attaches a space of exactly the
//! team's [`Plan`](crate::psync::Plan) size and allocates the team's flags and
//! scratch from it, so a team's collectives need nothing from the rest of the
//! world. Those spaces are internal: not reachable by handle, and their memory
//! is not a valid RMA target for users.

mod alloc;
pub(crate) mod arena;
pub(crate) mod objects;

pub(crate) use alloc::Refusal;

use crate::coll::Group;
use crate::heap::alloc::{Allocator, Exhausted, MIN_ALIGN};
use crate::heap::{SEGMENT_ALIGN, SymOffset};
use crate::world::World;
use arena::{Arena, Extent};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

/// What a space was created with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Config {
    /// Bytes the space's allocations may use on each member.
    pub sheap_size: usize,
    /// Contexts that may be created from the space at once.
    pub num_contexts: usize,
}

/// Where an attached space is.
#[derive(Debug)]
pub(crate) struct Attached {
    /// Raw handle of the team (0 for a team's own synchronisation space).
    pub team: usize,
    pub extent: Extent,
    /// Offset of the extent in every member's segment.
    pub base: SymOffset,
    heap: Allocator,
}

#[derive(Debug, Default)]
struct State {
    attached: Option<Attached>,
    /// Contexts created from the space and not yet destroyed.
    contexts: usize,
}

#[derive(Debug)]
pub(crate) struct Space {
    pub config: Config,
    state: Mutex<State>,
}

/// A misuse of a space, described for the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SpaceError {
    InvalidHandle(usize),
    NotAttached,
    AlreadyAttached { team: usize },
    OtherTeam { attached: usize, given: usize },
    LiveAllocations { blocks: usize, bytes: usize },
    LiveContexts(usize),
    NoRoom { need: usize, align: usize, capacity: usize },
    TooFragmented,
    TooManyContexts(usize),
    NotABlock { addr: usize },
    TeamHasSpaces(Vec<usize>),
}

impl fmt::Display for SpaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpaceError::InvalidHandle(raw) => {
                write!(f, "space {raw:#x} is not a live space (never created, or destroyed)")
            }
            SpaceError::NotAttached => write!(
                f,
                "the space is not attached on this PE: call shmemx_space_attach_team (or shmemx_space_attach) first, on every member of its team"
            ),
            SpaceError::AlreadyAttached { team } => {
                write!(f, "the space is already attached (to team {team:#x}); detach it first")
            }
            SpaceError::OtherTeam { attached, given } => {
                write!(f, "the space is attached to team {attached:#x}, not to team {given:#x}")
            }
            SpaceError::LiveAllocations { blocks, bytes } => write!(
                f,
                "the space still holds {blocks} allocation(s) ({bytes} bytes); free them first"
            ),
            SpaceError::LiveContexts(n) => {
                write!(
                    f,
                    "{n} context(s) created from the space still exist; destroy them first"
                )
            }
            SpaceError::NoRoom { need, align, capacity } => write!(
                f,
                "no {need}-byte extent ({align}-byte aligned) is free on every member of the team in the {capacity}-byte space arena; \
                 detach unused spaces, destroy unused teams or raise SHMEM_SPACE_ARENA_SIZE"
            ),
            SpaceError::TooFragmented => write!(
                f,
                "a member of the team holds {} separate extents of the space arena, the most it can record",
                arena::MAX_EXTENTS
            ),
            SpaceError::TooManyContexts(n) => write!(
                f,
                "the space was created with num_contexts = {n}, and that many of its contexts exist"
            ),
            SpaceError::NotABlock { addr } => {
                write!(f, "{addr:#x} is not the start of a live allocation in this space")
            }
            SpaceError::TeamHasSpaces(spaces) => {
                write!(f, "space(s) ")?;
                for (i, s) in spaces.iter().enumerate() {
                    write!(f, "{}{s:#x}", if i > 0 { ", " } else { "" })?;
                }
                write!(f, " are still attached to the team; detach them first")
            }
        }
    }
}

/// What an address in an attached user space (or a published library
/// object, see [`objects`]) belongs to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mapped {
    /// Raw handle of the space; 0 for a published library object.
    pub space: usize,
    pub team: usize,
    pub group: Group,
    pub extent: Extent,
}

impl Mapped {
    /// True if world PE `pe` is a member of the space's team.
    pub(crate) fn serves(&self, pe: usize) -> bool {
        self.group.rank_of(pe).is_some()
    }
}

/// Live user spaces, by handle.
#[derive(Debug, Default)]
struct Table {
    slots: Vec<(u32, Option<Arc<Space>>)>,
    free: Vec<usize>,
}

/// Handles carry this bit, so a team handle (or a small integer) is never
/// taken for a space.
const TAG: usize = 1 << 31;

fn encode(index: usize, generation: u32) -> usize {
    ((generation as usize) << 32) | TAG | (index + 1)
}

fn decode(raw: usize) -> Option<(usize, u32)> {
    if raw & TAG == 0 {
        return None;
    }
    let index = (raw & (TAG - 1)).checked_sub(1)?;
    Some((index, (raw >> 32) as u32))
}

impl Space {
    pub(crate) fn new(config: Config) -> Space {
        Space {
            config,
            state: Mutex::new(State::default()),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Bytes of arena the space needs, and the alignment of its extent: a
    /// page at least, up to the segment alignment, as large as the space so
    /// that big spaces get big pages. (`shmemx_space_align` aligns addresses,
    /// not offsets, so it may ask for more.)
    pub(crate) fn extent_shape(&self) -> (usize, usize) {
        let page = crate::job::page_size();
        let len = self.config.sheap_size.max(1).next_multiple_of(page);
        let align = self
            .config
            .sheap_size
            .checked_next_power_of_two()
            .unwrap_or(SEGMENT_ALIGN)
            .clamp(page, SEGMENT_ALIGN);
        (len, align)
    }

    /// Attaches the space at `extent`, which every member of `group` has
    /// agreed on and recorded.
    fn attach_at(&self, team: usize, extent: Extent, base: SymOffset) {
        self.state().attached = Some(Attached {
            team,
            extent,
            base,
            heap: Allocator::new(self.config.sheap_size.max(1).next_multiple_of(MIN_ALIGN)),
        });
    }

    /// Where the space lies in the arena, if it is attached.
    pub(crate) fn extent(&self) -> Option<Extent> {
        self.state().attached.as_ref().map(|a| a.extent)
    }

    /// The team the space is attached to, if any.
    pub(crate) fn team(&self) -> Option<usize> {
        self.state().attached.as_ref().map(|a| a.team)
    }

    /// The team of the attached space and its offset in every member's segment.
    pub(crate) fn attached(&self) -> Result<(usize, SymOffset), SpaceError> {
        let s = self.state();
        let a = s.attached.as_ref().ok_or(SpaceError::NotAttached)?;
        Ok((a.team, a.base))
    }

    /// Allocates on this member; every member makes the same calls in the
    /// same order, so every member gets the same offset. Returns the offset
    /// within the space, which starts at address `origin` on this member:
    /// the block's address is a multiple of `align`, which must divide the
    /// difference between any two members' origins (see `heap::heap_align`).
    pub(crate) fn alloc(
        &self,
        size: usize,
        align: usize,
        origin: usize,
    ) -> Result<Result<usize, Exhausted>, SpaceError> {
        let mut s = self.state();
        let a = s.attached.as_mut().ok_or(SpaceError::NotAttached)?;
        // Blocks are whole 64-byte granules, but no block may reach past
        // sheap_size: the last granule of an odd-sized space holds only what
        // fits below the limit.
        Ok(match a.heap.alloc_from(size, align, origin) {
            Ok(off) if off + size > self.config.sheap_size => {
                a.heap.free(off);
                Err(a.heap.exhausted(size, align.max(MIN_ALIGN)))
            }
            r => r,
        })
    }

    /// Frees the block starting at offset `off` of the space.
    pub(crate) fn free(&self, off: usize) -> Option<usize> {
        self.state().attached.as_mut()?.heap.free(off)
    }

    /// Length of the block at offset `off`, if one starts there.
    pub(crate) fn block_len(&self, off: usize) -> Option<usize> {
        self.state().attached.as_ref()?.heap.block_len(off)
    }

    /// Ok if the space is attached and holds no allocation and no context.
    pub(crate) fn idle(&self) -> Result<(), SpaceError> {
        Self::idle_state(&self.state())
    }

    fn idle_state(s: &State) -> Result<(), SpaceError> {
        let a = s.attached.as_ref().ok_or(SpaceError::NotAttached)?;
        let bytes = a.heap.used_bytes();
        if bytes > 0 {
            return Err(SpaceError::LiveAllocations {
                blocks: a.heap.blocks(),
                bytes,
            });
        }
        if s.contexts > 0 {
            return Err(SpaceError::LiveContexts(s.contexts));
        }
        Ok(())
    }

    fn detachable(&self) -> Result<Attached, SpaceError> {
        let mut s = self.state();
        Self::idle_state(&s)?;
        Ok(s.attached.take().expect("checked by idle_state"))
    }

    /// Counts a context created from the space; its team's raw handle.
    pub(crate) fn open_context(&self) -> Result<usize, SpaceError> {
        let mut s = self.state();
        let team = s.attached.as_ref().ok_or(SpaceError::NotAttached)?.team;
        if s.contexts >= self.config.num_contexts {
            return Err(SpaceError::TooManyContexts(self.config.num_contexts));
        }
        s.contexts += 1;
        Ok(team)
    }

    pub(crate) fn close_context(&self) {
        let mut s = self.state();
        s.contexts = s.contexts.saturating_sub(1);
    }
}

/// Agreement among the members of `group`, which are all inside the same
/// collective call between two barriers: the lowest extent of `len` bytes
/// at `align` free on every member. The same answer on every member.
pub(crate) fn agree(rt: &World, group: Group, len: usize, align: usize) -> Result<Extent, SpaceError> {
    let arena = Arena::new(rt);
    let pes: Vec<usize> = (0..group.size).map(|r| group.pe(r)).collect();
    agree_on(rt, &arena.read_all(&rt.transport, &pes), len, align)
}

/// [`agree`] on the members' extent lists, read already.
pub(crate) fn agree_on(rt: &World, lists: &[Vec<Extent>], len: usize, align: usize) -> Result<Extent, SpaceError> {
    let arena = Arena::new(rt);
    if !arena::has_room(lists) {
        return Err(SpaceError::TooFragmented);
    }
    arena.first_fit(lists, len, align).ok_or(SpaceError::NoRoom {
        need: len,
        align,
        capacity: arena.capacity(),
    })
}

/// Records an agreed extent as used on this PE. Cannot fail after
/// [`agree`] succeeded on the same lists.
pub(crate) fn take(rt: &World, extent: Extent) {
    Arena::new(rt)
        .take(extent)
        .expect("agree() checked that every list has room");
}

/// Gives an extent back on this PE once no member uses it any more.
pub(crate) fn give_back(rt: &World, extent: Extent) {
    let arena = Arena::new(rt);
    arena.give(extent);
    arena.release(extent);
}

/// A team's own synchronisation space at an agreed extent (see
/// `team::create`), holding `parts` (byte lengths; an empty one is placed at the
/// end) one after another, the team's region first. Returns the space and the offset of every part.
pub(crate) fn team_space(rt: &World, extent: Extent, parts: &[usize]) -> (Arc<Space>, Vec<SymOffset>) {
    let space = Space::new(Config {
        sheap_size: extent.len,
        num_contexts: 0,
    });
    let base = Arena::new(rt).offset(extent.start);
    space.attach_at(0, extent, base);
    let offsets = parts
        .iter()
        .map(|&len| {
            if len == 0 {
                return SymOffset(base.0 + extent.len);
            }
            let at = space
                .alloc(len, MIN_ALIGN, 0)
                .expect("just attached")
                .expect("the extent holds every part");
            SymOffset(base.0 + at)
        })
        .collect();
    (Arc::new(space), offsets)
}

/// Gives a team's synchronisation space back (after the team's last barrier).
pub(crate) fn drop_team_space(rt: &World, space: &Space) {
    if let Some(a) = space.state().attached.take() {
        give_back(rt, a.extent);
    }
}

/// An internal space of `len` bytes on the team `group`, collectively over
/// its members (between the two barriers `barrier` runs), zeroed before any
/// member can use it. The caller holds [`Spaces::lifecycle`]. For library objects
/// that live in a team's memory (semaphores).
pub(crate) fn attach_internal(
    rt: &World,
    group: Group,
    len: usize,
    mut barrier: impl FnMut(),
) -> Result<(Arc<Space>, SymOffset), SpaceError> {
    barrier();
    let agreed = agree(rt, group, len, crate::psync::UNIT);
    if let Ok(extent) = agreed {
        Arena::new(rt).zero(extent);
    }
    barrier();
    let extent = agreed?;
    take(rt, extent);
    let (space, at) = team_space(rt, extent, &[len]);
    Ok((space, at[0]))
}

/// This process's spaces: the table of user spaces by handle, where the
/// attached ones are, and the lock that orders changes of the arena (space
/// attach and detach, team creation and destruction). Owned by the runtime.
#[derive(Debug, Default)]
pub(crate) struct Spaces {
    lifecycle: Mutex<()>,
    table: Mutex<Table>,
    /// Attached user spaces on this PE, by extent start (address lookups).
    attached: RwLock<BTreeMap<usize, Mapped>>,
}

impl Spaces {
    pub(crate) fn lifecycle(&self) -> MutexGuard<'_, ()> {
        self.lifecycle.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn table(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The space behind a raw handle.
    pub(crate) fn lookup(&self, raw: usize) -> Result<Arc<Space>, SpaceError> {
        let (index, generation) = decode(raw).ok_or(SpaceError::InvalidHandle(raw))?;
        let t = self.table();
        match t.slots.get(index) {
            Some((g, Some(s))) if *g == generation => Ok(s.clone()),
            _ => Err(SpaceError::InvalidHandle(raw)),
        }
    }

    /// `shmemx_space_create`: a new, detached space (local).
    pub(crate) fn create(&self, config: Config) -> usize {
        let space = Some(Arc::new(Space::new(config)));
        let mut t = self.table();
        if let Some(index) = t.free.pop() {
            let slot = &mut t.slots[index];
            slot.1 = space;
            encode(index, slot.0)
        } else {
            t.slots.push((0, space));
            encode(t.slots.len() - 1, 0)
        }
    }

    /// `shmemx_space_destroy`: refused while attached or with contexts.
    pub(crate) fn destroy(&self, raw: usize) -> Result<(), SpaceError> {
        let space = self.lookup(raw)?;
        {
            let s = space.state();
            if let Some(a) = &s.attached {
                return Err(SpaceError::AlreadyAttached { team: a.team });
            }
            if s.contexts > 0 {
                return Err(SpaceError::LiveContexts(s.contexts));
            }
        }
        let (index, _) = decode(raw).ok_or(SpaceError::InvalidHandle(raw))?;
        let mut t = self.table();
        let slot = &mut t.slots[index];
        slot.1 = None;
        slot.0 = slot.0.wrapping_add(1);
        t.free.push(index);
        Ok(())
    }

    /// Attaches user space `raw` to the team `team` (raw handle, `group`): the
    /// members agree on an extent between the two barriers `barrier` runs. The
    /// caller holds [`Spaces::lifecycle`].
    pub(crate) fn attach(
        &self,
        rt: &World,
        raw: usize,
        team: usize,
        group: Group,
        mut barrier: impl FnMut(),
    ) -> Result<(), SpaceError> {
        let space = self.lookup(raw)?;
        if let Some(t) = space.team() {
            return Err(SpaceError::AlreadyAttached { team: t });
        }
        let (len, align) = space.extent_shape();
        // Every member is inside this call between the barriers, so no
        // member's list changes while the others read it.
        barrier();
        let agreed = agree(rt, group, len, align);
        barrier();
        let extent = agreed?;
        take(rt, extent);
        let base = Arena::new(rt).offset(extent.start);
        space.attach_at(team, extent, base);
        self.attached.write().unwrap_or_else(|e| e.into_inner()).insert(
            extent.start,
            Mapped {
                space: raw,
                team,
                group,
                extent,
            },
        );
        Ok(())
    }

    /// Checks that user space `raw` can be detached from `team` (the same
    /// answer on every member: allocation state is symmetric).
    pub(crate) fn check_detach(&self, raw: usize, team: usize) -> Result<Arc<Space>, SpaceError> {
        let space = self.lookup(raw)?;
        match space.team() {
            None => Err(SpaceError::NotAttached),
            Some(t) if t != team => Err(SpaceError::OtherTeam {
                attached: t,
                given: team,
            }),
            Some(_) => Ok(space),
        }
    }

    /// Detaches user space `space` after the team's barrier: nobody uses it any
    /// more. The caller holds [`Spaces::lifecycle`].
    pub(crate) fn detach(&self, rt: &World, space: &Space) -> Result<(), SpaceError> {
        let a = space.detachable()?;
        self.attached
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&a.extent.start);
        give_back(rt, a.extent);
        Ok(())
    }

    /// Makes the internal space at `extent` a valid RMA target on the members
    /// of `m.group`, like a user space (`m.space` is 0: it has no handle). The
    /// caller holds [`Spaces::lifecycle`].
    pub(crate) fn publish(&self, extent: Extent, m: Mapped) {
        self.attached
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(extent.start, m);
    }

    /// Undoes [`publish`](Self::publish). The caller holds [`Spaces::lifecycle`].
    pub(crate) fn unpublish(&self, extent: Extent) {
        self.attached
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&extent.start);
    }

    /// The user spaces attached to team `team`.
    pub(crate) fn attached_to(&self, team: usize) -> Vec<usize> {
        self.attached
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .filter(|m| m.team == team && m.space != 0)
            .map(|m| m.space)
            .collect()
    }

    /// The attached user space (or published object) holding `[addr, addr+len)` on this PE, and the
    /// offset of `addr` in every member's segment.
    pub(crate) fn resolve(&self, rt: &World, addr: usize, len: usize) -> Option<(SymOffset, Mapped)> {
        let arena = Arena::new(rt);
        let start = arena.local_start(addr, len)?;
        let map = self.attached.read().unwrap_or_else(|e| e.into_inner());
        let (_, m) = map.range(..=start).next_back()?;
        (start + len <= m.extent.end()).then(|| (arena.offset(start), *m))
    }

    /// The offset of `[addr, addr+len)` if it is symmetric memory of world PE
    /// `pe`: the heap and globals of every PE, a space's memory on its members.
    pub(crate) fn symmetric_on(&self, rt: &World, addr: usize, len: usize, pe: usize) -> Option<SymOffset> {
        if let Some(off) = rt.own_offset(addr, len) {
            return Some(off);
        }
        self.resolve(rt, addr, len)
            .and_then(|(off, m)| m.serves(pe).then_some(off))
    }

    /// At `shmem_init`: forgets every extent and every user space (their
    /// memory went with the previous initialisation).
    pub(crate) fn reset(&self, rt: &World) {
        Arena::new(rt).reset();
        self.attached.write().unwrap_or_else(|e| e.into_inner()).clear();
        let mut t = self.table();
        let t = &mut *t;
        for (i, slot) in t.slots.iter_mut().enumerate() {
            if slot.1.take().is_some() {
                slot.0 = slot.0.wrapping_add(1);
                t.free.push(i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_are_tagged_and_carry_generations() {
        assert_eq!(decode(encode(0, 0)), Some((0, 0)));
        assert_eq!(decode(encode(9, 4)), Some((9, 4)));
        assert_eq!(decode(1), None, "a team handle (SHMEM_TEAM_WORLD) is not a space");
        assert_eq!(decode(0), None);
        let spaces = Spaces::default();
        let raw = spaces.create(Config {
            sheap_size: 100,
            num_contexts: 1,
        });
        let s = spaces.lookup(raw).unwrap();
        assert_eq!(s.config.sheap_size, 100);
        assert_eq!(s.alloc(8, 1, 0), Err(SpaceError::NotAttached));
        assert_eq!(s.open_context(), Err(SpaceError::NotAttached));
        spaces.destroy(raw).unwrap();
        assert_eq!(spaces.lookup(raw).err(), Some(SpaceError::InvalidHandle(raw)));
        assert_eq!(spaces.destroy(raw), Err(SpaceError::InvalidHandle(raw)));
    }

    #[test]
    fn extent_shape_is_page_rounded_and_aligned_by_size() {
        let page = crate::job::page_size();
        let s = |n| {
            Space::new(Config {
                sheap_size: n,
                num_contexts: 0,
            })
            .extent_shape()
        };
        assert_eq!(s(1), (page, page));
        assert_eq!(s(3 * page + 1), (4 * page, 4 * page));
        assert_eq!(s(1 << 30), (1 << 30, SEGMENT_ALIGN));
    }

    #[test]
    fn attached_space_allocates_frees_and_refuses_detach_while_used() {
        let s = Space::new(Config {
            sheap_size: 1000,
            num_contexts: 1,
        });
        s.attach_at(5, Extent { start: 0, len: 4096 }, SymOffset(0));
        let a = s.alloc(600, 1, 0).unwrap().unwrap();
        assert!(s.alloc(600, 1, 0).unwrap().is_err(), "beyond sheap_size");
        let e = s.alloc(384, 1, 0).unwrap().unwrap_err();
        assert_eq!(
            (e.requested, e.align),
            (384, MIN_ALIGN),
            "640 + 384 > 1000 though 1024 is free"
        );
        let b = s.alloc(360, 1, 0).unwrap().unwrap();
        assert_eq!(s.free(b), Some(384), "the last granule is partly usable");
        assert_eq!(s.open_context(), Ok(5));
        assert_eq!(s.open_context(), Err(SpaceError::TooManyContexts(1)));
        assert!(matches!(
            s.detachable(),
            Err(SpaceError::LiveAllocations { blocks: 1, .. })
        ));
        assert_eq!(s.free(a), Some(640));
        assert_eq!(s.detachable().err(), Some(SpaceError::LiveContexts(1)));
        s.close_context();
        assert!(s.detachable().is_ok());
        assert_eq!(s.team(), None);
    }
}
