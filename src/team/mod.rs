//! Teams: ordered sets of PEs in arithmetic progression over the world, each
//! with its own synchronisation memory.
//!
//! Every team is `start + i * stride` (world PE numbers, stride possibly
//! negative) for `i` in `0..size`: a strided split of a strided team is again
//! strided, and both axes of a 2-D split are strided splits of the parent.
//! Handles are table indices with a generation, so a handle used after
//! `shmem_team_destroy` is recognised, not followed. The table grows as
//! needed; slots of destroyed teams are reused.

use crate::coll::{Coll, Group};
use crate::psync::arena::{Arena, first_free};
use crate::psync::{self, CollOp, Reserve, SyncArea, TeamSync, UNIT};
use crate::runtime::Runtime;
use std::sync::{Arc, Mutex, RwLock};

/// Raw handle values of the predefined teams (`SHMEM_TEAM_WORLD`, `SHMEM_TEAM_SHARED`).
pub const WORLD: usize = 1;
pub const SHARED: usize = 2;

#[derive(Debug)]
pub struct Team {
    pub start: isize,
    pub stride: isize,
    pub size: usize,
    pub my_rank: usize,
    /// `shmem_team_config_t::num_contexts` as given at creation.
    pub num_contexts: i32,
    pub sync: Arc<TeamSync>,
    /// Which predefined team this is, if any.
    pub predefined: Option<&'static str>,
}

impl Team {
    pub fn group(&self) -> Group {
        Group {
            start: self.start,
            stride: self.stride,
            size: self.size,
            rank: self.my_rank,
        }
    }

    /// A collective call on this team using the strategy's sync memory.
    pub fn coll<'a>(&self, rt: &'a Runtime, routine: &'static str, op: CollOp) -> Coll<'a> {
        let area = strategy(rt).acquire(&self.sync, op);
        Coll {
            rt,
            g: self.group(),
            flags: area.flags,
            scratch: area.scratch,
            scratch_len: area.scratch_len,
            routine,
        }
    }

    /// The world PE of team rank `r`.
    pub fn pe(&self, r: usize) -> usize {
        self.group().pe(r)
    }
}

struct Slot {
    generation: u32,
    team: Option<Arc<Team>>,
}

struct Table {
    slots: Vec<Slot>,
    free: Vec<usize>,
}

static TABLE: RwLock<Table> = RwLock::new(Table {
    slots: Vec::new(),
    free: Vec::new(),
});
/// Team creation and destruction of this process, one at a time.
static LIFECYCLE: Mutex<()> = Mutex::new(());

fn encode(index: usize, generation: u32) -> usize {
    ((generation as usize) << 32) | (index + 1)
}

fn decode(raw: usize) -> Option<(usize, u32)> {
    let index = (raw & 0xffff_ffff).checked_sub(1)?;
    Some((index, (raw >> 32) as u32))
}

fn strategy(rt: &Runtime) -> &'static dyn psync::Strategy {
    psync::strategy(rt.config.psync_strategy)
}

/// The team behind a raw handle, if it names a live team.
pub fn lookup(raw: usize) -> Option<Arc<Team>> {
    let (index, generation) = decode(raw)?;
    let table = TABLE.read().unwrap_or_else(|e| e.into_inner());
    let slot = table.slots.get(index)?;
    if slot.generation != generation {
        return None;
    }
    slot.team.clone()
}

fn insert(team: Team) -> usize {
    let mut table = TABLE.write().unwrap_or_else(|e| e.into_inner());
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
fn remove(raw: usize) -> Option<Arc<Team>> {
    let (index, generation) = decode(raw)?;
    let mut table = TABLE.write().unwrap_or_else(|e| e.into_inner());
    let slot = table.slots.get_mut(index)?;
    if slot.generation != generation {
        return None;
    }
    let team = slot.team.take()?;
    slot.generation = slot.generation.wrapping_add(1);
    table.free.push(index);
    Some(team)
}

/// Units a reserve takes in the arena.
fn units_for(r: Reserve) -> usize {
    (r.flags + r.scratch).div_ceil(UNIT)
}

fn sync_for(arena: &Arena, first: usize, reserve: Reserve) -> TeamSync {
    let flags = arena.unit_offset(first);
    TeamSync {
        area: SyncArea {
            flags,
            scratch: crate::heap::SymOffset(flags.0 + reserve.flags),
            scratch_len: reserve.scratch,
        },
        units: (first, units_for(reserve)),
        reserve,
    }
}

/// Takes the sync memory of a new team on this PE and accounts for it.
fn take(arena: &Arena, first: usize, reserve: Reserve) -> TeamSync {
    let sync = sync_for(arena, first, reserve);
    arena.mark(first, sync.units.1, true);
    psync::TOTALS.lock().unwrap_or_else(|e| e.into_inner()).add(reserve);
    sync
}

/// Returns a team's sync memory.
fn give_back(arena: &Arena, sync: &TeamSync) {
    arena.mark(sync.units.0, sync.units.1, false);
    psync::TOTALS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(sync.reserve);
}

/// At `shmem_init`: the predefined teams. Every PE's arena is empty, so every
/// PE takes the first units without talking to the others.
pub fn init(rt: &Runtime) -> Result<(), String> {
    let _guard = LIFECYCLE.lock().unwrap_or_else(|e| e.into_inner());
    let arena = Arena::new(&rt.segs);
    arena.reset();
    *psync::TOTALS.lock().unwrap_or_else(|e| e.into_inner()) = psync::Totals::default();
    let reserve = strategy(rt).reserve(rt.npes, rt.config.team_scratch_size);
    let need = units_for(reserve);
    if need > arena.units() {
        return Err(format!(
            "SHMEM_SYNC_ARENA_SIZE={} is too small for the world team's {} bytes of synchronisation memory",
            rt.config.sync_arena_size,
            need * UNIT
        ));
    }
    arena.zero(0, need);
    let sync = Arc::new(take(&arena, 0, reserve));
    let world = |name| Team {
        start: 0,
        stride: 1,
        size: rt.npes,
        my_rank: rt.me,
        num_contexts: 0,
        sync: sync.clone(),
        predefined: Some(name),
    };
    // The predefined teams always sit at indices 0 and 1 with generation 0;
    // `finalize` left every other slot empty and free.
    let mut table = TABLE.write().unwrap_or_else(|e| e.into_inner());
    while table.slots.len() < 2 {
        table.slots.push(Slot {
            generation: 0,
            team: None,
        });
    }
    table.slots[0].team = Some(Arc::new(world("SHMEM_TEAM_WORLD")));
    table.slots[1].team = Some(Arc::new(world("SHMEM_TEAM_SHARED")));
    Ok(())
}

/// At `shmem_finalize`: prints the footprint if asked, and forgets every team.
pub fn finalize(rt: &Runtime) {
    let _guard = LIFECYCLE.lock().unwrap_or_else(|e| e.into_inner());
    if rt.config.psync_stats {
        eprintln!(
            "{}",
            psync::stats_line(rt.me, rt.npes, rt.config.psync_strategy, psync::totals())
        );
    }
    let mut table = TABLE.write().unwrap_or_else(|e| e.into_inner());
    for (i, slot) in table.slots.iter_mut().enumerate() {
        if slot.team.take().is_some() && i >= 2 {
            slot.generation = slot.generation.wrapping_add(1);
        }
    }
    // Every user slot is free for the next shmem_init; stale handles stay stale.
    let n = table.slots.len();
    table.free.clear();
    table.free.extend((2..n).rev());
}

/// Why a split did not create a team on this PE.
#[derive(Debug)]
pub enum SplitError {
    /// No run of sync memory free on every member.
    NoSyncMemory { need: usize },
}

/// Creates, collectively over `parent`, the teams described by `mine`: for each
/// phase, the group this PE joins (with its rank), or `None`. Every parent PE
/// calls with the same number of phases. Returns the raw handle per phase.
pub fn create(
    rt: &Runtime,
    routine: &'static str,
    parent: &Team,
    mine: &[Option<(Group, i32)>],
) -> Vec<Result<Option<usize>, SplitError>> {
    let _guard = LIFECYCLE.lock().unwrap_or_else(|e| e.into_inner());
    let arena = Arena::new(&rt.segs);
    let strat = strategy(rt);
    let pc = parent.coll(rt, routine, CollOp::Barrier);
    let mut out = Vec::with_capacity(mine.len());
    for phase in mine {
        // Every parent PE is inside this call: bitmaps stay still until the
        // second barrier.
        pc.barrier();
        let found = phase.map(|(g, _)| {
            let reserve = strat.reserve(g.size, rt.config.team_scratch_size);
            let need = units_for(reserve);
            let words = need.div_ceil(64) + 1;
            let upto = (0..g.size)
                .map(|r| arena.high_water(&rt.transport, g.pe(r)))
                .max()
                .unwrap_or(0)
                + words;
            let maps: Vec<Vec<u64>> = (0..g.size).map(|r| arena.read(&rt.transport, g.pe(r), upto)).collect();
            let first = first_free(&maps, need, arena.units());
            if let Some(f) = first {
                arena.zero(f, need);
            }
            (reserve, need, first)
        });
        pc.barrier();
        strat.observe_barrier(&parent.sync);
        out.push(match (phase, found) {
            (Some((g, num_contexts)), Some((reserve, _, Some(first)))) => {
                let sync = Arc::new(take(&arena, first, reserve));
                Ok(Some(insert(Team {
                    start: g.start,
                    stride: g.stride,
                    size: g.size,
                    my_rank: g.rank,
                    num_contexts: *num_contexts,
                    sync,
                    predefined: None,
                })))
            }
            (Some(_), Some((_, need, None))) => Err(SplitError::NoSyncMemory { need: need * UNIT }),
            _ => Ok(None),
        });
    }
    out
}

/// Destroys a user team, collectively over its members. `None` if the handle
/// is not a live user team.
pub fn destroy(rt: &Runtime, routine: &'static str, raw: usize) -> Option<()> {
    let team = lookup(raw)?;
    if team.predefined.is_some() {
        return None;
    }
    // Every member has finished every collective of the team once this
    // barrier completes, and the algorithms consume all their signals, so
    // nothing will write to the team's memory any more.
    team.coll(rt, routine, CollOp::Barrier).barrier();
    let _guard = LIFECYCLE.lock().unwrap_or_else(|e| e.into_inner());
    let team = remove(raw)?;
    give_back(&Arena::new(&rt.segs), &team.sync);
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_round_trip_and_carry_generations() {
        assert_eq!(encode(0, 0), WORLD);
        assert_eq!(encode(1, 0), SHARED);
        assert_eq!(decode(encode(7, 3)), Some((7, 3)));
        assert_eq!(decode(0), None);
        assert_ne!(encode(5, 1), encode(5, 2));
    }
}
