//! `shmemx_space_config_t`, the one structure the C API passes by value. A
//! file of its own because the trace layer (`trace/`) passes it on too and
//! includes this file, so both copy the same layout.

use core::ffi::{c_int, c_long, c_void};

/// `shmemx_space_config_t`, laid out as OSHMPI's.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SpaceConfig {
    pub sheap_size: usize,
    pub num_contexts: c_int,
    /// A `shmemx_memkind_t` (a C enum, int-sized).
    pub memkind: c_int,
    /// Unused for host memory (and often left uninitialised by programs).
    pub device_handle: *mut c_void,
    /// `SHMEMX_SPACE_LAT_PREFERRED` / `_MR_PREFERRED`: accepted, no effect;
    /// not read, since programs written for older OSHMPI leave it unset.
    pub hints: c_long,
}
