//! The element types of the typed API, as Rust sees them.
//!
//! The generated exports instantiate the generic shims in `ffi/` with these
//! types. Capabilities are expressed by traits, not by runtime type checks:
//! every RMA type is [`ShmemType`]; the point-to-point synchronisation types are
//! also [`WaitWord`] (loadable atomically, compared with their own signedness).

use std::sync::atomic::{AtomicI16, AtomicI32, AtomicI64, AtomicU16, AtomicU32, AtomicU64, Ordering};

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
}
