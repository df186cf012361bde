//! Point-to-point synchronisation: `wait_until` and `test`.

use super::check;
use crate::runtime;
use crate::types::WaitWord;
use core::ffi::c_int;
use std::mem::size_of;

fn watched<T: WaitWord>(routine: &'static str, ivar: *mut T) -> &'static runtime::Runtime {
    let rt = runtime::get(routine);
    check::sym(rt, routine, 1, "ivar", ivar as usize, size_of::<T>());
    check::aligned::<T>(routine, 1, "ivar", ivar as usize);
    rt
}

pub fn wait_until<T: WaitWord>(routine: &'static str, ivar: *mut T, cmp: c_int, cmp_value: T) {
    let rt = watched(routine, ivar);
    let cmp = check::cmp(routine, 2, cmp);
    rt.waiter().wait(
        // SAFETY: ivar is an aligned T in symmetric memory (checked).
        || cmp.holds(unsafe { T::load_acquire(ivar) }, cmp_value),
        || format!("{routine}({ivar:p}, {cmp:?}, {cmp_value:?})"),
    );
}

pub fn test<T: WaitWord>(routine: &'static str, ivar: *mut T, cmp: c_int, cmp_value: T) -> c_int {
    let _ = watched(routine, ivar);
    let cmp = check::cmp(routine, 2, cmp);
    // SAFETY: ivar is an aligned T in symmetric memory (checked).
    cmp.holds(unsafe { T::load_acquire(ivar) }, cmp_value) as c_int
}
