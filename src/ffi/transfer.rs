//! The two paths of the transfer routines: a short transfer (1 to
//! `world::SHORT_TRANSFER` bytes: the hot path) goes straight to the transport;
//! any other runs its copy with a record for the fault handler
//! (`runtime::fault`), so that a fault inside it is reported with the
//! routine, the PE and the address.

use crate::runtime::Runtime;
use std::mem::size_of;

/// Whether a transfer of `nelems` elements of `T` takes the short path: 1
/// to `rt.short_elems` for its element size. One compare with a word of the
/// runtime, in place of the test for a transfer of nothing (which takes the
/// other path) the routines made before.
#[inline(always)]
pub(crate) fn short<T>(rt: &Runtime, nelems: usize) -> bool {
    const {
        assert!(size_of::<T>().is_power_of_two() && size_of::<T>() <= 16);
    }
    let log = size_of::<T>().trailing_zeros() as usize;
    nelems.wrapping_sub(1) < rt.short_elems[log]
}
