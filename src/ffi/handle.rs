//! Opaque C handles (`shmem_ctx_t`, `shmem_team_t`) and their link-time
//! constants.
//!
//! A context handle is the address of a [`CtxObject`]: the default context's
//! static object, or a slot of a fixed per-process table of created contexts.
//! Validating a handle is a range check and a load of the slot's `live` flag, so
//! a destroyed or invented handle is reported, never dereferenced blindly.

use core::ffi::c_void;
use std::sync::atomic::{AtomicI64, AtomicU32, AtomicUsize, Ordering};

/// Contexts a process may have at once besides the default one.
pub const MAX_CONTEXTS: usize = 4096;

/// What a context handle points to.
#[repr(C)]
pub struct CtxObject {
    /// 1 while the context exists.
    live: AtomicU32,
    /// The `SHMEM_CTX_*` options it was created with.
    options: AtomicI64,
    /// Raw handle of the team whose PE numbers the context uses.
    team: AtomicUsize,
    /// Raw handle of the space the context was created from (0: none); such
    /// a context may only access that space's memory.
    space: AtomicUsize,
}

impl CtxObject {
    const fn new(live: u32) -> CtxObject {
        CtxObject {
            live: AtomicU32::new(live),
            options: AtomicI64::new(0),
            team: AtomicUsize::new(crate::team::WORLD),
            space: AtomicUsize::new(0),
        }
    }

    #[cfg(test)]
    pub fn options(&self) -> i64 {
        self.options.load(Ordering::Relaxed)
    }

    /// Raw handle of the context's team.
    #[inline]
    pub fn team(&self) -> usize {
        self.team.load(Ordering::Relaxed)
    }

    /// Raw handle of the context's space, or 0.
    #[inline]
    pub fn space(&self) -> usize {
        self.space.load(Ordering::Relaxed)
    }
}

pub static DEFAULT_CTX_OBJECT: CtxObject = CtxObject::new(1);

/// Slots of created contexts (zeroed, so in .bss and paged in only when used).
static CONTEXTS: [CtxObject; MAX_CONTEXTS] = [const { CtxObject::new(0) }; MAX_CONTEXTS];

/// Destroyed slots, and how many slots have ever been handed out.
static FREE: std::sync::Mutex<(Vec<usize>, usize)> = std::sync::Mutex::new((Vec::new(), 0));

/// A `shmem_ctx_t` as passed through the C ABI.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CtxHandle(pub *const c_void);

// SAFETY: a handle is an opaque address; it is only compared, never dereferenced
// without validation.
unsafe impl Sync for CtxHandle {}
// SAFETY: as above.
unsafe impl Send for CtxHandle {}

impl CtxHandle {
    pub const DEFAULT: CtxHandle = CtxHandle(&DEFAULT_CTX_OBJECT as *const CtxObject as *const c_void);
    pub const INVALID: CtxHandle = CtxHandle(std::ptr::null());

    /// The context object, if the handle names a live context.
    #[inline]
    pub fn object(self) -> Option<&'static CtxObject> {
        if self == CtxHandle::DEFAULT {
            return Some(&DEFAULT_CTX_OBJECT);
        }
        let i = slot_index(self)?;
        let obj = &CONTEXTS[i];
        (obj.live.load(Ordering::Acquire) == 1).then_some(obj)
    }

    #[inline]
    pub fn is_valid(self) -> bool {
        self == CtxHandle::DEFAULT || self.object().is_some()
    }

    /// Creates a context with `options` on the team with raw handle `team`
    /// (and bound to space `space`, if not 0); `None` when all slots are in use.
    pub fn create(options: i64, team: usize, space: usize) -> Option<CtxHandle> {
        let mut free = FREE.lock().unwrap_or_else(|e| e.into_inner());
        // Fresh slots first: a stale handle stays detectably dead for as long
        // as possible before its slot is reused.
        let i = if free.1 < MAX_CONTEXTS {
            free.1 += 1;
            free.1 - 1
        } else {
            free.0.pop()?
        };
        let obj = &CONTEXTS[i];
        obj.options.store(options, Ordering::Relaxed);
        obj.team.store(team, Ordering::Relaxed);
        obj.space.store(space, Ordering::Relaxed);
        obj.live.store(1, Ordering::Release);
        Some(CtxHandle(obj as *const CtxObject as *const c_void))
    }

    /// Destroys a created context; false if the handle is not one.
    pub fn destroy(self) -> bool {
        let Some(i) = slot_index(self) else { return false };
        let mut free = FREE.lock().unwrap_or_else(|e| e.into_inner());
        if CONTEXTS[i].live.swap(0, Ordering::AcqRel) != 1 {
            return false;
        }
        free.0.push(i);
        true
    }
}

/// The table slot a handle addresses, if it addresses one exactly.
#[inline]
fn slot_index(h: CtxHandle) -> Option<usize> {
    let base = CONTEXTS.as_ptr() as usize;
    let off = (h.0 as usize).checked_sub(base)?;
    let size = std::mem::size_of::<CtxObject>();
    (off % size == 0 && off / size < MAX_CONTEXTS).then_some(off / size)
}

/// `extern shmem_ctx_t SHMEM_CTX_DEFAULT;`
#[unsafe(no_mangle)]
pub static SHMEM_CTX_DEFAULT: CtxHandle = CtxHandle::DEFAULT;

/// A `shmem_team_t` as passed through the C ABI: an index into the team
/// table with a generation (see `team`), never dereferenced.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TeamHandle(pub *const c_void);

// SAFETY: as for CtxHandle.
unsafe impl Sync for TeamHandle {}
// SAFETY: as above.
unsafe impl Send for TeamHandle {}

impl TeamHandle {
    pub const WORLD: TeamHandle = TeamHandle::from_raw(crate::team::WORLD);
    pub const SHARED: TeamHandle = TeamHandle::from_raw(crate::team::SHARED);
    pub const NODE: TeamHandle = TeamHandle::from_raw(crate::team::NODE);
    pub const INVALID: TeamHandle = TeamHandle(std::ptr::null());

    pub const fn from_raw(raw: usize) -> TeamHandle {
        TeamHandle(std::ptr::without_provenance(raw))
    }

    pub fn raw(self) -> usize {
        self.0.addr()
    }
}

/// A `shmemx_space_t` as passed through the C ABI: an index into the space
/// table with a generation and a tag bit (see `space`), never dereferenced.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpaceHandle(pub *const c_void);

// SAFETY: as for CtxHandle.
unsafe impl Sync for SpaceHandle {}
// SAFETY: as above.
unsafe impl Send for SpaceHandle {}

impl SpaceHandle {
    pub const fn from_raw(raw: usize) -> SpaceHandle {
        SpaceHandle(std::ptr::without_provenance(raw))
    }

    pub fn raw(self) -> usize {
        self.0.addr()
    }
}

/// `extern shmem_team_t SHMEM_TEAM_WORLD;`
#[unsafe(no_mangle)]
pub static SHMEM_TEAM_WORLD: TeamHandle = TeamHandle::WORLD;

/// `extern shmem_team_t SHMEM_TEAM_SHARED;`
#[unsafe(no_mangle)]
pub static SHMEM_TEAM_SHARED: TeamHandle = TeamHandle::SHARED;

/// `extern shmem_team_t SHMEMX_TEAM_NODE;` (`shmemx.h`)
#[unsafe(no_mangle)]
pub static SHMEMX_TEAM_NODE: TeamHandle = TeamHandle::NODE;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_contexts_are_valid_until_destroyed() {
        assert!(CtxHandle::DEFAULT.is_valid());
        assert!(!CtxHandle::INVALID.is_valid());
        let a = CtxHandle::create(2, crate::team::WORLD, 0).unwrap();
        assert!(a.is_valid());
        assert_eq!(a.object().unwrap().options(), 2);
        let inside = CtxHandle((a.0 as usize + 1) as *const c_void);
        assert!(!inside.is_valid(), "a misaligned address inside a slot");
        assert!(a.destroy());
        assert!(!a.is_valid());
        assert!(!a.destroy(), "destroying twice");
        assert!(!CtxHandle::DEFAULT.destroy());
        let b = CtxHandle::create(0, crate::team::WORLD, 0).unwrap();
        assert!(b.is_valid());
        assert!(b.destroy());
    }
}
