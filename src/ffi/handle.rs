//! Opaque C handles (`shmem_ctx_t`, `shmem_team_t`) and their link-time
//! constants.
//!
//! A context handle is the address of a [`CtxObject`]: the default context's
//! static object, or a slot of the runtime's table of created contexts
//! (`crate::context`), which validates it.

use crate::context::{Contexts, CtxObject};
use core::ffi::c_void;

/// The default context's object, at an address the linker knows (a static
/// of `crate::context`, where the runtime resets its counters).
pub(crate) use crate::context::DEFAULT_CTX_OBJECT;

/// A `shmem_ctx_t` as passed through the C ABI.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CtxHandle(pub *const c_void);

// SAFETY: a handle is an opaque address; it is only compared, never dereferenced
// without validation.
unsafe impl Sync for CtxHandle {}
// SAFETY: as above.
unsafe impl Send for CtxHandle {}

impl CtxHandle {
    pub(crate) const DEFAULT: CtxHandle = CtxHandle(&DEFAULT_CTX_OBJECT as *const CtxObject as *const c_void);
    pub(crate) const INVALID: CtxHandle = CtxHandle(std::ptr::null());

    /// The context object, if the handle names a live context (the default
    /// one, or one of `contexts`).
    #[inline]
    pub(crate) fn object(self, contexts: &Contexts) -> Option<&CtxObject> {
        if self == CtxHandle::DEFAULT {
            return Some(&DEFAULT_CTX_OBJECT);
        }
        contexts.object(self.0 as usize)
    }

    #[inline]
    pub(crate) fn is_valid(self, contexts: &Contexts) -> bool {
        self == CtxHandle::DEFAULT || self.object(contexts).is_some()
    }
}

/// `extern shmem_ctx_t SHMEM_CTX_DEFAULT;`
#[unsafe(no_mangle)]
pub(crate) static SHMEM_CTX_DEFAULT: CtxHandle = CtxHandle::DEFAULT;

/// A `shmem_team_t` as passed through the C ABI: an index into the team
/// table with a generation (see `team`), never dereferenced.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TeamHandle(pub *const c_void);

// SAFETY: as for CtxHandle.
unsafe impl Sync for TeamHandle {}
// SAFETY: as above.
unsafe impl Send for TeamHandle {}

impl TeamHandle {
    pub(crate) const WORLD: TeamHandle = TeamHandle::from_raw(crate::team::WORLD);
    pub(crate) const SHARED: TeamHandle = TeamHandle::from_raw(crate::team::SHARED);
    pub(crate) const NODE: TeamHandle = TeamHandle::from_raw(crate::team::NODE);
    pub(crate) const INVALID: TeamHandle = TeamHandle(std::ptr::null());

    pub(crate) const fn from_raw(raw: usize) -> TeamHandle {
        TeamHandle(std::ptr::without_provenance(raw))
    }

    pub(crate) fn raw(self) -> usize {
        self.0.addr()
    }
}

/// A `shmemx_space_t` as passed through the C ABI: an index into the space
/// table with a generation and a tag bit (see `space`), never dereferenced.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SpaceHandle(pub *const c_void);

// SAFETY: as for CtxHandle.
unsafe impl Sync for SpaceHandle {}
// SAFETY: as above.
unsafe impl Send for SpaceHandle {}

impl SpaceHandle {
    pub(crate) const fn from_raw(raw: usize) -> SpaceHandle {
        SpaceHandle(std::ptr::without_provenance(raw))
    }

    pub(crate) fn raw(self) -> usize {
        self.0.addr()
    }
}

/// `extern shmem_team_t SHMEM_TEAM_WORLD;`
#[unsafe(no_mangle)]
pub(crate) static SHMEM_TEAM_WORLD: TeamHandle = TeamHandle::WORLD;

/// `extern shmem_team_t SHMEM_TEAM_SHARED;`
#[unsafe(no_mangle)]
pub(crate) static SHMEM_TEAM_SHARED: TeamHandle = TeamHandle::SHARED;

/// `extern shmem_team_t SHMEMX_TEAM_NODE;` (`shmemx.h`)
#[unsafe(no_mangle)]
pub(crate) static SHMEMX_TEAM_NODE: TeamHandle = TeamHandle::NODE;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_name_the_default_context_or_a_created_one() {
        let t = Contexts::default();
        assert!(CtxHandle::DEFAULT.is_valid(&t));
        assert!(!CtxHandle::INVALID.is_valid(&t));
        let a = CtxHandle(t.create(2, crate::team::WORLD, 0).unwrap() as *const c_void);
        assert!(a.is_valid(&t));
        let inside = CtxHandle((a.0 as usize + 1) as *const c_void);
        assert!(!inside.is_valid(&t), "a misaligned address inside a slot");
        assert!(t.destroy(a.0 as usize));
        assert!(!a.is_valid(&t));
        assert!(
            !t.destroy(CtxHandle::DEFAULT.0 as usize),
            "the default context is not in the table"
        );
    }
}
