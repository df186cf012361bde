//! Atomic memory operation shims: every standard, extended and bitwise AMO,
//! the non-blocking fetching forms and the deprecated names.
//!
//! Each checks its arguments and applies one [`AmoOp`] through the transport.
//! The `_nbi` forms go to the transport's `atomic_nbi`: the fetched value is
//! the caller's only after the next quiet (the shared-memory transport
//! stores it at once, which the specification allows).

use super::check;
use super::handle::CtxHandle;
use crate::pcntr::Op;
use crate::runtime;
use crate::transport::Transport;
use crate::types::{AmoOp, AtomicInt, AtomicWord};
use core::ffi::c_int;

/// Checks a context, the PE and the target word (the argument named by
/// `word`), and applies `op`: a read for the performance counters
/// (`crate::pcntr`, as SOS counts the fetching atomics).
#[inline]
fn apply<T: AtomicWord>(
    routine: &'static str,
    ctx: CtxHandle,
    word: (&'static str, *const T),
    pe: c_int,
    op: AmoOp<T>,
) -> T {
    apply_as(routine, ctx, word, pe, op, Op::READ)
}

/// [`apply`] of a non-fetching atomic (`set`, `inc`, `add`, the bitwise
/// ones), whose result nobody reads: a write for the performance counters.
#[inline]
fn apply_write<T: AtomicWord>(
    routine: &'static str,
    ctx: CtxHandle,
    word: (&'static str, *const T),
    pe: c_int,
    op: AmoOp<T>,
) {
    apply_as(routine, ctx, word, pe, op, Op::WRITE);
}

#[inline(always)]
fn apply_as<T: AtomicWord>(
    routine: &'static str,
    ctx: CtxHandle,
    word: (&'static str, *const T),
    pe: c_int,
    op: AmoOp<T>,
    counted: Op,
) -> T {
    let rt = runtime::get(routine);
    let t = check::ctx_target(rt, routine, ctx, pe, counted);
    let (name, addr) = word;
    let off = check::remote_word::<T>(rt, routine, name, addr as usize, t);
    // SAFETY: an aligned T inside a segment (checked).
    unsafe { rt.transport.atomic(t.pe, off, op) }
}

/// Checks like [`apply`], plus the `fetch` buffer (argument 1 of every
/// `_nbi` form), and applies `op` without waiting: the previous value lands
/// in `fetch` by the next quiet.
#[inline]
fn apply_nbi<T: AtomicWord>(
    routine: &'static str,
    ctx: CtxHandle,
    fetch: *mut T,
    word: (&'static str, *const T),
    pe: c_int,
    op: AmoOp<T>,
) {
    let rt = runtime::get(routine);
    let t = check::ctx_target(rt, routine, ctx, pe, Op::READ_NBI);
    let (name, addr) = word;
    let off = check::remote_word::<T>(rt, routine, name, addr as usize, t);
    if fetch.is_null() {
        check::null_pointer(routine, "fetch");
    }
    // SAFETY: an aligned T inside a segment (checked); `fetch` is a non-null
    // local buffer for one T that stays valid until the next quiet, as the
    // API requires.
    unsafe { rt.transport.atomic_nbi(t.pe, off, op, fetch) }
}

pub(crate) fn fetch<T: AtomicWord>(routine: &'static str, ctx: CtxHandle, source: *const T, pe: c_int) -> T {
    apply(routine, ctx, ("source", source), pe, AmoOp::Fetch)
}

pub(crate) fn set<T: AtomicWord>(routine: &'static str, ctx: CtxHandle, dest: *mut T, value: T, pe: c_int) {
    apply_write(routine, ctx, ("dest", dest), pe, AmoOp::Set(value));
}

pub(crate) fn swap<T: AtomicWord>(routine: &'static str, ctx: CtxHandle, dest: *mut T, value: T, pe: c_int) -> T {
    apply(routine, ctx, ("dest", dest), pe, AmoOp::Swap(value))
}

/// The pre-1.0 `long shmem_swap(long *target, long value, int pe)`.
pub(crate) fn swap_default<T: AtomicWord>(routine: &'static str, dest: *mut T, value: T, pe: c_int) -> T {
    swap(routine, CtxHandle::DEFAULT, dest, value, pe)
}

pub(crate) fn compare_swap<T: AtomicInt>(
    routine: &'static str,
    ctx: CtxHandle,
    dest: *mut T,
    cond: T,
    value: T,
    pe: c_int,
) -> T {
    apply(routine, ctx, ("dest", dest), pe, AmoOp::CompareSwap(cond, value))
}

pub(crate) fn fetch_inc<T: AtomicInt>(routine: &'static str, ctx: CtxHandle, dest: *mut T, pe: c_int) -> T {
    apply(routine, ctx, ("dest", dest), pe, AmoOp::Add(T::ONE))
}

pub(crate) fn inc<T: AtomicInt>(routine: &'static str, ctx: CtxHandle, dest: *mut T, pe: c_int) {
    apply_write(routine, ctx, ("dest", dest), pe, AmoOp::Add(T::ONE));
}

pub(crate) fn fetch_add<T: AtomicInt>(routine: &'static str, ctx: CtxHandle, dest: *mut T, value: T, pe: c_int) -> T {
    apply(routine, ctx, ("dest", dest), pe, AmoOp::Add(value))
}

pub(crate) fn add<T: AtomicInt>(routine: &'static str, ctx: CtxHandle, dest: *mut T, value: T, pe: c_int) {
    apply_write(routine, ctx, ("dest", dest), pe, AmoOp::Add(value));
}

pub(crate) fn fetch_and<T: AtomicInt>(routine: &'static str, ctx: CtxHandle, dest: *mut T, value: T, pe: c_int) -> T {
    apply(routine, ctx, ("dest", dest), pe, AmoOp::And(value))
}

pub(crate) fn and<T: AtomicInt>(routine: &'static str, ctx: CtxHandle, dest: *mut T, value: T, pe: c_int) {
    apply_write(routine, ctx, ("dest", dest), pe, AmoOp::And(value));
}

pub(crate) fn fetch_or<T: AtomicInt>(routine: &'static str, ctx: CtxHandle, dest: *mut T, value: T, pe: c_int) -> T {
    apply(routine, ctx, ("dest", dest), pe, AmoOp::Or(value))
}

pub(crate) fn or<T: AtomicInt>(routine: &'static str, ctx: CtxHandle, dest: *mut T, value: T, pe: c_int) {
    apply_write(routine, ctx, ("dest", dest), pe, AmoOp::Or(value));
}

pub(crate) fn fetch_xor<T: AtomicInt>(routine: &'static str, ctx: CtxHandle, dest: *mut T, value: T, pe: c_int) -> T {
    apply(routine, ctx, ("dest", dest), pe, AmoOp::Xor(value))
}

pub(crate) fn xor<T: AtomicInt>(routine: &'static str, ctx: CtxHandle, dest: *mut T, value: T, pe: c_int) {
    apply_write(routine, ctx, ("dest", dest), pe, AmoOp::Xor(value));
}

pub(crate) fn fetch_nbi<T: AtomicWord>(
    routine: &'static str,
    ctx: CtxHandle,
    fetch: *mut T,
    source: *const T,
    pe: c_int,
) {
    apply_nbi(routine, ctx, fetch, ("source", source), pe, AmoOp::Fetch)
}

pub(crate) fn compare_swap_nbi<T: AtomicInt>(
    routine: &'static str,
    ctx: CtxHandle,
    fetch: *mut T,
    dest: *mut T,
    cond: T,
    value: T,
    pe: c_int,
) {
    apply_nbi(routine, ctx, fetch, ("dest", dest), pe, AmoOp::CompareSwap(cond, value))
}

pub(crate) fn swap_nbi<T: AtomicWord>(
    routine: &'static str,
    ctx: CtxHandle,
    fetch: *mut T,
    dest: *mut T,
    value: T,
    pe: c_int,
) {
    apply_nbi(routine, ctx, fetch, ("dest", dest), pe, AmoOp::Swap(value))
}

pub(crate) fn fetch_inc_nbi<T: AtomicInt>(
    routine: &'static str,
    ctx: CtxHandle,
    fetch: *mut T,
    dest: *mut T,
    pe: c_int,
) {
    apply_nbi(routine, ctx, fetch, ("dest", dest), pe, AmoOp::Add(T::ONE))
}

/// The fetching `_nbi` forms that take a value: add, and, or, xor.
macro_rules! fetch_value_nbi {
    ($($name:ident => $op:ident),*) => {$(
        pub(crate) fn $name<T: AtomicInt>(
            routine: &'static str,
            ctx: CtxHandle,
            fetch: *mut T,
            dest: *mut T,
            value: T,
            pe: c_int,
        ) {
            apply_nbi(routine, ctx, fetch, ("dest", dest), pe, AmoOp::$op(value))
        }
    )*};
}
fetch_value_nbi!(fetch_add_nbi => Add, fetch_and_nbi => And, fetch_or_nbi => Or, fetch_xor_nbi => Xor);
