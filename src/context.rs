//! Communication contexts: the objects a `shmem_ctx_t` points to, and the
//! table of the contexts this PE has created ([`Contexts`], owned by the
//! runtime).
//!
//! A created context's handle is the address of its slot in the table, a
//! fixed array allocated once with the runtime (which is never freed), so
//! a handle stays an address for ever and validating one is a range check
//! and a load of the slot's `live` flag: a destroyed or invented handle is
//! reported, never dereferenced blindly. The default context's object is a
//! static ([`DEFAULT_CTX_OBJECT`]), whose address is a link-time constant.
//!
//! A `SHMEM_CTX_PRIVATE` context belongs to the thread that created it: it
//! records that thread's id ([`thread_id`]: the kernel's, or what the
//! function the program registered with `shmemx_register_gettid` answers,
//! for programs whose threads are not the kernel's, as Sandia OpenSHMEM
//! allows), so that a use from another thread can be named.

use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, AtomicUsize, Ordering};

/// The program's thread-id function (`shmemx_register_gettid`), as an
/// address; 0: the kernel's thread id.
static GETTID: AtomicUsize = AtomicUsize::new(0);

/// Makes `f` the source of thread ids ([`thread_id`]); `None` goes back to
/// the kernel's. May be called before `shmem_init`.
pub(crate) fn register_gettid(f: Option<unsafe extern "C" fn() -> u64>) {
    GETTID.store(f.map_or(0, |f| f as usize), Ordering::Release);
}

/// The calling thread's id: the registered function's answer, or the
/// kernel's thread id.
pub(crate) fn thread_id() -> u64 {
    match GETTID.load(Ordering::Acquire) {
        // SAFETY: the kernel's gettid has no preconditions and cannot fail.
        0 => (unsafe { libc::gettid() }) as u64,
        // SAFETY: a non-zero value was stored from a function of this
        // signature by `register_gettid`; calling it is the program's
        // contract with shmemx_register_gettid.
        f => unsafe { std::mem::transmute::<usize, unsafe extern "C" fn() -> u64>(f)() },
    }
}

/// Contexts a process may have at once besides the default one.
pub(crate) const MAX_CONTEXTS: usize = 4096;

/// What a context handle points to. All zeroes is a dead slot.
#[repr(C)]
pub(crate) struct CtxObject {
    /// 1 while the context exists.
    live: AtomicU32,
    /// The `SHMEM_CTX_*` options it was created with.
    options: AtomicI64,
    /// Raw handle of the team whose PE numbers the context uses.
    team: AtomicUsize,
    /// Raw handle of the space the context was created from (0: none); such
    /// a context may only access that space's memory.
    space: AtomicUsize,
    /// The creating thread's id ([`thread_id`]), which matters for a
    /// `SHMEM_CTX_PRIVATE` context.
    owner: AtomicU64,
    /// Its performance counters (`shmemx_pcntr_*`, counted only under
    /// `RSHMEM_PCNTR`).
    pub counts: crate::pcntr::Counts,
}

impl CtxObject {
    /// The default context's object: live, on the world team.
    pub(crate) const fn default_context() -> CtxObject {
        CtxObject {
            live: AtomicU32::new(1),
            options: AtomicI64::new(0),
            team: AtomicUsize::new(crate::team::WORLD),
            space: AtomicUsize::new(0),
            owner: AtomicU64::new(0),
            counts: crate::pcntr::Counts::new(),
        }
    }

    /// The thread a private context belongs to, if it is private: its id
    /// when it was created.
    #[inline]
    pub(crate) fn owner(&self) -> Option<u64> {
        let private = self.options.load(Ordering::Relaxed) & crate::constants::SHMEM_CTX_PRIVATE != 0;
        private.then(|| self.owner.load(Ordering::Relaxed))
    }

    #[cfg(test)]
    pub(crate) fn options(&self) -> i64 {
        self.options.load(Ordering::Relaxed)
    }

    /// Raw handle of the context's team.
    #[inline]
    pub(crate) fn team(&self) -> usize {
        self.team.load(Ordering::Relaxed)
    }

    /// Raw handle of the context's space, or 0.
    #[inline]
    pub(crate) fn space(&self) -> usize {
        self.space.load(Ordering::Relaxed)
    }
}

/// The default context's object, at an address the linker knows: the C
/// shim's `SHMEM_CTX_DEFAULT` (`ffi::handle`).
pub(crate) static DEFAULT_CTX_OBJECT: CtxObject = CtxObject::default_context();

/// The contexts this PE has created.
pub(crate) struct Contexts {
    slots: Box<[CtxObject]>,
    /// Destroyed slots, and how many slots have ever been handed out.
    free: Mutex<(Vec<usize>, usize)>,
}

impl Default for Contexts {
    fn default() -> Contexts {
        // Zeroed, so that the pages are only touched when used (as the
        // static table that this replaces, in .bss, was).
        let layout = std::alloc::Layout::array::<CtxObject>(MAX_CONTEXTS).expect("a fixed, small table");
        // SAFETY: the layout has a non-zero size.
        let p = unsafe { std::alloc::alloc_zeroed(layout) } as *mut CtxObject;
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Contexts {
            // SAFETY: `p` is a fresh global-allocator block of MAX_CONTEXTS
            // CtxObjects, which Box frees with the same layout; every field
            // is an atomic integer (the counters' too), for which all zeroes
            // is a valid value (a dead slot).
            slots: unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, MAX_CONTEXTS)) },
            free: Mutex::new((Vec::new(), 0)),
        }
    }
}

impl Contexts {
    /// The table slot at address `addr`, if it addresses one exactly.
    #[inline]
    fn slot_index(&self, addr: usize) -> Option<usize> {
        let base = self.slots.as_ptr() as usize;
        let off = addr.checked_sub(base)?;
        let size = std::mem::size_of::<CtxObject>();
        (off % size == 0 && off / size < MAX_CONTEXTS).then_some(off / size)
    }

    /// The created context at address `addr`, if it is live.
    #[inline]
    pub(crate) fn object(&self, addr: usize) -> Option<&CtxObject> {
        let obj = &self.slots[self.slot_index(addr)?];
        (obj.live.load(Ordering::Acquire) == 1).then_some(obj)
    }

    /// Creates a context with `options` on the team with raw handle `team`
    /// (and bound to space `space`, if not 0); its address, or `None` when
    /// all slots are in use.
    pub(crate) fn create(&self, options: i64, team: usize, space: usize) -> Option<usize> {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        // Fresh slots first: a stale handle stays detectably dead for as long
        // as possible before its slot is reused.
        let i = if free.1 < MAX_CONTEXTS {
            free.1 += 1;
            free.1 - 1
        } else {
            free.0.pop()?
        };
        let obj = &self.slots[i];
        obj.options.store(options, Ordering::Relaxed);
        obj.team.store(team, Ordering::Relaxed);
        obj.space.store(space, Ordering::Relaxed);
        if options & crate::constants::SHMEM_CTX_PRIVATE != 0 {
            obj.owner.store(thread_id(), Ordering::Relaxed);
        }
        obj.counts.reset();
        obj.live.store(1, Ordering::Release);
        Some(obj as *const CtxObject as usize)
    }

    /// Destroys the created context at `addr`; false if it is not one.
    pub(crate) fn destroy(&self, addr: usize) -> bool {
        let Some(i) = self.slot_index(addr) else { return false };
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        if self.slots[i].live.swap(0, Ordering::AcqRel) != 1 {
            return false;
        }
        free.0.push(i);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_contexts_are_live_until_destroyed() {
        let t = Contexts::default();
        let a = t.create(2, crate::team::WORLD, 0).unwrap();
        assert_eq!(t.object(a).unwrap().options(), 2);
        assert!(t.object(a + 1).is_none(), "a misaligned address inside a slot");
        assert!(t.destroy(a));
        assert!(t.object(a).is_none());
        assert!(!t.destroy(a), "destroying twice");
        let b = t.create(0, crate::team::WORLD, 0).unwrap();
        assert!(t.object(b).is_some());
        assert!(t.destroy(b));
    }
}
