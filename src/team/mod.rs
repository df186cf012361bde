//! Teams: ordered sets of PEs in arithmetic progression over the world, each
//! with its own synchronisation memory.
//!
//! Every team is `start + i * stride` (world PE numbers, stride possibly
//! negative) for `i` in `0..size`: a strided split of a strided team is again
//! strided, and both axes of a 2-D split are strided splits of the parent.
//! Handles are table indices with a generation, so a handle used after
//! `shmem_team_destroy` is recognised, not followed. The table ([`Teams`],
//! owned by the runtime) grows as needed; slots of destroyed teams are
//! reused.
//!
//! A team's synchronisation memory is laid out here at creation (a region
//! in a space the team owns, shaped by the strategy's `psync::Plan`); how it
//! is used and reused is the strategy's business (`psync`), run by the
//! collectives (`coll`), which the splits and destroys use for their
//! barriers.

use crate::coll::agree::SplitArgs;
use crate::coll::ring::Cursors;
use crate::coll::{self, Group, TeamRef};
use crate::heap::SymOffset;
use crate::psync::{LOCATION_BYTES, Plan, TeamSync, UNIT};
use crate::space::arena::{Extent, FIRST_EXTENTS, SPLIT_WORDS};
use crate::space::{self, Space, SpaceError, Spaces};
use crate::transport::Transport;
use crate::world::World;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

/// Raw handle values of the predefined teams (`SHMEM_TEAM_WORLD`,
/// `SHMEM_TEAM_SHARED`, and Sandia OpenSHMEM's `SHMEMX_TEAM_NODE`).
pub(crate) const WORLD: usize = 1;
pub(crate) const SHARED: usize = 2;
pub(crate) const NODE: usize = 3;

/// The predefined teams, in table order (slot `i` has raw handle `i + 1`).
/// On one node all hold every PE and share the world team's sync memory.
const PREDEFINED: [&str; 3] = ["SHMEM_TEAM_WORLD", "SHMEM_TEAM_SHARED", "SHMEMX_TEAM_NODE"];

#[derive(Debug)]
pub(crate) struct Team {
    pub start: isize,
    pub stride: isize,
    pub size: usize,
    pub my_rank: usize,
    /// `shmem_team_config_t::num_contexts` as given at creation.
    pub num_contexts: i32,
    pub sync: Arc<TeamSync>,
    /// The space the team owns, which holds `sync`.
    pub space: Arc<Space>,
    /// Which predefined team this is, if any.
    pub predefined: Option<&'static str>,
    /// The team as a hang report names it (`job::TEAM_TAGS`).
    pub tag: u32,
    /// The ring cursors of the team's inbox, once a one-round collective
    /// has looked them up (`coll::TeamRef::cursors`).
    pub cursors: OnceLock<&'static Cursors>,
}

/// [`Team::tag`] of a team: its predefined name's, or any team's.
fn tag_of(predefined: Option<&str>) -> u32 {
    predefined
        .and_then(|n| crate::job::TEAM_TAGS.iter().position(|t| *t == n))
        .map_or(crate::job::TEAM_TAG_OTHER, |i| i as u32)
}

impl Team {
    pub(crate) fn group(&self) -> Group {
        Group {
            start: self.start,
            stride: self.stride,
            size: self.size,
            rank: self.my_rank,
        }
    }

    /// The team as the collectives take it.
    pub(crate) fn coll(&self) -> TeamRef<'_> {
        TeamRef {
            group: self.group(),
            sync: &self.sync,
            tag: self.tag,
            cursors: &self.cursors,
        }
    }

    /// The world PE of team rank `r`.
    pub(crate) fn pe(&self, r: usize) -> usize {
        self.group().pe(r)
    }

    /// The team rank of world PE `pe`, a member.
    fn rank_of(&self, pe: usize) -> usize {
        self.group().rank_of(pe).expect("a member of the team")
    }
}

struct Slot {
    generation: u32,
    team: Option<Arc<Team>>,
}

#[derive(Default)]
struct Table {
    slots: Vec<Slot>,
    free: Vec<usize>,
}

fn encode(index: usize, generation: u32) -> usize {
    ((generation as usize) << 32) | (index + 1)
}

fn decode(raw: usize) -> Option<(usize, u32)> {
    let index = (raw & 0xffff_ffff).checked_sub(1)?;
    Some((index, (raw >> 32) as u32))
}

/// Zeroes this PE's copy of the inbox and the sync arrays of a region about
/// to be taken (between the barriers that agree on it: before any member can
/// signal or push).
fn clear_arrays(rt: &World, extent: Extent, plan: &Plan) {
    let flags = Extent {
        start: extent.start + plan.scratch,
        len: plan.inbox + plan.cap * plan.array_bytes,
    };
    space::arena::Arena::new(rt).zero(flags);
}

/// Takes the region of a new team on this PE, in a space the team owns, and
/// accounts for it. `extra` bytes after the region hold the pairwise
/// location table (world team only); `pairs` is where that table is (`None`
/// for the world team itself: in its `extra` bytes).
fn take(
    rt: &World,
    extent: Extent,
    plan: Plan,
    g: Group,
    (extra, pairs): (usize, Option<SymOffset>),
) -> (Arc<TeamSync>, Arc<Space>) {
    space::take(rt, extent);
    let (space, at) = space::team_space(rt, extent, &[region_len(&plan), extra]);
    rt.psync().accounting.ledger().team_created(&plan, g.size);
    let sync = TeamSync::new(at[0], plan, (g.size, g.rank, g.pe(0)), pairs.unwrap_or(at[1]));
    (Arc::new(sync), space)
}

/// Returns a team's region once no member uses it any more.
fn give_back(rt: &World, team: &Team) {
    let sync = &team.sync;
    let arrays = sync.pool_arrays();
    rt.psync()
        .accounting
        .ledger()
        .team_destroyed(&sync.plan, arrays, sync.size);
    space::drop_team_space(rt, &team.space);
}

/// Bytes of a region.
fn region_len(plan: &Plan) -> usize {
    plan.units() * UNIT
}

fn plan(rt: &World, size: usize) -> Plan {
    let c = &rt.config;
    Plan::new(
        rt.psync().strategy,
        size,
        c.team_scratch_size,
        c.psync_pool,
        c.psync_pool_max,
    )
    .checked(c.check_collectives, size)
}

/// Why a split did not create a team on this PE.
#[derive(Debug)]
pub(crate) enum SplitError {
    /// No extent of the space arena free on every member.
    NoSyncMemory(SpaceError),
}

/// Between the first two barriers of a split: this PE's arguments `mine`
/// against those of the parent's rank 0, which every PE of the parent
/// published before the first barrier (`Arena::publish_split`). On one node
/// only, where reading them is a load: across nodes it would cost a message.
/// When they differ, the lowest parent rank whose arguments differ from rank
/// 0's reports both and ends the job; the others stop.
fn agree_split(rt: &World, routine: &'static str, parent: &Team, mine: SplitArgs) {
    if parent.my_rank == 0 || !rt.transport.shares_memory(parent.pe(0)) {
        return;
    }
    let arena = space::arena::Arena::new(rt);
    let read = |r: usize| SplitArgs::from_words(arena.read_split(&rt.transport, parent.pe(r)));
    let theirs = read(0);
    if theirs == Some(mine) {
        return;
    }
    let first = (1..parent.size)
        .find(|&r| r == parent.my_rank || (rt.transport.shares_memory(parent.pe(r)) && read(r) != theirs))
        .unwrap_or(parent.my_rank);
    coll::agree::split_differs(rt, routine, mine, theirs, first == parent.my_rank)
}

/// What every parent PE sent in a split across nodes ([`gathered`]), by
/// parent rank: the arguments of its split ([`SPLIT_WORDS`], zeros for the
/// library's own splits and a 2-D split's second phase), then the head of
/// its extent list (`Arena::head`).
struct Heads {
    words: Vec<u64>,
    /// Words per PE.
    each: usize,
}

impl Heads {
    fn split_args(&self, r: usize) -> [u64; SPLIT_WORDS] {
        let mut w = [0; SPLIT_WORDS];
        w.copy_from_slice(&self.words[r * self.each..][..SPLIT_WORDS]);
        w
    }

    /// The head of parent rank `r`'s extent list.
    fn list(&self, r: usize) -> &[u64] {
        &self.words[r * self.each + SPLIT_WORDS..][..self.each - SPLIT_WORDS]
    }

    /// [`agree_split`] on the gathered arguments, exactly: on every node,
    /// and the lowest parent rank whose arguments differ from rank 0's
    /// reports.
    fn agree_split(&self, rt: &World, routine: &'static str, parent: &Team, mine: SplitArgs) {
        if parent.my_rank == 0 {
            return;
        }
        let theirs = self.split_args(0);
        if theirs == mine.to_words() {
            return;
        }
        let first = (1..parent.size).find(|&r| self.split_args(r) != theirs);
        let theirs = SplitArgs::from_words(theirs);
        coll::agree::split_differs(rt, routine, mine, theirs, first == Some(parent.my_rank))
    }
}

/// The first step of a split across nodes, in place of its first barrier:
/// this PE's split arguments (`args`) and the head of its extent list (the
/// count and the first [`FIRST_EXTENTS`]) to every parent PE, in one round
/// (`coll::Phases::gather`), so that no member has to read another node's
/// list (a round trip) after a barrier (two rounds).
fn gathered(rt: &World, routine: &'static str, phases: &coll::Phases<'_>, args: Option<SplitArgs>) -> Heads {
    let arena = space::arena::Arena::new(rt);
    let mut mine = args.map_or(vec![0; SPLIT_WORDS], |a| a.to_words().to_vec());
    mine.extend(arena.head(FIRST_EXTENTS));
    let each = mine.len();
    match phases.gather(&mine) {
        Ok(words) => Heads { words, each },
        Err(e) => coll::agree::split_gather_differs(routine, e),
    }
}

/// This process's teams, by handle. Owned by the runtime.
#[derive(Default)]
pub(crate) struct Teams {
    table: RwLock<Table>,
    /// The predefined teams (raw handles 1 to 3), found without the table's
    /// lock or a reference count, because every team collective on
    /// `SHMEM_TEAM_WORLD` looks its team up and four locked instructions
    /// were a fifth of a small broadcast. Each points into an `Arc` that
    /// `kept` holds for the life of the process; null while not initialised.
    predefined: [AtomicPtr<Team>; PREDEFINED.len()],
    /// Every predefined team ever made (a few per `shmem_init`), never
    /// dropped, so that a pointer of `predefined` read by one thread stays
    /// valid while another re-initialises or finalizes.
    kept: Mutex<Vec<Arc<Team>>>,
}

impl Teams {
    /// The predefined team of raw handle `raw`, if it is one and the
    /// library is initialised: no lock, no reference count.
    #[inline]
    pub(crate) fn predefined(&self, raw: usize) -> Option<&Team> {
        let p = self.predefined.get(raw.checked_sub(1)?)?.load(Ordering::Acquire);
        // SAFETY: a non-null pointer comes from an Arc in `kept`, which is
        // never dropped (see the field).
        (!p.is_null()).then(|| unsafe { &*p })
    }

    /// Makes `team` the predefined team of table slot `index` (lock held).
    fn set_predefined(&self, table: &mut Table, index: usize, team: Team) {
        let team = Arc::new(team);
        self.kept.lock().unwrap_or_else(|e| e.into_inner()).push(team.clone());
        self.predefined[index].store(Arc::as_ptr(&team) as *mut Team, Ordering::Release);
        table.slots[index].team = Some(team);
    }

    /// The team behind a raw handle, if it names a live team.
    pub(crate) fn lookup(&self, raw: usize) -> Option<Arc<Team>> {
        let (index, generation) = decode(raw)?;
        let table = self.table.read().unwrap_or_else(|e| e.into_inner());
        let slot = table.slots.get(index)?;
        if slot.generation != generation {
            return None;
        }
        slot.team.clone()
    }

    fn insert(&self, team: Team) -> usize {
        let mut table = self.table.write().unwrap_or_else(|e| e.into_inner());
        let team = Some(Arc::new(team));
        if let Some(index) = table.free.pop() {
            let slot = &mut table.slots[index];
            slot.team = team;
            encode(index, slot.generation)
        } else {
            table.slots.push(Slot { generation: 0, team });
            encode(table.slots.len() - 1, 0)
        }
    }

    /// Removes a live team from the table; its handle is stale from now on.
    fn remove(&self, raw: usize) -> Option<Arc<Team>> {
        let (index, generation) = decode(raw)?;
        let mut table = self.table.write().unwrap_or_else(|e| e.into_inner());
        let slot = table.slots.get_mut(index)?;
        if slot.generation != generation {
            return None;
        }
        let team = slot.team.take()?;
        slot.generation = slot.generation.wrapping_add(1);
        table.free.push(index);
        Some(team)
    }

    /// At `shmem_init`: the predefined teams. Every PE's arena is empty, so every
    /// PE takes the same first extents without talking to the others; nobody
    /// signals into them before the start-up barrier, which every PE reaches
    /// after zeroing its copy. The world team's memory ends with `reserved`
    /// zeroed bytes for the caller (a multiple of `UNIT`), laid out by whoever
    /// asked for them; returns their offset in every segment.
    pub(crate) fn init(&self, rt: &World, spaces: &Spaces, reserved: usize) -> Result<SymOffset, String> {
        let _guard = spaces.lifecycle();
        let arena = space::arena::Arena::new(rt);
        let too_small = |what: &str, bytes: usize| {
            format!(
                "SHMEM_SPACE_ARENA_SIZE={} is too small for {what} ({bytes} bytes after the {}-byte header)",
                rt.config.space_arena_size,
                space::arena::HEADER
            )
        };
        // Pairwise strategies: a location per possible sender, in the world
        // team's space after its region (shared by every team).
        let table = match rt.psync().imp().pair_locations() {
            true => (rt.npes * LOCATION_BYTES).next_multiple_of(UNIT),
            false => 0,
        };
        let plan = plan(rt, rt.npes);
        let len = region_len(&plan) + table + reserved;
        let extent = arena
            .first_fit(&[], len, UNIT)
            .ok_or_else(|| too_small("the world team's synchronisation memory", len))?;
        clear_arrays(rt, extent, &plan);
        arena.zero(Extent {
            start: extent.start + region_len(&plan),
            len: table + reserved,
        });
        let g = Group {
            start: 0,
            stride: 1,
            size: rt.npes,
            rank: rt.me,
        };
        let (sync, space) = take(rt, extent, plan, g, (table + reserved, None));
        let reserved_at = SymOffset(sync.pairs.0 + table);
        rt.psync().set_world(Some(sync.clone()));
        let world = |name| Team {
            start: 0,
            stride: 1,
            size: rt.npes,
            my_rank: rt.me,
            num_contexts: 0,
            sync: sync.clone(),
            space: space.clone(),
            predefined: Some(name),
            tag: tag_of(Some(name)),
            cursors: OnceLock::new(),
        };
        // The predefined teams always sit at the first indices with generation
        // 0; `finalize` left every other slot empty and free.
        let mut table = self.table.write().unwrap_or_else(|e| e.into_inner());
        while table.slots.len() < PREDEFINED.len() {
            table.slots.push(Slot {
                generation: 0,
                team: None,
            });
        }
        for (index, name) in PREDEFINED.into_iter().enumerate() {
            self.set_predefined(&mut table, index, world(name));
        }
        Ok(reserved_at)
    }

    /// After the start-up barrier of a job that spans nodes: `SHMEM_TEAM_SHARED`
    /// and `SHMEMX_TEAM_NODE` become the PEs of this node (`node`, with this
    /// PE's rank), a team with synchronisation memory of its own, created
    /// collectively over the world like any split.
    pub(crate) fn init_node(&self, rt: &World, spaces: &Spaces, node: Group) -> Result<(), String> {
        let world = self.lookup(WORLD).ok_or("the world team is missing")?;
        let raw = match self
            .create(rt, spaces, "shmem_init", (&world, None), &[Some((node, 0))])
            .pop()
        {
            Some(Ok(Some(raw))) => raw,
            Some(Err(SplitError::NoSyncMemory(why))) => {
                return Err(format!("cannot make the node's team (SHMEM_TEAM_SHARED): {why}"));
            }
            _ => return Err("cannot make the node's team (SHMEM_TEAM_SHARED)".into()),
        };
        let team = self.remove(raw).ok_or("the node's team vanished")?;
        let mut table = self.table.write().unwrap_or_else(|e| e.into_inner());
        for (index, name) in [(1, PREDEFINED[1]), (2, PREDEFINED[2])] {
            let node = Team {
                sync: team.sync.clone(),
                space: team.space.clone(),
                predefined: Some(name),
                tag: tag_of(Some(name)),
                cursors: OnceLock::new(),
                ..*team
            };
            self.set_predefined(&mut table, index, node);
        }
        Ok(())
    }

    /// At `shmem_finalize`: forgets every team.
    pub(crate) fn finalize(&self, spaces: &Spaces) {
        let _guard = spaces.lifecycle();
        let mut table = self.table.write().unwrap_or_else(|e| e.into_inner());
        for p in &self.predefined {
            p.store(std::ptr::null_mut(), Ordering::Release);
        }
        for (i, slot) in table.slots.iter_mut().enumerate() {
            if slot.team.take().is_some() && i >= PREDEFINED.len() {
                slot.generation = slot.generation.wrapping_add(1);
            }
        }
        // Every user slot is free for the next shmem_init; stale handles stay stale.
        let n = table.slots.len();
        table.free.clear();
        table.free.extend((PREDEFINED.len()..n).rev());
    }

    /// Creates, collectively over `parent`, the teams described by `mine`: for each
    /// phase, the group this PE joins (with its rank), or `None`. Every parent PE
    /// calls with the same number of phases. Returns the raw handle per phase.
    /// `args`, the user's arguments (`None` for the library's own splits),
    /// are compared with the parent's rank 0's at the first agreement step
    /// ([`agree_split`]): PEs that split differently end the job there.
    pub(crate) fn create(
        &self,
        rt: &World,
        spaces: &Spaces,
        routine: &'static str,
        (parent, args): (&Team, Option<SplitArgs>),
        mine: &[Option<(Group, i32)>],
    ) -> Vec<Result<Option<usize>, SplitError>> {
        let _guard = spaces.lifecycle();
        let pairs = Some(parent.sync.pairs);
        let arena = space::arena::Arena::new(rt);
        coll::team_phases(rt, routine, parent.coll(), |phases| {
            // Across nodes the split's arguments and the first extents of
            // each list travel to every member in place of the first barrier
            // (`gathered`), where the parent allows it.
            let gathering = phases.gathers(SPLIT_WORDS + 1 + 2 * FIRST_EXTENTS);
            let mut out = Vec::with_capacity(mine.len());
            for (i, phase) in mine.iter().enumerate() {
                let args = args.filter(|_| i == 0);
                if let Some(a) = args {
                    arena.publish_split(a.to_words());
                }
                // Every parent PE is inside this call: the extent lists stay still
                // until the second barrier. Only the new team's members are read.
                let heads = gathering.then(|| gathered(rt, routine, phases, args));
                if heads.is_none() {
                    phases.barrier();
                }
                if let Some(a) = args {
                    match &heads {
                        Some(h) => h.agree_split(rt, routine, parent, a),
                        None => agree_split(rt, routine, parent, a),
                    }
                }
                let found = phase.map(|(g, _)| {
                    let plan = plan(rt, g.size);
                    let pes: Vec<usize> = (0..g.size).map(|r| g.pe(r)).collect();
                    let lists = match &heads {
                        Some(h) => pes
                            .iter()
                            .map(|&pe| arena.list_from_head(&rt.transport, pe, h.list(parent.rank_of(pe))))
                            .collect(),
                        None => arena.read_all(&rt.transport, &pes),
                    };
                    let agreed = space::agree_on(rt, &lists, region_len(&plan), UNIT);
                    if let Ok(extent) = agreed {
                        clear_arrays(rt, extent, &plan);
                    }
                    (plan, agreed)
                });
                phases.barrier();
                out.push(match (phase, found) {
                    (Some((g, num_contexts)), Some((plan, Ok(extent)))) => {
                        let (sync, space) = take(rt, extent, plan, *g, (0, pairs));
                        Ok(Some(self.insert(Team {
                            start: g.start,
                            stride: g.stride,
                            size: g.size,
                            my_rank: g.rank,
                            num_contexts: *num_contexts,
                            sync,
                            space,
                            predefined: None,
                            tag: tag_of(None),
                            cursors: OnceLock::new(),
                        })))
                    }
                    (Some(_), Some((_, Err(why)))) => Err(SplitError::NoSyncMemory(why)),
                    _ => Ok(None),
                });
            }
            out
        })
    }

    /// Destroys a user team, collectively over its members. `None` if the handle
    /// is not a live user team.
    pub(crate) fn destroy(&self, rt: &World, spaces: &Spaces, routine: &'static str, raw: usize) -> Option<()> {
        let team = self.lookup(raw)?;
        if team.predefined.is_some() {
            return None;
        }
        // Every member has finished every collective of the team once this
        // barrier completes, and the algorithms consume all their signals, so
        // nothing will write to the team's memory any more.
        coll::team_sync_last(rt, routine, team.coll());
        let _guard = spaces.lifecycle();
        let team = self.remove(raw)?;
        give_back(rt, &team);
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_round_trip_and_carry_generations() {
        assert_eq!(encode(0, 0), WORLD);
        assert_eq!(encode(1, 0), SHARED);
        assert_eq!(encode(2, 0), NODE);
        assert_eq!(decode(encode(7, 3)), Some((7, 3)));
        assert_eq!(decode(0), None);
        assert_ne!(encode(5, 1), encode(5, 2));
    }
}
