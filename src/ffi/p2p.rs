//! Point-to-point synchronisation: `wait_until` and `test` on one variable, on
//! a set (`_all`, `_any`, `_some`) and with one comparison value per element
//! (`_vector`), and the deprecated `shmem_wait` forms.
//!
//! Waits sleep on the calling PE's memory bell, which every put, atomic and
//! signal to this PE rings (see `wait`), and call the transport's `progress`
//! on every poll, as every test does once.

use super::check;
use crate::runtime::{self, Runtime};
use crate::stuck::{Kind, On, SIGNED};
use crate::transport::{Transport, polled};
use crate::types::{Cmp, WaitWord};
use core::ffi::c_int;
use std::mem::size_of;
use std::sync::atomic::{AtomicUsize, Ordering};

fn watched<T: WaitWord>(rt: &Runtime, routine: &'static str, ivars: *mut T, nelems: usize) {
    if nelems == 0 {
        return;
    }
    let len = check::bytes(routine, "nelems", nelems, size_of::<T>());
    check::sym(rt, routine, "ivars", ivars as usize, len);
    check::aligned::<T>(routine, "ivars", ivars as usize);
}

pub(crate) fn wait_until<T: WaitWord>(routine: &'static str, ivar: *mut T, cmp: c_int, cmp_value: T) {
    let rt = runtime::get(routine);
    check::word::<T>(rt, routine, "ivar", ivar as usize);
    let cmp = check::cmp(routine, cmp);
    let on = || memory_on(ivar, 1, cmp, cmp_value);
    rt.waiter().wait_at(
        || rt.post_on(Kind::Wait, routine, &on),
        polled(
            &rt.transport, // SAFETY: ivar is an aligned T in symmetric memory (checked).
            || cmp.holds(unsafe { T::load_acquire(ivar) }, cmp_value),
        ),
        || format!("{routine}({ivar:p}, {cmp:?}, {cmp_value:?})"),
    );
}

/// What a wait on `n` words of type `T` at `addr` is on, for the hang report.
fn memory_on<T: WaitWord>(addr: *const T, n: usize, cmp: Cmp, value: T) -> On {
    On::Memory {
        addr: addr as usize,
        word: size_of::<T>() as u32 | if T::SIGNED { SIGNED } else { 0 },
        count: n.min(u32::MAX as usize) as u32,
        cmp: Some(cmp as u32),
        value: value.bits(),
    }
}

/// Deprecated `shmem_wait`: waits until `*ivar != cmp_value`.
pub(crate) fn wait<T: WaitWord>(routine: &'static str, ivar: *mut T, cmp_value: T) {
    wait_until(routine, ivar, Cmp::Ne as c_int, cmp_value)
}

pub(crate) fn test<T: WaitWord>(routine: &'static str, ivar: *mut T, cmp: c_int, cmp_value: T) -> c_int {
    let rt = runtime::get(routine);
    check::word::<T>(rt, routine, "ivar", ivar as usize);
    let cmp = check::cmp(routine, cmp);
    rt.transport.progress();
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
    /// Where the next `_any` scan of this PE starts (`Runtime::any_next`).
    any_next: &'a AtomicUsize,
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

    /// A satisfied included index, scanning from the one after the index the
    /// last `_any` call of this PE returned: the specification requires that a
    /// series of calls eventually return every satisfied index, so a program
    /// that handles index 0 and waits again must next be offered index 1.
    fn any(&self) -> Option<usize> {
        let start = self.any_next.load(Ordering::Relaxed) % self.n.max(1);
        let found = (start..self.n)
            .chain(0..start)
            .find(|&i| (self.status.is_empty() || self.status[i] == 0) && self.holds(i));
        if let Some(i) = found {
            self.any_next.store(i + 1, Ordering::Relaxed);
        }
        found
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

    /// For the hang report: the set's first comparison value stands for all.
    fn on(&self) -> On {
        let first = match &self.values {
            Values::One(v) => *v,
            Values::Each(vs) => vs[self.included().next().unwrap_or(0)],
        };
        memory_on(self.ivars, self.n, self.cmp, first)
    }

    fn describe(&self, routine: &str) -> String {
        format!("{routine}({:p}, {} elements, {:?})", self.ivars, self.n, self.cmp)
    }
}

/// Checks the arguments of a set routine: ivars, nelems, (`indices` for
/// `_some`), status, cmp, value(s).
#[allow(clippy::type_complexity)]
fn set<'a, T: WaitWord>(
    routine: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: *const c_int,
    cmp: c_int,
    values: Result<T, *const T>,
) -> (&'static Runtime, Set<'a, T>) {
    let rt = runtime::get(routine);
    watched(rt, routine, ivars, nelems);
    let status = if status.is_null() {
        &[][..]
    } else {
        check::array(routine, "status", status, nelems)
    };
    let cmp = check::cmp(routine, cmp);
    let values = match values {
        Ok(v) => Values::One(v),
        Err(vs) => Values::Each(check::array(routine, "cmp_values", vs, nelems)),
    };
    (
        rt,
        Set {
            ivars,
            status,
            n: nelems,
            cmp,
            values,
            any_next: &rt.any_next,
        },
    )
}

fn indices_buffer(routine: &'static str, indices: *mut usize, nelems: usize) {
    if nelems > 0 && indices.is_null() {
        check::null_pointer(routine, "indices");
    }
}

fn wait_all<T: WaitWord>(routine: &'static str, rt: &Runtime, s: &Set<'_, T>) {
    let on = || s.on();
    rt.waiter().wait_at(
        || rt.post_on(Kind::Wait, routine, &on),
        polled(&rt.transport, || s.all()),
        || s.describe(routine),
    );
}

fn wait_any<T: WaitWord>(routine: &'static str, rt: &Runtime, s: &Set<'_, T>) -> usize {
    if s.none_included() {
        return usize::MAX;
    }
    let mut found = usize::MAX;
    let on = || s.on();
    rt.waiter().wait_at(
        || rt.post_on(Kind::Wait, routine, &on),
        polled(&rt.transport, || match s.any() {
            Some(i) => {
                found = i;
                true
            }
            None => false,
        }),
        || s.describe(routine),
    );
    found
}

fn wait_some<T: WaitWord>(routine: &'static str, rt: &Runtime, s: &Set<'_, T>, indices: *mut usize) -> usize {
    if s.none_included() {
        return 0;
    }
    let mut k = 0;
    let on = || s.on();
    rt.waiter().wait_at(
        || rt.post_on(Kind::Wait, routine, &on),
        polled(&rt.transport, || {
            k = s.some(indices);
            k > 0
        }),
        || s.describe(routine),
    );
    k
}

/// Defines a set routine and its `_vector` twin, which differ only in the
/// last argument: one comparison value, or an array with one per element.
/// `$extra` are the arguments between `nelems` and `status` (`indices` for the
/// `_some` forms).
macro_rules! set_routines {
    ($(
        $(#[$doc:meta])*
        $name:ident, $vector:ident ($($extra:ident: $extra_ty:ty),*) -> $ret:ty,
        |$routine:ident, $rt:ident, $set:ident| $body:expr;
    )*) => {$(
        $(#[$doc])*
        pub(crate) fn $name<T: WaitWord>(
            $routine: &'static str,
            ivars: *mut T,
            nelems: usize,
            $($extra: $extra_ty,)*
            status: *const c_int,
            cmp: c_int,
            cmp_value: T,
        ) -> $ret {
            $(indices_buffer($routine, $extra, nelems);)*
            let ($rt, $set) = set($routine, ivars, nelems, status, cmp, Ok(cmp_value));
            $body
        }

        $(#[$doc])*
        pub(crate) fn $vector<T: WaitWord>(
            $routine: &'static str,
            ivars: *mut T,
            nelems: usize,
            $($extra: $extra_ty,)*
            status: *const c_int,
            cmp: c_int,
            cmp_values: *const T,
        ) -> $ret {
            $(indices_buffer($routine, $extra, nelems);)*
            let ($rt, $set) = set($routine, ivars, nelems, status, cmp, Err(cmp_values));
            $body
        }
    )*};
}

set_routines! {
    /// Waits until every included element satisfies the comparison.
    wait_until_all, wait_until_all_vector () -> (),
        |routine, rt, s| wait_all(routine, rt, &s);
    /// Waits until an included element satisfies the comparison and returns
    /// its index (`SIZE_MAX` at once if none is included).
    wait_until_any, wait_until_any_vector () -> usize,
        |routine, rt, s| wait_any(routine, rt, &s);
    /// Waits until at least one included element satisfies the comparison;
    /// writes the indices of all that do and returns how many.
    wait_until_some, wait_until_some_vector (indices: *mut usize) -> usize,
        |routine, rt, s| wait_some(routine, rt, &s, indices);
    /// 1 when every included element satisfies the comparison (also when none
    /// is included, as OpenSHMEM 1.6 specifies).
    test_all, test_all_vector () -> c_int,
        |routine, rt, s| { rt.transport.progress(); s.all() as c_int };
    /// An index whose element satisfies the comparison, or `SIZE_MAX`.
    test_any, test_any_vector () -> usize,
        |routine, rt, s| { rt.transport.progress(); s.any().unwrap_or(usize::MAX) };
    /// Writes the indices of the satisfied elements and returns how many.
    test_some, test_some_vector (indices: *mut usize) -> usize,
        |routine, rt, s| { rt.transport.progress(); s.some(indices) };
}
