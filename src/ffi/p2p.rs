//! Point-to-point synchronisation: `wait_until` and `test` on one variable, on
//! a set (`_all`, `_any`, `_some`) and with one comparison value per element
//! (`_vector`), and the deprecated `shmem_wait` forms.
//!
//! Waits sleep on the calling PE's memory bell, which every put, atomic and
//! signal to this PE rings (see `wait`).

use super::check;
use crate::runtime::{self, Runtime};
use crate::types::{Cmp, WaitWord};
use core::ffi::c_int;
use std::mem::size_of;

fn watched<T: WaitWord>(rt: &Runtime, routine: &'static str, ivars: *mut T, nelems: usize) {
    if nelems == 0 {
        return;
    }
    let len = check::bytes(routine, 2, nelems, size_of::<T>());
    check::sym(rt, routine, 1, "ivars", ivars as usize, len);
    check::aligned::<T>(routine, 1, "ivars", ivars as usize);
}

pub fn wait_until<T: WaitWord>(routine: &'static str, ivar: *mut T, cmp: c_int, cmp_value: T) {
    let rt = runtime::get(routine);
    check::sym(rt, routine, 1, "ivar", ivar as usize, size_of::<T>());
    check::aligned::<T>(routine, 1, "ivar", ivar as usize);
    let cmp = check::cmp(routine, 2, cmp);
    rt.waiter().wait(
        // SAFETY: ivar is an aligned T in symmetric memory (checked).
        || cmp.holds(unsafe { T::load_acquire(ivar) }, cmp_value),
        || format!("{routine}({ivar:p}, {cmp:?}, {cmp_value:?})"),
    );
}

/// Deprecated `shmem_wait`: waits until `*ivar != cmp_value`.
pub fn wait<T: WaitWord>(routine: &'static str, ivar: *mut T, cmp_value: T) {
    wait_until(routine, ivar, Cmp::Ne as c_int, cmp_value)
}

pub fn test<T: WaitWord>(routine: &'static str, ivar: *mut T, cmp: c_int, cmp_value: T) -> c_int {
    let rt = runtime::get(routine);
    check::sym(rt, routine, 1, "ivar", ivar as usize, size_of::<T>());
    check::aligned::<T>(routine, 1, "ivar", ivar as usize);
    let cmp = check::cmp(routine, 2, cmp);
    // SAFETY: ivar is an aligned T in symmetric memory (checked).
    cmp.holds(unsafe { T::load_acquire(ivar) }, cmp_value) as c_int
}

/// The comparison value of each element.
enum Values<'a, T> {
    One(T),
    Each(&'a [T]),
}

/// A checked set of watched variables.
struct Set<'a, T> {
    ivars: *mut T,
    /// Non-zero entries exclude an element; empty means every element counts.
    status: &'a [c_int],
    n: usize,
    cmp: Cmp,
    values: Values<'a, T>,
}

impl<T: WaitWord> Set<'_, T> {
    fn included(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.n).filter(|&i| self.status.is_empty() || self.status[i] == 0)
    }

    fn holds(&self, i: usize) -> bool {
        let rhs = match &self.values {
            Values::One(v) => *v,
            Values::Each(vs) => vs[i],
        };
        // SAFETY: every element of ivars is an aligned T in symmetric memory (checked).
        self.cmp.holds(unsafe { T::load_acquire(self.ivars.add(i)) }, rhs)
    }

    fn all(&self) -> bool {
        self.included().all(|i| self.holds(i))
    }

    fn any(&self) -> Option<usize> {
        self.included().find(|&i| self.holds(i))
    }

    fn none_included(&self) -> bool {
        self.included().next().is_none()
    }

    /// Writes the satisfied indices to `indices` and returns how many.
    fn some(&self, indices: *mut usize) -> usize {
        let mut k = 0;
        for i in self.included() {
            if self.holds(i) {
                // SAFETY: `indices` holds nelems elements (checked non-null) and k < nelems.
                unsafe { indices.add(k).write(i) };
                k += 1;
            }
        }
        k
    }

    fn describe(&self, routine: &str) -> String {
        format!("{routine}({:p}, {} elements, {:?})", self.ivars, self.n, self.cmp)
    }
}

/// Checks the arguments of a set routine. Argument numbers: ivars 1, nelems 2,
/// then (`indices` for `_some`), status, cmp, value(s).
#[allow(clippy::type_complexity)]
fn set<'a, T: WaitWord>(
    routine: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: *const c_int,
    status_arg: u8,
    cmp: c_int,
    values: Result<T, *const T>,
) -> (&'static Runtime, Set<'a, T>) {
    let rt = runtime::get(routine);
    watched(rt, routine, ivars, nelems);
    let status = if status.is_null() {
        &[][..]
    } else {
        check::array(routine, status_arg, "status", status, nelems)
    };
    let cmp = check::cmp(routine, status_arg + 1, cmp);
    let values = match values {
        Ok(v) => Values::One(v),
        Err(vs) => Values::Each(check::array(routine, status_arg + 2, "cmp_values", vs, nelems)),
    };
    (
        rt,
        Set {
            ivars,
            status,
            n: nelems,
            cmp,
            values,
        },
    )
}

fn indices_buffer(routine: &'static str, indices: *mut usize, nelems: usize) {
    if nelems > 0 && indices.is_null() {
        check::null_pointer(routine, 3, "indices");
    }
}

fn wait_all<T: WaitWord>(routine: &'static str, rt: &Runtime, s: &Set<'_, T>) {
    rt.waiter().wait(|| s.all(), || s.describe(routine));
}

fn wait_any<T: WaitWord>(routine: &'static str, rt: &Runtime, s: &Set<'_, T>) -> usize {
    if s.none_included() {
        return usize::MAX;
    }
    let mut found = usize::MAX;
    rt.waiter().wait(
        || match s.any() {
            Some(i) => {
                found = i;
                true
            }
            None => false,
        },
        || s.describe(routine),
    );
    found
}

fn wait_some<T: WaitWord>(routine: &'static str, rt: &Runtime, s: &Set<'_, T>, indices: *mut usize) -> usize {
    if s.none_included() {
        return 0;
    }
    let mut k = 0;
    rt.waiter().wait(
        || {
            k = s.some(indices);
            k > 0
        },
        || s.describe(routine),
    );
    k
}

pub fn wait_until_all<T: WaitWord>(
    routine: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: *const c_int,
    cmp: c_int,
    cmp_value: T,
) {
    let (rt, s) = set(routine, ivars, nelems, status, 3, cmp, Ok(cmp_value));
    wait_all(routine, rt, &s)
}

pub fn wait_until_any<T: WaitWord>(
    routine: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: *const c_int,
    cmp: c_int,
    cmp_value: T,
) -> usize {
    let (rt, s) = set(routine, ivars, nelems, status, 3, cmp, Ok(cmp_value));
    wait_any(routine, rt, &s)
}

pub fn wait_until_some<T: WaitWord>(
    routine: &'static str,
    ivars: *mut T,
    nelems: usize,
    indices: *mut usize,
    status: *const c_int,
    cmp: c_int,
    cmp_value: T,
) -> usize {
    indices_buffer(routine, indices, nelems);
    let (rt, s) = set(routine, ivars, nelems, status, 4, cmp, Ok(cmp_value));
    wait_some(routine, rt, &s, indices)
}

pub fn wait_until_all_vector<T: WaitWord>(
    routine: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: *const c_int,
    cmp: c_int,
    cmp_values: *const T,
) {
    let (rt, s) = set(routine, ivars, nelems, status, 3, cmp, Err(cmp_values));
    wait_all(routine, rt, &s)
}

pub fn wait_until_any_vector<T: WaitWord>(
    routine: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: *const c_int,
    cmp: c_int,
    cmp_values: *const T,
) -> usize {
    let (rt, s) = set(routine, ivars, nelems, status, 3, cmp, Err(cmp_values));
    wait_any(routine, rt, &s)
}

pub fn wait_until_some_vector<T: WaitWord>(
    routine: &'static str,
    ivars: *mut T,
    nelems: usize,
    indices: *mut usize,
    status: *const c_int,
    cmp: c_int,
    cmp_values: *const T,
) -> usize {
    indices_buffer(routine, indices, nelems);
    let (rt, s) = set(routine, ivars, nelems, status, 4, cmp, Err(cmp_values));
    wait_some(routine, rt, &s, indices)
}

/// 1 when every included element satisfies the comparison (also when none is
/// included, as OpenSHMEM 1.6 specifies).
pub fn test_all<T: WaitWord>(
    routine: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: *const c_int,
    cmp: c_int,
    cmp_value: T,
) -> c_int {
    set(routine, ivars, nelems, status, 3, cmp, Ok(cmp_value)).1.all() as c_int
}

/// An index whose element satisfies the comparison, or `SIZE_MAX`.
pub fn test_any<T: WaitWord>(
    routine: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: *const c_int,
    cmp: c_int,
    cmp_value: T,
) -> usize {
    set(routine, ivars, nelems, status, 3, cmp, Ok(cmp_value))
        .1
        .any()
        .unwrap_or(usize::MAX)
}

pub fn test_some<T: WaitWord>(
    routine: &'static str,
    ivars: *mut T,
    nelems: usize,
    indices: *mut usize,
    status: *const c_int,
    cmp: c_int,
    cmp_value: T,
) -> usize {
    indices_buffer(routine, indices, nelems);
    set(routine, ivars, nelems, status, 4, cmp, Ok(cmp_value))
        .1
        .some(indices)
}

pub fn test_all_vector<T: WaitWord>(
    routine: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: *const c_int,
    cmp: c_int,
    cmp_values: *const T,
) -> c_int {
    set(routine, ivars, nelems, status, 3, cmp, Err(cmp_values)).1.all() as c_int
}

pub fn test_any_vector<T: WaitWord>(
    routine: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: *const c_int,
    cmp: c_int,
    cmp_values: *const T,
) -> usize {
    set(routine, ivars, nelems, status, 3, cmp, Err(cmp_values))
        .1
        .any()
        .unwrap_or(usize::MAX)
}

pub fn test_some_vector<T: WaitWord>(
    routine: &'static str,
    ivars: *mut T,
    nelems: usize,
    indices: *mut usize,
    status: *const c_int,
    cmp: c_int,
    cmp_values: *const T,
) -> usize {
    indices_buffer(routine, indices, nelems);
    set(routine, ivars, nelems, status, 4, cmp, Err(cmp_values))
        .1
        .some(indices)
}
