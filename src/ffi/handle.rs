//! Opaque C handles (`shmem_ctx_t`) and their link-time constants.

use core::ffi::c_void;

/// What a context handle points to. Only the default context exists so far.
#[repr(C)]
pub struct CtxObject {
    _id: u32,
}

pub static DEFAULT_CTX_OBJECT: CtxObject = CtxObject { _id: 0 };

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

    pub fn is_valid(self) -> bool {
        self == CtxHandle::DEFAULT
    }
}

/// `extern shmem_ctx_t SHMEM_CTX_DEFAULT;`
#[unsafe(no_mangle)]
pub static SHMEM_CTX_DEFAULT: CtxHandle = CtxHandle::DEFAULT;
