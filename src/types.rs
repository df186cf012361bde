//! The element types of the typed API, as Rust sees them.
//!
//! The generated exports instantiate the generic shims in `ffi/` with these
//! types. Capabilities are expressed by traits, not by runtime type checks:
//! every RMA type is [`ShmemType`]; the point-to-point synchronisation types are
//! also [`WaitWord`] (loadable atomically, compared with their own signedness).

use std::sync::atomic::{
    AtomicI16, AtomicI32, AtomicI64, AtomicIsize, AtomicU16, AtomicU32, AtomicU64, AtomicUsize, Ordering,
};

/// C `long double`: 16 bytes on x86-64 (80-bit x87 plus padding) and on AArch64
/// (IEEE binary128). Rust has no such float, so RMA moves it as bytes and the
/// by-value routines (`shmem_longdouble_p`, `_g`) are written in assembly
/// (`ffi/longdouble.rs`).
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LongDouble(pub [u8; 16]);

/// An element type of the RMA routines: plain data copied bit for bit.
pub trait ShmemType: Copy + 'static {}

macro_rules! shmem_types {
    ($($t:ty),*) => { $(impl ShmemType for $t {})* };
}
shmem_types!(
    f32, f64, i8, u8, i16, u16, i32, u32, i64, u64, isize, usize, [u64; 2], LongDouble
);

/// A type that `wait_until` and `test` can watch: loaded with acquire ordering
/// from memory other PEs write, and compared as the C type would be.
pub trait WaitWord: ShmemType + PartialOrd + std::fmt::Debug {
    /// Atomically loads `*p` with acquire ordering.
    ///
    /// # Safety
    /// `p` must be valid for reads and aligned for `Self`.
    unsafe fn load_acquire(p: *const Self) -> Self;
}

macro_rules! wait_words {
    ($($t:ty => $a:ty),*) => {$(
        impl WaitWord for $t {
            #[inline]
            unsafe fn load_acquire(p: *const Self) -> Self {
                // SAFETY: the caller guarantees validity and alignment; the atomic
                // type has the same size and alignment as the integer.
                unsafe { <$a>::from_ptr(p as *mut _).load(Ordering::Acquire) as $t }
            }
        }
    )*};
}
wait_words!(i16 => AtomicI16, u16 => AtomicU16, i32 => AtomicI32, u32 => AtomicU32, i64 => AtomicI64, u64 => AtomicU64,
            isize => AtomicI64, usize => AtomicU64);

/// An atomic memory operation on one word, with the previous value returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AmoOp<T> {
    Fetch,
    Set(T),
    Swap(T),
    /// Stores the second value if the word equals the first.
    CompareSwap(T, T),
    Add(T),
    And(T),
    Or(T),
    Xor(T),
}

impl<T> AmoOp<T> {
    /// Whether the operation may change the word (and so must wake waiters).
    pub fn writes(&self) -> bool {
        !matches!(self, AmoOp::Fetch)
    }
}

/// A type of the extended AMOs (fetch, set, swap): a 4- or 8-byte word that
/// the hardware updates atomically. Every operation is sequentially
/// consistent: a `lock`-prefixed instruction or `xchg` on x86-64, an
/// acquire-release LSE or LL/SC sequence on AArch64, so it is atomic with
/// respect to C11 atomics another process applies to the same word.
pub trait AtomicWord: ShmemType + PartialEq + std::fmt::Debug {
    /// Applies `op` to `*p` and returns the previous value. Arithmetic and
    /// bitwise operations are only applied to [`AtomicInt`] types (the shims'
    /// bounds ensure it).
    ///
    /// # Safety
    /// `p` must be valid and aligned for `Self`.
    unsafe fn apply(p: *mut Self, op: AmoOp<Self>) -> Self;
}

/// A type of the standard and bitwise AMOs: an integer with wrapping
/// arithmetic, also watched by the point-to-point routines.
pub trait AtomicInt: AtomicWord + WaitWord {
    const ONE: Self;
}

macro_rules! atomic_ints {
    ($($t:ty => $a:ty),*) => {$(
        impl AtomicWord for $t {
            #[inline]
            unsafe fn apply(p: *mut Self, op: AmoOp<Self>) -> Self {
                // SAFETY: the caller guarantees validity and alignment; the atomic
                // type has the size and alignment of the integer.
                let a = unsafe { <$a>::from_ptr(p as *mut _) };
                let sc = Ordering::SeqCst;
                (match op {
                    AmoOp::Fetch => a.load(sc),
                    AmoOp::Set(v) => { a.store(v as _, sc); 0 as _ }
                    AmoOp::Swap(v) => a.swap(v as _, sc),
                    AmoOp::CompareSwap(c, v) => match a.compare_exchange(c as _, v as _, sc, sc) {
                        Ok(old) | Err(old) => old,
                    },
                    AmoOp::Add(v) => a.fetch_add(v as _, sc),
                    AmoOp::And(v) => a.fetch_and(v as _, sc),
                    AmoOp::Or(v) => a.fetch_or(v as _, sc),
                    AmoOp::Xor(v) => a.fetch_xor(v as _, sc),
                }) as $t
            }
        }
        impl AtomicInt for $t {
            const ONE: Self = 1;
        }
    )*};
}
atomic_ints!(i32 => AtomicI32, u32 => AtomicU32, i64 => AtomicI64, u64 => AtomicU64, isize => AtomicIsize,
             usize => AtomicUsize);

macro_rules! atomic_floats {
    ($($t:ty => $a:ty),*) => {$(
        impl AtomicWord for $t {
            #[inline]
            unsafe fn apply(p: *mut Self, op: AmoOp<Self>) -> Self {
                // SAFETY: as for the integers; the float moves as its bits.
                let a = unsafe { <$a>::from_ptr(p as *mut _) };
                let sc = Ordering::SeqCst;
                <$t>::from_bits(match op {
                    AmoOp::Fetch => a.load(sc),
                    AmoOp::Set(v) => { a.store(v.to_bits(), sc); 0 }
                    AmoOp::Swap(v) => a.swap(v.to_bits(), sc),
                    other => unreachable!("{other:?} on a floating-point word"),
                })
            }
        }
    )*};
}
atomic_floats!(f32 => AtomicU32, f64 => AtomicU64);

/// The comparison operators of the point-to-point routines, with the values
/// `shmem.h` gives `SHMEM_CMP_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq = 1,
    Ne = 2,
    Gt = 3,
    Ge = 4,
    Lt = 5,
    Le = 6,
}

impl Cmp {
    /// Decodes a `SHMEM_CMP_*` value.
    pub fn from_c(v: i32) -> Option<Cmp> {
        Some(match v {
            1 => Cmp::Eq,
            2 => Cmp::Ne,
            3 => Cmp::Gt,
            4 => Cmp::Ge,
            5 => Cmp::Lt,
            6 => Cmp::Le,
            _ => return None,
        })
    }

    /// `lhs <op> rhs`, with the signedness of `T`.
    #[inline]
    pub fn holds<T: PartialOrd>(self, lhs: T, rhs: T) -> bool {
        match self {
            Cmp::Eq => lhs == rhs,
            Cmp::Ne => lhs != rhs,
            Cmp::Gt => lhs > rhs,
            Cmp::Ge => lhs >= rhs,
            Cmp::Lt => lhs < rhs,
            Cmp::Le => lhs <= rhs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_keep_signedness() {
        assert!(Cmp::Gt.holds(u32::MAX, 1u32));
        assert!(Cmp::Lt.holds(-1i32, 1i32));
        assert!(Cmp::Ge.holds(u64::MAX, u64::MAX - 1));
        assert!(!Cmp::Ne.holds(7i16, 7i16));
        for v in 1..=6 {
            assert_eq!(Cmp::from_c(v).map(|c| c as i32), Some(v));
        }
        assert_eq!(Cmp::from_c(0), None);
        assert_eq!(Cmp::from_c(7), None);
    }

    #[test]
    fn acquire_loads_read_the_value() {
        let x: u64 = 0xdead_beef_0000_0001;
        // SAFETY: &x is valid and aligned.
        assert_eq!(unsafe { u64::load_acquire(&x) }, x);
        let y: i16 = -3;
        // SAFETY: as above.
        assert_eq!(unsafe { i16::load_acquire(&y) }, -3);
        assert_eq!(std::mem::size_of::<LongDouble>(), 16);
    }

    #[test]
    fn atomic_operations_return_the_previous_value_and_wrap() {
        let mut x: i32 = i32::MAX;
        // SAFETY: &mut x is valid and aligned in every call below.
        unsafe {
            assert_eq!(i32::apply(&mut x, AmoOp::Add(1)), i32::MAX);
            assert_eq!(x, i32::MIN);
            assert_eq!(i32::apply(&mut x, AmoOp::CompareSwap(0, 5)), i32::MIN, "failed compare");
            assert_eq!(i32::apply(&mut x, AmoOp::CompareSwap(i32::MIN, 5)), i32::MIN);
            assert_eq!(i32::apply(&mut x, AmoOp::Fetch), 5);
        }
        let mut u: u64 = 0b1100;
        // SAFETY: as above.
        unsafe {
            assert_eq!(u64::apply(&mut u, AmoOp::And(0b0110)), 0b1100);
            assert_eq!(u64::apply(&mut u, AmoOp::Or(0b0001)), 0b0100);
            assert_eq!(u64::apply(&mut u, AmoOp::Xor(0b0101)), 0b0101);
            assert_eq!(u64::apply(&mut u, AmoOp::Swap(7)), 0);
            assert_eq!(u64::apply(&mut u, AmoOp::Set(9)), 0, "set returns nothing useful");
        }
        assert_eq!(u, 9);
        let mut f: f64 = 1.5;
        // SAFETY: as above.
        unsafe {
            assert_eq!(f64::apply(&mut f, AmoOp::Swap(-2.25)), 1.5);
            assert_eq!(f64::apply(&mut f, AmoOp::Fetch), -2.25);
        }
    }
}
