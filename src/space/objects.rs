//! Library objects that live in a team's memory: UPC semaphores and
//! notification sets. Each object gets an internal space of its team
//! ([`attach_internal`]), so allocating one synchronises only the team; this
//! registry remembers which team each live object was allocated on (a team
//! is not destroyed under its objects) and gives the space back when the
//! object is freed.
//!
//! An object may be *published*: its extent is then a valid RMA target for
//! users on the team's members, like a user space's memory (notification
//! flags are the `sig_addr` of the user's own `put_signal`). Team
//! synchronisation memory and semaphores stay unpublished.

use super::{Mapped, Space, SpaceError, Spaces, attach_internal, drop_team_space};
use crate::coll::Group;
use crate::heap::SymOffset;
use crate::world::World;
use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// The team an object was allocated on, as it stands in the object's header
/// (this PE's copy, written at allocation and only read locally), so that a
/// lookup by address knows the members without taking the registry's lock.
#[repr(C)]
#[derive(Debug)]
pub(crate) struct TeamWords {
    start: AtomicI64,
    stride: AtomicI64,
    size: AtomicU64,
}

impl TeamWords {
    /// Writes `g` (before the header's magic is published with release).
    pub(crate) fn store(&self, g: Group) {
        self.start.store(g.start as i64, Ordering::Relaxed);
        self.stride.store(g.stride as i64, Ordering::Relaxed);
        self.size.store(g.size as u64, Ordering::Relaxed);
    }

    /// The team (`rank` unused), after the magic was read with acquire.
    pub(crate) fn load(&self) -> Group {
        Group {
            start: self.start.load(Ordering::Relaxed) as isize,
            stride: self.stride.load(Ordering::Relaxed) as isize,
            size: self.size.load(Ordering::Relaxed) as usize,
            rank: 0,
        }
    }
}

/// What the registry needs to know about a kind of object.
pub(crate) trait ObjectKind {
    /// Whether users may address the object's memory.
    const VISIBILITY: Visibility;
    /// Marks this PE's copy at `addr` dead (its header's magic), so stale
    /// pointers to it are reported.
    fn retire(addr: usize);
}

/// Live objects of kind `K` in this process: their spaces and teams, by
/// address. Owned by the runtime.
#[derive(Debug)]
pub(crate) struct TeamObjects<K> {
    live: Mutex<BTreeMap<usize, (Arc<Space>, usize)>>,
    kind: PhantomData<fn() -> K>,
}

impl<K> Default for TeamObjects<K> {
    fn default() -> Self {
        TeamObjects {
            live: Mutex::default(),
            kind: PhantomData,
        }
    }
}

/// Whether an object's memory is a valid RMA target for users.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Visibility {
    Internal,
    Published,
}

impl<K: ObjectKind> TeamObjects<K> {
    fn live(&self) -> MutexGuard<'_, BTreeMap<usize, (Arc<Space>, usize)>> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Allocates `len` zeroed bytes on the team `team` (raw handle, `group`),
    /// collectively over its members; `barrier` is a barrier of the team.
    /// `init` writes this PE's copy (its address and offset) before the
    /// object is registered. Returns this PE's address of the object.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn alloc_object(
        &self,
        rt: &World,
        spaces: &Spaces,
        team: usize,
        group: Group,
        len: usize,
        barrier: impl FnMut(),
        init: impl FnOnce(usize, SymOffset),
    ) -> Result<usize, SpaceError> {
        let _guard = spaces.lifecycle();
        let (space, off) = attach_internal(rt, group, len, barrier)?;
        let local = rt.own_addr(off) as usize;
        init(local, off);
        if K::VISIBILITY == Visibility::Published
            && let Some(extent) = space.extent()
        {
            spaces.publish(
                extent,
                Mapped {
                    space: 0,
                    team,
                    group,
                    extent,
                },
            );
        }
        self.live().insert(local, (space, team));
        Ok(local)
    }

    /// The raw handle of the team a live object was allocated on.
    pub(crate) fn team_of(&self, addr: usize) -> Option<usize> {
        self.live().get(&addr).map(|(_, t)| *t)
    }

    /// Live objects allocated on team `team`.
    pub(crate) fn count_on(&self, team: usize) -> usize {
        self.live().values().filter(|(_, t)| *t == team).count()
    }

    /// Frees the object at `addr` after the team's barrier (nobody uses it
    /// any more), marking this PE's copy dead first.
    pub(crate) fn release(&self, rt: &World, spaces: &Spaces, addr: usize) {
        let _guard = spaces.lifecycle();
        if let Some((space, _)) = self.live().remove(&addr) {
            K::retire(addr);
            if let Some(extent) = space.extent() {
                spaces.unpublish(extent);
            }
            drop_team_space(rt, &space);
        }
    }

    /// At `shmem_init`: the objects of an earlier initialisation are gone
    /// (their memory went with it); each copy is marked dead so that stale
    /// pointers to them are reported.
    pub(crate) fn forget_all(&self) {
        let mut l = self.live();
        for &addr in l.keys() {
            K::retire(addr);
        }
        l.clear();
    }
}
